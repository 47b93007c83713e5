"""Streaming training: bounded memory, checkpoints that survive kill -9, exact resumption.

The oracle for resumption is the uninterrupted run with the same settings (the online
protocol is deterministic); the oracle for streaming itself is partial_fit on the whole
file read by scikit-learn.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pytest
from _model_equality import assert_same_model
from _oracles import sgd_regressor_twin
from sklearn.base import BaseEstimator, is_classifier
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

import halfspaces
from halfspaces.io import DataFileError, fit_stream
from halfspaces.io.model import ModelFileError, load_with_extra
from halfspaces.io.streaming import CheckpointMismatchError


def streamable():
    classes = (getattr(halfspaces, n) for n in halfspaces.__all__)
    return [c for c in classes if isinstance(c, type) and issubclass(c, BaseEstimator)
            and hasattr(c(), "partial_fit") and is_classifier(c())]


@pytest.fixture(scope="module")
def stream_file(tmp_path_factory):
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(700, 6)) * (rng.random((700, 6)) < 0.7), 3)
    y = np.where(X @ rng.normal(size=6) + 0.3 * rng.normal(size=700) > 0, 1, -1)
    path = tmp_path_factory.mktemp("stream") / "d.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path


class Interrupted(Exception):
    pass


def interrupt_after(limit):
    seen = [0]

    def on_progress(n):
        seen[0] += n
        if seen[0] >= limit:
            raise Interrupted

    return on_progress


@pytest.mark.parametrize("cls", streamable(), ids=lambda c: c.__name__)
def test_resumed_run_equals_uninterrupted(cls, stream_file, tmp_path):
    settings = dict(epochs=3, chunk_size=64, checkpoint_every=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = fit_stream(cls(random_state=0), stream_file, checkpoint=tmp_path / "a", **settings)
        for stop in (1, 99, 100, 761, 1400, 2099):  # inside chunks, on checkpoints, epochs
            checkpoint = tmp_path / f"b{stop}"
            with pytest.raises(Interrupted):
                fit_stream(cls(random_state=0), stream_file, checkpoint=checkpoint,
                           on_progress=interrupt_after(stop), **settings)
            resumed = fit_stream(cls(random_state=0), stream_file, checkpoint=checkpoint,
                                 resume=True, **settings)
            assert resumed.resumed_at is not None or stop < 100
            assert_same_model(full.model, resumed.model)


@pytest.fixture(scope="module")
def regression_file(tmp_path_factory):
    """A CSV file of 300 rows, three features and a real target (its last column)."""
    rng = np.random.default_rng(1)
    X = np.round(rng.normal(size=(300, 3)), 3)
    y = np.round(X @ np.array([1.0, -2.0, 0.5]) + 3.0 + 0.1 * rng.normal(size=300), 4)
    path = tmp_path_factory.mktemp("regression") / "r.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header="a,b,c,target",
               comments="", fmt="%.4f")
    return path, X, y


SGD_REGRESSION = dict(solver="sgd", learning_rate="invscaling", eta0=0.02, power_t=0.4,
                      alpha=1e-3, random_state=0)


def test_a_streamed_regression_takes_sgd_regressors_steps(regression_file):
    # partial_fit was called with classes=, which a regressor's does not take, after a scan
    # that gathered every distinct target as a class
    path, X, y = regression_file
    run = fit_stream(halfspaces.LinearRegression(**SGD_REGRESSION), path, chunk_size=64,
                     epochs=2)
    chunks = np.array_split(np.arange(300), range(64, 300, 64))
    twin = sgd_regressor_twin(X, y, chunks + chunks, 0, average=True,
                              **{k: v for k, v in SGD_REGRESSION.items()
                                 if k not in ("solver", "random_state")})
    np.testing.assert_allclose(run.model.coef_, twin.coef_, rtol=1e-9)
    np.testing.assert_allclose(run.model.intercept_, twin.intercept_[0], rtol=1e-9)
    assert run.n_seen == 600 and run.n_features == 3


def test_a_resumed_regression_equals_the_uninterrupted_one(regression_file, tmp_path):
    path = regression_file[0]
    settings = dict(epochs=3, chunk_size=64, checkpoint_every=100)
    full = fit_stream(halfspaces.LinearRegression(**SGD_REGRESSION), path,
                      checkpoint=tmp_path / "a", **settings)
    progress = load_with_extra(tmp_path / "a")[1]["checkpoint"]
    assert progress["classes"] is None  # the targets are not recorded
    for stop in (1, 100, 350, 899):
        checkpoint = tmp_path / f"b{stop}"
        with pytest.raises(Interrupted):
            fit_stream(halfspaces.LinearRegression(**SGD_REGRESSION), path,
                       checkpoint=checkpoint, on_progress=interrupt_after(stop), **settings)
        resumed = fit_stream(halfspaces.LinearRegression(**SGD_REGRESSION), path,
                             checkpoint=checkpoint, resume=True, **settings)
        assert resumed.resumed_at is not None or stop < 100
        assert_same_model(full.model, resumed.model)


@pytest.mark.parametrize("solver", ["sgd", "minibatch"])
def test_a_resumed_sgd_classifier_makes_the_batches_of_the_uninterrupted_run(
        stream_file, tmp_path, solver):
    # resumed inside a chunk (checkpoint_every not a multiple of chunk_size), the run read
    # whole chunks from the checkpoint's row and fed partial_fit other batches: SGD, which
    # visits a batch in a random order, then ended with another model
    model = dict(solver=solver, batch_size=16, random_state=0)
    settings = dict(epochs=2, chunk_size=64, checkpoint_every=100)
    full = fit_stream(halfspaces.LogisticRegression(**model), stream_file,
                      checkpoint=tmp_path / "a", **settings)
    for stop in (100, 1300):
        checkpoint = tmp_path / f"b{stop}"
        with pytest.raises(Interrupted):
            fit_stream(halfspaces.LogisticRegression(**model), stream_file,
                       checkpoint=checkpoint, on_progress=interrupt_after(stop), **settings)
        resumed = fit_stream(halfspaces.LogisticRegression(**model), stream_file,
                             checkpoint=checkpoint, resume=True, **settings)
        assert resumed.resumed_at == {100: (0, 100), 1300: (1, 600)}[stop]
        assert_same_model(full.model, resumed.model)


def test_a_regression_checkpoint_with_classes_is_damaged(regression_file, tmp_path):
    path = regression_file[0]
    settings = dict(chunk_size=64, checkpoint_every=64, checkpoint=tmp_path / "c")
    with pytest.raises(Interrupted):
        fit_stream(halfspaces.LinearRegression(**SGD_REGRESSION), path,
                   on_progress=interrupt_after(100), **settings)
    model, extra = load_with_extra(tmp_path / "c")
    extra["checkpoint"]["classes"] = [1.0, 2.0]
    halfspaces.save(model, tmp_path / "c", extra=extra)
    with pytest.raises(ModelFileError, match=r"classes is \[1.0, 2.0\], not null"):
        fit_stream(halfspaces.LinearRegression(**SGD_REGRESSION), path, resume=True,
                   **settings)


def test_a_regression_skips_the_first_pass_given_its_width(regression_file, monkeypatch):
    path = regression_file[0]
    scans = []
    monkeypatch.setattr(halfspaces.io.streaming, "scan",
                        lambda *a, **k: scans.append(k) or halfspaces.io.scan(*a, **k))
    walked = fit_stream(halfspaces.LinearRegression(**SGD_REGRESSION), path, chunk_size=64)
    assert scans == [{"format": None, "label_column": None, "zero_based": "auto",
                      "chunk_size": 64, "classes": False}]  # no targets gathered
    given = fit_stream(halfspaces.LinearRegression(**SGD_REGRESSION), path, chunk_size=64,
                       n_features=3)
    assert len(scans) == 1
    assert_same_model(walked.model, given.model)


def test_a_run_given_unsorted_classes_resumes(stream_file, tmp_path):
    # the checkpoint records the classes as given, [1, -1]; its model's classes_ are sorted,
    # and the checkpoint was refused as damaged ("classes is [1, -1]")
    settings = dict(epochs=2, chunk_size=64, n_features=6, classes=[1, -1])
    full = fit_stream(halfspaces.AveragedPerceptron(), stream_file, **settings)
    with pytest.raises(Interrupted):
        fit_stream(halfspaces.AveragedPerceptron(), stream_file, checkpoint=tmp_path / "c",
                   on_progress=interrupt_after(300), **settings)
    resumed = fit_stream(halfspaces.AveragedPerceptron(), stream_file,
                         checkpoint=tmp_path / "c", resume=True, **settings)
    assert resumed.resumed_at == (0, 320)
    assert_same_model(full.model, resumed.model)


def test_stream_equals_partial_fit_on_the_whole_file(stream_file):
    X, y = load_svmlight_file(str(stream_file))
    reference = halfspaces.AveragedPerceptron().partial_fit(X, y)
    streamed = fit_stream(halfspaces.AveragedPerceptron(), stream_file, chunk_size=37).model
    assert np.array_equal(streamed.coef_, reference.coef_)
    assert np.array_equal(streamed.intercept_, reference.intercept_)


def test_resume_with_other_settings_is_refused(stream_file, tmp_path):
    fit_stream(halfspaces.Perceptron(), stream_file, chunk_size=64, checkpoint=tmp_path / "c")
    with pytest.raises(CheckpointMismatchError, match="chunk_size=64, not 32") as caught:
        fit_stream(halfspaces.Perceptron(), stream_file, chunk_size=32,
                   checkpoint=tmp_path / "c", resume=True)
    assert caught.value.setting == "chunk_size" and isinstance(caught.value, ModelFileError)
    with pytest.raises(CheckpointMismatchError, match="max_epochs=1000, not 5"):
        fit_stream(halfspaces.Perceptron(max_epochs=5), stream_file, chunk_size=64,
                   checkpoint=tmp_path / "c", resume=True)


def test_resume_with_fewer_epochs_than_done_names_epochs_not_damage(stream_file, tmp_path):
    # the checkpoint of a finished 3-epoch run is sound; it was called "damaged: epoch is 3,
    # not an epoch in [0, 1]"
    fit_stream(halfspaces.Perceptron(), stream_file, chunk_size=64, epochs=3,
               checkpoint=tmp_path / "c")
    with pytest.raises(CheckpointMismatchError, match=r"after 3 passes .* epochs=1: resume "
                                                      r"with epochs of at least 3") as caught:
        fit_stream(halfspaces.Perceptron(), stream_file, chunk_size=64, epochs=1,
                   checkpoint=tmp_path / "c", resume=True)
    assert caught.value.setting == "epochs" and "damaged" not in str(caught.value)
    again = fit_stream(halfspaces.Perceptron(), stream_file, chunk_size=64, epochs=3,
                       checkpoint=tmp_path / "c", resume=True)
    assert again.resumed_at == (3, 0)


def test_the_command_line_names_epochs_for_a_checkpoint_further_on(stream_file, tmp_path):
    from _cli import cli_error, run_cli

    common = (str(stream_file), "--stream", "--chunk-size", "64", "--model", "perceptron",
              "--checkpoint", str(tmp_path / "c"))
    run_cli("fit", *common, "--epochs", "2")
    code, message = cli_error("fit", *common, "--epochs", "1", "--resume")
    assert code == 2 and "--epochs" in message and "at least 2" in message
    assert "damaged" not in message


def test_verify_data_notices_one_value_changed_in_the_middle(tmp_path):
    # a value changed in the middle of the file, its size and modification time restored,
    # passes the default fingerprint (size, time, first and last 64 KiB); with verify_data
    # the SHA-256 of every byte refuses the resume, whatever that run's own setting
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(12_000, 4)), 6)
    y = np.where(X[:, 0] > 0, 1, -1)
    path = tmp_path / "d.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    settings = dict(chunk_size=500, epochs=2, checkpoint=tmp_path / "c")
    with pytest.raises(Interrupted):
        fit_stream(halfspaces.Perceptron(), path, verify_data=True,
                   on_progress=interrupt_after(3000), **settings)
    text = path.read_bytes()
    middle = text.index(b"\n", len(text) // 2) + 1  # a line start far from both ends
    assert 2**16 < middle < len(text) - 2**16
    digit = text.index(b":", middle) + 1  # the first value's first character, a digit
    if text[digit:digit + 1] == b"-":
        digit += 1
    changed = str((int(text[digit:digit + 1]) + 1) % 10).encode()
    flipped = text[:digit] + changed + text[digit + 1:]
    assert len(flipped) == len(text) and flipped != text
    times = os.stat(path)
    path.write_bytes(flipped)
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))
    for verify in (True, False):
        with pytest.raises(CheckpointMismatchError, match="SHA-256 of its bytes") as caught:
            fit_stream(halfspaces.Perceptron(), path, resume=True, verify_data=verify,
                       **settings)
        assert caught.value.setting == "data"
    # without verify_data when the checkpoint was written, the change goes unnoticed (the
    # documented limit of the default fingerprint)
    path.write_bytes(text)
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))
    with pytest.raises(Interrupted):
        fit_stream(halfspaces.Perceptron(), path, on_progress=interrupt_after(3000),
                   **{**settings, "checkpoint": tmp_path / "plain"})
    path.write_bytes(flipped)
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))
    resumed = fit_stream(halfspaces.Perceptron(), path, resume=True,
                         **{**settings, "checkpoint": tmp_path / "plain"})
    assert resumed.resumed_at is not None


def test_verify_data_refuses_a_pipe_by_name(tmp_path):
    fifo = tmp_path / "d.svm"
    os.mkfifo(fifo)
    with pytest.raises(DataFileError, match="verify_data needs a regular file"):
        fit_stream(halfspaces.Perceptron(), fifo, verify_data=True)  # refused before opening


def test_model_without_partial_fit_is_refused(stream_file):
    with pytest.raises(ValueError, match="no partial_fit"):
        fit_stream(halfspaces.MaxMarginClassifier(), stream_file)


def test_a_stream_with_numbers_and_text_as_labels_learns_the_whole_reads_classes(tmp_path):
    path = tmp_path / "mixed.csv"
    path.write_text("label,a\n1,1\nyes,2\n-1,3\nyes,4\n")
    X, y = halfspaces.io.read(path)
    reference = halfspaces.AveragedPerceptron()
    for i in range(len(y)):  # partial_fit on the whole read's rows, one chunk at a time
        reference.partial_fit(X[i:i + 1], y[i:i + 1], classes=np.unique(y))
    streamed = fit_stream(halfspaces.AveragedPerceptron(), path, chunk_size=1).model
    assert streamed.classes_.tolist() == reference.classes_.tolist() == ["-1", "1", "yes"]
    assert np.array_equal(streamed.coef_, reference.coef_)


def cli(*args):
    env = {k: v for k, v in os.environ.items() if k != "HALFSPACES_DEBUG"}
    return [sys.executable, "-m", "halfspaces", *args], env


def test_kill_9_mid_run_then_resume(tmp_path):
    rng = np.random.default_rng(1)
    X = np.round(rng.normal(size=(4000, 12)), 3)
    y = np.where(X @ rng.normal(size=12) + 0.5 * rng.normal(size=4000) > 0, 1, -1)
    data = tmp_path / "d.svm"
    dump_svmlight_file(X, y, str(data), zero_based=False)
    common = ["fit", str(data), "--stream", "--model", "averaged", "--epochs", "5",
              "--chunk-size", "50", "--checkpoint-every", "50", "--quiet", "--json"]
    args, env = cli(*common, "--checkpoint", str(tmp_path / "ref.ck"), "--out",
                    str(tmp_path / "ref.hs"))
    assert subprocess.run(args, env=env, capture_output=True).returncode == 0

    checkpoint = tmp_path / "run.ck"
    args, env = cli(*common, "--checkpoint", str(checkpoint), "--out", str(tmp_path / "run.hs"))
    process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    loads = _poll_until_checkpoint(process, checkpoint)
    time.sleep(random.Random(0).uniform(0.0, 0.1))
    process.send_signal(signal.SIGKILL)
    assert process.wait() == -signal.SIGKILL, "the run ended before it could be killed"
    model, extra = load_with_extra(checkpoint)  # never a corrupt file
    progress = extra["checkpoint"]
    assert progress["epoch"] * 4000 + progress["position"] < 5 * 4000 and loads > 0

    result = subprocess.run(args + ["--resume"], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert_same_model(halfspaces.load(tmp_path / "ref.hs"), halfspaces.load(tmp_path / "run.hs"))
    assert json.loads(result.stdout)["n_train"] == 4000


def _write_in_background(fifo, content: bytes):
    """Write `content` to `fifo` from a thread; returns a function that ends the thread
    (opening the FIFO for reading unblocks a writer whose reader never came)."""

    def write():
        try:
            with open(fifo, "wb") as handle:
                handle.write(content)
        except OSError:  # the reader went away: the test reports what the command did
            pass

    thread = threading.Thread(target=write, daemon=True)
    thread.start()

    def finish():
        if thread.is_alive():
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
            thread.join(5)

    return finish


def test_streaming_from_a_fifo_reads_it_once(tmp_path, stream_file):
    fifo = tmp_path / "d.svm"
    os.mkfifo(fifo)
    finish = _write_in_background(fifo, stream_file.read_bytes())
    common = ["--stream", "--chunk-size", "100", "--quiet", "--json"]
    args, env = cli("fit", str(fifo), *common)
    try:  # a generous guard: the run takes seconds, a hang would last forever
        piped = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("fit --stream on a FIFO did not finish: it opened the FIFO again")
    finally:
        finish()
    assert piped.returncode == 0, piped.stderr
    args, env = cli("fit", str(stream_file), *common)
    plain = subprocess.run(args, env=env, capture_output=True, text=True)
    fields = ("n_train", "n_features", "train_accuracy", "n_updates")
    assert [json.loads(piped.stdout)[k] for k in fields] == \
        [json.loads(plain.stdout)[k] for k in fields]


def _poll_until_checkpoint(process, checkpoint) -> int:
    """Wait for the first checkpoint, loading it while the run rewrites it."""
    deadline, loads = time.monotonic() + 60, 0
    while time.monotonic() < deadline and process.poll() is None:
        if checkpoint.exists():
            load_with_extra(checkpoint)
            loads += 1
            if loads >= 3:
                return loads
        time.sleep(0.01)
    return loads


MEMORY_SCRIPT = r"""
import sys
import halfspaces
from halfspaces.io import fit_stream
def status(key):  # kB; VmHWM is this process's peak RSS (ru_maxrss also counts the parent's)
    with open("/proc/self/status") as handle:
        return next(int(l.split()[1]) * 1024 for l in handle if l.startswith(key + ":"))
