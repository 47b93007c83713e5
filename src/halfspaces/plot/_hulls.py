"""The geometry of a Gordan certificate: the point that the two classes' convex hulls share.

With x' = (1, x), a certificate a >= 0, sum(a) = 1, sum_i a_i y_i x'_i = 0 says (first
coordinate) that each class carries weight 1/2 and (the rest) that the two weighted means
agree: sum_{y_i=+1} a_i x_i / (1/2) = sum_{y_i=-1} a_i x_i / (1/2), one point in both
convex hulls, which no hyperplane can put on two sides at once.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["hull_polygon", "witness"]


def witness(X: NDArray, labels: NDArray, certificate: NDArray) -> NDArray[np.float64]:
    """The point of both hulls named by the certificate (the positive class's weighted mean)."""
    a = np.asarray(certificate, dtype=np.float64)
    pos = labels > 0
    return (a[pos] @ X[pos]) / a[pos].sum()


def hull_polygon(points: NDArray) -> NDArray[np.float64]:
    """The vertices of the convex hull of 2-D points, in order (a segment or a point when
    the points are collinear or equal)."""
    points = np.unique(np.asarray(points, dtype=np.float64), axis=0)
    if points.shape[0] >= 3:
        from scipy.spatial import ConvexHull, QhullError

        try:
            return points[ConvexHull(points).vertices]
        except QhullError:  # collinear: the hull is the segment between the extremes
            pass
    if points.shape[0] <= 1:
        return points
    direction = points[-1] - points[0]
    t = points @ direction
    return points[[int(np.argmin(t)), int(np.argmax(t))]]
