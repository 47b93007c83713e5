"""Sphinx configuration of the halfspaces documentation (build it with tools/docs.sh).

The API reference is generated from the package's own lists of public names (the registry
and each public subpackage's ``__all__``) and the CLI reference from the Click commands behind
the Typer app, so neither can fall out of step with the code. No extension fetches anything
over the network (no intersphinx): the build must work offline.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

import api_pages  # noqa: E402

from halfspaces import __version__  # noqa: E402

project = "halfspaces"
author = "the halfspaces developers"
copyright = "the halfspaces developers, BSD-3-Clause"  # noqa: A001 - Sphinx's name
release = __version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "cli_reference",
]

smartquotes = False  # option names keep their two hyphens (--out), quotes stay ASCII
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]
html_theme = "furo"
html_title = f"halfspaces {release}"
# the pages render their math with the MathJax served beside them (tools/vendor_mathjax.sh
# copies it from Debian's libjs-mathjax): Sphinx's default loads it from a CDN in the
# reader's browser, and offline the formulas showed as TeX source. A relative path is
# relative to the built site's _static folder.
html_static_path = ["_static"]
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS_CHTML-full"

# autosummary writes one page per public name into api/generated/ (not in git)
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "inherited-members": True}
autodoc_member_order = "groupwise"
autodoc_typehints = "none"  # the numpydoc Parameters sections give the types

# numpydoc renders the sections; the members are listed by the class template instead of
# numpydoc's own tables, which would ask autosummary for stub pages of every method
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()  # tests/api/test_docstrings.py validates

# which names are public is decided by the package; api_pages writes api/*.rst from it
api_pages.write(DOCS / "api")


def setup(app):
    app.connect("autodoc-skip-member", api_pages.skip_member)
