"""What a row weight means to the perceptrons, and the range of weights a run saw.

A weight scales the update on its row, w += s_i y_i x'_i (scikit-learn's Perceptron
scales its step by sample_weight times class_weight the same way); a row of weight 0 never
updates. Steps are still counted per row visited, so the averaged and voted forms average
and vote over rows, not over weight (as scikit-learn's averaged SGD does).

Novikoff's bound then holds in a weighted form (see
:func:`halfspaces.theory.perceptron_mistake_bound`): with updates s_i y_i x'_i on data
separated with margin gamma inside radius R, the number of updates M satisfies
M <= (s_max / s_min) (R / gamma)^2 over the rows of positive weight, so a model keeps the
smallest and largest positive weight of its runs (:func:`weight_range`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["UNWEIGHTED", "refuse_balanced_batches", "weight_range"]

UNWEIGHTED = np.array([1.0, 1.0])
"""The weight range of a run without weights: every row weighs 1."""


def weight_range(weights: NDArray | None, before: NDArray | None = None) -> NDArray:
    """[smallest, largest] positive row weight of a run, merged with an earlier range.

    ``weights`` None is the unweighted run (all ones); ``before`` the range of the calls a
    warm start or ``partial_fit`` continues (None: a fresh run).
    """
    if weights is None:
        now = UNWEIGHTED
    else:
        positive = weights[weights > 0]
        now = np.array([positive.min(), positive.max()])
    if before is None:
        return now.copy()
    return np.array([min(now[0], before[0]), max(now[1], before[1])])


def refuse_balanced_batches(class_weight) -> None:
    """Refuse ``class_weight="balanced"`` in ``partial_fit``, as scikit-learn's SGDClassifier
    does: a batch's class counts are not the stream's, so each batch would weigh its
    classes differently."""
    if isinstance(class_weight, str) and class_weight == "balanced":
        raise ValueError(
            "class_weight='balanced' is not supported by partial_fit: the class counts of "
            "one batch are not those of the stream. Compute the weights from the class "
            "counts of the whole stream and pass them as a dict, class_weight={label: "
            "weight}, or use fit.")
