import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from halfspaces.theory import functional_margins, geometric_margins, margin, radius


def naive_functional(X, y, w, b):
    return np.array([yi * (sum(wj * xj for wj, xj in zip(w, xi, strict=True)) + b)
                     for xi, yi in zip(X, y, strict=True)])


def test_functional_margins_match_loop_dense_and_sparse():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((30, 4)), rng.choice([-1, 1], 30)
    w, b = rng.standard_normal(4), 0.7
    expected = naive_functional(X, y, w, b)
    np.testing.assert_allclose(functional_margins(X, y, w, b), expected, rtol=1e-12)
    np.testing.assert_allclose(functional_margins(sp.csr_matrix(X), y, w, b), expected, rtol=1e-12)


def test_labels_any_two_values_map_larger_to_plus_one():
    X, w = np.array([[1.0], [2.0]]), [1.0]
    np.testing.assert_array_equal(functional_margins(X, ["a", "b"], w),
                                  functional_margins(X, [-1, 1], w))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.floats(1e-3, 1e3))
def test_geometric_margins_invariant_to_scaling(seed, c):
    rng = np.random.default_rng(seed)
    X, y = rng.standard_normal((10, 3)), rng.choice([-1, 1], 10)
    w, b = rng.standard_normal(3), rng.standard_normal()
    np.testing.assert_allclose(geometric_margins(X, y, c * w, c * b),
                               geometric_margins(X, y, w, b), rtol=1e-9, atol=1e-12)
    naive = np.min(naive_functional(X, y, w, b)) / np.linalg.norm(w)
    assert margin(X, y, w, b) == pytest.approx(naive)


def test_radius_with_and_without_intercept():
    X = np.array([[3.0, 4.0], [1.0, 0.0]])
    assert radius(X) == 5.0
    assert radius(sp.csr_matrix(X), fit_intercept=True) == pytest.approx(np.sqrt(26.0))


def test_errors_name_the_parameter():
    with pytest.raises(ValueError, match="coef has 3 entries"):
        functional_margins([[1.0, 2.0]], [1], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="coef is all zeros"):
        margin([[1.0]], [1], [0.0])
    with pytest.raises(ValueError, match="one label per row"):
        margin([[1.0]], [1, -1], [1.0])


def test_the_intercept_defaults_to_zero():
    # a homogeneous hyperplane unless told otherwise: every margin function alike
    X, y, w = np.array([[1.0, 2.0], [-3.0, 0.5]]), np.array([1, -1]), np.array([0.5, -1.0])
    plain = naive_functional(X, y, w, 0.0)
    np.testing.assert_allclose(functional_margins(X, y, w), plain, rtol=1e-15)
    np.testing.assert_allclose(geometric_margins(X, y, w), plain / np.linalg.norm(w),
                               rtol=1e-15)
    assert margin(X, y, w) == pytest.approx(plain.min() / np.linalg.norm(w), rel=1e-15)


def test_bad_weights_are_refused_naming_the_fix():
    X, y = np.array([[1.0, 2.0]]), np.array([1])
    with pytest.raises(ValueError, match=r"coef has 3 entries but X has 2 features; pass one "
                                         r"weight per column of X \(the intercept goes in "
                                         r"`intercept`\)\.$"):
        functional_margins(X, y, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"^coef is all zeros, so the hyperplane and its "
                                         r"geometric margins are undefined; pass a nonzero "
                                         r"coef\.$"):
        geometric_margins(X, y, [0.0, 0.0])


def test_theory_input_is_checked_once_and_made_float64_csr_or_c_ordered():
    from halfspaces.theory._checks import check_X, signed_sample

    ints = check_X([[1, 2], [3, 4]])
    assert ints.dtype == np.float64 and ints.flags.c_contiguous
    assert check_X(np.asfortranarray(np.ones((3, 2)))).flags.c_contiguous
    messy = sp.csr_matrix((np.array([1.0, 2.0, 5.0]), np.array([1, 1, 0]),
                           np.array([0, 2, 3])), shape=(2, 2))  # a duplicate, unsorted
    tidy = check_X(messy)
    assert tidy.has_canonical_format
    np.testing.assert_array_equal(tidy.toarray(), [[0.0, 3.0], [5.0, 0.0]])
    wide = sp.csr_matrix(np.eye(3))
    wide.indices, wide.indptr = wide.indices.astype(np.int64), wide.indptr.astype(np.int64)
    assert check_X(wide).nnz == 3  # 64-bit indices are accepted
    broken = sp.csr_matrix(np.eye(3))
    broken.indices[1] = 7  # past the last column: caught before any compiled loop
    with pytest.raises(ValueError, match="points"):
        check_X(broken, name="points")
    X, Z = signed_sample([[1, 2], [3, 4]], [0, 1], fit_intercept=True)
    np.testing.assert_array_equal(Z, [[-1.0, -1.0, -2.0], [1.0, 3.0, 4.0]])


