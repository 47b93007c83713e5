"""The perceptron's updates one by one, as frames of the library's own run."""

from __future__ import annotations

import io
import math
import numbers
import re
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
from numpy.typing import ArrayLike, NDArray

from halfspaces.plot._base import (
    box_limits,
    check_features,
    clip_line,
    column_means,
    column_names,
    dense,
    require_matplotlib,
)

__all__ = ["MAX_FRAMES", "Frame", "PerceptronAnimation", "animate_perceptron", "offline_player"]

MAX_FRAMES = 10_000
"""The most frames (updates) an animation holds, and so the most passes: every frame keeps
its weight vector, and on a9a 1,000 passes made about ten million updates, 10 GB of
weights before anything was drawn (a pass that is not the last makes at least one
update, so more passes than frames cannot be drawn)."""


@dataclass(frozen=True)
class Frame:
    """One update of the perceptron: after `step` examples seen, example `row` was a
    mistake and the weights became (coef, intercept)."""

    step: int
    coef: NDArray[np.float64]
    intercept: float
    row: int


class PerceptronAnimation:
    """Frames of a perceptron run drawn in two features: one frame per update.

    Frame k shows the line of the weights after the k-th update, the example that caused it
    (ringed) and the step; frame 0 is the start, w = 0. Build it with
    :func:`animate_perceptron`.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    labels : ndarray of shape (n_samples,)
        +1 or -1.
    frames : list of Frame
        One per update, in order.
    features : pair of int
        The two columns drawn, different indices in [0, n_features) (negative indices are
        refused); the lines are the slices of the weights through the means of the other
        columns (exact when there are two features).
    feature_names : sequence of str or None, default=None
        The names of X's columns, for the axes; None: "feature i".

    Attributes
    ----------
    frames : list of Frame
    figure_ : Figure
        The figure the frames are drawn on (after the first draw).
    """

    def __init__(self, X, labels, frames, features=(0, 1), feature_names=None):
        self.X = np.asarray(X, dtype=np.float64)
        self.labels = np.asarray(labels, dtype=np.float64)
        self.frames = list(frames)
        self.features = check_features(features, self.X.shape[1])
        self.feature_names = column_names(None, self.X.shape[1], feature_names)

    def _setup(self):
        require_matplotlib()
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        f = list(self.features)
        points = self.X[:, f]
        self._rest = [j for j in range(self.X.shape[1]) if j not in f]
        self._mean = column_means(self.X)
        self.figure_ = Figure(figsize=(5, 4))
        FigureCanvasAgg(self.figure_)
        ax = self.ax_ = self.figure_.add_subplot()
        self._xlim, self._ylim = box_limits(points, name="X")
        ax.set_xlim(self._xlim)
        ax.set_ylim(self._ylim)
        ax.scatter(points[:, 0], points[:, 1], c=self.labels, cmap="coolwarm", vmin=-1, vmax=1,
                   edgecolors="k")
        (self.line_,) = ax.plot([], [], color="k", lw=2)
        (self.ring_,) = ax.plot([], [], ls="none", marker="o", ms=16, mfc="none", mec="red",
                                mew=2)
        ax.set_xlabel(self.feature_names[f[0]])
        ax.set_ylabel(self.feature_names[f[1]])

    def draw_frame(self, k: int):
        """Draw frame `k` (0 is the start, w = 0) and return the changed artists.

        Parameters
        ----------
        k : int
            The frame: 0 before any update, k after the k-th update.

        Returns
        -------
        tuple of matplotlib.lines.Line2D
            The hyperplane's line and the ring around the updating example.
        """
        if not hasattr(self, "figure_"):
            self._setup()
        f = list(self.features)
        if k == 0:
            self.line_.set_data([], [])
            self.ring_.set_data([], [])
            self.ax_.set_title("start: w = 0, b = 0")
            return self.line_, self.ring_
        frame = self.frames[k - 1]
        offset = frame.intercept + self._mean[self._rest] @ frame.coef[self._rest]
        ends = clip_line(frame.coef[f], offset, self._xlim, self._ylim)
        self.line_.set_data(ends[:, 0], ends[:, 1])
        self.ring_.set_data([self.X[frame.row, f[0]]], [self.X[frame.row, f[1]]])
        self.ax_.set_title(f"update {k} of {len(self.frames)} at step {frame.step} "
                           f"(example {frame.row})")
        return self.line_, self.ring_

    def _animation(self, interval: float):
        from matplotlib.animation import FuncAnimation

        if not hasattr(self, "figure_"):
            self._setup()
        return FuncAnimation(self.figure_, self.draw_frame, frames=len(self.frames) + 1,
                             interval=interval, blit=False, repeat=False)

    def to_jshtml(self, interval: int = 500) -> str:
        """The animation as a self-contained HTML/JavaScript player (for notebooks).

        Parameters
        ----------
        interval : int, default=500
            The delay between frames, in milliseconds.

        Returns
        -------
        str
            The HTML, with nothing to fetch from the network (see :func:`offline_player`).
        """
        return offline_player(self._animation(_check_interval(interval)).to_jshtml())

    def gif_frames(self) -> list:
        """Every frame rendered as a Pillow image (each distinct: the title counts updates).

        Returns
        -------
        list of PIL.Image.Image
            RGB images, the start first.
        """
        from PIL import Image

        images = []
        for k in range(len(self.frames) + 1):
            self.draw_frame(k)
            self.figure_.canvas.draw()
            # _setup attached an Agg canvas; Matplotlib types figure.canvas as the base class
            rgba = np.asarray(self.figure_.canvas.buffer_rgba())  # type: ignore[attr-defined]
            images.append(Image.fromarray(rgba).convert("RGB"))
        return images

    def save(self, path, interval: int = 500, *, inputs=()) -> Path:
        """Write the animation: a GIF (through Pillow) or, for .html, the JavaScript player.

        The file is written safely (:func:`halfspaces.io.safe_write`).

        Parameters
        ----------
        path : str or os.PathLike
            A .gif, .html or .htm file.
        interval : int, default=500
            The delay between frames in milliseconds (a finite number > 0).
        inputs : sequence of paths, default=()
            Files that must not be overwritten (the data drawn).

        Returns
        -------
        pathlib.Path
            The file written.
        """
        from halfspaces.io import safe_write

        delay = _check_interval(interval)
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix not in (".gif", ".html", ".htm"):
            raise ValueError(f"{path}: an animation is saved as .gif or .html.")
        if suffix == ".gif":
            images = self.gif_frames()
            buffer = io.BytesIO()
            images[0].save(buffer, format="GIF", save_all=True, append_images=images[1:],
                           duration=delay, loop=0)
            content = buffer.getvalue()
        else:
            content = self.to_jshtml(interval).encode()

        def write(handle: BinaryIO) -> None:
            handle.write(content)
        return safe_write(path, write, inputs=[p for p in inputs if p is not None])