fit_stream(halfspaces.Perceptron(), sys.argv[2], chunk_size=1000)    # warm up: JIT, imports
with open("/proc/self/clear_refs", "w") as handle:
    handle.write("5")  # reset the peak to the current RSS
before = status("VmHWM")
run = fit_stream(halfspaces.Perceptron(), sys.argv[1], chunk_size=1000)
print(before, status("VmHWM"), run.n_seen)
halfspaces.save(run.model, sys.argv[3])
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="needs Linux /proc")
def test_streaming_memory_is_bounded_by_the_chunk(tmp_path, stream_file):
    rng = np.random.default_rng(2)
    block = []
    for i in range(1000):  # 1,000 distinct lines of ~200 bytes, repeated 100 times
        cols = np.sort(rng.choice(np.arange(1, 200), size=20, replace=False))
        label = 1 if (cols[0] + i) % 3 else -1
        block.append(f"{label} " + " ".join(f"{c}:{rng.random():.4f}" for c in cols))
    text = ("\n".join(block) + "\n").encode()
    data = tmp_path / "big.svm"
    with open(data, "wb") as handle:
        for _ in range(100):
            handle.write(text)
    size = data.stat().st_size
    result = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, str(data), str(stream_file),
                             str(tmp_path / "m.hs")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    before, after, n_seen = map(int, result.stdout.split())
    assert n_seen == 100_000 and size > 18e6  # the file: 100 chunks
    # the peak RSS of the process grows by much less than the file (reading it whole would
    # hold its text and a 2,000,000-value CSR matrix: over 40 MB)
    assert after - before < size / 3, (before, after, size)
    X, y = load_svmlight_file(str(data), n_features=199)
    reference = halfspaces.Perceptron().partial_fit(X, y)
    assert np.array_equal(halfspaces.load(tmp_path / "m.hs").coef_, reference.coef_)


