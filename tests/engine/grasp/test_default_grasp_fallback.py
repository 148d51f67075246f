"""The default grasp always works when one exists: through the centre of mass when it fits, else
the best sampled grasp, else an error naming a preset whose stroke fits. The issue's objects
(generated here) each get a valid default grasp and a simulation that runs intersection-free."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from engine.analytic.ranking import default_grasp_for
from engine.cli.main import main
from engine.errors import GraspError
from engine.grasp.default_grasp import THROUGH_CENTRE, choose_default_grasp, default_grasp
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import build_pad
from engine.grasp.trials import TrialSpec, check_grasp, plan_trials, run_trial
from engine.gripper.pad_geometry import pad_outline
from engine.scene.object_mesh import ObjectMesh, builtin_cube, load_object_mesh
from engine.scene.resting import RestingObject, rest_object
from tests.engine import procedural_objects as po

PARAMS = SimulationParams()


def _rest(mesh: trimesh.Trimesh, pose: int = 0) -> RestingObject:
    om = ObjectMesh(np.asarray(mesh.vertices), np.asarray(mesh.faces), "obj", "generated", None)
    return rest_object(om, pose)


def test_a_cube_keeps_the_grasp_through_the_centre():
    obj = rest_object(builtin_cube(), 0)
    chosen = default_grasp_for(obj, PARAMS)
    assert chosen.how == THROUGH_CENTRE and chosen.candidate is None
    expected = default_grasp(obj, pad_outline(PARAMS.pad))
    assert np.allclose(chosen.grasp.center, expected.center)
    assert np.allclose(chosen.grasp.axis, expected.axis)


@pytest.mark.parametrize("name", list(po.ISSUE_OBJECTS))
def test_the_issue_objects_get_a_valid_default_grasp(name):
    obj = _rest(po.ISSUE_OBJECTS[name]())
    chosen = default_grasp_for(obj, PARAMS)
    check_grasp(obj, chosen.grasp, PARAMS)  # the simulator accepts it
    if name in ("l_bracket", "spool", "bar_clamp"):  # no grasp through the centre fits
        assert chosen.how.startswith("best of ") and "sampled grasps" in chosen.how
        assert chosen.centre_refusal
        assert chosen.candidate is not None and chosen.candidate.quality > 0
    # Deterministic.
    again = default_grasp_for(obj, PARAMS)
    assert np.array_equal(again.grasp.center, chosen.grasp.center)


def test_without_a_ranker_the_most_antipodal_sampled_grasp_is_taken():
    obj = _rest(po.l_bracket())
    chosen = choose_default_grasp(obj, PARAMS)
    assert chosen.candidate is not None and np.isnan(chosen.candidate.quality)
    check_grasp(obj, chosen.grasp, PARAMS)


def test_another_resting_pose_gets_its_own_default():
    bracket = po.l_bracket()
    for pose in (0, 2):
        obj = _rest(bracket, pose)
        check_grasp(obj, default_grasp_for(obj, PARAMS).grasp, PARAMS)


def test_no_grasp_for_the_gripper_names_a_preset_whose_stroke_fits():
    obj = _rest(po.flat_plate())
    with pytest.raises(
        GraspError, match=r"no grasp fits the ABB YuMi smart gripper's 50 mm"
    ) as err:
        default_grasp_for(obj, PARAMS)
    assert "--gripper franka_hand (Franka Hand, 80 mm)" in str(err.value)
    franka = SimulationParams.for_gripper("franka_hand")
    check_grasp(obj, default_grasp_for(obj, franka).grasp, franka)


def test_the_cli_reports_a_sampled_default_grasp(tmp_path, capsys):
    path = po.write_obj(np.asarray(po.spool().vertices), np.asarray(po.spool().faces),
                        tmp_path / "spool.obj")  # fmt: skip
    code = main(["analyze", "--object", str(path), "--models", "soft_point", "--samples", "0"])
    assert code == 0
    err = capsys.readouterr().err
    assert "default grasp: best of" in err
    assert "through the centre of mass the open gripper's fingers or palm would hit" in err


@pytest.mark.slow
@pytest.mark.parametrize("name", list(po.ISSUE_OBJECTS))
def test_the_issue_objects_simulate_intersection_free_with_their_default(name, tmp_path):
    mesh = po.ISSUE_OBJECTS[name]()
    path = po.write_obj(np.asarray(mesh.vertices), np.asarray(mesh.faces), tmp_path / "o.obj")
    obj = rest_object(load_object_mesh(path), 0)
    pad = build_pad(PARAMS)
    (nominal,) = plan_trials(default_grasp_for(obj, PARAMS).grasp, TrialSpec())
    frames = []
    result = run_trial(obj, nominal, PARAMS, pad=pad, on_frame=lambda f: frames.append(f) and None)
    assert result.frames > 0 and not result.error, result.error
    assert result.intersection_free
    assert all(f.intersection_free for f in frames)
