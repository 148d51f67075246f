"""The data-set browser in the real window: File > Open data set on the REACH cube's physical
trials and on a batch results CSV with its frames folder (a real two-grasp batch run here);
a false positive is filtered, chosen with a click, its trial replayed from its frames file
and re-simulated live; a click on a grasp glyph in the 3D view shows that grasp."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import pyvista as pv
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest

from app.dataset_dock import FP_COLOR, SHOW_CHOICES
from app.model.dataset import FALSE_POSITIVE
from app.model.dataset_placement import placement
from engine.evaluation.labels import load_labels
from tests.app.test_sample_grasps import _display, _left, _widget_pos
from tests.conftest import REACH_JSON, REPO


@pytest.fixture(scope="module")
def reach_json():
    if not REACH_JSON.is_file():
        pytest.skip(f"REACH reference data not found at {REACH_JSON} (../shared/data)")
    return REACH_JSON


@pytest.fixture(scope="module")
def batch_with_frames(reach_json, tmp_path_factory):
    """`ipcgrasp batch --frames` on REACH cube grasps 0 (5/5 physically) and 2 (1/5, lifted by
    IPC: a false positive): IPC's nominal trial and Soft Point, the frames of both IPC trials."""
    folder = tmp_path_factory.mktemp("dataset")
    records = [r for r in json.loads(reach_json.read_text()) if r["attempt"] in (0, 2)]
    table = folder / "reach_two.json"
    table.write_text(json.dumps(records))
    out = folder / "results.csv"
    cmd = [sys.executable, "-m", "engine.cli.main", "batch", str(table), "--out", str(out)]
    cmd += ["--frames", str(folder / "results_frames"), "--mesh-dir", str(reach_json.parent)]
    cmd += ["--models", "ipc,soft_point", "--samples", "5", "--trials", "1", "--workers", "0"]
    subprocess.run([*cmd, "--quiet"], cwd=REPO, check=True, timeout=600)
    return out


def _click_row(view, row: int, column: int = 1) -> None:
    rect = view.visualRect(view.model().index(row, column))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def _wait_checked(qtbot, window) -> None:
    qtbot.waitUntil(lambda: window.model.grasp_valid is not None, timeout=60_000)


def test_reach_json_lists_its_grasps_and_a_glyph_click_shows_one(window, qtbot, reach_json):
    assert window.menus.open_dataset_action.text() == "Open &data set…"
    assert window.datasets.open_path(reach_json)
    dock, ds = window.dataset_dock, window.model.dataset
    assert window.dataset_dock_widget.isVisible()
    assert "25 grasps (REACH physical trials)" in dock.summary.text()
    assert dock.proxy.rowCount() == 25
    # The physical success rate of each grasp, as `ipcgrasp evaluate` reads the labels.
    labels = load_labels([str(reach_json)])
    physical = dock.table_model.column_text(dock.table_model.headers.index("physical"))
    assert physical[2] == "1/5" and physical[0] == "5/5"
    for g, text in zip(ds.grasps, physical, strict=True):
        assert text == f"{sum(labels[g.grasp_id].outcomes)}/5"
    # No model predictions: no marks column.
    assert dock.table.isColumnHidden(dock.table_model.headers.index("marks"))

    # Every grasp is drawn as a glyph coloured by its physical success rate.
    actor = window.viewport.plotter.renderer.actors["dataset"]
    data = window.viewport.dataset.poly
    assert data.n_cells == 4 * 25 and actor.mapper.scalar_range == (0.0, 1.0)
    np.testing.assert_allclose(
        data.cell_data["value"][::4], [labels[g.grasp_id].robustness for g in ds.grasps]
    )
    # The first grasp is shown, on the stable pose resting on its recorded support face.
    first = ds.grasps[0]
    assert window.model.dataset_index == 0 and "showing cube_3cm/0" in window.status_label.text()
    assert "cube_3cm/0" in dock.grasp_label.text()
    p = placement(ds.objects[first.object_key], first, window.doc)
    assert window.doc.pose_index == p.pose_index and p.same_support
    np.testing.assert_allclose(window.doc.grasp.pose(), p.grasp.pose(), atol=1e-12)
    assert window.doc.obj.mass_kg == pytest.approx(0.003)  # the REACH cube's 3 g

    # A real left click on another grasp's glyph shows that grasp (undoable).
    _wait_checked(qtbot, window)
    vp = window.viewport
    vp.render_now()
    cam = np.asarray(vp.plotter.camera.position)
    shown = window.model.dataset_index
    poses = {
        g.index: window.doc.obj.pose_transform @ g.mesh_pose for g in ds.grasps if g.index != shown
    }
    # The middle of a glyph's palm bar (app.scene_style.gripper_glyphs), nearest the camera.
    palm = {k: m[:3, 3] + m[:3, 2] * -0.012 for k, m in poses.items()}
    for k in sorted(palm, key=lambda k: np.linalg.norm(palm[k] - cam)):
        x, y = _display(window, palm[k])
        if vp.picking.glyph_at(x, y) == ("dataset", k):
            break
    else:
        pytest.fail("no glyph palm of the data set is pickable where it is drawn")
    widget = vp.plotter
    pos = _widget_pos(widget, x, y)
    _left(widget, QEvent.Type.MouseButtonPress, pos)
    _left(widget, QEvent.Type.MouseButtonRelease, pos)
    qtbot.waitUntil(lambda: window.model.dataset_index == k, timeout=5_000)
    assert dock.table.selectionModel().selectedRows()[0].row() == dock.visible_grasps().index(k)
    assert ds.grasps[k].grasp_id in dock.grasp_label.text()
    outline = pv.wrap(vp.plotter.renderer.actors["dataset_selected"].mapper.GetInput())
    np.testing.assert_allclose(
        outline.points[4], (window.doc.grasp.pose() @ [0, 0, -0.012, 1])[:3], atol=1e-9
    )
    window.menus.undo_action.trigger()
    np.testing.assert_allclose(window.doc.grasp.pose(), p.grasp.pose(), atol=1e-12)


