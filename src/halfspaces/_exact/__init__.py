"""Exact solvers for halfspaces, by HiGHS, each answer verified in floating point.

The algorithms layer that :mod:`halfspaces.theory` and :mod:`halfspaces.erm` build on. Every
problem is stated on the signed rows z_i = y_i x'_i (:func:`signed_rows`):

- :func:`decide`: LP feasibility of <w', z_i> >= 1, with a separator or a Gordan certificate
  (a >= 0, sum(a) = 1, sum_i a_i z_i = 0) either way (:mod:`.feasibility`), the certificate
  proved in exact rational arithmetic where it fits (:mod:`.rational`);
- :func:`min_norm_separator`: the hard margin, by dual coordinate descent
  (:mod:`.coordinate`) or the QP, its duality gap checked either way (:mod:`.min_norm`);
- :func:`hinge_lp` and :func:`zero_one_erm`: ERM for the hinge and the 0-1 loss by LP and
  MILP (:mod:`.risk`);
- :func:`first_dependence`, :func:`dependence_space` and :func:`conformal_dependence`: the
  linear dependences of points and the labelings they make unrealisable, in exact
  arithmetic at any width (:mod:`.independence`, :mod:`.conformal`);
- :func:`smallest_root`: the search for the smallest Freund-Schapire mistake bound (not
  exact, sound wherever it stops; :mod:`.freund_schapire`);
- :func:`solve`: the one call into HiGHS (:mod:`.highs`).
"""

from halfspaces._exact.conformal import conformal_dependence
from halfspaces._exact.feasibility import (
    CERTIFICATE_TOL,
    Feasibility,
    decide,
    decide_sample,
    proved,
    proved_separator,
    score_error_bound,
    unit_separator,
    verified_certificate,
)
from halfspaces._exact.freund_schapire import smallest_root
from halfspaces._exact.highs import INF, HighsResult, solve
from halfspaces._exact.independence import (
    DependenceSpace,
    dependence_space,
    first_dependence,
    is_dependence,
)
from halfspaces._exact.min_norm import min_norm_separator
from halfspaces._exact.rational import (
    exact_fits,
    exact_margin,
    rational_certificate,
    unproved_certificate_error,
)
from halfspaces._exact.risk import (
    ZeroOneFit,
    hinge_lp,
    lp_costs,
    refuse_subnormal_columns,
    scaled_hinge_lp,
    zero_one_erm,
)
from halfspaces._exact.signed import (
    SignedRows,
    Violations,
    block_violations,
    column_max,
    scores,
    signed_rows,
)

__all__ = [
    "CERTIFICATE_TOL",
    "DependenceSpace",
    "INF",
    "Feasibility",
    "HighsResult",
    "SignedRows",
    "Violations",
    "ZeroOneFit",
    "block_violations",
    "column_max",
    "conformal_dependence",
    "decide",
    "decide_sample",
    "dependence_space",
    "exact_fits",
    "exact_margin",
    "first_dependence",
    "hinge_lp",
    "is_dependence",
    "lp_costs",
    "min_norm_separator",
    "proved",
    "proved_separator",
    "rational_certificate",
    "refuse_subnormal_columns",
    "scaled_hinge_lp",
    "score_error_bound",
    "scores",
    "signed_rows",
    "smallest_root",
    "solve",
    "unit_separator",
    "unproved_certificate_error",
    "verified_certificate",
    "zero_one_erm",
]
