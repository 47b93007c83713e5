"""Deferred imports for the command-line process: modules loaded only when first used.

``import sklearn.base`` imports ``scipy.stats`` and ``pandas`` at the top of
``sklearn/utils/fixes.py`` and ``scipy.special`` at the top of ``sklearn/utils/_array_api.py``,
which use them only inside functions that ``halfspaces fit`` never calls; the training
algorithms import ``scipy.optimize`` for the solvers of other models. They were 0.55 s,
0.29 s, 0.26 s and 0.13-0.3 s of a warm three-second fit (measured with ``python -X
importtime``). While the command runs, :func:`deferring` answers those imports with
a module object whose body has not run yet: the first attribute read runs it in place, so the
object becomes the real module and every holder of it sees the real contents.

The standard library's :class:`importlib.util.LazyLoader` does the same on any attribute read,
``__spec__`` included; the import statement reads ``__spec__`` whenever the module is already in
``sys.modules`` (to wait for a module another thread is initialising), so on Python 3.11 a
second ``import scipy.stats`` anywhere loads it. Here the module's own metadata (``__spec__``,
``__name__``, ``__path__``, ``__file__``: set before the body runs) is read without loading;
any other attribute loads.

Some modules are only *hidden*: pandas. scikit-learn and narwhals ask
``sys.modules["pandas"]`` on every fit whether a DataFrame could be present, and would load a
deferred pandas there. So pandas is deferred only while the module that imports it for nothing
runs, and then leaves ``sys.modules``: that module keeps an object that loads pandas (or
forwards to a pandas imported meanwhile) when used; everyone else imports the real pandas.

Library users are not affected: :func:`deferring` is entered by :func:`halfspaces.cli.main`
alone.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import sys
import threading
import types
from collections.abc import Iterator

__all__ = ["DEFERRED", "HIDDEN_WHILE", "deferring", "is_deferred"]

DEFERRED = ("scipy.optimize", "scipy.special", "scipy.stats")
"""Modules whose body runs at their first use, not at their import."""

HIDDEN_WHILE = {"sklearn.utils.fixes": ("pandas",)}
"""While the key module's body runs, its imports of these modules are deferred; afterwards
they leave ``sys.modules`` unless something used them."""


_LOADING_LOCK = threading.RLock()
_LOADING: set[int] = set()  # the deferred modules whose body is running


class _DeferredModule(types.ModuleType):
    """A module whose body has not run: the first read of a missing attribute runs it.

    One body runs at a time, under a lock (another thread's read waits for the end of the
    run); during the run, reads of missing attributes fail as they do on any module whose
    import has not finished.
    """

    def __getattr__(self, attr: str):
        name = self.__spec__.name
        with _LOADING_LOCK:
            if type(self) is not _DeferredModule:  # loaded while this thread waited
                return getattr(self, attr)
            if id(self) in _LOADING:
                raise AttributeError(f"partially initialized module {name!r} has no "
                                     f"attribute {attr!r}")
            current = sys.modules.get(name)
            if current is not None and current is not self:  # imported for real meanwhile
                return getattr(current, attr)
            sys.modules[name] = self
            _LOADING.add(id(self))
            try:
                self.__spec__.loader.exec_module(self)
            except BaseException:
                if sys.modules.get(name) is self:  # what a failed import leaves behind
                    del sys.modules[name]
                raise
            finally:
                _LOADING.discard(id(self))
            self.__class__ = types.ModuleType
        return getattr(self, attr)


def is_deferred(module: types.ModuleType | None) -> bool:
    """Whether `module` is a deferred module whose body has not run yet."""
    return isinstance(module, _DeferredModule)


class _DeferredLoader(importlib.abc.Loader):
    """The module's own loader, with its ``exec_module`` postponed to the first use."""

    def __init__(self, loader) -> None:
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__.loader = module.__loader__ = self.loader
        module.__class__ = _DeferredModule


class _HidingLoader(importlib.abc.Loader):
    """The module's own loader; while the body runs, `hidden` imports are deferred."""

    def __init__(self, loader, finder: _Finder, hidden: tuple[str, ...]) -> None:
        self.loader, self.finder, self.hidden = loader, finder, hidden

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__.loader = module.__loader__ = self.loader
        added = set(self.hidden) - self.finder.deferred
        self.finder.deferred |= added
        try:
            self.loader.exec_module(module)
        finally:
            self.finder.deferred -= added
            for name in self.hidden:
                if is_deferred(sys.modules.get(name)):
                    del sys.modules[name]


class _Finder(importlib.abc.MetaPathFinder):
    """Finds modules as the finders after it do, with a deferring or hiding loader."""

    def __init__(self, deferred, hidden_while) -> None:
        self.deferred = set(deferred)
        self.hidden_while = dict(hidden_while)

    def find_spec(self, name, path, target=None):
        if name not in self.deferred and name not in self.hidden_while:
            return None
        spec = self._real_spec(name, path, target)
        if spec is None or not hasattr(spec.loader, "exec_module"):
            return spec
        if name in self.hidden_while:
            spec.loader = _HidingLoader(spec.loader, self, self.hidden_while[name])
        else:
            spec.loader = _DeferredLoader(spec.loader)
        return spec

    def _real_spec(self, name, path, target):
        for finder in sys.meta_path:
            if not isinstance(finder, _Finder) and hasattr(finder, "find_spec"):
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    return spec
        return None


@contextlib.contextmanager
def deferring(deferred=DEFERRED, hidden_while=None) -> Iterator[None]:
    """Within the block, import `deferred` modules lazily and hide `hidden_while`'s modules.

    Modules imported within the block stay deferred afterwards (their first use loads them);
    later imports are ordinary ones.
    """
    finder = _Finder(deferred, HIDDEN_WHILE if hidden_while is None else hidden_while)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
