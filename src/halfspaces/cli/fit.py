"""``halfspaces fit``: train a classifier, report how well it does, and save it.

:func:`fit` is the importable function (it returns a :class:`FitReport`); :func:`fit_cli`
is the Typer command that parses options, calls it and hands the report to the output sink.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import sys
from enum import Enum
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

from halfspaces.cli import _fit_measures, _output
from halfspaces.cli._fit_checks import (
    RESUME_OPTIONS,
    check_outputs,
    check_streamable,
    check_usage,
    one_file_unless_dask,
)
from halfspaces.cli._fit_report import (  # noqa: F401 (LABELS: the default labels, read here)
    LABELS,
    FitReport,
    build_report,
    labels_for,
)
from halfspaces.cli._models import (
    PERCEPTRON_FAMILY,
    REGRESSION_MODELS,
    ModelName,
    make_model,
    parse_params,
)
from halfspaces.cli._options import (
    MAX_ROWS,
    MAX_SEED,
    DaskOption,
    DataFormat,
    JsonOutput,
    LabelColumn,
    parse_label_column,
)
from halfspaces.cli._process import collector
from halfspaces.cli._weights import (
    check_weighted,
    parse_class_weight,
    reading_weights,
    split_weight_column,
)

__all__ = ["DEFAULT_EPOCHS", "DEFAULT_MODEL", "FitReport", "ModelName", "Selection", "fit",
           "fit_cli"]

DEFAULT_MODEL = "averaged"
"""The ``--model`` when none is given: the averaged perceptron, the perceptron family's best
test accuracy at the same cost (0.85 on a9a after 10 epochs, where the last weights of the
plain perceptron score 0.73; Freund and Schapire 1999 explain why the average generalises
better). ``--model perceptron`` trains the plain one."""

DEFAULT_EPOCHS = 10
"""Epochs the CLI allows by default. The library's 1000 is a budget for separable data; on
non-separable data such as a9a every epoch is spent, and the perceptron family's test
accuracy has levelled off after a handful of passes, so 10 keeps ``halfspaces fit`` quick.
With ``--stream`` the default is one pass over the file."""


class Selection(str, Enum):
    """The ``--selection`` choices: how each epoch picks the next sample."""

    cyclic = "cyclic"
    shuffle = "shuffle"
    worst = "worst"


@dataclasses.dataclass(frozen=True)
class StreamOptions:
    """The ``--stream`` settings of :func:`fit`."""

    chunk_size: int = 10_000
    checkpoint: Path | None = None
    checkpoint_every: int | None = None
    resume: bool = False
    verify_data: bool = False


def fit(
    data: Path | None = None,
    *,
    test: Path | None = None,
    test_fraction: float | None = None,
    model: str = DEFAULT_MODEL,
    params: dict[str, Any] | None = None,
    epochs: int | None = None,
    selection: str = "shuffle",
    seed: int | None = 0,
    fit_intercept: bool = True,
    label_column: int | str | None = None,
    format: str | None = None,
    out: Path | None = None,
    stream: StreamOptions | None = None,
    show_progress: bool = False,
    dask: str | None = None,
    train_score: bool = True,
    weight_column: str | None = None,
    class_weight: str | None = None,
) -> FitReport:
    """Train one classifier, measure its accuracy and optionally save it.

    Parameters
    ----------
    data : Path or None, default=None
        Training data: a file (svmlight, CSV/TSV, Parquet, .npy/.npz) or a data set name
        (:func:`halfspaces.datasets.list_datasets`). None trains on the bundled a9a "train"
        subset and tests on its "test" subset.
    test : Path or None, default=None
        Test data (only with `data`).
    test_fraction : float or None, default=None
        Hold out this fraction of the training rows (seeded by `seed`) as the test set.
    model : str, default="averaged"
        A ``--model`` name (:data:`halfspaces.cli._models.MODEL_CLASSES`).
    params : dict or None, default=None
        Estimator parameters (``--param key=value``); they override the options below.
    epochs : int or None, default=None
        ``max_epochs`` (or ``max_iter``); None: 10 for the perceptron family, the model's
        default otherwise, and one pass with `stream`.
    selection, seed, fit_intercept
        ``selection``, ``random_state``, ``fit_intercept``, for models that have them. The
        command line shuffles by default, with seed 0: data sorted by class (iris, most
        exports of a database) make a cyclic perceptron's last updates all one class's (the
        averaged multiclass perceptron: 0.633 test accuracy on iris, against 0.967
        shuffled), and scikit-learn's perceptrons shuffle by default too.
    label_column, format
        How to read tabular files (see :func:`halfspaces.io.read`).
    out : Path or None, default=None
        Save the trained model here (:func:`halfspaces.save`).
    stream : StreamOptions or None, default=None
        Train with ``partial_fit`` on chunks of the file (:func:`halfspaces.io.fit_stream`).
    show_progress : bool, default=False
        Show progress bars and, when the model's loops are not compiled yet, a one-line
        note that they are being compiled (both only on a terminal).
    dask : str or None, default=None
        Train the :mod:`halfspaces.dask` model on a Dask cluster: a scheduler's address or
        ``local:N``. `data` (and `test`) may then be a list of files or glob patterns, read
        on the workers; ``--out`` saves the equivalent serial model (``to_local()``).
    train_score : bool, default=True
        Measure the model on its training data (a pass of predictions: for a voted
        perceptron streamed over millions of rows, longer than the training itself); False
        leaves the train measures empty (``--no-train-score``).
    weight_column : str or None, default=None
        A CSV/TSV or Parquet column of row weights: taken out of the features and given
        to ``fit(sample_weight=)`` (the accuracies reported stay unweighted).
    class_weight : str or None, default=None
        ``balanced`` or ``label=weight,...``: the estimator's ``class_weight``.

    Returns
    -------
    FitReport

    Raises
    ------
    ValueError
        For malformed data (:class:`halfspaces.io.DataFileError`) or bad parameter values.
    KeyError
        If `params` names a parameter the model does not have.
    """
    defaults = _defaults(model, epochs, selection, seed, fit_intercept, stream is not None)
    if dask is not None:
        check_weighted(None, model, weight_column, class_weight, stream=False, dask=True)
        return _fit_dask(data, test, model, params, defaults, label_column, format, out, dask,
                         show_progress)
    estimator = make_model(model, params or {}, defaults)
    check_weighted(estimator, model, weight_column, class_weight, stream=stream is not None,
                   dask=False)
    check_outputs((data, test), out, None if stream is None else stream.checkpoint)
    _announce_compilation(model, estimator, data, format, show_progress)
    if stream is not None:
        return _fit_stream(data, test, estimator, model, defaults, epochs or 1, label_column,
                           format, out, stream, show_progress, train_score)
    from halfspaces.cli._reading import check_classes, load_fit_data, split_fraction

    with reading_weights(weight_column):
        loaded = load_fit_data(data, test, label_column=label_column, format=format)
    check_classes(loaded.y, model, label_column, regression=model in REGRESSION_MODELS,
                  name=loaded.name)
    loaded = _weighed(loaded, estimator, data, format, label_column, weight_column,
                      class_weight)
    if test_fraction is not None:
        loaded = split_fraction(loaded, test_fraction, seed)
    collector.resume()  # the start-up is over: the modules and the data are loaded
    with _output.progress(f"fitting {model}", None, show_progress), _in_cli_words(model):
        fit_time, compile_time, notes = _fit_measures.timed(
            lambda: estimator.fit(loaded.X, loaded.y, **_sample_weight(loaded)))
    bound, bound_notes = _fit_measures.mistake_bound(model, estimator, loaded.X, loaded.y)
    measure = partial(_fit_measures.measures, estimator, regression=model in REGRESSION_MODELS)

    def measured(what, X, y):  # a voted model's predictions take a while: show their progress
        with _output.progress(f"scoring the {what} data", None, show_progress):
            return measure(X, y)

    train = measured("training", loaded.X, loaded.y) if train_score else _fit_measures.Measures()
    report = build_report(loaded.name, model, estimator, loaded.X.shape, fit_time,
                     loaded.notes + notes + bound_notes
                     + _fit_measures.optimality_notes(estimator, notes),
                     bound, train=train,
                     test=None if loaded.X_test is None else
                     (loaded.X_test.shape[0], measured("test", loaded.X_test, loaded.y_test)),
                     out=out, compile_time=compile_time)
    # saved last: a failure anywhere above (e.g. in the test data) leaves no model file
    _save(estimator, out, loaded.format, loaded.zero_based, label_column,
          loaded.feature_names)
    return report


def _weighed(loaded, estimator, data, format, label_column, weight_column, class_weight):
    """`loaded` with its weight column taken out as its weights, and the estimator given
    its class weights (``--weight-column``, ``--class-weight``)."""
    if weight_column is not None:
        loaded = split_weight_column(loaded, data, format, weight_column, label_column)
        loaded.notes += (f"the rows are weighted by column {weight_column!r} (the accuracies "
                         "are unweighted)",)
    if class_weight is not None:
        estimator.set_params(class_weight=parse_class_weight(class_weight, loaded.y))
    return loaded


def _sample_weight(loaded) -> dict:
    return {} if loaded.weights is None else {"sample_weight": loaded.weights}


_NOT_SEPARABLE_ADVICE = {
    "lp": "give --param on_infeasible=hinge to minimise the hinge loss instead",
    "max-margin": "use --model lp --param on_infeasible=hinge, or a model for any data "
                  "(--model logistic, averaged)",
}


@contextlib.contextmanager
def _in_cli_words(model: str):
    """The hard-margin models' refusal of non-separable data in the command line's words
    (the library's says "Pass on_infeasible='hinge'" and "`.certificate` proves it")."""
    from halfspaces.exceptions import NotSeparableError

    try:
        yield
    except NotSeparableError:
        if model not in _NOT_SEPARABLE_ADVICE:
            raise
        raise NotSeparableError(
            f"the data are not linearly separable, so --model {model} has no solution (a "
            "certificate proves it: `halfspaces certify DATA` shows it); "
            f"{_NOT_SEPARABLE_ADVICE[model]}.") from None


def _fit_dask(data, test, model, params, defaults, label_column, format, out, dask,
              show_progress) -> FitReport:
    from halfspaces.cli._dask import dask_estimator, fit_on_cluster
    from halfspaces.io import detect_format, expand_paths

    if data is None:
        raise ValueError("--dask needs DATA files, read on the workers.")
    paths = data if isinstance(data, list) else [data]
    tests = None if test is None else (test if isinstance(test, list) else [test])
    estimator = dask_estimator(model, params or {}, defaults)
    # the files the patterns name, as read_files will expand them: --out must be none of them
    check_outputs(expand_paths([*paths, *(tests or [])]), out, None)
    fitted = fit_on_cluster(estimator, paths, dask=dask, test=tests, label_column=label_column,
                            format=format, show_progress=show_progress, model=model)
    scored = partial(_fit_measures.Measures.of_score, regression=model in REGRESSION_MODELS)
    report = build_report(", ".join(str(p) for p in paths), model, estimator, fitted.shape,
                     fitted.fit_time, fitted.notes, None, train=scored(fitted.train),
                     test=None if fitted.test is None else
                     (fitted.test[0], scored(fitted.test[1])),
                     out=out, compile_time=fitted.compile_time)
    _save(estimator.to_local(), out, detect_format(paths[0], format), fitted.zero_based,
          label_column, None)
    return report


def _defaults(model, epochs, selection, seed, fit_intercept, streaming) -> dict[str, Any]:
    if epochs is None and model in PERCEPTRON_FAMILY + ("kernel", "voted-kernel", "multiclass"):
        epochs = DEFAULT_EPOCHS
    passes = None if streaming else epochs
    return {"max_epochs": passes, "max_iter": passes, "selection": selection,
            "random_state": seed, "fit_intercept": fit_intercept}


# the compiled-loop modules each model's training needs, besides "labels" (label encoding);
# the kernel perceptron's entry is for kernels other than the named linear one (see below)
_LOOP_MODULES = {"perceptron": "perceptron", "averaged": "perceptron", "voted": "perceptron",
                 "pocket": "perceptron", "kernel": "dual", "voted-kernel": "dual",
                 "multiclass": "multiclass",
                 "logistic": "logistic", "svm": "svm"}


def _loop_module(model: str, estimator) -> str | None:
    """The ``halfspaces._fast`` module whose loops training `estimator` runs.

    ``KernelPerceptron(kernel="linear")`` trains with the primal perceptron loops and derives
    its dual coefficients from their update log (``_dual_run.run_linear_perceptron``); only
    other kernels (a callable one included) run the dual loops.
    """
    kernel = getattr(estimator, "kernel", None)
    if model in ("kernel", "voted-kernel") and isinstance(kernel, str) and kernel == "linear":
        return "perceptron"
    return _LOOP_MODULES.get(model)


def _announce_compilation(model: str, estimator, data: Path | None, format: str | None,
                          show: bool) -> None:
    """One note on a terminal when loops this run needs are not compiled yet."""
    if not (show and sys.stderr.isatty()):
        return
    from halfspaces._fast import is_cached

    modules = ["labels", _loop_module(model, estimator)]
    if _is_svmlight(data, format):
        modules.append("svmlight")  # the compiled parser
    if not all(is_cached(module) for module in filter(None, modules)):
        _output.note(["compiling the training loops (first run only)"])


def _is_svmlight(data: Path | None, format: str | None) -> bool:
    from halfspaces.io import detect_format

    try:
        return data is not None and data.is_file() and detect_format(data, format) == "svmlight"
    except (OSError, ValueError):  # reading the data reports it
        return False


def _save(estimator, out: Path | None, fmt, zero_based, label_column, feature_names) -> None:
    if out is None:
        return
    import numpy as np

    from halfspaces.io.model import save

    data = {"format": fmt, "zero_based": zero_based, "label_column": label_column}
    if feature_names is not None:  # CSV/TSV columns, so that predict can match them by name
        data["feature_names"] = list(feature_names)
        # and so that Python checks a DataFrame's columns as for a model fitted on one (a
        # model without them scored a DataFrame in another column order silently wrong);
        # set on a copy: the columns were matched here, the arrays scored have no names
        estimator = copy.copy(estimator)
        estimator.feature_names_in_ = np.asarray(feature_names, dtype=object)
    save(estimator, out, extra={"data": data})


def _interrupted(checkpoint: Path | None) -> list[str]:
    """What an interrupted stream leaves: where its checkpoint is, and how to go on (it
    exited 130 without a word)."""
    if checkpoint is None:
        return ["interrupted; nothing was saved (give --checkpoint to be able to resume)"]
    from halfspaces.io.model import load_with_extra

    try:
        _, extra = load_with_extra(checkpoint)
        done = extra["checkpoint"]
        where = f"at epoch {done['epoch']}, example {done['position']:,}"
    except Exception:  # noqa: BLE001 - none written yet, or unreadable: say so, not crash
        return [f"interrupted before a checkpoint was written to {checkpoint}"]
    return [f"interrupted; the checkpoint {checkpoint} was written {where}: run the same "
            "command with --resume to go on from there"]


def _watched(data: Path, format: str | None, show_progress: bool):
    """A :class:`halfspaces.io.ReadMeter` of `data` for the bar, where its size is known
    and its readers open it as bytes (svmlight, CSV/TSV; Parquet and NumPy files are read
    by their own libraries); else None, and the bar counts examples only."""
    import contextlib

    from halfspaces.io import detect_format, watch_reads

    if not show_progress or detect_format(data, format) not in ("svmlight", "csv", "tsv"):
        return contextlib.nullcontext(None)
    return watch_reads(data)


def _fit_stream(data, test, estimator, model, defaults, passes, label_column, format, out,
                options: StreamOptions, show_progress, train_score=True) -> FitReport:
    from halfspaces.io import column_names, detect_format, evaluate_stream, fit_stream

    collector.resume()  # the start-up is over: the stream may run for hours
    if data is None:
        raise ValueError("--stream needs a training file DATA.")
    # no first pass here: fit_stream finds the labels and the width itself (in the same pass
    # as training where the model allows it), and the train accuracy's pass counts the rows
    names = column_names(data, format=format, label_column=label_column)
    runs: list = []
    try:
        with _watched(data, format, show_progress) as meter, \
                _output.stream_progress("training", show_progress, epochs=passes,
                                        meter=meter) as bar:
            fit_time, compile_time, notes = _fit_measures.timed(lambda: runs.append(fit_stream(
                estimator, data, epochs=passes, chunk_size=options.chunk_size, format=format,
                label_column=label_column, checkpoint=options.checkpoint,
                checkpoint_every=options.checkpoint_every, resume=options.resume,
                on_progress=bar.examples, on_epoch=bar.epoch,
                verify_data=options.verify_data)))
    except (KeyboardInterrupt, SystemExit):  # Ctrl-C, or SIGTERM/SIGHUP (cli._process)
        _output.note(_interrupted(options.checkpoint))
        raise
    run = runs[0]
    read = {"chunk_size": options.chunk_size, "format": format, "label_column": label_column,
            "zero_based": run.zero_based}

    def measured(what, path, **more):
        with _output.progress(f"scoring the {what} data", None, show_progress,
                              unit="examples") as advance:
            return evaluate_stream(run.model, path, **read, **more, on_progress=advance)

    train = measured("training", data) if train_score else None
    tested = None if test is None else measured("test", test, feature_names=names)
    _save(run.model, out, detect_format(data, format), run.zero_based, label_column, names)
    # without the train pass, the rows of one pass over the file are counted by training
    n_train = train.n_samples if train is not None else (
        run.n_seen // passes if run.resumed_at is None else 0)
    return build_report(str(data), model, run.model, (n_train, run.n_features), fit_time,
                   notes, None, train=_fit_measures.Measures() if train is None else
                   _fit_measures.Measures.of_stream(train),
                   test=None if tested is None else
                   (tested.n_samples, _fit_measures.Measures.of_stream(tested)),
                   out=out, passes=passes, compile_time=compile_time)


def fit_cli(
    data: Annotated[list[Path] | None, typer.Argument(
        help="Training data: an svmlight/LIBSVM, CSV/TSV, Parquet, .npy or .npz file, or a "
        "data set name (see `halfspaces datasets`). Omit it to train on the bundled Adult "
        "(a9a) train split and test on its test split. With --dask: one or more files or "
        "glob patterns, read on the workers.", show_default=False)] = None,
    test: Annotated[Path | None, typer.Option(
        help="Test data, same formats (needs DATA).", show_default=False)] = None,
    test_fraction: Annotated[float | None, typer.Option(
        min=0.0, max=1.0, help="Hold out this fraction of DATA (seeded by --seed) as test data.",
        show_default=False)] = None,
    model: Annotated[ModelName, typer.Option(
        help="Which classifier (default: the averaged perceptron).")] = DEFAULT_MODEL,
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", help="An estimator parameter, key=value (repeatable), e.g. "
        "--param kernel=rbf.", show_default=False)] = None,
    epochs: Annotated[int | None, typer.Option(
        min=1, max=MAX_ROWS, help="Maximum passes over the data (max_epochs / max_iter); "
        "default 10 for the perceptrons, 1 with --stream.", show_default=False)] = None,
    selection: Annotated[Selection, typer.Option(
        help="Order of the samples within an epoch: a new permutation each epoch (seeded "
        "by --seed), the file's order, or the worst example first.")] = Selection.shuffle,
    seed: Annotated[int, typer.Option(
        min=0, max=MAX_SEED,
        help="Random seed (--selection shuffle, --test-fraction).")] = 0,
    intercept: Annotated[bool, typer.Option(
        "--intercept/--no-intercept", help="Learn a bias term.")] = True,
    label_column: LabelColumn = None,
    format: DataFormat = None,
    out: Annotated[Path | None, typer.Option(
        help="Save the trained model to this file.", show_default=False)] = None,
    stream: Annotated[bool, typer.Option(
        "--stream", help="Train with partial_fit on chunks: memory bounded by the chunk.")]
        = False,
    chunk_size: Annotated[int, typer.Option(
        min=1, max=MAX_ROWS, help="Rows per chunk with --stream.")]
        = 10_000,
    checkpoint: Annotated[Path | None, typer.Option(
        help="With --stream: save the model and its position here, atomically.",
        show_default=False)] = None,
    checkpoint_every: Annotated[int | None, typer.Option(
        min=1, max=MAX_ROWS, help="Examples between checkpoints (default: --chunk-size).",
        show_default=False)] = None,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Continue from --checkpoint if it exists.")] = False,
    verify_data: Annotated[bool, typer.Option(
        "--verify-data", help="With --checkpoint: record a SHA-256 of the whole data file and "
        "check it on --resume (one more read of the file; by default its size, time and "
        "ends are checked).")] = False,
    train_score: Annotated[bool, typer.Option(
        "--train-score/--no-train-score", help="Measure the model on its training data too "
        "(one pass of predictions).")] = True,
    json_output: JsonOutput = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Print the results only: no notes, no progress bars.")] = False,
    dask: DaskOption = None,
    weight_column: Annotated[str | None, typer.Option(
        help="CSV/TSV or Parquet: the column of row weights (>= 0), by header name; it is "
        "not a feature. For models whose fit takes sample_weight.", show_default=False)]
        = None,
    class_weight: Annotated[str | None, typer.Option(
        help="Class weights: 'balanced' (n / (n_classes * count)) or label=weight,... (e.g. "
        "1=5,-1=1), multiplying the row weights. For models with a class_weight parameter.",
        show_default=False)] = None,
) -> None:
    """Train a classifier; print its train and test accuracy; save it with --out."""
    data = one_file_unless_dask(data, dask, stream, test_fraction)
    check_usage(data, test, test_fraction, stream, checkpoint, checkpoint_every, resume)
    try:
        params = parse_params(param)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--param") from None
    options = (StreamOptions(chunk_size, checkpoint, checkpoint_every, resume, verify_data)
               if stream else None)
    if stream:
        check_streamable(_name(model), params)
    from halfspaces.io.streaming import CheckpointMismatchError

    try:
        report = fit(data, test=test, test_fraction=test_fraction, model=_name(model),
                     params=params, epochs=epochs, selection=selection.value, seed=seed,
                     fit_intercept=intercept, label_column=parse_label_column(label_column),
                     format=format, out=out, stream=options,
                     show_progress=not (quiet or json_output), dask=dask,
                     train_score=train_score, weight_column=weight_column,
                     class_weight=class_weight)
    except KeyError as exc:
        raise typer.BadParameter(exc.args[0], param_hint="--param") from None
    except CheckpointMismatchError as exc:  # name the option that differs from the checkpoint's
        raise typer.BadParameter(str(exc), param_hint=RESUME_OPTIONS.get(
            exc.setting, f"--param {exc.setting}")) from None
    except ValueError as exc:
        if type(exc).__name__ != "InvalidParameterError":  # scikit-learn's bad-value error
            raise
        raise typer.BadParameter(" ".join(str(exc).split()), param_hint="--param") from None
    record = report.as_dict()
    notes = record.pop("notes") if not json_output else []
    _output.render(record, title=f"halfspaces fit: {report.model}", as_json=json_output,
                   labels=labels_for(report))
    if not quiet:
        _output.note(notes)


def _name(model) -> str:
    return model.value if isinstance(model, Enum) else str(model)
