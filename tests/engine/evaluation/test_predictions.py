"""Predicted robustness per grasp from batch result rows, as IPC-GraspSim's comparison takes it:
for the trial models (ipc, mujoco) the fraction of a grasp's trials that lifted (3 of 4 = 0.75; a
trial that failed to solve counts as a failed lift); for the analytic models the robustness
column; a grasp without a usable row is predicted 0 and reported. Models are listed in the
paper's order (ipc, soft_point, reach, 6dfc, exact, mujoco), each model's settings by E, mu and
Psi_th, numerically."""

from __future__ import annotations

import pytest

from engine.errors import ParameterError
from engine.evaluation.labels import describe, load_labels, predictions_from_rows


def _row(model, grasp, status="ok", success="", robustness="", config="c", time="1.5", **kw):
    row = {
        "model": model,
        "config": config,
        "grasp_id": grasp,
        "status": status,
        "success": success,
        "robustness": robustness,
        "wall_time_s": time,
    }
    row.update(kw)
    return row


def test_trial_models_predict_the_fraction_of_lifts():
    rows = [
        _row("ipc", "g1", success="True"),
        _row("ipc", "g1", success="true"),
        _row("ipc", "g1", success=" TRUE "),
        _row("ipc", "g1", success="False"),
        _row("ipc", "g2", status="error", success=""),
        _row("ipc", "g2", status="error", success="", time="nan"),
        _row("ipc", "g3", success="False", time="2.0"),
        _row("ipc", "g3", status="error", time="0.5"),
    ]
    (ipc,) = predictions_from_rows(rows)
    assert (ipc.model, ipc.config, ipc.name) == ("ipc", "c", "ipc")
    assert ipc.robustness == {"g1": 0.75, "g2": 0.0, "g3": 0.0}
    assert ipc.failed_grasps == ["g2"]  # every row an error: predicted 0 and reported
    assert ipc.task_time_s == {"g1": 6.0, "g2": 1.5, "g3": 2.5}  # NaN times are skipped


def test_analytic_models_predict_their_robustness_column():
    """Out-of-range cells are refused (tests/engine/test_bounded_inputs.py), no longer
    clipped; NaN and empty mean the model gave none."""
    rows = [
        _row("reach", "a", robustness="0.35"),
        _row("reach", "b", robustness="1"),
        _row("reach", "c", robustness="0"),
        _row("reach", "d", robustness="nan"),
        _row("reach", "e", robustness=""),
        _row("reach", "f", status="timeout", robustness="0.9"),
        _row("reach", "g", robustness="0.2"),
        _row("reach", "g", robustness="0.6"),  # the last ok row counts
    ]
    (reach,) = predictions_from_rows(rows)
    assert reach.robustness == {
        "a": 0.35,
        "b": 1.0,
        "c": 0.0,
        "d": 0.0,
        "e": 0.0,
        "f": 0.0,
        "g": 0.6,
    }
    assert reach.failed_grasps == ["d", "e", "f"]


def test_models_in_the_papers_order_and_settings_numerically():
    rows = [
        _row("zeta", "g", robustness="0.5"),
        _row("mujoco", "g", success="True"),
        _row("exact", "g", robustness="0.5"),
        _row("6dfc", "g", robustness="0.5"),
        _row("reach", "g", robustness="0.5"),
        _row("soft_point", "g", robustness="0.5"),
        _row("alpha", "g", robustness="0.5"),
        _row(
            "ipc", "g", success="True", config="e2", param_youngs_modulus_pa="1e7", param_mu="0.1"
        ),
        _row(
            "ipc", "g", success="True", config="e3", param_youngs_modulus_pa="9e6", param_mu="0.5"
        ),
        _row(
            "ipc", "g", success="True", config="m2", param_youngs_modulus_pa="9e6", param_mu="0.8"
        ),
        _row(
            "ipc", "g", success="True", config="m1", param_youngs_modulus_pa="9e6", param_mu="0.35"
        ),
    ]
    preds = predictions_from_rows(rows)
    assert [(p.model, p.config) for p in preds] == [
        ("ipc", "m1"),  # E 9e6 < 1e7 (whatever mu), then mu 0.35 < 0.5 < 0.8
        ("ipc", "e3"),
        ("ipc", "m2"),
        ("ipc", "e2"),
        ("soft_point", "c"),
        ("reach", "c"),
        ("6dfc", "c"),
        ("exact", "c"),
        ("mujoco", "c"),
        ("alpha", "c"),
        ("zeta", "c"),
    ]
    assert preds[0].settings == {
        "E": "9e6",
        "mu": "0.35",
        "psi_th": "",
        "pad": "",
        "samples": "",
        "seed": "",
    }
    assert preds[1].settings["mu"] == "0.5"


