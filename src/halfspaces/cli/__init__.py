"""The ``halfspaces`` command-line tool: a thin shell over importable library functions.

Each command lives in its own module as a pair, in spaCy's pattern: ``<name>_cli`` parses the
options and calls ``<name>(...)``, a plain function that returns data; :mod:`._output` renders
that data as a Rich table or as JSON. Library errors become one red line on stderr and exit
code 1; a usage error (a bad option or value) is one red line too, naming the command's
``--help``, with exit code 2; ``HALFSPACES_DEBUG=1`` shows the traceback.

Nothing heavy (NumPy, SciPy, scikit-learn, Numba) is imported here or by the command modules
at import time, so ``halfspaces --help`` stays quick; commands import what they need when run.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from halfspaces._version import __version__
from halfspaces.cli import _output
from halfspaces.cli._process import collector, environment, lazy, signals
from halfspaces.cli.certify import certify_cli
from halfspaces.cli.datasets import datasets_cli
from halfspaces.cli.evaluate import evaluate_cli
from halfspaces.cli.fit import fit_cli
from halfspaces.cli.plot import plot_cli
from halfspaces.cli.predict import predict_cli

__all__ = ["app", "main", "run"]

DEBUG_ENV = "HALFSPACES_DEBUG"

app = typer.Typer(
    name="halfspaces",
    help="Fast linear classifiers with learning-theory guarantees: fit, predict, evaluate, "
    "certify, plot.",
    no_args_is_help=True,
    add_completion=False,
    # the locals of a failed fit hold whole data matrices: never print them
    pretty_exceptions_show_locals=False,
    # help as plain text: Rich's markup took "halfspaces[dask]" for a tag and printed
    # "pip install 'halfspaces'", and its boxes cut option names at 80 columns
    rich_markup_mode=None,
)
"""The ``halfspaces`` command as a Typer application (``typer.main.get_command(app)`` is its
Click group): the commands fit, predict, evaluate, certify, datasets and plot."""
app.command("fit")(fit_cli)
app.command("predict")(predict_cli)
app.command("evaluate")(evaluate_cli)
app.command("certify")(certify_cli)
app.command("datasets")(datasets_cli)
app.command("plot")(plot_cli)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"halfspaces {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Fast linear classifiers (perceptron family) with learning-theory guarantees."""


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command line: ``halfspaces`` and ``python -m halfspaces`` both land here.

    Parameters
    ----------
    argv : sequence of str or None, default=None
        The arguments after the program name; None reads ``sys.argv``.
    """
    try:
        with environment.prepared():
            _command(argv)
    except BrokenPipeError:  # the reader of our output is gone (| head): nothing to say
        environment.quiet_broken_pipe()
        sys.exit(1)


def _command(argv: Sequence[str] | None) -> None:
    try:
        environment.check_working_directory()
        # modules scikit-learn imports but no command uses load at their first use, if any
        with lazy.deferring():
            _run_click(argv)
    except Exception as exc:  # usage errors left _run_click as SystemExit(2)
        if isinstance(exc, BrokenPipeError) or os.environ.get(DEBUG_ENV, "") not in ("", "0"):
            raise
        _output.error(_output.describe(exc))
        sys.exit(1)


def _run_click(argv: Sequence[str] | None) -> None:
    """The Click group, with its errors in this tool's words: Click's standalone mode prints a
    usage error as three lines (the usage, a hint, the error); here it is the one red line
    every other error is, naming the command's --help, with Click's exit code (2)."""
    command = typer.main.get_command(app)
    try:
        code = command.main(args=None if argv is None else list(argv), prog_name="halfspaces",
                            standalone_mode=False)
    except typer.Abort:  # Ctrl-C or end of input outside a command's own handling
        _output.error("interrupted")
        sys.exit(130)
    except Exception as exc:
        if not _is_click_error(exc):
            raise
        kinds = {kind.__name__ for kind in type(exc).__mro__}
        if "NoArgsIsHelpError" in kinds:  # a bare command: its help, as Click prints it
            exc.show()  # type: ignore[attr-defined]
            sys.exit(exc.exit_code)  # type: ignore[attr-defined]
        context = getattr(exc, "ctx", None)
        hint = (f" (see '{context.command_path} --help')"
                if "UsageError" in kinds and context is not None else "")
        _output.error(f"{exc.format_message()}{hint}")  # type: ignore[attr-defined]
        sys.exit(exc.exit_code)  # type: ignore[attr-defined]
    # as in standalone mode, the command ends the process: typer.Exit(code) returns its code
    sys.exit(code if isinstance(code, int) else 0)


def _is_click_error(exc: Exception) -> bool:
    """Whether `exc` is a Click exception: Click's own or the copy newer Typers ship
    (``typer._click``), told apart by what they do rather than by a private class."""
    return (callable(getattr(exc, "format_message", None)) and callable(getattr(exc, "show", None))
            and isinstance(getattr(exc, "exit_code", None), int))


def run() -> None:
    """The ``halfspaces`` program (the console script and ``python -m halfspaces``).

    :func:`main` in a process that ends with the command: the garbage collector is paused
    through start-up and frozen at exit (:mod:`halfspaces.cli._process.collector`: a quarter of a
    warm ``halfspaces fit``), and SIGTERM and SIGHUP clean up before they end it, as Ctrl-C
    does (:mod:`halfspaces.cli._process.signals`: no temporary output file is left behind).
    """
    collector.pause()
    signals.install()
    try:
        main()
    except signals.Signalled as stopped:
        signals.end_by(stopped.signum)
    finally:
        collector.freeze_for_exit()