def test_results_with_frames_replay_a_false_positive_and_resimulate_it(
    window, qtbot, batch_with_frames
):
    out = batch_with_frames
    assert window.datasets.open_path(out), window.ui.errors
    dock, ds = window.dataset_dock, window.model.dataset
    assert ds.frames_dir == out.parent / "results_frames"  # found beside the results
    summary = dock.summary.text()
    assert "2 grasps (batch results)" in summary and "models ipc, soft_point" in summary
    assert "1 with a false positive" in summary and "frames of 2 trials" in summary
    headers = dock.table_model.headers
    assert headers[2:5] == ["physical", "ipc", "soft_point"]

    # Show the false positives only: IPC lifts grasp 2, which failed 4 of 5 times physically.
    dock.show_combo.setCurrentIndex([v for _t, v in SHOW_CHOICES].index(FALSE_POSITIVE))
    assert dock.proxy.rowCount() == 1
    g = ds.grasps[dock.visible_grasps()[0]]
    assert g.grasp_id == "cube_3cm/2" and g.mark("ipc") == FALSE_POSITIVE
    assert dock.proxy.data(dock.proxy.index(0, 2)) == "1/5"
    assert dock.proxy.data(dock.proxy.index(0, 3)) == "1.00"
    cell = dock.proxy.index(0, 3)
    assert dock.proxy.data(cell, Qt.ItemDataRole.BackgroundRole) == QColor(FP_COLOR)
    assert "false positive" in dock.proxy.data(cell, Qt.ItemDataRole.ToolTipRole)

    # A click on its row shows it: the current grasp, its trials.
    _click_row(dock.table, 0)
    qtbot.waitUntil(lambda: window.model.dataset_index == g.index, timeout=5_000)
    p = placement(ds.objects[g.object_key], g, window.doc)
    np.testing.assert_allclose(window.doc.grasp.pose(), p.grasp.pose(), atol=1e-12)
    assert "false positive" in dock.grasp_label.text()
    assert dock.trials.rowCount() == 1
    trial = g.trials[0]
    assert [dock.trials.item(0, c).text() for c in range(3)] == ["ipc", "0", "success"]
    assert dock.trials.item(0, 4).text() == f"{trial.frames} ▶"

    # A click on the trial replays it: its frames in the timeline, the runs table, the view.
    drawn: list[int] = []
    window.scene.frame_displayed.connect(lambda _t, i: drawn.append(i))
    _click_row(dock.trials, 0, 0)
    qtbot.waitUntil(lambda: len(window.timeline.series) == trial.frames > 0, timeout=10_000)
    assert window.model.mode == "play" and "replaying ipc trial 0" in window.status_label.text()
    assert window.runs_table.item(0, 2).text() == "success"
    assert window.runs_table.item(0, 3).text() == "lifted"
    qtbot.waitUntil(lambda: 0 in drawn, timeout=5_000)  # replay starts at the first frame
    window.timeline.seek(trial.frames - 1)
    qtbot.waitUntil(lambda: drawn[-1] == trial.frames - 1, timeout=5_000)
    # At the end the cube hangs 2 cm up in the pads (the row's lift height).
    lift = float(trial.row["lift_height"])
    assert lift == pytest.approx(0.02, abs=1e-3)
    assert window.timeline.series.height_mm[-1] == pytest.approx(lift * 1e3, abs=1e-6)
    obj_actor = window.viewport.object.actor
    lowest = (obj_actor.user_matrix @ np.c_[window.doc.obj.vertices, np.ones(8)].T)[2].min()
    assert lowest == pytest.approx(lift, abs=1e-4)
    pads = window.viewport.gripper.points
    centre = 0.5 * (pads[0].mean(axis=0) + pads[1].mean(axis=0))
    # The pads hold the cube where the grasp is, lifted with it (frames moved onto this pose).
    np.testing.assert_allclose(centre[:2], window.doc.grasp.center[:2], atol=2e-3)

    # Re-simulate: the same (nominal) trial runs live with the current parameters, on this
    # resting pose, and ends as the batch's trial did.
    dock.resimulate_button.click()
    assert window.sim.is_running()
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=300_000)
    rec = window.doc.run.trials[0]
    assert rec.status == "done" and rec.result.success
    assert rec.result.lift_height_m == pytest.approx(lift, abs=2e-4)
    assert rec.result.grip_force_n == pytest.approx(float(trial.row["grip_force"]), rel=0.02)
    assert len(rec.frames) == pytest.approx(trial.frames, abs=3)
    window.doc.dirty = False

    # Another file opens with all its grasps listed and its first one shown: the
    # false-positive filter was chosen for the results, not for the next file.
    assert window.datasets.open_path(batch_with_frames.parent / "reach_two.json")
    assert dock.show_combo.currentData() == "all" and dock.proxy.rowCount() == 2
    assert window.model.dataset_index == dock.visible_grasps()[0]
