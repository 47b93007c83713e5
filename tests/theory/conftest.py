from pathlib import Path

import pytest

A9A = Path(__file__).resolve().parents[3] / "shared" / "data" / "a9a"


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
