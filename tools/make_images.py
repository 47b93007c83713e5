"""Write the README's pictures, ``docs/images/*.png``, with :mod:`halfspaces.plot`.

Every picture is computed from fixed seeds, so running the script again reproduces them
(up to the Matplotlib version). Run from the repository root, with the plot extra
installed (``pip install -e '.[plot]'``):

    python tools/make_images.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from halfspaces import Perceptron
from halfspaces.plot import (
    HyperplaneDisplay,
    MistakeBoundDisplay,
    SeparabilityDisplay,
    ShatterDisplay,
)

OUT = Path(__file__).resolve().parents[1] / "docs" / "images"
XOR = [[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]


def separable(n: int, d: int, seed: int, gap: float = 0.3):
    """Gaussian points labelled by a random hyperplane, the band |f| < gap removed."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    w /= np.linalg.norm(w)
    X = rng.normal(size=(4 * n, d))
    f = X @ w + 0.3
    keep = np.flatnonzero(np.abs(f) >= gap)[:n]
    return X[keep], np.where(f[keep] > 0, 1, -1)


def save(display, name: str) -> None:
    display.figure_.savefig(OUT / name, dpi=80, metadata={"Software": None})
    print(OUT / name)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    X, y = separable(60, 2, seed=0)
    model = Perceptron().fit(X, y)
    save(HyperplaneDisplay.from_estimator(model, X, y, band="max-margin"), "boundary.png")
    X5, y5 = separable(200, 5, seed=1, gap=0.2)
    save(MistakeBoundDisplay.from_online(X5, y5, n_orders=5, random_state=0), "mistakes.png")
    save(ShatterDisplay.from_points(XOR), "shatter.png")
    rng = np.random.default_rng(2)
    Xn = rng.normal(size=(40, 2))
    yn = np.where(Xn @ [1.0, 1.0] + 1.0 * rng.normal(size=40) > 0, 1, -1)  # not separable
    save(SeparabilityDisplay.from_data(Xn, yn), "separability.png")


if __name__ == "__main__":
    main()
