"""Each estimator's declared fitted attributes are what its fits set, and model files check each.

An estimator declares its fitted attributes once (``_fitted_attributes``,
:mod:`halfspaces._utils.contract`): the model-file schema and the Attributes section of its
docstring are both read from that declaration. So the declaration is checked here against
what does not come from it: the attributes real fits set (every public estimator, binary and
multiclass, with feature names, and every way a fit continues), the attributes the
docstring's Attributes section lists as numpydoc parses it, and what the model-file loader
refuses when a saved attribute is missing, of the wrong type or of the wrong shape.
"""

from __future__ import annotations

import copy
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import is_classifier

import halfspaces
from halfspaces import _registry
from halfspaces._utils.contract import Attribute, Fitted, declared, fill_doc
from halfspaces.exceptions import ModelFileError

ESTIMATORS = sorted(_registry.ESTIMATORS)
FAST = {"ZeroOneERMClassifier": {"time_limit": 2.0}, "LogisticRegression": {"max_iter": 30},
        "LinearRegression": {"max_iter": 30}}

# attributes a fitted model may lack: feature names come only from X with string column
# names, and model files written before _fit_intercept (VotedPerceptron) and _burn_in (the
# kernel perceptrons) were kept do not hold them (the format's history, io.model)
MAY_BE_ABSENT = {"feature_names_in_", "_fit_intercept", "_burn_in", "gap_",
                 # and early stopping's scores, before it existed
                 "validation_scores_", "best_validation_score_"}
# ... and for some classes only: LinearRegression's random and SGD states, kept since its
# partial_fit (which goes on from the weights with t = 0 without them), the weight of
# ZeroOneERMClassifier's errors, kept since it takes weights, and the range of row weights
# of the binary perceptrons, kept since theirs (files without it were unweighted: certify
# then reads the range 1 to 1)
_WEIGHT_RANGE = {"_weight_range"}
ABSENT_IN_OLDER_FILES = {"LinearRegression": {"_rng", "_state"},
                         "ZeroOneERMClassifier": {"weighted_errors_"},
                         **{name: _WEIGHT_RANGE for name in (
                             "Perceptron", "AveragedPerceptron", "VotedPerceptron",
                             "PocketPerceptron")}}


def may_be_absent(cls) -> set[str]:
    return MAY_BE_ABSENT | ABSENT_IN_OLDER_FILES.get(cls.__name__, set())


def clusters(n_classes: int, n: int = 18, seed: int = 0):
    """Clusters at the corners of a triangle, each linearly separable from the rest (so that
    the hard-margin estimators fit), with labels that are strings."""
    rng = np.random.default_rng(seed)
    corners = np.array([[4.0, 0.0, 0.0], [-4.0, 4.0, 0.0], [-4.0, -4.0, 0.0]])
    labels = np.arange(n) % n_classes
    X = corners[labels] + rng.normal(scale=0.4, size=(n, 3))
    return X, np.array(["ant", "bee", "cat"])[labels]


def fits(cls):
    """(how, fitted estimator) for each way `cls` can be fitted: two and three classes (or
    a regression), X with feature names, sparse X, a second warm-started fit, partial_fit
    batches, a precomputed kernel, the stochastic solvers of the GLMs, and the SVM's dual
    solver and joint multiclass problem."""
    def make(**params):
        return cls(**{**FAST.get(cls.__name__, {}), **params})

    X, y = clusters(3)
    names = pd.DataFrame(X, columns=["a", "b", "c"])
    params = make().get_params()
    if not is_classifier(make()):
        t = X @ np.array([1.0, -2.0, 0.5])
        yield "regression", make().fit(X, t)
        yield "feature names", make().fit(names, t)
        yield "sparse", make().fit(sp.csr_matrix(X), t)
        yield "warm start", make(warm_start=True, solver="gd").fit(X, t).fit(X, t)
        yield "sgd", make(solver="sgd", random_state=0).fit(X, t)
        model = make(solver="sgd", random_state=0)
        yield "partial_fit", model.partial_fit(X[:9], t[:9]).partial_fit(X[9:], t[9:])
        yield "early stopping", make(solver="sgd", random_state=0, early_stopping=True,
                                     validation_fraction=0.34).fit(X, t)
        return
    X2, y2 = clusters(2)
    yield "two classes", make().fit(X2, y2)
    yield "three classes", make().fit(X, y)
    yield "feature names", make().fit(names, y)
    yield "sparse", make().fit(sp.csr_matrix(X), y)
    if "warm_start" in params:
        yield "warm start", make(warm_start=True).fit(X, y).fit(X, y)
    if "kernel" in params:
        yield "precomputed", make(kernel="precomputed").fit(X @ X.T, y)
    if "early_stopping" in params:
        stochastic = {"solver": "sgd"} if "solver" in params else {}
        for data in ((X2, y2), (X, y)):
            yield "early stopping", make(early_stopping=True, validation_fraction=0.34,
                                         random_state=0, **stochastic).fit(*data)
    if "multi_class" in params:  # LinearSVM: its other solver, its joint multiclass problem
        yield "dual", make(solver="dual").fit(X, y)
        yield "crammer_singer", make(multi_class="crammer_singer").fit(X, y)
    elif "solver" in params:
        yield "sgd", make(solver="sgd", random_state=0).fit(X, y)
        model = make(solver="sgd", random_state=0)
        yield "partial_fit", model.partial_fit(X[:9], y[:9], classes=np.unique(y)).partial_fit(
            X[9:], y[9:])
    elif hasattr(make(), "partial_fit"):
        model = make().partial_fit(X[:9], y[:9], classes=np.unique(y))
        yield "partial_fit", model.partial_fit(X[9:], y[9:])


