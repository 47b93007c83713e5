"""Hostile and unusual data files and output paths: no crash, no silent wrong answer, no lost
file.

Each test states the attack it answers. Oracles: the same data read from a plain file (for
pipes, BOMs, compressed files and reordered columns), the file system itself (modes, inodes,
file kinds) and, for garbled files, the contract of :mod:`halfspaces.io`: a parse to finite
data or a :class:`~halfspaces.io.DataFileError` that names the file, never another exception.
Every file is written inside pytest's ``tmp_path``.
"""

from __future__ import annotations

import bz2
import dataclasses
import errno
import gzip
import io
import json
import lzma
import os
import signal
import stat
import subprocess
import sys
import threading
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import halfspaces
from halfspaces.io import (
    DataFileError,
    OutputFileError,
    check_output,
    evaluate_stream,
    iter_chunks,
    read,
    safe_write,
    scan,
)
from halfspaces.io import _npfiles as npfiles
from halfspaces.io import model as model_module
from halfspaces.io import svmlight as svmlight_module

SVM = "1 1:2 2:1\n1 1:1 2:3\n-1 1:-1 2:-2\n-1 1:-2 2:-1\n"
CSV = "a,b,label\n2,1,1\n1,3,1\n-1,-2,-1\n-2,-1,-1\n"


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The command line in a subprocess (for a real standard input)."""
    env = {k: v for k, v in os.environ.items() if k not in ("HALFSPACES_DEBUG", "FORCE_COLOR")}
    env.update(NO_COLOR="1", COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "halfspaces", *args], capture_output=True,
                          text=True, env=env, timeout=120, input=stdin)


@dataclasses.dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(capsys, monkeypatch):
    """The command line in this process (quicker than a subprocess on a loaded machine)."""
    from halfspaces.cli import main

    monkeypatch.delenv("HALFSPACES_DEBUG", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")

    def run(*args: str) -> Ran:
        capsys.readouterr()
        try:
            main([str(a) for a in args])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        captured = capsys.readouterr()
        return Ran(code, captured.out, captured.err)

    return run


@pytest.fixture
def files(tmp_path):
    """A training file, its model and a CSV file, inside tmp_path."""
    (tmp_path / "t.svm").write_text(SVM)
    (tmp_path / "t.csv").write_text(CSV)
    X, y = read(tmp_path / "t.svm")
    halfspaces.save(halfspaces.Perceptron().fit(X, y), tmp_path / "m.hs",
                    extra={"data": {"zero_based": False}})
    return tmp_path


def read_fifo_in_background(path):
    """Read `path` (a FIFO) in a thread; returns a function giving what it read."""
    box = []
    thread = threading.Thread(target=lambda: box.append(open(path, "rb").read()), daemon=True)
    thread.start()

    def result(timeout=60.0):
        thread.join(timeout)
        if thread.is_alive():  # nothing reached the FIFO: unblock the reader, then fail
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            thread.join(5)
            return None
        return box[0]

    return result


# 3. --out onto special files ---------------------------------------------------------------

def test_safe_write_writes_through_a_fifo_and_keeps_it(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = read_fifo_in_background(fifo)
    safe_write(fifo, lambda handle: handle.write(b"through the pipe\n"))
    assert received() == b"through the pipe\n"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_predict_out_onto_a_fifo_and_dash(files, cli):
    fifo = files / "pipe"
    os.mkfifo(fifo)
    received = read_fifo_in_background(fifo)
    result = cli("predict", str(files / "m.hs"), str(files / "t.svm"), "--out", str(fifo))
    assert result.returncode == 0, result.stderr
    assert received() == b"1\n1\n-1\n-1\n"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    dash = cli("predict", str(files / "m.hs"), str(files / "t.svm"), "--out", "-")
    assert dash.returncode == 0 and dash.stdout == "1\n1\n-1\n-1\n"
    assert not (files / "-").exists()


def test_out_onto_a_directory_is_refused_before_any_work(files, cli):
    result = cli("fit", str(files / "t.svm"), "--out", str(files))
    assert result.returncode == 1
    assert "it is a directory" in result.stderr and "internal error" not in result.stderr


# 4. terminal escapes -----------------------------------------------------------------------

def test_control_characters_never_reach_the_terminal(tmp_path, cli):
    data = tmp_path / "esc\x1b]0;title\x07.csv"
    data.write_text("a,b,label\n1,2,\x1b[41mEVIL\x1b[0m\n-1,-2,ok\n")
    model = tmp_path / "esc.hs"
    fitted = cli("fit", str(data), "--out", str(model))
    assert fitted.returncode == 0, fitted.stderr
    evaluated = cli("evaluate", str(model), str(data))
    assert evaluated.returncode == 0, evaluated.stderr
    assert "\\x1b[41mEVIL" in evaluated.stdout  # shown, escaped
    bad = tmp_path / "bad\x1b[2J.svm"
    bad.write_text("1 1:x\n")
    failed = cli("fit", str(bad))
    assert failed.returncode == 1 and "\\x1b[2J" in failed.stderr
    for output in (fitted.stdout, evaluated.stdout, failed.stderr):
        assert not any(c in output for c in "\x1b\x07\x9b"), output


# 5. outputs that are inputs ----------------------------------------------------------------

@pytest.mark.parametrize("command", [
    ["fit", "{t.svm}", "--out", "{t.svm}"],
    ["fit", "{t.svm}", "--out", "{dir}/./t.svm"],
    ["fit", "{t.svm}", "--out", "{link}"],
    ["fit", "{t.svm}", "--test", "{t.csv}", "--out", "{t.csv}"],
    ["fit", "{t.svm}", "--stream", "--checkpoint", "{t.svm}"],
    ["fit", "{t.svm}", "--stream", "--checkpoint", "{ck}", "--out", "{ck}"],
    ["predict", "{m.hs}", "{t.csv}", "--out", "{t.csv}"],
    ["predict", "{m.hs}", "{t.svm}", "--out", "{m.hs}"],
    ["predict", "{m.hs}", "{t.svm}", "--out", "{hard}"],
])
def test_an_output_that_is_an_input_is_refused(files, command, cli):
    (files / "link").symlink_to(files / "t.svm")
    os.link(files / "t.svm", files / "hard")
    (files / "ck").write_bytes((files / "m.hs").read_bytes())
    before = {p.name: p.read_bytes() for p in files.iterdir() if p.is_file()}
    places = {"{dir}": str(files), **{f"{{{n}}}": str(files / n)
                                      for n in ("t.svm", "t.csv", "m.hs", "link", "hard", "ck")}}
    args = []
    for arg in command:
        for place, value in places.items():
            arg = arg.replace(place, value)
        args.append(arg)
    result = cli(*args)
    assert result.returncode == 1, result.stdout
    assert "same file as the input" in result.stderr
    assert {p.name: p.read_bytes() for p in files.iterdir() if p.is_file()} == before


def test_out_and_checkpoint_must_differ(files, cli):
    result = cli("fit", files / "t.svm", "--stream", "--checkpoint", files / "run.ck",
                 "--out", f"{files}/./run.ck")
    assert result.returncode == 1 and "also the --checkpoint" in result.stderr
    assert not (files / "run.ck").exists()


# 6. modes: the umask for new files, the old mode for replaced ones -------------------------

def test_new_files_follow_the_umask_and_replaced_files_keep_their_mode(files, cli):
    model = halfspaces.load(files / "m.hs")
    old = os.umask(0o027)
    try:
        halfspaces.save(model, files / "new.hs")
        assert stat.S_IMODE(os.stat(files / "new.hs").st_mode) == 0o640
        os.chmod(files / "new.hs", 0o664)
        halfspaces.save(model, files / "new.hs")
        assert stat.S_IMODE(os.stat(files / "new.hs").st_mode) == 0o664
    finally:
        os.umask(old)
    result = cli("predict", str(files / "m.hs"), str(files / "t.svm"), "--out",
                     str(files / "p.txt"))
    expected = 0o666 & ~old
    assert result.returncode == 0 and stat.S_IMODE(os.stat(files / "p.txt").st_mode) == expected


def test_writing_through_a_symlink_replaces_its_target(tmp_path):
    (tmp_path / "real.txt").write_text("old")
    (tmp_path / "link.txt").symlink_to("real.txt")
    safe_write(tmp_path / "link.txt", lambda handle: handle.write(b"new"))
    assert (tmp_path / "link.txt").is_symlink() and (tmp_path / "real.txt").read_text() == "new"


# 7. nothing written after a failure; the directory checked first; no temporary names -------

def test_a_failed_fit_writes_no_model(files, cli):
    (files / "empty.svm").write_text("")
    for extra in ([], ["--stream"]):
        result = cli("fit", str(files / "t.svm"), "--test", str(files / "empty.svm"),
                         "--out", str(files / "x.hs"), *extra)
        assert result.returncode == 1 and "empty.svm" in result.stderr
        assert not (files / "x.hs").exists()


def test_an_unwritable_output_is_refused_before_reading_the_data(tmp_path, cli):
    (tmp_path / "broken.svm").write_text("1 1:x\n")  # reading it would fail
    result = cli("fit", str(tmp_path / "broken.svm"), "--out",
                     str(tmp_path / "missing" / "m.hs"))
    assert result.returncode == 1
    assert "missing does not exist" in result.stderr and "line 1" not in result.stderr


def test_an_exception_just_after_the_temporary_is_created_removes_it(tmp_path, monkeypatch):
    # SIGTERM arriving between the temporary file's creation and the clean-up's try left an
    # empty .NAME.<host>-<pid>-<hex>.tmp behind (4 of 75 trials). A signal handler's
    # exception can arrive at any line, in whichever thread the signal reached: here it is
    # raised the instant os.open has created the file, before the caller sees the descriptor
    from halfspaces.io import _write

    class Ended(BaseException):  # as KeyboardInterrupt and the CLI's Signalled are
        pass

    real_open = os.open

    def open_then_interrupted(*args, **kwargs):
        real_open(*args, **kwargs)
        raise Ended

    monkeypatch.setattr(_write.os, "open", open_then_interrupted)
    with pytest.raises(Ended):
        safe_write(tmp_path / "model.hs", lambda handle: handle.write(b"new"))
    monkeypatch.undo()
    assert os.listdir(tmp_path) == []


def test_a_failed_write_names_the_file_not_a_temporary_one(tmp_path):
    path = tmp_path / "m.hs"
    path.write_bytes(b"old")

    def full_disk(handle):
        handle.write(b"partial")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(OutputFileError) as info:
        safe_write(path, full_disk)
    assert str(info.value).startswith(f"{path}: ") and ".tmp" not in str(info.value)
    assert "No space left" in str(info.value)
    assert path.read_bytes() == b"old" and sorted(os.listdir(tmp_path)) == ["m.hs"]


HELD_SAVE = """
import sys, time
import numpy as np
from halfspaces.cli import run

