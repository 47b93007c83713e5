"""Elastic-net fits by proximal coordinate descent over working sets, stopped on a certified
duality gap; and alpha_max, the smallest alpha whose solution has all-zero weights.

The outer loop (Massias et al. 2018's celer, skglm's ``AndersonCD`` [2]_) computes the
datafit's gradient on every column, measures how far each coordinate is from its optimality
condition (:meth:`~halfspaces._glm.penalties.ElasticNet.violations`), and hands the worst
ones with the current support (a working set of at least 10 columns, twice the support
after that) to the compiled loop (:mod:`halfspaces._fast.coordinate_descent`), which runs
passes over them until their own violations are below 0.3 of the outer one. When every
violation is at most the gradient tolerance, the certified gap
(:mod:`halfspaces._glm.sparse_duals`) is computed: the fit stops once it is at most tol J,
and otherwise goes on with the tolerance ten times smaller, as :func:`.runs.until_certified`
does for the smooth solvers.

A warm start (the previous weights of a fit at another alpha) begins with the support of
those weights and the columns that the sequential strong rule keeps (Tibshirani et al. 2012
[3]_): |g_j| >= 2 alpha_1 - alpha_1', alpha_1' the previous penalty, read off the start as
the largest |g_j| off its support, which the KKT conditions make at most alpha_1'. The
outer check over all columns then adds any column the rule dropped wrongly, so the rule
only decides where the work starts, never the answer.

References
----------
.. [1] M. Massias, A. Gramfort and J. Salmon. Celer: a fast solver for the Lasso with dual
   extrapolation. ICML 2018.
.. [2] Q. Bertrand, Q. Klopfenstein, P.-A. Bannier, G. Gidel and M. Massias. Beyond L1:
   faster and better sparse models with skglm. NeurIPS 2022.
.. [3] R. Tibshirani, J. Bien, J. Friedman, T. Hastie, N. Simon, J. Taylor and R. J.
   Tibshirani. Strong rules for discarding predictors in lasso-type problems. JRSS B
   74(2), 2012.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.special import expit, logsumexp, softmax

from halfspaces._fast import coordinate_descent as fast_cd
from halfspaces._glm.penalties import ElasticNet
from halfspaces._glm.sparse_duals import LOSSES, elastic_net_gap, softmax_elastic_net_gap

__all__ = ["CDRun", "alpha_max", "solve_cd", "solve_svm_cd"]

_CODES = {"squared": fast_cd.SQUARED, "logistic": fast_cd.LOGISTIC,
          "squared_hinge": fast_cd.SQUARED_HINGE}
_FIRST_WS = 10  # the first working set's size (skglm's p0)
_INNER_PASSES = 10  # passes of the compiled loop between checks of the inner rule
_MAX_INNER = 50  # checks per working set
_GRADIENT_FLOOR = 1e-10  # the tightest gradient rule, relative to tol


@dataclass(frozen=True)
class CDRun:
    """What a coordinate descent run reached: w' = (w, b) flat, the intercept last."""

    w: NDArray
    n_iter: int
    converged: bool
    objective: float  # J(w') bounded above
    gap: float  # a certified bound on J(w') - J*
    loss_curve: tuple[float, ...]
    stalled: bool = False


