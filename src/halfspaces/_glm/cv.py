"""Cross-validated choice of alpha (and l1_ratio): the base of the ``...CV`` estimators.

Each fold is one warm-started path (:mod:`halfspaces._glm.path`) over the same grid, scored
on the fold's held-out rows after each fit; the alpha with the best mean score over the
folds wins (the first, i.e. the largest alpha, among equal means, as scikit-learn's
``LogisticRegressionCV`` picks the first of its ascending Cs), then the estimator is
refitted at it on all the rows.

The folds run in threads (a thread pool), not processes: the compiled loops
are declared ``nogil=True`` (:mod:`halfspaces._fast.logistic`, ``svm``, ``csr``,
``columns``) and NumPy's BLAS releases the GIL, so the threads overlap where the time goes,
without copying X into worker processes. BLAS is held to one thread meanwhile: the solvers
enter and leave threadpoolctl's process-wide limits, and threads interleaving those could
leave a limit of one in place for good after the fit; with one outer limit every inner
one is a no-op, and the folds are the parallelism.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import is_classifier
from sklearn.utils.multiclass import check_classification_targets

from halfspaces._glm.base import SHARED_PARAMETERS_DOC
from halfspaces._glm.path import (
    alpha_grid,
    fits_along,
    resolved_l1_ratio,
    takes_sample_weight,
)
from halfspaces._sklearn import BaseEstimator, IntegerInterval, Interval
from halfspaces._utils.blas import one_blas_thread
from halfspaces._utils.contract import Array, Attribute, Fitted, Float
from halfspaces._validation import FIT_INPUT, SparseInputMixin, sample_weights, validate_data

__all__ = ["CV_ATTRIBUTES", "CV_PARAMETERS", "CV_PARAMETERS_DOC", "CV_SHARED_DOC",
           "NOT_CV_PARAMETERS",
           "CrossValidatedPaths", "GLMCV", "coef_with_intercept", "coefs_paths", "refit_attributes"]

CV_SHARED_DOC = SHARED_PARAMETERS_DOC.split("    warm_start :")[0]
"""The shared GLM parameters' entries up to ``warm_start``, which the path sets itself."""

NOT_CV_PARAMETERS = ("alpha", "warm_start", "l1_ratio", "early_stopping",
                     "validation_fraction", "n_iter_no_change")
"""The estimator's parameters a ``...CV`` estimator does not take: the path sets alpha,
l1_ratio (from ``l1_ratios``) and the warm starts; early stopping holds out rows of its own,
which cross-validation already does."""

CV_PARAMETERS: dict = {
    # a count that refuses bools (alphas=True was a grid of one alpha, 1.0)
    "alphas": [IntegerInterval(1, None, closed="left"), "array-like"],
    "l1_ratios": ["array-like", None],
    "eps": [Interval(Real, 0, 1, closed="right"), None],
    "cv": ["cv_object"],
    "scoring": [str, callable, None],
    "n_jobs": [Integral, None],
    "refit": ["boolean"],
}
"""The declared constraints of the cross-validation's own parameters."""

CV_PARAMETERS_DOC = """\
    alphas : int or array-like, default=10
        The number of alphas of a geometric grid from alpha_max down to eps alpha_max
        (:func:`halfspaces.regularization_path`, computed once on all the rows, so every
        fold walks the same alphas), or the alphas themselves (any order; walked from the
        largest down).
    l1_ratios : array-like or None, default=None
        The L1 shares of the penalty to try, each with its own path. None: the L2 penalty
        only (l1_ratio 0). Values > 0 need an estimator with an ``l1_ratio`` parameter.
    eps : float or None, default=None
        alpha_min / alpha_max of a generated grid; None: 1e-4 with an L1 part, 1e-7 for
        the L2 penalty (its alpha_max is 1000 times the L1's: the same alpha_min).
    cv : int, cross-validation generator or iterable, default=5
        scikit-learn's ``cv``: a number of folds (stratified for a classifier, in order
        without shuffling, as scikit-learn's ``check_cv``), a splitter, or (train, test)
        index pairs.
    scoring : str, callable or None, default=None
        scikit-learn's scorer name or callable, scored on each fold's held-out rows
        (unweighted); None: the estimator's ``score`` (accuracy, or R^2 for a regressor).
    n_jobs : int or None, default=None
        Threads running the paths (one per fold and l1_ratio) at once; None: 1, -1: one per
        core. Threads, because the compiled loops release the GIL; BLAS runs on one
        thread meanwhile.
    refit : bool, default=True
        Refit on all the rows at ``alpha_`` (and ``l1_ratio_``). False: ``coef_`` and
        ``intercept_`` are the means over the folds of their fits at ``alpha_`` (the
        same alpha in every fold, where scikit-learn averages each fold's own best).
"""
"""The numpydoc entries of the cross-validation's parameters (marker ``[cv_parameters]``)."""


