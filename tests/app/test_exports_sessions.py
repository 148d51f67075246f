"""Exports (MP4, GIF, CSV, VTK, screenshot) and sessions, from the real window."""

from __future__ import annotations

import csv
import json
import re
import subprocess

import imageio.v3 as iio
import numpy as np
import pytest


def _read_mp4(path) -> np.ndarray:
    """Decode every frame with imageio-ffmpeg's bundled ffmpeg binary."""
    import imageio_ffmpeg

    exe = imageio_ffmpeg.get_ffmpeg_exe()
    cmd = [exe, "-v", "info", "-i", str(path), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
    out = subprocess.run(cmd, capture_output=True, check=True, timeout=120)
    video = next(line for line in out.stderr.decode().splitlines() if "Video:" in line)
    w, h = (int(v) for v in re.search(r" (\d{2,5})x(\d{2,5})", video).groups())
    return np.frombuffer(out.stdout, np.uint8).reshape(-1, h, w, 3)


@pytest.fixture
def short_run(window, qtbot):
    window.editing.edit_param("n_trials", 2)
    assert window.runs.start_simulation(max_frames=8)
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=120_000)
    window.model.select_trial(0)
    return window


@pytest.mark.parametrize("suffix", [".mp4", ".gif"])
def test_export_video_reads_back_with_every_frame(short_run, qtbot, tmp_path, suffix):
    w = short_run
    path = tmp_path / f"trial0{suffix}"
    assert w.exports.export_video(path, fps=10)
    qtbot.waitUntil(lambda: w.exports.video is None, timeout=180_000)
    assert w.exports.last_export["error"] == "", w.exports.last_export
    frames = _read_mp4(path) if suffix == ".mp4" else np.stack(list(iio.imiter(path)))
    assert len(frames) == len(w.doc.run.trials[0].frames) == 8
    assert frames.shape[1] % 2 == 0 and frames.shape[2] % 2 == 0
    assert frames[0].std() > 5  # not a blank frame


def test_a_cancelled_export_leaves_the_existing_video_untouched(short_run, qtbot, tmp_path):
    """The video is rendered into a hidden partial file and renamed over the target only when
    complete: cancelling keeps the user's previous file byte for byte and leaves no partial."""
    w = short_run
    path = tmp_path / "trial0.mp4"
    path.write_bytes(b"the previous export")
    assert w.exports.export_video(path, fps=10)
    assert path.read_bytes() == b"the previous export"  # not truncated when the export starts
    w.exports.video["client"].cancel()
    qtbot.waitUntil(lambda: w.exports.video is None, timeout=180_000)
    assert w.exports.last_export["error"] in ("cancelled", ""), w.exports.last_export
    if w.exports.last_export["error"] == "cancelled":
        assert path.read_bytes() == b"the previous export"
    assert [q.name for q in tmp_path.iterdir()] == ["trial0.mp4"]  # no partial file left


def test_export_video_to_an_unwritable_path_is_an_error(short_run, dialogs):
    assert not short_run.exports.export_video("/proc/forbidden/x.mp4")
    assert dialogs.kinds() == ["critical"]


def test_export_csv_one_row_per_trial(short_run, qtbot, tmp_path):
    w = short_run
    # The row holds the predictions the panel shows and the force they were computed with:
    # wait for those of this run's grasp (the shared window may still show another test's).
    qtbot.waitUntil(
        lambda: w.predictions.force_n == pytest.approx(w.model.closing_force_n), timeout=60_000
    )
    path = tmp_path / "out" / "results.csv"
    assert w.exports.export_csv(path)
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2
    cols = rows[0].keys()
    for c in ("ipcgrasp_version", "object", "grasp_center_x", "grasp_axis_z", "approach_angle", "seed",
              "param_youngs_modulus_pa", "param_mu", "param_psi_th_j", "status", "success", "reason",
              "psi1", "psi2", "grip_force", "wall_time_s", "perturbation_dx", "analytic_exact_success",
              "analytic_soft_point_margin"):  # fmt: skip
        assert c in cols
    assert rows[0]["object"] == "builtin:cube"
    assert float(rows[0]["param_youngs_modulus_pa"]) == pytest.approx(1e8)
    assert rows[0]["status"] == "done" and rows[1]["trial"] == "1"
    # Issue 15: the row reproduces the run: the file's unit and scale, the analytic force.
    assert rows[0]["object_unit"] == "m" and float(rows[0]["object_scale_m"]) == 1.0
    assert float(rows[0]["analytic_force_n"]) == pytest.approx(w.predictions.force_n)
    assert float(rows[0]["analytic_force_n"]) == pytest.approx(w.model.closing_force_n)
    assert "grip_min_lift_hold_n" in cols