savez = np.savez

def held(handle, **arrays):  # write the model, then hold its temporary file open
    savez(handle, **arrays)
    print("writing", flush=True)
    time.sleep(600)

np.savez = held
sys.argv = ["halfspaces", *sys.argv[1:]]
run()
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_a_signal_during_a_save_leaves_the_old_file_and_no_temporary(files, signum):
    model = files / "m.hs"
    old = model.read_bytes()
    process = subprocess.Popen([sys.executable, "-c", HELD_SAVE, "fit", str(files / "t.svm"),
                                "--model", "perceptron", "--out", str(model)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline() == "writing\n", process.stderr.read()
        assert any(name.endswith(".tmp") for name in os.listdir(files))  # caught in the act
        process.send_signal(signum)
        process.wait(timeout=120)  # a guard: it ends at once
    finally:
        process.kill()
        process.communicate()
    assert process.returncode == -signum  # ended by the signal, as the parent expects
    assert model.read_bytes() == old
    assert not [name for name in os.listdir(files) if name.endswith(".tmp")]


def test_check_output_refuses_by_inode_and_accepts_new_files(tmp_path):
    (tmp_path / "d.svm").write_text(SVM)
    check_output(tmp_path / "new.hs", [tmp_path / "d.svm", None, tmp_path / "absent"])
    with pytest.raises(OutputFileError, match="same file as the input"):
        check_output(tmp_path / ".." / tmp_path.name / "d.svm", [tmp_path / "d.svm"])


# 12. empty data ----------------------------------------------------------------------------

def test_empty_data_is_an_error_naming_the_file(files, cli):
    empty = files / "empty.svm"
    empty.write_text("# only a comment\n")
    for args in (["evaluate", str(files / "m.hs"), str(empty)],
                 ["fit", str(empty), "--stream"],
                 ["fit", str(empty)],
                 ["predict", str(files / "m.hs"), str(empty)]):
        result = cli(*args)
        assert result.returncode == 1, args
        assert f"{empty}: the file holds no samples" in result.stderr, result.stderr
    with pytest.raises(DataFileError, match="no samples"):
        evaluate_stream(halfspaces.load(files / "m.hs"), empty)
    with pytest.raises(DataFileError, match="no samples"):
        read(empty)


# 13. piped, non-seekable input -------------------------------------------------------------

def test_piped_input_is_read_once_and_whole(files):
    result = run_cli("predict", str(files / "m.hs"), "/dev/stdin", stdin=SVM)
    assert result.returncode == 0 and result.stdout == "1\n1\n-1\n-1\n", result.stderr
    nothing = run_cli("predict", str(files / "m.hs"), "/dev/stdin", stdin="")
    assert nothing.returncode == 1 and "no samples" in nothing.stderr
    evaluated = run_cli("evaluate", str(files / "m.hs"), "/dev/stdin", "--json", stdin=SVM)
    assert json.loads(evaluated.stdout)["n_samples"] == 4


def _pipe_path(content: bytes) -> str:
    """A /dev/fd path to a pipe that a thread fills with `content` (what ``<(cat f)`` gives)."""
    read_end, write_end = os.pipe()

    def write():
        with open(write_end, "wb") as handle:
            try:
                handle.write(content)
            except BrokenPipeError:  # the reader stopped early
                pass

    threading.Thread(target=write, daemon=True).start()
    return f"/dev/fd/{read_end}"


def test_a_model_can_come_through_a_pipe(files, monkeypatch):
    content = (files / "m.hs").read_bytes()
    direct = halfspaces.load(files / "m.hs")
    path = _pipe_path(content)
    try:
        piped = halfspaces.load(path)
    finally:
        os.close(int(path.rsplit("/", 1)[1]))
    assert np.array_equal(piped.coef_, direct.coef_) and piped.classes_.tolist() == [-1, 1]
    result = subprocess.run([sys.executable, "-m", "halfspaces", "predict", "/dev/stdin",
                             str(files / "t.svm")], input=content, capture_output=True,
                            timeout=120)
    assert result.returncode == 0 and result.stdout == b"1\n1\n-1\n-1\n", result.stderr
    monkeypatch.setattr(model_module, "memory_budget", lambda: len(content) - 1)
    path = _pipe_path(content)
    try:
        with pytest.raises(halfspaces.io.model.ModelFileError, match="larger than half"):
            halfspaces.load(path)
    finally:
        os.close(int(path.rsplit("/", 1)[1]))


def test_a_fifo_is_read_like_the_file(tmp_path):
    fifo = tmp_path / "data.csv"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(CSV), daemon=True)
    writer.start()
    X, y = read(fifo)  # sniffing the header and parsing both see every line
    writer.join(5)
    assert X.tolist() == [[2, 1], [1, 3], [-1, -2], [-2, -1]] and y.tolist() == [1, 1, -1, -1]


# 14. byte-order marks, NaN labels, columns by name -----------------------------------------

BOM = "\ufeff"


def test_a_bom_is_not_part_of_the_data(tmp_path):
    cases = {"h.csv": "1,2,1\n-1,-2,-1\n", "n.csv": "a,b,label\n1,2,1\n-1,-2,-1\n",
             "d.svm": "1 1:1 2:2\n-1 1:-1 2:-2\n"}
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        (tmp_path / f"bom_{name}").write_text(BOM + text, encoding="utf-8")
        plain, marked = read(tmp_path / name), read(tmp_path / f"bom_{name}")
        dense = [x.toarray() if hasattr(x, "toarray") else x for x in (plain[0], marked[0])]
        assert np.array_equal(*dense) and np.array_equal(plain[1], marked[1]), name
    X, y = read(tmp_path / "bom_n.csv", label_column="a")
    assert y.tolist() == [1.0, -1.0]


def test_a_nan_label_is_an_error_not_a_class(tmp_path):
    for text in ("a,label\n1,yes\n2,NaN\n", "a,label\n1,yes\n2,\n", "a,label\n1,1\n2,nan\n"):
        (tmp_path / "d.csv").write_text(text)
        with pytest.raises(DataFileError, match=r"d\.csv, line 3: "):
            read(tmp_path / "d.csv")


def test_columns_are_matched_by_header_name(files, cli):
    model = files / "c.hs"
    assert cli("fit", str(files / "t.csv"), "--out", str(model)).returncode == 0
    shuffled = files / "s.csv"
    shuffled.write_text("label,b,a\n1,1,2\n1,3,1\n-1,-2,-1\n-1,-1,-2\n")
    for name in ("t.csv", "s.csv"):
        result = cli("evaluate", str(model), str(files / name), "--json")
        assert json.loads(result.stdout)["accuracy"] == 1.0, (name, result.stderr)
    direct = cli("predict", str(model), str(files / "t.csv")).stdout
    assert cli("predict", str(model), str(shuffled)).stdout == direct
    tested = cli("fit", str(files / "t.csv"), "--test", str(shuffled), "--json")
    assert json.loads(tested.stdout)["test_accuracy"] == 1.0
    renamed = files / "r.csv"
    renamed.write_text("label,b,c\n1,1,2\n")
    missing = cli("evaluate", str(model), str(renamed))
    assert missing.returncode == 1 and "no column named 'a'" in missing.stderr
    twice = files / "twice.csv"
    twice.write_text("a,b,a,label\n2,1,5,1\n")
    ambiguous = cli("evaluate", str(model), str(twice))
    assert ambiguous.returncode == 1 and "'a' appears more than once" in ambiguous.stderr


# 15. huge feature indices ------------------------------------------------------------------

def test_a_huge_index_is_refused_before_allocating(tmp_path, monkeypatch):
    path = tmp_path / "i.svm"
    path.write_text("1 1:1\n# a comment\n-1 2:1 2147483647:1\n")
    monkeypatch.setattr(svmlight_module, "dense_budget", lambda: 2**30)
    for reader in (lambda: read(path), lambda: scan(path),
                   lambda: list(iter_chunks(path, chunk_size=1))):
        with pytest.raises(DataFileError) as info:
            reader()
        assert str(info.value).startswith(f"{path}, line 3: feature index 2147483647")
        assert "16.0 GiB" in str(info.value)
    path.write_text("1 1:1 2147483648:1\n")
    with pytest.raises(DataFileError, match="index 2147483648 is too large"):
        read(path)


def test_the_cli_refuses_a_huge_index_by_name(tmp_path, monkeypatch, cli):
    path = tmp_path / "i.svm"
    path.write_text("1 1:1 2147483647:1\n-1 2:1\n")
    monkeypatch.setattr(svmlight_module, "dense_budget", lambda: 2**30)
    result = cli("fit", path)
    assert result.returncode == 1 and "line 1: feature index 2147483647" in result.stderr


# 17. compressed files, object arrays, the streaming report's epochs ------------------------

COMPRESSORS = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}


