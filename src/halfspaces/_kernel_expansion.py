"""The fitted state of a kernel perceptron, read once and checked before a compiled loop.

A kernel model's prediction, or a run that continues it, reads a dozen fitted arrays that
the compiled vote and run index without bounds checks: support vectors (or Gram-matrix
columns), coefficients per problem, and the voted form's update lists. They are read here
once, into one immutable :class:`Expansion`, and checked against one another, so that an
edited attribute, a kernel switched across "precomputed", or a partial_fit in another
thread replacing the attributes between two reads is a ValueError naming them, never a
read beyond an array. A middle-layer module beside :mod:`halfspaces._dual_run`, whose
compiled calls it guards: it reads a model's fitted attributes by name, as scikit-learn's
``check_is_fitted`` does, and imports no estimator (:mod:`halfspaces.kernel` is its user).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["Expansion", "fitted_precomputed", "read_expansion"]


def fitted_precomputed(model) -> bool:
    """Whether ``model`` was fitted with kernel="precomputed", whatever ``kernel`` says now.

    A model fitted on features keeps its support vectors, n_features_in_ >= 1 columns wide;
    one fitted on a Gram matrix keeps none, an array of shape (0, 0). Model files hold the
    same arrays, so the kind is read from them rather than kept in an attribute of its own.
    """
    return model.support_vectors_.shape[1] == 0


@dataclass(frozen=True)
class Expansion:
    """A fitted model's expansion, read from its attributes once and checked as a whole.

    A prediction or a resumed run reads the fitted attributes here, once, and then only
    these arrays: a partial_fit in another thread replaces the attributes one by one, and
    VotedKernelPerceptron.decision_function, which read them again for every block of
    rows, mixed two models (update indices beyond the test kernel matrix's columns, which
    the compiled vote reads without bounds checks: a segmentation fault). ``kernel``,
    ``degree``, ``gamma`` and ``coef0`` are the kernel of this call, read with the arrays so
    that every block of rows has the same one; ``columns`` the columns of X a precomputed
    kernel reads; ``size``
    the support vectors (the columns of every test kernel matrix); ``votes`` the voted
    model's (update rows, signs, vote counts, update steps) per problem, whose largest row
    is below ``top``.
    """

    kernel: str | Callable
    degree: int
    gamma: float | None
    coef0: float
    precomputed: bool
    vectors: Any
    columns: NDArray
    size: int
    dual_coef: NDArray
    intercept: NDArray
    last_coef: NDArray
    coef_sums: NDArray
    n_steps: NDArray
    votes: tuple = ()
    top: int = 0


def read_expansion(model, width: int) -> Expansion:
    """The fitted expansion of ``model`` for rows of ``width`` columns, or ValueError where
    its kernel was switched across "precomputed" or its attributes disagree (edited, or
    replaced by another thread during the reading)."""
    kernel, vectors, columns = model.kernel, model.support_vectors_, model.support_
    arrays = {"dual_coef_": model.dual_coef_, "intercept_": model.intercept_,
              "_last_coef": model._last_coef, "_coef_sums": model._coef_sums,
              "_n_steps": model._n_steps}
    votes = [model.update_support_, model.update_signs_, model.vote_counts_,
             model._update_steps] if model._voted else []
    n_classes = len(model.classes_)
    precomputed = fitted_precomputed(model)
    _check_kind(kernel, precomputed, vectors.shape)
    size = _support_size(precomputed, vectors, columns, width)
    p = 1 if n_classes == 2 else n_classes
    for name, value in arrays.items():
        expected = (p,) if name in ("intercept_", "_n_steps") else (p, size)
        if np.shape(value) != expected:
            raise _disagree(f"{name} has shape {np.shape(value)} where the {size} support "
                            f"vectors of {p} binary problem(s) call for {expected}")
    votes, top = _checked_votes(votes, p, size)
    return Expansion(kernel, model.degree, model.gamma, model.coef0, precomputed, vectors,
                     columns, size, *arrays.values(), votes=votes, top=top)


def _check_kind(kernel, precomputed: bool, shape: tuple) -> None:
    if precomputed and kernel != "precomputed":
        raise ValueError(
            f"This model was fitted with kernel='precomputed': it keeps no support vectors, "
            f"only the columns support_ of the Gram matrix, so it cannot predict or continue "
            f"with kernel={kernel!r}. Set kernel='precomputed' again, or fit anew."
        )
    if not precomputed and kernel == "precomputed":
        raise ValueError(
            f"This model was fitted with a kernel of the features (it keeps {shape[0]} "
            f"support vectors of {shape[1]} features), so it cannot predict or continue with "
            "kernel='precomputed'. Set kernel to the one it was fitted with, or fit anew."
        )


def _support_size(precomputed: bool, vectors, columns, width: int) -> int:
    """The support vectors of a model that reads rows of ``width`` columns."""
    if not precomputed:
        if vectors.shape[1] != width:
            raise _disagree(f"support_vectors_ has {vectors.shape[1]} features where X has "
                            f"{width}")
        return vectors.shape[0]
    columns = np.asarray(columns)
    if columns.ndim != 1 or columns.dtype.kind not in "iu" or (
            columns.size and not 0 <= columns.min() <= columns.max() < width):
        raise _disagree(f"support_ must be indices of the {width} columns of the kernel "
                        "matrix X")
    return columns.shape[0]


def _checked_votes(votes: list, p: int, size: int) -> tuple[tuple, int]:
    """The voted model's lists as (rows, signs, counts, steps) per problem, checked for the
    compiled vote, which reads support column rows[k], signs[k] and counts[k + 1] for every
    update k unchecked; and one more than the largest row."""
    if not votes:  # KernelPerceptron
        return (), 0
    names = ("update_support_", "update_signs_", "vote_counts_", "_update_steps")
    for name, value in zip(names, votes, strict=True):
        if len(value) != p:
            raise _disagree(f"{name} holds {len(value)} arrays for {p} binary problem(s)")
    problems, top = [], 0
    for k, arrays in enumerate(zip(*votes, strict=True)):
        rows, signs, counts, steps = (np.asarray(a) for a in arrays)
        m = rows.shape[0] if rows.ndim == 1 else -1
        shapes = [a.shape for a in (rows, signs, counts, steps)]
        if m < 0 or shapes != [(m,), (m,), (m + 1,), (m,)] or not (
                rows.dtype.kind in "iu" and signs.dtype.kind in "iuf"
                and counts.dtype.kind in "iuf"):
            raise _disagree(f"update_support_[{k}], update_signs_[{k}], vote_counts_[{k}] "
                            f"and _update_steps[{k}] have shapes {shapes}")
        if m and not 0 <= rows.min() <= rows.max() < size:
            raise _disagree(f"update_support_[{k}] holds rows {rows.min()} to {rows.max()} "
                            f"of {size} support vectors")
        top = max(top, int(rows.max()) + 1 if m else 0)
        problems.append((rows, signs, counts, steps))
    return tuple(problems), top


def _disagree(what: str) -> ValueError:
    return ValueError(f"{what}: the fitted attributes disagree (edited, or replaced by a fit "
                      "or partial_fit in another thread while this call read them). Fit the "
                      "model again.")