def test_theory_tools_refuse_dask_collections_by_name():
    da = pytest.importorskip("dask.array")
    from halfspaces.theory import radius
    from halfspaces.theory._checks import signed_sample

    X = da.from_array(np.ones((4, 2)), chunks=2)
    with pytest.raises(TypeError, match=r"^X is a dask collection \(Array\); "
                                        r"halfspaces\.theory works on data in memory"):
        radius(X)
    with pytest.raises(TypeError, match=r"^y is a dask collection \(Array\); "
                                        r"halfspaces\.theory works on data in memory"):
        signed_sample(np.ones((4, 2)), da.from_array(np.array([0, 1, 0, 1]), chunks=2), True)


@pytest.mark.parametrize("scale", [1e-300, 1e-160, 1e160, 1e300])
def test_margins_of_weights_beyond_the_squares_range(scale):
    # sqrt(w.w) overflowed or underflowed for |w| beyond 1e154 or below 1e-154: margins of 0
    # or inf, and max_margin's ZeroDivisionError on 1e200 data
    import halfspaces.theory as theory
    from halfspaces.erm import MaxMarginClassifier

    assert theory.geometric_margins([[1.0]], [1], [scale]) == pytest.approx([1.0])
    assert theory.margin([[3.0, 4.0]], [1], [3.0 * scale, 4.0 * scale]) == pytest.approx(5.0)
    X = np.array([[-1.0], [1.0]]) * scale
    for fit_intercept in (False, True):
        found = theory.max_margin(X, [-1, 1], fit_intercept=fit_intercept)
        assert found.margin == pytest.approx(scale, rel=1e-9)
        # x' = (1, x): B = 1 / scale, the constant's share of ||(b, w)|| aside (b = 0 here)
        assert found.norm_bound == pytest.approx(1 / scale, rel=1e-9)
    clf = MaxMarginClassifier(fit_intercept=False).fit(X, [0, 1])
    assert clf.margin_ == pytest.approx(scale, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(-1000, 1000), st.integers(-1000, 1000))
def test_geometric_margins_wherever_the_distances_are_floats(seed, x_exponent, w_exponent):
    # the distance is homogeneous: gamma(2^k X, c w, 2^k c b) = 2^k gamma(X, w, b) for c > 0,
    # so the oracle is the plain formula at scale 1, scaled by 2^k (exact). <w, x_i> itself
    # overflowed for X and w near 1e308 (and for w = 1e300 against x = 1e10): margins inf.
    rng = np.random.default_rng(seed)
    X, y = rng.standard_normal((12, 3)), rng.choice([-1, 1], 12)
    w, b = rng.standard_normal(3), rng.standard_normal()
    x_exponent = min(x_exponent, 1020)  # the distances up to |x| sqrt(3) stay floats
    expected = np.ldexp(naive_functional(X, y, w, b) / np.linalg.norm(w), x_exponent)
    Xs, ws = np.ldexp(X, x_exponent), np.ldexp(w, w_exponent)
    with np.errstate(over="ignore", under="ignore"):
        bs = np.ldexp(b, x_exponent + w_exponent)
    if not np.isfinite(bs) or abs(bs) < np.finfo(float).tiny:
        b = bs = 0.0  # the intercept alone is beyond the (normal) floats: none
        expected = np.ldexp(naive_functional(X, y, w, b) / np.linalg.norm(w), x_exponent)
        expected = np.ldexp(naive_functional(X, y, w, 0.0) / np.linalg.norm(w), x_exponent)
    scale = np.ldexp(np.abs(X).max() * 4, x_exponent)
    found = geometric_margins(Xs, y, ws, bs)
    np.testing.assert_allclose(found, expected, rtol=1e-12, atol=1e-12 * scale)


LONG_DOUBLE = np.finfo(np.longdouble).eps < np.finfo(np.float64).eps
needs_long_double = pytest.mark.skipif(not LONG_DOUBLE,
                                       reason="np.longdouble is float64 on this platform")


@needs_long_double
def test_functional_margins_read_the_weights_as_float64():
    # x__coef__mutmut_3, _5: a long double weight 1 + 2^-60 is 1.0 in float64
    coef = np.array([1], dtype=np.longdouble) + np.longdouble(2) ** -60
    assert coef[0] != 1 and np.float64(coef[0]) == 1.0
    margins = functional_margins([[1.0], [-2.0]], [1, -1], coef)
    assert margins.dtype == np.float64 and margins.tolist() == [1.0, 2.0]


@needs_long_double
def test_geometric_margins_divide_by_the_norm_of_the_float64_weights():
    # x__geometric_margins__mutmut_6, _8: (3, 4) plus 0.49 ulp each rounds to (3, 4) in
    # float64 (norm 5), while its long double norm rounds to 5 + 2^-50
    coef = (np.array([3, 4], dtype=np.longdouble)
            + np.array([0.49 * 2.0**-51, 0.49 * 2.0**-50], dtype=np.longdouble))
    assert coef.astype(np.float64).tolist() == [3.0, 4.0]
    assert float(np.linalg.norm(coef)) != 5.0  # what the weights' own norm would give
    assert geometric_margins([[3.0, 4.0]], [1], coef).tolist() == [5.0]  # 25 / 5
