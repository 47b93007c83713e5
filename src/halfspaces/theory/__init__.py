"""Learning theory of halfspaces, made executable: margins, separability with certificates,
mistake bounds, VC dimension and sample complexity, and two reports that gather them: on a
data set (:func:`data_report`) and on a fitted model (:func:`certify`).

Every function states its formula and the theorem it comes from; every answer computed by a
solver (HiGHS) is checked in floating point before it is returned.
"""

from halfspaces.exceptions import SolverError
from halfspaces.theory.bounds import (
    FreundSchapireBound,
    best_freund_schapire_bound,
    freund_schapire_bound,
    perceptron_mistake_bound,
    sample_complexity,
)
from halfspaces.theory.data_report import (
    DataReport,
    ReportSteps,
    assemble_data_report,
    data_report,
)
from halfspaces.theory.margins import functional_margins, geometric_margins, margin, radius
from halfspaces.theory.report import CertifyReport, certify
from halfspaces.theory.separability import MaxMargin, Separability, max_margin, separability
from halfspaces.theory.vc import shatters, unrealizable_labeling, vc_dimension

__all__ = [
    "CertifyReport",
    "DataReport",
    "ReportSteps",
    "assemble_data_report",
    "certify",
    "data_report",
    "FreundSchapireBound",
    "best_freund_schapire_bound",
    "freund_schapire_bound",
    "perceptron_mistake_bound",
    "sample_complexity",
    "MaxMargin",
    "Separability",
    "SolverError",
    "functional_margins",
    "geometric_margins",
    "margin",
    "max_margin",
    "radius",
    "separability",
    "shatters",
    "unrealizable_labeling",
    "vc_dimension",
]