def test_export_vtk_series_and_screenshot(short_run, tmp_path):
    import pyvista as pv

    w = short_run
    from engine.io.trial_exports import trial_exports

    vtk = next(f for f in trial_exports() if f.name == "vtk")
    pvd = w.exports.export_trial(vtk, tmp_path / "series.pvd")
    reader = pv.get_reader(str(pvd))
    assert len(reader.time_values) == 8
    reader.set_active_time_value(reader.time_values[-1])
    mesh = reader.read()[0]
    assert "energy_density" in mesh.point_data and mesh.n_cells > 12
    png = tmp_path / "shot.png"
    assert w.exports.save_screenshot(png)
    img = iio.imread(png)
    assert img.shape[0] > 100 and img.std() > 5


def test_save_and_reopen_a_session(short_run, qtbot, tmp_path):
    w = short_run
    run = w.doc.run
    assert w.sessions.save_session(tmp_path / "study")
    assert w.sessions.save_session(tmp_path / "study")  # saved over: the arrays' other name
    json_path = tmp_path / "study.ipcgrasp.json"
    doc = json.loads(json_path.read_text())
    assert doc["frames_file"] == "study.ipcgrasp.2.npz"
    assert sorted(p.name for p in tmp_path.glob("study.*")) == [
        "study.ipcgrasp.2.npz", "study.ipcgrasp.json"
    ]  # fmt: skip
    assert doc["format"] == "ipcgrasp-session" and doc["object"]["source"] == "builtin:cube"
    assert not w.doc.dirty
    frames = {k: len(r.frames) for k, r in run.trials.items()}
    grasp = w.doc.grasp
    w.opening.load_example()
    assert w.doc.run is None
    # Issue 15: the reopened session shows the frame its timeline shows (the last one), not the
    # open gripper, also once the grasp check has come back.
    with qtbot.waitSignal(
        w.scene.frame_displayed, timeout=10_000, check_params_cb=lambda t, i: i == 7
    ):
        assert w.opening.open_path(tmp_path / "study.ipcgrasp.2.npz")  # either file opens it
    assert w.timeline.index == 7 and w.model.mode == "play"
    qtbot.waitUntil(lambda: w.model.grasp_valid is not None, timeout=60_000)
    assert w.model.mode == "play" and w.scene._shown[2] == 7
    d = w.doc
    assert {k: len(r.frames) for k, r in d.run.trials.items()} == frames
    assert [r.status for r in d.run.trials.values()] == ["done", "done"]
    np.testing.assert_allclose(d.grasp.pose(), grasp.pose())
    assert d.spec.n_trials == 2
    assert w.runs_table.rowCount() == 2
    assert len(w.timeline.series) == 8
    with qtbot.waitSignal(w.scene.frame_displayed, timeout=5_000):
        w.timeline.seek(3)


