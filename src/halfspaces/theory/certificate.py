"""The old home of :func:`certify`'s report, kept importable.

The report is :class:`halfspaces.theory.report.CertifyReport`; ``Certificate`` is its former
name (a certificate, in this library, is Gordan's vector only).
"""

from halfspaces.theory.report import CertifyReport, certify

Certificate = CertifyReport

__all__ = ["Certificate", "CertifyReport", "certify"]
