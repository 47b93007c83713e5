"""halfspaces: fast linear classifiers with executable learning-theory guarantees.

The public API is imported lazily, so ``import halfspaces`` (and the CLI's ``--help``)
stays quick: NumPy, scikit-learn and Numba load on first use of a name that needs them.
Which module defines each name is listed once, in :mod:`halfspaces._registry`.
"""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING

from halfspaces._registry import PUBLIC as _PUBLIC
from halfspaces._registry import SUBMODULES as _SUBMODULES
from halfspaces._registry import public as _public
from halfspaces._version import __version__

# Written out (the registry's PUBLIC, sorted, then __version__) so that linters and type
# checkers see the exports; tests/api/test_layers.py checks that the two lists agree.
__all__ = [
    "AveragedPerceptron",
    "CheckpointMismatchError",
    "ConvergenceWarning",
    "DataFileError",
    "KernelPerceptron",
    "LinearProgramClassifier",
    "LinearRegression",
    "LinearRegressionCV",
    "LinearSVM",
    "LinearSVMCV",
    "LogisticRegression",
    "LogisticRegressionCV",
    "MaxMarginClassifier",
    "ModelFileError",
    "MulticlassPerceptron",
    "NotSeparableError",
    "OutputFileError",
    "Perceptron",
    "PocketPerceptron",
    "SolverError",
    "VotedKernelPerceptron",
    "VotedPerceptron",
    "ZeroOneERMClassifier",
    "augment",
    "load",
    "online_perceptron",
    "regularization_path",
    "save",
    "__version__",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from typing import Any

    from halfspaces._glm.path import regularization_path
    from halfspaces._utils.homogeneous import augment
    from halfspaces.erm import LinearProgramClassifier, MaxMarginClassifier, ZeroOneERMClassifier
    from halfspaces.exceptions import (
        CheckpointMismatchError,
        ConvergenceWarning,
        DataFileError,
        ModelFileError,
        NotSeparableError,
        OutputFileError,
        SolverError,
    )
    from halfspaces.io.model import load, save
    from halfspaces.kernel import KernelPerceptron, VotedKernelPerceptron
    from halfspaces.linear_regression import LinearRegression, LinearRegressionCV
    from halfspaces.logistic import LogisticRegression, LogisticRegressionCV
    from halfspaces.multiclass import MulticlassPerceptron
    from halfspaces.perceptron import (
        AveragedPerceptron,
        Perceptron,
        PocketPerceptron,
        VotedPerceptron,
        online_perceptron,
    )
    from halfspaces.svm import LinearSVM, LinearSVMCV


# the namespace holds the public names, and private ones only: what the imports above bound
# for this module's own use goes (``annotations`` is the __future__ feature's binding)
del annotations, TYPE_CHECKING


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        value = _public(name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return _importlib.import_module(f"halfspaces.{name}")
    raise AttributeError(f"module 'halfspaces' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names and the public submodules, loaded or not."""
    return sorted(set(__all__) | _SUBMODULES)
