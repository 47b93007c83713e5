"""halfspaces: fast linear classifiers with executable learning-theory guarantees.

The public API is imported lazily, so ``import halfspaces`` (and the CLI's ``--help``)
stays quick: NumPy, scikit-learn and Numba load on first use of a name that needs them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> module that defines it
_LAZY = {
    "Perceptron": "halfspaces.perceptron",
    "AveragedPerceptron": "halfspaces.perceptron",
    "VotedPerceptron": "halfspaces.perceptron",
    "PocketPerceptron": "halfspaces.perceptron",
    "online_perceptron": "halfspaces.perceptron",
    "augment": "halfspaces._validation",
    "NotSeparableError": "halfspaces.exceptions",
    "ConvergenceWarning": "halfspaces.exceptions",
    "LinearProgramClassifier": "halfspaces.erm",
    "MaxMarginClassifier": "halfspaces.erm",
    "ZeroOneERMClassifier": "halfspaces.erm",
    "SolverError": "halfspaces.exceptions",
    "KernelPerceptron": "halfspaces.kernel",
    "MulticlassPerceptron": "halfspaces.multiclass",
    "save": "halfspaces.io.model",
    "load": "halfspaces.io.model",
    "LogisticRegression": "halfspaces.logistic",
    "LinearRegression": "halfspaces.linear_regression",
}
_SUBMODULES = {
    "datasets", "perceptron", "exceptions", "cli", "theory", "erm", "kernel", "multiclass",
    "io",
    "losses",
}

__all__ = sorted(_LAZY) + ["__version__"]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from halfspaces._validation import augment
    from halfspaces.erm import LinearProgramClassifier, MaxMarginClassifier, ZeroOneERMClassifier
    from halfspaces.exceptions import ConvergenceWarning, NotSeparableError, SolverError
    from halfspaces.io.model import load, save
    from halfspaces.kernel import KernelPerceptron
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
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"halfspaces.{name}")
    raise AttributeError(f"module 'halfspaces' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | _SUBMODULES)