CV_ATTRIBUTES = (
    Attribute("alpha_", Float(), "float", "The alpha of the best mean score over the folds."),
    Attribute("l1_ratio_", Float(), "float", "The l1_ratio of the best mean score."),
    Attribute("alphas_", Array("float64", ("r", "a")), "ndarray of shape (n_l1_ratios, n_alphas)",
              "The grid of each l1_ratio, decreasing."),
    Attribute("scores_", Array("float64", ("f", "r", "a"), finite=False),
              "ndarray of shape (n_folds, n_l1_ratios, n_alphas)", """
        The score of each fold's fit at each alpha on its held-out rows (one array, where
        scikit-learn's ``LogisticRegressionCV`` keeps a dict by class)."""),
)
"""The attributes every ``...CV`` estimator sets besides the refitted model's."""


def refit_attributes(fitted: Fitted) -> tuple[Attribute, ...]:
    """The refitted model's attributes, as the estimator declares them in `fitted`: coef_,
    intercept_, classes_ (a classifier's), and n_iter_, which ``refit=False`` leaves unset."""
    own = {a.name: a for a in fitted.attributes}
    kept = tuple(own[name] for name in ("coef_", "intercept_", "classes_") if name in own)
    n_iter = own["n_iter_"]
    return kept + (Attribute("n_iter_", n_iter.spec, n_iter.type, """
        Iterations of the refit on all the rows, as the estimator counts them; absent with
        ``refit=False``.""", optional=True),)


def coefs_paths(shape: tuple, type_: str) -> Attribute:
    """The declaration of ``coefs_paths_``, whose entries have `shape` (``coef_``'s with
    one more column)."""
    return Attribute("coefs_paths_", Array("float64", ("f", "r", "a", *shape)), type_, """
        The fits of each fold, l1_ratio and alpha: ``coef_`` with ``intercept_`` as one
        more column (0 without an intercept), as scikit-learn's ``coefs_paths_``.""")


def coef_with_intercept(coef: ArrayLike, intercept: ArrayLike) -> NDArray:
    """coef_ with intercept_ as one more column (scikit-learn's rows of ``coefs_paths_``)."""
    coef = np.asarray(coef, dtype=np.float64)
    column = np.asarray(intercept, dtype=np.float64).reshape(coef.shape[:-1] + (1,))
    return np.concatenate([coef, column], axis=-1)


@dataclass(frozen=True)
class CrossValidatedPaths:
    """The paths of every fold and l1_ratio, and the scores of their fits.

    ``scores`` has shape (n_folds, n_l1_ratios, n_alphas), ``coefs`` that with the shape of
    ``coef_`` plus one (the intercept) after it, ``alphas`` (n_l1_ratios, n_alphas).
    """

    alphas: NDArray
    l1_ratios: NDArray
    scores: NDArray
    coefs: NDArray

    def best(self) -> tuple[int, int]:
        """(l1_ratio index, alpha index) of the best mean score, the first among equals."""
        mean = self.scores.mean(axis=0)
        flat = int(np.argmax(mean))  # C order: l1_ratios in order, then alphas down
        return flat // mean.shape[1], flat % mean.shape[1]


