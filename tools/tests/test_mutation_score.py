"""tools/mutation_score.py on a canned ``mutmut results --all true`` listing."""

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "mutation_score.py"

# mutmut 3's format: four spaces, the mutant's key, a colon, its verdict
RESULTS = """\
    halfspaces.losses.x_hinge__mutmut_1: killed
    halfspaces.losses.x_hinge__mutmut_2: survived
    halfspaces.losses.x_hinge__mutmut_3: timeout
    halfspaces.losses.x_hinge__mutmut_4: not checked
    halfspaces.losses.x_hinge__mutmut_5: not checked
    halfspaces._exact.feasibility.x_decide__mutmut_1: killed
    halfspaces._exact.feasibility.x_decide__mutmut_2: no tests
    halfspaces._exact.feasibility.x_decide__mutmut_3: skipped
    halfspaces._exact.feasibility.xǁGordanǁ__init____mutmut_1: killed
    halfspaces._exact.feasibility.xǁGordanǁ__init____mutmut_2: segfault
    halfspaces.theory.vc.x_shatters__mutmut_1: not checked
"""


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("mutation_score", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_modules_are_split_before_the_function_or_class(script):
    counts = script.count(RESULTS.splitlines())
    assert set(counts) == {"halfspaces.losses", "halfspaces._exact.feasibility",
                           "halfspaces.theory.vc"}


def test_score_counts_tested_mutants_only(script):
    counts = script.count(RESULTS.splitlines())
    # losses: 3 tested (killed, survived, timeout); the 2 not checked stay out: 2/3
    assert script.tested(counts["halfspaces.losses"]) == 3
    assert script.score(counts["halfspaces.losses"]) == pytest.approx(2 / 3)
    # feasibility: "no tests" and a segfault are misses, the skipped one is out: 2/4
    assert script.tested(counts["halfspaces._exact.feasibility"]) == 4
    assert script.score(counts["halfspaces._exact.feasibility"]) == pytest.approx(1 / 2)
    # nothing tested: no score rather than 0%
    assert script.score(counts["halfspaces.theory.vc"]) is None


def test_table_rows(script):
    rows = script.table(script.count(RESULTS.splitlines())).splitlines()
    cells = {r.split(" | ")[0].lstrip("| "): r.strip("| ").split(" | ") for r in rows[2:]}
    header = dict(zip(script.HEADER, range(len(script.HEADER)), strict=True))
    losses = cells["halfspaces.losses"]
    assert losses[header["tested"]] == "3" and losses[header["not checked"]] == "2"
    assert losses[header["score"]] == "66.7%"
    assert cells["halfspaces._exact.feasibility"][header["other"]] == "1"
    assert cells["halfspaces.theory.vc"][header["score"]] == "-"
    total = cells["**total**"]
    # 4 caught of 7 tested; 3 not checked, 1 skipped: neither in the denominator
    assert total[header["tested"]] == "7" and total[header["not checked"]] == "3"
    assert total[header["score"]] == "57.1%"
