"""Model files: exact round trips for every exported estimator, and safe refusals.

Estimators are discovered from ``halfspaces.__all__`` (as in test_estimator_checks), so a new
estimator whose fitted state the format cannot hold fails here.
"""

from __future__ import annotations

import inspect
import json
import pickle
import warnings
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from _model_equality import assert_same, assert_same_model
from sklearn.base import BaseEstimator, clone, is_regressor

import halfspaces
from halfspaces.io.model import ModelFileError, load_with_extra

FAST = {"ZeroOneERMClassifier": {"time_limit": 2.0}, "LogisticRegression": {"max_iter": 20},
        "LinearRegression": {"max_iter": 20}}


def estimator_classes():
    classes = (getattr(halfspaces, name) for name in halfspaces.__all__)
    return [c for c in classes if inspect.isclass(c) and issubclass(c, BaseEstimator)]


def make_data(cls, seed=0, n=30, sparse=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) * (rng.random((n, 4)) < 0.8)
    if is_regressor(cls()):
        y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.normal(size=n)
    else:
        y = np.where(X[:, 0] - X[:, 1] + 0.3 * rng.normal(size=n) > 0, "yes", "no")
    return (sp.csr_matrix(X) if sparse else X), y


def fitted(cls, sparse=False):
    X, y = make_data(cls, sparse=sparse)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls(**FAST.get(cls.__name__, {}), **_seed(cls)).fit(X, y)
    return model, X, y


def _seed(cls):
    return {"random_state": 0} if "random_state" in cls().get_params() else {}


def test_discovers_every_estimator():
    names = {cls.__name__ for cls in estimator_classes()}
    assert {"Perceptron", "VotedPerceptron", "KernelPerceptron", "MaxMarginClassifier"} <= names


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("cls", estimator_classes(), ids=lambda c: c.__name__)
def test_round_trip_is_exact(cls, sparse, tmp_path):
    model, X, y = fitted(cls, sparse)
    path = tmp_path / "model-without-extension"
    assert halfspaces.save(model, path) == path and path.exists()
    loaded = halfspaces.load(path)
    assert type(loaded) is cls
    assert_same_model(model, loaded)
    assert_same(model.predict(X), loaded.predict(X))
    for method in ("decision_function", "predict_proba"):
        if hasattr(model, method):
            assert_same(getattr(model, method)(X), getattr(loaded, method)(X))


