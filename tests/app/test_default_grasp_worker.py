"""The default grasp is found in a worker process (app.controllers.default_grasp), in the real
window: the event loop keeps running while it is found, the grasp appears when the worker
answers, an answer for an object or pose left before it came is ignored, no grasp fitting
shows the engine's reason with a preset that fits; and the body chosen in a file with several
is remembered for that file like its unit."""

from __future__ import annotations

import html
import os

import numpy as np
import trimesh
from PySide6.QtCore import QTimer

from app.controllers.default_grasp import FINDING
from app.model import ProvisionalGrasp
from engine.analytic.ranking import default_grasp_for
from tests.engine import procedural_objects as po

SEARCH_TIMEOUT_MS = 120_000


def _write(mesh: trimesh.Trimesh, path):
    return po.write_obj(np.asarray(mesh.vertices), np.asarray(mesh.faces), path)


def _expected(doc):
    """The engine's default grasp of `doc`'s object and pose, None when no grasp fits."""
    from engine.errors import GraspError

    try:
        return default_grasp_for(doc.obj, doc.params).grasp
    except GraspError:
        return None


def _same(a, b) -> bool:
    return bool(
        np.allclose(a.center, b.center)
        and np.allclose(a.axis, b.axis)
        and np.isclose(a.approach_angle_rad, b.approach_angle_rad)
    )


class Ticks:
    """A QTimer ticking every 20 ms on the GUI thread, counting the ticks that ran while the
    default grasp was still being searched for."""

    def __init__(self, searching) -> None:
        self.during = 0
        self.timer = QTimer()
        self.timer.setInterval(20)
        self.timer.timeout.connect(lambda: setattr(self, "during", self.during + searching()))


def test_the_default_grasp_is_found_in_a_worker_while_the_gui_keeps_running(
    window, qtbot, tmp_path
):
    """A 60 mm snowman: its grasp through the centre does not fit the YuMi's 50 mm, so the
    default is the best sampled grasp, found in the worker process (about a second)."""
    path = _write(po.sphere_stack(), tmp_path / "snowman.obj")
    assert window.opening.open_path(path)
    doc = window.doc
    provisional = doc.grasp
    assert isinstance(provisional, ProvisionalGrasp) and window.model.finding_default
    assert window.defaults.busy
    # The search runs in the grasp-finding worker, another process.
    worker = window.defaults.client.worker
    assert worker is not None and worker.pid not in (None, os.getpid())
    assert FINDING in window.status_label.text()
    assert window.grasp_dock.status_label.text() == FINDING
    assert len(window.viewport.gripper.pad_actors) == 2  # the gripper is drawn at once
    # Simulate waits for the grasp.
    assert not window.runs.start_simulation()
    # The GUI thread handles events while the worker searches: a timer ticks (no speed is
    # claimed: benchmarks/bench_gui.py measures the event loop's gaps).
    ticks = Ticks(lambda: window.model.finding_default)
    ticks.timer.start()
    try:
        qtbot.waitUntil(lambda: not window.model.finding_default, timeout=SEARCH_TIMEOUT_MS)
    finally:
        ticks.timer.stop()
    assert ticks.during > 0, "no timer tick ran on the GUI thread while the grasp was searched"

    # The grasp found is the engine's default, drawn and checked; opening adds no undo step.
    assert window.doc is doc and not isinstance(doc.grasp, ProvisionalGrasp)
    expected = default_grasp_for(doc.obj, doc.params)
    assert expected.candidate is not None  # sampled: the centre grasp did not fit
    assert _same(doc.grasp, expected.grasp)
    assert "sampled grasps" in window.status_label.text()
    assert window.undo_stack.count() == 0
    qtbot.waitUntil(lambda: window.model.grasp_valid is not None, timeout=60_000)
    assert window.model.grasp_valid, window.model.grasp_reason


