"""Bundled data sets and their loaders.

The data ship inside the package (compressed, with attribution in ``data/README.md``), or
inside scikit-learn, so loading them needs no network and no files outside the installed
packages.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from halfspaces.datasets._a9a import A9A_N_TEST, A9A_N_TRAIN, load_a9a

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["A9A_N_TEST", "A9A_N_TRAIN", "DATASETS", "DatasetInfo", "list_datasets", "load",
           "load_a9a"]


@dataclasses.dataclass(frozen=True)
class DatasetInfo:
    """One loadable data set: its name, size, labels and where it comes from.

    Attributes
    ----------
    name : str
        The name :func:`load` takes.
    n_samples, n_features, n_classes : int
        Its size and number of classes.
    sparse : bool
        Whether X is a SciPy CSR matrix (else a dense ndarray).
    description : str
        What the data are and where they come from.
    """

    name: str
    n_samples: int
    n_features: int
    n_classes: int
    sparse: bool
    description: str


DATASETS = {
    info.name: info for info in (
        DatasetInfo("a9a", A9A_N_TRAIN + A9A_N_TEST, 123, 2, True,
                    "Adult census income > 50K (LIBSVM a9a, bundled; UCI train then test)"),
        DatasetInfo("breast_cancer", 569, 30, 2, False,
                    "Wisconsin diagnostic breast cancer (scikit-learn)"),
        DatasetInfo("digits", 1797, 64, 10, False, "8x8 handwritten digits (scikit-learn)"),
        DatasetInfo("iris", 150, 4, 3, False, "Fisher's iris flowers (scikit-learn)"),
        DatasetInfo("wine", 178, 13, 3, False, "Wine cultivars by chemistry (scikit-learn)"),
    )
}
"""The data sets :func:`load` knows, by name."""


def list_datasets() -> list[DatasetInfo]:
    """The data sets :func:`load` knows, in name order.

    Returns
    -------
    list of DatasetInfo
        One entry per data set.

    Examples
    --------
    >>> [info.name for info in list_datasets()]
    ['a9a', 'breast_cancer', 'digits', 'iris', 'wine']
    """
    return [DATASETS[name] for name in sorted(DATASETS)]


def load(name: str) -> tuple[NDArray, NDArray]:
    """Load a data set by name as (X, y), without any network access.

    Parameters
    ----------
    name : {"a9a", "breast_cancer", "digits", "iris", "wine"}
        ``"a9a"`` is the whole bundled Adult data (use :func:`load_a9a` for its train and
        test splits); the others are scikit-learn's bundled copies.

    Returns
    -------
    X : ndarray, or scipy.sparse.csr_matrix for a9a
    y : ndarray

    Examples
    --------
    >>> X, y = load("iris")
    >>> X.shape, sorted(set(y.tolist()))
    ((150, 4), [0, 1, 2])
    """
    if name not in DATASETS:
        known = ", ".join(sorted(DATASETS))
        raise ValueError(f"unknown data set {name!r}; choose one of {known}.")
    if name == "a9a":
        return load_a9a("all")
    import sklearn.datasets

    return getattr(sklearn.datasets, f"load_{name}")(return_X_y=True)