def fitted(cls):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # not converged, separable for LogisticRegression
        return list(fits(cls))


def state_of(model) -> dict:
    """What a model file holds of a model: every instance attribute but the parameters."""
    params = model.get_params(deep=False)
    return {k: v for k, v in vars(model).items() if k not in params}


@pytest.fixture(scope="module", params=ESTIMATORS)
def variants(request):
    cls = _registry.estimator_class(request.param)
    return cls, fitted(cls)


def test_every_public_estimator_declares_its_fitted_attributes():
    for name in ESTIMATORS:
        assert isinstance(declared(_registry.estimator_class(name)), Fitted), name


def test_the_declared_attributes_are_those_the_fits_set(variants):
    cls, models = variants
    fitted = declared(cls)
    stored = fitted.schema
    public = {k for k in stored if k.endswith("_") and not k.startswith("_")}
    set_by_some_fit = set()
    for how, model in models:
        state = set(state_of(model))
        # the public attributes a fit sets (scikit-learn's convention: a trailing _) ...
        fitted_public = {k for k in vars(model) if k.endswith("_") and not k.startswith("_")}
        assert fitted_public <= public, (how, sorted(fitted_public - public))
        # ... and every other attribute a model file would hold (the private state)
        assert state <= set(stored), (how, sorted(state - set(stored)))
        assert set(stored) - may_be_absent(cls) <= state, (how, sorted(set(stored) - state))
        set_by_some_fit |= state
    assert set_by_some_fit == set(stored), sorted(set(stored) - set_by_some_fit)
    assert fitted.optional <= may_be_absent(cls)


def test_the_attributes_section_lists_what_a_fitted_estimator_has(variants):
    from numpydoc.docscrape import ClassDoc

    cls, models = variants
    documented = [entry.name for entry in ClassDoc(cls, config={"show_class_members": False})
                  ["Attributes"]]
    assert len(documented) == len(set(documented))
    properties = {k for k in dir(cls) if isinstance(getattr(cls, k, None), property)
                  and k.endswith("_") and not k.startswith("_")}
    has = set(properties)
    for _, model in models:
        has |= {k for k in vars(model) if k.endswith("_") and not k.startswith("_")}
        for name in documented:
            assert name == "feature_names_in_" or hasattr(model, name), name
    assert set(documented) == has


def test_a_model_file_holds_each_attribute_and_checks_it(variants, tmp_path):
    # the saved state of real fits loads; then each attribute in turn is dropped, given a
    # value of another type, or (arrays) one more dimension, and the file is refused with
    # the attribute named: the schema checks every attribute the fits set
    cls, models = variants
    for i, (how, model) in enumerate(models):
        path = halfspaces.save(model, tmp_path / f"{i}.hs")
        loaded = halfspaces.load(path)
        assert set(state_of(loaded)) == set(state_of(model)), how
        for key, value in state_of(model).items():
            for change, broken in _broken(value):
                if change == "dropped" and key in may_be_absent(cls):
                    continue
                other = copy.copy(model)
                if change == "dropped":
                    delattr(other, key)
                else:
                    setattr(other, key, broken)
                path = halfspaces.save(other, tmp_path / "broken.hs")
                with pytest.raises(ModelFileError, match=re.escape(repr(key) if change ==
                                                                   "dropped" else key)):
                    halfspaces.load(path)


def test_a_model_file_refuses_an_attribute_no_fit_sets(tmp_path):
    model = halfspaces.Perceptron().fit(*clusters(2))
    model.margin_ = np.zeros(1)  # not an attribute of the perceptron
    with pytest.raises(ModelFileError, match="'margin_' is not a fitted attribute"):
        halfspaces.load(halfspaces.save(model, tmp_path / "m.hs"))


def _broken(value):
    yield "dropped", None
    yield "a string", "not a fitted value"
    if isinstance(value, np.ndarray):
        yield "one more dimension", value[np.newaxis]
    elif isinstance(value, list) and value and isinstance(value[0], np.ndarray):
        yield "items of one more dimension", [item[np.newaxis] for item in value]


# ---------------------------------------------------------------- the docstring mechanism

_DECLARED = Fitted("ovr", (
    Attribute("coef_", None, "ndarray of shape (1, n_features)", """
        The weights, on
        two lines."""),
    Attribute("_hidden", None),
))


def test_fill_doc_fills_markers_with_the_declaration_and_shared_texts():
    @fill_doc(shared="""
        alpha : float
            The penalty.
    """)
    class Model:
        """Summary.

        Parameters
        ----------
        [shared: alpha]

        Attributes
        ----------
        [fitted_attributes]
        """

        _fitted_attributes = _DECLARED

    assert Model.__doc__.splitlines()[4:] == [
        "        alpha : float",
        "            The penalty.",
        "",
        "        Attributes",
        "        ----------",
        "        coef_ : ndarray of shape (1, n_features)",
        "            The weights, on",
        "            two lines.",
        "        ",
    ]


@pytest.mark.parametrize("doc, texts", [
    ("Summary.\n\n    [missing]\n", {}),
    ("Summary.\n", {"unused": "alpha : float"}),
    ("Summary.\n\n    [fitted_attributes]\n", {}),  # no declaration
])
def test_fill_doc_refuses_a_marker_without_text_or_a_text_without_marker(doc, texts):
    cls = type("Model", (), {"__doc__": doc})
    with pytest.raises(AssertionError, match="Model's docstring"):
        fill_doc(**texts)(cls)
