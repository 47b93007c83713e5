"""Model files: a versioned, documented format that never unpickles or executes anything.

Format (version 1)
------------------
A model file is a ZIP archive in NumPy's ``.npz`` layout, written at exactly the given path
whatever its extension. It holds:

* ``__halfspaces__.npy``: the UTF-8 bytes of a JSON document (a uint8 array) with the keys
  ``format`` ("halfspaces-model"), ``version`` (1), ``library`` (the writer's version),
  ``class`` (an estimator name exported by :mod:`halfspaces`), ``params`` (from
  ``get_params()``), ``state`` (every other instance attribute) and ``extra`` (any JSON the
  caller adds, e.g. a checkpoint's progress);
* one ``a<N>.npy`` per array, referred to from the JSON as ``{"$array": "a<N>"}``.

Values in ``params``, ``state`` and ``extra`` are JSON scalars (floats as ``{"$float":
"nan"}`` when not finite), or tagged objects: ``$array`` (an ndarray; object arrays are
refused), ``$scalar`` (a NumPy scalar, kept as a 0-d array), ``$sparse`` (CSR/CSC/COO
matrix or array, as its component arrays), ``$list``, ``$tuple``, ``$dict`` (string keys),
``$random_state`` (a NumPy RandomState, as its Mersenne-Twister state) and ``$state`` (one of
the library's own state dataclasses, by name, from the registry :data:`STATE_CLASSES`).
Anything else is refused when saving, with the estimator and attribute named. Loading
builds the class from the names :mod:`halfspaces` exports, reads every array with
``allow_pickle=False`` and refuses files from a newer format version.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from halfspaces.io._write import safe_write

__all__ = ["FORMAT_VERSION", "STATE_CLASSES", "ModelFileError", "load", "load_with_extra",
           "save"]

FORMAT_NAME = "halfspaces-model"
FORMAT_VERSION = 1
META = "__halfspaces__"

STATE_CLASSES = {
    "PerceptronState": "halfspaces._perceptron_run",
}
"""The library's own state dataclasses that model files may hold: name -> module."""

_SPARSE_FORMATS = {"csr": ("data", "indices", "indptr"), "csc": ("data", "indices", "indptr"),
                   "coo": ("data", "row", "col")}


class ModelFileError(ValueError):
    """A model cannot be saved, or a file is not a model file this version can load."""


def save(model: Any, path: str | os.PathLike, *, extra: dict | None = None) -> Path:
    """Write a fitted (or unfitted) estimator of :mod:`halfspaces` to `path`, atomically.

    The file is written next to `path` under a temporary name, flushed to disk (fsync) and
    renamed over `path`, so a reader (or a crash) sees either the old file or the new one,
    never half of one. A new file's mode follows the umask and a replaced file keeps its
    mode; an existing FIFO or character device is written directly
    (:func:`halfspaces.io.safe_write`).

    Parameters
    ----------
    model : estimator
        An instance of a class exported by :mod:`halfspaces`.
    path : str or os.PathLike
        The file to write, exactly (no extension is added).
    extra : dict or None, default=None
        JSON-able data stored beside the model (see :func:`load_with_extra`).

    Returns
    -------
    Path
        `path`.

    Raises
    ------
    ModelFileError
        If the model is not a halfspaces estimator, or holds an attribute the format cannot
        store (the message names it).
    halfspaces.io.OutputFileError
        If `path` cannot be written (a directory, a missing directory, a full disk); `path`
        is then left as it was.

    Examples
    --------
    >>> import numpy as np, pathlib, tempfile, halfspaces
    >>> X, y = np.array([[1.0, 2.0], [-1.0, -2.0]]), np.array([1, 0])
    >>> model = halfspaces.Perceptron().fit(X, y)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "model.hs"
    >>> _ = halfspaces.save(model, path)
    >>> halfspaces.load(path).predict(X)
    array([1, 0])
    """
    name = type(model).__name__
    if _estimator_classes().get(name) is not type(model):
        raise ModelFileError(f"cannot save a {type(model).__module__}.{name}: only the "
                             f"estimators of halfspaces ({', '.join(_estimator_classes())}) "
                             "can be saved.")
    arrays: dict[str, np.ndarray] = {}
    params = model.get_params(deep=False)
    state = {k: v for k, v in vars(model).items() if k not in params}
    document = {
        "format": FORMAT_NAME, "version": FORMAT_VERSION, "library": _library_version(),
        "class": name,
        "params": {k: _encode(v, arrays, f"{name} parameter {k!r}") for k, v in params.items()},
        "state": {k: _encode(v, arrays, f"{name} attribute {k!r}") for k, v in state.items()},
        "extra": _encode(extra or {}, arrays, "extra"),
    }
    text = json.dumps(document, allow_nan=False).encode()
    arrays[META] = np.frombuffer(text, dtype=np.uint8)
    return atomic_write(path, lambda handle: np.savez(handle, **arrays))


