"""The command line in a hostile environment: no writable cache folder, closed streams, a
reader that goes away, absurd terminal widths, an ASCII locale, a deleted working directory.

Each case runs ``python -m halfspaces`` in a child process with that environment (the
streams and the working directory of a process cannot be broken from inside pytest), except
where the CLI reads the environment at each call (``COLUMNS``).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from _child import SOURCE, read_only_install
from _cli import run_cli_text
from sklearn.datasets import dump_svmlight_file

from halfspaces import _fast
from halfspaces._utils.descriptors import point_at_null
from halfspaces.cli import _output, main
from halfspaces.io import OutputFileError, safe_write

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX streams and shells")

HANG_GUARD = 240  # seconds: a guard against a hang, not a timing


def environment(**changes: str | None) -> dict[str, str]:
    """This process's environment for a child CLI: the halfspaces under test, no debug
    traceback, output unbuffered as a user's shell leaves it (PYTHONUNBUFFERED hides what
    happens to output still buffered at exit); `changes` set, or remove where None."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("HALFSPACES_DEBUG", "PYTHONUNBUFFERED", "FORCE_COLOR")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (SOURCE, env.get("PYTHONPATH")) if p)
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def shell_cli(redirect: str, *args: str, cwd: Path, **changes: str | None,
              ) -> subprocess.CompletedProcess:
    """``python -m halfspaces ARGS`` run by ``sh`` after `redirect` (e.g. ``exec >&-``)."""
    script = f'{redirect}\nexec "$@"'
    return subprocess.run(["sh", "-c", script, "sh", sys.executable, "-m", "halfspaces", *args],
                          capture_output=True, env=environment(**changes), cwd=cwd,
                          timeout=HANG_GUARD)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A small separable training file and a model fitted on it."""
    folder = tmp_path_factory.mktemp("environment")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.where(X @ [1.0, -1.0, 0.5] > 0, 1, -1)
    dump_svmlight_file(X, y, str(folder / "t.svm"), zero_based=False)
    run_cli_text("fit", str(folder / "t.svm"), "--model", "perceptron", "--out",
                 str(folder / "m.hs"), "--quiet")
    return folder


# 1. Numba's cache --------------------------------------------------------------------------

def unusable(tmp_path: Path) -> Path:
    """A path that no user, root included, can make a folder at: it is under a file."""
    (tmp_path / "a-file").write_text("")
    return tmp_path / "a-file" / "folder"


def test_loops_compile_and_cache_where_numba_has_no_writable_cache_folder(tmp_path):
    # a system-wide install run by a user whose home and NUMBA_CACHE_DIR cannot be written:
    # Numba found no folder ("cannot cache function ... no locator available") and every
    # loop module failed to import
    code = ("import numpy as np\n"
            "from halfspaces._fast import cache_folder, is_cached\n"
            "from halfspaces._fast.labels import two_or_fewer\n"
            "two_or_fewer(np.array([1.0, -1.0]))\n"
            "print(cache_folder('labels'), is_cached('labels'))\n")
    (tmp_path / "tmp").mkdir()
    with read_only_install(tmp_path) as site:
        before = sorted(site.rglob("*"))
        env = environment(PYTHONPATH=str(site), HOME=str(unusable(tmp_path)),
                          XDG_CACHE_HOME=str(unusable(tmp_path)),
                          NUMBA_CACHE_DIR=str(unusable(tmp_path)),
                          TMPDIR=str(tmp_path / "tmp"), PYTHONDONTWRITEBYTECODE="1")
        runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               env=env, cwd=tmp_path, timeout=HANG_GUARD) for _ in range(2)]
    for result in runs:
        assert result.returncode == 0, result.stderr
        assert "cannot cache" not in result.stderr
    folder, cached = runs[0].stdout.split()
    private = tmp_path / "tmp" / f"halfspaces-numba-{os.getuid()}"
    assert Path(folder).is_relative_to(private) and cached == "True"
    assert list(Path(folder).glob("labels.two_or_fewer-*.nbi"))
    assert private.stat().st_mode & 0o777 == 0o700
    assert runs[1].stdout == runs[0].stdout  # the second run found the first one's cache
    assert sorted(site.rglob("*")) == before  # nothing written into the install


def test_a_cache_folder_another_user_could_write_is_never_used(tmp_path, monkeypatch):
    # Numba loads compiled code from its cache folder: a folder of that name that others
    # can write, or a link, could hand this user someone else's code
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    shared = tmp_path / f"halfspaces-numba-{os.getuid()}"
    assert _fast._private_folder() == str(shared)
    assert shared.stat().st_mode & 0o777 == 0o700
    shared.chmod(0o777)
    chosen = Path(_fast._private_folder())
    assert chosen != shared and chosen.parent == tmp_path
    assert chosen.stat().st_mode & 0o777 == 0o700
    shared.rmdir()
    shared.symlink_to(tmp_path)
    assert Path(_fast._private_folder()) not in (shared, tmp_path)


# 2. broken pipes and closed streams --------------------------------------------------------

def closed_pipe_run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The CLI writing into a pipe whose reader is already gone (``| head -c 0``)."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        return subprocess.run([sys.executable, "-m", "halfspaces", *args], stdout=writer,
                              stderr=subprocess.PIPE, env=environment(), cwd=cwd,
                              timeout=HANG_GUARD)
    finally:
        os.close(writer)


@pytest.mark.parametrize("args", [("fit", "t.svm", "--json", "--model", "perceptron"),
                                  ("predict", "m.hs", "t.svm"),
                                  ("predict", "m.hs", "t.svm", "--out", "/proc/self/fd/1")],
                         ids=["fit", "predict", "predict --out pipe"])
def test_a_reader_that_goes_away_ends_the_command_quietly(files, args):
    # the output was still buffered at exit: Python printed "Exception ignored ...
    # BrokenPipeError" and exited with 120
    result = closed_pipe_run(*args, cwd=files)
    assert result.returncode == 1
    assert result.stderr == b""


def test_point_at_null_moves_the_descriptor_itself(tmp_path, monkeypatch):
    # the one step the CLI (after a reader went away) and the HiGHS guard (stderr closed)
    # share; a file in tmp_path stands for the null device
    null, target = tmp_path / "null", tmp_path / "target"
    null.write_bytes(b"")
    monkeypatch.setattr(os, "devnull", str(null))
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT)
    try:
        point_at_null(descriptor)
        os.write(descriptor, b"discarded")
    finally:
        os.close(descriptor)
    assert target.read_bytes() == b"" and null.read_bytes() == b"discarded"


def test_a_closed_stdout_is_an_error_not_a_silent_success(files):
    # the results went nowhere and the exit status said success
    for args in (("fit", "t.svm", "--json", "--model", "perceptron"),
                 ("predict", "m.hs", "t.svm")):
        result = shell_cli("exec >&-", *args, cwd=files)
        assert result.returncode == 1, args
        assert b"standard output is closed" in result.stderr, result.stderr


def test_a_closed_stdout_does_not_stop_a_command_that_writes_a_file(files, tmp_path):
    result = shell_cli("exec >&-", "predict", "m.hs", "t.svm", "--out",
                       str(tmp_path / "p.txt"), cwd=files)
    assert result.returncode == 0, result.stderr
    assert len((tmp_path / "p.txt").read_text().splitlines()) == 60


def test_a_closed_stderr_does_not_fail_the_command(files):
    # asking whether stderr was a terminal raised AttributeError on None: exit 1, no output
    result = shell_cli("exec 2>&-", "fit", "t.svm", "--model", "perceptron", cwd=files)
    assert result.returncode == 0
    assert "train accuracy" in result.stdout.decode()


# 3. terminals and locales ------------------------------------------------------------------

def test_a_terminal_width_of_zero_still_shows_the_error(tmp_path):
    # Rich printed nothing at all at 0 columns, the error included
    missing = tmp_path / "missing.svm"
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err), \
            mock.patch.dict(os.environ, {"COLUMNS": "0"}), \
            pytest.raises(SystemExit) as ended:
        main(["fit", str(missing)])
    assert ended.value.code == 1
    assert f"{missing}: cannot read the file" in " ".join(err.getvalue().split())


def test_a_narrow_terminal_folds_values_instead_of_cutting_them(files, tmp_path):
    # a long --out path was shown as "a_rather_long_.../and_anoth…": where is the model?
    out = tmp_path / ("a_rather_long_directory_name_" * 3) / "the_model_file.hs"
    out.parent.mkdir()
    for columns in ("1", "80"):
        with mock.patch.dict(os.environ, {"COLUMNS": columns}):
            stdout, _ = run_cli_text("fit", str(files / "t.svm"), "--model", "perceptron",
                                     "--out", str(out), "--quiet")
        assert "…" not in stdout
        assert str(out) in "".join(cell_texts(stdout)), stdout


def cell_texts(table: str) -> list[str]:
    """The text of a Rich table's cells, line by line, borders and padding removed."""
    return ["".join(part.strip() for part in line.split("│")) for line in table.splitlines()]


