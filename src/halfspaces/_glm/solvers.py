"""The solvers of LogisticRegression and LinearRegression, over any :class:`GLMObjective`.

- ``gd``: steepest descent w <- w - eta grad J(w), with an Armijo backtracking line search
  by default so that it cannot diverge (Nocedal and Wright 2006, Chapter 3);
- ``sgd`` and ``minibatch``: stochastic gradient descent on one example or a mini-batch per
  step, a fresh random order each epoch (Shalev-Shwartz and Ben-David 2014, Chapter 14);
- ``lbfgs``: SciPy's L-BFGS-B over the fused loss-and-gradient pass, in coordinates
  whitened by the curvature at the start point (:class:`Whitening`);
- ``newton``: Newton's method with an Armijo line search; the step solves H s = g by
  Cholesky when the parameter vector is small, else by conjugate gradients on
  Hessian-vector products (Newton-CG), preconditioned for the small softmax.

The solvers ask the objective (and through it its datafit, :mod:`halfspaces._glm.datafits`)
for what they need; they never branch on the loss. Each returns a :class:`SolverRun`.
Stopping rules: the full-batch solvers stop when
|g_j| <= tol s_j for every slot j (converged; s_j = min(1, max_i |x_ij|), 1 for the intercept,
:meth:`GLMObjective.stationary`), or when a step can no longer decrease J in floating
point (stalled: tol is below what the problem's rounding allows); the stochastic ones when
J changes by at most tol (relative) from one epoch to the next; all of them after
``max_iter`` iterations (epochs).

References
----------
.. [1] J. Nocedal and S. J. Wright. Numerical Optimization, 2nd edition. Springer, 2006.
   Chapters 3 (Armijo line search) and 7 (Newton-CG, L-BFGS).
.. [2] S. Shalev-Shwartz and S. Ben-David. Understanding Machine Learning: From Theory to
   Algorithms. Cambridge University Press, 2014. Chapter 14 (stochastic gradient descent).
.. [3] F. Bach and E. Moulines. Non-strongly-convex smooth stochastic approximation with
   convergence rate O(1/n). NeurIPS, 2013.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import scipy.optimize
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.linalg import cholesky, solve_triangular
from scipy.sparse.linalg import LinearOperator, cg

from halfspaces._fast import logistic as fast_logistic
from halfspaces._glm.early_stopping import HeldOut
from halfspaces._glm.objective import GLMObjective, Objective
from halfspaces._glm.runs import SolverRun, until_certified, with_gap
from halfspaces._utils.blas import one_blas_thread, scipy_blas_one_thread
from halfspaces._utils.progress import report

__all__ = ["SgdState", "SolverRun", "StepRule", "Whitening", "solve"]

CHOLESKY_MAX = 2048  # Newton uses Cholesky up to this many parameters, Newton-CG beyond
WHITEN_MAX = 1 << 24  # entries (128 MiB) of L-BFGS's full whitening blocks; diagonal beyond
# the full blocks may cost this many evaluations' multiply-adds (SYRK runs at ~5x the
# evaluation's flop rate: ~20 evaluations of time); the diagonal beyond
WHITEN_COST = 100
DEFAULT_MAX_ITER = {"lbfgs": 1000, "newton": 100, "gd": 2000, "sgd": 30, "minibatch": 200,
                    "lstsq": 1, "cholesky": 1}
_SCHEDULES = {"constant": fast_logistic.CONSTANT, "invscaling": fast_logistic.INVSCALING,
              "optimal": fast_logistic.OPTIMAL}


@dataclass(frozen=True)
class SgdState:
    """Where a stochastic run stopped: enough to continue it exactly (partial_fit)."""

    iterate: NDArray  # the last iterate, flat
    average: NDArray  # the mean of the iterates so far (Polyak-Ruppert)
    n_avg: int  # iterates in that mean; -1 before averaging starts
    t: int  # steps taken, which the learning-rate schedule counts

    @classmethod
    def start(cls, w: NDArray) -> SgdState:
        return cls(np.array(w, dtype=float), np.array(w, dtype=float), -1, 0)


@dataclass(frozen=True)
class StepRule:
    """Step sizes: eta0, the schedule of the stochastic solvers, the line search of gd."""

    eta0: float | None = None
    schedule: str = "constant"
    power_t: float = 0.5
    batch_size: int = 1
    line_search: bool = True
    average: bool = True


def solve(obj: GLMObjective, solver: str, w0: NDArray, tol: float, max_iter: int | None,
          steps: StepRule = StepRule(), rng=None, state: SgdState | None = None,
          held_out: HeldOut | None = None) -> SolverRun:
    """Minimise ``obj`` from ``w0`` with the named solver (from ``state`` for sgd and
    minibatch, when given); the run carries its certified duality gap. ``held_out``
    (sgd and minibatch) stops the run early on its score instead of on J."""
    _check_start(obj, w0, state)
    if not obj.fit_intercept:
        w0, state = _without_intercepts(obj, w0, state)
    max_iter = DEFAULT_MAX_ITER[solver] if max_iter is None else max_iter
    _check_scale(obj)
    if solver not in ("lbfgs", "newton"):
        # the first-order solvers read the rows in memory (obj.X); the Dask estimators,
        # whose objectives sum over partitions, refuse them before fitting
        assert isinstance(obj, Objective), f"solver {solver!r} needs the rows in memory"
        batch = 1 if solver == "sgd" else steps.batch_size
        if steps.eta0 is None:
            steps = replace(steps, eta0=auto_eta0(obj, solver, batch))
        if solver != "gd":
            assert isinstance(obj, Objective)
            return with_gap(obj, stochastic(obj, w0, tol, max_iter, steps, batch, rng, state,
                                            held_out))

    def again(w: NDArray, gradient_tol: float, budget: int) -> SolverRun:
        if solver == "lbfgs":
            return lbfgs(obj, w, gradient_tol, budget)
        if solver == "newton":
            return newton(obj, w, gradient_tol, budget)
        assert isinstance(obj, Objective)
        return gradient_descent(obj, w, gradient_tol, budget, steps)

    return until_certified(obj, again(w0, tol, max_iter), tol, max_iter, again)


def _check_start(obj: GLMObjective, w0: NDArray, state: SgdState | None) -> None:
    """Refuse a start point or a saved stochastic state that is not ``obj``'s size.

    The compiled loops read and write the parameters by feature and class without bounds
    checks: a state saved by a model of another width (its fitted attributes edited, say)
    was read and written beyond its end.
    """
    found = [np.shape(w0)] if state is None else [np.shape(state.iterate),
                                                  np.shape(state.average)]
    if any(shape != (obj.size,) for shape in found):
        raise ValueError(
            f"the solver's start holds parameters of shape {found[0]} for an objective of "
            f"{obj.size}: it belongs to a model of another width or classes; fit again.")


def _without_intercepts(obj: GLMObjective, w0: NDArray,
                        state: SgdState | None) -> tuple[NDArray, SgdState | None]:
    """The start (and stochastic state) with its intercepts set to 0, as copies.

    Without an intercept J does not depend on those slots, so no solver moves them: an
    intercept left there by a fit with one (a warm start or partial_fit after
    set_params(fit_intercept=False)) was kept as the model's b, and predict added it to
    weights fitted without it. scikit-learn's LogisticRegression drops it the same way.
    """

    def dropped(w: NDArray) -> NDArray:
        w = np.array(w, dtype=float)
        w.reshape(obj.shape)[..., -1] = 0.0
        return w

    if state is not None:
        state = replace(state, iterate=dropped(state.iterate), average=dropped(state.average))
    return dropped(w0), state


def _check_scale(obj: GLMObjective) -> None:
    """Refuse data whose squares overflow: every solver's curvature or step would be inf."""
    limit = obj.largest_safe_entry()
    if obj.max_abs > limit:
        raise ValueError(
            f"X's largest entry in absolute value is {obj.max_abs:.3g}: its squares, which "
            f"the solvers sum (curvature, step sizes), overflow float64 beyond about "
            f"{limit:.1e} for these {obj.n_samples} rows. Rescale X (divide it by its "
            "largest entry, or use sklearn.preprocessing.MaxAbsScaler or StandardScaler).")


