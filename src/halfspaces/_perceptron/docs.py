"""The Parameters and Attributes sections that the four binary perceptrons share.

Each class writes its own summary, notes and examples around these sections, so a parameter
is described once for the family. Strings only: the module imports nothing.
"""

from __future__ import annotations

__all__ = ["PERCEPTRON_ATTRIBUTES_DOC", "PERCEPTRON_PARAMETERS_DOC"]

PERCEPTRON_PARAMETERS_DOC = """
    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an affine halfspace sign(<w, x> + b): the homogeneous reduction x' = (1, x),
        with the constant feature handled implicitly (X is never copied).
    max_epochs : int, default=1000
        The most passes over the data. A pass with no update stops the run earlier.
    selection : {"cyclic", "shuffle", "worst"}, default="cyclic"
        Which example to visit next: the given order each pass; a fresh permutation each
        pass drawn from ``random_state``; or, at each step, the most violated example
        argmin_i y_i(<w, x_i> + b) (one epoch is then n updates, each costing a full pass).
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations of ``selection="shuffle"``.
    warm_start : bool, default=False
        Continue from the state of the previous fit (same classes and features) instead
        of starting from w = 0, b = 0. With ``fit_intercept=False`` a warm start or
        ``partial_fit`` continues without the intercept the state may hold (b = 0);
        VotedPerceptron, whose vote cannot mix weight vectors with and without one,
        starts afresh when ``fit_intercept`` changed (and ``partial_fit`` refuses).
"""

PERCEPTRON_ATTRIBUTES_DOC = """
    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The weights w of each binary problem (one-vs-rest beyond two classes).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        The intercepts b.
    classes_ : ndarray of shape (n_classes,)
        The labels, sorted; classes_[1] is the positive class of a binary problem.
    n_updates_ : int or ndarray of shape (n_classes,)
        Updates (= mistakes) since the weights were last zero; per class beyond two classes.
    n_steps_ : int or ndarray of shape (n_classes,)
        Examples predicted since the weights were last zero (over every ``partial_fit`` or
        warm-started call), per class beyond two classes: a run of E passes over n examples
        makes E n steps, of which ``n_updates_`` were mistakes.
    n_epochs_ : int
        Passes over the data made by the last call.
    converged_ : bool
        Whether the last pass made no update (in every binary problem).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names, when X had string column names.
"""
