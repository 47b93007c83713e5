"""tools/mutant_check.py's bookkeeping on a made-up mutants/ tree (mutmut 3's .meta files)."""

import importlib.util
import json
import os
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "mutant_check.py"


@pytest.fixture()
def tool(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("mutant_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "ROOT", tmp_path)
    monkeypatch.setattr(module, "MUTANTS", tmp_path / "mutants")
    return module


def write_tree(root: Path) -> Path:
    """src/pkg/mod.py, its mutated copy and the copy's .meta with two verdicts."""
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "mutants" / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "mutants" / "src" / "pkg" / "mod.py").write_text("x = 1  # mutated\n")
    meta = root / "mutants" / "src" / "pkg" / "mod.py.meta"
    meta.write_text(json.dumps({
        "exit_code_by_key": {"pkg.mod.x_f__mutmut_1": 0, "pkg.mod.x_f__mutmut_2": None},
        "hash_by_function_name": {"x_f": "abc"}, "type_check_error_by_key": {},
        "durations_by_key": {"pkg.mod.x_f__mutmut_1": 0.5},
        "estimated_durations_by_key": {}}, indent=4))
    return meta


def test_records_find_each_mutant_and_record_changes_only_its_verdict(tool, tmp_path):
    meta = write_tree(tmp_path)
    assert tool.records() == {"pkg.mod.x_f__mutmut_1": meta, "pkg.mod.x_f__mutmut_2": meta}
    before = json.loads(meta.read_text())
    tool.record(meta, {"pkg.mod.x_f__mutmut_2": tool.KILLED})
    after = json.loads(meta.read_text())
    assert after["exit_code_by_key"] == {"pkg.mod.x_f__mutmut_1": 0,
                                         "pkg.mod.x_f__mutmut_2": 1}
    after["exit_code_by_key"] = before["exit_code_by_key"]
    assert after == before  # mutmut's other records are kept as they were
    assert tool.verdict_of(meta, "pkg.mod.x_f__mutmut_1") == 0
    assert tool.verdict_of(meta, "pkg.mod.x_f__mutmut_2") == tool.KILLED


def test_the_recorded_codes_read_as_killed_and_timeout_to_mutmut(tool):
    stats = pytest.importorskip("mutmut.stats")  # the 'mutation' extra
    assert (stats.status_by_exit_code[tool.KILLED],
            stats.status_by_exit_code[tool.TIMEOUT]) == ("killed", "timeout")


def test_a_source_newer_than_its_mutated_copy_is_refused(tool, tmp_path):
    meta = write_tree(tmp_path)
    copy = tmp_path / "mutants" / "src" / "pkg" / "mod.py"
    source = tmp_path / "src" / "pkg" / "mod.py"
    os.utime(source, (1_000, 1_000))
    os.utime(copy, (2_000, 2_000))
    tool.check_fresh(meta)  # the copy is newer: fine
    os.utime(source, (3_000, 3_000))
    with pytest.raises(SystemExit, match=r"src/pkg/mod\.py changed after mutmut copied it"):
        tool.check_fresh(meta)


def test_the_keyword_reaches_pytest_and_the_mutant_is_named_to_the_trampoline(tool, monkeypatch):
    seen = {}

    class Run:
        def __init__(self, command, env, **kwargs):
            seen.update(command=command, mutant=env["MUTANT_UNDER_TEST"])

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def wait(self, timeout):
            return 1

    monkeypatch.setattr(tool.subprocess, "Popen", Run)
    assert tool.judge("pkg.mod.x_f__mutmut_2", ["tests/a.py"], 5.0, "min_norm or qp") == 1
    assert seen["command"][-3:] == ["-k", "min_norm or qp", "tests/a.py"]
    assert seen["mutant"] == "pkg.mod.x_f__mutmut_2"
    tool.judge("pkg.mod.x_f__mutmut_2", ["tests/a.py"], 5.0)
    assert "-k" not in seen["command"]
    assert not tool.RUNNING


def test_a_stopped_check_kills_its_runs_and_starts_no_more(tool, tmp_path, monkeypatch):
    meta = write_tree(tmp_path)
    data = json.loads(meta.read_text())
    data["exit_code_by_key"].update({f"pkg.mod.x_f__mutmut_{i}": None for i in range(3, 9)})
    meta.write_text(json.dumps(data))
    calls, killed = [], []

    class Running:
        def kill(self):
            killed.append(self)

    def judge(name, *args):
        calls.append(name)
        tool.RUNNING.add(Running())
        raise KeyboardInterrupt  # as Ctrl-C, or SIGTERM's SystemExit, in the main thread

    monkeypatch.setattr(tool, "judge", judge)
    monkeypatch.setattr("sys.argv", ["mutant_check.py", "--tests", "t.py", "--jobs", "1",
                                     "pkg.mod.x_f__mutmut_*"])
    with pytest.raises(KeyboardInterrupt):
        tool.main()
    assert len(calls) <= 2 and len(killed) == len(calls)  # 8 queued: the rest were dropped


@pytest.mark.parametrize("jobs", [1, 2])
def test_parallel_jobs_record_every_verdict_once(tool, tmp_path, monkeypatch, capsys, jobs):
    meta = write_tree(tmp_path)
    codes = {"pkg.mod.x_f__mutmut_1": 1, "pkg.mod.x_f__mutmut_2": 0}
    monkeypatch.setattr(tool, "judge", lambda name, *args: codes[name])
    monkeypatch.setattr("sys.argv", ["mutant_check.py", "--tests", "t.py", "--record",
                                     "--jobs", str(jobs), "pkg.mod.x_f__mutmut_*"])
    tool.main()
    out = capsys.readouterr().out.splitlines()
    assert sorted(out) == ["pkg.mod.x_f__mutmut_1: killed", "pkg.mod.x_f__mutmut_2: survived"]
    # a kill overrides the earlier survival; a survival is recorded only where none was
    assert json.loads(meta.read_text())["exit_code_by_key"] == {
        "pkg.mod.x_f__mutmut_1": tool.KILLED, "pkg.mod.x_f__mutmut_2": 0}
