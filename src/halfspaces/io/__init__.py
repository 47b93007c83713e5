"""Data files in and out: svmlight/LIBSVM, CSV/TSV, Parquet and NumPy readers, bounded-memory
streaming with :func:`iter_chunks`, errors that name the file, the line and the problem, and
:func:`safe_write`, the one way the library and the command line write files.

Model files (:func:`save`, :func:`load`) live in :mod:`halfspaces.io.model` and are also
exported at the top level as ``halfspaces.save`` and ``halfspaces.load``.
"""

# defined with the other public exceptions, and exported here too, where they have always been
from halfspaces.exceptions import DataFileError, OutputFileError
from halfspaces.io._columns import (
    column_names,
    default_label_column,
    feature_column_names,
    row_line,
)
from halfspaces.io._files import (
    FORMATS,
    DataInfo,
    check_count,
    detect_format,
    expand_paths,
    iter_chunks,
    read,
    scan,
)
from halfspaces.io._source import ReadMeter, watch_reads
from halfspaces.io._write import check_output, safe_write
from halfspaces.io.evaluation import StreamCounts, StreamResiduals, evaluate_stream
from halfspaces.io.streaming import StreamFit, fit_stream
from halfspaces.io.svmlight import read_svmlight, read_svmlight_files

__all__ = [
    "FORMATS",
    "DataFileError",
    "DataInfo",
    "OutputFileError",
    "ReadMeter",
    "StreamCounts",
    "StreamResiduals",
    "StreamFit",
    "evaluate_stream",
    "fit_stream",
    "check_count",
    "check_output",
    "column_names",
    "default_label_column",
    "detect_format",
    "expand_paths",
    "feature_column_names",
    "iter_chunks",
    "read",
    "read_svmlight",
    "read_svmlight_files",
    "row_line",
    "safe_write",
    "scan",
    "watch_reads",
]