def test_a_second_open_or_a_pose_change_before_the_answer_ignores_the_first(
    window, qtbot, tmp_path
):
    first = _write(po.sphere_stack(), tmp_path / "snowman.obj")
    second = _write(po.l_bracket(), tmp_path / "bracket.obj")
    applied: list = []

    def record() -> None:
        applied.append((window.doc, window.doc.grasp))

    window.model.grasp_changed.connect(record)
    try:
        ignored = window.defaults.results_ignored
        assert window.opening.open_path(first)
        qtbot.wait(150)  # the worker has taken the first job
        assert window.model.finding_default
        assert window.opening.open_path(second)
        doc = window.doc
        qtbot.waitUntil(lambda: not window.model.finding_default, timeout=SEARCH_TIMEOUT_MS)
        # The snowman's answer came (the worker finishes a job it has begun) and was ignored.
        qtbot.waitUntil(lambda: window.defaults.results_ignored > ignored, timeout=10_000)
        assert window.doc is doc
        assert _same(doc.grasp, default_grasp_for(doc.obj, doc.params).grasp)
        mine = [g for d, g in applied if d is doc]
        assert len(mine) == 2 and isinstance(mine[0], ProvisionalGrasp)  # placeholder, found
        pose0 = doc.grasp

        # Another resting pose before its grasp is found, then back (undo) before that one is:
        # each ends with its own pose's default, and redo gives the grasp found for the other.
        opened = doc.pose_index  # the bracket as saved (app.model.document.default_pose_of)
        other = 1 if opened != 1 else 0
        window.editing.set_stable_pose(other)
        assert window.model.finding_default
        window.menus.undo_action.trigger()
        assert doc.pose_index == opened and doc.grasp is pose0
        assert not window.model.finding_default
        window.menus.redo_action.trigger()
        assert doc.pose_index == other and window.model.finding_default
        provisional1 = doc.grasp
        qtbot.waitUntil(lambda: not window.model.finding_default, timeout=SEARCH_TIMEOUT_MS)
        pose1, expected = doc.grasp, _expected(doc)
        # (The bracket standing on its leg fits no grasp: the stand-in stays, as a Grasp.)
        assert _same(pose1, provisional1 if expected is None else expected)
        window.menus.undo_action.trigger()
        assert doc.grasp is pose0
        window.menus.redo_action.trigger()
        assert doc.grasp is pose1 and not window.model.finding_default
    finally:
        window.model.grasp_changed.disconnect(record)


def test_no_grasp_fitting_shows_the_engines_reason_naming_a_preset(window, qtbot, tmp_path):
    """A 66 mm ball: no antipodal pair fits the YuMi's 50 mm opening; the Franka Hand's does."""
    ball = trimesh.creation.icosphere(subdivisions=3, radius=0.033)
    path = _write(ball, tmp_path / "ball.obj")
    assert window.opening.open_path(path)
    assert window.model.finding_default
    qtbot.waitUntil(lambda: not window.model.finding_default, timeout=SEARCH_TIMEOUT_MS)
    text = window.status_label.text()
    assert text.startswith("no grasp fits the ABB YuMi smart gripper's 50 mm opening"), text
    assert "A gripper whose stroke fits: the Franka Hand, 80 mm (Parameters > Gripper)" in text
    assert "--" not in text  # the engine's reason rendered with the app's controls, not flags
    assert window.defaults.last_message == text
    assert type(window.doc.grasp).__name__ == "Grasp"  # the stand-in stays, checked and red
    qtbot.waitUntil(lambda: window.model.grasp_valid is not None, timeout=60_000)
    assert window.model.grasp_valid is False


def test_the_body_chosen_is_remembered_for_the_file(window, qtbot, tmp_path, monkeypatch):
    from app import settings as app_settings

    two = po.two_boxes()
    path = tmp_path / "two.obj"
    two.export(path)
    asked: list[list[str]] = []
    preselected: list[str | None] = []
    answers = ["1", "0"]

    def choose_body(file_name: str, bodies: list[str], current: str | None = None) -> str | None:
        asked.append(bodies)
        preselected.append(current)
        return answers.pop(0)

    monkeypatch.setattr(window.ui, "choose_body", choose_body)
    assert window.opening.open_path(path)
    assert len(asked) == 1 and window.doc.mesh.repair.body == "1 of 2"
    assert app_settings.MESH_BODY.get(path) == "1"
    # Reopening (also from File > Open recent) opens body 1 again without asking.
    assert window.opening.open_path(path)
    assert len(asked) == 1 and window.doc.mesh.repair.body == "1 of 2"
    np.testing.assert_allclose(window.doc.obj.volume_m3, 12e-6, rtol=1e-6)
    # File > Reopen with another body asks, and the new choice is remembered.
    window.menus.reopen_body_action.trigger()
    assert len(asked) == 2 and window.doc.mesh.repair.body == "0 of 2"
    # Issue 39 point 10: the question preselects the body open (body 1), not body 0.
    assert preselected == [None, "1"]
    assert app_settings.MESH_BODY.get(path) == "0"
    qtbot.waitUntil(lambda: not window.model.finding_default, timeout=SEARCH_TIMEOUT_MS)