def _late_features_file(path, labels, zero_based, n_classes=2, seed=0):
    """Features 0-4 appear only after row 400, and the first 100 rows have the first label."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(700, 30)) * (rng.random((700, 30)) < 0.2), 3)
    X[:400, :5] = 0.0
    X[:, -1] *= np.arange(700) > 600  # the widest index only near the end
    score = X @ rng.normal(size=30)
    y = np.asarray(labels)[np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))
                           if n_classes == 3 else (score > 0).astype(int)]
    y[:100] = labels[0]
    dump_svmlight_file(X, y, str(path), zero_based=zero_based)
    return path


@pytest.mark.parametrize("cls", [halfspaces.Perceptron, halfspaces.AveragedPerceptron,
                                 halfspaces.PocketPerceptron, halfspaces.VotedPerceptron],
                         ids=lambda c: c.__name__)
@pytest.mark.parametrize("labels, n_classes", [((-1, 1), 2), ((0, 1), 2), ((2, 7), 2),
                                               ((-1, 0, 1), 3)])
@pytest.mark.parametrize("zero_based", [False, True])
def test_one_pass_stream_equals_two_pass(cls, labels, n_classes, zero_based, tmp_path,
                                         monkeypatch):
    """The one-pass run (labels and width found while training) gives the model of the run
    told the scan's n_features and classes beforehand, bit for bit, for every index base."""
    path = _late_features_file(tmp_path / "d.svm", labels, zero_based, n_classes)
    info = halfspaces.io.scan(path)
    settings = dict(chunk_size=64, epochs=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        two = fit_stream(cls(), path, n_features=info.n_features, classes=info.classes,
                         zero_based=info.zero_based, **settings)
        if n_classes == 2 and labels != (2, 7):  # the guess holds: no first pass at all
            monkeypatch.setattr("halfspaces.io.streaming.scan", None)
        one = fit_stream(cls(), path, **settings)
        explicit = fit_stream(cls(), path, zero_based=info.zero_based, **settings)
    for run in (one, explicit):
        assert (run.n_features, run.zero_based, run.n_seen) == (info.n_features,
                                                                info.zero_based, 1400)
        assert run.model.n_features_in_ == info.n_features
        assert_same_model(two.model, run.model)


@pytest.mark.parametrize("zero_based", [False, True])
def test_one_pass_resumes_inside_its_first_epoch(tmp_path, zero_based):
    """Checkpoints written while the model grows resume to the uninterrupted model (for a
    0-based file: before and after index 0 first shows up, at row 400)."""
    path = _late_features_file(tmp_path / "d.svm", (-1, 1), zero_based)
    settings = dict(epochs=2, chunk_size=64, checkpoint_every=100)
    full = fit_stream(halfspaces.AveragedPerceptron(), path, **settings)
    for stop in (100, 450, 690, 800):
        checkpoint = tmp_path / f"c{stop}"
        with pytest.raises(Interrupted):
            fit_stream(halfspaces.AveragedPerceptron(), path, checkpoint=checkpoint,
                       on_progress=interrupt_after(stop), **settings)
        progress = load_with_extra(checkpoint)[1]["checkpoint"]
        assert progress.get("growing", False) == (stop < 700)
        resumed = fit_stream(halfspaces.AveragedPerceptron(), path, checkpoint=checkpoint,
                             resume=True, **settings)
        assert resumed.resumed_at is not None
        assert_same_model(full.model, resumed.model)
    with pytest.raises(Interrupted):
        fit_stream(halfspaces.AveragedPerceptron(), path, checkpoint=tmp_path / "z",
                   on_progress=interrupt_after(450), **settings)
    with pytest.raises(CheckpointMismatchError, match="zero_based='auto', not True"):
        fit_stream(halfspaces.AveragedPerceptron(), path, checkpoint=tmp_path / "z",
                   resume=True, zero_based=True, **settings)


def _counting_scan(monkeypatch):
    calls = []

    def scan(*args, **kwargs):
        calls.append(args)
        return halfspaces.io.scan(*args, **kwargs)

    monkeypatch.setattr("halfspaces.io.streaming.scan", scan)
    return calls


@pytest.mark.parametrize("labels, first, classes, passes", [
    ((-1, 1), 1, (-1, 1), 0),  # a lone 1 first: LIBSVM's {-1, 1}
    ((-1, 1), -1, (-1, 1), 0),
    ((0, 1), 0, (0, 1), 0),  # a lone 0 first: {0, 1}
    ((0, 1), 1, (0, 1), 1),  # a lone 1 first, then 0: the guess {-1, 1} fails
    ((2, 7), 7, (2, 7), 1),  # a lone label of no pair: no guess
    ((3, 5), None, (3, 5), 0),  # two labels in the first chunk: those
    ((-1, 0, 1), None, (-1, 0, 1), 1),  # a third label after the first chunk
])
def test_one_pass_label_rule(tmp_path, monkeypatch, labels, first, classes, passes):
    """The labels are the first chunk's, completed to {-1, 1} or {0, 1}; classes_ is
    sorted, so classes_[1] (the larger label) is the positive class. Where a later label
    breaks the rule, the run starts over after a first pass and still gives the two-pass
    model."""
    rng = np.random.default_rng(1)
    X = np.round(rng.normal(size=(300, 6)), 2)
    y = np.asarray(labels)[rng.integers(0, len(labels), 300)]
    y[:50] = labels[:2] * 25 if first is None else first  # the first chunk: 50 rows
    y[-len(labels):] = labels
    path = tmp_path / "d.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    info = halfspaces.io.scan(path)
    two = fit_stream(halfspaces.Perceptron(), path, chunk_size=50, n_features=6,
                     classes=info.classes)
    calls = _counting_scan(monkeypatch)
    one = fit_stream(halfspaces.Perceptron(), path, chunk_size=50)
    assert len(calls) == passes
    assert np.array_equal(one.model.classes_, np.asarray(classes, dtype=float))
    assert_same_model(two.model, one.model)
    if len(classes) == 2:
        positive = X[y == classes[1]]
        score = one.model.decision_function(positive)
        assert np.array_equal(one.model.predict(positive),
                              np.where(score > 0, classes[1], classes[0]).astype(float))


def test_one_pass_where_an_assumed_class_never_comes(tmp_path, monkeypatch):
    """{-1, 1} assumed from a first chunk of -1 only, and no 1 by the end of the epoch:
    the run starts over after a first pass, and fails as the two-pass run does."""
    path = tmp_path / "d.svm"
    path.write_text("-1 1:1\n-1 2:1\n" * 4)
    calls = _counting_scan(monkeypatch)
    with pytest.raises(ValueError, match="fewer than 2 classes"):
        fit_stream(halfspaces.Perceptron(), path, chunk_size=3)
    assert len(calls) == 1


@pytest.mark.parametrize("link", ["same", "symlink", "hardlink"])
def test_a_checkpoint_that_is_the_data_file_is_refused_before_any_work(tmp_path, link):
    data = tmp_path / "train.svm"
    data.write_text("1 1:2 2:1\n1 1:1 2:3\n-1 1:-1 2:-2\n-1 1:-2 2:-1\n")
    before = data.read_bytes()
    checkpoint = {"same": data, "symlink": tmp_path / "s.ck", "hardlink": tmp_path / "h.ck"}[link]
    if link == "symlink":
        checkpoint.symlink_to(data)
    elif link == "hardlink":
        os.link(data, checkpoint)
    progress = []
    with pytest.raises(halfspaces.io.OutputFileError, match="same file as the input"):
        fit_stream(halfspaces.Perceptron(), data, checkpoint=checkpoint,
                   on_progress=progress.append)
    assert data.read_bytes() == before and progress == []


_BAD_COUNTS = """
import sys, halfspaces
from halfspaces.io import fit_stream, scan, evaluate_stream
path = sys.argv[1]
model = fit_stream(halfspaces.Perceptron(), path).model
calls = {
    "fit_stream": lambda c: fit_stream(halfspaces.Perceptron(), path, chunk_size=c),
    "scan": lambda c: scan(path, chunk_size=c),
    "evaluate_stream": lambda c: evaluate_stream(model, path, chunk_size=c),
}
for name, call in calls.items():
    for value in (-1, 0, 2.5, True, 2**63):
        try:
            call(value)
            print(name, value, "accepted")
        except ValueError as exc:
            print(name, value, exc)
"""


def test_bad_chunk_sizes_are_refused_by_name_not_looped_on(tmp_path):
    # -1 and 2.5 once looped forever on svmlight (the block was cut when the rows found
    # equalled chunk_size), and 0 divided by zero: a subprocess, so that a hang is a failure
    data = tmp_path / "t.svm"
    data.write_text("1 1:2 2:1\n1 1:1 2:3\n-1 1:-1 2:-2\n-1 1:-2 2:-1\n")
    done = subprocess.run([sys.executable, "-c", _BAD_COUNTS, str(data)], capture_output=True,
                          text=True, timeout=120)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stderr
    assert len(lines) == 15
    for line in lines:
        name, value, message = line.split(" ", 2)
        assert message.startswith(f"chunk_size={value} must be a positive number of rows"), line


@pytest.mark.parametrize(("setting", "message"), [
    (dict(epochs=0), "epochs=0 must be a positive number of passes"),
    (dict(epochs=-2), "epochs=-2 must be a positive number of passes"),
    (dict(epochs=2.5), "epochs=2.5 must be a positive number of passes"),
    (dict(checkpoint_every=-5), "checkpoint_every=-5 must be a positive number of examples"),
    (dict(checkpoint_every=0), "checkpoint_every=0 must be a positive number of examples"),
])
def test_bad_stream_settings_are_refused_by_name(stream_file, tmp_path, setting, message):
    with pytest.raises(ValueError, match=message):
        fit_stream(halfspaces.Perceptron(), stream_file, chunk_size=64,
                   checkpoint=tmp_path / "c.ck", **setting)
    assert not (tmp_path / "c.ck").exists()


def test_resume_when_the_data_file_is_gone_says_it_is_missing(tmp_path, stream_file):
    data = tmp_path / "d.svm"
    data.write_bytes(stream_file.read_bytes())
    fit_stream(halfspaces.Perceptron(), data, chunk_size=64, checkpoint=tmp_path / "c.ck")
    data.unlink()
    with pytest.raises(halfspaces.io.DataFileError, match="cannot read it to resume from .*"
                                                          "No such file or directory"):
        fit_stream(halfspaces.Perceptron(), data, chunk_size=64, checkpoint=tmp_path / "c.ck",
                   resume=True)
