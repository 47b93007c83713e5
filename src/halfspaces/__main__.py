"""``python -m halfspaces``: the same command-line tool as the ``halfspaces`` script."""

from halfspaces.cli import run

if __name__ == "__main__":
    run()
