"""halfspaces.dask.separability and max_margin: the serial answers, certificates that verify."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("distributed")

import scipy.sparse as sp  # noqa: E402
from _datasets import (  # noqa: E402
    dask_chunked,
    float_dependent_columns,
    hidden_separator,
    in_format,
    integers_two_apart,
    noisy,
    separable,
)
from _oracles import exact_certificate_holds, exact_least_score  # noqa: E402
from numpy.testing import assert_allclose, assert_array_equal  # noqa: E402

import halfspaces._exact.rational as rational_module  # noqa: E402
from halfspaces import augment, theory  # noqa: E402
from halfspaces import dask as hd  # noqa: E402
from halfspaces.exceptions import NotSeparableError, SolverError  # noqa: E402


def signed(X, y, fit_intercept):
    """Z = y_i x'_i by NumPy, the oracle's own construction."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    y = np.where(np.asarray(y) == np.max(y), 1.0, -1.0)
    return y[:, None] * (augment(X) if fit_intercept else X)


def verify(found, X, y, fit_intercept):
    """The answer checked from scratch: margins >= 1, or a Gordan certificate."""
    Z = signed(X, y, fit_intercept)
    if found.separable:
        w = np.r_[found.intercept, found.coef] if fit_intercept else found.coef
        assert np.min(Z @ w) >= 1.0
    else:
        a = found.certificate
        assert a.shape == (X.shape[0],) and np.all(a >= 0) and abs(a.sum() - 1) < 1e-12
        assert np.all(np.abs(Z.T @ a) <= 1e-9 * np.abs(Z).max(axis=0))


# 3000 rows: the first working set (2000 rows) must grow across the partitions
CASES = {
    "separable": lambda: separable(3000, 6, seed=1, gap=0.02)[:2],
    "noisy": lambda: noisy(3000, 4, seed=2),
    "xor": lambda: (np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]),
                    np.array([1, 1, 0, 0])),
}


