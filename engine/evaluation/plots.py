"""PNG plots (matplotlib's Agg canvas, no display and no pyplot state).

Precision-recall: for each model, the curve obtained by ranking the physical trials by their
grasp's predicted robustness (score q_g repeated over the grasp's expanded labels, thresholds
the distinct q values), drawn as sklearn's step curve; the dot is the paper's operating point
(precision and recall of the expanded binary predictions, whose AP and AR the table reports).
Strength: each analytic model's margin against the simulator's measured one
(engine.evaluation.strength_agreement).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.errors import ParameterError
from engine.evaluation.metrics import expand, precision_recall_curve, recall
from engine.io.safe_write import atomic_path

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from engine.evaluation.strength_agreement import Agreement


def _figure(width: float, height: float) -> Figure:
    """A figure of width x height inches on an Agg canvas (120 dpi)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=120)
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, path: str | Path, overwrite: bool = False) -> None:
    """Save atomically; an existing file is refused unless `overwrite` (engine.io.safe_write)."""
    p = Path(path).expanduser()
    fmt = p.suffix.lstrip(".").lower() or "png"
    try:
        with atomic_path(p, overwrite=overwrite) as tmp:
            fig.savefig(tmp, format=fmt)
    except ValueError as exc:  # matplotlib: a format it cannot write
        raise ParameterError(f"cannot write plot {p}: {exc}") from exc
    except OSError as exc:
        raise ParameterError(f"cannot write plot {p}: {exc.strerror or exc}") from exc


def pr_plot(
    curves: Sequence[tuple[str, Sequence[float], Sequence[float], str]],
    path: str | Path,
    n: int = 5,
    overwrite: bool = False,
) -> None:
    """curves: (name, predicted q per grasp, physical p per grasp, legend detail) per model.

    An existing `path` is refused unless `overwrite`."""
    fig = _figure(6.0, 5.0)
    ax = fig.add_subplot()
    for name, predicted, physical, detail in curves:
        labels = np.array([v for p in physical for v in expand(p, n)])
        scores = np.repeat(np.asarray(predicted, dtype=float), n)
        precision, rec, _ = precision_recall_curve(labels, scores)
        line = ax.step(
            np.r_[0.0, rec],
            np.r_[precision[0] if len(precision) else 1.0, precision],
            where="pre",
            label=f"{name} ({detail})",
        )[0]
        binary = np.array([v for q in predicted for v in expand(q, n)], dtype=bool)
        if binary.any():
            tp = np.sum(binary & (labels > 0))
            ax.plot(recall(labels, binary), tp / binary.sum(), "o", color=line.get_color(), ms=6)
    if curves and all(list(c[2]) == list(curves[0][2]) for c in curves):
        base = float(np.mean([v for p in curves[0][2] for v in expand(p, n)]))
        ax.axhline(base, color="0.6", lw=0.8, ls="--", label=f"physical success rate {base:.2f}")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_title("Precision-recall against physical outcomes\n(dots: paper's binary labels)")
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    _save(fig, path, overwrite)


def heatmap(
    values: np.ndarray,
    e_values: Sequence[float],
    mu_values: Sequence[float],
    path: str | Path,
    title: str = "F1",
    overwrite: bool = False,
) -> None:
    """values[i, j] for E = e_values[i], mu = mu_values[j]; NaN cells are left blank.

    An existing `path` is refused unless `overwrite`."""
    fig = _figure(1.2 + 1.1 * len(mu_values), 1.2 + 0.6 * len(e_values))
    ax = fig.add_subplot()
    data = np.ma.masked_invalid(np.asarray(values, dtype=float))
    image = ax.imshow(data, cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(mu_values)), [f"{m:g}" for m in mu_values])
    ax.set_yticks(range(len(e_values)), [f"{e:.0e}" for e in e_values])
    ax.set_xlabel("friction coefficient mu")
    ax.set_ylabel("Young's modulus E (Pa)")
    for i in range(len(e_values)):
        for j in range(len(mu_values)):
            v = values[i][j]
            if np.isfinite(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center",
                        color="white" if v < 0.6 else "black", fontsize=9)  # fmt: skip
    fig.colorbar(image, ax=ax, label=title)
    ax.set_title(f"{title} over the E x mu grid")
    fig.tight_layout()
    _save(fig, path, overwrite)


def strength_plot(rows: Sequence[Agreement], path: str | Path, overwrite: bool = False) -> None:
    """One panel per analytic model: its margin (x) against the measured margin (y) per grasp,
    log-log, with the line where they agree and the rank correlation in the title; margins of
    0 (a model's "no", a grasp that did not lift) sit on the panel's left or bottom edge. An
    existing `path` is refused unless `overwrite`."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    if not rows:
        raise ParameterError("no model margins to plot against measured strengths")
    fig = _figure(3.2 * len(rows), 3.6)
    positive = [v for a in rows for v in (*a.predicted, *a.measured) if v > 0]
    low = min(positive) / 2 if positive else 0.1
    high = max(positive) * 2 if positive else 10.0
    for k, a in enumerate(rows):
        ax = fig.add_subplot(1, len(rows), k + 1)
        x = np.clip(np.asarray(a.predicted, dtype=float), low, None)
        y = np.clip(np.asarray(a.measured, dtype=float), low, None)
        ax.scatter(x, y, s=14, alpha=0.8)
        ax.plot([low, high], [low, high], color="0.6", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(low, high)
        ax.set_ylim(low, high)
        for axis in (ax.xaxis, ax.yaxis):  # 1, 2, 5 per decade: minor labels collide
            axis.set_major_locator(LogLocator(base=10.0, subs=(1.0, 2.0, 5.0)))
            axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
            axis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(f"{a.label} margin")
        if k == 0:
            ax.set_ylabel("measured margin (IPC)")
        rho = "-" if np.isnan(a.spearman) else f"{a.spearman:.2f}"
        ax.set_title(f"{a.label}: rho {rho}, {a.grasps} grasps", fontsize=9)
    fig.suptitle(
        "margin = the multiple of its weight the grip holds; measured = (pull down at slip + "
        "weight) / weight",
        fontsize=8,
    )
    fig.tight_layout()
    _save(fig, path, overwrite)
