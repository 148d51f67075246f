"""The model registry (engine.analytic.registry): the built-in lists it gives every caller, and
a model registered at run time reaching analyze, batch rows made by a spawned worker, and
`ipcgrasp evaluate`'s table (the app's predictions table: tests/app/test_toy_prediction.py)."""

from __future__ import annotations

import csv
import json
import os

import pytest

from engine.analytic import registry
from engine.analytic.registry import PATCH, ModelSpec
from engine.cli.main import main
from engine.errors import ParameterError
from tests.engine.analytic.toy_model import TOY, toy_margin


@pytest.fixture
def toy():
    registry.register(TOY)
    yield TOY
    registry.unregister(TOY.name)


def test_built_in_lists_are_the_ones_the_commands_offered():
    """analyze's default --models, batch's models, the trial models and the app's table order."""
    assert registry.names(registry.analytic_models()) == (
        "soft_point", "reach", "6dfc", "6dls", "exact",
    )  # fmt: skip
    assert registry.names(registry.batch_models()) == (
        "ipc", "soft_point", "reach", "6dfc", "exact", "mujoco",
    )  # fmt: skip
    assert registry.names(registry.trial_models()) == ("ipc", "mujoco")
    assert [m.name for m in registry.models() if m.nominal_only] == ["6dls"]
    assert registry.model("soft_point").kind == registry.POINT
    for spec in registry.analytic_models():  # every path names an importable function
        assert callable(registry.evaluator(spec)), spec.name


def test_registering_checks_the_entry_and_keeps_the_built_ins():
    """A second entry under a used name, a bad path or kind, removing a built-in: refused."""
    with pytest.raises(ParameterError, match="registered already"):
        registry.register(ModelSpec("reach", "Mine", PATCH, 1, "mine:evaluate"))
    with pytest.raises(ParameterError, match="module:function"):
        ModelSpec("mine", "Mine", PATCH, 1, "mine.evaluate")
    with pytest.raises(ParameterError, match="kind"):
        ModelSpec("mine", "Mine", "area", 1, "mine:evaluate")
    with pytest.raises(ParameterError, match="built-in"):
        registry.unregister("reach")
    with pytest.raises(ParameterError, match="unknown model 'toy'"):
        registry.model("toy")


def test_a_missing_module_is_that_models_failure(capsys):
    """A registered model whose module does not import fails its own rows, not the others'."""
    registry.register(ModelSpec("broken", "Broken", PATCH, 5, "tests.no_such_module:evaluate"))
    try:
        code = main(["analyze", "--models", "broken,soft_point", "--samples", "0", "--json"])
    finally:
        registry.unregister("broken")
    assert code == 0
    broken, soft = (json.loads(x) for x in capsys.readouterr().out.strip().splitlines())
    assert broken["reason"].startswith("solver failure") and "not available" in broken["reason"]
    assert soft["success"] is True


def test_a_registered_model_reaches_analyze_batch_workers_and_evaluate(toy, tmp_path, capsys):
    """The toy model (s* = 2 mu F / (m g)) registered in this process: `analyze --models toy`
    reports its margin; a batch with --models toy,soft_point and one spawned worker (which knows
    the model only from its task) writes its rows with that margin; `ipcgrasp evaluate` scores
    it as an analytic model (the row's robustness) and lists it first, in registry order."""
    # analyze: the default YuMi, mu 0.3 and 20 N; the built-in cube weighs 3 g.
    assert main(["analyze", "--models", "toy", "--samples", "2", "--json"]) == 0
    (rec,) = [json.loads(x) for x in capsys.readouterr().out.strip().splitlines()]
    assert rec["model"] == "toy" and rec["success"] is True and rec["robustness"] == 1.0
    assert rec["margin"] == pytest.approx(toy_margin(0.3, 20.0, 0.003), rel=1e-9)

    grasps = tmp_path / "grasps.csv"
    grasps.write_text(
        "grasp_id,object,center_x,center_y,center_z,axis_x,axis_y,axis_z\ncube,cube,0,0,0.015,1,0,0\n"
    )
    out = tmp_path / "results.csv"
    argv = ["batch", str(grasps), "--out", str(out), "--models", "soft_point,toy"]
    argv += ["--mu", "0.5", "--squeeze-force", "10", "--samples", "2", "--workers", "1"]
    assert main([*argv, "--quiet"]) == 0
    with out.open(newline="") as f:
        rows = {r["model"]: r for r in csv.DictReader(f)}
    assert set(rows) == {"soft_point", "toy"}
    row = rows["toy"]
    assert row["status"] == "ok", row["error"]
    assert row["success"] == "True" and row["robustness"] == "1.0" and row["samples"] == "2"
    mass = float(row["object_mass_kg"])
    assert float(row["margin"]) == pytest.approx(toy_margin(0.5, 10.0, mass), rel=1e-9)
    assert row["pid"] != str(os.getpid())  # a spawned worker made it

    labels = tmp_path / "labels.csv"
    labels.write_text("grasp_id,result\ncube,true\ncube,false\n")
    scores = tmp_path / "scores.json"
    capsys.readouterr()
    assert main(["evaluate", str(out), "--labels", str(labels), "--json", str(scores)]) == 0
    table = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert [line.split("|")[1].strip() for line in table[1:]] == ["toy", "soft_point"]
    entries = {e["model"]: e for e in json.loads(scores.read_text())}
    assert entries["toy"]["robustness"] == {"cube": 1.0}
    assert entries["toy"]["physical"] == {"cube": 0.5}