@pytest.mark.parametrize("width", [{"TERMINAL_WIDTH": "abc"}, {"COLUMNS": "99999999999"}],
                         ids=["not-a-number", "huge"])
def test_help_survives_an_absurd_terminal_width(tmp_path, width):
    # typer's int() of TERMINAL_WIDTH failed ("error: invalid literal for int()"), and Rich
    # drew the help 99999999999 columns wide ("internal error, MemoryError")
    result = subprocess.run([sys.executable, "-m", "halfspaces", "--help"],
                            capture_output=True, text=True, timeout=HANG_GUARD, cwd=tmp_path,
                            env=environment(**width))
    assert result.returncode == 0, result.stderr
    assert "Usage" in result.stdout


def test_an_ascii_locale_reports_non_ascii_names_and_writes_labels_as_utf8(tmp_path):
    # the fit's report raised UnicodeEncodeError after the model was saved (exit 1), and
    # predict failed on the first label
    data = tmp_path / "données.csv"
    rows = [f"{x:.1f},{'été' if x > 0 else 'hiver'}" for x in np.linspace(-2, 2, 20)]
    data.write_text("x,label\n" + "\n".join(rows) + "\n", encoding="utf-8")
    env = environment(PYTHONIOENCODING="ascii", NO_COLOR="1")

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "halfspaces", *args], capture_output=True,
                              env=env, cwd=tmp_path, timeout=HANG_GUARD)

    fitted = cli("fit", data.name, "--model", "perceptron", "--out", "modèle.hs")
    assert fitted.returncode == 0, fitted.stderr
    assert b"donn\\xe9es.csv" in fitted.stdout and b"mod\\xe8le.hs" in fitted.stdout
    predicted = cli("predict", "modèle.hs", data.name)
    written = cli("predict", "modèle.hs", data.name, "--out", "p.txt")
    assert predicted.returncode == written.returncode == 0, predicted.stderr
    assert predicted.stdout == (tmp_path / "p.txt").read_bytes()
    assert predicted.stdout.decode("utf-8").split() == [row.split(",")[1] for row in rows]
    missing = cli("fit", "manquées.csv")
    assert missing.returncode == 1 and b"manqu\\xe9es.csv: cannot read" in missing.stderr


