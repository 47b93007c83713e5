"""tools/mutation_survivors.py on a made-up mutated module (mutmut 3's x_f__mutmut_N layout)."""

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "mutation_survivors.py"

MUTATED = '''
def x_f__mutmut_orig(z, limit):
    a = np.asarray(z, dtype=float)
    if a.max() > limit:
        raise ValueError("Too large: rescale")
    return solve(a, check_finite=False, tol=1e-12)


def x_f__mutmut_1(z, limit):
    a = np.asarray(z, )
    if a.max() > limit:
        raise ValueError("Too large: rescale")
    return solve(a, check_finite=False, tol=1e-12)


def x_f__mutmut_2(z, limit):
    a = np.asarray(z, dtype=float)
    if a.max() >= limit:
        raise ValueError("Too large: rescale")
    return solve(a, check_finite=False, tol=1e-12)


def x_f__mutmut_3(z, limit):
    a = np.asarray(z, dtype=float)
    if a.max() > limit:
        raise ValueError("XXToo large: rescaleXX")
    return solve(a, check_finite=False, tol=1e-12)


def x_f__mutmut_4(z, limit):
    a = np.asarray(z, dtype=float)
    if a.max() > limit:
        raise ValueError("Too large: rescale")
    return solve(a, check_finite=None, tol=1e-12)


def x_f__mutmut_5(z, limit):
    a = np.asarray(z, dtype=float)
    if a.max() > limit:
        raise ValueError("Too large: rescale")
    return solve(a, check_finite=False, tol=1.000000000001)


def x_f__mutmut_6(z, limit):
    a = np.asarray(z, dtype=float)
    if a.max() > limit:
        raise ValueError(None)
    return solve(a, check_finite=False, tol=1e-12)


class C:
    def xǁCǁm__mutmut_orig(self):
        return self.k + 1

    def xǁCǁm__mutmut_1(self):
        return self.k - 1
'''

RESULTS = """
    pkg.mod.x_f__mutmut_1: survived
    pkg.mod.x_f__mutmut_2: survived
    pkg.mod.x_f__mutmut_3: survived
    pkg.mod.x_f__mutmut_4: survived
    pkg.mod.x_f__mutmut_5: survived
    pkg.mod.x_f__mutmut_6: survived
    pkg.mod.x_f__mutmut_7: killed
    pkg.mod.x_f__mutmut_8: not checked
    pkg.mod.xǁCǁm__mutmut_1: no tests
"""


@pytest.fixture()
def tool(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("mutation_survivors", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    (tmp_path / "mutants" / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "mutants" / "src" / "pkg" / "mod.py").write_text(MUTATED)
    monkeypatch.setattr(module, "MUTANTS", tmp_path / "mutants")
    return module


def test_only_survivors_and_untested_mutants_are_listed(tool):
    found = tool.survivors(RESULTS.splitlines())
    assert [name for name, _ in found] == [f"pkg.mod.x_f__mutmut_{i}" for i in range(1, 7)] \
        + ["pkg.mod.xǁCǁm__mutmut_1"]
    assert found[-1][1] == "no tests"


def test_each_change_is_shown_and_classed_by_what_it_changes(tool):
    text = tool.listing(tool.survivors(RESULTS.splitlines()))
    rows = {line.split(" | ")[0].strip("| "): line for line in text.splitlines()
            if line.startswith("| x")}
    expected = {"x_f__mutmut_1": "dtype", "x_f__mutmut_2": "boundary",
                "x_f__mutmut_3": "text", "x_f__mutmut_4": "check",
                "x_f__mutmut_5": "constant", "x_f__mutmut_6": "other",
                "xǁCǁm__mutmut_1": "no tests"}
    assert {name: row.split(" | ")[-2] for name, row in rows.items()} == expected
    assert "`if a.max() > limit:` -> `if a.max() >= limit:`" in rows["x_f__mutmut_2"]
    assert "`return self.k + 1` -> `return self.k - 1`" in rows["xǁCǁm__mutmut_1"]
    assert text.splitlines()[4] == ("7 mutants survived or had no test: boundary 1, check 1, "
                                    "constant 1, dtype 1, no tests 1, other 1, text 1.")
    assert "## pkg.mod (7)" in text


REASONS = """
[[why]]
mutants = ["pkg.mod.x_f__mutmut_1", "pkg.mod.x_f__mutmut_4"]
reason = "`a` is float64 | finite already."

[[open]]
mutants = ["pkg.mod.x_f__mutmut_2"]
reason = "a maximum equal to `limit` would be refused."

[[why]]
mutants = ["pkg.mod.x_f__mutmut_7"]
reason = "killed since: a stale reason."

[[fixed]]
mutants = ["pkg.mod.x_f__mutmut_3"]
reason = "the check is now `>=`."
"""


def test_each_survivor_shows_its_reason_and_the_unexplained_are_counted(tool):
    pytest.importorskip("tomllib")
    reasons = tool.read_reasons(REASONS)
    text = tool.listing(tool.survivors(RESULTS.splitlines()), reasons)
    why = {line.split(" | ")[0].strip("| "): line.split(" | ")[-1].rstrip(" |")
           for line in text.splitlines() if line.startswith("| x")}
    assert why["x_f__mutmut_1"] == why["x_f__mutmut_4"] == "`a` is float64 \\| finite already."
    assert why["x_f__mutmut_2"] == "**open:** a maximum equal to `limit` would be refused."
    assert why["x_f__mutmut_3"] == "**fixed:** the check is now `>=`."
    assert why["x_f__mutmut_5"] == why["xǁCǁm__mutmut_1"] == tool.NOT_EXPLAINED
    assert text.splitlines()[5] == ("Explained as equivalent: 2; open: 1; fixed since: 1; "
                                    "not explained: 3.")


@pytest.mark.parametrize("bad, message", [
    ('[[why]]\nmutants = ["a", "b"]\nreason = "x"\n[[open]]\nmutants = ["b"]\nreason = "y"',
     "b has two reasons"),
    ('[[why]]\nmutants = ["a"]\nreason = " "', "an empty reason"),
    ('[[maybe]]\nmutants = ["a"]\nreason = "x"', "unknown table"),
])
def test_reasons_are_refused_when_doubled_empty_or_of_an_unknown_kind(tool, bad, message):
    pytest.importorskip("tomllib")
    with pytest.raises(ValueError, match=message):
        tool.read_reasons(bad)


def test_every_listed_survivor_of_the_repository_is_explained():
    # benchmarks/MUTATION_SURVIVORS.md is what the tool wrote from the last measured run and
    # benchmarks/mutation_reasons.toml: a survivor without a reason is an unfinished job
    listed = SCRIPT.parents[1] / "benchmarks" / "MUTATION_SURVIVORS.md"
    rows = [line for line in listed.read_text().splitlines() if line.startswith("| x")]
    assert rows
    reasons = {row.split(" | ")[0]: row.split(" | ")[-1].rstrip(" |") for row in rows}
    assert all(row.count(" | ") == 3 for row in rows)  # mutant, change, class, why
    assert [name for name, why in reasons.items() if why in ("", "**not explained**")] == []