@pytest.mark.parametrize("kind", COMPRESSORS)
def test_a_compressed_file_is_read_whatever_its_name(tmp_path, kind):
    compress = COMPRESSORS[kind]
    for name, text in (("d.svm", SVM), ("d.csv", CSV)):
        (tmp_path / name).write_text(text)
        (tmp_path / f"packed_{name}").write_bytes(compress(text.encode()))
        plain, packed = read(tmp_path / name), read(tmp_path / f"packed_{name}")
        dense = [x.toarray() if hasattr(x, "toarray") else x for x in (plain[0], packed[0])]
        assert np.array_equal(*dense) and np.array_equal(plain[1], packed[1]), name
        chunks = list(iter_chunks(tmp_path / f"packed_{name}", chunk_size=3))
        assert np.array_equal(np.concatenate([y for _, y in chunks]), plain[1]), name
    (tmp_path / "cut.svm").write_bytes(compress(SVM.encode() * 50)[:-20])
    with pytest.raises(DataFileError, match=rf"cut\.svm: a damaged {kind} file"):
        read(tmp_path / "cut.svm")


def _comparable(report: dict) -> dict:
    """A JSON report without what differs between two runs on the same data: the file's
    name and the times."""
    return {k: v for k, v in report.items()
            if k not in ("dataset", "data", "fit_time_s", "compile_time_s")}