# squares of entries below 2^-511 are subnormal (below 2^-1022): they keep few digits or
# underflow to 0
_SMALLEST_SAFE_ENTRY = 2.0**-511


def refuse_underflowing_squares(obj: GLMObjective) -> None:
    """Refuse a column whose squares underflow while they still weigh against the penalty.

    The logistic loss without a penalty is scale-free (c x_j gives w_j / c and the same
    predictions), but its curvature x_ij^2 is not: X at 2^-540 (or one column there beside
    columns of size 1) made every solver stop with a curvature of 0 and mispredict 9 of 40
    points that the fit at scale 1 gets right. With a penalty alpha, a column with n x_ij^2
    far below alpha has a negligible weight anyway and is left alone.
    """
    top = obj.rows.column_max_abs
    tiny = (top > 0) & (top < _SMALLEST_SAFE_ENTRY)
    if not tiny.any():
        return
    # log2(n top_j^2) against log2(alpha): squares that underflow cannot be formed
    weight = 2.0 * np.log2(top[tiny]) + np.log2(max(obj.rows.n_samples, 1))
    matters = weight > (np.log2(obj.alpha) - 60.0 if obj.alpha > 0 else -np.inf)
    if matters.any():
        j = int(np.flatnonzero(tiny)[np.argmax(matters)])
        raise ValueError(
            f"column {j} of X has largest entry {top[j]:.3g} in absolute value: its squares, "
            "which the solvers sum (curvature, step sizes), underflow float64 (below "
            "1e-308), and the solver stops short of the solution. Rescale X (divide each "
            "column by its largest entry: sklearn.preprocessing.MaxAbsScaler).")


