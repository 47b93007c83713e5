"""The Parameters and Attributes sections that the two kernel perceptrons share.

Each class writes its own summary, notes and examples around these sections, so a parameter
is described once for the family. Strings only: the module imports nothing.
"""

from __future__ import annotations

__all__ = ["KERNEL_ATTRIBUTES_DOC", "KERNEL_PARAMETERS_DOC", "KERNEL_RULE_DOC"]

KERNEL_PARAMETERS_DOC = """
    Parameters
    ----------
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"} or callable, \
default="linear"
        See :func:`kernel_matrix`. "precomputed": X is the Gram matrix (n_train, n_train)
        at fit and the test-by-train matrix at predict. A callable k(A, B) returns the
        kernel matrix of the rows of A and B.
    degree : int, default=3
        Degree of the polynomial kernel.
    gamma : float, default=None
        gamma of poly, rbf and sigmoid; None means 1 / n_features.
    coef0 : float, default=1.0
        The constant c_0 of poly and sigmoid.
    fit_intercept : bool, default=True
        Add the constant feature: learn f(x) + b with b = sum_i alpha_i y_i.
    max_epochs : int, default=1000
        The most passes over the data.
    selection : {"cyclic", "shuffle"}, default="cyclic"
        Visit the examples in the given order each pass, or in a fresh permutation drawn
        from ``random_state`` (the permutations :class:`~halfspaces.Perceptron` draws).
        "cyclic" is the textbook order. On data that are not separable, "shuffle" with
        averaging or voting can predict better: on MNIST (8,000 rows, 10 passes,
        one-vs-rest, averaged) it gave 0.6 point more test accuracy with the cubic kernel
        and 0.65 with RBF (``benchmarks/RESULTS.md``, kernel perceptrons).
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations of ``selection="shuffle"``.
    cache_size : float, default=200
        Megabytes for rows of the Gram matrix (8 n bytes each), at most 2**40. On dense X,
        when the n x n matrix fits, it is computed whole at the first update: one symmetric
        product, cheaper than the rows one by one once a run needs 40% of them (one-vs-rest
        and multi-epoch fits need nearly all). Otherwise a row is computed when an update first
        needs it, and kept: when the matrix fits (sparse X), every row is computed at most
        once; when it does not, the least recently used row makes room for a new one, and
        rows of examples that never cause an update are never computed.
    warm_start : bool, default=False
        Continue from the hypothesis of the previous fit (same classes and features): the
        run starts from its decision values and step count, and the rows that cause
        updates join its support vectors (a row already among them is added again). Not
        with a precomputed kernel, whose support vectors are not kept.
"""

KERNEL_RULE_DOC = """    margin : float, default=0.0
        Update on example i when y_i f(x_i) <= margin (k(x_i, x_i) + c), not only on a
        mistake: the perceptron with margin (Krauth and Mezard 1987), which keeps
        correcting examples that lie too close to the boundary and so moves towards the
        maximum-margin hypothesis. The margin is in units of each example's own squared
        norm in the feature space (with ``fit_intercept=False``, c = 0, multiplying the
        kernel by a constant changes nothing); where a kernel that is not positive
        semi-definite gives k(x_i, x_i) + c < 0, example i updates on mistakes only. On
        data separable with margin gamma in the feature space it still
        converges, after at most (2 margin + 1) (R / gamma)^2 updates (R the largest
        sqrt(k(x, x) + c)): each update adds at most (2 margin + 1) R^2 to ||w||^2 and
        gamma to <w*, w>. A margin runs the dual loop also for the linear kernel.
    burn_in : int, default=0
        Steps (examples visited, over every call) at the start of the run whose
        hypotheses take no part in the average or the vote: only the hypotheses after
        steps burn_in + 1, ..., T count, as scikit-learn's ``SGDClassifier(average=k)``
        starts averaging after k samples. The early hypotheses of a run are its worst, so
        leaving them out helps on noisy data (with ``margin``, it closed the gap to SVC on
        MNIST with the RBF kernel: ``benchmarks/RESULTS.md``, kernel perceptrons). While T <=
        burn_in the last hypothesis predicts. A warm start or ``partial_fit`` of the
        averaged form must keep the burn_in of the run it continues once that run is past
        it (its running sums were kept from that step); the voted form counts its votes
        afresh from the log, so its burn_in may change.
"""

KERNEL_ATTRIBUTES_DOC = """
    Attributes
    ----------
    alpha_ : ndarray of shape (n_samples,) or (n_classes, n_samples)
        Updates on each example of the data of the last call (per class beyond two
        classes); the last hypothesis's coefficient of a support vector is ±(its updates).
    support_ : ndarray of shape (n_new,)
        Indices of the examples of the last call with alpha > 0 (in some problem), which
        that call added to ``support_vectors_`` (all of them, after a fit from scratch).
    support_vectors_ : ndarray or csr_matrix of shape (n_support, n_features)
        The rows of the expansion (float64), earlier calls' first; empty for a precomputed
        kernel (``support_`` then indexes the columns of X).
    dual_coef_ : ndarray of shape (n_problems, n_support)
        The coefficient of each support vector in each binary problem's hypothesis.
    intercept_ : ndarray of shape (n_problems,)
        b = the sum of the coefficients (zero without ``fit_intercept``).
    classes_ : ndarray of shape (n_classes,)
        The labels, sorted; classes_[1] is the positive class of a binary problem.
    n_updates_ : int or ndarray of shape (n_classes,)
        Updates (= mistakes), per class beyond two classes, over all calls that continued
        one another.
    n_steps_ : int or ndarray of shape (n_classes,)
        Examples predicted over the same calls (the step count T of the averaged and voted
        forms), per class beyond two classes: E passes over n examples make E n steps.
    n_epochs_ : int
        Passes made by the last call (the most over the binary problems).
    converged_ : bool
        Whether the last pass made no update, in every binary problem.
    n_features_in_ : int
        Number of features seen during fit (n_train for a precomputed kernel).
"""
