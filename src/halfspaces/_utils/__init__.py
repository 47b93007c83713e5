"""Helpers with no algorithm in them, open to the whole package.

- :mod:`.blas`: BLAS thread limits around the solvers' products;
- :mod:`.memory`: the memory a process may use (RAM or a cgroup limit) and checks against it;
- :mod:`.progress`: progress reports through a context variable;
- :mod:`.rounding`: refusing values that float64 would round;
- :mod:`.descriptors`: small attribute descriptors;
- :mod:`.scaling`: power-of-two column scaling (exact in floating point);
- :mod:`.homogeneous`: the homogeneous reduction x' = (1, x) and its inverse, splitting the
  intercept off w' = (b, w);
- :mod:`.contract`: how an estimator declares its fitted attributes (for model files and its
  docs), and the docstring sections filled from the declarations and shared texts.

Its modules are imported by their own names; this file imports nothing.
"""