def test_psi_th_orders_settings_after_e_and_mu():
    same = {"param_youngs_modulus_pa": "1e7", "param_mu": "0.4"}
    rows = [
        _row("ipc", "g", success="True", config="b", param_psi_th_j="2e-8", **same),
        _row("ipc", "g", success="True", config="a", param_psi_th_j="1e-7", **same),
        _row("ipc", "g", success="True", config="c", param_psi_th_j="5e-9", **same),
    ]
    assert [p.config for p in predictions_from_rows(rows)] == ["c", "b", "a"]


def test_rows_are_grouped_by_model_and_config():
    rows = [
        _row("ipc", "g", success="True", config="x"),
        _row("ipc", "g", success="False", config="y"),
        _row("ipc", "g", success="True", config="x"),
        {"grasp_id": "g", "status": "ok", "success": "True"},  # no model, no config
    ]
    preds = predictions_from_rows(rows)
    assert sorted((p.model, p.config, p.robustness["g"]) for p in preds) == [
        ("", "", 0.0),  # not a trial model: no robustness column -> failed
        ("ipc", "x", 1.0),
        ("ipc", "y", 0.0),
    ]
    unnamed = predictions_from_rows([{"model": "reach", "status": "ok", "robustness": "0.4"}])
    assert unnamed[0].robustness == {"": 0.4}


def test_names_show_only_the_settings_that_differ():
    rows = [
        _row("ipc", "g", success="True", config="a", param_mu="0.4", param_youngs_modulus_pa="1e7"),
        _row("ipc", "g", success="True", config="b", param_mu="0.8", param_youngs_modulus_pa="1e7"),
        _row("reach", "g", robustness="0.5"),
        _row("exact", "g", robustness="0.5", config="p"),
        _row("exact", "g", robustness="0.5", config="q"),
    ]
    preds = predictions_from_rows(rows)
    names = describe(preds)
    assert [names[i] for i in range(len(preds))] == [
        "ipc mu=0.4",
        "ipc mu=0.8",
        "reach",
        "exact p",  # the same settings: the config names them apart
        "exact q",
    ]
    two = predictions_from_rows(
        [
            _row("ipc", "g", success="True", config="a", param_mu="0.4", param_pad="round"),
            _row("ipc", "g", success="True", config="b", param_mu="0.8", param_pad="flat"),
        ]
    )
    assert sorted(describe(two).values()) == ["ipc mu=0.4 pad=round", "ipc mu=0.8 pad=flat"]


def test_reach_json_labels(tmp_path):
    """REACH's records (obj, attempt, trial, result), grasp id '<obj>/<attempt>', trial order."""
    p = tmp_path / "reach.json"
    p.write_text(
        '[{"obj": "cube", "attempt": 0, "trial": 2, "result": false},'
        ' {"obj": "cube", "attempt": 0, "trial": 0, "result": true},'
        ' {"obj": "cube", "attempt": 0, "trial": 1, "result": 1},'
        ' {"obj": "cube", "attempt": 1, "result": "success"},'
        ' {"obj": "cube", "attempt": 1, "result": "fail"}]'
    )
    got = load_labels([str(p)])
    assert got["cube/0"].outcomes == (True, True, False)
    assert got["cube/1"].outcomes == (True, False)  # no trial field: file order


@pytest.mark.parametrize(
    ("records", "problem"),
    [
        ('[{"obj": "c", "attempt": 0, "trial": true, "result": true}]', "record 0: field 'trial' must be an integer (got True)"),
        ('[{"obj": "c", "attempt": 0, "trial": "1", "result": true}]', "record 0: field 'trial' must be an integer (got '1')"),
        ('[{"obj": "c", "attempt": 0, "result": true}, 3]', "record 1: not a JSON object"),
        ('[{"obj": "c", "result": true}]', "record 0: field 'attempt' is missing"),
        ('[{"obj": "c", "attempt": 0, "result": 2}]', "record 0: result 2 is not a boolean (true/false/1/0)"),
    ],
)  # fmt: skip
def test_bad_reach_records_name_the_record(tmp_path, records, problem):
    from engine.errors import ParameterError

    p = tmp_path / "reach.json"
    p.write_text(records)
    with pytest.raises(ParameterError) as err:
        load_labels([str(p)])
    assert str(err.value) == f"{p} {problem}"


def test_json_of_scores_is_indented_in_insertion_order_with_plain_floats():
    import numpy as np

    from engine.evaluation.labels import dump_json

    text = dump_json({"b": np.float32(0.5), "a": [np.float64(1.0)]})
    assert text == '{\n  "b": 0.5,\n  "a": [\n    1.0\n  ]\n}'


def test_a_trial_row_without_a_success_column_is_refused():
    """Was counted as a failed lift; a finished trial row always has true or false."""
    rows = [{"model": "ipc", "config": "c", "grasp_id": "g", "status": "ok"}]
    rows.append(_row("ipc", "g", success="True"))
    with pytest.raises(ParameterError, match="column 'success' is '', not true or false"):
        predictions_from_rows(rows)
