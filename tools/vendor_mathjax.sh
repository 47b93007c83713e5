#!/usr/bin/env bash
# Copy the part of MathJax 2 that the documentation uses into docs/_static/mathjax, from
# Debian's libjs-mathjax (apt-get install libjs-mathjax): the pages then render their math
# from the site itself, offline, where Sphinx's default loads MathJax from a CDN in the
# reader's browser. The subset: the TeX input with the AMS extensions, the CommonHTML output
# and its web fonts (config TeX-AMS_CHTML-full, see docs/conf.py's mathjax_path).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
src="${1:-/usr/share/javascript/mathjax}"
out=docs/_static/mathjax
rm -rf "$out"
mkdir -p "$out/config" "$out/jax/output" "$out/jax/input" "$out/fonts/HTML-CSS/TeX"
cp -L "$src/MathJax.js" "$out/"
cp -L "$src/config/TeX-AMS_CHTML-full.js" "$out/config/"
cp -rL "$src/jax/output/CommonHTML" "$out/jax/output/"
cp -rL "$src/jax/element" "$out/jax/"
cp -rL "$src/jax/input/TeX" "$out/jax/input/"
cp -rL "$src/extensions" "$out/"
# other inputs and outputs than TeX and CommonHTML
rm -rf "$out/extensions/HTML-CSS" "$out/extensions/MathML" "$out/extensions/asciimath2jax.js" \
    "$out/extensions/jsMath2jax.js" "$out/extensions/mml2jax.js"
cp -rL "$src/fonts/HTML-CSS/TeX/woff" "$out/fonts/HTML-CSS/TeX/"
# the licences: Apache-2.0 for the code, the SIL OFL 1.1 for the fonts (in COPYRIGHT)
cp /usr/share/common-licenses/Apache-2.0 "$out/LICENSE"
cp /usr/share/doc/libjs-mathjax/copyright "$out/COPYRIGHT"
version=$(dpkg-query -W -f '${Version}' libjs-mathjax 2>/dev/null || echo unknown)
cat > "$out/README" <<TEXT
MathJax ${version%%+*} (Debian's libjs-mathjax ${version}), the subset the documentation
uses: copied by tools/vendor_mathjax.sh. Code under the Apache License 2.0 (LICENSE), the
MathJax TeX fonts under the SIL Open Font License 1.1 (COPYRIGHT, Debian's copyright file).
TEXT