@dataclass(frozen=True)
class _Problem:
    """The data as the loops read them: columns of X, targets, normalised weights; the
    parameters as a (k, d + 1) matrix W (k = 1 but for the softmax), scores Z."""

    X: Any
    columns: Any  # the compiled loop's XT (rows of X^T): a (d, n) array or a CSR triple
    XT: Any  # X^T for the gradients (dense or CSR)
    y: NDArray  # ±1 or values; class indices for the softmax
    s: NDArray  # weights with mean 1 (all 1 without weights)
    weighted: bool
    loss: str
    c: float
    k: int = 1

    @property
    def code(self) -> int:
        return _CODES[self.loss]

    @property
    def curvature(self) -> float:
        return fast_cd.CURVATURE[self.code]

    @property
    def inv_s(self) -> float:
        return 1.0 / float(self.s.sum())

    def derivatives(self, Z: NDArray) -> NDArray:
        """s_i loss'(z_i) / S per row (and class)."""
        y = self.y
        if self.loss == "squared":
            r = Z - y
        elif self.loss == "logistic":
            r = -y * expit(-y * Z)
        else:
            r = -2.0 * y * np.maximum(1.0 - y * Z, 0.0)
        return self.s * r * self.inv_s

    def gradient(self, Z: NDArray) -> tuple[NDArray, NDArray]:
        """(dF/dW of the datafit F, shape (k, d); dF/db, shape (k,)) at the scores Z."""
        r = self.derivatives(Z)
        G = np.asarray(self.XT @ r, dtype=np.float64).reshape(-1, self.k).T
        return G, self.c * np.atleast_1d(r.sum(axis=0))

    def value(self, Z: NDArray) -> float:
        return float(fast_cd.datafit_value(self.y, self.s, Z, self.code, self.inv_s))

    def scores(self, W: NDArray) -> NDArray:
        return np.asarray(self.X @ W[0, :-1], dtype=np.float64).ravel() + self.c * W[0, -1]

    def epochs(self, W: NDArray, Z: NDArray, lips: NDArray, ws: NDArray, opts: tuple) -> float:
        if self.loss != "logistic":  # the squared loss's steps are exact already
            return fast_cd.cd_epochs(self.columns, self.y, self.s, W[0], Z, lips, ws,
                                     self.code, opts, _INNER_PASSES)
        return self._newton_step(W[0], Z, ws, opts)

    def _newton_step(self, w: NDArray, z: NDArray, ws: NDArray, opts: tuple) -> float:
        """One proximal Newton step on the working set (glmnet's and LIBLINEAR's newGLMNET
        for the logistic loss, Yuan et al. 2012; skglm's ProxNewton): coordinate descent
        on the quadratic model, then a backtracking line search on J along the step."""
        sigma = expit(-self.y * z)
        r = -self.y * sigma * self.s * self.inv_s
        h = sigma * (1.0 - sigma) * self.s * self.inv_s
        wn, dz = w.copy(), np.zeros(z.shape[0])
        moved = fast_cd.newton_passes(self.columns, ws, wn, dz, r, h, opts, _INNER_PASSES)
        if moved == 0.0:
            return 0.0
        d = w.shape[0] - 1

        def penalty(v: NDArray) -> float:  # opts = (alpha_1, alpha_2, ...), as the loop's
            return opts[0] * float(np.abs(v[:d]).sum()) + 0.5 * opts[1] * float(v[:d] @ v[:d])

        before = self.value(z) + penalty(w)
        # the model's predicted decrease (Tseng and Yun's Armijo rule for composite steps)
        drop = float(r @ dz) + penalty(wn) - penalty(w)
        t = 1.0
        for _ in range(30):
            trial_w = w + t * (wn - w)
            trial_z = z + t * dz
            after = self.value(trial_z) + penalty(trial_w)
            if after <= before + 1e-4 * t * drop:
                w[:] = trial_w
                z[:] = trial_z
                return moved * t
            t *= 0.5
        return 0.0

    def intercepts(self) -> NDArray:
        """The optimal intercepts with W = 0 (0 without an intercept)."""
        return np.array([_intercept_only(self)])

    def gap(self, W: NDArray, penalty: ElasticNet) -> tuple[float, float]:
        return elastic_net_gap(self.X, self.y, W[0, :-1], float(W[0, -1]), loss=self.loss,
                               penalty=penalty, fit_intercept=self.c == 1.0,
                               weights=self.s if self.weighted else None)


