#!/usr/bin/env bash
# Build the documentation site: HTML in build/docs/html (or the folder given as $1).
# Warnings are errors (-W, with --keep-going to list them all), and -E rebuilds every page,
# so a docstring that Sphinx cannot read fails the build. Needs the docs extra:
#   pip install -e '.[docs]'
# No network: the API pages come from the package's own lists of public names
# (docs/_ext/api_pages.py), the CLI reference from its Click commands (docs/_ext/cli_reference.py).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${1:-build/docs/html}"
python="${PYTHON:-python3}"
if [ -x .venv/bin/python ] && [ -z "${PYTHON:-}" ]; then python=.venv/bin/python; fi
exec "$python" -m sphinx -W --keep-going -E -q -b html docs "$out"
