r"""Surrogate losses of the margin z = y <w, x>: value and derivative, vectorised.

A linear classifier can be judged by the loss it charges a margin z (Shalev-Shwartz and
Ben-David 2014, 12.3):

.. math::
    \ell_{0-1}(z) = [z \le 0],\quad
    \ell_{\log}(z) = \ln(1 + e^{-z}),\quad
    \ell_{\rm hinge}(z) = \max(0, 1 - z),\quad
    \ell_{\rm perc}(z) = \max(0, -z),\quad
    \ell_{\rm sq}(z) = (1 - z)^2 / 2.

The logistic loss is smooth and convex (the maximum-likelihood loss of
:class:`halfspaces.LogisticRegression`); so is the squared loss, which for y in {-1, +1} and
z = y f equals (y - f)^2 / 2, the loss of :class:`halfspaces.LinearRegression` (least
squares on ±1 targets); hinge and perceptron losses are convex with a kink
(their derivative here is the subgradient taking the left value at the kink, the one the
perceptron and subgradient descent use); the zero-one loss has derivative 0 wherever it
exists. Each loss is a :class:`Loss` with ``value`` and ``derivative``, found by name in
:data:`LOSSES` (for grid search and the CLI).

References
----------
.. [1] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning: From Theory to
   Algorithms. Cambridge University Press, 2014. Sections 9.3 and 12.3 (surrogate losses).

Examples
--------
>>> import numpy as np
>>> from halfspaces.losses import get_loss
>>> z = np.array([-1.0, 0.0, 2.0])
>>> get_loss("hinge").value(z)
array([2., 1., 0.])
>>> get_loss("logistic").derivative(np.array([0.0]))
array([-0.5])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

__all__ = ["LOSSES", "Loss", "get_loss", "hinge", "logistic", "perceptron", "squared",
           "zero_one"]


def zero_one(z: ArrayLike) -> NDArray:
    """[z <= 0]: 1 for a mistake (or a point on the boundary), else 0.

    Parameters
    ----------
    z : array-like
        Margins z = y f(x).

    Returns
    -------
    ndarray
        The loss at each margin.
    """
    return (np.asarray(z, dtype=float) <= 0).astype(float)


def zero_one_derivative(z: ArrayLike) -> NDArray:
    """0 wherever the zero-one loss is differentiable (everywhere but z = 0)."""
    return np.zeros_like(np.asarray(z, dtype=float))


def logistic(z: ArrayLike) -> NDArray:
    """ln(1 + e^{-z}), without overflow at any margin.

    Parameters
    ----------
    z : array-like
        Margins z = y f(x).

    Returns
    -------
    ndarray
        The loss at each margin.
    """
    return np.logaddexp(0.0, -np.asarray(z, dtype=float))


def logistic_derivative(z: ArrayLike) -> NDArray:
    """-sigma(-z) = -1 / (1 + e^{z})."""
    return -expit(-np.asarray(z, dtype=float))


def hinge(z: ArrayLike) -> NDArray:
    """max(0, 1 - z).

    Parameters
    ----------
    z : array-like
        Margins z = y f(x).

    Returns
    -------
    ndarray
        The loss at each margin.
    """
    return np.maximum(0.0, 1.0 - np.asarray(z, dtype=float))


def hinge_derivative(z: ArrayLike) -> NDArray:
    """-1 where z <= 1 (the left subgradient at the kink), else 0."""
    return -(np.asarray(z, dtype=float) <= 1.0).astype(float)


def perceptron(z: ArrayLike) -> NDArray:
    """max(0, -z): the perceptron's loss, zero for correct predictions of any margin.

    Parameters
    ----------
    z : array-like
        Margins z = y f(x).

    Returns
    -------
    ndarray
        The loss at each margin.
    """
    return np.maximum(0.0, -np.asarray(z, dtype=float))


def perceptron_derivative(z: ArrayLike) -> NDArray:
    """-1 where z <= 0 (the perceptron updates on z = 0 too), else 0."""
    return -(np.asarray(z, dtype=float) <= 0.0).astype(float)


def squared(z: ArrayLike) -> NDArray:
    """(1 - z)^2 / 2: for y in {-1, +1} and z = y f, the squared error (y - f)^2 / 2.

    Parameters
    ----------
    z : array-like
        Margins z = y f(x).

    Returns
    -------
    ndarray
        The loss at each margin.
    """
    return 0.5 * np.square(1.0 - np.asarray(z, dtype=float))


def squared_derivative(z: ArrayLike) -> NDArray:
    """z - 1."""
    return np.asarray(z, dtype=float) - 1.0


@dataclass(frozen=True)
class Loss:
    """A loss of the margin: its name, value and (sub)derivative, both vectorised.

    Attributes
    ----------
    name : str
        The name :func:`get_loss` takes.
    value, derivative : callable
        The loss and a (sub)derivative, elementwise over an array of margins.
    convex, smooth : bool
        Whether the loss is convex, and differentiable everywhere.
    """

    name: str
    value: Callable[[ArrayLike], NDArray]
    derivative: Callable[[ArrayLike], NDArray]
    convex: bool
    smooth: bool


LOSSES: dict[str, Loss] = {
    "zero_one": Loss("zero_one", zero_one, zero_one_derivative, convex=False, smooth=False),
    "logistic": Loss("logistic", logistic, logistic_derivative, convex=True, smooth=True),
    "hinge": Loss("hinge", hinge, hinge_derivative, convex=True, smooth=False),
    "perceptron": Loss("perceptron", perceptron, perceptron_derivative, convex=True,
                       smooth=False),
    "squared": Loss("squared", squared, squared_derivative, convex=True, smooth=True),
}


def get_loss(name: str) -> Loss:
    """The loss called ``name`` (one of :data:`LOSSES`).

    Parameters
    ----------
    name : {"zero_one", "logistic", "hinge", "perceptron", "squared"}
        The loss.

    Returns
    -------
    loss : Loss
        Its value and derivative.
    """
    try:
        return LOSSES[name]
    except KeyError:
        raise ValueError(f"Unknown loss {name!r}; choose one of {sorted(LOSSES)}.") from None