class _SoftmaxProblem(_Problem):
    """The softmax's k scores per row: W holds a row per class; Z the (n, k) scores and P
    their softmax probabilities, which the compiled loop keeps in step."""

    @property
    def curvature(self) -> float:
        return 0.5  # ||diag(p) - p p^T||_2 <= 1/2: a block bound for a feature's k weights

    def derivatives(self, Z: NDArray) -> NDArray:
        P = softmax(Z, axis=1)
        P[np.arange(P.shape[0]), self.y] -= 1.0
        return self.s[:, None] * P * self.inv_s

    def value(self, Z: NDArray) -> float:
        rows = np.arange(Z.shape[0])
        losses = logsumexp(Z, axis=1) - Z[rows, self.y]
        return float(self.s @ losses) * self.inv_s

    def scores(self, W: NDArray) -> NDArray:
        return np.asarray(self.X @ W[:, :-1].T, dtype=np.float64) + self.c * W[:, -1]

    def epochs(self, W, Z, lips, ws, opts):
        P = softmax(Z, axis=1)
        return fast_cd.softmax_cd_epochs(self.columns, self.y, self.s, W, Z, P, lips, ws,
                                         opts, _INNER_PASSES)

    def intercepts(self) -> NDArray:
        if self.c == 0.0:
            return np.zeros(self.k)
        share = np.bincount(self.y, weights=self.s, minlength=self.k) * self.inv_s
        logs = np.log(np.where(share > 0, share, 1.0))
        return np.where(share > 0, logs - logs[share > 0].mean(), 0.0)

    def gap(self, W, penalty):
        return softmax_elastic_net_gap(self.X, self.y, W[:, :-1], W[:, -1], penalty=penalty,
                                       fit_intercept=self.c == 1.0,
                                       weights=self.s if self.weighted else None)


def _problem(X, y: NDArray, loss: str, fit_intercept: bool, weights: NDArray | None,
             n_classes: int = 1) -> _Problem:
    if loss not in (*LOSSES, "softmax"):
        raise ValueError(f"coordinate descent fits the losses {LOSSES} and the softmax, "
                         f"not {loss!r}")
    n = X.shape[0]
    s = (np.ones(n) if weights is None
         else np.asarray(weights, dtype=np.float64) * (n / math.fsum(weights)))
    columns: Any
    if sp.issparse(X):
        csc = X.tocsc()
        csc.sort_indices()
        columns, XT = (csc.data, csc.indices, csc.indptr), csc.T
    else:
        columns = XT = np.ascontiguousarray(X.T)
    c = 1.0 if fit_intercept else 0.0
    if loss == "softmax":
        return _SoftmaxProblem(X, columns, XT, np.asarray(y, dtype=np.intp), s,
                               weights is not None, "logistic", c, n_classes)
    return _Problem(X, columns, XT, np.asarray(y, dtype=np.float64), s, weights is not None,
                    loss, c)


def _intercept_only(p: _Problem) -> float:
    """The optimal intercept with w = 0 (0 without an intercept), binary or squared."""
    if p.c == 0.0:
        return 0.0
    total = math.fsum(p.s.tolist())
    if p.loss == "squared":
        return math.fsum((p.s * p.y).tolist()) / total
    plus = math.fsum(p.s[p.y > 0].tolist()) / total
    if p.loss == "squared_hinge":  # (1 - b)^2 S+ + (1 + b)^2 S- is least at b = S+ - S-
        return 2.0 * plus - 1.0
    if plus <= 0.0 or plus >= 1.0:
        return 0.0  # one class: no finite optimum; alpha_max is then that of b = 0
    return math.log(plus) - math.log1p(-plus)