def auto_eta0(obj: Objective, solver: str, batch: int) -> float:
    """The default first step: 1/L for gd, sqrt(B) / (2 R^2) for the stochastic solvers.

    R^2 = max_i ||x'_i||^2. For averaged SGD with a constant step, 1 / (2 R^2) is the step
    of Bach and Moulines (2013); mini-batches of B rows cut the gradient noise by B and
    take sqrt(B) times that step (the square-root scaling rule). B is the rows a step
    averages, min(batch, n): a batch_size beyond n gives steps over all n rows, the same
    steps as batch_size=n (scikit-learn's MLP clips batch_size to n likewise); sqrt(256)
    on 50 rows took a step 2.3 times too long. For gd, L is bounded by the mean of
    ||x'_i||^2 times the datafit's curvature bound (1/4 logistic, 1 squared). With row
    weights s_i, the gradient's curvature is the weighted mean's, and a stochastic step on
    row i moves by s_i times its gradient: the means and the maximum are of s_i ||x'_i||^2
    (over S for gd), so that multiplying every weight by one constant leaves the data's
    steps as they were.
    """
    X = obj.X
    norms = (
        np.asarray(X.multiply(X).sum(axis=1)).ravel()
        if sp.issparse(X)
        else np.einsum("ij,ij->i", X, X, dtype=np.float64)
    )
    norms = norms + obj.c
    if obj.weights is not None:
        norms = norms * obj.weights
        norms = norms * (norms.shape[0] / obj.rows.total_weight) if solver == "gd" else norms
    if solver == "gd":
        curv = obj.datafit.curvature_bound
        return 1.0 / max(curv * norms.mean() + obj.alpha, 1e-12)
    return np.sqrt(min(batch, norms.shape[0])) / max(2.0 * norms.max(), 1e-12)


