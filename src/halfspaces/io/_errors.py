"""The errors of :mod:`halfspaces.io`: which file, which line, what is wrong."""

from __future__ import annotations

import os

__all__ = ["DataFileError", "OutputFileError", "shown"]


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
