"""Distinct labels in one pass, for numeric labels with few classes.

np.unique sorts all n labels and writes an index array; a classifier's labels take few
values, so one pass comparing each label with the values seen so far, writing nothing, is
many times faster. This matters when a perceptron epoch costs about one read of X.
"""

from __future__ import annotations

import numpy as np
from numba import njit

TOO_MANY = -1


@njit(cache=True)
def two_or_fewer(y):
    """(a, b, True) when every label is a or b, else (a, b, False); y must not be empty.

    a is y[0] and b the first label unlike it (b = a when there is none). The counting pass
    has no branches, so the compiler vectorises it: the common binary case is settled at
    memory speed, without the comparison loop of :func:`distinct_few`, whose branches
    mispredict on shuffled labels.
    """
    a = y[0]
    b = a
    for i in range(y.shape[0]):
        if y[i] != a:
            b = y[i]
            break
    others = 0
    for i in range(y.shape[0]):
        others += (y[i] != a) & (y[i] != b)
    return a, b, others == 0


@njit(cache=True)
def distinct_few(y, max_classes):
    """(values in order of appearance, count), or (empty, TOO_MANY) past ``max_classes``."""
    values = np.empty(max_classes, dtype=y.dtype)
    k = 0
    last = 0
    for i in range(y.shape[0]):
        v = y[i]
        if k > 0 and values[last] == v:
            continue
        found = -1
        for j in range(k):
            if values[j] == v:
                found = j
                break
        if found < 0:
            if k == max_classes:
                return values[:0], TOO_MANY
            values[k] = v
            found = k
            k += 1
        last = found
    return values[:k], k