@pytest.mark.parametrize("cls", estimator_classes(), ids=lambda c: c.__name__)
def test_dataframe_fitted_model_round_trips_with_its_column_names(cls, tmp_path):
    """A model fitted on a DataFrame keeps feature_names_in_ (scikit-learn's object array of
    str) through a file, and so still refuses a frame whose columns are out of order."""
    pd = pytest.importorskip("pandas")
    X, y = make_data(cls)
    frame = pd.DataFrame(X, columns=["alpha", "beta", "gamma", "délta"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls(**FAST.get(cls.__name__, {}), **_seed(cls)).fit(frame, y)
    halfspaces.save(model, tmp_path / "m.hs")
    loaded = halfspaces.load(tmp_path / "m.hs")
    assert_same_model(model, loaded)  # feature_names_in_ included, as dtype=object
    assert_same(model.predict(frame), loaded.predict(frame))
    shuffled = frame[["beta", "alpha", "gamma", "délta"]]
    with pytest.raises(ValueError, match="feature names should match"):
        loaded.predict(shuffled)


def test_column_names_that_are_not_strings_are_named_at_save_time(tmp_path):
    model, X, y = fitted(halfspaces.Perceptron)
    model.feature_names_in_ = np.array(["a", 1, "c", "d"], dtype=object)
    with pytest.raises(ModelFileError, match="feature_names_in_.*not all strings"):
        halfspaces.save(model, tmp_path / "m.hs")
    assert not (tmp_path / "m.hs").exists()


def three_clusters(n=30):
    """Three classes, each linearly separable from the others (so the hard-margin models
    fit too): clusters around the corners of a triangle."""
    rng = np.random.default_rng(0)
    corners = np.array([[4.0, 0.0, 0.0, 0.0], [-4.0, 4.0, 0.0, 0.0], [-4.0, -4.0, 0.0, 0.0]])
    labels = np.arange(n) % 3
    return corners[labels] + rng.normal(scale=0.5, size=(n, 4)), np.array(["a", "b", "c"])[labels]


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("cls", [c for c in estimator_classes() if not is_regressor(c())],
                         ids=lambda c: c.__name__)
def test_three_class_round_trip_is_exact(cls, sparse, tmp_path):
    """Loading checks every attribute's shape against classes_: one-vs-rest and multiclass
    states must pass that check unchanged."""
    X, y = three_clusters()
    X = sp.csr_matrix(X) if sparse else X
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls(**FAST.get(cls.__name__, {}), **_seed(cls)).fit(X, y)
    loaded = halfspaces.load(halfspaces.save(model, tmp_path / "m"))
    assert_same_model(model, loaded)
    assert_same(model.predict(X), loaded.predict(X))


def object_labels(n_classes: int):
    """Clusters labelled with Python str objects (dtype=object), as a pandas Series of
    strings gives them: fit then keeps classes_ as an object array."""
    X, y = three_clusters()
    keep = np.isin(y, ["a", "b", "c"][:n_classes])
    return X[keep], np.array(y[keep].tolist(), dtype=object)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("cls", [c for c in estimator_classes() if not is_regressor(c())],
                         ids=lambda c: c.__name__)
def test_labels_held_as_str_objects_round_trip(cls, n_classes, tmp_path):
    """The oracle is the model before saving: the same classes, predictions and state (the
    classes come back as a Unicode array, which compares equal item by item)."""
    X, y = object_labels(n_classes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls(**FAST.get(cls.__name__, {}), **_seed(cls)).fit(X, y)
    assert model.classes_.dtype == object  # what this test is about
    loaded = halfspaces.load(halfspaces.save(model, tmp_path / "m"))
    assert loaded.classes_.dtype.kind == "U"
    assert loaded.classes_.tolist() == model.classes_.tolist()
    assert loaded.predict(X).tolist() == model.predict(X).tolist()
    loaded.classes_ = loaded.classes_.astype(object)
    assert_same_model(model, loaded)


def test_object_arrays_other_than_strings_are_named_at_save_time(tmp_path):
    model = fitted(halfspaces.Perceptron)[0]
    model.classes_ = np.array(["no", 1], dtype=object)
    with pytest.raises(ModelFileError, match="Perceptron attribute 'classes_'.*not all "
                                             "strings"):
        halfspaces.save(model, tmp_path / "m")
    model.classes_ = np.array(["no", "no\x00"], dtype=object)  # a Unicode array drops the NUL
    with pytest.raises(ModelFileError, match="'classes_': a string ending in a NUL"):
        halfspaces.save(model, tmp_path / "m")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("model", [
    halfspaces.KernelPerceptron(kernel="precomputed"),
    halfspaces.LogisticRegression(solver="sgd", random_state=0),
    halfspaces.LogisticRegression(solver="minibatch", random_state=0),
], ids=["precomputed", "sgd", "minibatch"])
def test_stateful_variants_round_trip(model, tmp_path):
    X, y = three_clusters()
    if model.get_params().get("kernel") == "precomputed":
        model.fit(X @ X.T, y)
        X = X @ X.T
    else:
        model.partial_fit(X, y, classes=np.unique(y))
    loaded = halfspaces.load(halfspaces.save(model, tmp_path / "m"))
    assert_same_model(model, loaded)
    if hasattr(model, "partial_fit"):  # the loaded stochastic state continues exactly
        assert_same_model(model.partial_fit(X, y), loaded.partial_fit(X, y))


@pytest.mark.parametrize("solver", ["sgd", "minibatch"])
def test_a_streamed_regression_continues_exactly_after_load(solver, tmp_path):
    # the SGD state (iterate, running mean, step count) and the random state are declared
    # fitted attributes: without them the loaded model restarted the schedule at t = 0
    X, y = make_data(halfspaces.LinearRegression, seed=2)
    model = halfspaces.LinearRegression(solver=solver, batch_size=7, learning_rate="invscaling",
                                        random_state=0)
    model.partial_fit(X[:12], y[:12]).partial_fit(X[12:], y[12:])
    loaded = halfspaces.load(halfspaces.save(model, tmp_path / "m"))
    assert_same_model(model, loaded)
    for _ in range(2):
        model.partial_fit(X, y)
        loaded.partial_fit(X, y)
    assert_same_model(model, loaded)  # bit for bit, the state included


EARLY_STOPPED = [
    *(getattr(halfspaces, name)(early_stopping=True, validation_fraction=0.25, random_state=0,
                                max_epochs=30)
      for name in ("Perceptron", "AveragedPerceptron", "PocketPerceptron", "VotedPerceptron",
                   "MulticlassPerceptron")),
    halfspaces.LogisticRegression(solver="sgd", early_stopping=True, validation_fraction=0.25,
                                  n_iter_no_change=2, random_state=0),
    halfspaces.LogisticRegression(solver="minibatch", batch_size=8, early_stopping=True,
                                  validation_fraction=0.25, random_state=0),
    halfspaces.LinearRegression(solver="sgd", early_stopping=True, validation_fraction=0.25,
                                random_state=0),
]


@pytest.mark.parametrize("model", EARLY_STOPPED, ids=lambda m: type(m).__name__)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_early_stopped_models_round_trip(model, n_classes, tmp_path):
    # the parameters, the held-out scores (an array, a list of arrays per one-vs-rest
    # problem) and the state of the best epoch, which training then continues
    if n_classes == 3 and is_regressor(model):
        pytest.skip("a regression has no classes")
    model = clone(model)
    X, y = three_clusters(40) if n_classes == 3 else make_data(type(model), n=40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
        assert model.validation_scores_ is not None
        loaded = halfspaces.load(halfspaces.save(model, tmp_path / "m"))
        assert_same_model(model, loaded)
        assert loaded.get_params() == model.get_params()
        for est in (model, loaded):
            if hasattr(est, "partial_fit"):
                est.partial_fit(X, y)
            else:  # MulticlassPerceptron: fit again, the same split from the same seed
                est.fit(X, y)
    assert_same_model(model, loaded)


def test_loaded_arrays_are_writable(tmp_path):
    model = fitted(halfspaces.Perceptron)[0]
    loaded = halfspaces.load(halfspaces.save(model, tmp_path / "m"))
    assert loaded.coef_.flags.writeable and loaded._states[0].w.flags.writeable


@pytest.mark.parametrize("cls", estimator_classes(), ids=lambda c: c.__name__)
def test_training_continues_exactly_after_load(cls, tmp_path):
    model, X, y = fitted(cls)
    halfspaces.save(model, tmp_path / "m")
    loaded = halfspaces.load(tmp_path / "m")
    X2, y2 = make_data(cls, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if hasattr(model, "partial_fit"):
            model.partial_fit(X2, y2)
            loaded.partial_fit(X2, y2)
        elif "warm_start" in model.get_params():
            model.set_params(warm_start=True).fit(X2, y2)
            loaded.set_params(warm_start=True).fit(X2, y2)
        else:
            pytest.skip(f"{cls.__name__} has neither partial_fit nor warm_start")
    assert_same_model(model, loaded)


@pytest.mark.parametrize("cls", [halfspaces.LogisticRegression, halfspaces.LinearSVM])
@pytest.mark.parametrize("labels, class_weight", [
    (np.array([0, 1, 2]), {0: 2.0, np.int64(2): 0.5}),
    (np.array([-1.0, 1.0, 4.0]), {1.0: 3}),
    (np.array(["no", "yes", "maybe"]), {"yes": 2.0}),
    (np.array([0, 1, 2]), "balanced"),
])
def test_class_weights_round_trip(cls, labels, class_weight, tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = labels[np.arange(30) % 3]
    model = cls(class_weight=class_weight, random_state=0).fit(X, y)
    path = tmp_path / "m.hs"
    halfspaces.save(model, path)
    loaded = halfspaces.load(path)
    assert loaded.class_weight == class_weight
    if isinstance(class_weight, dict):  # the keys keep their types, as labels
        assert list(map(type, loaded.class_weight)) == list(map(type, class_weight))
    assert_same_model(model, loaded)
    # the weights it keeps are those it fits with
    assert np.array_equal(loaded.fit(X, y).predict(X), model.predict(X))


def test_unfitted_model_round_trips(tmp_path):
    model = halfspaces.AveragedPerceptron(max_epochs=7, selection="shuffle")
    halfspaces.save(model, tmp_path / "m.npz")
    assert halfspaces.load(tmp_path / "m.npz").get_params() == model.get_params()


def test_extra_is_kept(tmp_path):
    model, _, _ = fitted(halfspaces.Perceptron)
    halfspaces.save(model, tmp_path / "m", extra={"seen": 12, "path": "x.svm", "w": [1.5]})
    assert load_with_extra(tmp_path / "m")[1] == {"seen": 12, "path": "x.svm", "w": [1.5]}


def test_unsupported_attribute_is_named_at_save_time(tmp_path):
    model, _, _ = fitted(halfspaces.Perceptron)
    model.callback_ = lambda: None
    with pytest.raises(ModelFileError, match=r"Perceptron attribute 'callback_'"):
        halfspaces.save(model, tmp_path / "m")
    assert not list(tmp_path.iterdir())  # nothing half-written


def test_foreign_estimator_is_refused(tmp_path):
    from sklearn.linear_model import Perceptron

    with pytest.raises(ModelFileError, match="only the estimators of halfspaces"):
        halfspaces.save(Perceptron(), tmp_path / "m")


def test_pickle_is_refused_without_unpickling(tmp_path):
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(halfspaces.Perceptron()))
    with pytest.raises(ModelFileError, match="is a pickle"):
        halfspaces.load(path)


def test_truncated_and_garbage_files(tmp_path):
    model, _, _ = fitted(halfspaces.VotedPerceptron)
    whole = halfspaces.save(model, tmp_path / "m").read_bytes()
    for cut in (10, len(whole) // 2, len(whole) - 5):
        (tmp_path / "t").write_bytes(whole[:cut])
        with pytest.raises(ModelFileError, match="corrupt|not a halfspaces"):
            halfspaces.load(tmp_path / "t")
    (tmp_path / "g").write_text("hello")
    with pytest.raises(ModelFileError, match="not a halfspaces model file"):
        halfspaces.load(tmp_path / "g")


def rewrite_document(path, change):
    with np.load(path, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    document = json.loads(arrays["__halfspaces__"].tobytes())
    change(document)
    arrays["__halfspaces__"] = np.frombuffer(json.dumps(document).encode(), np.uint8)
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)


def test_newer_format_version_is_refused(tmp_path):
    path = halfspaces.save(fitted(halfspaces.Perceptron)[0], tmp_path / "m")
    rewrite_document(path, lambda d: d.update(version=99))
    with pytest.raises(ModelFileError, match="version 99.*upgrade"):
        halfspaces.load(path)


def test_class_outside_the_whitelist_is_refused(tmp_path):
    path = halfspaces.save(fitted(halfspaces.Perceptron)[0], tmp_path / "m")
    rewrite_document(path, lambda d: d.update({"class": "os.system"}))
    with pytest.raises(ModelFileError, match="unknown estimator class"):
        halfspaces.load(path)


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_object_arrays_in_the_file_are_never_unpickled(tmp_path):
    path = halfspaces.save(fitted(halfspaces.Perceptron)[0], tmp_path / "m")
    with zipfile.ZipFile(path, "a") as archive, archive.open("a0.npy", "w") as handle:
        np.lib.format.write_array(handle, np.array([object()], dtype=object),
                                  allow_pickle=True)
    with pytest.raises(ModelFileError, match="a0.npy holds Python objects, which are never "
                                             "unpickled"):
        halfspaces.load(path)


def test_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = halfspaces.save(fitted(halfspaces.Perceptron)[0], tmp_path / "m")
    before = path.read_bytes()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", broken)
    with pytest.raises(OSError, match="disk full"):
        halfspaces.save(fitted(halfspaces.Perceptron)[0], path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m"]
