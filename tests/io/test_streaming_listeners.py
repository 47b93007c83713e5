"""fit_stream tells its listeners where it is: each pass as it begins (``on_epoch``), and
the examples after each chunk (``on_progress``), also when it resumes from a checkpoint."""

from __future__ import annotations

import numpy as np
from sklearn.datasets import dump_svmlight_file

import halfspaces
from halfspaces.io import fit_stream


def sample_file(tmp_path, n=120):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    path = tmp_path / "d.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path


def test_each_pass_is_announced_before_its_examples(tmp_path):
    path = sample_file(tmp_path)
    events = []
    fit_stream(halfspaces.Perceptron(), path, epochs=3, chunk_size=50,
               on_epoch=lambda k, total: events.append(("epoch", k, total)),
               on_progress=lambda n: events.append(("examples", n)))
    epochs = [e for e in events if e[0] == "epoch"]
    assert epochs == [("epoch", 1, 3), ("epoch", 2, 3), ("epoch", 3, 3)]
    # 120 examples a pass, in chunks of 50, 50, 20, after the pass's announcement
    assert events == [e for k in (1, 2, 3)
                      for e in [("epoch", k, 3), ("examples", 50), ("examples", 50),
                                ("examples", 20)]]


def test_a_resumed_run_announces_the_pass_it_resumes(tmp_path):
    path = sample_file(tmp_path)
    checkpoint = tmp_path / "run.ck"
    fit_stream(halfspaces.Perceptron(), path, epochs=1, chunk_size=50, checkpoint=checkpoint)
    epochs = []
    fit_stream(halfspaces.Perceptron(), path, epochs=3, chunk_size=50, checkpoint=checkpoint,
               resume=True, on_epoch=lambda k, total: epochs.append((k, total)))
    assert epochs == [(2, 3), (3, 3)]
