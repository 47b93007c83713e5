"""``--dask``: ``halfspaces fit`` and ``halfspaces certify`` on a Dask cluster.

``--dask ADDRESS`` connects to a running scheduler (``tcp://host:8786``); ``--dask local:N``
starts a :class:`distributed.LocalCluster` of N single-threaded worker processes for the
command's duration. The files are read on the workers (:func:`halfspaces.dask.read_files`),
so they must be visible there at the same paths.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from halfspaces.cli._models import configure

__all__ = ["DASK_MODELS", "certify_on_cluster", "dask_client", "fit_on_cluster"]

DASK_MODELS = {"perceptron": "Perceptron", "averaged": "AveragedPerceptron",
               "logistic": "LogisticRegression", "linear": "LinearRegression"}
"""``--model`` names that train on a cluster -> class name in :mod:`halfspaces.dask`."""


@contextlib.contextmanager
def dask_client(spec: str) -> Iterator[Any]:
    """A distributed Client for ``--dask``: ``local:N`` or a scheduler's address."""
    from distributed import Client, LocalCluster

    from halfspaces.cli import _collector

    _collector.resume()  # a client and a cluster make cyclic garbage all along: collect it
    if spec.startswith("local:"):
        count = spec.removeprefix("local:")
        if not (count.isascii() and count.isdigit()) or int(count) < 1:
            raise ValueError(f"--dask {spec!r}: write local:N with N >= 1 worker processes.")
        with LocalCluster(n_workers=int(count), threads_per_worker=1, processes=True,
                          dashboard_address=":0") as cluster, Client(cluster) as client:
            yield client
        return
    with Client(spec, timeout="20s") as client:
        yield client


def _estimator(model: str, params: dict[str, Any], defaults: dict[str, Any]):
    import halfspaces.dask as hd

    if model not in DASK_MODELS:
        raise ValueError(f"--model {model} does not train on a cluster; with --dask use one "
                         f"of {', '.join(DASK_MODELS)}.")
    return configure(getattr(hd, DASK_MODELS[model]), params, defaults)


def _block_score(X, y, local, regression: bool):
    """(correct predictions, rows) or, for regression, :func:`_moments` of the block."""
    if X.shape[0] == 0:
        return (0, 0.0, 0.0, 0.0, 1.0) if regression else (0, 0)
    predicted = local.predict(X)
    if regression:
        return _moments(np.asarray(y, dtype=np.float64), predicted)
    return int(np.sum(predicted == y)), len(y)


def _moments(y: NDArray, predicted: NDArray) -> tuple[int, float, float, float, float]:
    """(n, mean, M2, SSE, c) of one block, the last three of y and predictions times c.

    c is a power of two that brings the largest |y_i| or finite |prediction| into [1, 2),
    exactly, so the squares neither overflow (|y| past 1e154) nor underflow (1e-200);
    M2 = sum (y_i - mean)^2 by two passes over the block.
    """
    from halfspaces._utils.scaling import power_of_two_scale  # on the worker, when a fit scores

    c = power_of_two_scale(np.r_[y, predicted[np.isfinite(predicted)]])
    ys = y * c
    mean = float(ys.mean())
    return (len(ys), mean, float(np.sum((ys - mean) ** 2)),
            float(np.sum((ys - predicted * c) ** 2)), c)


def _merged(first: tuple, second: tuple) -> tuple:
    """The :func:`_moments` of two blocks together (Chan, Golub and LeVeque 1979).

    Both are brought to the smaller of their scales (a power-of-two ratio, exact bar
    underflow of what is negligible beside the larger block), then
    M2 = M2_a + M2_b + delta^2 n_a n_b / n with delta the difference of the means: no
    sum(y^2) - sum(y)^2 / n, which cancelled catastrophically for y = 1e8 + noise.
    """
    if second[0] == 0:
        return first
    if first[0] == 0:
        return second
    c = min(first[4], second[4])
    (na, ma, qa, sa), (nb, mb, qb, sb) = (_rescaled(m, c / m[4]) for m in (first, second))
    n = na + nb
    delta = mb - ma
    return (n, ma + delta * (nb / n), qa + qb + delta * delta * (na * nb / n), sa + sb, c)


def _rescaled(moments: tuple, r: float) -> tuple[int, float, float, float]:
    n, mean, m2, sse, _ = moments
    return n, mean * r, m2 * (r * r), sse * (r * r)


def cluster_score(parts, local, regression: bool) -> float:
    """Accuracy (R^2 for regression) of a local model on partitions, merged in order.

    R^2 = 1 - SSE / M2 as scikit-learn's ``r2_score`` gives it (1.0 for M2 = SSE = 0, 0.0
    for M2 = 0 < SSE), from per-partition moments merged pairwise in partition order, so
    the score does not depend on the workers.
    """
    blocks = parts.map(_block_score, local, regression)
    if not regression:
        return sum(b[0] for b in blocks) / sum(b[1] for b in blocks)
    _, _, m2, sse, _ = functools.reduce(_merged, blocks)
    if m2 == 0:
        return 1.0 if sse == 0 else 0.0
    return 1.0 - sse / m2


