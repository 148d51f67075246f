"""`ipcgrasp evaluate` and `ipcgrasp grid` on small hand-checkable inputs."""

from __future__ import annotations

import csv
import json

import pytest

from engine.cli.main import main
from engine.evaluation.labels import load_labels, predictions_from_rows

COLUMNS = ["task_key", "status", "model", "grasp_id", "trial", "config", "success"]
COLUMNS += ["robustness", "wall_time_s", "param_youngs_modulus_pa", "param_mu"]


def write_labels(path, outcomes: dict[int, list[bool]]) -> None:
    records = [
        {"obj": "obj", "attempt": a, "trial": t, "result": r}
        for a, results in outcomes.items()
        for t, r in enumerate(results)
    ]
    path.write_text(json.dumps(records))


def write_results(path, rows) -> None:
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS, restval="")
        w.writeheader()
        w.writerows(rows)


def ipc_row(key, gid, trial, success, status="ok"):
    return {
        "task_key": key,
        "status": status,
        "model": "ipc",
        "grasp_id": gid,
        "trial": trial,
        "config": "c1",
        "success": success,
        "wall_time_s": 2.0 if status == "ok" else "",
        "param_youngs_modulus_pa": 1e8,
        "param_mu": 0.4,
    }


@pytest.fixture
def small_case(tmp_path):
    labels = tmp_path / "physical.json"
    write_labels(labels, {0: [True] * 5, 1: [True, False, True, False, False]})
    rows = [ipc_row(f"a{t}", "obj/0", t, t < 4) for t in range(5)]
    rows += [ipc_row(f"b{t}", "obj/1", t, t < 3) for t in range(5)]
    rows.append(ipc_row("b5", "obj/1", 5, "", status="error"))  # not counted
    rows += [
        {"task_key": "r0", "status": "ok", "model": "reach", "grasp_id": "obj/0",
         "config": "c2", "robustness": 1.0, "wall_time_s": 0.1},
        {"task_key": "r1", "status": "ok", "model": "reach", "grasp_id": "obj/1",
         "config": "c2", "robustness": 0.4, "wall_time_s": 0.3},
    ]  # fmt: skip
    results = tmp_path / "results.csv"
    write_results(results, rows)
    return results, labels


def test_predictions_and_labels(small_case):
    results, labels = small_case
    physical = load_labels([str(labels)])
    assert physical["obj/1"].outcomes == (True, False, True, False, False)
    with results.open() as f:
        preds = predictions_from_rows(list(csv.DictReader(f)))
    assert [p.model for p in preds] == ["ipc", "reach"]
    assert preds[0].robustness == {"obj/0": 0.8, "obj/1": 0.6}
    assert preds[0].task_time_s["obj/0"] == 10.0
    assert preds[1].robustness == {"obj/0": 1.0, "obj/1": 0.4}


def test_evaluate_prints_the_paper_table_and_writes_plot_and_json(small_case, tmp_path, capsys):
    results, labels = small_case
    plot, js = tmp_path / "pr.png", tmp_path / "m.json"
    args = [str(results), "--labels", str(labels), "--plot", str(plot), "--json", str(js)]
    assert main(["evaluate", *args]) == 0
    out = capsys.readouterr().out
    # Hand values (see test_metrics): AP = 0.8347, AR = 0.8701, F1 = 0.8520.
    assert "| ipc | 2 | 0.83 | 0.87 | 0.85 | 1 | 1 | 0 | 0 | 0.160 | 10 |" in out
    assert "| reach | 2 | 1.00 | 1.00 | 1.00 | 1 | 0 | 0 | 1 |" in out
    assert plot.read_bytes().startswith(b"\x89PNG")
    data = json.loads(js.read_text())
    assert data[0]["scores"]["AP"] == pytest.approx(36 / 49 + 0.1)
    assert data[0]["scores"]["confusion_at_0.5"] == {"TP": 1, "FP": 1, "FN": 0, "TN": 0}


def test_evaluate_reports_bad_labels_by_record_and_field(small_case, tmp_path, capsys):
    results, _ = small_case
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"obj": "obj", "attempt": 0, "trial": 0}]))
    assert main(["evaluate", str(results), "--labels", str(bad)]) == 2
    assert "record 0: field 'result' is missing" in capsys.readouterr().err
    assert main(["evaluate", str(tmp_path / "none.csv"), "--labels", str(bad)]) == 2


@pytest.mark.slow
def test_grid_runs_resumably_and_writes_tables_and_heat_map(tmp_path, capsys):
    grasps = tmp_path / "g.csv"
    grasps.write_text(
        "grasp_id,object,center_x,center_y,center_z,axis_x,axis_y,axis_z\nc0,cube,0,0,0.015,1,0,0\n"
    )
    labels = tmp_path / "labels.csv"
    labels.write_text("grasp_id,result\nc0,true\nc0,true\nc0,false\n")
    out = tmp_path / "grid"
    args = ["grid", str(grasps), "--E", "1e7,1e8", "--mu", "0.4", "--labels", str(labels)]
    args += ["--out", str(out), "--trials", "1", "--workers", "0", "--quiet"]
    assert main(args) == 0
    with (out / "results.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert sorted(float(r["param_youngs_modulus_pa"]) for r in rows) == [1e7, 1e8]
    table = (out / "grid.md").read_text()
    assert "| E (Pa) \\ mu | 0.4 |" in table and "| 1e+07 |" in table and "| 1e+08 |" in table
    assert "## AP" in table and "## AR" in table and "grasps)" not in table.split("## AP")[0]
    assert (out / "f1_heatmap.png").read_bytes().startswith(b"\x89PNG")
    cells = json.loads((out / "grid.json").read_text())
    assert [c["E"] for c in cells] == [1e7, 1e8] and all(c["complete"] for c in cells)
    # Resume: nothing new to run; --evaluate-only rewrites the tables.
    before = (out / "results.csv").read_bytes()
    assert main(args) == 0
    assert main([*args, "--evaluate-only"]) == 0
    assert (out / "results.csv").read_bytes() == before
    capsys.readouterr()
    assert main(["grid", str(grasps), "--mu", "x", "--labels", str(labels), "--out", str(out)]) == 2
    assert "--mu: 'x' is not a number" in capsys.readouterr().err
