"""halfspaces.io against independent readers (scikit-learn, pandas, pyarrow) and its errors.

Malformed input must give a DataFileError naming the file and the line, never another
exception: Hypothesis garbles one line of a valid file and checks exactly that.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

from halfspaces.io import DataFileError, detect_format, iter_chunks, read, scan
from halfspaces.io._files import line_ended_blocks


@pytest.fixture
def problem():
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(57, 5)) * (rng.random((57, 5)) < 0.6), 3)
    y = np.where(X[:, 0] + 0.1 * rng.normal(size=57) > 0, 1.0, -1.0)
    return X, y


def write_svm(path, X, y, zero_based=False):
    dump_svmlight_file(X, y, str(path), zero_based=zero_based)
    return path


@pytest.mark.parametrize("zero_based", [False, True])
def test_svmlight_matches_sklearn(tmp_path, problem, zero_based):
    path = write_svm(tmp_path / "d.svm", *problem, zero_based=zero_based)
    X, y = read(path)
    X_ref, y_ref = load_svmlight_file(str(path))  # "auto" base, as ours
    assert sp.issparse(X) and X.shape == X_ref.shape and (X != X_ref).nnz == 0
    assert np.array_equal(y, y_ref)


def test_csv_matches_pandas(tmp_path, problem):
    X, y = problem
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(5)]).assign(label=y)
    frame.to_csv(tmp_path / "d.csv", index=False)
    frame.to_csv(tmp_path / "d.tsv", index=False, sep="\t")
    reference = pd.read_csv(tmp_path / "d.csv")
    for name in ("d.csv", "d.tsv"):
        X_read, y_read = read(tmp_path / name)  # the header's "label" column is found
        assert np.array_equal(X_read, reference.drop(columns="label").to_numpy())
        assert np.array_equal(y_read, reference["label"].to_numpy())


def test_csv_with_quoted_fields_matches_pandas(tmp_path):
    # RFC 4180 quoting: a header "la,bel" was counted as two columns ("2 fields where the
    # first line has 3" on every data line)
    frame = pd.DataFrame({"la,bel": ["yes", "no", "yes", 'say "no"'], "x, y": [1.5, 2.0, -3.0, 4.0],
                          "z": [1, 2, 3, 4]})
    path = tmp_path / "q.csv"
    frame.to_csv(path, index=False, quoting=1)  # csv.QUOTE_ALL
    reference = pd.read_csv(path)
    X, y = read(path, label_column="la,bel")
    assert np.array_equal(X, reference[["x, y", "z"]].to_numpy(dtype=float))
    assert y.tolist() == reference["la,bel"].tolist()
    chunks = list(iter_chunks(path, chunk_size=3, label_column="la,bel"))
    assert np.array_equal(np.vstack([c[0] for c in chunks]), X)


def test_csv_without_header_label_by_index_and_strings(tmp_path):
    path = tmp_path / "d.txt"
    path.write_text("1.5,2,cat\n# a comment\n\n3,4,dog\n")
    X, y = read(path, label_column=-1)
    assert np.array_equal(X, [[1.5, 2], [3, 4]]) and y.tolist() == ["cat", "dog"]
    assert detect_format(path) == "csv"


def test_parquet_and_numpy_match(tmp_path, problem):
    pytest.importorskip("pyarrow")
    X, y = problem
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(5)]).assign(target=y)
    frame.to_parquet(tmp_path / "d.parquet")
    np.save(tmp_path / "d.npy", np.column_stack([y, X]))
    np.savez(tmp_path / "d.npz", X=X, y=y)
    for name, column in (("d.parquet", "target"), ("d.npy", 0), ("d.npz", None)):
        X_read, y_read = read(tmp_path / name, label_column=column)
        assert np.array_equal(X_read, X) and np.array_equal(y_read, y), name


BIG = 2**53 + 1  # the first integer float64 cannot hold: it becomes 2^53


def binary_files_with_big_ints(tmp_path):
    """(file, label column, what the error names) of binary files whose int64 values
    float64 would round, one place each: features of .npy, .npz and Parquet (an int64
    column beside a float one, which column_stack made float64 before any check), and
    labels of .npz and Parquet."""
    X = np.array([[1, 2], [3, BIG], [5, 6]], dtype=np.int64)
    y = np.array([1, -1, 1], dtype=np.int64)
    cases = []
    np.save(tmp_path / "x.npy", np.column_stack([y, X]))
    cases.append(("x.npy", 0, "features, row 1, column 1: the int64 value 9007199254740993"))
    np.savez(tmp_path / "x.npz", X=X, y=y)
    cases.append(("x.npz", None, "array 'X', row 1, column 1: the int64 value"))
    np.savez(tmp_path / "y.npz", X=X[:, :1], y=np.array([2**53, BIG, 2**53], np.uint64))
    cases.append(("y.npz", None, "array 'y', row 1: the uint64 value 9007199254740993"))
    np.save(tmp_path / "y.npy", np.column_stack([[2**53, BIG, 2**53], X[:, :1]]))
    cases.append(("y.npy", 0, "labels, row 1: the int64 value 9007199254740993"))
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return cases
    pd.DataFrame({"a": [0.5, 1.5, 2.5], "b": X[:, 1], "t": y}).to_parquet(tmp_path / "x.pq")
    cases.append(("x.pq", "t", "column 'b', row 1: the int64 value 9007199254740993"))
    pd.DataFrame({"a": [0.5, 1.5, 2.5], "t": [2**53, BIG, 2**53]}).to_parquet(
        tmp_path / "y.parquet")
    cases.append(("y.parquet", "t", "column 't', row 1: the int64 value"))
    return cases


def test_binary_ints_that_float64_rounds_are_refused_by_place(tmp_path):
    # int64 2^53 + 1 and 2^53 were read as one float64: certify then proved "exactly"
    # that two points with opposite labels could not be separated, and two labels became
    # one class; decimal text stays the nearest float64 (documented), binary ints do not
    for name, column, shown in binary_files_with_big_ints(tmp_path):
        with pytest.raises(DataFileError, match=re.escape(shown)) as caught:
            read(tmp_path / name, label_column=column)
        assert str(caught.value).count(str(tmp_path / name)) == 1  # named once
        assert "float64" in str(caught.value)
        chunks = iter_chunks(tmp_path / name, label_column=column, chunk_size=1)
        with pytest.raises(DataFileError, match=re.escape(shown.split(",")[0])):
            list(chunks)
    # a NaN long double is a NaN, not a value float64 rounds
    if np.finfo(np.longdouble).nmant > 52:
        nan = np.array([[np.nan, 1.0], [2.0, 3.0]], dtype=np.longdouble)
        np.savez(tmp_path / "nan.npz", X=nan, y=np.array([0, 1]))
        with pytest.raises(DataFileError, match="row 0 holds NaN or infinity"):
            read(tmp_path / "nan.npz")
    # ints float64 holds (up to 2^53) are read exactly, whatever their dtype
    exact = np.array([[2**53, -(2**53)], [7, 2**52 + 1]], dtype=np.int64)
    np.savez(tmp_path / "ok.npz", X=exact, y=np.array([2**53, 1], np.int64))
    X, y = read(tmp_path / "ok.npz")
    assert X.tolist() == exact.tolist() and y.tolist() == [2**53, 1]


@pytest.mark.skipif(np.finfo(np.longdouble).nmant <= 52, reason="long double is float64")
def test_a_refused_long_double_is_shown_with_the_digits_that_differ(tmp_path):
    # "the float128 value 0.3333333333333333 cannot be held exactly in float64 (it would be
    # 0.3333333333333333)": both numbers printed the same
    third = np.longdouble(1) / 3
    np.savez(tmp_path / "third.npz", X=np.array([[third], [1.0]], dtype=np.longdouble),
             y=np.array([0, 1]))
    with pytest.raises(DataFileError) as caught:
        read(tmp_path / "third.npz")
    message = str(caught.value)
    given = re.search(r"value (\S+) cannot be held", message).group(1)
    becomes = re.search(r"it would be (\S+)\)", message).group(1)
    assert given != becomes
    assert np.longdouble(given) == third and float(becomes) == float(third)


def test_parquet_decimals_that_float64_would_merge_are_refused(tmp_path):
    # decimal128(20, 0) 2^53 + 1 (label +1) and 2^53 (label -1) are separable by a threshold
    # between them; read as float64 they were one point, and certify printed "separable no"
    # with "certificate exact yes": a proof about other data
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from decimal import Decimal as D

    from _cli import cli_error

    cases = {"int.parquet": ([D(2**53 + 1), D(2**53)], pa.decimal128(20, 0),
                             "the decimal 9007199254740993 cannot be held in float64"),
             "frac.parquet": ([D("0.10000000000000000001"), D("0.1")], pa.decimal128(38, 20),
                              "the decimal 0.10000000000000000001 cannot be held")}
    for name, (values, kind, message) in cases.items():
        pq.write_table(pa.table({"x": pa.array(values, kind), "t": [1, -1]}), tmp_path / name)
        assert float(values[0]) == float(values[1])  # the two points float64 would merge
        with pytest.raises(DataFileError, match="column 'x', row 0: " + re.escape(message)):
            read(tmp_path / name, label_column="t")
        code, said = cli_error("certify", str(tmp_path / name), "--label-column", "t")
        assert code == 1 and "cannot be held in float64" in said and "separable" not in said
    # decimals that are the shortest decimal of their float64 are read as it, as text is
    everyday = [D("19.99"), D("0.10"), D("-3.5"), D(2**53 + 2)]
    pq.write_table(pa.table({"x": pa.array(everyday, pa.decimal128(20, 2)), "t": [1, -1, 1, -1]}),
                   tmp_path / "ok.parquet")
    X, _ = read(tmp_path / "ok.parquet", label_column="t")
    assert X.ravel().tolist() == [19.99, 0.1, -3.5, float(2**53 + 2)]


def test_certify_refuses_a_file_whose_ints_float64_rounds(tmp_path):
    from _cli import cli_error

    np.save(tmp_path / "a.npy", np.array([[1, BIG], [-1, 2**53]], dtype=np.int64))
    code, err = cli_error("certify", str(tmp_path / "a.npy"), "--json")
    assert code == 1 and "features, row 0, column 0: the int64 value 9007199254740993" in err


def write_binary(path, fmt: str, X, y) -> None:
    with open(path, "wb") as handle:  # at exactly `path`: np.save would add an extension
        if fmt == "npy":
            np.save(handle, np.column_stack([y, X]))
        elif fmt == "npz":
            np.savez(handle, X=X, y=y)
        else:
            pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])]).assign(
                target=y).to_parquet(handle)


@pytest.mark.parametrize("name", ["data", "data.bin", "data.txt.old"])
@pytest.mark.parametrize("fmt", ["npy", "npz", "parquet"])
def test_binary_files_are_sniffed_by_their_signature(tmp_path, problem, fmt, name):
    """A binary file without its extension was sniffed as CSV (its first "line" read as
    text); the oracle is the arrays written."""
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    X, y = problem
    path = tmp_path / name
    write_binary(path, fmt, X, y)
    assert detect_format(path) == fmt
    column = {"npy": 0, "npz": None, "parquet": "target"}[fmt]
    X_read, y_read = read(path, label_column=column)
    assert np.array_equal(X_read, X) and np.array_equal(y_read, y)


def test_a_binary_file_through_a_fifo_is_sniffed_without_losing_bytes(tmp_path, problem):
    """Sniffing reads the start of a pipe, which cannot be read twice: the reader must still
    see the whole array (open_data buffers a pipe's content once)."""
    import os
    import threading

    X, y = problem
    write_binary(tmp_path / "source", "npy", X, y)
    fifo = tmp_path / "piped"
    os.mkfifo(fifo)
    content = (tmp_path / "source").read_bytes()
    writer = threading.Thread(target=lambda: fifo.write_bytes(content), daemon=True)
    writer.start()
    X_read, y_read = read(fifo, label_column=0)
    writer.join(5)
    assert np.array_equal(X_read, X) and np.array_equal(y_read, y)


@pytest.mark.parametrize("packer", ["gzip", "bz2", "lzma"])
def test_compressed_files_are_sniffed_through_decompression(tmp_path, packer):
    import importlib

    compress = importlib.import_module(packer).compress
    # the 6 signature bytes end inside the second line: sniffing must not join the two
    (tmp_path / "d").write_bytes(compress(b"#\n1 1:2 3:4\n-1 2:1\n"))
    assert detect_format(tmp_path / "d") == "svmlight"
    (tmp_path / "c").write_bytes(compress(b"1,2,3\n4,5,6\n"))
    assert detect_format(tmp_path / "c") == "csv"
    (tmp_path / "n").write_bytes(compress(_npy_bytes()))
    assert detect_format(tmp_path / "n") == "npy"  # and its reader names the compression
    with pytest.raises(DataFileError, match="compressed file: NumPy files are read "
                                            "uncompressed; decompress it first"):
        read(tmp_path / "n", label_column=0)


@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("name", ["data.csv", "data.tsv", "data.svm", "data.txt"])
@pytest.mark.parametrize("fmt", ["npy", "npz", "parquet"])
def test_binary_data_under_a_text_name_is_refused_by_name(tmp_path, problem, fmt, name, packed):
    """np.save's bytes in data.csv were "byte 0x93 at column 1 is not UTF-8" (svmlight: a
    bad label); a text read of a binary signature now names the format and the way out,
    also when the user's own format= says text (the bytes still cannot be text)."""
    import gzip

    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    write_binary(tmp_path / "source", fmt, *problem)
    path = tmp_path / name
    path.write_bytes(gzip.compress((tmp_path / "source").read_bytes()) if packed
                     else (tmp_path / "source").read_bytes())
    said = rf"{name}: the file {'is gzip-compressed and ' if packed else ''}holds .*not text;" \
           rf".* format='{fmt}' \(--format {fmt}\)"
    text_formats = ["csv", "svmlight"] if name == "data.txt" else [None, "csv", "svmlight"]
    for text_format in text_formats:
        for reading in (read, scan, lambda p, format: next(iter_chunks(p, format=format))):
            with pytest.raises(DataFileError, match=said):
                reading(path, format=text_format)
    path.rename(tmp_path / f"data.{fmt}")  # the way out the message gives
    if not packed:
        column = {"npy": 0, "npz": None, "parquet": "target"}[fmt]
        X, y = read(tmp_path / f"data.{fmt}", label_column=column)
        assert np.array_equal(X, problem[0]) and np.array_equal(y, problem[1])


def test_a_csv_whose_header_starts_par1_is_text(tmp_path):
    """"PAR1" alone was taken for Parquet's signature: a sniffed file with that header was
    handed to pyarrow ("Parquet magic bytes not found in footer")."""
    (tmp_path / "d.dat").write_text("PAR1,PAR2,label\n1,2,1\n3,4,-1\n")
    (tmp_path / "d.csv").write_text("PAR1,PAR2,label\n1,2,1\n3,4,-1\n")
    for name in ("d.dat", "d.csv"):
        X, y = read(tmp_path / name)
        assert X.tolist() == [[1, 2], [3, 4]] and y.tolist() == [1, -1]


def _npy_bytes() -> bytes:
    import io

    out = io.BytesIO()
    np.save(out, np.array([[1.0, 2.0], [-1.0, 3.0]]))
    return out.getvalue()


@pytest.mark.parametrize("fmt", ["svm", "csv", "npy", "npz", "parquet"])
def test_chunks_concatenate_to_the_whole(tmp_path, problem, fmt):
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    X, y = problem
    path = tmp_path / f"d.{fmt}"
    if fmt == "svm":
        write_svm(path, X, y)
    elif fmt == "csv":
        pd.DataFrame(X).assign(label=y).to_csv(path, index=False)
    elif fmt == "npy":
        np.save(path, np.column_stack([y, X]))
    elif fmt == "npz":
        np.savez(path, X=X, y=y)
    else:
        pd.DataFrame(X, columns=list("abcde")).assign(label=y).to_parquet(path)
    whole_X, whole_y = read(path)
    chunks = list(iter_chunks(path, chunk_size=10))
    assert [len(c[1]) for c in chunks] == [10] * 5 + [7]
    assert scan(path, chunk_size=10).n_samples == whole_X.shape[0]
    stacked = sp.vstack([c[0] for c in chunks]).toarray() if fmt == "svm" else \
        np.vstack([c[0] for c in chunks])
    dense = whole_X.toarray() if sp.issparse(whole_X) else whole_X
    assert np.array_equal(stacked, dense)
    assert np.array_equal(np.concatenate([c[1] for c in chunks]), whole_y)
    skipped = list(iter_chunks(path, chunk_size=10, skip=23))
    assert np.array_equal(np.concatenate([c[1] for c in skipped]), whole_y[23:])


def test_scan_finds_sizes_labels_and_base(tmp_path, problem):
    path = write_svm(tmp_path / "d.svm", *problem)
    info = scan(path, chunk_size=8)
    assert (info.n_samples, info.n_features, info.zero_based) == (57, 5, False)
    assert info.classes.tolist() == [-1.0, 1.0]


MIXED_LABELS = ["1", "yes", "-1", "+1", "no", "1"]  # numbers in some chunks, text in others


@pytest.mark.parametrize("fmt", ["csv", "npy"])
def test_scan_finds_the_whole_reads_classes_whatever_the_chunks(tmp_path, fmt):
    path = tmp_path / f"d.{fmt}"
    rows = [[label, str(i)] for i, label in enumerate(MIXED_LABELS)]
    if fmt == "csv":
        path.write_text("label,a\n" + "".join(f"{a},{b}\n" for a, b in rows))
    else:
        np.save(path, np.array(rows))
    whole = read(path)[1]
    assert whole.tolist() == MIXED_LABELS  # read whole, no label is a number
    for chunk_size in range(1, len(rows) + 1):
        info = scan(path, chunk_size=chunk_size)
        assert info.classes.tolist() == np.unique(whole).tolist(), chunk_size
        labels = [y for _, y in iter_chunks(path, chunk_size, classes=info.classes)]
        assert np.concatenate(labels).tolist() == MIXED_LABELS, chunk_size


@pytest.mark.parametrize("name, content", [("one.csv", b"label\n1\n-1\n"),
                                           ("one.csv", b"1\n-1\n"), ("one.npy", None)])
def test_a_file_with_a_label_and_no_features_is_an_error(tmp_path, name, content):
    path = tmp_path / name
    if content is None:
        np.save(path, np.array([[1.0], [-1.0]]))
    else:
        path.write_bytes(content)
    for reader in (lambda: read(path), lambda: scan(path, chunk_size=1),
                   lambda: list(iter_chunks(path, chunk_size=1))):
        with pytest.raises(DataFileError, match="no feature columns: its only column is the "
                                                "label"):
            reader()


@pytest.mark.parametrize("line, problem", [
    ("1 1:0.5 2:x", "value 'x' of feature 2 is not a number"),
    ("1 2:0.5 1:1", "feature index 1 is out of order"),
    ("1 2:0.5 2:1", "feature index 2 is repeated"),
    ("1 1:nan", "NaN and infinity are not allowed"),
    ("1 1:inf", "NaN and infinity are not allowed"),
    ("x 1:1", "label 'x' is not a number"),
    ("1 1 2", "bad token '1'; expected index:value"),
    ("1 a:1", "feature index 'a' is not an integer"),
    ("1 -3:1", "feature index -3 is out of range"),
    ("nan 1:1", "NaN and infinity"),
])
def test_svmlight_errors_name_file_line_problem(tmp_path, line, problem):
    path = tmp_path / "bad.svm"
    path.write_text(f"# header comment\n1 1:1\n{line}\n-1 3:1\n")
    for reader in (lambda: read(path), lambda: list(iter_chunks(path, chunk_size=2))):
        with pytest.raises(DataFileError) as info:
            reader()
        assert str(info.value).startswith(f"{path}, line 3: ")
        assert problem in str(info.value)


def test_label_outside_expected_set(tmp_path):
    path = tmp_path / "d.svm"
    path.write_text("1 1:1\n-1 1:2\n2 1:1\n")
    with pytest.raises(DataFileError, match=r"line 3: label '2' is not one of the expected"):
        list(iter_chunks(path, chunk_size=2, classes=[-1.0, 1.0]))


def test_index_beyond_n_features_and_zero_in_one_based(tmp_path):
    path = tmp_path / "d.svm"
    path.write_text("1 1:1\n-1 9:2\n")
    with pytest.raises(DataFileError, match=r"line 2: feature index 9 is beyond the 4"):
        list(iter_chunks(path, n_features=4))
    path.write_text("1 1:1\n-1 0:2\n")
    with pytest.raises(DataFileError, match=r"line 2: feature index 0 is out of range"):
        read(path, zero_based=False)


@pytest.mark.parametrize("text, problem", [
    ("a,b,label\n1,2,1\n1,x,0\n", "line 3: column 'b': 'x' is not a number"),
    ("a,b,label\n1,2,1\n1,2\n", "line 3: 2 fields where the first line has 3"),
    ("a,b,label\n1,2,1\n1,2,0,7,8\n", "line 3: 5 fields where the first line has 3"),
    ("a,b,label\n1,2,1\n1,inf,0\n", "line 3: column 'b': 'inf'; NaN and infinity"),
    ("a,b,label\n1,2,1\n\n1,2,nan\n", "line 4: label is 'nan'"),
    # Python's float reads other scripts' digits, NumPy's parser not: NumPy named row 0
    # (from 0) and column 2 (from 1) of its block for line 3's column 'b'
    ("a,b,label\n1,2,1\n1,\u0661\u0662,0\n", "line 3: column 'b': '\u0661\u0662' is not a number"),
    ('"a,b",c,label\n1,2,1\n1,2\n', "line 3: 2 fields where the first line has 3"),
])
def test_csv_errors_name_file_line_problem(tmp_path, text, problem):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(DataFileError, match=problem):
        read(path)
    with pytest.raises(DataFileError, match=problem):
        list(iter_chunks(path, chunk_size=1))


def test_a_row_short_of_an_unread_column_or_too_wide_is_an_error(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b,label,note\n1,2,1,x\n3,4,-1\n")
    with pytest.raises(DataFileError, match="line 3: 3 fields where the first line has 4"):
        read(path, feature_names=["a", "b"])  # "note" is read by no one
    spaced = tmp_path / "d.txt"  # fields apart by white space
    spaced.write_text("1 2 1\n\n-1 2 0 7\n")
    with pytest.raises(DataFileError, match="line 3: 4 fields where the first line has 3"):
        read(spaced)


def test_text_that_is_not_utf8_is_an_error_not_a_merged_label(tmp_path):
    labels = ["\u00e9", "\u00e8", "z"]  # Latin-1 bytes 0xe9, 0xe8: two classes, not one
    rows = "".join(f"{label},{i}\n" for i, label in enumerate(labels))
    (tmp_path / "utf8.csv").write_text("label,a\n" + rows, encoding="utf-8")
    assert read(tmp_path / "utf8.csv")[1].tolist() == labels  # Python's own decoding
    path = tmp_path / "latin.csv"
    path.write_text("label,a\n" + rows, encoding="latin-1")
    for reader in (lambda: read(path), lambda: scan(path, chunk_size=1),
                   lambda: list(iter_chunks(path, chunk_size=1))):
        with pytest.raises(DataFileError, match=r"latin\.csv, line 2: byte 0xe9 at column 1 "
                                                "is not UTF-8"):
            reader()
    path.write_bytes(b"label,caf\xc3\xa9 \xff\n1,2\n")  # the column counts characters
    with pytest.raises(DataFileError, match=r"line 1: byte 0xff at column 12 is not UTF-8"):
        read(path)


def test_missing_file_and_missing_column(tmp_path):
    with pytest.raises(DataFileError, match="No such file"):
        read(tmp_path / "none.svm")
    (tmp_path / "d.csv").write_text("a,b\n1,2\n")
    with pytest.raises(DataFileError, match="no column named 'label'"):
        read(tmp_path / "d.csv", label_column="label")


TOKENS = st.sampled_from(["1", "-1", "+1", "0", "1:1", "2:0.5", "3:-2", "0:1", "1:x", ":", "::",
                          "1:", "x", "nan", "1:nan", "qid:3", "1e5:1", "2:1e400", "#", "1.5",
                          "99999999999:1", "\t", "\x00", "é", "1:1:1", "-0:1", "2_0:1"])


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tokens=st.lists(TOKENS, max_size=6), where=st.integers(1, 4))
def test_garbled_line_gives_the_clear_error_or_parses(tmp_path, tokens, where):
    lines = ["1 1:1 3:2", "-1 2:1", "1 1:0.5", "-1 3:1"]
    lines.insert(where - 1, " ".join(tokens))
    path = tmp_path / "g.svm"
    path.write_bytes("\n".join(lines).encode() + b"\n")
    for reader in (lambda: read(path), lambda: _stack(iter_chunks(path, chunk_size=2))):
        try:
            X, y = reader()
        except DataFileError as exc:
            assert str(exc).startswith(f"{path}, line {where}: "), str(exc)
        else:
            assert np.isfinite(X.data).all() and np.isfinite(y).all()


def _stack(chunks):
    chunks = list(chunks)
    return sp.vstack([c[0] for c in chunks]).tocsr(), np.concatenate([c[1] for c in chunks])


CSV_FIELDS = st.sampled_from(["1", "-2.5", "", " ", "x", "nan", "inf", "1e400", "\"3\"", "yes",
                              "1,2", "\t", "#", "0x10", "1_0", "é", "\x00", "\r"])


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fields=st.lists(CSV_FIELDS, min_size=1, max_size=5), where=st.integers(2, 4))
def test_garbled_csv_line_gives_the_clear_error_or_parses(tmp_path, fields, where):
    lines = ["a,b,label", "1,2,1", "3,4,0", "5,6,1"]
    lines.insert(where - 1, ",".join(fields))
    path = tmp_path / "g.csv"
    path.write_bytes("\n".join(lines).encode() + b"\n")
    try:
        X, y = read(path)
    except DataFileError as exc:
        assert str(exc).startswith(f"{path}, line {where}: "), str(exc)
    else:
        assert np.isfinite(X).all() and X.shape[1] == 2


