"""``python -m halfspaces``: the same command-line tool as the ``halfspaces`` script."""

from halfspaces.cli import main

if __name__ == "__main__":
    main()
