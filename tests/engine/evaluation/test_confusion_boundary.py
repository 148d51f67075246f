"""The confusion matrix at 0.5 counts a grasp as predicted positive at q = 0.5 exactly, and as
physically positive at 3 of 6 lifts (IPC-GraspSim's majority rule: q >= 0.5, p >= 0.5)."""

from __future__ import annotations

from engine.evaluation.metrics import score


def test_half_is_positive_for_prediction_and_physics():
    # Grasp 1: q = 0.5, physically 3 of 6 (p = 0.5): both positive -> TP.
    # Grasp 2: q = 0.5, physically 2 of 6: predicted positive only -> FP.
    # Grasp 3: q = 0.4999, physically 3 of 6: physically positive only -> FN.
    # Grasp 4: q = 0.4999, physically 2 of 6 -> TN.
    s = score(
        [0.5, 0.5, 0.4999, 0.4999],
        [[True] * 3 + [False] * 3, [True] * 2 + [False] * 4] * 2,
    )
    assert (s.tp, s.fp, s.fn, s.tn) == (1, 1, 1, 1)
