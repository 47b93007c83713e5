"""An estimator's contract, declared once: its fitted attributes, and the docs made from them.

Each estimator class lists the attributes a fit sets in a :class:`Fitted` declaration, its
``_fitted_attributes``, written beside the code that sets them. One :class:`Attribute` says

* what a model file may hold for it: a spec such as ``Array("float64", ("p", "d"))``, which
  :func:`halfspaces.io._state.check_state` enforces before a loaded value reaches the
  compiled loops (None for an attribute computed from others, a property, never stored);
* how the class's docstring documents it: its numpydoc type and description (none for a
  private attribute), from which :func:`fill_doc` writes the Attributes section.

The specs are plain frozen data; what they mean is checked in :mod:`halfspaces.io._state`,
the one place that trusts nothing. Shapes are written in the dimensions ``d``
(``n_features_in_``), ``k`` (``len(classes_)``) and ``p`` (the binary problems: 1 for two
classes, else k; always k where the declaration's ``problems`` is "all"); other letters are
sizes the file may choose (e.g. the support vectors) but must then use consistently, bound
by the first attribute that uses them (``n_features_in_`` and ``classes_`` are checked
first, the others in the declaration's order); a ``#`` is the index of the list item that
holds the value, and ``letter+1`` one more than the letter.

Strings and dataclasses only: the module imports nothing of the package, so that every
family can declare its contract with it.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "FEATURE_NAMES_IN", "MAX_FEATURES", "N_FEATURES_IN", "PER_PROBLEM_COUNT", "AnyOf", "Array",
    "Attribute", "Bool", "Choice", "Classes", "FeatureNames", "Fitted", "Float", "Instance",
    "Int", "Items", "OrNone", "Precomputed", "SampleMatrix", "Spec", "declared", "fill_doc",
]

MAX_FEATURES = 2**31 - 1
"""Largest ``n_features_in_`` a model file may declare (the int32 index range of CSR data)."""

INT64_MAX = 2**63 - 1


class Spec:
    """What a model file may hold for one attribute (checked by :mod:`halfspaces.io._state`)."""


@dataclass(frozen=True)
class Int(Spec):
    """An integer (not a bool) within [low, high]."""

    low: int = 0
    high: int = INT64_MAX


@dataclass(frozen=True)
class Bool(Spec):
    """A bool (Python's or NumPy's)."""


@dataclass(frozen=True)
class Float(Spec):
    """A float (not a bool), finite unless ``finite=False``."""

    finite: bool = True


@dataclass(frozen=True)
class Array(Spec):
    """An ndarray of one of `dtypes` (names, space-separated) and of `shape`, finite unless
    ``finite=False``, its values at least `low` and below the dimension `high`."""

    dtypes: str
    shape: tuple
    finite: bool = True
    low: int | None = None
    high: str | None = None


@dataclass(frozen=True)
class SampleMatrix(Spec):
    """Sample rows: a dense or CSR array of one of `dtypes`, of shape (`rows`, d), finite,
    a CSR matrix with the whole structure fit checks."""

    rows: str
    dtypes: str = "float64"


@dataclass(frozen=True)
class Choice(Spec):
    """`one` when there is one binary problem, `many` beyond (scikit-learn's habit of
    scalars for binary problems, arrays per class otherwise)."""

    one: Spec
    many: Spec


@dataclass(frozen=True)
class Precomputed(Spec):
    """`yes` when the model's ``kernel`` parameter is "precomputed", `no` otherwise."""

    yes: Spec
    no: Spec


@dataclass(frozen=True)
class AnyOf(Spec):
    """A value that meets `first`, or failing that `second` (e.g. a newer and an older form
    of the same state); the error is `first`'s."""

    first: Spec
    second: Spec


@dataclass(frozen=True)
class OrNone(Spec):
    """None, or a value that meets `spec`."""

    spec: Spec


@dataclass(frozen=True)
class Items(Spec):
    """A list (or tuple: `kind`) of `length` items, each meeting `item` (or its own spec of
    a tuple of them)."""

    kind: type
    length: int | str
    item: Spec | tuple[Spec, ...]


@dataclass(frozen=True, init=False)
class Instance(Spec):
    """An object of exactly the class `cls`, its named fields meeting their specs."""

    cls: type
    fields: tuple[tuple[str, Spec], ...]

    def __init__(self, cls: type, **fields: Spec) -> None:
        object.__setattr__(self, "cls", cls)
        object.__setattr__(self, "fields", tuple(fields.items()))


@dataclass(frozen=True)
class Classes(Spec):
    """``classes_``: k >= 2 distinct labels (numbers or strings), sorted as np.unique sorts,
    and labels that fit accepts (no bytes, no float that is not an integer)."""


@dataclass(frozen=True)
class FeatureNames(Spec):
    """``feature_names_in_``: one string per feature, no two the same."""


