"""The memory this process may use: physical RAM, or a container's smaller cgroup limit.

The cgroup files are written under ``tmp_path`` (the functions take the root they read
from), so the tests do not depend on the machine or container they run in.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import halfspaces
from halfspaces._utils import memory as _memory
from halfspaces._utils.memory import cgroup_limit, memory_limit, physical_memory
from halfspaces.io import _npfiles, svmlight

V2 = "sys/fs/cgroup/memory.max"
V1 = "sys/fs/cgroup/memory/memory.limit_in_bytes"
SMALL = 12_345 * 4096  # 48 MiB: below the RAM of any machine that runs the tests


def write(root, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_physical_memory_is_what_sysconf_reports():
    assert physical_memory() == os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


@pytest.mark.parametrize("name", [V2, V1])
def test_a_cgroup_limit_below_the_ram_is_the_limit(tmp_path, name):
    write(tmp_path, name, f"{SMALL}\n")
    assert cgroup_limit(tmp_path) == SMALL
    assert memory_limit(tmp_path) == SMALL


def test_the_smaller_of_two_cgroup_limits_counts(tmp_path):
    write(tmp_path, V2, f"{2 * SMALL}\n")
    write(tmp_path, V1, f"{SMALL}\n")
    assert memory_limit(tmp_path) == SMALL


def test_a_cgroup_limit_above_the_ram_leaves_the_ram(tmp_path):
    write(tmp_path, V2, f"{physical_memory() * 2}\n")
    assert memory_limit(tmp_path) == physical_memory()


@pytest.mark.parametrize("name, text", [
    (V2, "max\n"),  # cgroup v2's "no limit"
    (V1, "9223372036854771712\n"),  # cgroup v1's "no limit": the largest page-aligned int64
    (V2, ""), (V2, "garbage\n"), (V2, "-5\n"), (V2, "0\n"), (V1, "\xff\xfe"),
])
def test_no_limit_and_unreadable_files_leave_the_ram(tmp_path, name, text):
    write(tmp_path, name, text)
    assert cgroup_limit(tmp_path) is None
    assert memory_limit(tmp_path) == physical_memory()


def test_missing_files_and_a_folder_in_place_of_a_file_leave_the_ram(tmp_path):
    assert memory_limit(tmp_path) == physical_memory()
    assert memory_limit(tmp_path / "absent") == physical_memory()
    # a root of its own: cgroup_limit reads each root once per process
    folder = tmp_path / "folder"
    (folder / V2).mkdir(parents=True)  # reading it is an OSError (IsADirectoryError)
    assert memory_limit(folder) == physical_memory()


# A process whose cgroup is nested below the top of the mount (a batch job's cgroup, a
# systemd slice, a container without a cgroup namespace): the limit that binds it may be
# set on its own cgroup or on any cgroup above it, whose files the top of the mount does
# not show; /proc/self/cgroup names the process's cgroup per hierarchy.
V1_TOP, V2_TOP = "sys/fs/cgroup/memory", "sys/fs/cgroup"
NESTED = {
    "v1 own cgroup": ("4:memory:/jobs/42\n3:cpu:/other\n", f"{V1_TOP}/jobs/42/"
                      "memory.limit_in_bytes"),
    "v1 parent": ("9:cpuacct,cpu:/x\n4:memory:/jobs/42\n",
                  f"{V1_TOP}/jobs/memory.limit_in_bytes"),
    "v1 joint controllers": ("4:memory,hugetlb:/jobs/42\n",
                             f"{V1_TOP}/jobs/memory.limit_in_bytes"),
    "v2 own cgroup": ("0::/user.slice/job.scope\n", f"{V2_TOP}/user.slice/job.scope/memory.max"),
    "v2 parent": ("0::/user.slice/job.scope\n", f"{V2_TOP}/user.slice/memory.max"),
}


@pytest.mark.parametrize("lines, limit_file", NESTED.values(), ids=NESTED.keys())
def test_a_limit_on_the_process_cgroup_or_a_parent_counts(tmp_path, lines, limit_file):
    write(tmp_path, "proc/self/cgroup", lines)
    write(tmp_path, V1, "9223372036854771712\n")  # the top of the mount: no limit
    write(tmp_path, V2, "max\n")
    write(tmp_path, limit_file, f"{SMALL}\n")
    assert cgroup_limit(tmp_path) == SMALL
    assert memory_limit(tmp_path) == SMALL


def test_the_smallest_limit_on_the_way_up_counts(tmp_path):
    write(tmp_path, "proc/self/cgroup", "0::/a/b/c\n")
    write(tmp_path, f"{V2_TOP}/a/b/c/memory.max", "max\n")
    write(tmp_path, f"{V2_TOP}/a/b/memory.max", f"{3 * SMALL}\n")
    write(tmp_path, f"{V2_TOP}/a/memory.max", f"{SMALL}\n")
    assert cgroup_limit(tmp_path) == SMALL


@pytest.mark.parametrize("lines", [
    "4:cpu:/jobs/42\n",  # a cgroup of another controller: its memory files are not ours
    "4:memory:/../jobs\n",  # a path that climbs out of the mount: damage, ignored
    "garbage\n", "\n", "0::relative/path\n",
])
def test_other_controllers_and_damaged_lines_are_ignored(tmp_path, lines):
    write(tmp_path, "proc/self/cgroup", lines)
    write(tmp_path, f"{V1_TOP}/jobs/42/memory.limit_in_bytes", f"{SMALL}\n")
    write(tmp_path, f"{V1_TOP}/jobs/memory.limit_in_bytes", f"{SMALL}\n")
    write(tmp_path, "sys/fs/jobs/memory.limit_in_bytes", f"{SMALL}\n")
    write(tmp_path, f"{V2_TOP}/relative/path/memory.max", f"{SMALL}\n")
    assert cgroup_limit(tmp_path) is None


def test_the_limit_is_read_once_per_root(tmp_path):
    """Every fit asks (check_dense_vectors): the files are read once, not per call."""
    write(tmp_path, V2, f"{SMALL}\n")
    assert memory_limit(tmp_path) == SMALL
    write(tmp_path, V2, f"{2 * SMALL}\n")
    assert memory_limit(tmp_path) == SMALL


def test_the_io_budgets_follow_the_limit(monkeypatch):
    """The budgets of .npz files, piped models and svmlight widths start from the limit,
    not from the physical RAM (a container's process is killed at its cgroup's limit)."""
    monkeypatch.setattr(_memory, "cgroup_limit", lambda root="/": SMALL)
    assert _npfiles.memory_budget() == SMALL // 2
    assert svmlight.dense_budget() == SMALL // 4


# ---------------------------------------------------------------- a fit's dense vectors

HUGE = 2**40  # columns a CSR matrix may declare in a few bytes; 8 TiB per dense vector


def huge_csr(n_columns: int = HUGE) -> sp.csr_matrix:
    return sp.csr_matrix((np.ones(4), np.array([0, 1, 0, 1]), np.arange(5)),
                         shape=(4, n_columns))


Y = np.array([0, 1, 0, 1])
LINEAR = ["Perceptron", "AveragedPerceptron", "VotedPerceptron", "PocketPerceptron",
          "MulticlassPerceptron", "KernelPerceptron", "VotedKernelPerceptron",
          "LogisticRegression", "LinearRegression", "LinearProgramClassifier",
          "MaxMarginClassifier", "ZeroOneERMClassifier"]
"""The estimators that keep dense vectors over X's columns (the kernel perceptrons with
their default, linear kernel, which runs in the primal)."""


def fits(name: str, X):
    y = Y.astype(float) if name == "LinearRegression" else Y
    return lambda: getattr(halfspaces, name)().fit(X, y)


@pytest.mark.parametrize("name", LINEAR)
def test_a_declared_width_beyond_memory_is_refused_by_name(name):
    """The oracle is arithmetic: one float64 vector over 2**40 + 1 entries is 8 TiB, more
    than any machine's memory. Before, NumPy's bare "Unable to allocate 8.00 TiB" or a
    C++ std::bad_alloc came out of the middle of the fit."""
    with pytest.raises(MemoryError, match=r"^X has 1,099,511,627,776 columns: .* float64 "
                                          r"vectors of 1,099,511,627,777 entries"):
        fits(name, huge_csr())()


def test_partial_fit_online_perceptron_and_widen_are_refused_by_name():
    match = r"has 1,099,511,627,776 columns"
    with pytest.raises(MemoryError, match="^X " + match):
        halfspaces.Perceptron().partial_fit(huge_csr(), Y, classes=[0, 1])
    with pytest.raises(MemoryError, match="^X " + match):
        halfspaces.KernelPerceptron().partial_fit(huge_csr(), Y, classes=[0, 1])
    with pytest.raises(MemoryError, match="^X " + match):
        halfspaces.LogisticRegression(solver="sgd").partial_fit(huge_csr(), Y, classes=[0, 1])
    with pytest.raises(MemoryError, match="^X " + match):
        halfspaces.online_perceptron(huge_csr(), Y)
    model = halfspaces.Perceptron().fit(huge_csr(3), Y)
    with pytest.raises(MemoryError, match="^the widened model " + match):
        model.widen(HUGE)
    assert model.n_features_in_ == 3 and model.coef_.shape == (1, 3)  # left as it was


@pytest.mark.parametrize("name", LINEAR)
def test_the_check_counts_against_the_cgroup_limit(name, monkeypatch):
    """With the limit a container would set, 100 columns are refused where 10 fit: the
    limit, not the RAM, is what the check reads."""
    monkeypatch.setattr(_memory, "cgroup_limit", lambda root="/": 8 * 4 * 50)
    with pytest.raises(MemoryError, match=r"^X has 100 columns: .* more than the 1600 bytes"):
        fits(name, huge_csr(100))()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits(name, huge_csr(10))()
