"""The kernel perceptrons' algorithms, behind :mod:`halfspaces.kernel`.

- :mod:`.dual_run`: the dual run (the perceptron on alpha, over Gram rows) and the primal
  run that stands for it with the linear kernel;
- :mod:`.gram`: everything that evaluates k(., .): kernel matrices and blocks, and the cache
  of training Gram rows the dual run reads;
- :mod:`.expansion`: a fitted expansion f(x) = sum_i a_i k(s_i, x) + b, read and checked
  once, scored, voted and grown by the runs that continue it;
- :mod:`.docs`: the two kernel perceptrons' contract: their Parameters texts and fitted
  attributes.

Its modules are imported by their own names; this file imports nothing.
"""
