"""Exact equality of fitted models, the oracle of every round trip through a model file:
the same attributes, values, dtypes and types, bit for bit (NaN equal to NaN)."""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.sparse as sp


def assert_same(a, b, where="model"):
    """Exact equality of two values of the kinds a model file holds, types included."""
    assert type(a) is type(b), f"{where}: {type(a)} != {type(b)}"
    if isinstance(a, np.ndarray) or isinstance(a, np.generic):
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), where
    elif sp.issparse(a):
        assert a.shape == b.shape and (a != b).nnz == 0, where
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (u, v) in enumerate(zip(a, b, strict=True)):
            assert_same(u, v, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, np.random.RandomState):
        assert_same(list(a.get_state()), list(b.get_state()), where)
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b), where
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def assert_same_model(a, b):
    assert vars(a).keys() == vars(b).keys()
    for key in vars(a):
        assert_same(getattr(a, key), getattr(b, key), key)