@pytest.mark.parametrize("kind", COMPRESSORS)
def test_every_command_reads_a_compressed_file_as_the_plain_one(files, cli, kind):
    plain, packed = files / "t.svm", files / "packed.svm"
    packed.write_bytes(COMPRESSORS[kind](SVM.encode()))
    model = files / "m.hs"
    for command in (["fit", "{}"], ["fit", "{}", "--stream", "--chunk-size", "3"],
                    ["certify", "{}"], ["evaluate", model, "{}"]):
        reports = []
        for path in (plain, packed):
            result = cli(*[path if arg == "{}" else arg for arg in command], "--json")
            assert result.returncode == 0, (command, result.stderr)
            reports.append(_comparable(json.loads(result.stdout)))
        assert reports[0] == reports[1], command
    predicted = cli("predict", model, packed)
    assert predicted.returncode == 0 and predicted.stdout == "1\n1\n-1\n-1\n"
    piped = subprocess.run([sys.executable, "-m", "halfspaces", "predict", str(model),
                            "/dev/stdin"], input=packed.read_bytes(), capture_output=True,
                           timeout=120)
    assert piped.returncode == 0 and piped.stdout == b"1\n1\n-1\n-1\n", piped.stderr


def test_an_object_array_npz_names_the_file(tmp_path):
    path = tmp_path / "o.npz"
    np.savez(path, X=np.array([[1.0], [2.0]], dtype=object), y=np.array([1, -1]))
    with pytest.raises(DataFileError, match=r"o\.npz: "):
        read(path)


