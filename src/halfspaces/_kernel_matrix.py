"""The kernel matrices: k(a_i, b_j) of a named Mercer kernel, or of a callable k(A, B).

:func:`kernel_matrix` is the checked public entry (re-exported by :mod:`halfspaces.kernel`);
:func:`kernel_block` and :func:`named_kernel` compute the matrix of inputs already checked,
block after block, for the estimators' scores and for the Gram rows of the dual run
(:mod:`halfspaces._dual_run`), which also needs :func:`squared_norms` (the rows' ||a_i||^2,
computed once for the RBF kernel) and :func:`callable_matrix` (a callable kernel's matrix,
its shape checked).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_array

from halfspaces._sklearn import FloatInterval, StrOptions, validate_params

__all__ = ["KERNELS", "as_float64", "callable_matrix", "check_kernel_scale", "kernel_block",
           "kernel_matrix", "log2_largest_square_norm", "named_kernel", "squared_norms"]

KERNELS = ("linear", "poly", "rbf", "sigmoid")


@validate_params({
    "A": ["array-like", "sparse matrix"],
    "B": ["array-like", "sparse matrix"],
    "kernel": [StrOptions(set(KERNELS)), callable],
    "degree": [FloatInterval(0, None, closed="left")],
    "gamma": [FloatInterval(0, None, closed="neither"), None],
    "coef0": [FloatInterval(None, None, closed="neither")],
}, prefer_skip_nested_validation=True)
def kernel_matrix(A: ArrayLike, B: ArrayLike, kernel: str | Callable = "linear",
                  degree: float = 3, gamma: float | None = None,
                  coef0: float = 1.0) -> NDArray[np.float64]:
    r"""The matrix k(a_i, b_j) of a named kernel, or of a callable k(A, B).

    .. math::

        \text{linear: } \langle a, b\rangle \quad
        \text{poly: } (\gamma\langle a, b\rangle + c_0)^{p} \quad
        \text{rbf: } e^{-\gamma\|a - b\|^2} \quad
        \text{sigmoid: } \tanh(\gamma\langle a, b\rangle + c_0)

    Parameters
    ----------
    A : {array-like, sparse matrix} of shape (n_a, n_features)
    B : {array-like, sparse matrix} of shape (n_b, n_features)
        Finite real numbers (a named kernel); a callable gets A and B as given.
    kernel : {"linear", "poly", "rbf", "sigmoid"} or callable, default="linear"
        A callable gets (A, B) and returns the (n_a, n_b) matrix.
    degree : float, default=3
        p >= 0 of the polynomial kernel.
    gamma : float, default=None
        gamma > 0 of poly, rbf and sigmoid; None means 1 / n_features (which needs a
        feature: with none, pass gamma).
    coef0 : float, default=1.0
        c_0 of poly and sigmoid.

    Returns
    -------
    K : ndarray of shape (n_a, n_b), float64

    Raises
    ------
    ValueError
        For an unknown kernel name or a parameter out of range (naming it), and for A or B
        that are not two-dimensional, hold complex, non-numeric or non-finite values, or
        differ in their number of features.

    Examples
    --------
    >>> from halfspaces.kernel import kernel_matrix
    >>> kernel_matrix([[1.0, 2.0]], [[3.0, 4.0], [0.0, 0.0]], "poly", degree=2, gamma=1.0)
    array([[144.,   1.]])
    """
    if callable(kernel):
        return kernel_block(A, B, kernel, degree, gamma, coef0)
    # check_array refuses what NumPy let through: 1-D and 3-D arrays (an IndexError; a 3-D
    # "matrix"), complex values (their imaginary parts silently dropped), NaN and inf
    A, B = (check_array(M, accept_sparse="csr", dtype=np.float64, ensure_min_samples=0,
                        ensure_min_features=0, input_name=name) for M, name in ((A, "A"), (B, "B")))
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"A has {A.shape[1]} features and B has {B.shape[1]}: a kernel "
                         "compares rows of the same number of features.")
    if A.shape[1] == 0 and gamma is None and kernel != "linear":
        raise ValueError(f"gamma=None means 1 / n_features, which A and B of 0 features do "
                         f"not define: pass gamma to the {kernel!r} kernel.")
    return kernel_block(A, B, kernel, degree, gamma, coef0)


def kernel_block(A, B, kernel: str | Callable, degree: float, gamma: float | None,
                 coef0: float) -> NDArray[np.float64]:
    """:func:`kernel_matrix` of inputs already checked (the estimators' validated rows and
    support vectors, block after block: the checks would repeat a pass over each)."""
    if not sp.issparse(A):
        A = np.asarray(A)
    if not sp.issparse(B):
        B = np.asarray(B)
    if callable(kernel):
        return callable_matrix(kernel, A, B)
    B = as_float64(B)
    sq_norms = squared_norms(B) if kernel == "rbf" else None
    return named_kernel(as_float64(A), B, kernel, degree, gamma, coef0, sq_norms)


def callable_matrix(kernel: Callable, A, B) -> NDArray[np.float64]:
    K = np.asarray(kernel(A, B), dtype=np.float64)
    expected = (A.shape[0], B.shape[0])
    if K.shape != expected:
        raise ValueError(
            f"The callable kernel returned a matrix of shape {K.shape} for inputs of "
            f"{A.shape[0]} and {B.shape[0]} rows; kernel(A, B) must return shape {expected}."
        )
    return K


def named_kernel(A, B, kernel: str, degree: int, gamma: float | None, coef0: float,
                 sq_norms_B: NDArray | None = None) -> NDArray[np.float64]:
    """:func:`kernel_matrix` of float64 A and B, given ||b_j||^2 for "rbf" (computed once)."""
    K = _dots(A, B)
    if kernel == "linear":  # no gamma, so defined for 0 features too
        return K
    gamma = 1.0 / A.shape[1] if gamma is None else gamma
    if kernel == "rbf":
        K *= -2.0
        K += squared_norms(A)[:, None]
        K += sq_norms_B[None, :]
        np.maximum(K, 0.0, out=K)  # rounding can make a squared distance negative
        K *= -gamma
        return np.exp(K, out=K)
    K *= gamma
    K += coef0
    return K**degree if kernel == "poly" else np.tanh(K, out=K)


def _dots(A, B) -> NDArray[np.float64]:
    """The matrix of <a_i, b_j>, dense and C-ordered.

    A sparse operand of at most 2^22 entries is made dense for BLAS; a larger one, or a
    sparse B against a few rows A (one Gram row), stays sparse.
    """
    few = A.shape[0] <= 64
    A, B = _dense_if_small(A), B if few else _dense_if_small(B)
    if sp.issparse(B) and not sp.issparse(A):
        return np.ascontiguousarray(np.asarray(B @ A.T).T)
    product = A @ B.T
    product = product.toarray() if sp.issparse(product) else np.asarray(product)
    return np.ascontiguousarray(product, dtype=np.float64)


def _dense_if_small(A):
    return A.toarray() if sp.issparse(A) and A.shape[0] * A.shape[1] <= 2**22 else A


def squared_norms(A) -> NDArray[np.float64]:
    """||a_i||^2 of every row, accumulated in float64 (also for float32 A)."""
    if sp.issparse(A):
        A = A.astype(np.float64, copy=False)
        return np.asarray(A.multiply(A).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", A, A, dtype=np.float64)


def as_float64(A):
    """A as float64 (CSR stays CSR), without a copy when it already is."""
    if sp.issparse(A):
        return A.astype(np.float64, copy=False)
    return np.asarray(A, dtype=np.float64)


# the kernel's argument (gamma <a, b> + coef0, or gamma ||a - b||^2) counts when it is above
# 2^-60 of what it is added to; inner products below 2^-1000 carry the underflow of their
# subnormal terms (d 2^-1075) beyond 2^-53 of their size or so
_NEGLIGIBLE, _FULL_PRECISION = -60.0, -1000.0


def log2_largest_square_norm(X, sq: NDArray | None = None) -> float:
    """log2 of max_i ||x_i||^2 (-inf for X = 0), on X scaled by a power of two: squares of
    entries of 1e200 or 1e-200 neither overflow nor underflow.

    ``sq``, the rows' squared norms when the caller has them (a Gram matrix's cache does),
    answers without the two copies of X the scaling takes, wherever its largest entry is
    finite and far from the subnormals.
    """
    if sq is not None and sq.size:
        top_square = float(sq.max())
        if 2.0**-1000 < top_square < np.inf:
            return float(np.log2(top_square))
    top = float(abs(X).max()) if X.shape[0] * X.shape[1] else 0.0
    if not top > 0.0:
        return -np.inf
    e = int(np.frexp(top)[1])
    if sp.issparse(X):
        X = X.copy()
        X.data = np.ldexp(X.data, -e)
    else:
        X = np.ldexp(X, -e)
    return float(np.log2(squared_norms(X).max())) + 2.0 * e


def check_kernel_scale(log2_r2: float, kernel: str, degree: float, gamma: float,
                       coef0: float) -> None:
    """Refuse data whose kernel values underflow or overflow while they still matter.

    ``log2_r2`` is log2 max_i ||x_i||^2 (:func:`log2_largest_square_norm`): every |<a, b>|
    is at most R^2, every ||a - b||^2 at most 4 R^2. The kernels are scale-free in exact
    arithmetic (X 2^k with gamma 2^-2k gives the same values), floats are not: the
    homogeneous poly kernel (coef0 = 0, degree 3) on X of 2^-200 had every value
    (gamma <x, x'>)^3 ~ 2^-1200 = 0, and the perceptron erred on every row without end;
    with gamma 2^1040 on X of 2^-520 the inner products were subnormal, of a few bits, and
    gamma times them O(1); the rbf kernel with gamma 2^-1040 on X of 2^520 gave exp(-inf)
    = 0 and the sigmoid tanh(inf) = 1, silently.
    """
    if kernel not in ("poly", "rbf", "sigmoid") or log2_r2 == -np.inf:
        return
    if kernel == "rbf":  # gamma ||a - b||^2 against 1 (exp(-t) = 1 - t), inf past 2^10
        largest = log2_r2 + 2.0
        argument, offset, saturated = np.log2(gamma) + largest, 0.0, 10.0
    else:  # gamma <a, b> against coef0; tanh is +-1 past 2^5 (poly's inf is refused later)
        largest = log2_r2
        argument = np.log2(gamma) + largest
        offset = np.log2(abs(coef0)) if coef0 != 0 else -np.inf
        saturated = 5.0 if kernel == "sigmoid" else -np.inf
    imprecise = log2_r2 < _FULL_PRECISION and argument > offset + _NEGLIGIBLE
    overflowed = largest >= 1024.0 and argument < saturated
    # without coef0 the values are (gamma <a, b>)^degree, or tanh of it: all subnormal
    largest = argument * (degree if kernel == "poly" else 1.0)
    if imprecise or overflowed or (kernel != "rbf" and coef0 == 0
                                   and largest < _FULL_PRECISION):
        raise ValueError(
            f"X's largest row norm is 2^{log2_r2 / 2:.1f}: the {kernel} kernel's values "
            f"(gamma={gamma:.3g}, coef0={coef0:g}) come from products that underflow or "
            "overflow float64. The kernel is the same on X 2^k with gamma 2^-2k: "
            "multiply X by a power of two (say 2^600) and gamma by its inverse square.")
