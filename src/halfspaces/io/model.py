"""Model files: a versioned, documented format that never unpickles or executes anything.

Format (versions 1 to 3)
------------------------
A model file is a ZIP archive in NumPy's ``.npz`` layout, written at exactly the given path
whatever its extension. It holds:

* ``__halfspaces__.npy``: the UTF-8 bytes of a JSON document (a uint8 array) with the keys
  ``format`` ("halfspaces-model"), ``version`` (3 for the exact ERM classifiers, whose
  ``class_weight`` version 3 added; 2 for the kernel perceptrons, whose ``margin`` and
  ``burn_in`` version 2 added; 1 for every other class, which version 1 already held as it
  is now), ``library`` (the writer's version),
  ``class`` (the name of an estimator :mod:`halfspaces` exports, as listed in
  :data:`halfspaces._registry.ESTIMATORS`), ``params`` (from ``get_params()``), ``state``
  (every other instance attribute) and ``extra`` (any JSON the caller adds, e.g. a
  checkpoint's progress);
* one ``a<N>.npy`` per array, referred to from the JSON as ``{"$array": "a<N>"}``.

Values in ``params``, ``state`` and ``extra`` are JSON scalars (floats as ``{"$float":
"nan"}`` when not finite), or tagged objects: ``$array`` (an ndarray; an array of Python
``str`` objects, such as the classes of labels from a pandas Series, is stored as a
fixed-width Unicode array and loads as one; other object arrays are refused), ``$scalar`` (a
NumPy scalar, kept as a 0-d array), ``$sparse`` (CSR/CSC/COO matrix or array, as its
component arrays), ``$list``, ``$tuple``, ``$dict`` (string keys), ``$pairs`` (a dict with
other keys, numbers such as a ``class_weight``'s labels: a list of ``[key, value]`` pairs),
``$random_state`` (a
NumPy RandomState, as its Mersenne-Twister state) and ``$state`` (one of the library's own
state dataclasses, by name, from the registry :data:`STATE_CLASSES`).
Anything else is refused when saving, with the estimator and attribute named. Loading
builds only the classes those two registries name, refuses files from a newer format
version, reads only the arrays the JSON refers to (each .npy header checked before its data
is read: no Python objects, a size that matches the member, and all of them together within
:data:`MAX_EXPANSION` times the file's size; :mod:`halfspaces.io._members`), checks the
parameters against the class's declared constraints and the fitted state against its schema
(:func:`halfspaces.io._state.check_state`: names, dtypes, shapes, finiteness, index ranges),
and only then builds the model. Anything that fails is a :class:`ModelFileError` naming the
file. A model may come through a pipe or FIFO (``predict <(cat model.hs) data.svm``): it is
then read into memory first, up to half of the memory this process may use.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import os
import stat
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from halfspaces._registry import ESTIMATORS, STATE_CLASSES, estimator_class, state_class
from halfspaces._sklearn import check_params
from halfspaces._version import __version__ as _VERSION
from halfspaces.exceptions import ModelFileError, shown
from halfspaces.io._members import Members, references
from halfspaces.io._npfiles import memory_budget
from halfspaces.io._state import check_state
from halfspaces.io._write import safe_write

# ModelFileError is defined with the other public exceptions (halfspaces.exceptions) and
# exported here too, where it has always been importable
__all__ = ["FORMAT_VERSION", "STATE_CLASSES", "ModelFileError", "load", "load_with_extra",
           "save"]

FORMAT_NAME = "halfspaces-model"
FORMAT_VERSION = 3
"""The newest model format this version reads and writes. Version 2 added the kernel
perceptrons' ``margin`` and ``burn_in`` (and ``_burn_in``); version 3 the ``class_weight``
of the exact ERM classifiers (a dict keyed by numbers stored as ``$pairs``); a file is
written in the oldest version that holds its class (:data:`FIRST_VERSION`), so that an older
halfspaces reads what it can and names the version of what it cannot, rather than calling
it corrupt (it would refuse the unknown parameter)."""
FIRST_VERSION = {"KernelPerceptron": 2, "VotedKernelPerceptron": 2,
                 "LinearProgramClassifier": 3, "MaxMarginClassifier": 3,
                 "ZeroOneERMClassifier": 3}
"""The format version that first held each class's current parameters (1 where absent)."""
META = "__halfspaces__"