def alpha_max(X, y: NDArray, *, loss: str, l1_ratio: float, fit_intercept: bool,
              weights: NDArray | None = None, n_classes: int = 1) -> float:
    r"""The smallest alpha at which w = 0 solves the elastic-net problem.

    At w = 0 the subdifferential of alpha rho ||w||_1 is the box [-alpha rho, alpha rho]^d
    and the L2 term's gradient is 0, so (0, b_0) is optimal, b_0 the intercept-only fit,
    exactly when :math:`|\partial_j F(0, b_0)| \le \alpha\rho` for every j, F the datafit:

    .. math::
        \alpha_{\max} = \frac{\lVert X^T r\rVert_\infty}{\rho\,\sum_i s_i},
        \qquad r_i = s_i\,\ell'(y_i, b_0).

    Beyond it the solution stays at 0, below it not (Friedman et al. 2010, Section 2.5).
    rho = 0 (no L1 part) gives inf. For the softmax (``loss="softmax"``, y the class
    indices, ``n_classes`` = k) the same holds entrywise on the k x d gradient, b_0 the
    log class shares.
    """
    p = _problem(X, y, loss, fit_intercept, weights, n_classes)
    W = np.zeros((p.k, X.shape[1] + 1))
    W[:, -1] = p.intercepts()
    G, _ = p.gradient(p.scores(W))
    top = float(np.max(np.abs(G), initial=0.0))
    return math.inf if l1_ratio == 0 else top / float(l1_ratio)


def solve_cd(X, y: NDArray, *, loss: str, alpha: float, l1_ratio: float, fit_intercept: bool,
             tol: float, max_iter: int, weights: NDArray | None = None,
             start: NDArray | None = None, n_classes: int = 1) -> CDRun:
    """Minimise the elastic-net problem from ``start`` (w' = (w, b) flat, or zero).

    ``loss="softmax"`` takes y as class indices and ``n_classes`` = k, and w' as the rows
    (w_a, b_a) of a (k, d + 1) matrix, flat; the intercepts come back centred (the loss
    ignores a shift common to them). ``max_iter`` bounds the outer iterations (gradient
    checks over all columns); the run always ends with its certified gap, wherever it
    stopped.
    """
    p = _problem(X, y, loss, fit_intercept, weights, n_classes)
    penalty = ElasticNet(float(alpha), float(l1_ratio))
    d = X.shape[1]
    lips = fast_cd.column_lipschitz(p.columns, p.s, p.curvature, p.inv_s)
    idle = lips == 0.0  # all-zero columns: w_j = 0 is optimal and the step undefined
    warm = start is not None and start.size == p.k * (d + 1)
    W = (np.array(start, dtype=np.float64).reshape(p.k, d + 1) if warm
         else np.zeros((p.k, d + 1)))
    W[:, :d][:, idle] = 0.0
    if not fit_intercept:
        W[:, d] = 0.0
    elif not warm:
        W[:, d] = p.intercepts()
    Z = p.scores(W)
    opts = (penalty.alpha1, penalty.alpha2, p.c, p.inv_s, p.curvature)
    gradient_tol, curve, gap, objective = float(tol), [], math.inf, math.inf
    converged = stalled = False
    n_iter = 0
    previous = math.inf
    for n_iter in range(1, max_iter + 1):
        G, g_b = p.gradient(Z)
        curve.append(p.value(Z) + penalty.value(W[:, :d]))
        bad = penalty.violations(W[:, :d], G).max(axis=0)  # per feature, over the classes
        bad[idle] = 0.0
        worst = max(float(np.max(bad, initial=0.0)), float(np.max(np.abs(g_b))))
        if worst <= gradient_tol:
            objective, gap = _gap(p, W, penalty)
            if gap <= tol * objective or not math.isfinite(gap):
                converged = True  # no dual point (alpha = 0): the gradient rule decides
                break
            gradient_tol *= 0.1
            if gradient_tol < tol * _GRADIENT_FLOOR:
                stalled = True
                break
        if len(curve) > 1 and curve[-1] >= curve[-2] and worst >= previous:
            # neither J nor the violations decrease in floating point: rounding's are left
            objective, gap = _gap(p, W, penalty)
            converged = gap <= tol * objective
            stalled = not converged
            break
        previous = worst
        support = np.any(W[:, :d] != 0, axis=0)
        # twice the current support (skglm's rule), so that the set always grows past it
        ws_size = max(_FIRST_WS, min(2 * int(np.count_nonzero(support)), d))
        ws = _working_set(support, np.abs(G).max(axis=0), bad, ws_size, penalty,
                          warm and n_iter == 1)
        _inner(p, W, Z, lips, ws, opts, penalty, max(0.3 * worst, 0.1 * gradient_tol))
    else:
        objective, gap = _gap(p, W, penalty)
        converged = gap <= tol * objective
    return CDRun(W.ravel(), n_iter, converged, objective, gap, tuple(curve), stalled)


