"""File > Open reads, repairs and rests the object in the reading worker process, with the
window live and a Cancel (issue 42: "the app never runs such a step on its GUI thread")."""

from __future__ import annotations

import os

import numpy as np
import trimesh
from PySide6.QtCore import QTimer


def _forbid_reading_here(monkeypatch) -> None:
    """Make every mesh read and stable-pose search in the GUI process fail loudly."""
    import app.model.dataset as dataset_model
    import app.model.document as document

    def here(*_args, **_kwargs):
        raise AssertionError("a file was read on the GUI thread")

    for module in (document, dataset_model):
        monkeypatch.setattr(module, "object_from_spec", here)
        monkeypatch.setattr(module, "stable_poses", here)
        monkeypatch.setattr(module, "pose_choices", here)  # the pose list: seconds on a scan


def test_a_mesh_opens_from_the_worker_with_the_window_live(window, monkeypatch, tmp_path):
    path = tmp_path / "box.obj"
    trimesh.creation.box(extents=(0.05, 0.03, 0.02)).export(path)
    _forbid_reading_here(monkeypatch)
    ticks: list[int] = []
    timer = QTimer()
    timer.setInterval(0)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start()
    try:
        assert window.opening.open_path(path), window.ui.errors
    finally:
        timer.stop()
    # The answer reaches the GUI only through its event loop, which served the timer meanwhile
    # (an open on the GUI thread runs no timer until it returns).
    assert ticks
    d = window.doc
    assert d.display_name == "box" and len(d.poses) == 6
    np.testing.assert_allclose(sorted(np.ptp(d.mesh.vertices, axis=0)), [0.02, 0.03, 0.05])


def test_a_cancelled_open_keeps_the_object_and_stops_the_worker(window, qtbot, tmp_path):
    path = tmp_path / "ball.obj"
    trimesh.creation.icosphere(subdivisions=3, radius=0.02).export(path)
    before = window.doc
    reader = window.reader
    reader.start()
    pid = reader.worker_pid
    assert pid is not None
    reader.started.connect(reader.cancel)  # the user presses Cancel as the read starts
    try:
        assert not window.opening.open_path(path)
    finally:
        reader.started.disconnect(reader.cancel)
    assert window.doc is before and "cancelled" in window.status_label.text()
    assert not window.ui.errors
    qtbot.waitUntil(lambda: not _alive(pid), timeout=10_000)  # the read in progress is dropped
    assert window.opening.open_path(path)  # a fresh worker reads the next file
    assert window.doc.display_name == "ball" and reader.worker_pid not in (None, pid)


def test_a_data_set_opens_from_the_worker(window, monkeypatch, tmp_path):
    box = tmp_path / "box.obj"
    trimesh.creation.box(extents=(0.05, 0.03, 0.02)).export(box)
    table = tmp_path / "grasps.csv"
    table.write_text(
        "object,center_x,center_y,center_z,axis_x,axis_y,axis_z\n"
        f"{box},0,0,0.01,0,1,0\n{box},0.01,0,0.01,0,1,0\n"
    )
    _forbid_reading_here(monkeypatch)
    assert window.datasets.open_path(table), window.ui.errors
    ds = window.model.dataset
    assert len(ds.grasps) == 2 and not any(g.error for g in ds.grasps)
    # Its first grasp is shown on the data set's object, rested in the poses read with it.
    assert window.model.dataset_object() is not None
    assert window.doc.poses is window.model.dataset_object().poses


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie until its parent reaps it: dead for this test
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_the_window_takes_the_keys_again_after_the_reading_dialog(
    window, qtbot, monkeypatch, tmp_path
):
    """A read long enough to show the progress dialog (here at once) gives the keyboard back to
    the window when it closes: F5 right after opening simulates (the closed dialog had left no
    window active, so the window's shortcuts did nothing until a click)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    import app.reading_client as reading_client

    monkeypatch.setattr(reading_client, "SHOW_AFTER_MS", 0)
    path = tmp_path / "box.obj"
    trimesh.creation.box(extents=(0.04, 0.03, 0.02)).export(path)
    assert window.opening.open_path(path)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5_000)
    qtbot.waitUntil(lambda: window.model.grasp_valid is not None, timeout=60_000)
    window.doc.dirty = False
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert window.sim.is_running() or window.ui.errors
    window.runs.cancel_simulation()
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=30_000)
    window.doc.dirty = False
