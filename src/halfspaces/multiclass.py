"""The multiclass perceptron: k discriminant functions and the argmax decision rule.

Each class j has a discriminant delta_j(x) = <w_j, x> + b_j and the prediction is the class
with the largest one. A mistake on (x, y) predicted as p moves w_y towards x and w_p away
from it. Kesler's construction turns this into the binary perceptron on vectors of k(d + 1)
coordinates, which is where its mistake bound comes from.

References
----------
.. [1] R. O. Duda and P. E. Hart. Pattern Classification and Scene Analysis. Wiley, 1973
   (Section 5.12: Kesler's construction).
.. [2] K. Crammer and Y. Singer. Ultraconservative online algorithms for multiclass
   problems. Journal of Machine Learning Research 3, 2003.
.. [3] M. Collins. Discriminative training methods for hidden Markov models: theory and
   experiments with perceptron algorithms. EMNLP 2002.
"""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_random_state

from halfspaces._perceptron.advice import not_converged_advice
from halfspaces._perceptron.docs import EARLY_STOPPING_DOC
from halfspaces._perceptron.early_stopping import CONSTRAINTS, HeldOut, split_rows
from halfspaces._perceptron.run import MulticlassRun, run_multiclass_perceptron
from halfspaces._sklearn import (
    CLASS_WEIGHT,
    BaseEstimator,
    IntegerInterval,
    LinearClassifierMixin,
    StrOptions,
    fit_context,
)
from halfspaces._utils.contract import (
    FEATURE_NAMES_IN,
    N_FEATURES_IN,
    Array,
    Attribute,
    Bool,
    Classes,
    Fitted,
    Float,
    Int,
    OrNone,
    fill_doc,
)
from halfspaces._utils.memory import check_dense_vectors
from halfspaces._validation import (
    LOOP_CHECKS_FINITE,
    SparseInputMixin,
    encode_targets,
    row_weights,
    validate_data,
)
from halfspaces.exceptions import ConvergenceWarning

# MulticlassRun and run_multiclass_perceptron live in the algorithm layer; this module keeps
# them importable under their public names.
__all__ = ["MulticlassPerceptron", "MulticlassRun", "run_multiclass_perceptron"]