@dataclass(frozen=True)
class Attribute:
    """One fitted attribute: its name, what a model file may hold, what the docs say.

    Parameters
    ----------
    name : str
        The attribute's name.
    spec : Spec or None
        What a model file may hold for it; None for an attribute that is computed (a
        property) and never stored.
    type : str, default=""
        Its numpydoc type; "" for a private attribute, left out of the docs.
    doc : str, default=""
        Its description (indented as in a docstring, or not: it is dedented).
    optional : bool, default=False
        Whether a fitted model may lack it: a fit sets it only for some data
        (``feature_names_in_``), or model files from before it existed do not hold it.
    """

    name: str
    spec: Spec | None
    type: str = ""
    doc: str = ""
    optional: bool = False

    def entry(self, indent: str) -> str:
        """The numpydoc entry, its first line indented by `indent`."""
        lines = [f"{indent}{self.name} : {self.type}"]
        if self.doc:
            lines += [f"{indent}    {line}".rstrip()
                      for line in inspect.cleandoc(self.doc).split("\n")]
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Fitted:
    """The fitted attributes of an estimator class, in the order its docs list them.

    Parameters
    ----------
    problems : {"ovr", "all", "one"}
        How the number p of binary problems follows from the k classes: one-vs-rest (1 for
        two classes, else k), always k, or a regressor's one (no classes).
    attributes : tuple of Attribute
        The attributes, public and private.
    """

    problems: str
    attributes: tuple[Attribute, ...] = ()

    def __post_init__(self) -> None:
        names = [a.name for a in self.attributes]
        if len(set(names)) != len(names) or self.problems not in ("ovr", "all", "one"):
            raise ValueError(f"a declaration repeats a name or has no such problems: {self}")

    def plus(self, *more: Attribute) -> Fitted:
        """This declaration with `more` attributes after its own."""
        return Fitted(self.problems, self.attributes + more)

    def replacing(self, *others: Attribute) -> Fitted:
        """This declaration with each attribute of `others` in place of its namesake."""
        by_name = {a.name: a for a in others}
        if not set(by_name) <= {a.name for a in self.attributes}:
            raise ValueError(f"no attributes {sorted(by_name)} to replace")
        return Fitted(self.problems, tuple(by_name.get(a.name, a) for a in self.attributes))

    @property
    def schema(self) -> dict[str, Spec]:
        """Name -> spec of the attributes a fitted instance holds (a model file's state)."""
        return {a.name: a.spec for a in self.attributes if a.spec is not None}

    @property
    def optional(self) -> frozenset[str]:
        """The names of the stored attributes a fitted instance may lack."""
        return frozenset(a.name for a in self.attributes if a.optional and a.spec is not None)

    def section(self, indent: str = "    ") -> str:
        """The entries of the Attributes section: the documented attributes, in order."""
        return "".join(a.entry(indent) for a in self.attributes if a.type)


def declared(cls: type) -> Fitted | None:
    """The fitted attributes `cls` declares (``_fitted_attributes``), or None."""
    fitted = getattr(cls, "_fitted_attributes", None)
    return fitted if isinstance(fitted, Fitted) else None


PER_PROBLEM_COUNT = Choice(Int(), Array("int64", ("p",), low=0))
"""A count per binary problem: an int for one, an array beyond (``per_problem``'s form)."""

N_FEATURES_IN = Attribute("n_features_in_", Int(1, MAX_FEATURES), "int",
                          "Number of features seen during fit.")
FEATURE_NAMES_IN = Attribute(
    "feature_names_in_", OrNone(FeatureNames()), "ndarray of shape (``n_features_in_``,)",
    "Feature names, when X had string column names (a model trained by ``halfspaces fit``\n"
    "on a CSV/TSV file with a header: its feature columns' names).", optional=True)
"""The attributes scikit-learn's validation sets on every estimator (the second only when X
has string column names)."""

# a marker: a line holding only [key] or [key: a note for the reader]
_MARKER = re.compile(r"^(?P<indent>[ ]*)\[(?P<key>\w+)(?::[^\]\n]*)?\][ ]*$", re.MULTILINE)

FITTED_ATTRIBUTES = "fitted_attributes"
"""The marker key of the Attributes entries written from the class's declaration."""


def fill_doc(**texts: str) -> Callable[[type], type]:
    """Class decorator: fill the marker lines of the class's docstring.

    A marker is a line holding only ``[key]`` or ``[key: a note]``, indented as the entries
    of its section. ``[fitted_attributes]`` becomes the entries of the class's declared
    fitted attributes (:func:`declared`); ``[key]`` becomes ``texts[key]``, a shared
    section text (dedented, then indented as the marker). A marker without a text, or a
    text without a marker, is an error at import, so no docstring can keep a marker or
    lose a section.

    Parameters
    ----------
    **texts : str
        The shared texts by marker key.

    Returns
    -------
    decorator : callable
        Fills the docstring of the class it is given, and returns the class.
    """
    def fill(cls: type) -> type:
        if cls.__doc__ is None:  # python -OO
            return cls
        fitted = declared(cls)
        keys = {m["key"] for m in _MARKER.finditer(cls.__doc__)}
        missing = keys - set(texts) - ({FITTED_ATTRIBUTES} if fitted else set())
        unused = set(texts) - keys
        if missing or unused:
            raise AssertionError(f"{cls.__name__}'s docstring: markers without a text "
                                 f"{sorted(missing)}, texts without a marker {sorted(unused)}")

        def text(match: re.Match) -> str:
            indent, key = match["indent"], match["key"]
            if key not in texts and fitted is not None:  # FITTED_ATTRIBUTES
                return fitted.section(indent).rstrip("\n")
            lines = textwrap.dedent(texts[key]).strip("\n").split("\n")
            return "\n".join(f"{indent}{line}".rstrip() for line in lines)

        cls.__doc__ = _MARKER.sub(text, cls.__doc__)
        return cls

    return fill
