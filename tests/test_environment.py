"""The command line in a hostile environment: no writable cache folder, closed streams, a
reader that goes away, absurd terminal widths, an ASCII locale, a deleted working directory.

Each case runs ``python -m halfspaces`` in a child process with that environment (the
streams and the working directory of a process cannot be broken from inside pytest), except
where the CLI reads the environment at each call (``COLUMNS``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _child import SOURCE
from _cli import run_cli_text
from sklearn.datasets import dump_svmlight_file

import halfspaces
from halfspaces import _fast
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
    site = tmp_path / "site"
    shutil.copytree(Path(halfspaces.__file__).parent, site / "halfspaces",
                    ignore=shutil.ignore_patterns("__pycache__"))
    # a file where the in-tree cache folder would go: unusable even for root, who writes
    # through permission bits
    (site / "halfspaces" / "_fast" / "__pycache__").write_text("")
    for path in [site, *site.rglob("*")]:
        path.chmod(path.stat().st_mode & ~0o222)
    before = sorted(site.rglob("*"))
    code = ("import numpy as np\n"
            "from halfspaces._fast import cache_folder, is_cached\n"
            "from halfspaces._fast.labels import two_or_fewer\n"
            "two_or_fewer(np.array([1.0, -1.0]))\n"
            "print(cache_folder('labels'), is_cached('labels'))\n")
    (tmp_path / "tmp").mkdir()
    env = environment(PYTHONPATH=str(site), HOME=str(unusable(tmp_path)),
                      XDG_CACHE_HOME=str(unusable(tmp_path)),
                      NUMBA_CACHE_DIR=str(unusable(tmp_path)),
                      TMPDIR=str(tmp_path / "tmp"), PYTHONDONTWRITEBYTECODE="1")
    try:
        runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               env=env, cwd=tmp_path, timeout=HANG_GUARD) for _ in range(2)]
    finally:
        for path in [site, *site.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)  # so that tmp_path can be removed
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


# 5. the working directory ------------------------------------------------------------------

def test_a_relative_output_without_a_working_directory_is_refused_by_name(tmp_path,
                                                                          monkeypatch):
    def deleted():
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(os, "getcwd", deleted)
    with pytest.raises(OutputFileError, match="^m.hs: .*current directory no longer exists"):
        safe_write("m.hs", lambda handle: handle.write(b"x"))
    safe_write(tmp_path / "m.hs", lambda handle: handle.write(b"x"))  # absolute: fine
    assert (tmp_path / "m.hs").read_bytes() == b"x"