SVM_WITH_NOISE = (b"# a comment first\n\n1 1:1 3:2\r\n  \n-1 2:0.5 # trailing\n# between\n"
                  b"1 4:1\n\t\n-1 1:-1 5:3\n1 2:2\n# last comment\n-1 3:1")  # no final newline


@pytest.mark.parametrize("read_bytes", [1, 7, 16, 1 << 22])
@pytest.mark.parametrize("chunk_size", [1, 2, 4, None])
def test_svmlight_chunks_cut_at_any_read_size(tmp_path, monkeypatch, read_bytes, chunk_size):
    """The compiled line cutter over reads of any size gives scikit-learn's rows, chunk by
    chunk, and skips exactly `skip` data lines (blank and comment lines not counted)."""
    monkeypatch.setattr("halfspaces.io._files._READ_BYTES", read_bytes)
    path = tmp_path / "d.svm"
    path.write_bytes(SVM_WITH_NOISE)
    X, y = load_svmlight_file(str(path), zero_based=False)
    for skip in (0, 1, 3, 6, 7):
        chunks = list(iter_chunks(path, chunk_size=chunk_size, n_features=5, skip=skip))
        rest, step = max(0, 6 - skip), chunk_size or 7
        assert [len(c[1]) for c in chunks] == [min(step, rest - i) for i in range(0, rest, step)]
        if chunks:
            assert np.array_equal(sp.vstack([c[0] for c in chunks]).toarray(),
                                  X[skip:].toarray())
            assert np.array_equal(np.concatenate([c[1] for c in chunks]), y[skip:])


