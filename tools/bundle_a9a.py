"""Write ``src/halfspaces/datasets/data/a9a.npz`` from the LIBSVM text of a9a + a9a.t.

The text is parsed with scikit-learn's ``load_svmlight_file`` (1-based indices, 123
features) and each CSR array is stored in the smallest dtype that holds it exactly; the
script checks the round trip before writing. Run from the repository root:

    python tools/bundle_a9a.py [PATH_TO_A9A_TEXT]

Without a path it uses ``shared/data/a9a`` in the nearest directory above the repository
that has one (``../shared/data/a9a`` for a checkout beside ``shared/``).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "halfspaces" / "datasets" / "data" / "a9a.npz"
# the source text's sha256, as recorded in data/README.md
SOURCE_SHA256 = "bff61dc22565a3746cc157216851cd426c3c809199ffaafef65d5cc56cec4a04"
CANDIDATES = (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.float32)


def default_source() -> Path:
    for parent in ROOT.parents:
        path = parent / "shared" / "data" / "a9a"
        if path.exists():
            return path
    sys.exit("no shared/data/a9a above the repository; pass the path of the a9a text")


def smallest_exact(values: np.ndarray) -> np.ndarray:
    """`values` in the first dtype of CANDIDATES that holds every value exactly."""
    for dtype in CANDIDATES:
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            if values.size and (values.min() < info.min or values.max() > info.max):
                continue
        stored = values.astype(dtype)
        if np.array_equal(stored.astype(values.dtype), values):
            return stored
    return values


def main(argv: list[str]) -> None:
    source = Path(argv[0]) if argv else default_source()
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    if digest != SOURCE_SHA256:
        sys.exit(f"{source} has sha256 {digest}, not the recorded a9a text {SOURCE_SHA256}")
    X, y = load_svmlight_file(str(source), n_features=123, dtype=np.float64, zero_based=False)
    X = X.tocsr()
    assert X.has_canonical_format
    arrays = {"data": X.data, "indices": X.indices, "indptr": X.indptr, "y": y}
    stored = {name: smallest_exact(values) for name, values in arrays.items()}
    for name, values in arrays.items():
        assert np.array_equal(stored[name].astype(values.dtype), values), name
    np.savez_compressed(OUT, **stored)
    kinds = ", ".join(f"{name} {values.dtype}" for name, values in stored.items())
    print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size:,} bytes; {kinds})")


if __name__ == "__main__":
    main(sys.argv[1:])
