"""Issue 39 point 10: readouts that agreed with nothing or hid: the grasp's Width beside the
status line's contacts, the Runs table's reasons, File > Reopen with another unit or body."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh
from PySide6.QtCore import Qt

from tests.app.test_edit_after_run import _run_to_end
from tests.app.test_open_and_edit import _mug_mesh, _open_and_view, _screen_pos


def test_the_width_of_a_wall_pinch_is_the_pinch(window, qtbot, tmp_path):
    """A right-click on the outside of a 60 mm cup's 5 mm wall places a wall pinch: the status
    line said "contacts 5.0 mm apart" and Width "60.0 mm" (the line through the jaw centre
    across the whole cup). Width now counts the line between the open jaws: 5.0 mm."""
    path = tmp_path / "cup.stl"
    _mug_mesh().export(path)
    surface = _open_and_view(window, qtbot, path, (1.0, -0.2, 0.3))
    v = np.asarray(surface.vertices)
    assert int(np.argmax(np.ptp(v, axis=0))) == 2, "the cup rests upright"
    centre = v.min(0) + 0.5 * np.ptp(v, axis=0)
    # The outer wall facing the camera (+x), halfway up, mid-facet.
    angle = np.pi / 48
    direction = np.array([np.cos(angle), np.sin(angle), 0.0])
    point = centre + 0.03 * np.cos(np.pi / 48) * direction
    point[2] = 0.04
    seen: list[str] = []
    status = window.ui.status
    window.ui.status = lambda text, log_it=True: (seen.append(text), status(text, log_it))
    try:
        old = window.doc.grasp
        qtbot.mouseClick(window.viewport.plotter, Qt.MouseButton.RightButton,
                         pos=_screen_pos(window, point))  # fmt: skip
        qtbot.waitUntil(lambda: window.doc.grasp is not old, timeout=5_000)
    finally:
        del window.ui.status
    assert seen[-1].startswith("grasp placed: contacts 5.0 mm apart"), seen[-1]
    assert window.model.grasp_width_mm == pytest.approx(5.0, abs=0.1)
    assert window.grasp_dock.width_label.text().startswith("5.0 mm")


def test_the_runs_table_shows_the_whole_reason(window, qtbot):
    """Issue 39 point 10: the reason column was squeezed to a few letters ("li...") by the
    other columns, its text only in the reason cell's tooltip. Now the column is as wide as
    its text (up to 320 px) and the status, outcome and reason cells carry it as tooltip."""
    from app.tables import REASON_WIDTH_PX

    _run_to_end(window, qtbot)
    table = window.runs_table
    reason = table.item(0, 3).text()
    assert reason
    needed = min(table.fontMetrics().horizontalAdvance(reason), REASON_WIDTH_PX - 16)
    assert table.horizontalHeader().sectionSize(3) >= needed
    for col in (1, 2, 3):
        assert table.item(0, col).toolTip() == reason


def test_reopen_with_another_unit_keeps_the_resting_pose(window, qtbot, tmp_path):
    """Issue 39 point 10: File > Reopen with another unit put a bar standing on its end back
    on its largest face (pose 0). Its poses do not depend on the unit: the pose is kept."""
    from tests.app.test_open_and_edit import _answer_unit_dialog

    path = tmp_path / "bar_mm.stl"
    trimesh.creation.box(extents=[60.0, 30.0, 20.0]).export(path)  # mm: asks the unit
    seen: list = []
    _answer_unit_dialog(window, [], seen)
    assert window.opening.open_path(path)
    assert window.doc.unit == "mm"
    combo = window.grasp_dock.pose_combo
    row = combo.count() - 1  # the least probable pose: on its end
    last = combo.itemData(row)  # the stable-pose index the line rests the bar in
    assert last != window.doc.pose_index
    combo.setCurrentIndex(row)
    assert window.doc.pose_index == last
    height = float(np.ptp(window.doc.obj.vertices[:, 2]))
    _answer_unit_dialog(window, [Qt.Key.Key_Up], seen)  # centimetres, one up the list
    window.menus.reopen_unit_action.trigger()
    assert window.doc.unit == "cm"
    assert window.doc.pose_index == last
    assert combo.currentIndex() == row and combo.itemData(row) == last
    assert float(np.ptp(window.doc.obj.vertices[:, 2])) == pytest.approx(10 * height, rel=1e-6)
    qtbot.waitUntil(lambda: not window.model.finding_default, timeout=180_000)


def test_a_trial_of_a_grasp_refused_in_the_worker_says_invalid_grasp():
    """F5 right after typing a grasp, before its check answered, sends the simulation worker a
    grasp the engine refuses: its trial said "worker error: GraspError: ..." (with a traceback
    in the log). It is now a failed trial with reason "invalid grasp" and the engine's words."""
    import threading

    from app.workers.messages import TrialEnded, TrialJob
    from app.workers.simulation import _run_trial
    from engine.grasp.grasp import Grasp
    from engine.grasp.params import SimulationParams
    from engine.grasp.trials import TrialSpec, plan_trials
    from engine.scene.object_mesh import BUILTIN_CUBE_MASS_KG, builtin_cube
    from engine.scene.resting import rest_object

    cube = rest_object(builtin_cube(), 0, mass_kg=BUILTIN_CUBE_MASS_KG)
    beside = Grasp(np.array([0.0, 0.045, 0.015]), np.array([1.0, 0.0, 0.0]))
    planned = next(iter(plan_trials(beside, TrialSpec(1, 0))))
    sent: list = []

    class Outbox:
        def put(self, message) -> None:
            sent.append(message)

    job = TrialJob(1, planned, cube, SimulationParams())
    _run_trial(0, job, Outbox(), threading.Event(), {})
    ended = [m for m in sent if isinstance(m, TrialEnded)]
    assert len(ended) == 1 and not ended[0].cancelled
    result = ended[0].result
    assert result.reason == "invalid grasp" and "misses the object" in result.error
