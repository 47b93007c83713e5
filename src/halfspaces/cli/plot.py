"""``halfspaces plot KIND``: draw a picture of :mod:`halfspaces.plot` into a file.

:func:`plot` computes the display with the library (fitting ``--model`` where the picture
is of a model) and writes it; it returns the numbers drawn, which ``--json`` prints.
Matplotlib is imported only when the command runs, so ``halfspaces --help`` stays light.
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from halfspaces.cli import _output
from halfspaces.cli._models import ModelName
from halfspaces.cli._options import MAX_SEED, DataFormat, JsonOutput, LabelColumn

__all__ = ["FORMATS", "KINDS", "plot", "plot_cli"]

KINDS = ("boundary", "margins", "mistakes", "animate", "separability", "shatter", "losses",
         "loss-curve", "sample-complexity", "regions")
"""The pictures ``halfspaces plot`` draws (one display of :mod:`halfspaces.plot` each)."""

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
"""``--out`` suffix -> Matplotlib format (animate writes .gif or .html instead)."""

ANIMATION_FORMATS = (".gif", ".html")

NEEDS_DATA = ("boundary", "margins", "mistakes", "animate", "separability", "loss-curve",
              "regions")
FITS_MODEL = ("boundary", "margins", "loss-curve", "regions")

MAX_ORDERS = 100
"""The largest ``--orders``: :data:`halfspaces.plot.mistakes.MAX_ORDERS`, repeated here so
that option parsing imports no NumPy."""

MAX_FRAMES = 10_000
"""The largest ``--passes``: :data:`halfspaces.plot.animation.MAX_FRAMES`, repeated here for
the same reason."""

XOR = [[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]

Kind = Enum("Kind", {k: k for k in KINDS}, type=str)
Kind.__doc__ = "The KIND choices (see :data:`KINDS`)."


class View(str, Enum):
    auto = "auto"
    normal = "normal"
    features = "features"


def _format_of(kind: str, out: Path) -> str:
    suffix = out.suffix.lower()
    allowed = ANIMATION_FORMATS if kind == "animate" else tuple(FORMATS)
    if suffix not in allowed:
        raise ValueError(f"--out {out}: the format comes from the suffix; plot {kind} writes "
                         f"{', '.join(allowed)}.")
    return FORMATS.get(suffix, suffix[1:])


def _display(kind: str, X, y, *, model: str, params: dict[str, Any], view: str,
             features: tuple[int, int], band: str, n_orders: int, seed: int,
             names: list[str] | None = None, passes: int = 1):
    """The display of `kind` and the numbers it draws; `names` are X's columns' names (a
    CSV header's), for the axes."""
    import numpy as np

    import halfspaces.plot as hp

    if kind in FITS_MODEL:
        from halfspaces.cli._models import make_model

        _check_model_for(kind, model, y)
        estimator = make_model(model, params, {}).fit(X, y)
        if kind == "loss-curve":
            disp = hp.LossCurveDisplay.from_estimator(estimator)
            return disp, {"loss_curve": np.asarray(estimator.loss_curve_).tolist()}
        if kind == "regions":
            disp = hp.RegionsDisplay.from_estimator(estimator, X, y, feature_names=names)
            return disp, {"classes": np.asarray(disp.classes).tolist(),
                          "regions": [r.tolist() for r in disp.regions]}
        if kind == "margins":
            disp = hp.MarginDisplay.from_estimator(estimator, X, y)
            return disp, {"model_margin": disp.model_margin, "gamma": disp.gamma}
        disp = hp.HyperplaneDisplay.from_estimator(estimator, X, y, view=view,
                                                   features=features, band=band,
                                                   feature_names=names)
        return disp, {"view": disp.view, "coef": np.ravel(estimator.coef_).tolist(),
                      "intercept": float(np.ravel(estimator.intercept_)[0]),
                      "errors": int(disp.errors.sum()), "gamma": disp.gamma,
                      "support": disp.support.tolist()}
    if kind == "mistakes":
        disp = hp.MistakeBoundDisplay.from_online(X, y, n_orders=n_orders, random_state=seed,
                                                  n_passes=passes)
        return disp, {"mistakes": [int(m.sum()) for m in disp.mistakes],
                      "passes": passes,
                      "mistakes_per_pass": [m.reshape(passes, -1).sum(axis=1).tolist()
                                            for m in disp.mistakes],
                      "bound": disp.bound_, "bound_kind": disp.bound_kind}
    if kind == "separability":
        disp = hp.SeparabilityDisplay.from_data(X, y, feature_names=names)
        record = {"separable": disp.certificate is None}
        if disp.witness is not None:
            record["witness"] = disp.witness.tolist()
        return disp, record
    if kind == "shatter":
        disp = hp.ShatterDisplay.from_points(XOR if X is None else X)
        bad = [t.tolist() for t, s in zip(disp.labelings, disp.separators, strict=True)
               if s is None]
        return disp, {"panels": len(disp.labelings), "shattered": disp.shattered,
                      "unrealisable": bad}
    if kind == "sample-complexity":
        return _sample_complexity(X, params)
    disp = hp.LossDisplay.from_losses(_loss_names(params))
    return disp, {"upper_bounds": disp.upper_bounds}


def _check_model_for(kind: str, model: str, y) -> None:
    """Refuse, in the command line's words and before any fit, a model or data the picture
    cannot draw (the displays' own messages name Python: "pass a fitted
    LogisticRegression", "Perceptron has 10 rows of coef_")."""
    import numpy as np

    if kind == "loss-curve" and model not in ("logistic", "linear"):
        raise ValueError(f"plot loss-curve draws the loss per iteration of --model logistic "
                         f"or --model linear; --model {model} has no loss curve.")
    n_classes = np.unique(np.asarray(y)).size
    if kind in ("boundary", "margins") and n_classes > 2:
        raise ValueError(f"plot {kind} draws one hyperplane and DATA has {n_classes} "
                         "classes: draw the classes' regions with `halfspaces plot regions`, "
                         "or give two-class data.")


def _loss_names(params: dict[str, Any]) -> list[str] | None:
    """``--param names=...`` of plot losses: one name or a JSON list of names.

    A bare string was iterated letter by letter ("Unknown loss 'h'") and a number raised a
    TypeError reported as an internal error.
    """
    unknown = sorted(set(params) - {"names"})
    if unknown:
        raise KeyError(f"plot losses has no parameter {', '.join(unknown)} (it has names)")
    names = params.get("names")
    if names is None:
        return None
    names = [names] if isinstance(names, str) else names
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"--param names={json.dumps(params['names'])}: give a loss name or a "
                         'list of them, e.g. names=hinge or names=\'["hinge","logistic"]\'.')
    return names