# Matplotlib's player draws its buttons with Font Awesome icons, a style sheet it links
# from a CDN: offline (a classroom, a file opened later) the buttons were blank. Each icon
# becomes text of the Geometric Shapes block, which common fonts hold (the media-control
# symbols U+23EE-U+23F8 drew as empty boxes in headless Chromium with Debian's fonts);
# U+FE0E asks for the text, not the emoji, form, and the buttons keep their titles ("Play",
# "Next frame") as tooltips.
_ICONS = {"fa-minus": "\u2212", "fa-fast-backward": "|\u25c0\u25c0",
          "fa-step-backward": "|\u25c0", "fa-play fa-flip-horizontal": "\u25c0",
          "fa-pause": "\u25ae\u25ae", "fa-play": "\u25b6", "fa-step-forward": "\u25b6|",
          "fa-fast-forward": "\u25b6\u25b6|", "fa-plus": "+"}
_ICON = re.compile(r'<i class="fa ((?:fa-[\w-]+ ?)+)"></i>')
_REMOTE_STYLE = re.compile(r'<link\s+rel="stylesheet"\s+href="https?://[^"]*"\s*/?>')


def offline_player(html: str) -> str:
    """Matplotlib's HTML animation player without its one remote resource, the Font Awesome
    style sheet: its icons become Unicode symbols, so the file plays offline as it is."""
    def symbol(match: re.Match) -> str:
        shown = _ICONS.get(match[1].strip())
        if shown is None:  # an icon this version of Matplotlib added: its name, as text
            shown = match[1].strip().removeprefix("fa-").replace("-", " ")
        text = "".join(c + "\ufe0e" if c in "\u25b6\u25c0" else c for c in shown)
        return f'<span aria-hidden="true">{text}</span>'

    return _ICON.sub(symbol, _REMOTE_STYLE.sub("", html))


