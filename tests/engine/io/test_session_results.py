"""A trial's outcome survives a session's save and load field for field (the perturbation that
produced it, counts, flags, non-finite floats), and a damaged outcome is refused with a message
that names the field and what it holds instead (JSON's names: null, list, str)."""

from __future__ import annotations

import json
import math

import pytest

from engine.grasp.frames import TrialResult
from engine.io.session import SessionError, load_session, save_session
from tests.engine.io.test_session_validation import edit_json, make_session

RESULT = TrialResult(
    trial=0,
    success=True,
    reason="lifted",
    psi1_j=1.5e-8,
    psi2_j=1.25e-8,
    grip_force1_n=19.75,
    grip_force2_n=20.25,
    squeeze_balanced=True,
    lift_height_m=0.0201,
    slip1_m=2.5e-4,
    slip2_m=1.25e-4,
    rotation_rad=0.0125,
    min_lift_grip_n=18.5,
    frames=57,
    newton_iterations=412,
    rollbacks=3,
    wall_time_s=2.5,
    min_distance_m=math.inf,
    intersection_free=False,
    perturbation={"dx": 1e-3, "dy": -2e-3, "dz": 5e-4, "rx": 3e-3, "ry": 0.0, "rz": -1e-3},
    error="",
)


@pytest.fixture
def saved(tmp_path):
    session = make_session()
    session.trials[0].result = RESULT
    json_path, _ = save_session(tmp_path / "s", session)
    return json_path


def test_every_result_field_round_trips(saved):
    loaded = load_session(saved).trials[0].result
    assert loaded == RESULT
    assert loaded.perturbation == RESULT.perturbation


def test_unknown_result_fields_are_skipped_wherever_they_are(saved):
    def put_unknown_first(doc):
        result = doc["results"][0]["result"]
        doc["results"][0]["result"] = {"from_a_newer_version": [1, 2], **result}

    edit_json(saved, put_unknown_first)
    assert load_session(saved).trials[0].result == RESULT


def _message(json_path, change) -> str:
    edit_json(json_path, change)
    with pytest.raises(SessionError) as err:
        load_session(json_path)
    return str(err.value)


def _set(field, value):
    return lambda doc: doc["results"][0]["result"].update({field: value})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda doc: doc["results"][0].update(result=[1]),
            "{p}: results[0]: 'result' must be an object or null, got list",
        ),
        (
            _set("perturbation", [1e-3]),
            "{p}: results[0]: result field 'perturbation' must be an object of numbers, got list",
        ),
        (
            _set("perturbation", None),
            "{p}: results[0]: result field 'perturbation' must be an object of numbers, got null",
        ),
        (
            _set("perturbation", {"dx": "1 mm"}),
            "{p}: results[0]: result field 'perturbation'['dx'] must be a number, got '1 mm'",
        ),
        (
            _set("reason", 3),
            "{p}: results[0]: result field 'reason' must be text, got int",
        ),
        (
            _set("error", None),
            "{p}: results[0]: result field 'error' must be text, got null",
        ),
        (
            _set("rollbacks", -1),
            "{p}: results[0]: result field 'rollbacks' must be >= 0 (got -1)",
        ),
        (
            _set("frames", 2.0),
            "{p}: results[0]: result field 'frames' must be an integer, got 2.0",
        ),
        (
            _set("success", "yes"),
            "{p}: results[0]: result field 'success' must be true or false, got 'yes'",
        ),
        (
            lambda doc: doc["results"][0]["result"].pop("reason"),
            "{p}: results[0]: result field 'reason' is missing",
        ),
    ],
)
def test_a_damaged_result_names_its_field(saved, change, message):
    assert _message(saved, change) == message.format(p=saved)


def test_counts_may_be_zero_and_floats_non_finite(saved):
    edit_json(saved, _set("rollbacks", 0))
    edit_json(saved, _set("psi1_j", "NaN"))
    edit_json(saved, _set("lift_height_m", None))
    loaded = load_session(saved).trials[0].result
    assert loaded.rollbacks == 0
    assert math.isnan(loaded.psi1_j) and math.isnan(loaded.lift_height_m)
    assert json.loads(saved.read_text())["results"][0]["result"]["min_distance_m"] == "Infinity"