def test_save_dialogs_propose_a_file_name_next_to_the_mesh(window, qtbot, tmp_path, monkeypatch):
    """Issue 15: Ctrl+P and Save session as propose "<object>_view.png" and
    "<object>.ipcgrasp.json" in the mesh's folder instead of an empty name."""
    import trimesh
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QFileDialog

    path = tmp_path / "box.stl"
    trimesh.creation.box(extents=[0.03, 0.02, 0.04]).export(path)
    assert window.opening.open_path(path)
    proposed: list[str] = []

    def fake(parent, title, directory, filt):
        proposed.append(directory)
        return "", ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", fake)
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)
    window.menus.save_as_action.trigger()
    window.menus.export_csv_action.trigger()
    assert proposed == [
        str(tmp_path / "box_view.png"),
        str(tmp_path / "box.ipcgrasp.json"),
        str(tmp_path / "box_results.csv"),
    ]


def _gray(img: np.ndarray) -> np.ndarray:
    return np.asarray(img[..., :3], dtype=float).mean(axis=2)


def test_an_exported_video_frame_frames_the_scene_as_the_view(short_run, qtbot, tmp_path):
    """Issue 15: the MP4 showed the object much smaller than the view, without the grid and
    the colour bar. A frame of the video and a screenshot of the view at that frame agree."""
    w = short_run
    last = len(w.doc.run.trials[0].frames) - 1
    with qtbot.waitSignal(
        w.scene.frame_displayed, timeout=10_000, check_params_cb=lambda t, i: i == 0
    ):
        w.timeline.seek(0)
    with qtbot.waitSignal(
        w.scene.frame_displayed, timeout=10_000, check_params_cb=lambda t, i: i == last
    ):
        w.timeline.seek(last)
    shot = _gray(w.viewport.screenshot())
    path = tmp_path / "trial0.mp4"
    assert w.exports.export_video(path, fps=10)
    qtbot.waitUntil(lambda: w.exports.video is None, timeout=180_000)
    assert w.exports.last_export["error"] == "", w.exports.last_export
    frame = _gray(_read_mp4(path)[last])
    h, wd = frame.shape
    view = shot[:h, :wd]  # the video is the view cropped to whole 16-pixel blocks
    # Compare where the scene differs from the flat background: the ground, grid, object
    # and gripper; the corner widgets (axes, labels) are left out.
    rows, cols = slice(h // 8, h - h // 8), slice(wd // 6, wd - wd // 6)
    a, b = view[rows, cols], frame[rows, cols]
    corr = np.corrcoef(a.ravel(), b.ravel())[0, 1]
    assert corr > 0.9, corr


def test_video_export_asks_size_and_frame_rate(short_run, qtbot, tmp_path, monkeypatch):
    """Issue 15: File > Export video asks the width (the height keeps the view's framing) and
    the frame rate; answered here with real keys."""
    import imageio_ffmpeg
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QFileDialog, QSpinBox

    w = short_run
    path = tmp_path / "small.mp4"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a: (str(path), ""))

    def answer() -> None:
        dialog = w.ui.video_dialog
        if dialog is None or not dialog.isVisible():
            QTimer.singleShot(20, answer)
            return
        width_box, fps_box = dialog.findChildren(QSpinBox)
        width_box.lineEdit().selectAll()
        QTest.keyClicks(width_box, "640")
        QTest.keyClick(width_box, Qt.Key.Key_Tab)
        fps_box.lineEdit().selectAll()
        QTest.keyClicks(fps_box, "15")
        QTest.keyClick(fps_box, Qt.Key.Key_Return)

    QTimer.singleShot(0, answer)
    w.menus.export_video_action.trigger()
    qtbot.waitUntil(lambda: w.exports.video is None, timeout=180_000)
    assert w.exports.last_export["error"] == "", w.exports.last_export
    frames = _read_mp4(path)
    vw, vh = w.viewport.window_size()
    assert frames.shape[2] == 640
    assert frames.shape[1] == pytest.approx(640 * vh / vw, abs=16)
    probe = subprocess.run(
        [imageio_ffmpeg.get_ffmpeg_exe(), "-i", str(path)], capture_output=True, timeout=60
    ).stderr.decode()
    assert " 15 fps" in probe, probe