def _sample_complexity(X, params: dict[str, Any]):
    import halfspaces.plot as hp

    unknown = sorted(set(params) - {"vc_dim", "delta", "epsilons"})
    if unknown:
        raise KeyError(f"plot sample-complexity has no parameter {', '.join(unknown)} (it has "
                       "vc_dim, delta, epsilons)")
    if "vc_dim" in params:
        vc_dim = params["vc_dim"]
    elif X is not None:
        vc_dim = X.shape[1] + 1  # affine halfspaces in R^d (Theorem 9.3)
    else:
        raise ValueError("plot sample-complexity needs DATA or --param vc_dim=D.")
    try:
        disp = hp.SampleComplexityDisplay.from_bounds(vc_dim, params.get("delta", 0.05),
                                                      params.get("epsilons"))
    except (TypeError, ValueError) as exc:  # "could not convert string to float: 'abc'"
        raise ValueError(f"--param vc_dim, delta or epsilons: {exc} (epsilons: a number or "
                         "a JSON list such as [0.1,0.05], each in (0, 1))") from None
    return disp, {"vc_dim": disp.vc_dim, "delta": disp.delta,
                  "epsilons": disp.epsilons.tolist(),
                  **{k: v.tolist() for k, v in disp.samples.items()}}


def _animate(X, y, out: Path, *, passes: int, features, inputs, names) -> dict[str, Any]:
    from halfspaces.plot import animate_perceptron

    anim = animate_perceptron(X, y, passes=passes, features=features, feature_names=names)
    anim.save(out, inputs=inputs)
    last = anim.frames[-1] if anim.frames else None
    return {"frames": [{"step": f.step, "row": f.row} for f in anim.frames],
            "coef": None if last is None else last.coef.tolist(),
            "intercept": None if last is None else last.intercept}