def _record(curve: list[float], value: float, max_iter: int) -> None:
    """Append an iteration's objective to the loss curve and report the progress."""
    curve.append(float(value))
    report(len(curve) - 1, max_iter)


def lbfgs(obj: GLMObjective, w0: NDArray, tol: float, max_iter: int) -> SolverRun:
    """SciPy's L-BFGS-B (memory 10) over the fused value-and-gradient pass, preconditioned.

    L-BFGS runs in whitened coordinates v (:class:`Whitening`), where the curvature at
    the start point is the identity: its quasi-Newton memory then only has to learn how
    the curvature changes along the path, not the data's own conditioning. At
    alpha = 1/N on a9a this cuts the iterations to J* (1 + 1e-8) from about 400 to 15.
    It stops when |g_j| <= tol s_j for every slot (:meth:`GLMObjective.stationary`, on the
    gradient in w, whatever the coordinates), or at max_iter. When its line search can
    no longer see J decrease in floating point before that, Newton's method takes over
    for the iterations left (its line search also follows the gradient where J is flat),
    and the run is reported as stalled only if Newton stalls too.
    """
    with _blas_threads_for(obj):
        return _whitened_lbfgs(obj, w0, tol, max_iter)


def _whitened_lbfgs(obj: GLMObjective, w0: NDArray, tol: float, max_iter: int) -> SolverRun:
    white = Whitening.at(obj, w0)
    last: dict[str, Any] = {}

    def value_grad(v: NDArray) -> tuple[float, NDArray]:
        if "v" not in last or not np.array_equal(v, last["v"]):
            w = white.to_w(v)
            f, g = obj.value_grad(w)
            last.update(v=v.copy(), w=w, f=f, g=g, g_v=white.grad_v(g))
        return last["f"], last["g_v"]

    def done() -> bool:
        return obj.stationary(last["g"], tol)

    v0 = white.to_v(w0)
    curve = [value_grad(v0)[0]]
    if done():
        return SolverRun(np.array(w0, dtype=float), 0, True, tuple(curve))

    def callback(intermediate_result) -> None:
        _record(curve, intermediate_result.fun, max_iter)
        value_grad(intermediate_result.x)  # the last evaluation, unless the search moved back
        if done():
            raise StopIteration

    result = scipy.optimize.minimize(
        value_grad, v0, method="L-BFGS-B", jac=True, callback=callback,
        options={"maxiter": max_iter, "gtol": 0.0, "ftol": 0.0, "maxls": 50},
    )
    value_grad(result.x)
    run = SolverRun(last["w"], int(result.nit), done(), tuple(curve))
    if run.converged or run.n_iter >= max_iter:
        return run
    # the line search saw J flat before the gradient test was met (features of size 1e-8
    # move J by 1e-16 relatively): Newton's line search also accepts steps that shrink
    # ||g||_1 where J is flat (:func:`armijo`), so it finishes
    rest = _newton(obj, run.w, tol, max_iter - run.n_iter)
    return replace(rest, n_iter=run.n_iter + rest.n_iter,
                   loss_curve=run.loss_curve + rest.loss_curve[1:])


def _blas_threads_for(obj: GLMObjective):
    """One BLAS thread throughout when one evaluation's products are small (under 2^22
    multiply-adds, as on digits), where threads cost more than they give (2.8x slower
    there); else only SciPy's own pool, which L-BFGS-B's vector work uses."""
    small = obj.n_samples * obj.size < 1 << 22
    return one_blas_thread() if small else scipy_blas_one_thread()


