"""Generalised linear models' algorithms, behind :mod:`halfspaces.logistic` and
:mod:`halfspaces.linear_regression` (and the Dask twins of :mod:`halfspaces.dask`).

- :mod:`.datafits`: the datafits (``Logistic``, ``Softmax``, ``Squared``) with their per-block
  value, gradient and curvature (skglm's ``datafits`` pattern);
- :mod:`.objective`: the penalised mean loss over a source of rows (in memory, or in
  partitions on a cluster);
- :mod:`.solvers`: the solvers over any datafit (L-BFGS, Newton, gradient descent, SGD and
  mini-batch);
- :mod:`.least_squares`: the least-squares problem by its normal equations;
- :mod:`.duals`: certified duality gaps of the datafits' objectives (the primitives that
  bound rounding in :mod:`.gaps`), and :mod:`.runs`, what a solver returns and its stop on the gap;
- :mod:`.base`: the estimator base the GLM classes share, with their shared parameters;
- :mod:`.coordinate_descent`: the elastic-net fits (``l1_ratio > 0``) by coordinate descent
  over working sets, and ``alpha_max``; :mod:`.penalties` the elastic net itself and
  :mod:`.sparse_duals` its certified gaps.
- :mod:`.path`: warm-started regularisation paths over a grid from alpha_max, and
  :mod:`.cv`, the base of the ``...CV`` estimators that walk one path per fold.

Its modules are imported by their own names; this file imports nothing.
"""