MAX_EXPANSION = 32
"""The arrays of a model file may take at most this many times the file's size in memory
(plus 1 MiB). :func:`save` stores arrays uncompressed (ratio 1), so only a compressed
archive comes near it, and a "zip bomb" (a small file declaring gigabytes of zeros) is
refused before anything is decompressed."""

_CHUNK = 2**20
# What a damaged or hostile file can raise while being read, decoded or checked: each becomes
# a ModelFileError naming the file. RecursionError (a RuntimeError, as are the archive's
# "encrypted" and "unsupported compression" errors) comes from JSON nested thousands deep,
# OverflowError from an integer too large for C (a random state's position), MemoryError
# from whatever allocation still fails within MAX_EXPANSION.
_DAMAGE = (zipfile.BadZipFile, zlib.error, ValueError, KeyError, IndexError, TypeError,
           AttributeError, EOFError, OSError, RuntimeError, OverflowError, MemoryError)

_SPARSE_FORMATS = {"csr": ("data", "indices", "indptr"), "csc": ("data", "indices", "indptr"),
                   "coo": ("data", "row", "col")}


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
    halfspaces.OutputFileError
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
    if estimator_class(name) is not type(model):
        raise ModelFileError(f"cannot save a {type(model).__module__}.{name}: only the "
                             f"estimators of halfspaces ({', '.join(ESTIMATORS)}) "
                             "can be saved.")
    arrays: dict[str, np.ndarray] = {}
    params = model.get_params(deep=False)
    state = {k: v for k, v in vars(model).items() if k not in params}
    document = {
        "format": FORMAT_NAME, "version": FIRST_VERSION.get(name, 1), "library": _VERSION,
        "class": name,
        "params": {k: _encode(v, arrays, f"{name} parameter {k!r}") for k, v in params.items()},
        "state": {k: _encode(v, arrays, f"{name} attribute {k!r}") for k, v in state.items()},
        "extra": _encode(extra or {}, arrays, "extra"),
    }
    text = json.dumps(document, allow_nan=False).encode()
    arrays[META] = np.frombuffer(text, dtype=np.uint8)
    return safe_write(path, lambda handle: np.savez(handle, **arrays))


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
    """Like :func:`load`, also returning the `extra` data given to :func:`save`.

    Parameters
    ----------
    path : str or os.PathLike
        The model file.

    Returns
    -------
    model : estimator
        The fitted estimator.
    extra : dict
        The `extra` given to :func:`save` (empty if none).
    """
    document, arrays = _read(path)
    cls = estimator_class(document.get("class"))
    if cls is None:
        raise ModelFileError(f"{shown(path)}: unknown estimator class {document.get('class')!r}")
    decode = _Decoder(arrays, path)
    try:
        params = _decode_each(decode, _members(document, "params"), "parameter")
        model = cls(**params)
        check_params(model)
        state = _decode_each(decode, _members(document, "state"), "attribute")
        check_state(cls, params, state)
        if state.get("feature_names_in_") is not None:  # scikit-learn's type: str objects
            state["feature_names_in_"] = state["feature_names_in_"].astype(object)
        for key, value in state.items():
            setattr(model, key, value)
        extra = decode(document.get("extra", {"$dict": {}}))
        if not isinstance(extra, dict):
            raise ValueError(f"'extra' is a {type(extra).__name__}, not a dict")
    except _DAMAGE as exc:
        raise ModelFileError(f"{shown(path)}: corrupt model file ({_describe(exc)})") from None
    return model, extra


def _members(document: dict, key: str) -> dict:
    value = document.get(key, {})
    if not isinstance(value, dict):
        raise ValueError(f"{key!r} is a {type(value).__name__}, not an object")
    return value


class _Damaged(ValueError):
    """A damaged value, its message already naming where it is."""


def _decode_each(decode, mapping: dict, what: str) -> dict:
    """Decode every value of `mapping`; an error names the key it came from."""
    decoded = {}
    for key, value in mapping.items():
        try:
            decoded[key] = decode(value)
        except _DAMAGE as exc:
            raise _Damaged(f"{what} {key!r}: {_describe(exc)}") from None
    return decoded


