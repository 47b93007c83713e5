"""The ``halfspaces`` process pauses the garbage collector through start-up and freezes it at
exit (:mod:`halfspaces.cli._process.collector`, issue 13's warm start); library callers of ``main``
keep theirs.

No test here reads a clock: each checks the cause of the saving (no collection runs before
the command's data are loaded, the collector runs again before the long work, what is left
at exit is frozen), and that the command's output is unchanged.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

from halfspaces.cli import main
from halfspaces.cli._process import collector

# Runs `halfspaces ARGS` through the console script's entry point, watching the collector:
# the collections made before `resume`, the collector's state when the command's long work
# starts (fit, fit_stream, evaluate_stream), and the frozen objects at exit.
WATCH = """
    import atexit, gc, json, sys
    import halfspaces.cli as cli
    from halfspaces.cli._process import collector

    record = sys.argv[1]
    seen = {"collections": 0, "before_resume": None, "work": [], "resumed": 0}

    def count(phase, info):
        if phase == "start":
            seen["collections"] += 1

    gc.callbacks.append(count)
    plain_pause, plain_resume = collector.pause, collector.resume

    def pause():
        seen["collections"] = 0  # this script's own imports ran before: count from here
        plain_pause()

    def resume():
        if seen["before_resume"] is None:
            seen["before_resume"] = seen["collections"]
        seen["resumed"] += 1
        plain_resume()

    collector.pause, collector.resume = pause, resume

    def watched(module, name):
        plain = getattr(module, name)

        def call(*args, **kwargs):
            seen["work"].append([name, gc.isenabled()])
            return plain(*args, **kwargs)

        setattr(module, name, call)

    import halfspaces.io, halfspaces.perceptron
    watched(halfspaces.io, "fit_stream")
    watched(halfspaces.io, "evaluate_stream")
    watched(halfspaces.perceptron.AveragedPerceptron, "fit")

    def report():
        seen["enabled_at_exit"] = gc.isenabled()
        seen["frozen_at_exit"] = gc.get_freeze_count()
        open(record, "w").write(json.dumps(seen))

    atexit.register(report)
    sys.argv = ["halfspaces", *sys.argv[2:]]
    cli.run()
"""


def watch(tmp_path, *args: str) -> tuple[dict, str]:
    record = tmp_path / "collector.json"
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(WATCH), str(record), *args],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(record.read_text()), result.stdout


def test_fit_collects_nothing_during_start_up_and_leaves_the_rest_frozen(tmp_path):
    seen, out = watch(tmp_path, "fit", "--json")
    assert seen["before_resume"] == 0  # imports and data loading ran without a collection
    assert seen["work"] == [["fit", True]]  # the fit itself runs with the collector on
    assert seen["enabled_at_exit"] and seen["frozen_at_exit"] > 100_000
    # the bundled a9a fit reports what the library gives (its numbers: test_cli)
    assert json.loads(out)["model"] == "averaged"


def test_a_stream_runs_with_the_collector_on(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = np.where(X[:, 0] > 0, 1, -1)
    data = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(data), zero_based=False)
    seen, _ = watch(tmp_path, "fit", str(data), "--stream", "--chunk-size", "50", "--json")
    assert seen["before_resume"] == 0
    assert seen["work"] == [["fit_stream", True], ["evaluate_stream", True]]


def test_evaluate_resumes_once_the_model_is_loaded(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3))
    y = np.where(X[:, 1] > 0, 1, -1)
    data, model = tmp_path / "d.svm", tmp_path / "m.hs"
    dump_svmlight_file(X, y, str(data), zero_based=False)
    assert subprocess.run([sys.executable, "-m", "halfspaces", "fit", str(data), "--out",
                           str(model)], capture_output=True).returncode == 0
    seen, _ = watch(tmp_path, "evaluate", str(model), str(data), "--json")
    assert seen["resumed"] >= 1 and seen["before_resume"] == 0
    assert seen["work"] == [["evaluate_stream", True]]


def test_main_leaves_a_library_callers_collector_alone(capsys):
    frozen = gc.get_freeze_count()
    assert gc.isenabled()
    with pytest.raises(SystemExit):
        main(["fit", "--epochs", "1", "--json"])
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    assert json.loads(capsys.readouterr().out)["model"] == "averaged"


def test_resume_is_a_no_op_unless_paused():
    frozen = gc.get_freeze_count()
    collector.resume()
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    gc.disable()  # disabled by its caller, not by pause: resume must not turn it on
    try:
        collector.resume()
        assert not gc.isenabled()
    finally:
        gc.enable()