def atomic_write(path: str | os.PathLike, write) -> Path:
    """Call ``write(binary_handle)`` to produce `path` through :func:`halfspaces.io.safe_write`.

    A regular file is written under a temporary name beside it, fsynced and renamed over it
    (on any error `path` is left as it was); a new file's mode follows the umask and a
    replaced file keeps its mode; an existing FIFO or character device is written directly.
    """
    return safe_write(path, write)


def load(path: str | os.PathLike) -> Any:
    """Read a model written by :func:`save`.

    Parameters
    ----------
    path : str or os.PathLike
        The model file.

    Returns
    -------
    estimator
        A new instance of the saved class with the saved parameters and fitted state.

    Raises
    ------
    ModelFileError
        If the file is not a halfspaces model file (e.g. a pickle), is corrupt or truncated,
        or comes from a newer format version.
    """
    return load_with_extra(path)[0]


def load_with_extra(path: str | os.PathLike) -> tuple[Any, dict]:
    """Like :func:`load`, also returning the `extra` data given to :func:`save`."""
    document, arrays = _read(path)
    cls = _estimator_classes().get(document.get("class"))
    if cls is None:
        raise ModelFileError(f"{path}: unknown estimator class {document.get('class')!r}")
    decode = _Decoder(arrays, path)
    try:
        model = cls(**{k: decode(v) for k, v in document["params"].items()})
        for key, value in document["state"].items():
            setattr(model, key, decode(value))
        extra = decode(document.get("extra", {"$dict": {}}))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ModelFileError(f"{path}: corrupt model file ({type(exc).__name__}: {exc})") \
            from None
    return model, extra


