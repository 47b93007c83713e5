"""Per-module mutation scores from ``mutmut results --all true`` (read on stdin).

The score is mutmut's own: (killed + timeout) / (every mutant but the skipped ones); a
mutant no selected test executes ("no tests") counts against it.

    mutmut results --all true | python tools/mutation_score.py
"""

from __future__ import annotations

import collections
import re
import sys

LINE = re.compile(r"^\s*(?P<name>\S+)__mutmut_\d+: (?P<status>.+)$")


def module_of(name: str) -> str:
    """The module of a mutant: the name before its function part (x_f or xǁClassǁmethod)."""
    return re.split(r"\.x_|\.xǁ", name, maxsplit=1)[0]


def main() -> None:
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for line in sys.stdin:
        match = LINE.match(line)
        if match:
            counts[module_of(match["name"])][match["status"].strip()] += 1
    header = ("module", "mutants", "killed", "survived", "timeout", "no tests", "score")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    total: collections.Counter = collections.Counter()
    for module, c in sorted(counts.items()):
        total.update(c)
        print(row(module, c))
    print(row("**total**", total))


def row(module: str, c: collections.Counter) -> str:
    n = sum(c.values()) - c["skipped"]
    score = 100 * (c["killed"] + c["timeout"]) / n if n else 0.0
    cells = (module, n, c["killed"], c["survived"], c["timeout"], c["no tests"], f"{score:.1f}%")
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


if __name__ == "__main__":
    main()