def _npy_bytes(array) -> bytes:
    handle = io.BytesIO()
    np.save(handle, array)
    return handle.getvalue()


def _npz_bytes(**arrays) -> bytes:
    handle = io.BytesIO()
    np.savez(handle, **arrays)
    return handle.getvalue()


def _lying_npz() -> bytes:
    """An .npz whose X header declares shape (10**11, 3), 2.4 TB, over 48 bytes of data."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (10**11, 3)})
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as members:
        members.writestr("X.npy", header.getvalue() + bytes(48))
        members.writestr("y.npy", _npy_bytes(np.array([1.0, -1.0])))
    return archive.getvalue()


GOOD_NPZ = _npz_bytes(X=np.eye(2), y=np.array([1, -1]))
MALFORMED_NUMPY = {
    "cut.npz": (GOOD_NPZ[:-30], "a damaged .npz file"),
    "text.npz": (b"X,y\n1,2\n", "not a NumPy .npy or .npz file"),
    "packed.npy": (gzip.compress(_npy_bytes(np.eye(2))), "a gzip-compressed file"),
    "cut.npy": (_npy_bytes(np.eye(3))[:-8], "declares shape (3, 3) of float64 (72 bytes) but "
                                            "64 bytes follow it"),
    "huge.npz": (_lying_npz(), "array 'X': its header declares shape (100000000000, 3)"),
    "y0d.npz": (_npz_bytes(X=np.ones((1, 2)), y=np.float64(1)), "array 'y' has shape ()"),
    "x1d.npz": (_npz_bytes(X=np.ones(4), y=np.array([1, -1, 1, -1])),
                "array 'X' has shape (4,), not (samples, features)"),
    "x3d.npz": (_npz_bytes(X=np.ones((2, 2, 2)), y=np.array([1, -1])),
                "array 'X' has shape (2, 2, 2)"),
    "len.npz": (_npz_bytes(X=np.ones((4, 2)), y=np.array([1, -1])),
                "array 'y' holds 2 labels for the 4 rows of array 'X'"),
    "nox.npz": (_npz_bytes(features=np.ones((2, 2)), y=np.array([1, -1])),
                "needs arrays 'X' and 'y' (it has features, y)"),
    "strx.npz": (_npz_bytes(X=np.array([["1", "2"], ["3", "x"]]), y=np.array([1, -1])),
                 "array 'X', row 1: 'x' is not a number"),
    "complex.npz": (_npz_bytes(X=np.ones((2, 2)) * 1j, y=np.array([1, -1])),
                    "array 'X' holds complex128, not numbers"),
    "struct.npy": (_npy_bytes(np.zeros((4, 2), dtype=[("a", "f8"), ("b", "i4")])),
                   "its array holds [('a', '<f8'), ('b', '<i4')], not numbers"),
    "strs.npy": (_npy_bytes(np.array([["1", "2"], ["-1", "b"]])),
                 "features, row 1: 'b' is not a number"),
    "dates.npy": (_npy_bytes(np.zeros((2, 2), dtype="datetime64[s]")),
                  "its array holds datetime64[s], not numbers"),
}


@pytest.mark.parametrize("name", MALFORMED_NUMPY)
def test_a_malformed_numpy_file_is_one_line_naming_it(tmp_path, cli, name):
    content, problem = MALFORMED_NUMPY[name]
    path = tmp_path / name
    path.write_bytes(content)
    for reader in (lambda: read(path), lambda: list(iter_chunks(path, chunk_size=1))):
        with pytest.raises(DataFileError) as info:
            reader()
        assert str(info.value).startswith(f"{path}: ") and problem in str(info.value)
    result = cli("fit", path)
    assert result.returncode == 1 and problem in result.stderr, result.stderr
    assert "internal error" not in result.stderr and len(result.stderr.splitlines()) == 1


def test_an_npz_beyond_the_memory_budget_is_refused_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "big.npz"
    np.savez_compressed(path, X=np.zeros((1000, 100)), y=np.ones(1000))  # 800 kB in 1 kB
    monkeypatch.setattr(npfiles, "memory_budget", lambda: 100_000)
    with pytest.raises(DataFileError, match=r"big\.npz: its arrays take 0\.0 GiB, more than "
                                            "half of the memory this process may use"):
        read(path)


def test_numpy_files_through_a_fifo_and_with_text_labels_read_as_the_csv(tmp_path):
    (tmp_path / "t.csv").write_text("label,a,b\nyes,1,2\nno,-1,0.5\n")
    X, y = read(tmp_path / "t.csv")
    table = np.array([["yes", "1", "2"], ["no", "-1", "0.5"]])  # text, as np.save keeps it
    contents = {"t.npy": _npy_bytes(table), "t.npz": _npz_bytes(X=X, y=y)}
    for name, content in contents.items():
        (tmp_path / name).write_bytes(content)
        fifo = tmp_path / f"fifo_{name}"
        os.mkfifo(fifo)
        writer = threading.Thread(target=fifo.write_bytes, args=(content,), daemon=True)
        writer.start()
        for got in (read(tmp_path / name), read(fifo)):
            assert np.array_equal(got[0], X) and got[1].tolist() == y.tolist(), name
        writer.join(5)


def test_the_streaming_report_counts_its_epochs(files, cli):
    result = cli("fit", str(files / "t.svm"), "--stream", "--epochs", "3", "--json")
    assert json.loads(result.stdout)["n_epochs"] == 3, result.stderr


# garbled files (Hypothesis) ----------------------------------------------------------------

def _svmlight_text(rows) -> bytes:
    lines = []
    for label, features in rows:
        pairs = " ".join(f"{i}:{v}" for i, v in sorted(features.items()))
        lines.append(f"{label} {pairs}".rstrip())
    return ("\n".join(lines) + "\n").encode()


def _csv_text(rows) -> bytes:
    lines = ["x1,x2,x3,label"] + [f"{a},{b},{c},{label}" for label, (a, b, c) in rows]
    return ("\n".join(lines) + "\n").encode()


svmlight_rows = st.lists(st.tuples(st.sampled_from([1, -1]), st.dictionaries(
    st.integers(1, 20), st.floats(-1e3, 1e3, allow_nan=False).map(lambda v: round(v, 3)),
    max_size=5)), min_size=1, max_size=8)
csv_rows = st.lists(st.tuples(st.sampled_from(["yes", "no", "1", "-1"]), st.tuples(
    *[st.floats(-1e3, 1e3, allow_nan=False).map(lambda v: round(v, 3))] * 3)),
    min_size=1, max_size=8)


@st.composite
def mutations(draw, text: bytes) -> bytes:
    """Structure-aware damage: what truncated downloads, editors and attackers produce."""
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["truncate", "flip", "insert", "huge", "bom", "control",
                                     "blank", "gzip", "duplicate"]))
        at = draw(st.integers(0, len(text)))
        if kind == "truncate":
            text = text[:at]
        elif kind == "flip" and text:
            at = min(at, len(text) - 1)
            text = text[:at] + bytes([draw(st.integers(0, 255))]) + text[at + 1:]
        elif kind == "insert":
            text = text[:at] + draw(st.sampled_from(
                [b":", b" ", b",", b"#", b"\r", b"\0", b"nan", b"1e999", b"-", b"\xff\xfe",
                 b"qid:1 "])) + text[at:]
        elif kind == "huge":
            index = draw(st.sampled_from([2**31 - 1, 2**31, 2**40, 10**30, 2**26]))
            text = text.rstrip(b"\n") + f" {index}:1\n".encode()
        elif kind == "bom":
            text = b"\xef\xbb\xbf" + text
        elif kind == "control":
            text = text[:at] + bytes([draw(st.sampled_from([0x1b, 0x07, 0x08, 0x7f, 0x9b]))]) \
                + text[at:]
        elif kind == "blank":
            text = text[:at] + b"\n\n  \n" + text[at:]
        elif kind == "gzip":
            text = gzip.compress(text)
        else:
            text = text + text
    return text


def _assert_clean(path) -> None:
    """A parse to finite data, or a DataFileError naming the file; nothing else. Both the
    whole-file reader and the streaming one (another code path) are tried."""
    for reader in (lambda: [read(path)], lambda: list(iter_chunks(path, chunk_size=3))):
        try:
            blocks = reader()
        except DataFileError as exc:
            assert str(exc).startswith(f"{path}"), str(exc)
            continue
        for X, y in blocks:
            data = X.data if hasattr(X, "indptr") else np.asarray(X)
            assert np.isfinite(data).all() and X.shape[0] == len(y) > 0
            if y.dtype.kind == "f":
                assert np.isfinite(y).all()


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_garbled_svmlight_files_parse_or_name_the_file(tmp_path, data):
    path = tmp_path / "g.svm"
    path.write_bytes(data.draw(mutations(_svmlight_text(data.draw(svmlight_rows)))))
    _assert_clean(path)


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_garbled_csv_files_parse_or_name_the_file(tmp_path, data):
    path = tmp_path / "g.csv"
    path.write_bytes(data.draw(mutations(_csv_text(data.draw(csv_rows)))))
    _assert_clean(path)



def _held_writer(files, model):
    """A ``fit --out model`` process holding its temporary file open (see HELD_SAVE)."""
    process = subprocess.Popen([sys.executable, "-c", HELD_SAVE, "fit", str(files / "t.svm"),
                                "--model", "perceptron", "--out", str(model)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "writing\n", process.stderr.read()
    return process


def _temporaries(folder):
    return {name for name in os.listdir(folder) if name.endswith(".tmp")}


def test_a_later_write_removes_the_temporary_of_a_killed_writer_only(files):
    # kill -9 cannot be caught: its writer's temporary file stays; the next write of the
    # same file removes it, but never that of a writer still running
    model = files / "m.hs"
    killed = _held_writer(files, model)
    stale = _temporaries(files)
    killed.kill()
    killed.communicate(timeout=120)  # a guard: it ends at once
    assert len(stale) == 1 and _temporaries(files) == stale
    running = _held_writer(files, model)
    try:
        live = _temporaries(files) - stale
        done = subprocess.run([sys.executable, "-m", "halfspaces", "fit", str(files / "t.svm"),
                               "--model", "perceptron", "--out", str(model)],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert _temporaries(files) == live and len(live) == 1
    finally:
        running.kill()
        running.communicate()
    halfspaces.load(model)  # the last write is whole


def test_stale_temporaries_of_other_files_and_hosts_are_kept(tmp_path):
    from halfspaces.io._write import remove_stale_temporaries

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, timeout=120)
    pid = int(dead.stdout)  # ended: no process has it (unless reused at once)
    ours = halfspaces.io._write._HOST
    names = {f".m.hs.{ours}-{pid}-0123abcd.tmp": True,  # removed
             f".m.hs.{'0' * 8 if ours != '0' * 8 else '1' * 8}-{pid}-0123abcd.tmp": False,
             f".other.hs.{ours}-{pid}-0123abcd.tmp": False,
             f".m.hs.{ours}-{os.getpid()}-0123abcd.tmp": False,  # this process: running
             f".m.hs.{ours}-{pid}-0123abcd.tmp.keep": False,
             f".m.hs.{ours}-0-0123abcd.tmp": False}  # 0 is no process id
    for name in names:
        (tmp_path / name).write_text("x")
    removed = remove_stale_temporaries(tmp_path / "m.hs")
    assert removed == [str(tmp_path / n) for n, gone in names.items() if gone]
    assert set(os.listdir(tmp_path)) == {n for n, gone in names.items() if not gone}