def _read(path) -> tuple[dict, dict[str, np.ndarray]]:
    try:
        with open(path, "rb") as handle:
            head = handle.read(4)
    except OSError as exc:
        raise ModelFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if head[:1] == b"\x80":
        raise ModelFileError(f"{path} is a pickle, not a halfspaces model file; halfspaces "
                             "never unpickles (it could run code). Re-save the model with "
                             "halfspaces.save.")
    if head != b"PK\x03\x04":
        raise ModelFileError(f"{path} is not a halfspaces model file")
    try:
        with np.load(os.fspath(path), allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
        document = json.loads(arrays.pop(META).tobytes().decode())
    except (zipfile.BadZipFile, ValueError, KeyError, EOFError, OSError) as exc:
        raise ModelFileError(f"{path}: corrupt or truncated model file ({exc})") from None
    _check_header(path, document)
    return document, arrays


def _check_header(path, document) -> None:
    if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
        raise ModelFileError(f"{path} is not a halfspaces model file")
    version = document.get("version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ModelFileError(f"{path} was written in model format version {version} (by "
                             f"halfspaces {document.get('library')}); this halfspaces "
                             f"({_library_version()}) reads version {FORMAT_VERSION} and "
                             "older: upgrade halfspaces.")


def _estimator_classes() -> dict[str, type]:
    """The whitelist: estimator classes exported by :mod:`halfspaces`, by name."""
    from sklearn.base import BaseEstimator

    import halfspaces

    classes = {}
    for name in halfspaces._LAZY:
        try:
            value = getattr(halfspaces, name)
        except (ImportError, AttributeError):  # a module still being written
            continue
        if isinstance(value, type) and issubclass(value, BaseEstimator):
            classes[name] = value
    return classes


def _library_version() -> str:
    import halfspaces

    return halfspaces.__version__


def _encode(value: Any, arrays: dict, where: str) -> Any:
    """JSON for `value`, moving arrays into `arrays`; ModelFileError names `where`."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int) and not isinstance(value, np.integer):
        return value
    if isinstance(value, float) and not isinstance(value, np.floating):
        return value if math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, np.generic):
        return {"$scalar": _put(np.asarray(value), arrays, where)}
    if isinstance(value, np.ndarray):
        return {"$array": _put(value, arrays, where)}
    if isinstance(value, (list, tuple)):
        tag = "$list" if isinstance(value, list) else "$tuple"
        return {tag: [_encode(v, arrays, f"{where}[{i}]") for i, v in enumerate(value)]}
    if isinstance(value, dict):
        return _encode_dict(value, arrays, where)
    return _encode_object(value, arrays, where)


def _encode_dict(value: dict, arrays: dict, where: str) -> dict:
    if not all(isinstance(k, str) for k in value):
        raise ModelFileError(f"cannot save {where}: a dict with non-string keys")
    return {"$dict": {k: _encode(v, arrays, f"{where}[{k!r}]") for k, v in value.items()}}


def _encode_object(value: Any, arrays: dict, where: str) -> dict:
    import scipy.sparse as sp

    if sp.issparse(value) and value.format in _SPARSE_FORMATS:
        parts = {p: _put(getattr(value, p), arrays, where) for p in _SPARSE_FORMATS[value.format]}
        kind = "matrix" if isinstance(value, sp.spmatrix) else "array"
        return {"$sparse": {"format": value.format, "kind": kind, "shape": list(value.shape),
                            **parts}}
    if isinstance(value, np.random.RandomState):
        name, keys, pos, has_gauss, cached = value.get_state(legacy=True)
        return {"$random_state": {"keys": _put(keys, arrays, where), "pos": int(pos),
                                  "has_gauss": int(has_gauss), "cached": float(cached)}}
    qualname = type(value).__name__
    if dataclasses.is_dataclass(value) and STATE_CLASSES.get(qualname) == type(value).__module__:
        fields = {f.name: _encode(getattr(value, f.name), arrays, f"{where}.{f.name}")
                  for f in dataclasses.fields(value)}
        return {"$state": qualname, "fields": fields}
    raise ModelFileError(
        f"cannot save {where}: a {type(value).__module__}.{qualname} is not among the types "
        "a halfspaces model file can hold (add its class to "
        "halfspaces.io.model.STATE_CLASSES if it is a library state dataclass).")


def _put(array: np.ndarray, arrays: dict, where: str) -> str:
    if array.dtype.hasobject:
        raise ModelFileError(f"cannot save {where}: an array of Python objects (dtype=object)")
    key = f"a{len(arrays)}"
    arrays[key] = array
    return key


class _Decoder:
    """Rebuilds the values :func:`_encode` wrote, from the JSON and the archive's arrays."""

    def __init__(self, arrays: dict, path) -> None:
        self.arrays, self.path = arrays, path

    def __call__(self, value: Any) -> Any:
        if isinstance(value, list):
            raise ValueError("an untagged list")
        if not isinstance(value, dict):
            return value
        if "$state" in value:
            return self._state(value)
        if len(value) != 1:
            raise ValueError(f"an object with keys {sorted(value)} is not a tagged value")
        ((tag, body),) = value.items()
        handler = getattr(self, "_" + tag[1:], None) if tag[:1] == "$" else None
        if handler is None:
            raise ValueError(f"unknown tag {tag!r}")
        return handler(body)

    def _array(self, key):
        return self.arrays[key]

    def _scalar(self, key):
        return self.arrays[key][()]

    def _float(self, text):
        return float(text)

    def _list(self, items):
        return [self(v) for v in items]

    def _tuple(self, items):
        return tuple(self(v) for v in items)

    def _dict(self, items):
        return {k: self(v) for k, v in items.items()}

    def _sparse(self, body):
        import scipy.sparse as sp

        parts = tuple(self.arrays[body[p]] for p in _SPARSE_FORMATS[body["format"]])
        args = (parts[0], (parts[1], parts[2])) if body["format"] == "coo" else parts
        cls = getattr(sp, f"{body['format']}_{body['kind']}")
        return cls(args, shape=tuple(body["shape"]))

    def _random_state(self, body):
        rng = np.random.RandomState()
        rng.set_state(("MT19937", self.arrays[body["keys"]], body["pos"], body["has_gauss"],
                       body["cached"]))
        return rng

    def _state(self, value):
        name = value["$state"]
        if name not in STATE_CLASSES:
            raise ValueError(f"unknown state class {name!r}")
        cls = getattr(importlib.import_module(STATE_CLASSES[name]), name)
        return cls(**{k: self(v) for k, v in value["fields"].items()})
