"""The contract the two kernel perceptrons share: their parameters and fitted attributes.

Each class writes its own summary, notes and examples around the Parameters texts and the
Attributes entries made from its declaration (:func:`halfspaces._utils.contract.fill_doc`),
so a parameter and an attribute are described once for the family.
"""

from __future__ import annotations

from halfspaces._perceptron.docs import VOTE_LOG
from halfspaces._utils.contract import (
    FEATURE_NAMES_IN,
    N_FEATURES_IN,
    PER_PROBLEM_COUNT,
    Array,
    Attribute,
    Bool,
    Choice,
    Classes,
    Fitted,
    Int,
    Precomputed,
    SampleMatrix,
)

__all__ = ["KERNEL_FITTED", "KERNEL_PARAMETERS_DOC", "KERNEL_RULE_DOC", "VOTED_KERNEL_FITTED"]

KERNEL_PARAMETERS_DOC = """
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
"""The Parameters entries of both kernel perceptrons, from ``kernel`` to ``warm_start``."""

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
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplying each row's ``sample_weight``: an update on
        example i adds s_i y_i (k(x_i, .) + c), so a support vector's coefficient is
        s_i y_i times its updates, and an example of weight 0 never updates. "balanced" is
        n / (n_classes * count of the class) (refused by ``partial_fit``); a dict maps a
        class to its weight (1 for classes it does not name). Beyond two classes each
        one-vs-rest problem weighs every row by its own class. Steps are counted per
        example, so the average and the vote are over examples, not weight.
"""
"""The Parameters entries of the perceptron with margin, the burn-in and the class weights,
which follow ``warm_start`` (KernelPerceptron's ``average`` between them)."""


def _per_example(rows: str) -> Choice:
    """A count per example of the last call (of `rows`), per problem beyond two classes."""
    return Choice(Array("int64", (rows,), low=0), Array("int64", ("p", rows), low=0))


KERNEL_FITTED = Fitted("ovr", (
    # a precomputed kernel's training rows are the columns of X (n_train = d), and
    # support_ indexes them at predict
    Attribute("alpha_", Precomputed(_per_example("d"), _per_example("t")),
              "ndarray of shape (n_samples,) or (n_classes, n_samples)", """
        Updates on each example of the data of the last call (per class beyond two
        classes); the last hypothesis's coefficient of a support vector is ±(its updates)."""),
    Attribute("support_", Precomputed(Array("int64", ("s",), low=0, high="d"),
                                      Array("int64", ("m",), low=0, high="t")),
              "ndarray of shape (n_new,)", """
        Indices of the examples of the last call with alpha > 0 (in some problem), which
        that call added to ``support_vectors_`` (all of them, after a fit from scratch)."""),
    Attribute("support_vectors_", Precomputed(Array("float64", (0, 0)), SampleMatrix("s")),
              "ndarray or csr_matrix of shape (n_support, n_features)", """
        The rows of the expansion (float64), earlier calls' first; empty for a precomputed
        kernel (``support_`` then indexes the columns of X)."""),
    Attribute("dual_coef_", Array("float64", ("p", "s")),
              "ndarray of shape (n_problems, n_support)",
              "The coefficient of each support vector in each binary problem's hypothesis."),
    Attribute("intercept_", Array("float64", ("p",)), "ndarray of shape (n_problems,)",
              "b = the sum of the coefficients (zero without ``fit_intercept``)."),
    Attribute("classes_", Classes(), "ndarray of shape (n_classes,)",
              "The labels, sorted; classes_[1] is the positive class of a binary problem."),
    Attribute("n_updates_", PER_PROBLEM_COUNT, "int or ndarray of shape (n_classes,)", """
        Updates (= mistakes), per class beyond two classes, over all calls that continued
        one another."""),
    Attribute("n_steps_", None, "int or ndarray of shape (n_classes,)", """
        Examples predicted over the same calls (the step count T of the averaged and voted
        forms), per class beyond two classes: E passes over n examples make E n steps."""),
    Attribute("n_epochs_", Int(), "int",
              "Passes made by the last call (the most over the binary problems)."),
    Attribute("converged_", Bool(), "bool",
              "Whether the last pass made no update, in every binary problem."),
    Attribute("n_features_in_", N_FEATURES_IN.spec, "int",
              "Number of features seen during fit (n_train for a precomputed kernel)."),
    FEATURE_NAMES_IN,
    # the last hypothesis, the averaging sums and the step counts that a warm start or
    # partial_fit continues from
    Attribute("_last_coef", Array("float64", ("p", "s"))),
    Attribute("_coef_sums", Array("float64", ("p", "s"))),
    Attribute("_n_steps", Array("int64", ("p",), low=0)),
    # the burn_in the averaging sums and vote counts were kept from; absent from files
    # written before it was kept, all averaged from the first step
    Attribute("_burn_in", Int(), optional=True),
))
"""The fitted attributes of both kernel perceptrons (``_BaseKernelPerceptron._set_fitted``)."""

VOTED_KERNEL_FITTED = KERNEL_FITTED.plus(
    Attribute("update_support_", VOTE_LOG["update_support_"], "list of ndarray", """
        Per binary problem, the row of ``support_vectors_`` (the entry of ``support_`` for
        a precomputed kernel) added at each update."""),
    Attribute("update_signs_", VOTE_LOG["update_signs_"], "list of ndarray",
              "Per binary problem, the sign (±1) of each update."),
    Attribute("_update_steps", VOTE_LOG["_update_steps"]),
    Attribute("vote_counts_", VOTE_LOG["vote_counts_"], "list of ndarray",
              "Per binary problem, the survival counts c_0, ..., c_K of f_0 = 0, ..., f_K."))
"""VotedKernelPerceptron's fitted attributes (its ``_set_votes`` adds the log of updates)."""