def plot(kind: str, data: Path | None = None, *, out: Path, model: str = "perceptron",
         params: dict[str, Any] | None = None, view: str = "auto",
         features: tuple[int, int] = (0, 1), band: str = "model", n_orders: int = 1,
         seed: int = 0, passes: int = 1, label_column: int | str | None = None,
         format: str | None = None) -> dict[str, Any]:
    """Draw the picture `kind` of :data:`KINDS` and write it to `out`.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    data : Path or None, default=None
        Labelled data (a file or a data set name); needed by boundary, margins, mistakes
        and separability. For shatter, the rows are the points (labels ignored; default
        the XOR square); losses takes none.
    out : Path
        The image; its suffix (.png, .svg, .pdf; .gif or .html for animate) gives the
        format.
    model : str, default="perceptron"
        The ``--model`` fitted for boundary, margins, loss-curve (a model with a
        ``loss_curve_``, e.g. logistic) and regions.
    params : dict or None, default=None
        Its parameters; for losses, ``names`` picks the losses; for sample-complexity,
        ``vc_dim`` (default: n_features + 1 of DATA), ``delta`` (0.05) and ``epsilons``.
    view, features, band
        As in :meth:`halfspaces.plot.HyperplaneDisplay.from_estimator`.
    n_orders, seed : int
        Orders of the examples for mistakes (the given one, then seeded permutations).
    passes : int, default=1
        animate: the most passes of the perceptron (one frame per update); mistakes: the
        passes over each order, drawn end to end against the bound.
    label_column, format
        How to read `data`.

    Returns
    -------
    dict
        ``kind``, ``path``, the numbers drawn (bound, gamma, mistakes, ...) and ``notes``:
        the warnings raised on the way (a model that did not converge), each once.
    """
    if kind not in KINDS:
        raise ValueError(f"KIND {kind!r} is not one of {', '.join(KINDS)}.")
    fmt = _format_of(kind, out)
    if kind in NEEDS_DATA and data is None:
        raise ValueError(f"halfspaces plot {kind} needs DATA (a labelled file or data set).")
    from halfspaces.io import check_output

    # before any reading or fitting: a directory or a missing folder was found only when
    # saving, after the fit (a minute for --model zero-one)
    check_output(out, [] if data is None else [data])
    X = y = None
    if data is not None and kind == "shatter":
        from halfspaces.cli._reading import read_points

        X = read_points(data, format)
    elif data is not None and kind != "losses":
        from halfspaces.cli._reading import read_data

        X, y = read_data(data, label_column, format)
    names = _column_names(data, kind, label_column, format)
    with _output.caught_warnings() as notes:  # e.g. the model's ConvergenceWarning
        if kind == "animate":
            record = _animate(X, y, out, passes=passes, features=features, inputs=[data],
                              names=names)
        else:
            record = _draw(kind, X, y, out, fmt, inputs=[] if data is None else [data],
                           model=model, params=dict(params or {}), view=view,
                           features=features, band=band, n_orders=n_orders, seed=seed,
                           names=names, passes=passes)
    return {"kind": kind, "path": str(out), **record, "notes": notes}


def _column_names(data: Path | None, kind: str, label_column, format) -> list[str] | None:
    """The feature columns' names of a CSV/TSV file with a header, for the axes (they said
    "feature 0" and "feature 1"); None for other files, data set names and no data."""
    from halfspaces.cli._reading import is_dataset_name

    if data is None or kind in ("shatter", "losses") or is_dataset_name(data):
        return None
    from halfspaces.io import column_names

    return column_names(data, format=format, label_column=label_column)


def _draw(kind: str, X, y, out: Path, fmt: str, *, inputs, **options) -> dict[str, Any]:
    """Compute the display of `kind`, write it to `out`, and return the numbers it drew."""
    disp, record = _display(kind, X, y, **options)
    from halfspaces.io import safe_write

    safe_write(out, lambda handle: disp.figure_.savefig(handle, format=fmt), inputs=inputs)
    return record


def _features(text: str) -> tuple[int, int]:
    parts = text.split(",")
    digits = [p.strip().lstrip("-") for p in parts]
    if len(parts) != 2 or not all(d.isascii() and d.isdigit() for d in digits):
        raise typer.BadParameter(f"{text!r} is not two column indices like 0,1",
                                 param_hint="--features")
    return int(parts[0]), int(parts[1])


