"""Every public name has a numpydoc docstring that documents what its signature takes.

The public names are the package root's registry (:mod:`halfspaces._registry`) and the
``__all__`` of each public submodule (the registry's ``SUBMODULES``, ``halfspaces.dask`` and
``halfspaces.io.model``), the same lists the documentation's API reference is generated
from (docs/_ext/api_pages.py). Each class is checked with its public methods and
properties, those it inherits from halfspaces' own base classes included; what a class
inherits from scikit-learn (``get_params``, ``score``, the metadata-routing setters) is
scikit-learn's to document. numpydoc's validator judges each docstring on :data:`CHECKS`.
"""

from __future__ import annotations

import ast
import dataclasses
import doctest
import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest

from halfspaces import _registry

validate = pytest.importorskip("numpydoc.validate").validate

# numpydoc's codes that every public docstring meets (numpydoc.validate.ERROR_MSGS):
CHECKS = {
    "GL08": "the object has a docstring",
    "PR01": "every parameter of the signature is documented",
    "PR02": "no documented parameter is missing from the signature",
    "PR03": "the parameters are documented in the signature's order",
    "PR06": "types are spelled int, bool, str (not integer, boolean, string)",
    "PR10": "'name : type' has a space on each side of the colon",
    "RT01": "a function that returns a value has a Returns section",
    "GL06": "no unknown section (it would not be rendered)",
    "GL10": "reST directives end in two colons (else they render as text)",
    "SS01": "there is a one-line summary",
    "YD01": "a generator has a Yields section",
}

# the public modules whose __all__ is public besides the package root's registry
MODULES = sorted({f"halfspaces.{name}" for name in _registry.SUBMODULES}
                 | {"halfspaces.dask", "halfspaces.io.model"})


def _public_objects() -> dict[str, object]:
    """Dotted name -> object, for every public class and function (not data, not aliases)."""
    found = {f"halfspaces.{name}": _registry.public(name) for name in _registry.PUBLIC}
    seen = {id(obj) for obj in found.values()}
    for module in MODULES:
        if module == "halfspaces.dask":
            pytest.importorskip("distributed")
        mod = importlib.import_module(module)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and id(obj) not in seen:
                seen.add(id(obj))
                found[f"{module}.{name}"] = obj
    return found


def _defined_by_halfspaces(cls: type, name: str) -> bool:
    owner = next(klass for klass in cls.__mro__ if name in vars(klass))
    return owner.__module__.startswith("halfspaces")


# methods that scikit-learn's available_if hides from every instance: no user can call them
NEVER_AVAILABLE = {
    # a distributed fit has no partial_fit; the serial class's is hidden
    "halfspaces.dask.LogisticRegression.partial_fit",
}


def _members(cls: type) -> list[str]:
    """The public methods and properties of a class that halfspaces defines."""
    names = []
    for name in dir(cls):
        if name.startswith("_") or (name.startswith("set_") and name.endswith("_request")):
            continue  # scikit-learn generates set_*_request for every estimator
        raw = inspect.getattr_static(cls, name)
        routine = (isinstance(raw, (property, classmethod, staticmethod))
                   or inspect.isfunction(raw)
                   or inspect.isfunction(getattr(raw, "fn", None)))  # sklearn's available_if
        if routine and _defined_by_halfspaces(cls, name):
            names.append(name)
    return names


def _targets() -> list[str]:
    objects = _public_objects()
    names = list(objects)
    for dotted, obj in objects.items():
        if inspect.isclass(obj):
            names += [f"{dotted}.{member}" for member in _members(obj)]
    return sorted(set(names) - NEVER_AVAILABLE)


TARGETS = _targets()


def _errors(dotted: str, checks) -> list[str]:
    result = validate(dotted)
    errors = [f"{code}: {message}" for code, message in result["errors"] if code in checks]
    fields = _record_fields(_resolve(dotted))
    if fields is not None:
        # a record (a dataclass or a named tuple: a run's or a solver's result) documents
        # its fields as Attributes, numpydoc asks for them as Parameters (its __init__'s):
        # accept either, but every field must be documented
        errors = [e for e in errors if not e.startswith(("PR01", "PR03"))]
        documented = _documented_names(_resolve(dotted))
        missing = [name for name in fields if name not in documented]
        if missing and "PR01" in checks:
            errors.append(f"PR01: fields {missing} documented neither as Parameters nor "
                          "as Attributes")
    return errors


def _record_fields(obj) -> list[str] | None:
    """The fields of a dataclass or named tuple class, else None."""
    if not inspect.isclass(obj):
        return None
    if dataclasses.is_dataclass(obj):
        return [field.name for field in dataclasses.fields(obj)]
    if issubclass(obj, tuple) and hasattr(obj, "_fields"):
        return list(obj._fields)
    return None


def _documented_names(cls: type) -> set[str]:
    from numpydoc.docscrape import ClassDoc

    doc = ClassDoc(cls, config={"show_class_members": False})
    names = set()
    for section in ("Parameters", "Attributes", "Other Parameters"):
        for entry in doc[section]:
            names.update(part.strip() for part in entry.name.split(","))
    return names


def _resolve(dotted: str):
    module, _, rest = dotted.partition(".")
    obj = importlib.import_module(module)
    path = rest.split(".")
    while path and inspect.ismodule(obj):
        try:
            obj = importlib.import_module(f"{obj.__name__}.{path[0]}")
        except ImportError:
            obj = getattr(obj, path[0])
        path.pop(0)
    for part in path:
        obj = inspect.getattr_static(obj, part) if inspect.isclass(obj) else getattr(obj, part)
    return obj


