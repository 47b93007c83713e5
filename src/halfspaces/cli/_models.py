"""The models the CLI can train: ``--model`` names, their classes and ``--param`` parsing.

A name is offered when its class is among the library's estimators
(:data:`halfspaces._registry.ESTIMATORS`); the choices are read from that table without
importing any estimator module, so ``--help`` stays quick.
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Any

from halfspaces._registry import ESTIMATORS, estimator_class

__all__ = ["MODEL_CLASSES", "REGRESSION_MODELS", "ModelName", "available_models", "configure",
           "make_model", "parse_params"]

MODEL_CLASSES = {
    "perceptron": "Perceptron",
    "averaged": "AveragedPerceptron",
    "voted": "VotedPerceptron",
    "pocket": "PocketPerceptron",
    "kernel": "KernelPerceptron",
    "voted-kernel": "VotedKernelPerceptron",
    "multiclass": "MulticlassPerceptron",
    "logistic": "LogisticRegression",
    "linear": "LinearRegression",
    "svm": "LinearSVM",
    "lp": "LinearProgramClassifier",
    "max-margin": "MaxMarginClassifier",
    "zero-one": "ZeroOneERMClassifier",
}
"""``--model`` name -> class name in :mod:`halfspaces`."""

PERCEPTRON_FAMILY = ("perceptron", "averaged", "voted", "pocket")

REGRESSION_MODELS = ("linear",)
"""The ``--model`` names that predict numbers, not classes."""


def available_models() -> list[str]:
    """The ``--model`` names whose class is one of the library's estimators."""
    return [name for name, cls in MODEL_CLASSES.items() if cls in ESTIMATORS]


ModelName = Enum("ModelName", {name: name for name in available_models()}, type=str)
ModelName.__doc__ = "The ``--model`` choices (see :data:`MODEL_CLASSES`)."


def model_class(name: str) -> type:
    """The estimator class for a ``--model`` name."""
    if name not in MODEL_CLASSES:
        raise ValueError(f"model={name!r} is not one of {', '.join(MODEL_CLASSES)}.")
    return estimator_class(MODEL_CLASSES[name])


def make_model(name: str, params: dict[str, Any], defaults: dict[str, Any]) -> Any:
    """An estimator of model `name`: `defaults` where it has such a parameter, then `params`.

    Raises
    ------
    KeyError
        If `params` names a parameter the model does not have (the message lists them).
    """
    return configure(model_class(name), params, defaults)


def configure(cls: type, params: dict[str, Any], defaults: dict[str, Any]) -> Any:
    """``cls(...)`` with `defaults` where it has such a parameter, then `params`, all of
    which it must have (a KeyError lists its parameters otherwise)."""
    known = cls().get_params()
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise KeyError(f"{cls.__name__} has no parameter {', '.join(unknown)} (it has "
                       f"{', '.join(sorted(known))})")
    settings = {k: v for k, v in defaults.items() if k in known and v is not None}
    return cls(**{**settings, **params})


def parse_params(pairs: list[str] | None) -> dict[str, Any]:
    """``["key=value", ...]`` -> dict; values are read as JSON when they can be.

    Examples
    --------
    >>> parse_params(["max_epochs=5", "selection=shuffle", "gamma=0.5", "warm_start=true"])
    {'max_epochs': 5, 'selection': 'shuffle', 'gamma': 0.5, 'warm_start': True}
    """
    params = {}
    for pair in pairs or []:
        key, sep, text = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--param {pair!r} is not of the form key=value")
        params[key.strip()] = _value(text.strip())
    return params


def _value(text: str) -> Any:
    spelled = {"True": True, "False": False, "None": None}
    if text in spelled:
        return spelled[text]
    try:
        return json.loads(text)
    except ValueError:
        return text
