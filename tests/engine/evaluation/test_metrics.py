"""AP, AR, F1 as IPC-GraspSim computed them, against values worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from engine.evaluation.metrics import (
    PAPER_THRESHOLDS,
    average_precision,
    expand,
    f1_score,
    paper_ap_ar,
    precision_recall_curve,
    recall,
    score,
)


def test_average_precision_of_distinct_scores():
    # Ranked: 0.8(+) 0.4(-) 0.35(+) 0.1(-): AP = 0.5 * 1 + 0.5 * 2/3.
    assert average_precision([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == pytest.approx(5 / 6)


def test_tied_scores_enter_together():
    # One threshold 0.5 holding two positives and one negative, then 0.1: AP = 1 * 2/3.
    assert average_precision([1, 0, 1, 0], [0.5, 0.5, 0.5, 0.1]) == pytest.approx(2 / 3)
    # 0.9(+) | 0.6(+,-) | 0.3(-,+): recall steps of 1/3 at precisions 1, 2/3, 3/5.
    ap = average_precision([1, 1, 0, 0, 1], [0.9, 0.6, 0.6, 0.3, 0.3])
    assert ap == pytest.approx((1 + 2 / 3 + 3 / 5) / 3)
    # All scores tied: AP is the positive rate.
    assert average_precision([1, 0, 0, 1, 1], [0.2] * 5) == pytest.approx(0.6)


def test_order_within_ties_does_not_matter():
    y = np.array([1, 0, 1, 1, 0, 0, 1, 0])
    s = np.array([0.7, 0.7, 0.2, 0.7, 0.2, 0.9, 0.4, 0.4])
    rng = np.random.default_rng(0)
    for _ in range(5):
        perm = rng.permutation(len(y))
        assert average_precision(y[perm], s[perm]) == pytest.approx(average_precision(y, s))


def test_edge_cases():
    assert average_precision([0, 0, 0], [0.1, 0.5, 0.9]) == 0.0  # no positives
    assert average_precision([1, 1], [0.0, 0.0]) == 1.0
    assert recall([0, 0], [1, 1]) == 0.0
    assert recall([1, 1, 0, 1], [1, 0, 1, 1]) == pytest.approx(2 / 3)
    precision, rec, thresholds = precision_recall_curve([1, 0, 1], [0.9, 0.5, 0.5])
    assert thresholds.tolist() == [0.9, 0.5]
    assert precision.tolist() == pytest.approx([1.0, 2 / 3])
    assert rec.tolist() == pytest.approx([0.5, 1.0])


def test_expansion_rounds_half_to_even_like_the_paper_script():
    assert expand(1.0) == [1] * 5 and expand(0.0) == [0] * 5
    assert expand(0.6) == [1, 1, 1, 0, 0]
    assert expand(0.5) == [1, 1, 0, 0, 0]  # round(2.5) == 2
    assert expand(0.7) == [1, 1, 1, 1, 0]  # round(3.5) == 4
    assert expand(0.3) == [1, 1, 0, 0, 0]  # round(1.5) == 2
    with pytest.raises(ValueError):
        expand(1.2)


def test_paper_thresholds_are_the_eleven_of_numpy_arange():
    assert len(PAPER_THRESHOLDS) == 11
    assert PAPER_THRESHOLDS[0] == 0.0 and PAPER_THRESHOLDS[-1] == 1.0


def test_paper_scores_of_two_grasps_by_hand():
    # Physical 5/5 and 2/5; predicted 0.8 and 0.6.
    # labels [1 1 1 1 1 | 1 1 0 0 0], pred [1 1 1 1 0 | 1 1 1 0 0]
    # pred = 1: 7 entries, 6 positive -> precision 6/7, recall 6/7; pred >= 0: 7/10 at recall 1.
    ap, ar, recalls = paper_ap_ar([0.8, 0.6], [1.0, 0.4])
    assert ap == pytest.approx(6 / 7 * 6 / 7 + (1 - 6 / 7) * 0.7)
    assert recalls[0] == 1.0 and recalls[1:] == pytest.approx([6 / 7] * 10)
    assert ar == pytest.approx((1 + 10 * 6 / 7) / 11)
    s = score([0.8, 0.6], [[True] * 5, [True, True, False, False, False]])
    assert (s.ap, s.ar) == (pytest.approx(ap), pytest.approx(ar))
    assert s.f1 == pytest.approx(2 * ap * ar / (ap + ar))
    assert (s.tp, s.fp, s.fn, s.tn) == (1, 1, 0, 0)
    # Brier over the 10 physical trials: 5 x 0.2^2 + 2 x 0.4^2 + 3 x 0.6^2.
    assert s.brier == pytest.approx((5 * 0.04 + 2 * 0.16 + 3 * 0.36) / 10)
    rounded = score([0.8, 0.6], [[True] * 5, [True] * 2 + [False] * 3], paper_rounding=True)
    assert (rounded.ap, rounded.ar) == (round(ap, 2), round(ar, 2))


def test_a_model_that_predicts_nothing():
    # All predictions 0: AP = positive rate, recall 0 except at t = 0, so AR = 1/11.
    s = score([0.0, 0.0], [[True] * 5, [True] * 4 + [False]])
    assert s.ap == pytest.approx(0.9) and s.ar == pytest.approx(1 / 11)
    assert (s.tp, s.fp, s.fn, s.tn) == (0, 0, 2, 0)


def test_a_perfect_model():
    s = score([1.0, 0.4, 0.0], [[True] * 5, [True, True, False, False, False], [False] * 5])
    assert s.ap == pytest.approx(1.0) and s.ar == pytest.approx(1.0) and s.f1 == 1.0
    assert f1_score(0.0, 0.0) == 0.0


def test_f1_is_the_harmonic_mean_also_below_one():
    # 2 x 0.3 x 0.2 / (0.3 + 0.2) = 0.12 / 0.5
    assert f1_score(0.3, 0.2) == pytest.approx(0.24)
    assert f1_score(0.0, 0.5) == 0.0


def test_the_expansion_length_is_a_parameter():
    # n = 10: q = 0.3 gives 3 ones and p = 0.5 gives 5 (with the paper's n = 5 both give
    # round(1.5) = round(2.5) = 2, a perfect score). pred = 1: 3 entries, all positive
    # (precision 1, recall 3/5); pred >= 0: 10 entries, precision 1/2 at recall 1.
    ap, ar, recalls = paper_ap_ar([0.3], [0.5], n=10)
    assert ap == pytest.approx(3 / 5 * 1 + 2 / 5 * 1 / 2)
    assert recalls[0] == 1.0 and recalls[1:] == pytest.approx([3 / 5] * 10)
    assert ar == pytest.approx((1 + 10 * 3 / 5) / 11)
    assert paper_ap_ar([0.3], [0.5])[0] == pytest.approx(1.0)


def test_the_scores_json_has_the_documented_fields():
    """`ipcgrasp evaluate --json` writes these names: AP, AR, F1, recalls (at the 11 paper
    thresholds), the confusion matrix at 0.5 and the Brier score."""
    s = score([1.0, 0.0], [[True] * 5, [False] * 5])
    assert s.as_json() == {
        "grasps": 2,
        "AP": 1.0,
        "AR": 1.0,
        "F1": 1.0,
        "recalls": [1.0] * 11,
        "confusion_at_0.5": {"TP": 1, "FP": 0, "FN": 0, "TN": 1},
        "brier": 0.0,
    }


def test_curve_of_one_label_none_and_no_positives():
    precision, rec, thresholds = precision_recall_curve([1], [0.5])
    assert (precision.tolist(), rec.tolist(), thresholds.tolist()) == ([1.0], [1.0], [0.5])
    assert [a.size for a in precision_recall_curve([], [])] == [0, 0, 0]
    # One positive: recall 0 at the first threshold, 1 at the second.
    precision, rec, _ = precision_recall_curve([1, 0], [0.2, 0.9])
    assert (precision.tolist(), rec.tolist()) == ([0.0, 0.5], [0.0, 1.0])
    # No positive at all: recall is defined as 1 at every threshold, precision 0.
    precision, rec, _ = precision_recall_curve([0, 0], [0.3, 0.7])
    assert (precision.tolist(), rec.tolist()) == ([0.0, 0.0], [1.0, 1.0])
    assert average_precision([1], [0.5]) == 1.0
    with pytest.raises(ValueError) as err:
        precision_recall_curve([1, 0, 1], [0.5, 0.4])
    assert str(err.value) == "3 labels but 2 scores"


def test_recall_takes_any_zero_one_values():
    assert recall([1.0, 0.0, 1.0], [1.0, 1.0, 0.0]) == 0.5
    assert recall(np.array([1, 1], dtype=np.uint32), np.array([1.0, 0.0])) == 0.5


def test_bad_inputs_are_refused_with_a_reason():
    with pytest.raises(ValueError) as err:
        expand(1.2)
    assert str(err.value) == "robustness must be in [0, 1] (got 1.2)"
    with pytest.raises(ValueError) as err:
        score([0.5, 0.5], [[True]])
    assert str(err.value) == "one prediction per grasp is needed"


def test_a_grasp_without_physical_trials_counts_as_negative():
    s = score([0.6], [[]])
    assert (s.tp, s.fp, s.fn, s.tn) == (0, 1, 0, 0)
    assert np.isnan(s.brier)  # no physical trial to score against


def test_score_with_another_expansion_and_the_papers_rounding():
    # Physical 1 of 2 = 0.5 and predicted 0.3 with n = 10: AP 0.8 and AR 7/11 (see
    # test_the_expansion_length_is_a_parameter); the paper rounds them to 0.8 and 0.64.
    s = score([0.3], [[True, False]], n=10)
    assert (s.ap, s.ar) == (pytest.approx(0.8), pytest.approx(7 / 11))
    rounded = score([0.3], [[True, False]], n=10, paper_rounding=True)
    assert (rounded.ap, rounded.ar) == (0.8, 0.64)
