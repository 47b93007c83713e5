"""Bundled data sets and their loaders.

The data ship inside the package (compressed, with attribution in ``data/README.md``), so
loading them needs no network and no files outside the installed package.
"""

from __future__ import annotations

from halfspaces.datasets._a9a import A9A_N_TEST, A9A_N_TRAIN, load_a9a

__all__ = ["A9A_N_TEST", "A9A_N_TRAIN", "load_a9a"]