class CountingReads(io.BytesIO):
    """A file whose reads are counted, with how many of them brought a line end."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.reads = self.reads_with_a_line_end = 0

    def read(self, size=-1):
        data = super().read(size)
        self.reads += 1
        self.reads_with_a_line_end += b"\n" in data
        return data


@pytest.mark.parametrize("text", [b"", b"\n", b"a", b"abc\n",
                                  b"1 1:1\n# " + b"x" * 5000 + b"\n-1 2:1",
                                  b"x" * 300 + b"\n" + b"y" * 7 + b"\n\n" + b"z" * 301 + b"\n"])
@pytest.mark.parametrize("size", [1, 3, 64, 1 << 16])
def test_line_ended_blocks_hold_each_line_whole_and_join_a_long_line_once(text, size):
    """The file's bytes in order, each block ending at a line end (the last at the end of
    the file), and one block per read that brought a line end (plus the unfinished last
    line): a line longer than a read is joined once, when its end arrives, not carried
    into every read (which copied a 128 MB line ~500 times)."""
    handle = CountingReads(text)
    blocks = list(line_ended_blocks(handle, size))
    assert b"".join(blocks) == text
    assert all(block.endswith(b"\n") for block in blocks[:-1])
    assert len(blocks) <= handle.reads_with_a_line_end + 1
    assert sum(map(len, blocks)) == len(text)


def test_svmlight_chunks_read_a_comment_line_longer_than_many_reads(tmp_path, monkeypatch):
    monkeypatch.setattr("halfspaces.io._files._READ_BYTES", 16)
    path = tmp_path / "d.svm"
    path.write_bytes(b"1 1:1\n# " + b"x" * 200_000 + b"\n-1 2:1 # " + b"y" * 1000 + b"\n1 1:2")
    chunks = list(iter_chunks(path, chunk_size=2, n_features=2))
    assert [c[1].tolist() for c in chunks] == [[1.0, -1.0], [1.0]]
    assert np.array_equal(sp.vstack([c[0] for c in chunks]).toarray(), [[1, 0], [0, 1], [2, 0]])


@pytest.mark.parametrize("read_bytes", [5, 1 << 22])
def test_svmlight_chunk_errors_name_the_line_after_skipped_and_blank_lines(
        tmp_path, monkeypatch, read_bytes):
    monkeypatch.setattr("halfspaces.io._files._READ_BYTES", read_bytes)
    path = tmp_path / "d.svm"
    path.write_bytes(b"# c\n1 1:1\n\n-1 2:1\n# c\n1 3:1\n-1 2:x\n")
    for chunk_size, skip in ((1, 0), (2, 1), (10, 2), (1, 3)):
        with pytest.raises(DataFileError, match=r"line 7: value 'x' of feature 2"):
            list(iter_chunks(path, chunk_size=chunk_size, n_features=3, skip=skip))


def test_reader_thread_stops_when_the_consumer_does(tmp_path):
    import threading
    import time

    path = tmp_path / "d.svm"
    path.write_bytes(b"1 1:1\n-1 2:1\n" * 500)
    chunks = iter_chunks(path, chunk_size=3, n_features=2)
    next(chunks)
    chunks.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(t.name == "halfspaces-reader"
                                              for t in threading.enumerate()):
        time.sleep(0.05)
    assert not any(t.name == "halfspaces-reader" for t in threading.enumerate())


def test_labels_are_compared_with_the_expected_classes_exactly(tmp_path):
    # float64 2**53 and int64 2**53 + 1 are one number in float64, where np.isin compared them
    path = tmp_path / "d.npz"
    np.savez(path, X=np.ones((3, 2)), y=np.array([0.0, 2.0**53, 0.0]))
    classes = np.array([0, 2**53 + 1], dtype=np.int64)
    with pytest.raises(DataFileError, match=r"label 9007199254740992.0 is not one of the "
                                            r"expected labels"):
        list(iter_chunks(path, chunk_size=2, classes=classes))
    chunks = list(iter_chunks(path, chunk_size=2, classes=np.array([0, 2**53])))
    assert sum(len(y) for _, y in chunks) == 3