def plot_cli(
    kind: Annotated[Kind, typer.Argument(help="The picture to draw.", show_default=False)],
    data: Annotated[Path | None, typer.Argument(
        help="Labelled data: a file in any format fit reads, or a data set name (shatter: "
        "the points; losses: none).", show_default=False)] = None,
    out: Annotated[Path, typer.Option(
        "--out", "-o", help="The image to write: .png, .svg or .pdf (animate: .gif or .html).",
        show_default=False)]
        = ...,
    model: Annotated[ModelName, typer.Option(
        help="The model fitted for boundary, margins, loss-curve and regions.")]
        = "perceptron",
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", help="A model parameter, key=value (repeatable).",
        show_default=False)] = None,
    view: Annotated[View, typer.Option(
        help="boundary: the plane of two features, or the hyperplane's normal (any "
        "dimension).")] = View.auto,
    features: Annotated[str, typer.Option(
        help="boundary --view features: the two columns.")] = "0,1",
    max_margin: Annotated[bool, typer.Option(
        "--max-margin", help="boundary: draw the certified maximum-margin band.")] = False,
    orders: Annotated[int, typer.Option(
        min=1, max=MAX_ORDERS, help="mistakes: how many orders of the examples.")] = 1,
    passes: Annotated[int, typer.Option(
        min=1, max=MAX_FRAMES,
        help="animate: the most passes of the perceptron (one frame per update); mistakes: "
        "the passes over the examples, drawn end to end against the bound.")] = 1,
    seed: Annotated[int, typer.Option(
        min=0, max=MAX_SEED, help="Seed of the extra orders.")] = 0,
    label_column: LabelColumn = None,
    format: DataFormat = None,
    json_output: JsonOutput = False,
) -> None:
    """Draw a picture of the theory (a boundary, margins, mistakes, ...) into a file."""
    from halfspaces.cli._models import parse_params
    from halfspaces.cli._options import parse_label_column

    try:
        params = parse_params(param)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--param") from None
    try:
        record = plot(kind.value, data, out=out, model=getattr(model, "value", model),
                      params=params, view=view.value, features=_features(features),
                      band="max-margin" if max_margin else "model", n_orders=orders,
                      seed=seed, passes=passes, label_column=parse_label_column(label_column),
                      format=format)
    except KeyError as exc:
        raise typer.BadParameter(exc.args[0], param_hint="--param") from None
    except ImportError as exc:  # Matplotlib (the plot extra) is missing: say how to install it
        _output.error(str(exc))
        raise typer.Exit(1) from None
    notes = record.pop("notes") if not json_output else []  # as fit: in the JSON, or noted
    if json_output:
        _output.render(record, title="", as_json=True)
    else:
        _show(record, title=f"halfspaces plot {kind.value}")
    _output.note(notes)


MAX_SHOWN = 40
"""The most rows a table of ``plot`` prints for people (the first and the last half);
``--json`` lists them all."""


def _show(record: dict[str, Any], *, title: str) -> None:
    """Print `record` for people: its single values in the two-column table, and each list
    of rows (frames, regions, labelings, a curve) as a table with a column per field, where
    the two-column table printed Python reprs ({'step': 1, 'row': 0}) and ran nested lists
    together."""
    from halfspaces.cli._reading import label_text

    record = dict(record)
    tables = []
    if "frames" in record:
        frames = record.pop("frames")
        record["updates"] = len(frames)
        tables.append(("the updates", ["update", "examples seen", "data row"],
                       [[k, f["step"], f["row"]] for k, f in enumerate(frames, 1)]))
    if "regions" in record:
        regions = record.pop("regions")
        tables.append(("the decision regions", ["class", "corners (x, y)"],
                       [[label_text(c), ", ".join(f"({_output.number(x)}, {_output.number(y)})"
                                                  for x, y in r) or "none in the box"]
                        for c, r in zip(record.pop("classes"), regions, strict=True)]))
    if "unrealisable" in record:
        labelings = record.pop("unrealisable")
        record["unrealisable labelings"] = len(labelings)
        if labelings:
            tables.append(("the labelings no halfspace realises",
                           [f"point {i}" for i in range(len(labelings[0]))], labelings))
    if "upper_bounds" in record:
        tables.append(("the losses", ["loss", "bounds the 0-1 loss"],
                       [list(item) for item in record.pop("upper_bounds").items()]))
    if "loss_curve" in record:
        tables.append(("the training loss", ["iteration", "loss"],
                       [[k, v] for k, v in enumerate(record.pop("loss_curve"), 1)]))
    if "epsilons" in record:
        epsilons = record.pop("epsilons")
        kinds = [k for k, v in record.items() if isinstance(v, list) and len(v) == len(epsilons)]
        columns = [epsilons] + [record.pop(k) for k in kinds]
        tables.append(("the samples m(epsilon)", ["epsilon", *kinds],
                       [list(row) for row in zip(*columns, strict=True)]))
    _output.render(record, title=title)
    for name, header, rows in tables:
        shown = rows if len(rows) <= MAX_SHOWN else [
            *rows[:MAX_SHOWN // 2], ["..."] * len(header), *rows[-(MAX_SHOWN // 2):]]
        more = "" if shown is rows else f" ({MAX_SHOWN} of {len(rows):,} rows; --json lists all)"
        _output.grid(shown, title=name + more, header=header)
