"""The memory this process may use: physical RAM, or a container's smaller cgroup limit.

The cgroup files are written under ``tmp_path`` (the functions take the root they read
from), so the tests do not depend on the machine or container they run in.
"""

from __future__ import annotations

import os

import pytest

from halfspaces import _memory
from halfspaces._memory import cgroup_limit, memory_limit, physical_memory
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
    (tmp_path / V2).mkdir(parents=True)  # reading it is an OSError (IsADirectoryError)
    assert memory_limit(tmp_path) == physical_memory()


def test_the_io_budgets_follow_the_limit(monkeypatch):
    """The budgets of .npz files, piped models and svmlight widths start from the limit,
    not from the physical RAM (a container's process is killed at its cgroup's limit)."""
    monkeypatch.setattr(_memory, "cgroup_limit", lambda root="/": SMALL)
    assert _npfiles.memory_budget() == SMALL // 2
    assert svmlight.dense_budget() == SMALL // 4
