"""A push on the held object (engine.grasp.push, the app's drag during the hold and
`ipcgrasp simulate --push`), against the closed forms of tests/engine/grasp/test_disturbance.py.
A 300 g, 3 cm cube held through its centre by the YuMi's 20 N jaws (F per jaw, mu = 0.4):

- pushed down at its centre of mass, it stays held while the push and its weight together stay
  below the friction of both pads, 2 mu F - m g (13.05 N): held at 0.8 of that, slipped out
  at 1.3;
- a push's point matters: 9.5 N down, held at the centre, turns the cube out of the grip 14 mm
  beside it, where it adds a moment of 0.133 N m about the closing axis, close to the patches'
  friction moment (0.142-0.152 N m, test_disturbance.py) on top of the 9.5 N.

A planted bug fails them: the force's sign flipped (a push up holds at 1.3x: 2 mu F + m g is
18.9 N), the moment arm left out (the side push holds like the centred one).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.constants import GRAVITY_M_S2
from engine.errors import ParameterError
from engine.grasp.frames import PHASES, TrialResult
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.push import Push, PushOutcome, apply_push, parse_push
from engine.grasp.simulation import GraspSimulation
from engine.grasp.trials import TrialSpec, planned_trial, run_trial
from engine.io.results_csv import trial_result_from_row
from engine.scene.object_mesh import builtin_cube
from engine.scene.resting import rest_object

pytestmark = pytest.mark.slow

MASS_KG = 0.3


@pytest.fixture(scope="module")
def held():
    """The cube lifted and held, its held state, the jaws' hold force (N per jaw)."""
    obj = rest_object(builtin_cube(0.03), mass_kg=MASS_KG)
    sim = GraspSimulation(
        obj, Grasp(obj.center_of_mass, [1.0, 0.0, 0.0], 0.0).pose(), SimulationParams()
    )
    for _ in sim.frames():
        pass
    assert sim.result.success, sim.result.reason
    return sim, sim.stepper.state, sim.hold_force_n


def _push(held, force, point):
    sim, state, hold = held
    sim.stepper.state = state
    frames = []
    gen = apply_push(sim, Push(tuple(force), tuple(point)), hold)
    while True:
        try:
            frames.append(next(gen))
        except StopIteration as done:
            return done.value, frames


def test_a_push_down_holds_below_the_pads_friction_less_the_weight_and_slips_above(held):
    sim, _, hold = held
    law = 2 * sim.params.mu * hold - MASS_KG * GRAVITY_M_S2
    assert law == pytest.approx(13.05, abs=0.1)
    com = np.asarray(sim.obj.center_of_mass)
    below, frames = _push(held, (0.0, 0.0, -0.8 * law), com)
    assert below.held and below.moved_m < 1e-3
    assert {f.phase for f in frames} == {"push"} and all(f.intersection_free for f in frames)
    assert below.weight_multiple == pytest.approx(0.8 * law / (MASS_KG * GRAVITY_M_S2))
    above, _ = _push(held, (0.0, 0.0, -1.3 * law), com)
    assert not above.held and above.moved_m > sim.params.slip_tolerance_m


def test_the_same_push_beside_the_centre_twists_the_object_out(held):
    sim, _, _ = held
    com = np.asarray(sim.obj.center_of_mass)
    centred, _ = _push(held, (0.0, 0.0, -9.5), com)
    assert centred.held
    beside, _ = _push(held, (0.0, 0.0, -9.5), com + np.array([0.0, 0.014, 0.0]))
    assert not beside.held and beside.turned_rad > sim.params.rotation_tolerance_rad


def test_a_trial_with_a_push_streams_its_frames_and_records_it_in_its_row():
    obj = rest_object(builtin_cube(0.03), mass_kg=MASS_KG)
    planned = planned_trial(
        Grasp(obj.center_of_mass, [1.0, 0.0, 0.0], 0.0), TrialSpec(n_trials=1), 0
    )
    push = Push((0.0, 5.0, 0.0), tuple(np.asarray(obj.center_of_mass)))
    seen: list[str] = []
    r = run_trial(obj, planned, SimulationParams(), on_frame=lambda f: seen.append(f.phase))
    rp = run_trial(
        obj, planned, SimulationParams(), on_frame=lambda f: seen.append(f.phase), push=push
    )
    assert r.success and rp.success and not r.push
    assert rp.frames == r.frames + seen.count("push") and seen[-1] == "push"
    assert rp.push["held"] == 1.0 and rp.push["fy"] == 5.0
    # The row a session or batch writes keeps it.
    row = {k: "" if v is None else str(v) for k, v in rp.as_json().items()}
    back = trial_result_from_row(row)
    assert back.push == pytest.approx(rp.push)
    assert "push" in PHASES


@pytest.mark.parametrize(
    ("force", "point", "duration"),
    [((math.nan, 0, 0), (0, 0, 0), 0.2), ((1, 0, 0), (0, 0), 0.2), ((1, 0, 0), (0, 0, 0), 0.0)],
)
def test_a_push_that_cannot_be_applied_is_refused_with_the_reason(force, point, duration):
    with pytest.raises(ParameterError, match="push"):
        Push(force, point, duration).validate()
    assert TrialResult(0, True, "").push == {}


def test_the_push_flag_reads_a_force_and_an_optional_point_and_names_a_bad_one():
    com = np.array([0.0, 0.0, 0.015])
    assert parse_push("0,0,-5", com) == Push((0.0, 0.0, -5.0), (0.0, 0.0, 0.015))
    assert parse_push("1,2,3@0.01,0,0.02", com).point_m == (0.01, 0.0, 0.02)
    for bad in ("5", "0,0,-5@1,2", "a,b,c", "0,0,inf"):
        with pytest.raises(ParameterError, match="push"):
            parse_push(bad, com)


def test_sessions_keep_a_push(tmp_path):
    import dataclasses

    from engine.io.session import load_session, save_session
    from tests.engine.io.test_session_validation import make_session

    session = make_session()
    rec = session.trials[0]
    result = TrialResult(0, True, "lifted")
    result.record_push(
        Push((0.0, 0.0, -5.0), (0.0, 0.01, 0.015)),
        PushOutcome(False, 0.012, 0.2, 1.7),
    )
    done = dataclasses.replace(rec, status="done", result=result)
    json_path, _ = save_session(
        tmp_path / "s", dataclasses.replace(session, trials=[done, *session.trials[1:]])
    )
    back = load_session(json_path).trials[0].result
    assert back is not None and back.push == result.push and back.push["held"] == 0.0
