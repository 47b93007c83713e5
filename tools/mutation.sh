#!/usr/bin/env bash
# Mutation testing of the plain-Python core with mutmut (pip install -e '.[mutation]').
# Run by hand, not in CI: the core has some 5,400 mutants, hours on 2 shared cores, so run a
# few modules at a time (each call first runs the whole test selection once).
# The modules and the tests each mutant is judged by are set in pyproject.toml's
# [tool.mutmut]; mutmut works in mutants/ (git-ignored) and keeps its verdicts there, so a
# second run only re-tests what changed. Scores and the surviving mutants: benchmarks/MUTATION.md.
#
#   tools/mutation.sh                       every module of [tool.mutmut] only_mutate
#   tools/mutation.sh 'halfspaces._perceptron.epochs*'  the mutants of one module (mutmut's name globs)
#
# Afterwards: `mutmut results` lists the survivors, `mutmut show NAME` prints one as a diff,
# and `mutmut results --all true | python tools/mutation_score.py` prints the table again.
# To judge a few survivors against new tests without mutmut's runner (minutes per surviving
# mutant of the exact modules there): tools/mutant_check.py --tests NODE --record NAME...
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# mutmut forks a child per mutant from a process that has run the tests once. Numba's default
# threading layer on Linux is GNU OpenMP, which is not fork-safe: a child that runs a parallel
# loop again (the kernel perceptron's Gram rows, the voted vote) kills itself with SIGTERM
# ("fork() called from a process already using GNU OpenMP"), and mutmut records the mutant
# as "suspicious" (561 of the first 1,237 mutants of one run). The workqueue layer survives a fork.
export NUMBA_THREADING_LAYER=${NUMBA_THREADING_LAYER:-workqueue}
MUTMUT=${MUTMUT:-mutmut}
JOBS=${JOBS:-2}
"$MUTMUT" run --max-children "$JOBS" "$@"
# Per module: mutants, killed, survived, timeout, no tests, and the score.
"$MUTMUT" results --all true | "${PYTHON:-python3}" tools/mutation_score.py
