"""Write the API reference's pages from the package's lists of public names.

The package root's names come from :mod:`halfspaces._registry` (as ``halfspaces/__init__``
reads them); each public subpackage contributes its ``__all__``. A name already documented
under the package root (``halfspaces.theory.SolverError`` is ``halfspaces.SolverError``) is
linked rather than documented twice.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from halfspaces import _registry

# (module, title, one line): the order of the reference
SECTIONS = [
    ("halfspaces", "Estimators, functions and exceptions",
     "The package root: the scikit-learn estimators, model files, exceptions."),
    ("halfspaces.perceptron", "halfspaces.perceptron",
     "The perceptron family and the online protocol."),
    ("halfspaces.kernel", "halfspaces.kernel", "Kernel perceptrons in the dual."),
    ("halfspaces.multiclass", "halfspaces.multiclass", "Multiclass perceptron."),
    ("halfspaces.logistic", "halfspaces.logistic",
     "Logistic and softmax regression by maximum likelihood."),
    ("halfspaces.linear_regression", "halfspaces.linear_regression",
     "Least-squares linear regression (ridge)."),
    ("halfspaces.svm", "halfspaces.svm",
     "The soft-margin linear SVM by dual coordinate descent, with a certified gap."),
    ("halfspaces.erm", "halfspaces.erm", "Exact empirical risk minimisation by LP/QP/MILP."),
    ("halfspaces.losses", "halfspaces.losses", "The pointwise losses."),
    ("halfspaces.theory", "halfspaces.theory", "Margins, separability, bounds, VC dimension."),
    ("halfspaces.io", "halfspaces.io", "Data files, streaming and safe writes."),
    ("halfspaces.io.model", "halfspaces.io.model", "Model files."),
    ("halfspaces.datasets", "halfspaces.datasets", "Bundled data sets."),
    ("halfspaces.plot", "halfspaces.plot", "Pictures (the plot extra)."),
    ("halfspaces.dask", "halfspaces.dask", "Training on a Dask cluster (the dask extra)."),
    ("halfspaces.cli", "halfspaces.cli", "The command line as Python functions."),
    ("halfspaces.exceptions", "halfspaces.exceptions", "Exceptions and warnings."),
]


def public_names() -> dict[str, list[str]]:
    """Each section's module -> its public names, as the package declares them."""
    names = {"halfspaces": sorted(_registry.PUBLIC)}
    for module, _, _ in SECTIONS[1:]:
        names[module] = sorted(importlib.import_module(module).__all__)
    return names


def documented_at(module: str, name: str) -> str | None:
    """The root name an object is also known by, if it is exported by the package root."""
    if module == "halfspaces" or name not in _registry.PUBLIC:
        return None
    mod = importlib.import_module(module)
    return f"halfspaces.{name}" if getattr(mod, name) is _registry.public(name) else None


def _kind(obj: object) -> str:
    if inspect.isclass(obj):
        return "class"
    if inspect.isroutine(obj):
        return "function"
    return "data"


def _table(heading: str, kind: str, names: list[str]) -> list[str]:
    template = f"autosummary/{kind}.rst"  # docs/_templates/autosummary/
    return [heading, "-" * len(heading), "", ".. autosummary::", "   :toctree: generated",
            f"   :template: {template}", "", *(f"   {n}" for n in names), ""]


def _renamed(mod, name: str) -> str | None:
    """The name an object of ``mod.__all__`` is documented under, when it is an alias."""
    real = getattr(getattr(mod, name), "__name__", name)
    return real if real != name and real in getattr(mod, "__all__", ()) else None


def page(module: str, title: str, summary: str, names: list[str]) -> str:
    """The reST of one module's page: an autosummary table per kind of name."""
    mod = importlib.import_module(module)
    lines = [title, "=" * len(title), "", f".. currentmodule:: {module}", "", summary, ""]
    if module == "halfspaces":  # the registry's own grouping
        for heading, table in (("Estimators", _registry.ESTIMATORS),
                               ("Functions", _registry.FUNCTIONS),
                               ("Exceptions and warnings", _registry.EXCEPTIONS)):
            chosen = sorted(n for n in names if n in table)
            lines += _table(heading, _kind(getattr(mod, chosen[0])), chosen)
        return "\n".join(lines)
    aliases = [n for n in names if documented_at(module, n)]
    renamed = {n: _renamed(mod, n) for n in names if n not in aliases and _renamed(mod, n)}
    own = [n for n in names if n not in aliases and n not in renamed]
    for kind, heading in (("class", "Classes"), ("function", "Functions"), ("data", "Data")):
        chosen = [n for n in own if _kind(getattr(mod, n)) == kind]
        if chosen:
            lines += _table(heading, kind, chosen)
    if renamed:
        lines += ["Other names", "-" * 11, "",
                  *(f"- ``{module}.{n}`` is :obj:`{module}.{real}` (the same object)"
                    for n, real in renamed.items()), ""]
    if aliases:
        lines += ["Also exported by the package root", "-" * 33, "",
                  *(f"- ``{module}.{n}`` is :obj:`halfspaces.{n}`" for n in aliases), ""]
    return "\n".join(lines)


def write(folder: Path) -> None:
    """Write api/index.rst and one page per section, only where the text changed."""
    folder.mkdir(exist_ok=True)
    names = public_names()
    toc = ["API reference", "=============", "",
           "Every public name, as the package declares it: the registry of the package root",
           "(``halfspaces._registry``) and each public subpackage's ``__all__``.", "",
           ".. toctree::", "   :maxdepth: 1", ""]
    for module, title, summary in SECTIONS:
        stem = module.replace(".", "_")
        _write_if_changed(folder / f"{stem}.rst", page(module, title, summary, names[module]))
        toc.append(f"   {stem}")
    _write_if_changed(folder / "index.rst", "\n".join(toc) + "\n")


def _write_if_changed(path: Path, text: str) -> None:
    # an unchanged page keeps its mtime, so an incremental build does not redo it
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def skip_member(app, what, name, obj, skip, options):
    """Leave out the members halfspaces does not define (scikit-learn's get_params, ...)."""
    if skip or name.startswith("_"):
        return None
    if name.startswith("set_") and name.endswith("_request"):
        return True  # scikit-learn's metadata-routing setters, generated per class
    target = obj.fget if isinstance(obj, property) else obj
    module = getattr(target, "__module__", None)
    if callable(target) and module is not None and not module.startswith("halfspaces"):
        return True
    return None
