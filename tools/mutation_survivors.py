"""Every surviving mutant, with its change and a first class, as Markdown.

Reads ``mutmut results --all true`` on stdin and the mutated sources under ``mutants/src``
(mutmut 3 keeps each mutant as a function ``x_f__mutmut_N`` beside ``x_f__mutmut_orig``),
and writes one line per mutant that survived or had no test: its name, the line it changes
(before -> after) and a class read off the change itself:

- ``dtype``: only a ``dtype=`` argument changed or went;
- ``check``: only ``check_finite=`` or ``strict=`` (input checks of SciPy and ``zip``);
- ``text``: only a string changed (``XX``-wrapped or case-changed: a message or a key);
- ``boundary``: only a comparison's strictness (``<`` for ``<=``, ``>=`` for ``>``...);
- ``constant``: only a number changed;
- ``other``: anything else, judged by hand in benchmarks/MUTATION.md.

The class says what changed, not that the mutant is equivalent. Why each one cannot be
caught is said mutant by mutant in a TOML file (``--reasons``; ours is
``benchmarks/mutation_reasons.toml``), in tables of two kinds::

    [[why]]                     # equivalent: no reachable input tells it from the original
    mutants = ["pkg.mod.x_f__mutmut_1", "pkg.mod.x_f__mutmut_2"]
    reason = "`.astype(None)` is `.astype(float64)`."

    [[open]]                    # could be caught, no test yet
    mutants = ["pkg.mod.x_g__mutmut_3"]
    reason = "an input with ... would give ..."

    [[fixed]]                   # it showed a defect of the code, which was changed since
    mutants = ["pkg.mod.x_h__mutmut_4"]
    reason = "the loop ... now ..., tested by ..."

and the listing shows each survivor's reason, or "not explained". Reasons for mutants that
are not listed as survivors (killed since, or not judged this time) are named on stderr.

    mutmut results --all true | python tools/mutation_survivors.py \
        --reasons benchmarks/mutation_reasons.toml > benchmarks/MUTATION_SURVIVORS.md
"""

from __future__ import annotations

import argparse
import ast
import collections
import difflib
import re
import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script, or loaded by path
from mutation_score import module_of  # noqa: E402 (the one reading of mutmut's names)

ROOT = Path(__file__).resolve().parents[1]
MUTANTS = ROOT / "mutants"
LINE = re.compile(r"^\s*(?P<name>\S+__mutmut_\d+): (?P<status>.+)$")
LISTED = ("survived", "no tests")
COMPARISONS = {"<", "<=", ">", ">="}
NOT_EXPLAINED = "**not explained**"
KINDS = ("why", "open", "fixed")


def survivors(lines: Iterable[str]) -> list[tuple[str, str]]:
    """(name, status) of the mutants that survived or had no test, in mutmut's order."""
    found = []
    for line in lines:
        match = LINE.match(line)
        if match and match["status"].strip() in LISTED:
            found.append((match["name"], match["status"].strip()))
    return found


def module_and_function(name: str) -> tuple[str, str, str]:
    """("pkg.mod", "x_f" or "xǁCǁm", "N") of "pkg.mod.x_f__mutmut_N"."""
    head, number = name.rsplit("__mutmut_", 1)
    module = module_of(head)
    return module, head[len(module) + 1:], number


