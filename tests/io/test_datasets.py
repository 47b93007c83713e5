"""The bundled a9a: shapes, the published class counts of each split, and the bytes themselves."""

from __future__ import annotations

import doctest
import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import halfspaces.datasets._a9a as a9a_module
from halfspaces.datasets import A9A_N_TEST, A9A_N_TRAIN, load_a9a


def _shared_a9a() -> Path | None:
    """``shared/data/a9a`` in the nearest directory above the checkout that has one."""
    for parent in Path(__file__).resolve().parents[1:]:
        if (parent / "shared" / "data" / "a9a").exists():
            return parent / "shared" / "data" / "a9a"
    return None


SHARED_A9A = _shared_a9a()
needs_shared_a9a = pytest.mark.skipif(SHARED_A9A is None,
                                      reason="../shared/data/a9a is not available")
# sha256 of the source file, from its provenance record (SofianeTanji/snacks, blob 7c7d752...)
SOURCE_SHA256 = "bff61dc22565a3746cc157216851cd426c3c809199ffaafef65d5cc56cec4a04"

# the published class counts of UCI adult.data / adult.test (<=50K, >50K): an oracle that
# does not come from this file
PUBLISHED = {
    "train": {-1.0: 24_720, 1.0: 7_841},
    "test": {-1.0: 12_435, 1.0: 3_846},
    "all": {-1.0: 37_155, 1.0: 11_687},
}


@pytest.mark.parametrize("subset", ["all", "train", "test"])
def test_shape_and_published_label_counts(subset):
    X, y = load_a9a(subset)
    counts = PUBLISHED[subset]
    assert X.shape == (sum(counts.values()), 123)
    assert y.shape == (X.shape[0],)
    assert y.dtype == np.float64
    labels, n = np.unique(y, return_counts=True)
    assert dict(zip(labels.tolist(), n.tolist(), strict=True)) == counts


@pytest.mark.parametrize("subset", ["all", "train", "test"])
def test_X_is_binary_csr_float64(subset):
    X, _ = load_a9a(subset)
    assert sp.issparse(X) and X.format == "csr"
    assert X.dtype == np.float64
    assert np.array_equal(np.unique(X.data), [1.0])  # stored entries are the ones
    assert X.has_canonical_format


def test_constants_split_all_in_order():
    X, y = load_a9a("all")
    X_train, y_train = load_a9a("train")
    X_test, y_test = load_a9a("test")
    assert (A9A_N_TRAIN, A9A_N_TEST) == (32_561, 16_281)
    assert (X_train.shape[0], X_test.shape[0]) == (A9A_N_TRAIN, A9A_N_TEST)
    assert (sp.vstack([X_train, X_test]) != X).nnz == 0
    assert np.array_equal(np.concatenate([y_train, y_test]), y)


def test_callers_cannot_corrupt_the_cache():
    for subset in ("all", "train", "test"):
        X, y = load_a9a(subset)
        X.data[:] = 7.0
        y[:] = 0.0
    X, y = load_a9a("all")
    assert np.array_equal(np.unique(X.data), [1.0])
    assert set(np.unique(y).tolist()) == {-1.0, 1.0}


@pytest.mark.parametrize("bad", ["validation", "TRAIN", "", None])
def test_bad_subset_names_parameter_and_choices(bad):
    with pytest.raises(ValueError, match=r"subset=.*'all', 'train', 'test'"):
        load_a9a(bad)


def test_bundle_is_the_source_file():
    # the arrays written back as text have the source's sha256: nothing was lost or changed
    assert hashlib.sha256(a9a_module._a9a_bytes()).hexdigest() == SOURCE_SHA256


def test_bundle_is_stored_in_small_exact_dtypes():
    stored = a9a_module._stored()
    assert {name: str(a.dtype) for name, a in stored.items()} == {
        "data": "uint8", "indices": "uint8", "indptr": "uint32", "y": "int8"}


@needs_shared_a9a
def test_bundle_equals_shared_copy_byte_for_byte():
    assert a9a_module._a9a_bytes() == SHARED_A9A.read_bytes()


@needs_shared_a9a
@pytest.mark.parametrize("subset", ["all", "train", "test"])
def test_arrays_equal_scikit_learns_parse_of_the_text(subset):
    from sklearn.datasets import load_svmlight_file

    assert hashlib.sha256(SHARED_A9A.read_bytes()).hexdigest() == SOURCE_SHA256
    X_text, y_text = load_svmlight_file(str(SHARED_A9A), n_features=123, zero_based=False)
    X_text = X_text.tocsr()
    rows = {"all": slice(None), "train": slice(0, 32_561), "test": slice(32_561, None)}[subset]
    X, y = load_a9a(subset)
    expected = X_text[rows]
    # the CSR arrays themselves, not just the matrices' values: same order, same layout
    for name in ("data", "indices", "indptr"):
        assert np.array_equal(getattr(X, name), getattr(expected, name)), name
    assert X.shape == expected.shape
    assert np.array_equal(y, y_text[rows]) and y.dtype == y_text.dtype


def test_loading_does_not_import_scikit_learn():
    code = ("import sys; from halfspaces.datasets import load_a9a; load_a9a(); "
            "print(sorted(m for m in ('sklearn', 'numba') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]"


def test_docstring_examples_run():
    result = doctest.testmod(a9a_module)
    assert result.attempted > 0 and result.failed == 0