def _check_interval(interval) -> float:
    """The delay between frames in milliseconds: a finite number > 0, or ValueError.

    Matplotlib's HTML player divides by it (fps = 1000 / interval), so 0 would raise
    ZeroDivisionError and nan a conversion error far from the call.
    """
    try:
        value = float(interval)
    except (TypeError, ValueError):
        value = math.nan
    if isinstance(interval, bool) or not (math.isfinite(value) and value > 0):
        raise ValueError(f"interval={interval!r} must be a finite number of milliseconds > 0.")
    return value


def animate_perceptron(X: ArrayLike, y: ArrayLike, *, passes: int = 1, features=(0, 1),
                       fit_intercept: bool = True, feature_names=None) -> PerceptronAnimation:
    """The perceptron's updates on (X, y), one frame each, from the library's run.

    The run is the one :class:`halfspaces.Perceptron` makes (cyclic order, at most `passes`
    epochs, stopping after a pass without mistakes), recording the row of every update. The
    weights of frame k are those after its k-th update, w_k = sum_{j <= k} y_{i_j} x_{i_j}
    and b_k = sum_{j <= k} y_{i_j} (the update rule w += y x, b += y, applied to the rows the
    run logged); the last frame holds the run's final weights.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Two labels; the larger one is +1.
    passes : int, default=1
        The most epochs, at most :data:`MAX_FRAMES`. A run that makes more than
        ``MAX_FRAMES`` updates is refused (fewer passes or rows draw it).
    features : pair of int, default=(0, 1)
        The columns drawn: two different indices in [0, n_features). Negative indices are
        refused rather than wrapped, since the axes are labelled with the index.
    fit_intercept : bool, default=True
    feature_names : sequence of str or None, default=None
        The names of X's columns, for the axes; None: a DataFrame's column names, else
        "feature i".

    Returns
    -------
    animation : PerceptronAnimation

    Examples
    --------
    >>> from halfspaces.plot import animate_perceptron
    >>> anim = animate_perceptron([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5]], [1, 1, 0], passes=5)
    >>> [(f.step, f.row) for f in anim.frames]
    [(1, 0), (3, 2), (5, 1)]
    """
    from sklearn.utils import check_X_y

    from halfspaces._perceptron.run import TooManyUpdates, run_perceptron
    from halfspaces._validation import (
        LOOP_CHECKS_FINITE,
        check_sparse_structure,
        checked_input,
        encode_targets,
    )

    if not (isinstance(passes, numbers.Integral) and not isinstance(passes, bool)
            and 1 <= passes <= MAX_FRAMES):
        raise ValueError(f"passes={passes!r} must be an integer from 1 to {MAX_FRAMES:,} "
                         "(MAX_FRAMES).")
    Xc, y = check_X_y(check_sparse_structure(X), y, **LOOP_CHECKS_FINITE)
    Xc = checked_input(Xc, X)
    features = check_features(features, Xc.shape[1])  # before the run, not at draw time
    names = column_names(X, Xc.shape[1], feature_names)
    targets = encode_targets(y)
    if targets.classes.size != 2:
        raise ValueError(f"animate_perceptron takes two labels; y has {targets.classes.size}.")
    try:  # stopped as soon as it passes MAX_FRAMES updates, before a frame is made
        run = run_perceptron(Xc, targets.labels, positive=targets.positives[0],
                             fit_intercept=fit_intercept, max_epochs=int(passes),
                             record_updates=True, max_recorded=MAX_FRAMES)
    except TooManyUpdates as many:
        raise ValueError(
            f"The perceptron made {many.count:,} updates in its first {many.passes} of "
            f"{int(passes)} pass(es), one frame each; an animation holds at most "
            f"{MAX_FRAMES:,} (MAX_FRAMES). Animate fewer passes, or a sample of the "
            "rows.") from None
    Xd = dense(Xc)
    labels = np.where(y == targets.classes[1], 1.0, -1.0)
    signs = labels[run.update_rows]
    coefs = np.cumsum(signs[:, None] * Xd[run.update_rows], axis=0)
    intercepts = np.cumsum(signs) * float(fit_intercept)
    frames = [Frame(int(s), c, float(b), int(r))
              for s, c, b, r in zip(run.update_steps, coefs, intercepts, run.update_rows,
                                    strict=True)]
    return PerceptronAnimation(Xd, labels, frames, features, names)