def sources(module: str) -> dict[str, str]:
    """The source of every function of the mutated copy of ``module``, by name."""
    path = MUTANTS / "src" / Path(*module.split(".")).with_suffix(".py")
    text = path.read_text()
    lines = text.splitlines()
    return {node.name: "\n".join(lines[node.lineno - 1:node.end_lineno])
            for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


def change(original: str, mutant: str) -> tuple[list[str], list[str]]:
    """The lines removed from and added to the function body (its def line aside)."""
    before, after = original.splitlines()[1:], mutant.splitlines()[1:]
    removed, added = [], []
    for line in difflib.unified_diff(before, after, lineterm="", n=0):
        if line.startswith("-") and not line.startswith("---"):
            removed.append(line[1:].strip())
        elif line.startswith("+") and not line.startswith("+++"):
            added.append(line[1:].strip())
    return removed, added


def tokens(text: str) -> list[str]:
    return re.findall(r"\"[^\"]*\"|'[^']*'|\d+\.?\d*(?:e-?\d+)?|[<>=!]=|[A-Za-z_]\w*|\S",
                      text)


def without(argument: str, code: str) -> str:
    """``code`` without the keyword ``argument`` (a regular expression) and its spaces."""
    return re.sub(r",\)", ")", re.sub(argument, "", code).replace(" ", ""))


def classify(removed: list[str], added: list[str]) -> str:
    """The class of a change (see the module docstring)."""
    old, new = " ".join(removed), " ".join(added)
    for kind, argument in [("dtype", r"dtype=[\w.]+"), ("check", r"(check_finite|strict)=\w+")]:
        if without(argument, old) == without(argument, new):
            return kind
    a, b = tokens(old), tokens(new)
    if len(a) != len(b):
        return "other"
    differing = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    if not differing:
        return "other"
    if all(x[0] in "\"'" and y[0] in "\"'" for x, y in differing):
        return "text"
    if all(x in COMPARISONS and y in COMPARISONS for x, y in differing):
        return "boundary"
    if all(re.fullmatch(r"[\d.e-]+", x) and re.fullmatch(r"[\d.e-]+", y)
           for x, y in differing):
        return "constant"
    return "other"


def read_reasons(text: str) -> dict[str, tuple[str, str]]:
    """Mutant name -> (kind, reason) from the TOML of the module docstring."""
    import tomllib  # Python 3.11+; the listing without reasons also runs on 3.10

    found: dict[str, tuple[str, str]] = {}
    for kind, entries in tomllib.loads(text).items():
        if kind not in KINDS:
            raise ValueError(f"unknown table [[{kind}]]: expected [[why]], [[open]] or "
                             "[[fixed]]")
        for entry in entries:
            reason = entry["reason"].strip()
            if not reason:
                raise ValueError(f"an empty reason for {entry['mutants']}")
            for name in entry["mutants"]:
                if name in found:
                    raise ValueError(f"{name} has two reasons")
                found[name] = (kind, reason)
    return found


def shown_reason(name: str, reasons: dict[str, tuple[str, str]]) -> str:
    kind, reason = reasons.get(name, ("", ""))
    if not kind:
        return NOT_EXPLAINED
    text = reason if kind == "why" else f"**{kind}:** {reason}"
    return " ".join(text.split()).replace("|", "\\|")


def listing(found: list[tuple[str, str]],
            reasons: dict[str, tuple[str, str]] | None = None) -> str:
    """Markdown: counts by class, then each module's survivors in a table."""
    reasons = {} if reasons is None else reasons
    by_module: dict[str, list[str]] = collections.defaultdict(list)
    classes: collections.Counter = collections.Counter()
    kinds: collections.Counter = collections.Counter()
    cache: dict[str, dict[str, str]] = {}
    for name, status in found:
        module, function, number = module_and_function(name)
        if module not in cache:
            cache[module] = sources(module)
        functions = cache[module]
        removed, added = change(functions.get(f"{function}__mutmut_orig", ""),
                                functions.get(f"{function}__mutmut_{number}", ""))
        kind = classify(removed, added) if status == "survived" else "no tests"
        classes[kind] += 1
        kinds[reasons.get(name, ("none", ""))[0]] += 1
        shown = f"`{' / '.join(removed)}` -> `{' / '.join(added)}`".replace("|", "\\|")
        by_module[module].append(f"| {function}__mutmut_{number} | {shown} | {kind} | "
                                 f"{shown_reason(name, reasons)} |")
    lines = ["# Surviving mutants", "",
             "Generated by `tools/mutation_survivors.py` from `mutmut results --all true` "
             "and `benchmarks/mutation_reasons.toml`; the classes are read off each change "
             "(see the tool's docstring), and each reason says why that mutant cannot be "
             "caught (or, marked open, what input would catch it).", "",
             f"{len(found)} mutants survived or had no test: "
             + ", ".join(f"{kind} {n}" for kind, n in sorted(classes.items())) + ".",
             f"Explained as equivalent: {kinds['why']}; open: {kinds['open']}; fixed since: "
             f"{kinds['fixed']}; not explained: {kinds['none']}.", ""]
    for module in sorted(by_module):
        lines += [f"## {module} ({len(by_module[module])})", "",
                  "| mutant | change | class | why |", "|---|---|---|---|",
                  *by_module[module], ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reasons", type=Path, help="the TOML file of reasons")
    args = parser.parse_args()
    reasons = read_reasons(args.reasons.read_text()) if args.reasons else {}
    found = survivors(sys.stdin)
    print(listing(found, reasons))
    listed = {name for name, _ in found}
    for name in sorted(set(reasons) - listed):
        print(f"reason for a mutant not listed as a survivor (killed since, or not judged "
              f"in this listing): {name}", file=sys.stderr)


if __name__ == "__main__":
    main()
