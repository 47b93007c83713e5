"""Property tests of the readers on valid and damaged files: CSV/TSV with RFC 4180 quoting,
Parquet (decimals, 64-bit integers) and svmlight.

Oracles are independent readers: Python's :mod:`csv` module (strict quoting), pyarrow's own
values with Python's exact arithmetic (int, :class:`decimal.Decimal`), and scikit-learn's
``load_svmlight_file``. Every outcome is the oracle's data, bit for bit, through both the
whole-file reader and the chunked one, or a :class:`~halfspaces.io.DataFileError` that names
the file (and the line or column): never another exception, never other values.
"""

from __future__ import annotations

import csv
import io
import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from halfspaces.io import DataFileError, iter_chunks, read, scan

FUZZ = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def _both(path, **options):
    """(X, y) read whole and read in chunks of two rows (stacked), the chunks told the
    scan's classes (without them a chunk's labels are numbers when all of its own are)."""
    X, y = read(path, **options)
    classes = scan(path, **options).classes
    chunks = list(iter_chunks(path, chunk_size=2, classes=classes, **options))
    Xc = (sp.vstack([c[0] for c in chunks]).tocsr() if sp.issparse(X)
          else np.vstack([c[0] for c in chunks]))
    yc = np.concatenate([c[1] for c in chunks])
    return (X, y), (Xc, yc)


def _refused_by_name(path, **options) -> None:
    for reader in (lambda: read(path, **options),
                   lambda: list(iter_chunks(path, chunk_size=2, **options))):
        with pytest.raises(DataFileError) as info:
            reader()
        assert str(info.value).startswith(str(path)), str(info.value)


# -- CSV and TSV with RFC 4180 quoting -------------------------------------------------------

# no '#' (a comment line), no 'i', 'n', 'f' (inf, nan), no '_' or non-ASCII digits (which
# Python's float reads and the readers refuse by design)
TEXT = "abcxyz019.-e ,;\"\t'é"
names = st.text(TEXT, min_size=1, max_size=6).filter(
    lambda s: s.strip() and not _number(s.strip()))
labels = st.text(TEXT, min_size=1, max_size=5).filter(lambda s: s.strip() != "")
values = st.one_of(st.floats(allow_nan=False, allow_infinity=False).map(repr),
                   st.integers(-10**20, 10**20).map(str),
                   st.sampled_from(["1E5", "+3", " 4 ", "-0", ".5", "5.", "1e-320"]))


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@st.composite
def quoted_tables(draw):
    """(text, delimiter, label name, header names) of a valid CSV or TSV file, written by
    Python's csv module with minimal or full quoting."""
    header = draw(st.lists(names, min_size=2, max_size=4,
                           unique_by=lambda s: s.strip()))
    label = draw(st.sampled_from(header))
    rows = draw(st.lists(st.tuples(*[labels if h == label else values for h in header]),
                         min_size=1, max_size=6))
    delimiter = draw(st.sampled_from([",", "\t"]))
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, quoting=draw(st.sampled_from(
        [csv.QUOTE_MINIMAL, csv.QUOTE_ALL])), lineterminator=draw(st.sampled_from(
            ["\n", "\r\n"]))).writerows([header, *rows])
    return out.getvalue(), delimiter, label.strip()


def _csv_oracle(text: str, delimiter: str, label: str):
    """(X, y) as Python's strict csv module reads the text, fields stripped of surrounding
    whitespace as the readers strip them; None where it is not a valid table (a csv.Error,
    rows of another width, a feature that is not a finite number, an empty label)."""
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter,
                               strict=True))
    except csv.Error:
        return None
    rows = [[f.strip() for f in r] for r in rows if r and any(f.strip() for f in r)]
    if not rows or label not in rows[0] or len(rows) < 2:
        return None
    at = rows[0].index(label)
    if any(len(r) != len(rows[0]) for r in rows) or any(r[at] == "" for r in rows[1:]):
        return None
    try:
        X = np.array([[float(f) for j, f in enumerate(r) if j != at] for r in rows[1:]],
                     dtype=np.float64).reshape(len(rows) - 1, len(rows[0]) - 1)
    except ValueError:
        return None
    if not np.isfinite(X).all():
        return None
    y = [r[at] for r in rows[1:]]
    return X, (np.array([float(v) for v in y]) if all(map(_number, y)) else np.array(y))


def _assert_reads_as(path, oracle, label) -> None:
    if oracle is None:
        _refused_by_name(path, label_column=label)
        return
    for X, y in _both(path, label_column=label):
        assert np.array_equal(X, oracle[0]) and X.shape == oracle[0].shape
        assert y.dtype.kind == oracle[1].dtype.kind and np.array_equal(y, oracle[1]), (y, oracle)


