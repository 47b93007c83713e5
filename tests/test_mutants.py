"""Tests that kill mutants the layer tests let live (benchmarks/MUTATION.md lists them).

Each compares the mutated module's answer with an independent oracle: a formula written out
here, a brute-force count, or the theorem the function implements.
"""