@dataclass(frozen=True)
class Whitening:
    """The change of variables w_a = M_a^T v_a of each class row, M_a = L_a^-1, B_a = L_a L_a^T.

    B_a is the Hessian's diagonal block of class a at the start point
    (:meth:`~halfspaces._glm.objective.GLMObjective.feature_curvature`), so that in v the curvature
    there is (close to) the identity: a fixed preconditioner, i.e. L-BFGS with H_0 = B^-1
    instead of a multiple of I (Nocedal and Wright, Section 7.2). Beyond ``CHOLESKY_MAX`` slots per
    class, when the k blocks would hold more than ``WHITEN_MAX`` entries, or cost more
    than ``WHITEN_COST`` evaluations to build (dense X with many features), only their
    diagonals are used (Jacobi scaling), so memory stays O(k d) and the set-up cheap.
    (The blocks are never estimated from fewer rows than the Hessian's: from 4 d' rows
    the estimate's own spread, Marchenko-Pastur, made L-BFGS take more iterations.)

    The inverse factors are kept, not the Cholesky factors: w = M^T v and the gradient in
    v, M g, are then one batched product each (not k triangular solves) and exact
    adjoints of each other. One factor serves all classes when they share their block.
    """

    inverse: NDArray  # (1 or k, d1, d1) lower triangular, or (1 or k, d1) 1 / sqrt(diag B)
    n_classes: int

    @property
    def diagonal(self) -> bool:
        return self.inverse.ndim == 2

    @classmethod
    def at(cls, obj: GLMObjective, w: NDArray) -> Whitening:
        k, d1 = obj.n_outputs, obj.shape[-1]
        too_big = d1 > CHOLESKY_MAX or k * d1 * d1 > WHITEN_MAX
        budget = WHITEN_COST * obj.evaluation_cost()
        blocks = obj.feature_curvature(w, diagonal=too_big, max_cost=budget)
        if blocks.ndim == 2:
            return cls(1.0 / np.sqrt(blocks), k)
        eye = np.eye(blocks.shape[1])
        try:
            return cls(np.stack([
                solve_triangular(cholesky(B, lower=True, check_finite=False), eye,
                                 lower=True, check_finite=False) for B in blocks]), k)
        except np.linalg.LinAlgError:  # not positive definite in floating point
            return cls(1.0 / np.sqrt(blocks[:, np.arange(len(eye)), np.arange(len(eye))]), k)

    def to_v(self, w: NDArray) -> NDArray:
        """v_a = M_a^-T w_a = L_a^T w_a."""
        W = w.reshape(self.n_classes, -1)
        if self.diagonal:
            return (W / self.inverse).ravel()
        M = np.broadcast_to(self.inverse, (self.n_classes, *self.inverse.shape[1:]))
        return np.concatenate([
            solve_triangular(Ma, wa, lower=True, trans=1, check_finite=False)
            for Ma, wa in zip(M, W, strict=True)])

    def to_w(self, v: NDArray) -> NDArray:
        """w_a = M_a^T v_a."""
        return self._times(v, transposed=True)

    def grad_v(self, g: NDArray) -> NDArray:
        """The gradient in v of a function of w: M_a g_a."""
        return self._times(g, transposed=False)

    def _times(self, x: NDArray, transposed: bool) -> NDArray:
        X = x.reshape(self.n_classes, -1)
        if self.diagonal:
            return (X * self.inverse).ravel()
        M = self.inverse if transposed else self.inverse.transpose(0, 2, 1)
        if M.shape[0] == 1:  # rows times one matrix: a single GEMM
            return (X @ M[0]).ravel()
        return np.matmul(X[:, None, :], M)[:, 0, :].ravel()