@pytest.mark.parametrize("fmt", ["dense64", "dense32", "csr64"])
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_separability_on_partitions_is_the_serial_answer_and_verifies(
        client, fmt, case, fit_intercept):
    X, y = CASES[case]()
    X = in_format(X, fmt)
    n = X.shape[0]
    sizes = [n // 3, 0, 1, n - n // 3 - 1] if n > 4 else [1, 0, 3]
    ours = hd.separability(*dask_chunked(X, y, sizes), fit_intercept=fit_intercept)
    theirs = theory.separability(X, y, fit_intercept)
    assert ours.separable == theirs.separable
    verify(ours, X, y, fit_intercept)
    if ours.separable:
        assert_allclose(ours.coef, theirs.coef, rtol=1e-12)
    else:
        assert_allclose(ours.certificate, theirs.certificate, atol=1e-15)


@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_max_margin_on_partitions_is_the_serial_hyperplane(client, fmt, fit_intercept):
    X, y, _, _ = separable(2500, 5, seed=3, gap=0.05, intercept=fit_intercept)
    X = in_format(X, fmt)
    ours = hd.max_margin(*dask_chunked(X, y, [700, 0, 1, 1799]), fit_intercept=fit_intercept)
    theirs = theory.max_margin(X, y, fit_intercept)
    assert_allclose(ours.coef, theirs.coef, rtol=1e-12)
    assert_allclose([ours.margin, ours.norm_bound, ours.augmented_margin],
                    [theirs.margin, theirs.norm_bound, theirs.augmented_margin], rtol=1e-12)
    assert_array_equal(ours.support, theirs.support)
    Z = signed(X, y, fit_intercept)
    w = np.r_[ours.intercept, ours.coef] if fit_intercept else ours.coef
    assert np.min(Z @ w) >= 1.0


def test_max_margin_of_inseparable_partitions_raises_with_a_certificate(client):
    X, y = noisy(300, 3, seed=4)
    with pytest.raises(NotSeparableError) as err:
        hd.max_margin(*dask_chunked(X, y, [100, 200]))
    a = err.value.certificate
    Z = signed(X, y, True)
    assert np.all(a >= 0) and abs(a.sum() - 1) < 1e-12
    assert np.all(np.abs(Z.T @ a) <= 1e-9 * np.abs(Z).max(axis=0))


def test_labels_map_as_in_the_theory_tools(client):
    X, y, _, _ = separable(200, 3, seed=5)
    words = np.where(y > 0, "yes", "no")
    ours = hd.separability(*dask_chunked(X, words, [50, 150]))
    theirs = theory.separability(X, words)
    assert_allclose(ours.coef, theirs.coef, rtol=1e-12)
    with pytest.raises(ValueError, match="3 classes"):
        hd.separability(*dask_chunked(X, np.arange(200) % 3, [100, 100]))


@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
@pytest.mark.parametrize("case", ["separable", "noisy", "xor"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_best_freund_schapire_bound_on_partitions_is_the_serial_bound(
        client, fmt, case, fit_intercept):
    X, y = CASES[case]()
    X, y = in_format(X[:400], fmt), y[:400]
    n = X.shape[0]
    sizes = [n // 3, 0, 1, n - n // 3 - 1] if n > 4 else [1, 0, 3]
    ours = hd.best_freund_schapire_bound(*dask_chunked(X, y, sizes),
                                         fit_intercept=fit_intercept)
    theirs = theory.best_freund_schapire_bound(X, y, fit_intercept)
    # the same search; its sums are taken over partitions, so the path may differ in the
    # last bits and the optimum it polishes to by the optimiser's tolerance
    assert ours.bound == pytest.approx(theirs.bound, rel=1e-6)
    assert np.linalg.norm(ours.u) == pytest.approx(1.0) and ours.gamma > 0
    # a valid bound at the (u, gamma) it names: ((R + D)/gamma)^2 recomputed serially
    assert ours.bound == pytest.approx(
        theory.freund_schapire_bound(X, y, ours.u, ours.gamma, fit_intercept), rel=1e-12)


def mixed_scales(scale, seed):
    """Noisy rows of size `scale`, one chunk's rows 2^-60 smaller than the others' (so each
    partition scales by its own power of two), and a few exact zero rows."""
    X, y = noisy(90, 3, seed=seed)
    X = X * scale
    X[30:60] *= 2.0**-60
    X[[5, 70]] = 0.0
    return X, y


@pytest.mark.parametrize("scale", [1e-200, 1e-160, 1.0, 1e160, 1e200, 1e300])
@pytest.mark.parametrize("fmt", ["dense64", "csr64"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_radius_on_partitions_is_the_serial_radius(client, scale, fmt, fit_intercept):
    # squares of entries 1e200 overflowed (R = inf) and those of 1e-200 underflowed (R = 0)
    # where R was sqrt(max ||z_i||^2); each partition scales first, as theory.radius does,
    # and a product by a power of two is exact, so R is the serial one bit for bit
    from halfspaces._utils.scaling import max_row_norm

    X, y = mixed_scales(scale, seed=12)
    X = in_format(X, fmt)
    chunks = dask_chunked(X, y, [30, 0, 30, 30])
    assert hd.radius(*chunks, fit_intercept=fit_intercept) == theory.radius(X, fit_intercept)
    rows = hd.signed_partitions(*chunks, fit_intercept=fit_intercept)
    Z = in_format(signed(X, y, fit_intercept), fmt)  # CSR sums a row in its own order
    assert rows.max_row_norm() == max_row_norm(Z) > 0
    assert np.isfinite(rows.max_row_norm())


@pytest.mark.parametrize("scale", [1e-200, 1e200, 1e300])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_best_freund_schapire_bound_of_extreme_entries_is_the_serial_bound(
        client, scale, fit_intercept):
    # R = sqrt(max ||z_i||^2) was inf for entries 1e200 and 0 for 1e-200: the search failed
    # on an empty argmin, or gave the all-zero rows' bound n
    X, y = mixed_scales(scale, seed=13)
    ours = hd.best_freund_schapire_bound(*dask_chunked(X, y, [30, 0, 30, 30]),
                                         fit_intercept=fit_intercept)
    theirs = theory.best_freund_schapire_bound(X, y, fit_intercept)
    assert ours.bound == pytest.approx(theirs.bound, rel=1e-6)
    assert np.linalg.norm(ours.u) == pytest.approx(1.0)


@pytest.mark.filterwarnings("ignore:Perceptron made mistakes")
@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("tool", ["separability", "max_margin", "radius",
                                  "best_freund_schapire_bound"])
def test_values_that_float64_rounds_are_refused_as_the_serial_tools_refuse_them(
        client, fmt, tool):
    # int64 2^53 + 1 and 2^53 are one point in float64: the partitions converted them before
    # any check, and separability "proved" exactly that the two labels cannot be separated
    X = np.array([[0.5, 1.0], [2**53 + 1, 0.5], [2**53, 0.5]], dtype=np.int64)
    X[0] = [3, 1]
    y = np.array([1, 1, -1])
    with pytest.raises(ValueError, match=r"float64 cannot represent exactly"):
        getattr(theory, tool)(X, y)
    blocks = X if fmt == "dense" else sp.csr_matrix(X)
    with pytest.raises(ValueError, match=r"partition 1: X holds 9007199254740993 \(row 0, "
                                         r"column 0\), which float64 cannot represent"):
        getattr(hd, tool)(*dask_chunked(blocks, y, [1, 2]))
    # the estimators convert as scikit-learn's do: a Dask fit of the same blocks runs
    hd.Perceptron(max_epochs=1).fit(*dask_chunked(blocks, y, [1, 2]))


# the hostile cases of the serial tool (tests/theory/test_theory_separability.py), decided
# the same way on partitions: every proof is checked by the oracles, never by our own code
@pytest.mark.parametrize("case", ["redundant", "derived"])
def test_columns_dependent_only_in_floating_point_are_decided_on_partitions(client, case):
    X, y = float_dependent_columns(case)
    n = X.shape[0]
    found = hd.separability(*dask_chunked(X, y, [n // 3, 0, n - n // 3]))
    assert not found.separable and found.exact
    assert exact_certificate_holds(X, y, found.certificate)


def test_a_float_certificate_beyond_the_exact_budget_is_no_proof_on_partitions(
        client, monkeypatch):
    X, y = hidden_separator(50)
    assert exact_least_score(X, y, np.eye(50)[0], 0.0, fit_intercept=False) > 0
    monkeypatch.setattr(rational_module, "MAX_EXACT_WORK", 2_000)  # in-process workers
    with pytest.raises(SolverError, match=r"^separability cannot be decided: .* beyond the "
                       r"budget of the exact proof"):
        hd.separability(*dask_chunked(X, y, [20, 0, 31]), fit_intercept=False)


@pytest.mark.parametrize("s", [1e14, 1e15, 2.0**53])
def test_integers_two_apart_far_from_zero_are_decided_on_partitions(client, s):
    X, y = integers_two_apart(s)
    found = hd.separability(*dask_chunked(X, y, [1, 0, 2]))
    assert found.separable
    assert exact_least_score(X, y, found.coef, found.intercept) >= 1