@FUZZ
@given(table=quoted_tables())
def test_a_quoted_csv_or_tsv_reads_as_pythons_csv_module(tmp_path, table):
    text, delimiter, label = table
    path = tmp_path / ("q.csv" if delimiter == "," else "q.tsv")
    path.write_text(text, encoding="utf-8", newline="")
    oracle = _csv_oracle(text, delimiter, label)
    assert oracle is not None, text  # the writer's output is a valid table
    _assert_reads_as(path, oracle, label)


@st.composite
def damaged_quotes(draw, text: str) -> str:
    """A quote added or removed, or a line end put inside a field: what hand edits and naive
    writers do to quoted files."""
    for _ in range(draw(st.integers(1, 2))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["add", "drop", "line end", "delimiter"]))
        if kind == "add":
            text = text[:at] + '"' + text[at:]
        elif kind == "drop" and '"' in text:
            quotes = [i for i, c in enumerate(text) if c == '"']
            i = quotes[draw(st.integers(0, len(quotes) - 1))]
            text = text[:i] + text[i + 1:]
        elif kind == "line end":
            text = text[:at] + "\n" + text[at:]
        else:
            text = text[:at] + draw(st.sampled_from([",", "\t"])) + text[at:]
    return text


@FUZZ
@given(data=st.data())
def test_damaged_quoting_reads_as_pythons_csv_module_or_names_the_file(tmp_path, data):
    # an unclosed quote made NumPy's reader join the next line into the field: an internal
    # "cannot reshape" error, or (one line per chunk) the field read without its quote
    text, delimiter, label = data.draw(quoted_tables())
    text = data.draw(damaged_quotes(text))
    path = tmp_path / ("q.csv" if delimiter == "," else "q.tsv")
    path.write_text(text, encoding="utf-8", newline="")
    oracle = _csv_oracle(text, delimiter, label)
    if oracle is not None and any("\n" in f or "\r" in f for f in _fields(text, delimiter)):
        oracle = None  # a field that spans lines is refused by name (not supported)
    _assert_reads_as(path, oracle, label)


def _fields(text: str, delimiter: str) -> list[str]:
    return [f for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
            for f in row]


@pytest.mark.parametrize("text, line, message", [
    ('a,t\n1,"x\n2,z\n', 2, "a quoted field is not closed on its line"),
    ('a,t\n1,"x"y\n2,z\n', 2, "a quoted field is followed by more than the delimiter ','"),
    ('"a\nb",t\n1,x\n', 1, "a quoted field is not closed on its line"),
    ('a,t\n1,"x,\n2,z\n3,"\n4,z\n', 2, "a quoted field is not closed on its line"),
])
def test_broken_quoting_names_the_line(tmp_path, text, line, message):
    path = tmp_path / "q.csv"
    path.write_text(text)
    for reader in (lambda: read(path, label_column="t"),
                   lambda: list(iter_chunks(path, chunk_size=1, label_column="t"))):
        with pytest.raises(DataFileError, match=f"^{path}, line {line}: {message}"):
            reader()


# -- Parquet: decimals and 64-bit integers ---------------------------------------------------

@st.composite
def parquet_columns(draw):
    """(arrow type name, Python values, whether float64 holds every value as the readers
    promise: exactly for integers, as its shortest repr for decimals, finite for floats)."""
    n = draw(st.integers(1, 5))
    kind = draw(st.sampled_from(["int64", "uint64", "float64", "float32", "decimal"]))
    if kind == "int64":
        near = st.tuples(st.integers(2**53 - 4, 2**53 + 4), st.sampled_from([1, -1])).map(
            lambda t: t[0] * t[1])
        vals = draw(st.lists(st.one_of(st.integers(-2**63, 2**63 - 1), near,
                                       st.integers(-10, 10)), min_size=n, max_size=n))
        return "int64", vals, all(int(float(v)) == v for v in vals)
    if kind == "uint64":
        vals = draw(st.lists(st.one_of(st.integers(0, 2**64 - 1), st.integers(0, 10)),
                             min_size=n, max_size=n))
        return "uint64", vals, all(int(float(v)) == v for v in vals)
    if kind in ("float64", "float32"):
        width = 64 if kind == "float64" else 32
        vals = draw(st.lists(st.floats(width=width), min_size=n, max_size=n))
        return kind, vals, all(math.isfinite(v) for v in vals)
    precision = draw(st.integers(1, 38))
    scale = draw(st.integers(0, min(precision, 25)))
    vals = draw(st.lists(st.decimals(places=scale, allow_nan=False, allow_infinity=False,
                                     min_value=-(Decimal(10) ** (precision - scale)) + 1,
                                     max_value=Decimal(10) ** (precision - scale) - 1),
                         min_size=n, max_size=n))
    with localcontext() as context:
        context.prec = 80  # 38 digits of decimal128 and more: the default 28 raised
        vals = [v.quantize(Decimal(1).scaleb(-scale)) for v in vals]
    return f"decimal128({precision},{scale})", vals, all(
        Decimal(repr(float(v))) == v for v in vals)