def test_the_public_names_are_found():
    # the estimators with their fit and predict, the theory functions and the IO readers:
    # a change in how public names are found must not quietly check fewer of them
    for name in ("halfspaces.Perceptron.fit", "halfspaces.LogisticRegression.predict_proba",
                 "halfspaces.theory.separability", "halfspaces.io.read", "halfspaces.save",
                 "halfspaces.KernelPerceptron.partial_fit", "halfspaces.losses.hinge"):
        assert name in TARGETS
    assert not any(t.endswith((".get_params", ".set_params", ".set_score_request"))
                   for t in TARGETS)
    assert len(TARGETS) > 200


@pytest.mark.parametrize("dotted", sorted(NEVER_AVAILABLE))
def test_a_method_left_out_is_never_available(dotted):
    owner, _, name = dotted.rpartition(".")
    assert not hasattr(_resolve(owner)(), name)


@pytest.mark.parametrize("dotted", TARGETS)
def test_docstring(dotted):
    errors = _errors(dotted, CHECKS)
    assert not errors, f"{dotted}:\n  " + "\n  ".join(errors)


# a marker line of halfspaces._utils.contract.fill_doc: [key] or [key: a note]
MARKER = re.compile(r"^[ ]*\[\w+(:[^\]\n]*)?\][ ]*$", re.MULTILINE)


@pytest.mark.parametrize("dotted", sorted(name for name, obj in _public_objects().items()
                                          if inspect.isclass(obj)))
def test_no_docstring_keeps_a_marker_line(dotted):
    # fill_doc replaces the marker lines of a class's docstring with the shared texts and
    # the declared attributes; one left would be rendered as a parameter named "[...]"
    doc = inspect.getdoc(_resolve(dotted)) or ""
    assert not MARKER.search(doc), f"{dotted}: {MARKER.search(doc).group()!r}"


@pytest.mark.parametrize("name", sorted(_registry.ESTIMATORS))
def test_an_estimator_docstring_is_a_literal_that_static_tools_read(name):
    # an assigned __doc__ (an f-string) is no docstring to ast, IDEs or linters: they saw
    # none at all; the literal with its marker lines shows them every section but the
    # shared entries, and names where those come from
    import ast

    cls = _registry.public(name)
    tree = ast.parse(Path(inspect.getsourcefile(cls)).read_text(encoding="utf-8"))
    (node,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    literal = ast.get_docstring(node, clean=False)
    assert literal is not None
    assert not [n for n in node.body if isinstance(n, ast.Assign)
                and any(getattr(t, "id", None) == "__doc__" for t in n.targets)]
    # every line of the literal is in the docstring help() shows, but the marker lines
    shown = set(cls.__doc__.splitlines())
    assert [line for line in literal.splitlines()
            if line not in shown and not MARKER.match(line)] == []


# ------------------------------------------------------------ the documentation site (docs/)

DOCS = Path(__file__).resolve().parents[2] / "docs"
# the written pages; api/ is generated by the build and _templates/ holds Jinja templates
PAGES = sorted(p for p in DOCS.rglob("*.rst")
               if p.relative_to(DOCS).parts[0] not in ("api", "_templates"))
needs_docs = pytest.mark.skipif(not DOCS.is_dir(), reason="no docs/ beside tests/")


@needs_docs
def test_the_api_reference_covers_every_public_module():
    # docs/_ext/api_pages.py writes the API reference; every module whose names this test
    # checks must have a page there, so a new public submodule cannot be left out
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        api_pages = importlib.import_module("api_pages")
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    documented = {module for module, _, _ in api_pages.SECTIONS}
    assert set(MODULES) <= documented
    assert "halfspaces" in documented


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_the_examples_of_the_documentation_run(page):
    # the guide's >>> examples, run as doctests (the docs build does not run them)
    pytest.importorskip("matplotlib")
    failures, _ = doctest.testfile(
        str(page), module_relative=False, encoding="utf-8",
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert failures == 0, f"{page}: {failures} example(s) failed (see the output above)"


def _conf_value(name: str):
    """A plain value assigned in docs/conf.py, read without running it (it writes pages)."""
    tree = ast.parse((DOCS / "conf.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name
                                                for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"docs/conf.py assigns no {name}")


@needs_docs
def test_the_math_is_rendered_by_the_mathjax_served_with_the_site():
    # Sphinx's default MathJax comes from a CDN in the reader's browser: offline, every
    # formula showed as TeX source. The path is relative to the built site's _static
    path, _, query = _conf_value("mathjax_path").partition("?")
    assert "_static" in _conf_value("html_static_path")
    root = DOCS / "_static" / Path(path).parent
    assert (DOCS / "_static" / path).is_file() and not re.match(r"(https?:)?//", path)
    config = dict(part.split("=", 1) for part in query.split("&"))["config"]
    assert (root / "config" / f"{config}.js").is_file()
    # what the config loads later: the CommonHTML output's web fonts and the TeX extensions
    assert list((root / "fonts" / "HTML-CSS" / "TeX" / "woff").glob("MathJax_Main-*.woff"))
    assert (root / "extensions" / "TeX" / "AMSmath.js").is_file()
    # and nothing of it reaches for a CDN itself
    for file in root.rglob("*.js"):
        assert not re.search(r"(https?:)?//[\w.-]*cdn", file.read_text(encoding="utf-8")), file
