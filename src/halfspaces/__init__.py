"""halfspaces: fast linear classifiers with executable learning-theory guarantees.

The public API is imported lazily, so ``import halfspaces`` (and the CLI's ``--help``)
stays quick: NumPy, scikit-learn and Numba load on first use of a name that needs them.
Which module defines each name is listed once, in :mod:`halfspaces._registry`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from halfspaces._registry import PUBLIC as _PUBLIC
from halfspaces._registry import SUBMODULES as _SUBMODULES
from halfspaces._registry import public as _public
from halfspaces._version import __version__

# Written out (the registry's PUBLIC, sorted, then __version__) so that linters and type
# checkers see the exports; tests/api/test_layers.py checks that the two lists agree.
__all__ = [
    "AveragedPerceptron",
    "ConvergenceWarning",
    "KernelPerceptron",
    "LinearProgramClassifier",
    "LinearRegression",
    "LogisticRegression",
    "MaxMarginClassifier",
    "MulticlassPerceptron",
    "NotSeparableError",
    "Perceptron",
    "PocketPerceptron",
    "SolverError",
    "VotedKernelPerceptron",
    "VotedPerceptron",
    "ZeroOneERMClassifier",
    "augment",
    "load",
    "online_perceptron",
    "save",
    "__version__",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from halfspaces._utils.homogeneous import augment
    from halfspaces.erm import LinearProgramClassifier, MaxMarginClassifier, ZeroOneERMClassifier
    from halfspaces.exceptions import ConvergenceWarning, NotSeparableError, SolverError
    from halfspaces.io.model import load, save
    from halfspaces.kernel import KernelPerceptron, VotedKernelPerceptron
    from halfspaces.linear_regression import LinearRegression
    from halfspaces.logistic import LogisticRegression
    from halfspaces.multiclass import MulticlassPerceptron
    from halfspaces.perceptron import (
        AveragedPerceptron,
        Perceptron,
        PocketPerceptron,
        VotedPerceptron,
        online_perceptron,
    )


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        value = _public(name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"halfspaces.{name}")
    raise AttributeError(f"module 'halfspaces' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | _SUBMODULES)
