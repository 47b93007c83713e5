#!/usr/bin/env bash
# Build the documentation site: HTML in build/docs/html (or the folder given as $1).
# Warnings are errors (-W, with --keep-going to list them all), and -E rebuilds every page,
# so a docstring that Sphinx cannot read fails the build. Needs the docs extra:
#   pip install -e '.[docs]'
# No network, for the build or for a reader: the math is rendered by the MathJax in
# docs/_static/mathjax (tools/vendor_mathjax.sh), the API pages come from the package's own
# lists of public names (docs/_ext/api_pages.py), the CLI reference from its Click commands
# (docs/_ext/cli_reference.py).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${1:-build/docs/html}"
python="${PYTHON:-python3}"
if [ -x .venv/bin/python ] && [ -z "${PYTHON:-}" ]; then python=.venv/bin/python; fi
"$python" -m sphinx -W --keep-going -E -q -b html docs "$out"
# The site must read offline: no page may load a script, a style sheet or a font from the
# network (MathJax came from a CDN; docs/conf.py's mathjax_path now serves it with the site).
remote='<(script|link)[^>]*(src|href)="(https?:)?//'
if grep -rlE "$remote" "$out" --include='*.html'; then
    echo "error: the pages above load a script or a style sheet from the network" >&2
    exit 1
fi
