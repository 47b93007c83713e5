import sys
from pathlib import Path

import pytest
from hypothesis import settings

# the test helpers (_naive, _datasets, ...) import as top-level modules, from every folder
sys.path.insert(0, str(Path(__file__).resolve().parent))

# The suite must be deterministic: property tests draw the same examples on every run (a new
# failure is then found by raising max_examples locally, not by chance in CI).
settings.register_profile("deterministic", derandomize=True)
settings.load_profile("deterministic")


@pytest.fixture(scope="session")
def a9a():
    """All of the bundled a9a (48,842 x 123 CSR, labels -1/+1), read once per run."""
    from halfspaces.datasets import load_a9a

    return load_a9a("all")
