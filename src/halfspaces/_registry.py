"""Every public name of halfspaces and the module that defines it, listed once.

The package root exports these names (lazily), model files may hold exactly the estimators
and state classes listed here, and the command line builds its models from them. It is the
idea of scikit-learn's ``sklearn.utils.discovery.all_estimators``, written out as plain
tables instead of discovered by walking the package, so that reading a table imports
nothing: ``import halfspaces`` and ``halfspaces --help`` stay quick, and a model file names
only classes from a fixed list (a file can never make the loader import a module of its
choosing).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "CV_ESTIMATORS", "ESTIMATORS", "EXCEPTIONS", "FUNCTIONS", "PUBLIC", "STATE_CLASSES",
    "SUBMODULES", "estimator_class", "public", "state_class",
]

ESTIMATORS = {
    "Perceptron": "halfspaces.perceptron",
    "AveragedPerceptron": "halfspaces.perceptron",
    "VotedPerceptron": "halfspaces.perceptron",
    "PocketPerceptron": "halfspaces.perceptron",
    "LinearProgramClassifier": "halfspaces.erm",
    "MaxMarginClassifier": "halfspaces.erm",
    "ZeroOneERMClassifier": "halfspaces.erm",
    "KernelPerceptron": "halfspaces.kernel",
    "VotedKernelPerceptron": "halfspaces.kernel",
    "MulticlassPerceptron": "halfspaces.multiclass",
    "LogisticRegression": "halfspaces.logistic",
    "LinearRegression": "halfspaces.linear_regression",
    "LinearSVM": "halfspaces.svm",
}
"""The public estimator classes (scikit-learn estimators): name -> module."""

CV_ESTIMATORS = {
    "LogisticRegressionCV": "halfspaces.logistic",
    "LinearRegressionCV": "halfspaces.linear_regression",
    "LinearSVMCV": "halfspaces.svm",
}
"""The estimators that choose alpha by cross-validation: name -> module. Model files may
hold them (:func:`estimator_class` finds them); they are apart from :data:`ESTIMATORS`,
the models the command line trains and the tables of per-model configurations the tests
keep, because they are searches over those models rather than models of their own."""

FUNCTIONS = {
    "online_perceptron": "halfspaces.perceptron",
    "regularization_path": "halfspaces._glm.path",
    "augment": "halfspaces._utils.homogeneous",
    "save": "halfspaces.io.model",
    "load": "halfspaces.io.model",
}
"""The public functions of the package root: name -> module."""

EXCEPTIONS = {
    "NotSeparableError": "halfspaces.exceptions",
    "ConvergenceWarning": "halfspaces.exceptions",
    "SolverError": "halfspaces.exceptions",
    "DataFileError": "halfspaces.exceptions",
    "OutputFileError": "halfspaces.exceptions",
    "ModelFileError": "halfspaces.exceptions",
    "CheckpointMismatchError": "halfspaces.exceptions",
}
"""The public exceptions and warnings, every one defined in :mod:`halfspaces.exceptions`:
name -> module. :mod:`halfspaces.io` (``DataFileError``, ``OutputFileError``),
:mod:`halfspaces.io.model` (``ModelFileError``) and :mod:`halfspaces.io.streaming`
(``CheckpointMismatchError``) export the ones they raise as well."""

PUBLIC = {**ESTIMATORS, **CV_ESTIMATORS, **FUNCTIONS, **EXCEPTIONS}
"""Every name the package root exports (besides ``__version__``): name -> module."""

SUBMODULES = frozenset({
    "cli", "dask", "datasets", "erm", "exceptions", "io", "kernel", "linear_regression",
    "logistic", "losses", "multiclass", "perceptron", "plot", "svm", "theory",
})
"""The submodules reachable as attributes of the package root (``halfspaces.theory``)."""

STATE_CLASSES = {
    "PerceptronState": "halfspaces._perceptron.run",
    "SgdState": "halfspaces._glm.solvers",
}
"""The library's own state dataclasses that fitted estimators hold, and model files may
store: name -> module."""


def public(name: str) -> Any:
    """The object a public name stands for, importing its module on first use.

    Raises
    ------
    KeyError
        If `name` is not in :data:`PUBLIC`.
    """
    return getattr(importlib.import_module(PUBLIC[name]), name)


def estimator_class(name: str) -> type | None:
    """The estimator class called `name` (of :data:`ESTIMATORS` or :data:`CV_ESTIMATORS`),
    or None if there is no such public estimator."""
    if not isinstance(name, str) or not (name in ESTIMATORS or name in CV_ESTIMATORS):
        return None
    return public(name)


def state_class(name: str) -> type | None:
    """The state dataclass called `name`, or None if it is not in :data:`STATE_CLASSES`."""
    if not isinstance(name, str) or name not in STATE_CLASSES:
        return None
    return getattr(importlib.import_module(STATE_CLASSES[name]), name)