# 4. limits ---------------------------------------------------------------------------------

def test_running_out_of_memory_is_a_message_not_an_internal_error():
    message = _output.describe(MemoryError())
    assert message.startswith("out of memory") and "internal error" not in message
    sized = _output.describe(MemoryError("Unable to allocate 8.00 GiB for an array"))
    assert "Unable to allocate 8.00 GiB" in sized


@pytest.fixture
def full_disk(tmp_path):
    """A 64 KiB tmpfs (root only), unmounted afterwards."""
    mount = tmp_path / "full"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                          capture_output=True, timeout=60)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode(errors='replace')}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True, timeout=60)


def test_a_full_disk_keeps_the_old_model_and_names_it(files, full_disk):
    model = full_disk / "m.hs"
    model.write_bytes(b"the old model")
    X = np.random.default_rng(1).normal(size=(50, 4000))  # a 4000-feature model: > 64 KiB
    np.savez(files / "wide.npz", X=X, y=np.where(X[:, 0] > 0, 1, -1))
    result = subprocess.run([sys.executable, "-m", "halfspaces", "fit", "wide.npz", "--epochs",
                             "1", "--out", str(model), "--quiet"], capture_output=True,
                            text=True, env=environment(), cwd=files, timeout=HANG_GUARD)
    assert result.returncode == 1
    assert f"{model}: cannot write it (No space left on device)" in result.stderr
    assert model.read_bytes() == b"the old model" and os.listdir(full_disk) == ["m.hs"]


# 5. the working directory ------------------------------------------------------------------

def test_a_deleted_working_directory_is_named_as_the_cause(files, tmp_path):
    # relative paths cannot be opened there: "error: [Errno 2] No such file or directory"
    (tmp_path / "gone").mkdir()
    result = shell_cli("cd gone && rmdir ../gone || exit 99", "fit",
                       str(files / "t.svm"), "--out", "m.hs", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert b"the current directory no longer exists" in result.stderr


def test_a_relative_output_without_a_working_directory_is_refused_by_name(tmp_path,
                                                                          monkeypatch):
    def deleted():
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(os, "getcwd", deleted)
    with pytest.raises(OutputFileError, match="^m.hs: .*current directory no longer exists"):
        safe_write("m.hs", lambda handle: handle.write(b"x"))
    safe_write(tmp_path / "m.hs", lambda handle: handle.write(b"x"))  # absolute: fine
    assert (tmp_path / "m.hs").read_bytes() == b"x"


def test_json_reports_are_unchanged_by_the_guards(files):
    # the guards restore what they change: an in-process run sees its own streams
    saved = sys.stdout, sys.stderr, os.environ.get("COLUMNS")
    stdout, _ = run_cli_text("fit", str(files / "t.svm"), "--model", "perceptron", "--json")
    assert json.loads(stdout)["n_train"] == 60
    assert (sys.stdout, sys.stderr, os.environ.get("COLUMNS")) == saved
