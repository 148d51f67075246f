"""Scores of predicted grasp robustness against physical outcomes, as IPC-GraspSim computed them.

The paper's comparison (IPC-GraspSim, tools/grasping/compare_ipc_phys.py, with
autolab_core.BinaryClassificationResult and scikit-learn), reproduced exactly:

1. Each grasp g has a predicted robustness q_g (fraction of simulated trials or samples that
   succeed) and a physical robustness p_g (successes / physical trials).
2. Both are expanded into n = 5 binary labels: round(5 q) ones followed by zeros (Python's
   round, i.e. halves to even: q = 0.5 gives 2 ones). The grasps' lists are concatenated in the
   same grasp order, giving `pred` and `labels` (5 entries per grasp). Within a grasp the ones
   come first in both, so the pairing is the best possible alignment.
3. AP = sklearn.metrics.average_precision_score(labels, pred) (`average_precision` below;
   with binary pred it has two thresholds, 1 and 0). 0 when no label is positive.
4. AR = mean over the 11 thresholds t = numpy.arange(0, 1.1, 0.1) of the recall
   TP / (TP + FN) of the predictions pred >= t (sklearn recall_score; 0 with no positives).
   With binary pred, t = 0 predicts everything positive (recall 1) and every t > 0 gives the
   recall r of pred itself, so AR = (1 + 10 r) / 11.
5. F1 = 2 AP AR / (AP + AR). The paper's script rounded AP and AR to 2 decimals first
   (`paper_rounding=True`); by default F1 uses the unrounded values.

Extras (not in the paper): the confusion matrix at 0.5 per grasp (q >= 0.5 against p >= 0.5) and
the Brier score, mean over physical trials of (q_g - outcome)^2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

EXPANSION = 5  # binary labels per grasp (the physical trials per grasp in the REACH data)
PAPER_THRESHOLDS = np.arange(0.0, 1.1, 0.1)  # exactly the paper's 11 thresholds


def precision_recall_curve(
    y_true: ArrayLike, y_score: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision and recall at each distinct score, highest threshold first (sklearn semantics).

    Returns (precision, recall, thresholds); predictions are `score >= threshold` and tied
    scores enter together. Unlike sklearn's the arrays are not reversed nor padded with (1, 0).
    """
    y = np.asarray(y_true, dtype=float).ravel()
    s = np.asarray(y_score, dtype=float).ravel()
    if y.shape != s.shape:
        raise ValueError(f"{y.size} labels but {s.size} scores")
    if y.size == 0:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    order = np.argsort(s, kind="mergesort")[::-1]
    s, y = s[order], y[order]
    last_of_tie = np.r_[np.flatnonzero(np.diff(s)), y.size - 1]
    tps = np.cumsum(y)[last_of_tie]
    fps = 1 + last_of_tie - tps
    precision = tps / (tps + fps)
    positives = tps[-1]
    recall = tps / positives if positives > 0 else np.ones_like(tps)
    return precision, recall, s[last_of_tie]


def average_precision(y_true: ArrayLike, y_score: ArrayLike) -> float:
    """sklearn's average_precision_score: sum over thresholds of (R_k - R_{k-1}) P_k.

    Thresholds are the distinct scores, highest first, R_0 = 0 (no interpolation). Returns 0
    when there is no positive label (as sklearn does, without its warning).
    """
    y = np.asarray(y_true, dtype=float).ravel()
    if y.size == 0 or not np.any(y > 0):
        return 0.0
    precision, recall, _ = precision_recall_curve(y, y_score)
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def recall(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """TP / (TP + FN); 0 when there is no positive label (sklearn's zero_division)."""
    y = np.asarray(y_true, dtype=bool).ravel()
    p = np.asarray(y_pred, dtype=bool).ravel()
    positives = int(y.sum())
    return float((y & p).sum() / positives) if positives else 0.0


def expand(q: float, n: int = EXPANSION) -> list[int]:
    """round(n q) ones followed by zeros (the paper's expansion of a robustness into labels)."""
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"robustness must be in [0, 1] (got {q})")
    k = round(n * q)
    return [1] * k + [0] * (n - k)


def f1_score(ap: float, ar: float) -> float:
    """Harmonic mean 2 AP AR / (AP + AR) of AP and AR; 0 when both are 0."""
    return 2.0 * ap * ar / (ap + ar) if ap + ar > 0 else 0.0


@dataclass(frozen=True)
class Scores:
    """One model's scores on a set of grasps."""

    grasps: int
    ap: float
    ar: float
    f1: float
    recalls: tuple[float, ...]  # recall at each of PAPER_THRESHOLDS
    tp: int  # per-grasp confusion matrix at 0.5
    fp: int
    fn: int
    tn: int
    brier: float

    def as_json(self) -> dict:
        """The scores as a JSON-ready dict (AP, AR, F1, recalls, confusion at 0.5, Brier)."""
        return {
            "grasps": self.grasps,
            "AP": self.ap,
            "AR": self.ar,
            "F1": self.f1,
            "recalls": list(self.recalls),
            "confusion_at_0.5": {"TP": self.tp, "FP": self.fp, "FN": self.fn, "TN": self.tn},
            "brier": self.brier,
        }


def paper_ap_ar(
    predicted: Sequence[float], physical: Sequence[float], n: int = EXPANSION
) -> tuple[float, float, tuple[float, ...]]:
    """(AP, AR, recall per threshold) of per-grasp robustness values, as the paper computed."""
    pred = np.array([v for q in predicted for v in expand(q, n)], dtype=np.float32)
    labels = np.array([v for q in physical for v in expand(q, n)], dtype=np.uint32)
    ap = average_precision(labels, pred)
    recalls = tuple(recall(labels, pred >= t) for t in PAPER_THRESHOLDS)
    return ap, float(np.mean(recalls)), recalls


def score(
    predicted: Sequence[float],
    physical_outcomes: Sequence[Sequence[bool]],
    n: int = EXPANSION,
    paper_rounding: bool = False,
) -> Scores:
    """Scores of per-grasp predicted robustness against each grasp's physical trial outcomes."""
    if len(predicted) != len(physical_outcomes):
        raise ValueError("one prediction per grasp is needed")
    physical = [float(np.mean(o)) if len(o) else 0.0 for o in physical_outcomes]
    ap, ar, recalls = paper_ap_ar(predicted, physical, n)
    if paper_rounding:
        ap, ar = round(ap, 2), round(ar, 2)
    q = np.asarray(predicted, dtype=float)
    p = np.asarray(physical, dtype=float)
    pred_pos, phys_pos = q >= 0.5, p >= 0.5
    squared = [
        (qg - float(o)) ** 2 for qg, outs in zip(q, physical_outcomes, strict=True) for o in outs
    ]
    return Scores(
        grasps=len(q),
        ap=ap,
        ar=ar,
        f1=f1_score(ap, ar),
        recalls=recalls,
        tp=int(np.sum(pred_pos & phys_pos)),
        fp=int(np.sum(pred_pos & ~phys_pos)),
        fn=int(np.sum(~pred_pos & phys_pos)),
        tn=int(np.sum(~pred_pos & ~phys_pos)),
        brier=float(np.mean(squared)) if squared else float("nan"),
    )
