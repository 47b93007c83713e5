"""Pictures of halfspaces whose drawn data are exact: hyperplanes, margins, mistake bounds.

Every display follows scikit-learn's convention: a class method (``from_estimator``,
``from_online``, ...) computes with the library's own runs and theory, ``__init__`` holds
the computed data, and ``plot(ax=None, **style)`` draws on `ax` (or on a new
``matplotlib.figure.Figure``, with no pyplot state), stores the artists as attributes
ending in ``_`` together with ``ax_`` and ``figure_``, and returns the display.

Matplotlib is optional: install it with ``pip install 'halfspaces[plot]'``. Importing
this package does not import it; drawing does.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["HyperplaneDisplay", "LossCurveDisplay", "LossDisplay", "MarginDisplay",
           "MistakeBoundDisplay", "PerceptronAnimation", "RegionsDisplay",
           "SampleComplexityDisplay", "SeparabilityDisplay", "ShatterDisplay",
           "animate_perceptron"]

_MODULES = {
    "HyperplaneDisplay": "halfspaces.plot.hyperplane",
    "LossDisplay": "halfspaces.plot.losses",
    "MarginDisplay": "halfspaces.plot.margins",
    "MistakeBoundDisplay": "halfspaces.plot.mistakes",
    "SeparabilityDisplay": "halfspaces.plot.separability",
    "ShatterDisplay": "halfspaces.plot.shatter",
    "LossCurveDisplay": "halfspaces.plot.curves",
    "SampleComplexityDisplay": "halfspaces.plot.curves",
    "RegionsDisplay": "halfspaces.plot.regions",
    "PerceptronAnimation": "halfspaces.plot.animation",
    "animate_perceptron": "halfspaces.plot.animation",
}


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        value = getattr(importlib.import_module(_MODULES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'halfspaces.plot' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
