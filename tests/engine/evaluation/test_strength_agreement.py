"""The models' margins against the grip strength IPC measured (issue 41): measured margin =
(pull down at slip + weight) / weight, a grasp that did not lift ranked below all, and per
model Spearman's and Kendall's rank correlations, in `ipcgrasp evaluate` with or without
physical labels."""

from __future__ import annotations

import csv

import pytest

from engine.batch.tasks import RESULT_COLUMNS
from engine.cli.main import main
from engine.evaluation.strength_agreement import NOT_LIFTED, agreements, measured_strengths

# grasp: (lifted, pull down at slip in weights, soft point margin, REACH margin)
GRASPS = {
    "g0": (True, 9.0, 2.0, 9.5),
    "g1": (True, 4.0, 5.0, 4.2),
    "g2": (True, 19.0, 1.0, 21.0),
    "g3": (False, None, 8.0, 0.5),
}


def _rows() -> list[dict[str, str]]:
    rows = []
    for gid, (lifted, k, soft, reach) in GRASPS.items():
        ipc = {"model": "ipc", "grasp_id": gid, "trial": "0", "status": "ok"}
        ipc["success"] = str(lifted)
        if k is not None:
            ipc["strength_down"] = str(k * 0.3 * 9.81)
            ipc["strength_down_weights"] = str(k)
            ipc["strength_held"] = ""
        rows.append(ipc)
        for model, margin in (("soft_point", soft), ("reach", reach)):
            rows.append({"model": model, "grasp_id": gid, "status": "ok", "margin": str(margin)})
    return rows


def test_the_measured_margin_adds_the_weight_and_ranks_a_dropped_grasp_last():
    measured = measured_strengths(_rows())
    assert measured["g0"].margin == 10.0 and measured["g2"].margin == 20.0
    assert measured["g3"].margin == NOT_LIFTED


def test_rank_correlations_per_model():
    """REACH orders the four grasps as the simulator does (g3 < g1 < g0 < g2): rho = tau = 1.
    Soft Point orders them exactly backwards: rho = tau = -1."""
    by_model = {a.model: a for a in agreements(_rows())}
    assert list(by_model) == ["soft_point", "reach"]  # the registry's order
    assert by_model["reach"].spearman == pytest.approx(1.0)
    assert by_model["reach"].kendall == pytest.approx(1.0)
    assert by_model["soft_point"].spearman == pytest.approx(-1.0)
    assert by_model["soft_point"].grasps == 4
    no_strength = [r for r in _rows() if not r["model"] == "ipc"]
    assert agreements(no_strength) == []


def _write(path, rows) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=RESULT_COLUMNS, restval="")
        w.writeheader()
        for k, r in enumerate(rows):
            w.writerow({**r, "task_key": f"task{k}"})


def test_evaluate_prints_the_agreement_without_labels_and_plots_it(tmp_path, capsys):
    results = tmp_path / "results.csv"
    _write(results, _rows())
    plot = tmp_path / "strength.png"
    assert main(["evaluate", str(results), "--strength-plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "| REACH | 4 | 1.00 | 1.00 |" in out and "| Soft point | 4 | -1.00 | -1.00 |" in out
    assert plot.read_bytes().startswith(b"\x89PNG")


def test_evaluate_without_labels_or_strength_says_what_to_give(tmp_path, capsys):
    results = tmp_path / "results.csv"
    _write(results, [r for r in _rows() if r["model"] != "ipc"])
    assert main(["evaluate", str(results)]) == 2
    assert "--labels" in capsys.readouterr().err
