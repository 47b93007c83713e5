"""Data files read on the workers of a Dask cluster into :class:`Partitions`.

Every file is parsed where it is read, by :mod:`halfspaces.io`'s readers, so the client
never holds the data; the files must be visible at the same paths on every worker (a shared
or network file system). One partition per file, or one per ``rows_per_partition`` rows.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from halfspaces.dask._gather import gather
from halfspaces.dask._partitions import Partitions, _client
from halfspaces.io import (
    check_count,
    column_names,
    detect_format,
    expand_paths,
    iter_chunks,
    scan,
)

__all__ = ["read_files"]


def _scan(path, fmt, label_column, zero_based):
    """The file's :class:`~halfspaces.io.DataInfo` and its feature columns' names."""
    return (scan(path, format=fmt, label_column=label_column, zero_based=zero_based),
            column_names(path, format=fmt, label_column=label_column))


def _read_block(path, fmt, skip, rows, n_features, label_column, zero_based, classes):
    """Rows [skip, skip + rows) of a file (all of it when rows is None), parsed."""
    for X, y in iter_chunks(path, chunk_size=rows, n_features=n_features, format=fmt,
                            label_column=label_column, zero_based=zero_based,
                            classes=classes, skip=skip):
        return X, y
    raise ValueError(f"{path}: no rows from row {skip} on.")


def _agreed(paths, infos, fmt, n_features, zero_based):
    """(n_features, zero_based) for every file: svmlight's widest index and one index base."""
    if fmt == "svmlight":
        zero = (any(i.zero_based for i in infos) if zero_based == "auto"
                else bool(zero_based))
        widths = [i.n_features + (0 if i.zero_based else 1) for i in infos]
        width = max(widths) - (0 if zero else 1)
        return (width if n_features is None else n_features), zero
    widths = {i.n_features for i in infos}
    if len(widths) > 1:
        listed = ", ".join(f"{Path(p).name}: {i.n_features}"
                           for p, i in zip(paths, infos, strict=True))
        raise ValueError(f"the files have different numbers of feature columns ({listed}); "
                         "give every file the same columns.")
    return (widths.pop() if n_features is None else n_features), zero_based


def _agreed_names(paths, names) -> tuple[str, ...] | None:
    """The feature columns' names every file gives, or None where one has none.

    The blocks are read by position: files whose headers name their columns in different
    orders would be stacked silently misaligned, so they are refused by name.
    """
    if any(n is None for n in names):
        return None
    first = names[0]
    for path, other in zip(paths, names, strict=True):
        if other != first:
            raise ValueError(f"{paths[0]} and {path} name different feature columns ("
                             f"{first!r} and {other!r}); the files are read by position: "
                             "give every file the same columns in the same order.")
    return tuple(first)


def read_files(paths: str | os.PathLike | Sequence[str | os.PathLike], *,
               format: str | None = None, label_column: int | str | None = None,
               zero_based: bool | str = "auto", n_features: int | None = None,
               classes: Sequence | None = None, rows_per_partition: int | None = None,
               client=None) -> Partitions:
    """Read svmlight, CSV/TSV or Parquet files on the workers into :class:`Partitions`.

    A first pass on the workers (:func:`halfspaces.io.scan`, one task per file) counts
    each file's rows and finds its width, so that every block gets the same columns
    (svmlight: the widest index over all files, and one index base, 0-based if any file
    uses index 0, as :func:`halfspaces.io.read_svmlight_files` decides); then each block
    is parsed by :func:`halfspaces.io.iter_chunks` on a worker, validated and persisted
    there. The result goes to any estimator or tool of :mod:`halfspaces.dask` as ``X``
    (with ``y=None``): it holds the labels.

    Parameters
    ----------
    paths : str, path or sequence of them
        Files or glob patterns (``"data/part-*.svm"``), each expanded in sorted order; the
        partitions follow that order. Workers must see the same paths.
    format : str or None, default=None
        "svmlight", "csv", "tsv" or "parquet"; None goes by each file's extension.
    label_column : int or str or None, default=None
        Tabular formats: the label column (see :func:`halfspaces.io.read`).
    zero_based : bool or "auto", default="auto"
        svmlight: the index base of all the files.
    n_features : int or None, default=None
        Columns of X; None agrees them across the files.
    classes : sequence or None, default=None
        The allowed labels; a row with another label is an error naming its file and line.
    rows_per_partition : int or None, default=None
        Split each file into blocks of this many rows; None makes one partition per file.
    client : distributed.Client, optional
        Default: the current client.

    Returns
    -------
    Partitions
        Row blocks in file order, then row order; ``partitions.classes`` holds the labels,
        and ``partitions.zero_based`` the index base of svmlight files (pass it to read a
        test set: a file without index 0 would otherwise read as one-based), and
        ``partitions.feature_names`` the names of a CSV/TSV header's or a Parquet schema's
        feature columns, which the estimators keep as ``feature_names_in_``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from distributed import Client, LocalCluster
    >>> from halfspaces.dask import read_files, Perceptron
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "part-0.svm").write_text("1 1:2 2:1\\n1 1:1 2:3\\n")
    >>> _ = (folder / "part-1.svm").write_text("-1 1:-1 2:-2\\n-1 1:-2 2:-1\\n")
    >>> with LocalCluster(n_workers=2, processes=False) as cluster, Client(cluster):
    ...     parts = read_files(folder / "part-*.svm")
    ...     clf = Perceptron().fit(parts)
    >>> parts.n_rows.tolist(), clf.predict([[3.0, 3.0], [-3.0, -1.0]]).tolist()
    ([2, 2], [1.0, -1.0])
    """
    if rows_per_partition is not None:  # 2.5, True or "3" failed on the workers, or deep in range
        rows_per_partition = check_count(rows_per_partition, "rows_per_partition",
                                         "None (one partition per file) or a positive "
                                         "number of rows")
    client = _client(client)
    files = expand_paths(paths)
    formats = {detect_format(p, format) for p in files}
    if len(formats) > 1 or formats & {"npy", "npz"}:
        raise ValueError(f"the files are in formats {sorted(formats)}; read_files takes "
                         "files of one format among svmlight, csv and parquet.")
    fmt = formats.pop()
    scanned = gather(client, [client.submit(_scan, p, fmt, label_column, zero_based,
                                            pure=True) for p in files])
    infos = [info for info, _ in scanned]
    width, zero = _agreed(files, infos, fmt, n_features, zero_based)
    names = _agreed_names(files, [n for _, n in scanned])
    if names is not None and len(names) != width:  # n_features given, wider or narrower
        names = None
    blocks = []
    for path, info in zip(files, infos, strict=True):
        if info.n_samples == 0:  # an empty file gives no partition (and no step of 0 rows)
            continue
        step = rows_per_partition or info.n_samples
        for skip in range(0, info.n_samples, step):
            blocks.append(client.submit(
                _read_block, path, fmt, skip, rows_per_partition, width, label_column, zero,
                classes, pure=True))
    if not blocks:
        raise ValueError(f"{', '.join(files)}: the files hold no samples.")
    parts = Partitions.from_blocks(blocks, client)
    return replace(parts, zero_based=bool(zero)) if fmt == "svmlight" else \
        replace(parts, feature_names=names)
