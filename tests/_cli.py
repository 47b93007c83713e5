"""Helpers for the tests of the command line and of the reports it prints."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import warnings
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

from halfspaces.cli import main
from halfspaces.exceptions import ConvergenceWarning


def run_cli(*args: str) -> dict:
    """The JSON report of ``halfspaces ARGS --json``, run in this process.

    In-process, so that a mutation tester's trampolines (``tools/mutation.sh``) reach the
    CLI's code; ``test_the_command_line_process_reports_as_main_does`` checks that the
    program run as a process reports the same.
    """
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            pytest.raises(SystemExit) as ended:
        main([*args, "--json"])
    assert ended.value.code in (0, None), err.getvalue()
    return json.loads(out.getvalue())


def run_cli_text(*args: str) -> tuple[str, str]:
    """(stdout, stderr) of ``halfspaces ARGS`` for people (no ``--json``), run in this
    process and expected to succeed; stderr's whitespace runs are single spaces."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            pytest.raises(SystemExit) as ended:
        main(list(args))
    assert ended.value.code in (0, None), err.getvalue()
    return out.getvalue(), " ".join(err.getvalue().split())


def cli_error(*args: str) -> tuple[int, str]:
    """(exit code, stderr) of ``halfspaces ARGS`` run in this process, expected to fail.

    A usage error (exit code 2) must end by naming the command's ``--help``; the message is
    returned without that hint.

    Rich draws the error in a box as wide as the terminal (80 columns when it writes to a
    string) and cuts a word longer than a line, such as a temporary path, in the middle;
    the messages are compared with whitespace folded, so the box is made wider than any
    message here.
    """
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err), \
            mock.patch.dict(os.environ, {"COLUMNS": "4000"}), \
            pytest.raises(SystemExit) as ended:
        main(list(args))
    assert ended.value.code not in (0, None)
    text = err.getvalue()
    for frame in "│╭╰─╮╯":  # Rich's box around the error
        text = text.replace(frame, " ")
    said = " ".join(text.split())
    if ended.value.code == 2:  # a usage error ends by naming the command's --help: checked
        hint = re.search(r" \(see 'halfspaces [a-z -]+ --help'\)$", said)
        assert hint is not None, said
        said = said[:hint.start()]
    return ended.value.code, said


def fitted(estimator, X, y):
    """``estimator.fit(X, y)`` with its ConvergenceWarning silenced (the CLI notes it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y)


def shifted_problem(seed: int = 0, n: int = 100):
    """Linearly separable data whose separator is far from the origin: the intercept matters."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) + 5.0
    w = np.array([1.0, -2.0, 0.5, 1.5])
    margin = X @ w - np.median(X @ w)
    keep = np.abs(margin) > 0.3
    return X[keep], np.where(margin[keep] > 0, 1.0, -1.0)


def write_shifted(directory: Path) -> Path:
    """:func:`shifted_problem` as an svmlight file with one-based indices."""
    X, y = shifted_problem()
    path = directory / "shifted.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path


def report_lines(report) -> dict[str, str]:
    """The str() of a report as {label: value}: label and value are two spaces apart."""
    lines = {}
    for line in str(report).splitlines():
        label, value = line.split("  ", 1)
        lines[label.strip()] = value.strip()
    return lines