@fill_doc(early_stopping=EARLY_STOPPING_DOC)
class MulticlassPerceptron(SparseInputMixin, LinearClassifierMixin, BaseEstimator):
    """The multiclass perceptron: predict argmax_j <w_j, x> + b_j, fix the two rows on a mistake.

    Starts at w_j = 0, b_j = 0 for the k classes. Each example is predicted as the class
    with the largest discriminant (the lowest class index on a tie); on a mistake, p != y,
    w_y += x, b_y += 1, w_p -= x, b_p -= 1. Stops after a pass with no mistake.

    Mistake bound (Kesler's construction). Let x' = (1, x) with ``fit_intercept`` (x' = x
    without), R = max_i ||x'_i||, and suppose some W* = (w*_1, ..., w*_k) with bias slots,
    of Frobenius norm 1, satisfies (w*_{y_i} - w*_j) . x'_i >= gamma > 0 for every example i
    and class j != y_i. Kesler's map phi(x, j), the vector of k blocks with x' in block j,
    turns a mistake into the binary perceptron's update on z = phi(x, y) - phi(x, p), with
    ||z||^2 = 2 ||x'||^2 <= R'^2 = 2 R^2 and <W*, z> >= gamma' = gamma, while the current
    W has <W, z> <= 0 (p is the argmax). Novikoff's theorem then bounds the mistakes over
    any number of passes, in any order, by (R' / gamma')^2 = 2 R^2 / gamma^2.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn the biases b_j (the constant feature of x' = (1, x), handled implicitly).
    max_epochs : int, default=1000
        The most passes over the data.
    selection : {"cyclic", "shuffle"}, default="cyclic"
        The given order each pass, or a fresh permutation drawn from ``random_state``.
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations of ``selection="shuffle"``.
    average : bool, default=False
        Predict with the mean of the weights after every step (kept as a running sum, as
        :class:`~halfspaces.AveragedPerceptron` does): steadier on non-separable data.
    [early_stopping]
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplying each row's ``sample_weight``: a mistake on row
        i moves the two rows by s_i x'_i (w_y += s_i x'_i, w_p -= s_i x'_i), and a row of
        weight 0 never updates. "balanced" is n / (n_classes * count of the class); a dict
        maps a class to its weight (1 for classes it does not name). Steps are still
        counted per row, so ``average`` averages over rows.

    Attributes
    ----------
    [fitted_attributes]

    Notes
    -----
    For two classes ``decision_function`` returns delta_1(x) - delta_0(x), positive for
    classes_[1], as scikit-learn's binary classifiers do; ``coef_`` keeps both rows.

    See Also
    --------
    halfspaces.Perceptron : one-vs-rest binary perceptrons.

    References
    ----------
    Duda and Hart (1973), Kesler's construction; Crammer and Singer (2003); Collins (2002).

    Examples
    --------
    >>> import numpy as np
    >>> from halfspaces import MulticlassPerceptron
    >>> X = np.array([[3.0, 0.0], [0.0, 3.0], [-3.0, -3.0], [2.5, 0.5], [0.5, 2.5]])
    >>> clf = MulticlassPerceptron().fit(X, ["a", "b", "c", "a", "b"])
    >>> clf.predict([[4.0, 0.0], [-1.0, -2.0]]), clf.converged_
    (array(['a', 'c'], dtype='<U1'), True)
    """

    _parameter_constraints: ClassVar[dict] = {
        "fit_intercept": ["boolean"],
        "max_epochs": [IntegerInterval(1, None, closed="left")],
        "selection": [StrOptions({"cyclic", "shuffle"})],
        "random_state": ["random_state"],
        "average": ["boolean"],
        **CONSTRAINTS,
        "class_weight": CLASS_WEIGHT,
    }

    def __init__(self, fit_intercept: bool = True, max_epochs: int = 1000,
                 selection: str = "cyclic",
                 random_state: int | np.random.RandomState | None = None,
                 average: bool = False, early_stopping: bool = False,
                 validation_fraction: float = 0.1, n_iter_no_change: int = 5,
                 class_weight: dict | str | None = None) -> None:
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.selection = selection
        self.random_state = random_state
        self.average = average
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.class_weight = class_weight

    # what fit sets: one row of weights per class, also for two classes
    _fitted_attributes = Fitted("all", (
        Attribute("coef_", Array("float64", ("p", "d")), "ndarray of shape (n_classes, n_features)",
                  "w_j of each class (averaged with ``average=True``), also for two classes."),
        Attribute("intercept_", Array("float64", ("p",)), "ndarray of shape (n_classes,)",
                  "The biases b_j."),
        Attribute("classes_", Classes(), "ndarray of shape (n_classes,)",
                  "The labels, sorted; class j of the rule is classes_[j]."),
        Attribute("n_updates_", Int(), "int", "Mistakes (= updates) in all passes."),
        Attribute("n_epochs_", Int(), "int", "Passes made."),
        Attribute("converged_", Bool(), "bool", "Whether the last pass made no mistake."),
        Attribute("validation_scores_", OrNone(Array("float64", ("e",))), "ndarray or None",
                  "With ``early_stopping``, the held-out accuracy after each pass; else None.",
                  optional=True),
        Attribute("best_validation_score_", OrNone(Float()), "float or None",
                  "The best of them, the score of the weights kept; else None.",
                  optional=True),
        N_FEATURES_IN,
        FEATURE_NAMES_IN,
    ))

    @fit_context
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Run the multiclass perceptron until a pass makes no mistake, or ``max_epochs``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data. float32 and float64 are kept as they are; CSR is used directly.
        y : array-like of shape (n_samples,)
            Labels, two values or more.
        sample_weight : array-like of shape (n_samples,), default=None
            Each row's weight s_i (times its class's weight): a mistake on row i moves the
            two rows by s_i x'_i; a row of weight 0 never updates. None: all weigh 1.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y = validate_data(self, X, y, **LOOP_CHECKS_FINITE)
        classes = encode_targets(y).classes
        weights = row_weights(sample_weight, self.class_weight, classes, y)
        check_dense_vectors(X.shape[1], 2 * classes.size)  # W and its running sum U
        labels = np.searchsorted(classes, y).astype(np.int64)
        held = None
        if self.early_stopping:
            X, labels, weights, X_held, held_labels = split_rows(
                X, labels, self.validation_fraction, self.random_state, weights)
            held = HeldOut(X_held, held_labels, self.n_iter_no_change)
        run = run_multiclass_perceptron(
            X, labels, classes.size, fit_intercept=self.fit_intercept,
            max_epochs=self.max_epochs, selection=self.selection, average=self.average,
            rng=check_random_state(self.random_state), weights=weights,
            watch_for=None if held is None else held.multiclass(self.average),
        )
        self.classes_, self.coef_, self.intercept_ = classes, run.coef, run.intercept
        self.n_updates_, self.n_epochs_, self.converged_ = (
            run.n_updates, run.n_epochs, run.converged)
        scores = run.validation_scores
        self.validation_scores_ = scores
        self.best_validation_score_ = None if scores is None else float(scores.max())
        if not (self.converged_ or run.stopped):
            warnings.warn(not_converged_advice(
                "MulticlassPerceptron", self.max_epochs,
                made_for_it="average=True: the mean of all the weights" if self.average else None,
                alternatives="average=True (the mean of all the weights)"),
                ConvergenceWarning, stacklevel=2)
        return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """The discriminants <w_j, x> + b_j; for two classes delta_1 - delta_0.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        scores : ndarray of shape (n_samples, n_classes), or (n_samples,) for two classes
        """
        scores = super().decision_function(X)
        return scores[:, 1] - scores[:, 0] if self.classes_.size == 2 else scores
