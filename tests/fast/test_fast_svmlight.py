"""The compiled svmlight parser (:mod:`halfspaces._fast.svmlight`) against scikit-learn's.

The compiled loop reads the plain common case and declines the rest, which scikit-learn's
parser then reads; where it reads a file, it must give exactly scikit-learn's numbers, bit
for bit (signs of zeros included). Small enough to run as plain Python too
(``NUMBA_DISABLE_JIT=1``, as in ``.ci/run``).
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

from halfspaces._fast import svmlight as fast
from halfspaces.io import DataFileError, read

NUMBERS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr),
    st.integers(-10**20, 10**20).map(str),
    st.from_regex(r"\A[+-]?[0-9]{0,21}\.?[0-9]{0,21}([eE][+-]?[0-9]{1,3})?\Z"),
)
ROWS = st.lists(st.tuples(NUMBERS, st.lists(NUMBERS, max_size=4)), min_size=1, max_size=6)
# what the compiled loop promises to read: plain decimals, [+-]digits[.digits][e[+-]digits]
PLAIN = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")


def svmlight_text(rows) -> bytes:
    lines = [" ".join([label] + [f"{i + 1}:{v}" for i, v in enumerate(values)])
             for label, values in rows]
    return ("\n".join(lines) + "\n").encode()


def assert_bits_equal(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a, b) and np.array_equal(np.signbit(a), np.signbit(b))


def assert_parses_like_sklearn(text: bytes):
    status, y, indptr, indices, data, width = fast.parse(text)
    assert status == fast.OK
    X_ref, y_ref = load_svmlight_file(io.BytesIO(text), dtype=np.float64, zero_based=True)
    assert_bits_equal(y, y_ref)
    assert_bits_equal(data, X_ref.data)
    assert np.array_equal(indptr, X_ref.indptr) and np.array_equal(indices, X_ref.indices)
    assert width == X_ref.shape[1] or (width == 0 and X_ref.nnz == 0)


@settings(max_examples=300, deadline=None)
@given(rows=ROWS)
def test_parse_equals_sklearn_bit_for_bit(rows):
    text = svmlight_text(rows)
    tokens = [token for label, values in rows if label or values for token in [label, *values]]
    plain = all(PLAIN.match(token) for token in tokens)  # a row of nothing is a blank line
    if plain:
        assert_parses_like_sklearn(text)
    else:
        assert fast.parse(text)[0] == fast.FALLBACK


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS)
def test_read_equals_sklearn_bit_for_bit(tmp_path, rows):
    path = tmp_path / "n.svm"
    path.write_bytes(svmlight_text(rows))
    try:
        X_ref, y_ref = load_svmlight_file(str(path), zero_based=False, n_features=4)
    except ValueError:
        with pytest.raises(DataFileError, match=r", line \d+: "):
            read(path, zero_based=False, n_features=4)
        return
    if X_ref.shape[0] == 0:  # scikit-learn returns an empty matrix; we name the file
        with pytest.raises(DataFileError, match=r"n\.svm: the file holds no samples"):
            read(path, zero_based=False, n_features=4)
        return
    if not (np.isfinite(X_ref.data).all() and np.isfinite(y_ref).all()):
        with pytest.raises(DataFileError, match="NaN and infinity"):
            read(path, zero_based=False, n_features=4)
        return
    X, y = read(path, zero_based=False, n_features=4)
    assert_bits_equal(y, y_ref)
    assert_bits_equal(X.toarray(), X_ref.toarray())
    assert X.nnz == X_ref.nnz and np.array_equal(np.signbit(X.data), np.signbit(X_ref.data))


def test_parse_takes_the_common_case(tmp_path):
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(57, 5)) * (rng.random((57, 5)) < 0.6), 3)
    y = np.where(X[:, 0] + 0.1 * rng.normal(size=57) > 0, 1.0, -1.0)
    path = tmp_path / "d.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    assert_parses_like_sklearn(path.read_bytes())


@pytest.mark.parametrize("text", [
    b"# a comment line\n\n1 1:1 3:2.5 # a trailing comment\n-1\n  +1 2:-0 4:1e-5\n",
    b"1 1:0.1 2:12345678901234567890 3:1.7976931348623157e308 4:5e-324\n",
    b"-0 1:-0.0\n1e400 2:1e400\n",
])
def test_parse_reads_comments_blanks_and_extreme_numbers(text):
    assert_parses_like_sklearn(text)


# the shorter paths for whole numbers (1-15 digits) and indices (1-9 digits), at and past
# their limits, where the general path (or the fallback) must take over with the same result
WHOLE_EDGES = [
    b"7 1:123456789012345 2:1234567890123456 3:9007199254740993 4:9999999999999999\n",
    b"-0 1:007 2:-0 3:+5 4:-000000000000000000001\n",
    b"+123456789012345 1:1\n-1234567890123456 2:1\n000 3:0\n",
    b"1 123456789:1 1234567890:2 2147483647:3\n",
    b"1 000000000000012:4 +13:5\n",
    b"1 1:1#comment right after\n2 2:2\t3:3\r\n3 4:4",
]


@pytest.mark.parametrize("text", WHOLE_EDGES)
def test_whole_numbers_and_long_indices_parse_like_sklearn(text):
    assert_parses_like_sklearn(text)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(
    st.integers(-10**17, 10**17),
    st.lists(st.tuples(st.integers(0, 2**31 - 1), st.integers(-10**17, 10**17)),
             max_size=5)), min_size=1, max_size=5))
def test_whole_numbers_at_any_index_parse_like_sklearn(rows):
    lines = [" ".join([str(label)] + [f"{i}:{v}" for i, v in sorted(dict(pairs).items())])
             for label, pairs in rows]
    assert_parses_like_sklearn(("\n".join(lines) + "\n").encode())


@pytest.mark.parametrize("text", [
    b"1 2147483648:1\n",
    b"1 qid:3 1:1\n", b"1 1:nan\n", b"1 2:1 1:1\n", b"1 1:1 1:2\n", b"1 1_0:1\n",
    b"1 1:0x10\n", b"1 1:1:1\n", b"yes 1:1\n", b"1 1:\n",
])
def test_parse_declines_what_only_sklearn_reads_or_rejects(text):
    assert fast.parse(text)[0] == fast.FALLBACK