def armijo(obj: GLMObjective, w: NDArray, f: float, g: NDArray, s: NDArray, t: float,
           shrink: float = 1.0):
    """Largest t / 2^j, j < 60, with J(w - t s) <= J(w) - 1e-4 t <g, s>, J decreasing: (t,
    w_new, f, g), or None (no decrease left in floating point).

    Where J does not change in floating point (|J(w - t s) - J(w)| within 16 ulps of J,
    as on features of size 1e-8, whose weights move J by 1e-16 relatively), the step is
    taken when it multiplies ||g||_1 by less than ``shrink`` instead, as scikit-learn's
    Newton solver does (``sklearn/linear_model/_glm/_newton_solver.py``), while some
    |g_j| / s_j exceeds 64 ulps of max(1, J), about the gradient's own rounding: below
    that a smaller ||g||_1 is noise. gd asks for a 0.1% shrink at least.
    """
    slope = g @ s
    eps = np.finfo(np.float64).eps
    tiny: float = 16 * eps * abs(f)
    if np.max(np.abs(g) / obj.scales(), initial=0.0) <= 64 * eps * max(1.0, abs(f)):
        tiny = -1.0  # the gradient is rounding noise: only a visible decrease counts
    g_sum = shrink * np.abs(g).sum()
    for _ in range(60):
        w_new = w - t * s
        f_new, g_new = obj.value_grad(w_new)
        flat = abs(f_new - f) <= tiny
        if f_new < f and f_new <= f - 1e-4 * t * slope and not flat:
            return t, w_new, f_new, g_new
        # where J is flat a decrease is rounding too: taking it as progress let gd cycle
        # between two points 6 ulps apart, one "lower" J and one smaller ||g||_1
        if flat and np.abs(g_new).sum() < g_sum:
            return t, w_new, f_new, g_new
        t *= 0.5
    return None


def newton(obj: GLMObjective, w: NDArray, tol: float, max_iter: int) -> SolverRun:
    """Newton's method with backtracking; Cholesky or conjugate gradients for the step."""
    with _blas_threads_for(obj):
        return _newton(obj, w, tol, max_iter)


def _newton(obj: GLMObjective, w: NDArray, tol: float, max_iter: int) -> SolverRun:
    """Newton's method (under the caller's BLAS thread setting)."""
    step = _newton_step_rule(obj, w)
    f, g = obj.value_grad(w)
    curve = [f]
    for it in range(max_iter):
        if obj.stationary(g, tol):
            return SolverRun(w, it, True, tuple(curve))
        found = armijo(obj, w, f, g, step(w, g), 1.0)
        if found is None:  # no decrease left in floating point
            return SolverRun(w, it, False, tuple(curve), stalled=True)
        _, w, f, g = found
        _record(curve, f, max_iter)
    return SolverRun(w, max_iter, obj.stationary(g, tol), tuple(curve))


def _newton_step_rule(obj: GLMObjective, w0: NDArray):
    """How Newton solves H(w) s = g: a function (w, g) -> s.

    - one output (binary and squared losses) up to ``CHOLESKY_MAX`` parameters:
      Cholesky of H;
    - k outputs (the softmax) up to ``CHOLESKY_MAX``: conjugate gradients on
      Hessian-vector products,
      preconditioned by the class blocks of H at the start point (:class:`Whitening`,
      B^-1 r = M^T M r). The full H costs n (k d')^2 / 2 per step, a CG iteration about
      4 n k d', so CG wins while it needs fewer than k d' / 8 iterations: on digits at
      most 27 of 81, and 7x less time than Cholesky (for one class, d' / 8 is small);
    - beyond ``CHOLESKY_MAX``: plain conjugate gradients (on 3,000 MNIST rows the block
      preconditioner cost more than it saved).
    """
    if obj.size > CHOLESKY_MAX:
        return lambda w, g: _cg_step(obj, w, g, None)
    if obj.n_outputs == 1:
        return obj.newton_direction
    white = Whitening.at(obj, w0)
    return lambda w, g: _cg_step(obj, w, g, white)


