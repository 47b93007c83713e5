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

A9A = Path(__file__).resolve().parents[2] / "shared" / "data" / "a9a"


@pytest.fixture(scope="session")
def a9a():
    """a9a (48,842 x 123 sparse), from halfspaces.datasets when bundled, else ../shared/data."""
    try:
        from halfspaces.datasets import load_a9a

        return load_a9a(subset="all")
    except (ImportError, AttributeError, FileNotFoundError, OSError):
        pass
    if not A9A.exists():
        pytest.skip(f"a9a not found at {A9A}")
    from sklearn.datasets import load_svmlight_file

    return load_svmlight_file(str(A9A), n_features=123)