def fit_on_cluster(paths: Sequence[Path], *, dask: str, test: Sequence[Path] | None,
                   model: str, params: dict[str, Any], defaults: dict[str, Any],
                   label_column, format: str | None, out: Path | None, show_progress: bool,
                   timed, report, save):
    """Train a :mod:`halfspaces.dask` model on files read on the cluster; a FitReport.

    ``timed``, ``report`` and ``save`` are :mod:`halfspaces.cli.fit`'s own helpers, so the
    report, the timing and the model file are those of a serial fit.
    """
    from halfspaces.cli import _output
    from halfspaces.dask import read_files

    estimator = _estimator(model, params, defaults)
    regression = model == "linear"
    with dask_client(dask):
        read = {"format": format, "label_column": label_column}
        parts = read_files([str(p) for p in paths], **read)
        with _output.progress(f"fitting {model} on {dask}", None, show_progress):
            fit_time, compile_time, notes = timed(lambda: estimator.fit(parts))
        local = estimator.to_local()
        train = cluster_score(parts, local, regression)
        tested = None
        if test:
            # the training files' index base, not the test files' own guess
            base = "auto" if parts.zero_based is None else parts.zero_based
            test_parts = read_files([str(p) for p in test], n_features=parts.n_features,
                                    zero_based=base, **read)
            tested = (test_parts.n_samples, cluster_score(test_parts, local, regression))
    name = ", ".join(str(p) for p in paths)
    result = report(name, model, estimator, parts.shape, fit_time, notes, None, train=train,
                    test=tested, out=out, compile_time=compile_time)
    from halfspaces.io import detect_format

    save(local, out, detect_format(paths[0], format), parts.zero_based, label_column, None)
    return result


def certify_on_cluster(paths: Sequence[Path], *, dask: str, fit_intercept: bool,
                       label_column, format: str | None) -> dict[str, Any]:
    """The record of ``halfspaces certify`` for files read on the cluster.

    Separability with its certificate, the maximum margin and Novikoff's bound, or for
    inseparable data (or data whose separability cannot be decided) the best
    Freund-Schapire bound, all come from :mod:`halfspaces.dask`: the serial record's
    fields, computed on the cluster, with its ``notes`` for fields whose solver failed.
    """
    import halfspaces.dask as hd
    from halfspaces.cli.certify import optional

    with dask_client(dask):
        parts = hd.read_files([str(p) for p in paths], format=format,
                              label_column=label_column)
        if parts.classes.size != 2:
            raise ValueError(f"certify needs exactly two classes, found {parts.classes.size}.")
        rows = hd.signed_partitions(parts, fit_intercept=fit_intercept)
        found, notes = optional("separable", lambda: hd.separability(
            parts, fit_intercept=fit_intercept))
        # the radius as theory.radius gives it, scaled per partition: entries of 1e200 do
        # not overflow (sqrt(max ||z_i||^2) was inf)
        record: dict[str, Any] = {"data": ", ".join(str(p) for p in paths),
                                  "n_samples": parts.n_samples,
                                  "n_features": parts.n_features,
                                  "fit_intercept": fit_intercept,
                                  "separable": None if found is None else bool(found.separable),
                                  "radius": hd.radius(parts, fit_intercept=fit_intercept)}
        if found is not None and found.separable:
            fields, more = _novikoff_on_cluster(parts, rows, fit_intercept)
        else:
            fields, more = _certificate_on_cluster(rows, found)
    record.update(fields, notes=[*notes, *more])
    return record


def _novikoff_on_cluster(parts, rows, fit_intercept: bool):
    """The maximum margin and Novikoff's bound (R' B)^2: the serial record's fields."""
    import halfspaces.dask as hd
    from halfspaces.cli.certify import NOVIKOFF, optional
    from halfspaces.theory.bounds import mistake_bound

    best, notes = optional("margin, norm_bound, mistake_bound", lambda: hd.max_margin(
        parts, fit_intercept=fit_intercept))
    if best is None:
        return {"margin": None, "norm_bound": None, "mistake_bound": None,
                "mistake_bound_kind": NOVIKOFF}, notes
    # R' = max ||z_i||, scaled per partition as the serial bound's; (R' B)^2 rounded up past
    # its rounding error as the serial bound is, and inf beyond float64 (a Python float's
    # ** 2 raised OverflowError: entries 1e-200 beside the constant 1 give B = 2e200)
    R = rows.max_row_norm()
    n, p = rows.shape
    return {"margin": float(best.margin), "norm_bound": float(best.norm_bound),
            "mistake_bound": mistake_bound(R * best.norm_bound, 0.0, 1.0, n, p),
            "mistake_bound_kind": NOVIKOFF}, notes


def _certificate_on_cluster(rows, found):
    """The certificate's fields (none when separability is undecided) and the best
    Freund-Schapire bound, valid on any data."""
    import scipy.linalg

    from halfspaces.cli.certify import FREUND_SCHAPIRE, optional
    from halfspaces.theory.bounds import best_freund_schapire_bound_of_rows

    fields: dict[str, Any] = {}
    if found is not None:
        a = found.certificate
        # BLAS nrm2 (scipy), not NumPy's sqrt(x.x): residuals of 1e185 (entries 1e200)
        # squared to inf
        fields = {"certificate_support": int(np.count_nonzero(a > 0)),
                  "certificate_residual": float(scipy.linalg.norm(rows.transposed_product(a))),
                  "certificate_exact": bool(found.exact)}
    bound, notes = optional("mistake_bound", lambda: float(
        best_freund_schapire_bound_of_rows(rows).bound))
    return {**fields, "mistake_bound": bound, "mistake_bound_kind": FREUND_SCHAPIRE}, notes