def _cg_step(obj: GLMObjective, w: NDArray, g: NDArray, white: Whitening | None) -> NDArray:
    """Inexact Newton: CG to the relative residual min(1/2, sqrt(||g||)) (superlinear)."""
    shape = (obj.size, obj.size)
    op = LinearOperator(shape, matvec=obj.hess_operator(w), dtype=float)
    pre = None if white is None else LinearOperator(
        shape, matvec=lambda r: white.to_w(white.grad_v(r)), dtype=float)
    gnorm = np.linalg.norm(g)
    s, _ = cg(op, g, rtol=min(0.5, np.sqrt(gnorm)), maxiter=max(50, obj.size // 10), M=pre)
    return s if g @ s > 0 else g


def gradient_descent(obj: GLMObjective, w: NDArray, tol: float, max_iter: int,
                     steps: StepRule) -> SolverRun:
    """w <- w - eta grad J(w); with the line search, eta is the Armijo step tried from 2 eta."""
    f, g = obj.value_grad(w)
    assert steps.eta0 is not None, "solve() fills in the default step (auto_eta0)"
    curve, eta = [f], steps.eta0
    for it in range(max_iter):
        if obj.stationary(g, tol):
            return SolverRun(w, it, True, tuple(curve))
        if steps.line_search:
            found = armijo(obj, w, f, g, g, 2.0 * eta, shrink=0.999)
            if found is None:
                return SolverRun(w, it, False, tuple(curve), stalled=True)
            eta, w, f, g = found
        else:
            w = w - eta * g
            f, g = obj.value_grad(w)
        _record(curve, f, max_iter)
    return SolverRun(w, max_iter, obj.stationary(g, tol), tuple(curve))


def stochastic(obj: Objective, w: NDArray, tol: float, max_iter: int, steps: StepRule,
               batch: int, rng, state: SgdState | None = None,
               held_out: HeldOut | None = None) -> SolverRun:
    """Epochs of (mini-batch) SGD, each over a fresh permutation; J recorded after each.

    With ``steps.average`` the model is the mean of the iterates from the second epoch on
    (Polyak-Ruppert averaging; Shalev-Shwartz and Ben-David's SGD outputs the mean).
    ``state`` continues an earlier run (partial_fit). With ``held_out`` the run stops on
    its held-out score (:mod:`halfspaces._glm.early_stopping`) and returns to the state of
    the best epoch; ``n_iter`` still counts every epoch made.
    """
    state = SgdState.start(w) if state is None else state
    it, avg, n_avg, t = state.iterate.copy(), state.average.copy(), state.n_avg, state.t
    watch = None if held_out is None else held_out.watch(
        lambda: avg if n_avg > 0 else it, lambda: SgdState(it.copy(), avg.copy(), n_avg, t))
    curve = [obj.value(avg if n_avg > 0 else it)]
    converged, epoch = False, 0
    while epoch < max_iter and not converged:
        if steps.average and n_avg < 0 and t > 0:
            n_avg = 0
        order = rng.permutation(obj.X.shape[0]).astype(np.intp)
        t, n_avg = run_epoch(obj, it, avg, n_avg, order, batch, steps, t)
        epoch += 1
        _record(curve, obj.value(avg if n_avg > 0 else it), max_iter)
        if not np.isfinite(curve[-1]):
            break
        if watch is not None:
            converged = watch()
        else:
            converged = abs(curve[-2] - curve[-1]) <= tol * max(abs(curve[-1]), 1e-12)
    scores = None
    # a run that overflowed is returned as it is, so that the estimator refuses it: the
    # best epoch before it would hide a step size that diverges
    if watch is not None and watch.best is not None and np.isfinite(curve[-1]):
        best, _ = watch.best
        it, avg, n_avg, t = best.iterate, best.average, best.n_avg, best.t
        scores = tuple(watch.scores)
    model = avg if n_avg > 0 else it
    return SolverRun(model.copy(), epoch, converged, tuple(curve), SgdState(it, avg, n_avg, t),
                     validation_scores=scores)


def run_epoch(obj: Objective, w: NDArray, u: NDArray, n_avg: int, order: NDArray, batch: int,
              steps: StepRule, t: int) -> tuple[int, int]:
    """One pass of the stochastic loop over ``order``, updating w (and u) in place."""
    opts = (obj.alpha, float(_SCHEDULES[steps.schedule]), steps.eta0, steps.power_t)
    return obj.sgd_epoch(w, u, n_avg, order, batch, opts, t)
