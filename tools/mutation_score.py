"""Per-module mutation scores from ``mutmut results --all true`` (read on stdin).

score = (killed + timeout) / tested, where *tested* counts every mutant mutmut ran against
the selected tests: killed, timed out, survived, "no tests" (no selected test executes the
mutated function, so nothing could catch it: it counts as a miss), and the odd verdicts
(suspicious, segfault). Mutants a run has not reached yet ("not checked", or interrupted)
and skipped ones are reported in their own columns and never enter the score: a partial
run scores what it tested, instead of counting what it never ran as surviving.

    mutmut results --all true | python tools/mutation_score.py
"""

from __future__ import annotations

import collections
import re
import sys
from collections.abc import Iterable

LINE = re.compile(r"^\s*(?P<name>\S+)__mutmut_\d+: (?P<status>.+)$")
CAUGHT = ("killed", "timeout", "caught by type check")
UNTESTED = ("not checked", "check was interrupted by user", "skipped")
HEADER = ("module", "tested", "killed", "timeout", "survived", "no tests", "other",
          "not checked", "score")


def module_of(name: str) -> str:
    """The module of a mutant: the name before its function part (x_f or xǁClassǁmethod)."""
    return re.split(r"\.x_|\.xǁ", name, maxsplit=1)[0]


def count(lines: Iterable[str]) -> dict[str, collections.Counter]:
    """Verdicts per module, from the lines of ``mutmut results --all true``."""
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for line in lines:
        match = LINE.match(line)
        if match:
            counts[module_of(match["name"])][match["status"].strip()] += 1
    return counts


def tested(c: collections.Counter) -> int:
    return sum(n for status, n in c.items() if status not in UNTESTED)


def score(c: collections.Counter) -> float | None:
    """(killed + timeout) / tested, None when nothing was tested."""
    n = tested(c)
    return sum(c[status] for status in CAUGHT) / n if n else None


def row(module: str, c: collections.Counter) -> str:
    s = score(c)
    known = ("killed", "timeout", "survived", "no tests", *UNTESTED, "caught by type check")
    other = sum(n for status, n in c.items() if status not in known)
    cells = (module, tested(c), c["killed"] + c["caught by type check"], c["timeout"],
             c["survived"], c["no tests"], other,
             c["not checked"] + c["check was interrupted by user"],
             "-" if s is None else f"{100 * s:.1f}%")
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def table(counts: dict[str, collections.Counter]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    total: collections.Counter = collections.Counter()
    for module, c in sorted(counts.items()):
        total.update(c)
        lines.append(row(module, c))
    lines.append(row("**total**", total))
    return "\n".join(lines)


def main() -> None:
    print(table(count(sys.stdin)))


if __name__ == "__main__":
    main()