def _gap(p: _Problem, W: NDArray, penalty: ElasticNet) -> tuple[float, float]:
    if p.k > 1 and p.c == 1.0:  # the softmax's intercepts centred: the same J
        W[:, -1] -= W[:, -1].mean()
    return p.gap(W, penalty)


def _working_set(support: NDArray, g: NDArray, bad: NDArray, size: int,
                 penalty: ElasticNet, screen: bool) -> NDArray:
    """The support, then the columns of largest violation, ``size`` in all (at least the
    support); on a warm start the strong rule's survivors instead of a fixed count.
    ``g`` is the largest |dF/dw_aj| of each column j over the classes."""
    if screen:
        off = np.abs(g[~support])
        previous = float(np.max(off, initial=0.0))
        keep = support | (np.abs(g) >= 2.0 * penalty.alpha1 - previous)
        keep &= (bad > 0) | support
        if keep.any():
            return np.flatnonzero(keep).astype(np.intp)
    priority = np.where(support, np.inf, bad)
    d = support.shape[0]
    size = min(max(size, int(support.sum())), d)
    chosen = np.argpartition(-priority, size - 1)[:size] if size < d else np.arange(d)
    chosen = chosen[(priority[chosen] > 0)]
    return np.sort(chosen).astype(np.intp)


def _inner(p: _Problem, W: NDArray, Z: NDArray, lips: NDArray, ws: NDArray, opts: tuple,
           penalty: ElasticNet, inner_tol: float) -> None:
    """Passes over the working set until its violations are at most ``inner_tol``."""
    if ws.size == 0 and p.c == 0.0:
        return
    XT_ws = p.XT[ws]
    for _ in range(_MAX_INNER):
        if p.epochs(W, Z, lips, ws, opts) == 0.0:  # a fixed point in floating point
            return
        r = p.derivatives(Z)
        G_ws = np.asarray(XT_ws @ r, dtype=np.float64).reshape(-1, p.k).T
        worst = float(np.max(penalty.violations(W[:, ws], G_ws), initial=0.0))
        if max(worst, float(np.max(np.abs(p.c * r.sum(axis=0))))) <= inner_tol:
            return


def solve_svm_cd(X, y: NDArray, *, alpha: float, l1_ratio: float, fit_intercept: bool,
                 tol: float, max_iter: int, weights: NDArray | None = None,
                 start: NDArray | None = None):
    """The squared hinge with the elastic net (LIBLINEAR's -s 5 when l1_ratio = 1) as an
    :class:`~halfspaces._glm.svm_dual.SvmDualRun`; its ``dual`` is beta_i = 2 (1 - m_i)_+,
    the dual variables of the L2 problem's convention (w = sum_i beta_i s_i y_i x_i /
    (alpha n) at l1_ratio = 0), and its multiplier (b, 0)."""
    from halfspaces._glm.svm_dual import SvmDualRun

    run = solve_cd(X, y, loss="squared_hinge", alpha=alpha, l1_ratio=l1_ratio,
                   fit_intercept=fit_intercept, tol=tol, max_iter=max_iter, weights=weights,
                   start=start)
    coef, b = run.w[:-1].copy(), float(run.w[-1])
    margins = y * (np.asarray(X @ coef, dtype=np.float64).ravel() + b)
    return SvmDualRun(coef=coef, intercept=b, dual=2.0 * np.maximum(1.0 - margins, 0.0),
                      multiplier=np.array([b, 0.0]), n_iter=run.n_iter,
                      objective=run.objective, gap=run.gap, converged=run.converged)
