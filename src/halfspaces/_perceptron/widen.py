"""Zero columns around a fitted model's arrays, for a stream that meets new features.

A stream read once (:func:`halfspaces.io.fit_stream`) may hold a larger feature index than
any batch before it; a model with a ``widen`` method then takes the new features with zero
weights and goes on. :func:`widened` makes the wider copy of one of its arrays, dense or
sparse: weight vectors that end with their intercept, rows of coefficients, or stored
training rows. :class:`Widening` is the ``widen`` method of the binary perceptrons.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from halfspaces._utils.memory import check_dense_vectors

__all__ = ["Widening", "widened"]


def widened(a, n_features: int, offset: int, intercept: bool = False):
    """`a` (a vector ending with its intercept, or rows of coefficients) with zero columns
    around the old ones, which start at `offset`."""
    import scipy.sparse as sp

    d = a.shape[-1] - intercept
    if sp.issparse(a):
        a = a.tocsr()
        return type(a)((a.data, a.indices + offset, a.indptr),
                       shape=(a.shape[0], n_features))
    out = np.zeros((*a.shape[:-1], n_features + intercept), dtype=a.dtype)
    out[..., offset:offset + d] = a[..., :d]
    if intercept:
        out[..., -1] = a[..., -1]
    return out


class Widening:
    """The ``widen`` method of the binary perceptrons, whose state is ``_states`` (weights
    and sums, each ending with the intercept), ``coef_`` and, where a variant keeps them,
    training rows (:meth:`_widened_rows`)."""

    _states: list
    coef_: np.ndarray
    n_features_in_: int

    def widen(self, n_features: int, *, offset: int = 0):
        """Give the fitted model `n_features` features, the new ones with zero weights.

        Feature j becomes feature ``j + offset``; the columns before `offset` and after the
        old ones are new. For a stream whose feature indices are not all known in advance
        (:func:`halfspaces.io.fit_stream` reads a file once this way): widen the model when
        a batch holds a larger index, then go on with ``partial_fit``.

        The perceptron update w <- w + y x changes only the weights of the row's non-zero
        features (Rosenblatt 1958), so a feature that no example has used yet has zero
        weight, zero running sum (averaged) and zero pocket weight in any run. Training on
        after ``widen`` therefore gives the same model, bit for bit, as training at the
        full width from the start on the same rows in the same order.

        Parameters
        ----------
        n_features : int
            The new ``n_features_in_``; at least ``n_features_in_ + offset``.
        offset : int, default=0
            New features placed before the old ones.

        Returns
        -------
        self : object
            The widened estimator.

        Raises
        ------
        ValueError
            If `offset` is negative, `n_features` leaves no room for the old features, or
            the model was fitted with feature names (the new columns would have none).

        Examples
        --------
        >>> import numpy as np
        >>> from halfspaces import Perceptron
        >>> clf = Perceptron().partial_fit([[1.0], [-1.0]], [1, 0])
        >>> clf.widen(3, offset=1).coef_
        array([[0., 2., 0.]])
        >>> clf.partial_fit([[0.0, 1.0, 2.0]], [0]).n_features_in_
        3
        """
        check_is_fitted(self)
        old = self.n_features_in_
        if offset < 0 or n_features < old + offset:
            raise ValueError(
                f"widen(n_features={n_features}, offset={offset}): the {old} features of "
                f"this model need n_features >= {old} + offset and offset >= 0.")
        if hasattr(self, "feature_names_in_"):
            raise ValueError(
                "widen: this model was fitted with feature names, and the new columns would "
                "have none; fit on arrays without column names to widen it.")
        check_dense_vectors(n_features, 2 * len(self._states), "the widened model")
        # every wider array is made before any is set: a MemoryError part of the way left
        # some states wider than the others and than n_features_in_, a model that could
        # neither predict nor continue
        states = [(widened(state.w, n_features, offset, intercept=True),
                   widened(state.aux, n_features, offset, intercept=True))
                  for state in self._states]
        wider = {"coef_": widened(self.coef_, n_features, offset),
                 **self._widened_rows(n_features, offset)}
        for state, (w, aux) in zip(self._states, states, strict=True):
            state.w, state.aux = w, aux
        vars(self).update(wider, n_features_in_=n_features)
        return self

    def _widened_rows(self, n_features: int, offset: int) -> dict:
        """The stored training rows, widened, by attribute, where a variant keeps some."""
        return {}