class GLMCV(SparseInputMixin, BaseEstimator):
    """Shared parameters and fit of the ``...CV`` estimators.

    A subclass declares the estimator's own parameters besides :data:`CV_PARAMETERS` and
    builds that estimator in :meth:`_estimator` (its ``alpha``, ``l1_ratio`` and
    ``warm_start`` are set by the path).
    """

    _parameter_constraints: ClassVar[dict] = dict(CV_PARAMETERS)

    def _estimator(self):
        raise NotImplementedError

    def _configured(self):
        """The estimator, with the parameters this one shares with it."""
        est = self._estimator()
        own = self.get_params(deep=False)
        return est.set_params(**{k: own[k] for k in est.get_params() if k in own})

    def _fit_cv(self, X, y, sample_weight):
        """Choose alpha (and l1_ratio) by cross-validation, then refit or average."""
        X, y = validate_data(self, X, y, y_numeric=not is_classifier(self), **FIT_INPUT)
        if is_classifier(self):
            check_classification_targets(y)
        estimator = self._configured()
        weights = sample_weights(sample_weight, X.shape[0])
        if weights is not None and not takes_sample_weight(estimator):
            raise ValueError(f"sample_weight: {type(estimator).__name__}.fit takes no "
                             "sample_weight; pass sample_weight=None.")
        found = cross_validated_paths(estimator, X, y, self, weights)
        i, j = found.best()
        self.alpha_ = float(found.alphas[i, j])
        self.l1_ratio_ = float(found.l1_ratios[i])
        self.alphas_ = found.alphas
        self.scores_ = found.scores
        self.coefs_paths_ = found.coefs
        if self.refit:
            final = estimator.set_params(alpha=self.alpha_)
            if "l1_ratio" in final.get_params():
                final.set_params(l1_ratio=self.l1_ratio_)
            extra = {} if weights is None else {"sample_weight": weights}
            final.fit(X, y, **extra)
            coef, intercept = final.coef_, final.intercept_
            self.n_iter_ = final.n_iter_
        else:
            mean = found.coefs[:, i, j].mean(axis=0)
            coef, intercept = mean[..., :-1], mean[..., -1]
            self.__dict__.pop("n_iter_", None)  # a refit's, from an earlier fit
        self.coef_ = np.array(coef, dtype=np.float64)
        intercept = np.array(intercept, dtype=np.float64)
        self.intercept_ = float(intercept) if intercept.ndim == 0 else intercept
        if is_classifier(self):
            self.classes_ = np.unique(y)
        return self


def _refuse_missing_classes(y, folds: list) -> None:
    """Every training fold must hold every class: a fold's model would have other classes
    (fewer coefficient rows) than the refitted one."""
    classes = np.unique(y)
    for k, (train, _) in enumerate(folds):
        held = np.unique(y[train])
        if held.size != classes.size:
            missing = np.setdiff1d(classes, held).tolist()
            raise ValueError(f"cv: the training rows of fold {k} hold no example of "
                             f"class(es) {missing!r} of y; use fewer folds (cv) or a "
                             "stratified splitter.")


def threads(n_jobs: int | None) -> int:
    """joblib's reading of n_jobs: None is 1, -1 every core, -2 all but one, and so on."""
    if n_jobs is None or n_jobs == 0:
        return 1
    cores = os.cpu_count() or 1
    return max(1, n_jobs if n_jobs > 0 else cores + 1 + n_jobs)


def cross_validated_paths(estimator, X, y, params, weights: NDArray | None
                          ) -> CrossValidatedPaths:
    """One warm-started path per fold and l1_ratio over a common grid, scored per alpha."""
    from sklearn.metrics import check_scoring
    from sklearn.model_selection import check_cv

    ratios = ([resolved_l1_ratio(estimator, None)] if params.l1_ratios is None else
              [resolved_l1_ratio(estimator, r) for r in np.asarray(params.l1_ratios).ravel()])
    grids = np.array([alpha_grid(estimator, X, y, params.alphas, r, params.eps, weights)
                      for r in ratios])
    folds = list(check_cv(params.cv, y, classifier=is_classifier(estimator)).split(X, y))
    if is_classifier(estimator):
        _refuse_missing_classes(y, folds)
    scorer = check_scoring(estimator, scoring=params.scoring)

    def walk(train, test, r, grid):
        part = None if weights is None else weights[train]
        scores, coefs = [], []
        for fitted in fits_along(estimator, X[train], y[train], grid, r, part):
            scores.append(scorer(fitted, X[test], y[test]))
            coefs.append(coef_with_intercept(fitted.coef_, fitted.intercept_))
        return np.array(scores, dtype=np.float64), np.stack(coefs)

    jobs = [(train, test, r, grid) for train, test in folds
            for r, grid in zip(ratios, grids, strict=True)]
    n_threads = min(threads(params.n_jobs), len(jobs))
    if n_threads == 1:
        done = [walk(*job) for job in jobs]
    else:
        with one_blas_thread(), ThreadPoolExecutor(n_threads) as pool:
            done = list(pool.map(lambda job: walk(*job), jobs))
    shape = (len(folds), len(ratios))
    scores = np.stack([s for s, _ in done]).reshape(shape + (grids.shape[1],))
    coefs = np.stack([c for _, c in done])
    return CrossValidatedPaths(grids, np.array(ratios), scores,
                               coefs.reshape(shape + coefs.shape[1:]))