def _arrow_type(pa, name: str):
    if name.startswith("decimal128"):
        precision, scale = map(int, name[len("decimal128("):-1].split(","))
        return pa.decimal128(precision, scale)
    return getattr(pa, name)()


@FUZZ
@given(data=st.data())
def test_a_parquet_value_is_read_exactly_or_refused_naming_its_column(tmp_path, data):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    first = data.draw(parquet_columns())
    n = len(first[1])
    columns = [first] + [c for c in (data.draw(parquet_columns()) for _ in range(
        data.draw(st.integers(0, 2)))) if len(c[1]) == n]
    names = [f"c{j}" for j in range(len(columns))]
    label = data.draw(st.one_of(st.lists(st.integers(0, 3), min_size=n, max_size=n),
                                st.lists(st.sampled_from(["yes", "no"]), min_size=n,
                                         max_size=n)))
    table = pa.table({**{nm: pa.array(vals, type=_arrow_type(pa, kind))
                         for nm, (kind, vals, _) in zip(names, columns, strict=True)},
                      "label": label})
    path = tmp_path / "d.parquet"
    pq.write_table(table, path)
    bad = [nm for nm, (_, vals, exact) in zip(names, columns, strict=True) if not exact]
    if bad:
        for reader in (lambda: read(path, label_column="label"),
                       lambda: list(iter_chunks(path, chunk_size=2, label_column="label"))):
            with pytest.raises(DataFileError) as info:
                reader()
            message = str(info.value)
            assert message.startswith(str(path)) and "column 'c" in message, message
        return
    expected = np.array([[float(v) for v in row] for row in zip(*(c[1] for c in columns),
                                                                 strict=True)])
    for X, y in _both(path, label_column="label"):
        assert np.array_equal(X, expected), (X, expected)
        assert [str(v) for v in y] == [str(float(v)) if isinstance(v, int) else v
                                      for v in label]


# -- svmlight against scikit-learn -----------------------------------------------------------

svm_values = st.one_of(st.floats(allow_nan=False, allow_infinity=False).map(repr),
                       st.integers(-10**6, 10**6).map(str),
                       st.sampled_from(["-0", "1e-320", "1.7976931348623157e308", "0"]))


@st.composite
def svmlight_texts(draw) -> str:
    """A valid svmlight file: sorted indices (from 0 or 1), qid fields, comments, tabs,
    CRLF line ends, labels with signs and exponents."""
    base = draw(st.sampled_from([0, 1]))
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        label = draw(st.sampled_from(["1", "-1", "+1", "0", "2.5", "1e1", "-3"]))
        indices = sorted(draw(st.sets(st.integers(base, 25), max_size=5)))
        pairs = [f"{j}:{draw(svm_values)}" for j in indices]
        if draw(st.booleans()):
            pairs.insert(0, f"qid:{draw(st.integers(0, 9))}")
        gap = draw(st.sampled_from([" ", "\t", "  "]))
        line = gap.join([label, *pairs])
        if draw(st.booleans()):
            line += " # a comment: 3:4"
        lines.append(line)
    if base == 0 and not any(" 0:" in ln or "\t0:" in ln for ln in lines):
        lines.append("1 0:1")  # the zero-based index that makes the base visible
    return draw(st.sampled_from(["\n", "\r\n"])).join(lines) + "\n"


@FUZZ
@given(text=svmlight_texts())
def test_an_svmlight_file_reads_as_scikit_learn_reads_it(tmp_path, text):
    from sklearn.datasets import load_svmlight_file

    path = tmp_path / "d.svm"
    path.write_bytes(text.encode())
    X_ref, y_ref = load_svmlight_file(str(path), zero_based="auto")
    for X, y in _both(path):
        width = max(X.shape[1], X_ref.shape[1])
        dense = np.zeros((X.shape[0], width))
        dense[:, :X.shape[1]] = X.toarray()
        ref = np.zeros((X_ref.shape[0], width))
        ref[:, :X_ref.shape[1]] = X_ref.toarray()
        assert np.array_equal(dense, ref) and np.array_equal(y, y_ref)