def _describe(exc: BaseException) -> str:
    if isinstance(exc, _Damaged):
        return str(exc)
    kind = {RecursionError: "nested too deeply", OverflowError: "a number out of range",
            MemoryError: "too large for memory"}.get(type(exc))
    text = " ".join(str(exc).split())[:300]
    return f"{kind}: {text}" if kind else f"{type(exc).__name__}: {text}"


def _read(path) -> tuple[dict, dict[str, np.ndarray]]:
    source, size, head = _source(path)
    if head[:1] == b"\x80":
        raise ModelFileError(f"{shown(path)} is a pickle, not a halfspaces model file; halfspaces "
                             "never unpickles (it could run code). Re-save the model with "
                             "halfspaces.save.")
    if head != b"PK\x03\x04":
        raise ModelFileError(f"{shown(path)} is not a halfspaces model file")
    try:
        with zipfile.ZipFile(source) as archive:
            members = Members(archive, size, MAX_EXPANSION)
            text = members.read(META)
            if text.dtype != np.uint8 or text.ndim != 1:
                raise ValueError(f"{META} is not a byte string")
            document = json.loads(text.tobytes().decode())
            _check_header(path, document)
            arrays = {key: members.read(key) for key in sorted(references(document))}
    except ModelFileError:
        raise
    except _DAMAGE as exc:
        raise ModelFileError(f"{shown(path)}: corrupt or truncated model file ({_describe(exc)})") \
            from None
    return document, arrays


def _source(path) -> tuple[str | os.PathLike | io.BytesIO, int, bytes]:
    """(what to open the archive from, its size, its first 4 bytes): a regular file by its
    path; a pipe's or FIFO's content read once into memory, since a ZIP archive is read from
    its end, which a pipe cannot seek to (and a FIFO opened again waits for a new writer)."""
    try:
        with open(path, "rb") as handle:
            found = os.fstat(handle.fileno())
            if stat.S_ISREG(found.st_mode):
                return path, found.st_size, handle.read(4)
            content = _read_within(handle, memory_budget())
    except OSError as exc:
        raise ModelFileError(f"cannot read {shown(path)}: {exc.strerror or exc}") from None
    if content is None:
        raise ModelFileError(f"{shown(path)}: a model read from a pipe is held in memory, and this "
                             "one is larger than half of it; save it to a file first")
    return io.BytesIO(content), len(content), content[:4]


def _read_within(handle, budget: int) -> bytes | None:
    """All of `handle`, a chunk at a time (read(budget) would allocate the budget at once);
    None once it holds more than `budget` bytes."""
    chunks, total = [], 0
    while chunk := handle.read(_CHUNK):
        chunks.append(chunk)
        total += len(chunk)
        if total > budget:
            return None
    return b"".join(chunks)


def _check_header(path, document) -> None:
    if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
        raise ModelFileError(f"{shown(path)} is not a halfspaces model file")
    version = document.get("version")
    if type(version) is not int or version < 1:
        raise ModelFileError(f"{shown(path)}: the model format version must be a positive integer, "
                             f"not {json.dumps(version)[:40]}: the file is damaged")
    if version > FORMAT_VERSION:
        raise ModelFileError(f"{shown(path)} was written in model format version {version} (by "
                             f"halfspaces {document.get('library')}); this halfspaces "
                             f"({_VERSION}) reads version {FORMAT_VERSION} and "
                             "older: upgrade halfspaces.")


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


# the keys a dict may have besides strings: labels (a class_weight's keys), as scalars
_KEY_TYPES = (bool, int, float, np.integer, np.floating, np.bool_, np.str_)


def _encode_dict(value: dict, arrays: dict, where: str) -> dict:
    if all(isinstance(k, str) for k in value):
        return {"$dict": {k: _encode(v, arrays, f"{where}[{k!r}]") for k, v in value.items()}}
    # JSON objects have string keys only: a dict keyed by numbers (class_weight={0: 1.0,
    # 1: 5.0}) is stored as its (key, value) pairs, each key keeping its type
    for k in value:
        if not isinstance(k, (str, *_KEY_TYPES)):
            raise ModelFileError(f"cannot save {where}: a dict with a key of type "
                                 f"{type(k).__name__} (keys are strings or numbers)")
    return {"$pairs": [[_encode(k, arrays, f"{where} key {k!r}"),
                        _encode(v, arrays, f"{where}[{k!r}]")] for k, v in value.items()]}


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
        "halfspaces._registry.STATE_CLASSES if it is a library state dataclass).")


