"""File descriptors pointed at the null device: the one low-level step that the CLI (after
a reader closed its pipe) and the HiGHS plumbing (where standard error is closed) share."""

from __future__ import annotations

import os

__all__ = ["point_at_null"]


def point_at_null(descriptor: int) -> None:
    """Make `descriptor` write to the null device, as ``dup2`` does: whatever it pointed at
    before is closed for it, and the descriptor number stays the same."""
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, descriptor)
    finally:
        os.close(null)
