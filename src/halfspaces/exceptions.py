"""Exceptions and warnings raised by halfspaces: every public one is defined here.

Warnings subclass scikit-learn's where one exists, so ``warnings.filterwarnings`` set up for
scikit-learn also catches ours. The errors of files (data, output, model files, checkpoints)
subclass ``ValueError`` (and ``OSError`` for output), so handlers written for the built-in
errors catch them too; :mod:`halfspaces.io`, :mod:`halfspaces.io.model` and
:mod:`halfspaces.io.streaming` re-export the ones they raise, where they were first defined.
"""

from __future__ import annotations

import os
from typing import Any

from sklearn.exceptions import ConvergenceWarning as _SklearnConvergenceWarning

__all__ = ["CheckpointMismatchError", "ConvergenceWarning", "DataFileError",
           "ModelFileError", "NotSeparableError", "OutputFileError", "SolverError"]


class ConvergenceWarning(_SklearnConvergenceWarning):
    """An iterative algorithm stopped at its budget before its stopping rule was met."""


class NotSeparableError(ValueError):
    """The data are not linearly separable, so the requested object does not exist.

    Parameters
    ----------
    message : str
        What was asked for and why it cannot be given.
    certificate : ndarray or None, default=None
        A proof of non-separability when one was computed (see
        :func:`halfspaces.theory.separability`): a >= 0, sum(a) = 1, sum_i a_i y_i x'_i = 0.
    """

    def __init__(self, message: str, certificate: Any = None) -> None:
        super().__init__(message)
        self.certificate = certificate


class SolverError(RuntimeError):
    """HiGHS failed, hit a limit, or returned an answer that did not survive verification."""


def shown(path: str | bytes | os.PathLike) -> str:
    """`path` as a message shows it: a control character (a newline, a tab, ESC) written
    as its escape, since a message is one line and a newline in a file name read as a
    space named another file ("nope line.csv" for "nope\\nline.csv").

    >>> shown("nope\\nline.csv")
    'nope\\\\nline.csv'
    """
    try:
        text = os.fsdecode(path)
    except TypeError:  # a descriptor number, or a file object someone passed
        text = str(path)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


class DataFileError(ValueError):
    """A data file is missing, unreadable or malformed.

    The message names the file and, where one is to blame, the line (1-based, counting
    every physical line including headers and comments) and what is wrong with it.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    reason : str
        What is wrong, e.g. ``"value 'x' of feature 3 is not a number"``.
    line : int or None, default=None
        The 1-based line number, when one line is to blame.

    Examples
    --------
    >>> str(DataFileError("train.svm", "feature index 2 is out of order", line=7))
    'train.svm, line 7: feature index 2 is out of order'
    """

    def __init__(self, path: str | os.PathLike, reason: str, line: int | None = None) -> None:
        self.path, self.reason, self.line = os.fspath(path), reason, line
        where = shown(self.path) if line is None else f"{shown(self.path)}, line {line}"
        super().__init__(f"{where}: {reason}")

    def __reduce__(self):  # keep it picklable across processes (e.g. Dask workers)
        return type(self), (self.path, self.reason, self.line)


class OutputFileError(OSError, ValueError):
    """An output file cannot be written where it was asked for.

    An :class:`OSError` (what a failed write raised before this class existed, so existing
    handlers still catch it) and a :class:`ValueError` (a bad output argument).

    Raised before anything is written (and, on the command line, before training) when the
    output would replace one of the inputs, is a directory, or lies in a directory that is
    missing or not writable; and when writing fails (e.g. a full disk), in which case the
    file is left as it was. The message names the file, never a temporary one.

    Parameters
    ----------
    path : str or os.PathLike
        The output file.
    reason : str
        What is wrong, and what to do instead.

    Examples
    --------
    >>> str(OutputFileError("model.hs", "it is a directory; give a file name"))
    'model.hs: it is a directory; give a file name'
    """

    def __init__(self, path: str | os.PathLike, reason: str) -> None:
        self.path, self.reason = os.fspath(path), reason
        super().__init__(f"{shown(self.path)}: {reason}")

    def __reduce__(self):
        return type(self), (self.path, self.reason)


class ModelFileError(ValueError):
    """A model cannot be saved, or a file is not a model file this version can load
    (:func:`halfspaces.save`, :func:`halfspaces.load`)."""


class CheckpointMismatchError(ModelFileError):
    """A checkpoint was written by a run with another model, setting or data file
    (:func:`halfspaces.io.fit_stream` with ``resume=True``).

    Parameters
    ----------
    message : str
        What differs, naming the checkpoint.
    setting : str
        See Attributes.

    Attributes
    ----------
    setting : str
        What differs: ``"model"`` (the estimator class), a parameter name of the
        estimator, or a setting of :func:`~halfspaces.io.fit_stream` (``"data"``,
        ``"chunk_size"``, ...).
    """

    def __init__(self, message: str, setting: str) -> None:
        super().__init__(message)
        self.setting = setting

    def __reduce__(self):
        return type(self), (str(self), self.setting)
