"""The Qt-free app model: documents, edits, runs and frames, observed through its events.

No QApplication and no display: these tests import no Qt at all.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from app.model import AppModel, Document, Event
from app.workers.messages import FramePacket
from engine.grasp.frames import Frame, TrialResult
from engine.io.frames_npz import CONTACT_COLUMNS


@pytest.fixture(scope="module")
def cube() -> Document:
    return Document.open_object("cube")


@pytest.fixture
def model(cube):
    m = AppModel()
    doc = Document.open_object("cube", mesh=cube.mesh)
    m.set_document(doc)
    return m


class Recorder:
    """Connects to every event of a model and records (event name, args)."""

    def __init__(self, model: AppModel) -> None:
        self.calls: list[tuple[str, tuple]] = []
        for name, ev in vars(model).items():
            if isinstance(ev, Event):
                ev.connect(lambda *args, name=name: self.calls.append((name, args)))

    def names(self) -> list[str]:
        return [c[0] for c in self.calls]


def _frame(model: AppModel, i: int, phase: str = "squeeze") -> Frame:
    pad = model.pads.pad
    return Frame(
        index=i, time_s=0.01 * i, phase=phase, pad_vertices=(pad.vertices, pad.vertices),
        object_pose=np.eye(4), plate_travel_m=0.0, plate_lift_m=0.0, psi_j=(0.0, 0.0),
        grip_force_n=(0.1, 0.1), contacts=dict.fromkeys(CONTACT_COLUMNS, 0), min_distance_m=1e-3, object_min_z_m=0.0,
        newton_iterations=1, intersection_free=True,
    )  # fmt: skip


def _packet(model: AppModel, trial: int, i: int, run_id: int | None = None) -> FramePacket:
    pad = model.pads.pad
    energy = (np.full(len(pad.vertices), 2.0 * i), np.zeros(len(pad.vertices)))
    rid = model.doc.run.run_id if run_id is None else run_id
    return FramePacket(0, rid, trial, _frame(model, i), energy)


def test_the_model_imports_no_qt():
    code = (
        "import sys, app.model, app.workers, app.logs\n"
        "bad = [m for m in sys.modules if m.startswith(('PySide6', 'pyvista', 'vtk'))]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_event_calls_subscribers_in_order_and_survives_a_failing_one():
    ev = Event("x")
    seen: list = []
    ev.connect(lambda a: seen.append(("first", a)))
    ev.connect(lambda a: 1 / 0)
    last = ev.connect(lambda a: seen.append(("last", a)))
    ev.emit(7)
    assert seen == [("first", 7), ("last", 7)]
    ev.disconnect(last)
    ev.emit(8)
    assert seen[-1] == ("first", 8) and len(ev) == 2


def test_set_document_announces_the_document_then_the_grasp(cube):
    m = AppModel()
    rec = Recorder(m)
    doc = Document.open_object("cube", mesh=cube.mesh)
    doc.dirty = True
    m.set_document(doc)
    assert rec.names() == ["document_changed", "grasp_changed"]
    assert m.doc is doc and not doc.dirty and doc.run is None
    assert m.grasp_valid is None and m.mode == "edit" and m.trial == -1
    assert m.grasp_width_mm == pytest.approx(30.0)  # the 3 cm cube between the jaws
    assert m.pads.shapes is not None


def test_an_edit_changes_the_document_and_resets_the_grasp_check(model):
    rec = Recorder(model)
    model.set_grasp_check(True, "")
    s = model.edit_state()
    new = replace(s, params=replace(s.params, mu=0.9), n_trials=4, seed=3)
    model.apply_edit(new)
    assert rec.names() == ["grasp_checked", "edited", "grasp_changed"]
    assert rec.calls[1][1] == (False,)  # the object did not change
    d = model.doc
    assert d.params.mu == 0.9 and d.spec.n_trials == 4 and d.spec.seed == 3
    assert model.grasp_valid is None
    assert model.edit_state().same_as(new) and not model.edit_state().same_as(s)


def test_changing_the_pose_changes_the_object(model):
    rec = Recorder(model)
    version = model.doc.version
    model.apply_edit(replace(model.edit_state(), pose_index=1))
    assert rec.calls[0] == ("edited", (True,))
    assert model.doc.pose_index == 1 and model.doc.version > version


def test_a_run_plans_trials_and_streams_frames_into_the_series(model):
    rec = Recorder(model)
    model.apply_edit(replace(model.edit_state(), n_trials=3))
    rec.calls.clear()
    jobs = model.begin_run(max_frames=5)
    run = model.doc.run
    assert [j.trial for j in jobs] == [0, 1, 2] and len(run.trials) == 3
    assert all(j.max_frames == 5 and j.run_id == run.run_id for j in jobs)
    assert {r.status for r in run.trials.values()} == {"queued"}
    assert rec.names() == ["run_started", "trial_selected"] and model.trial == 0
    assert model.doc.dirty and not model.unsaved_results  # nothing to lose yet
    model.trial_started(0)
    assert run.trials[0].status == "running"
    for i in range(3):
        assert model.add_frame(_packet(model, 0, i))
    assert not model.add_frame(_packet(model, 0, 9, run_id=run.run_id + 1))  # another run
    assert len(run.trials[0].frames) == 3 and len(model.series[0]) == 3
    assert rec.calls[-1] == ("frame_added", (0, 2))
    assert model.unsaved_results
    model.end_trial(0, TrialResult(trial=0, success=True, reason="lifted"), "done")
    assert model.trials_ended() == 1
    model.finish_run(cancelled=False)
    assert rec.names()[-1] == "run_finished"
    assert "1/3 trials lifted" in model.run_summary(False)


def test_selecting_a_trial_with_frames_switches_to_play(model):
    model.begin_run()
    model.add_frame(_packet(model, 0, 0))
    model.mode = "edit"
    model.select_trial(0)
    assert model.mode == "play" and model.selected_record() is model.doc.run.trials[0]
    model.select_trial(5)  # no such trial: nothing changes
    assert model.trial == 0


def test_colour_fields_and_their_range(model):
    model.begin_run()
    for i in range(4):
        model.add_frame(_packet(model, 0, i))
    rec = model.doc.run.trials[0]
    energy = model.fields_for(rec, 3, "energy")
    assert energy[0].max() == pytest.approx(6.0)
    assert model.field_range(rec, "energy") == pytest.approx(6.0)
    assert model.fields_for(rec, 0, "none") is None
    disp = model.fields_for(rec, 0, "displacement")
    assert len(disp) == 2 and disp[0].shape == (len(model.pads.pad.vertices),)


def test_mark_saved_clears_the_unsaved_flag(model, tmp_path):
    rec = Recorder(model)
    model.begin_run()
    model.mark_saved(tmp_path / "x.ipcgrasp.json")
    assert not model.doc.dirty and model.doc.path == tmp_path / "x.ipcgrasp.json"
    assert rec.names()[-1] == "saved"


def test_the_summary_leaves_cancelled_trials_out_of_r():
    from app.model.app_model import success_summary
    from engine.io.session import TrialRecord

    def rec(k, status, success):
        return TrialRecord(
            k, np.eye(4), status, result=TrialResult(trial=k, success=success, reason="x")
        )

    three = [rec(0, "done", True), rec(1, "cancelled", False), rec(2, "cancelled", False)]
    assert success_summary(three) == "1 of 1 finished trials lifted (2 cancelled), R = 1.00"
    assert success_summary(three[1:]) == "no trial finished (2 cancelled)"
    assert success_summary([rec(0, "done", True), rec(1, "failed", False)]) == (
        "1/2 trials lifted the object (R = 0.50)"
    )


def test_sampled_candidates_are_kept_for_grasp_edits_and_cleared_for_another_gripper(model):
    from app.workers.messages import SampleJob
    from app.workers.sampling import sample_grasps_for

    d = model.doc
    reply = sample_grasps_for(SampleJob(1, d.obj, d.params, 6, 0))
    assert not reply.error and len(reply.candidates) == 6
    rec = Recorder(model)
    model.set_candidates(reply.candidates)
    assert rec.names() == ["candidates_changed"] and model.candidates == reply.candidates
    s = model.edit_state()
    model.apply_edit(replace(s, grasp=reply.candidates[2].grasp))  # choosing one keeps them
    assert model.candidates == reply.candidates
    model.apply_edit(replace(s, params=d.params.with_gripper("franka_hand")))
    assert model.candidates == []
    assert rec.names().count("candidates_changed") == 2


def test_the_sample_worker_reports_why_nothing_fits():
    import trimesh

    from app.workers.messages import SampleJob
    from app.workers.sampling import sample_grasps_for
    from engine.grasp.params import SimulationParams
    from engine.scene.object_mesh import ObjectMesh
    from engine.scene.resting import rest_object

    plate = trimesh.creation.box(extents=(0.08, 0.06, 0.008))
    obj = rest_object(ObjectMesh(plate.vertices, plate.faces, "plate", "generated", None))
    reply = sample_grasps_for(SampleJob(3, obj, SimulationParams(), 5, 0))
    assert reply.candidates == [] and "--gripper franka_hand" in reply.error


def test_a_provisional_default_grasp_until_a_worker_finds_it(cube):
    """Document.open_object(find_default=False) and set_pose(find_default=False) give a
    ProvisionalGrasp (geometry only, no simulator) that AppModel reports as finding_default;
    an edit that sets a grasp ends it, and a pose edit takes the state's grasp without finding
    the default again."""
    from unittest import mock

    from app.model import ProvisionalGrasp
    from app.model import document as document_module

    m = AppModel()
    doc = Document.open_object("cube", mesh=cube.mesh, find_default=False)
    assert isinstance(doc.grasp, ProvisionalGrasp)
    # Where the engine's default is the centre grasp, the stand-in is that same grasp.
    np.testing.assert_allclose(doc.grasp.center, cube.grasp.center)
    np.testing.assert_allclose(doc.grasp.axis, cube.grasp.axis)
    m.set_document(doc)
    assert m.finding_default
    plain = doc.grasp.resolved()
    assert type(plain).__name__ == "Grasp" and np.array_equal(plain.center, doc.grasp.center)
    m.apply_edit(replace(m.edit_state(), grasp=plain))
    assert not m.finding_default
    with mock.patch.object(document_module, "safe_default_grasp", side_effect=AssertionError):
        m.apply_edit(replace(m.edit_state(), pose_index=1))  # undo/redo of a pose change
        assert doc.pose_index == 1 and doc.grasp is plain
        doc.set_pose(2, find_default=False)
        assert isinstance(doc.grasp, ProvisionalGrasp) and m.finding_default


def test_the_models_grip_force_and_where_it_comes_from(model):
    """One grip force (issue 15): a finished run of the current grasp and parameters gives the
    force it reached at the end of its squeezes; else the squeeze's stop force; with a Psi_th
    stop, the force it implies on this grasp once known, else the Analytic force field."""
    from app.model.grip import PsiForceState, squeeze_key
    from engine.grasp.calibration import PsiStopForce

    rec = Recorder(model)
    af = model.analytic_force()
    assert (af.force_n, af.source) == (20.0, "gripper")  # the YuMi's force stop
    model.apply_edit(replace(model.edit_state(), params=replace(model.doc.params, psi_th_j=1e-7)))
    af = model.analytic_force()
    assert (af.force_n, af.source) == (model.doc.analytic_force_n, "field")
    assert "not known yet" in af.text()
    key = squeeze_key(model.doc)
    answer = PsiStopForce(1e-7, "psi", (2.2, 2.3), (1.1e-7, 1.2e-7), 20.0)
    model.set_psi_force(PsiForceState("done", key, answer))
    assert rec.names()[-1] == "psi_force_changed"
    assert model.analytic_force().force_n == pytest.approx(2.25)
    assert model.analytic_force().text() == "at 2.25 N, the force Ψ_th implies on this grasp"
    assert model.psi_force.text() == "≈ 2.2 / 2.3 N per pad on this grasp"
    # A lift-only parameter needs no new squeeze; the friction does.
    lift = replace(model.doc.params, lift_speed_m_s=0.05)
    model.apply_edit(replace(model.edit_state(), params=lift))
    assert squeeze_key(model.doc) == key and model.analytic_force().source == "psi"
    model.apply_edit(replace(model.edit_state(), params=replace(lift, mu=0.5)))
    assert squeeze_key(model.doc) != key and model.analytic_force().source == "field"
    model.apply_edit(replace(model.edit_state(), params=lift))

    # A run: its trials' squeeze-end forces, once it has finished.
    model.apply_edit(replace(model.edit_state(), n_trials=3))
    model.begin_run()
    for k, (f1, f2) in enumerate([(2.0, 2.1), (2.4, 2.5)]):
        r = TrialResult(trial=k, success=True, reason="lifted", grip_force1_n=f1, grip_force2_n=f2)
        model.end_trial(k, r, "done")
    assert model.run_grip() is None  # trial 2 still queued
    model.end_trial(2, TrialResult(trial=2, success=False, reason="cancelled"), "cancelled")
    model.finish_run(cancelled=True)
    reached = model.run_grip()
    assert reached is not None and reached.trials == 2
    assert reached.grip_force_n == pytest.approx((2.2, 2.3))
    assert reached.text() == "2.2 / 2.3 N per pad reached in the simulation (mean of 2 trials)"
    af = model.analytic_force()
    assert (af.force_n, af.source) == (pytest.approx(2.25), "simulation")
    assert af.text() == "at 2.25 N, the simulation's squeeze force"
    # An edit makes the run another grasp's; undoing it (the same state) brings it back.
    before = model.edit_state()
    g = model.doc.grasp
    moved = replace(g, center=np.asarray(g.center) + np.array([0.0, 0.001, 0.0]))
    model.apply_edit(replace(before, grasp=moved))
    assert model.run_grip() is None and model.analytic_force().source != "simulation"
    model.apply_edit(before)
    assert model.analytic_force().source == "simulation"
    # Another object (density) too.
    model.apply_edit(replace(before, density_kg_m3=500.0))
    assert model.run_grip() is None


def test_the_psi_force_worker_answers_supersedes_and_reports_a_refused_grasp(cube):
    """app.workers.psi_force's job body (no process): the engine's force, no answer when a newer
    job waits, and the simulator's reason for a grasp it refuses."""
    from app.workers.messages import PsiForceJob
    from app.workers.psi_force import psi_force_of
    from engine.grasp.grasp import Grasp

    params = replace(cube.params, psi_th_j=1e-7)
    pads: dict = {}
    found = psi_force_of(PsiForceJob(1, cube.obj, cube.grasp, params), pads)
    assert found is not None and found.request == 1 and found.error == ""
    assert found.result.stopped_by == "psi" and 1.0 < found.result.grip_mean_n < 5.0
    assert len(pads) == 1  # the pad mesh is kept for the next job
    assert psi_force_of(PsiForceJob(2, cube.obj, cube.grasp, params), pads, lambda: True) is None
    away = Grasp(np.array([0.0, 0.2, 0.015]), np.array([1.0, 0.0, 0.0]), 0.0)
    refused = psi_force_of(PsiForceJob(3, cube.obj, away, params), pads)
    assert refused is not None and refused.result is None and "miss" in refused.error
