"""The contract the four binary perceptrons share: their parameters and fitted attributes.

Each class writes its own summary, notes and examples around the Parameters text and the
Attributes entries made from its declaration (:func:`halfspaces._utils.contract.fill_doc`),
so a parameter and an attribute are described once for the family.
"""

from __future__ import annotations

from halfspaces._perceptron.run import PerceptronState
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
    Float,
    Instance,
    Int,
    Items,
    OrNone,
    SampleMatrix,
)

__all__ = ["EARLY_STOPPING_DOC", "PERCEPTRON_FITTED", "PERCEPTRON_PARAMETERS_DOC",
           "POCKET_FITTED", "VALIDATION_SCORES", "VOTED_FITTED", "VOTE_LOG"]

EARLY_STOPPING_DOC = """
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the rows (a split stratified by class, drawn
        with ``random_state``: scikit-learn's ``train_test_split(..., stratify=y)``), train
        on the rest, and score the hypothesis on them after each pass. The run stops once
        the held-out accuracy has not beaten its best for ``n_iter_no_change`` passes in a
        row, and keeps the weights of the best pass (the first to reach the best accuracy),
        not the last ones as scikit-learn's SGD does: they score at least as well on the
        held-out rows, for one copy of the weights per improvement. ``partial_fit`` trains
        on every row it is given.
    validation_fraction : float, default=0.1
        The share of the rows held out, in (0, 1); each class needs a row in both parts.
    n_iter_no_change : int, default=5
        Passes in a row without a better held-out accuracy that stop the run.
"""
"""The early-stopping Parameters entries of every perceptron (binary and multiclass)."""


PERCEPTRON_PARAMETERS_DOC = """
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
""" + EARLY_STOPPING_DOC + """    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplying each row's ``sample_weight``: a mistake on row
        i adds s_i y_i x_i, as scikit-learn's Perceptron scales its step. "balanced" is
        n / (n_classes * count of the class) (refused by ``partial_fit``); a dict maps a
        class to its weight (1 for classes it does not name). Beyond two classes each
        one-vs-rest problem weighs every row by its own class. Steps are still counted per
        row, so the averaged and voted forms average and vote over rows; the pocket keeps
        the weights of the smallest weighted training error.
"""
"""The Parameters entries of the four binary perceptrons."""

VALIDATION_SCORES = (
    Attribute("validation_scores_", OrNone(Choice(
        Array("float64", ("e",)), Items(list, "p", Array("float64", ("e#",))))),
              "ndarray, list of ndarray or None", """
        With ``early_stopping``, the held-out accuracy after each pass of the last fit (per
        binary problem beyond two classes, each scored on its own ±1 targets, as
        scikit-learn's SGDClassifier scores them); None without.""", optional=True),
    Attribute("best_validation_score_", OrNone(Choice(Float(), Array("float64", ("p",)))),
              "float, ndarray of shape (n_classes,) or None", """
        The best of them, the score of the weights kept; None without early stopping.""",
              optional=True),
)
"""The early-stopping scores every binary perceptron sets (absent from older model files)."""

PERCEPTRON_FITTED = Fitted("ovr", (
    Attribute("coef_", Array("float64", ("p", "d")),
              "ndarray of shape (1, n_features) or (n_classes, n_features)",
              "The weights w of each binary problem (one-vs-rest beyond two classes)."),
    Attribute("intercept_", Array("float64", ("p",)), "ndarray of shape (1,) or (n_classes,)",
              "The intercepts b."),
    Attribute("classes_", Classes(), "ndarray of shape (n_classes,)",
              "The labels, sorted; classes_[1] is the positive class of a binary problem."),
    # the weights, the running sum (averaged) or pocket, and the counters of each binary
    # problem, which a warm start or partial_fit continues
    Attribute("_states", Items(list, "p", Instance(
        PerceptronState, w=Array("float64", ("d+1",)), aux=Array("float64", ("d+1",)),
        counters=Array("int64", (PerceptronState.zeros(0).counters.size,), low=0)))),
    Attribute("n_updates_", PER_PROBLEM_COUNT, "int or ndarray of shape (n_classes,)",
              "Updates (= mistakes) since the weights were last zero; per class beyond two "
              "classes."),
    Attribute("n_steps_", None, "int or ndarray of shape (n_classes,)", """
        Examples predicted since the weights were last zero (over every ``partial_fit`` or
        warm-started call), per class beyond two classes: a run of E passes over n examples
        makes E n steps, of which ``n_updates_`` were mistakes."""),
    Attribute("n_epochs_", Int(), "int", "Passes over the data made by the last call."),
    Attribute("converged_", Bool(), "bool",
              "Whether the last pass made no update (in every binary problem)."),
    *VALIDATION_SCORES,
    # the smallest and largest positive row weight of the runs (1, 1 without weights): the
    # weighted mistake bound reads them; absent from files written before weights
    Attribute("_weight_range", Array("float64", (2,), low=0), optional=True),
    N_FEATURES_IN,
    FEATURE_NAMES_IN,
))
"""The fitted attributes of every binary perceptron (``_BasePerceptron._set_fitted``)."""

VOTE_LOG = {
    # per binary problem: the support row of each of its u updates, the update's sign, its
    # step, and the u + 1 survival counts
    "update_support_": Items(list, "p", Array("int64", ("u#",), low=0, high="s")),
    "update_signs_": Items(list, "p", Array("float64", ("u#",))),
    "_update_steps": Items(list, "p", Array("int64", ("u#",))),
    "vote_counts_": Items(list, "p", Array("int64", ("u#+1",), low=0)),
}
"""The specs of the log of updates that the voted perceptrons keep (:mod:`.vote_log`), primal
and dual, by attribute; s is the number of support vectors."""

POCKET_FITTED = PERCEPTRON_FITTED.plus(
    Attribute("n_errors_", PER_PROBLEM_COUNT, "int or ndarray of shape (n_classes,)", """
        Training errors of the pocket weights (as predict counts them) on the data of the
        last call."""))
"""PocketPerceptron's fitted attributes (its ``_set_fitted`` adds ``n_errors_``)."""

VOTED_FITTED = PERCEPTRON_FITTED.plus(
    Attribute("support_vectors_", SampleMatrix("s", "float64 float32"),
              "ndarray or csr_matrix of shape (n_support, n_features)",
              "The training rows that caused at least one update."),
    Attribute("update_support_", VOTE_LOG["update_support_"], "list of ndarray",
              "Per binary problem, the row of ``support_vectors_`` added at each update."),
    Attribute("update_signs_", VOTE_LOG["update_signs_"], "list of ndarray",
              "Per binary problem, the sign (±1) of each update."),
    Attribute("_update_steps", VOTE_LOG["_update_steps"]),
    Attribute("vote_counts_", VOTE_LOG["vote_counts_"], "list of ndarray",
              "Per binary problem, the survival counts c_0, ..., c_K of w_0 = 0, ..., w_K."),
    # absent from older files, whose log then follows the fit_intercept parameter
    Attribute("_fit_intercept", Bool(), optional=True))
"""VotedPerceptron's fitted attributes (its ``_set_fitted`` adds the log of updates)."""