def test_a_default_grasp_that_cannot_hold_is_said_in_the_status_line():
    """A 40 mm cube of 0.5 kg at mu 0.1 with the YuMi: its grasp through the centre holds
    2 mu F / (m g) = 2 x 0.1 x 20 N / 4.9 N = 0.82 times its weight (it will slip); the Franka
    Hand's 70 N holds 2.9 times. The worker's answer carries the engine's warning and the status
    line says it with the gripper named as the app's control."""
    from app.controllers.default_grasp import found_text
    from app.workers.messages import DefaultGraspJob
    from app.workers.sampling import default_grasp_of
    from engine.grasp.params import SimulationParams
    from engine.scene.object_mesh import builtin_cube
    from engine.scene.resting import rest_object

    cube = rest_object(builtin_cube(size_m=0.04), 0, mass_kg=0.5)
    found = default_grasp_of(DefaultGraspJob(1, cube, SimulationParams.for_gripper("yumi", mu=0.1)))
    assert found.grasp is not None and found.weak is not None
    text = found_text(found)
    assert "Warning: the default grasp holds only 0.82 times the object's weight" in text
    assert "the Franka Hand, 70 N: margin 2.9 (Parameters > Gripper)" in text
    assert "--gripper" not in text
    holds = default_grasp_of(
        DefaultGraspJob(2, cube, SimulationParams.for_gripper("franka_hand", mu=0.1))
    )
    assert holds.weak is None and "Warning" not in found_text(holds)


def test_the_grasp_dock_warns_while_the_weak_default_grasp_is_shown(window, qtbot, tmp_path):
    """A 40 mm water-density cube (64 g, 0.63 N) at mu 0.01 with the YuMi's 20 N: its grasp
    through the centre holds 2 mu F / (m g) = 0.64 times its weight. Rested on another face
    (a new default grasp), the dock's Status says so under "valid" and names the Franka Hand,
    whose 70 N holds 2.2 times, until the user moves the grasp."""
    from dataclasses import replace

    model = window.model
    path = _write(trimesh.creation.box(extents=(0.04, 0.04, 0.04)), tmp_path / "cube.obj")
    assert window.opening.open_path(path)
    qtbot.waitUntil(lambda: not model.finding_default, timeout=SEARCH_TIMEOUT_MS)
    qtbot.waitUntil(lambda: model.grasp_valid is not None, timeout=60_000)
    assert "warning" not in window.grasp_dock.status_label.text()  # at mu 0.4 it holds 25x
    model.apply_edit(replace(model.edit_state(), params=replace(model.doc.params, mu=0.01)))
    # The cube's 6 faces are one line of the pose list (alike up to a turn about the vertical):
    # rest it on another face as the list's line does, by its stable-pose index.
    assert window.grasp_dock.pose_combo.count() == 1
    window.grasp_dock.pose_selected.emit(model.doc.pose_choices[0].group.members[1])
    assert model.finding_default
    qtbot.waitUntil(lambda: not model.finding_default, timeout=SEARCH_TIMEOUT_MS)
    qtbot.waitUntil(lambda: model.grasp_valid is not None, timeout=60_000)
    status = html.unescape(window.grasp_dock.status_label.text())
    assert "valid" in status and "warning: the default grasp holds only 0.64 times" in status
    assert "the Franka Hand, 70 N: margin 2.2 (Parameters > Gripper)" in status
    window.grasp_dock.center[0].setValue(window.grasp_dock.center[0].value() + 1.0)
    qtbot.waitUntil(lambda: model.grasp_valid is not None, timeout=60_000)
    assert "warning" not in window.grasp_dock.status_label.text()