def _put(array: np.ndarray, arrays: dict, where: str) -> str:
    if array.dtype.hasobject:
        array = _as_text(array, where)
    key = f"a{len(arrays)}"
    arrays[key] = array
    return key


def _as_text(array: np.ndarray, where: str) -> np.ndarray:
    """An object array of ``str`` as a fixed-width Unicode array (a file never holds Python
    objects); any other object array is refused, naming `where`.

    Labels read from a pandas Series of strings make ``classes_`` such an array, and
    scikit-learn keeps a DataFrame's column names (``feature_names_in_``) as one. A Unicode
    array drops trailing NUL characters, so a string ending in one is refused rather than
    saved as another label.
    """
    if array.dtype != object or not all(isinstance(item, str) for item in array.flat):
        raise ModelFileError(f"cannot save {where}: an array of Python objects "
                             f"(dtype={array.dtype}) whose items are not all strings")
    text = array.astype(str)
    if text.tolist() != array.tolist():
        raise ModelFileError(f"cannot save {where}: a string ending in a NUL character "
                             "('\\x00'), which a model file's Unicode arrays cannot hold")
    return text


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

    def _dict(self, items):
        if not isinstance(items, dict):
            raise ValueError("a $dict that is not an object")
        return {k: self(v) for k, v in items.items()}

    def _pairs(self, items):
        if not isinstance(items, list) or not all(
                isinstance(pair, list) and len(pair) == 2 for pair in items):
            raise ValueError("a $pairs that is not a list of [key, value] pairs")
        decoded = {}
        for key, value in items:
            key = self(key)
            if not isinstance(key, (str, *_KEY_TYPES)):
                raise ValueError(f"a $pairs key of type {type(key).__name__}")
            if key in decoded:
                raise ValueError(f"a $pairs key {key!r} given twice")
            decoded[key] = self(value)
        return decoded

    def _scalar(self, key):
        array = self.arrays[key]
        if array.ndim != 0:
            raise ValueError(f"a $scalar of shape {array.shape}")
        return array[()]

    def _float(self, text):
        if not isinstance(text, str):
            raise ValueError(f"a $float of {text!r}")
        return float(text)

    def _list(self, items):
        return [self(v) for v in items]

    def _tuple(self, items):
        return tuple(self(v) for v in items)

    def _sparse(self, body):
        import scipy.sparse as sp

        if body["kind"] not in ("matrix", "array"):
            raise ValueError(f"a sparse kind {body['kind']!r}")
        parts = tuple(self.arrays[body[p]] for p in _SPARSE_FORMATS[body["format"]])
        args = (parts[0], (parts[1], parts[2])) if body["format"] == "coo" else parts
        cls = getattr(sp, f"{body['format']}_{body['kind']}")
        shape = tuple(body["shape"])
        if len(shape) != 2 or not all(type(n) is int and 0 <= n < 2**63 for n in shape):
            raise ValueError(f"a sparse shape {shape}")
        return cls(args, shape=shape)

    def _random_state(self, body):
        keys, pos = self.arrays[body["keys"]], body["pos"]
        if keys.shape != (624,) or keys.dtype.kind not in "ui" or type(pos) is not int \
                or not 0 <= pos <= 624:
            raise ValueError("a Mersenne-Twister state with other than 624 keys, or a "
                             "position outside [0, 624]")
        rng = np.random.RandomState()
        rng.set_state(("MT19937", keys, pos, body["has_gauss"], body["cached"]))
        return rng

    def _state(self, value):
        name = value["$state"]
        cls = state_class(name)
        if cls is None:
            raise ValueError(f"unknown state class {name!r}")
        fields = value["fields"]
        if not isinstance(fields, dict):
            raise ValueError(f"the fields of a {name} are not an object")
        return cls(**{k: self(v) for k, v in fields.items()})
