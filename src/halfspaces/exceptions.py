"""Exceptions and warnings raised by halfspaces.

Warnings subclass scikit-learn's where one exists, so ``warnings.filterwarnings`` set up for
scikit-learn also catches ours.
"""

from __future__ import annotations

from typing import Any

from sklearn.exceptions import ConvergenceWarning as _SklearnConvergenceWarning

__all__ = ["ConvergenceWarning", "NotSeparableError", "SolverError"]


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
