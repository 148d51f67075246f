"""Simulate in worker processes: frames stream into the timeline, cancel, crash, playback."""

from __future__ import annotations

import os
import signal

import pytest
from PySide6.QtCore import Qt

import app.sim_pool
from tests.app.crashing_worker import crashing_worker


def _wait_done(qtbot, window, timeout=120_000):
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=timeout)


def test_simulate_streams_frames_and_the_scrubber_follows(window, qtbot):
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert window.sim.is_running()
    run = window.doc.run
    rec = run.trials[0]
    qtbot.waitUntil(lambda: len(rec.frames) >= 3, timeout=60_000)
    # The scrubber follows the live frame while the run streams.
    qtbot.waitUntil(lambda: window.timeline.slider.maximum() >= 2, timeout=10_000)
    assert window.timeline.slider.value() == window.timeline.slider.maximum()
    with qtbot.waitSignal(window.scene.frame_displayed, timeout=10_000):
        pass
    _wait_done(qtbot, window)
    assert rec.status == "done" and rec.result is not None
    assert rec.result.success, rec.result.reason  # the example grasp lifts the cube
    assert len(rec.frames) == rec.result.frames >= 20
    assert window.timeline.slider.maximum() == len(rec.frames) - 1
    assert window.runs_table.item(0, 2).text() == "success"
    assert len(window.plots.series) == len(rec.frames)
    assert [m[1] for m in window.timeline.series.markers()][-1] == "end"
    # Keyboard navigation of the timeline.
    window.viewport.plotter.setFocus()
    with qtbot.waitSignal(
        window.scene.frame_displayed, timeout=5_000, check_params_cb=lambda t, i: i == 0
    ):
        qtbot.keyClick(window, Qt.Key.Key_Home)
    assert window.timeline.index == 0
    qtbot.keyClick(window, Qt.Key.Key_Right)
    assert window.timeline.index == 1
    qtbot.keyClick(window, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    assert window.timeline.index == 11
    qtbot.keyClick(window, Qt.Key.Key_Left)
    assert window.timeline.index == 10
    qtbot.keyClick(window, Qt.Key.Key_End)
    assert window.timeline.index == len(rec.frames) - 1
    # Play from the start: the frame advances by itself.
    qtbot.keyClick(window, Qt.Key.Key_Home)
    window.timeline.speed_combo.setCurrentIndex(4)  # 1x
    qtbot.keyClick(window, Qt.Key.Key_Space)
    assert window.timeline.is_playing()
    qtbot.waitUntil(lambda: window.timeline.index >= 5, timeout=5_000)
    qtbot.keyClick(window, Qt.Key.Key_Space)
    assert not window.timeline.is_playing()
    # Colour modes redraw the frame.
    window.menus.color_combo.setCurrentIndex(2)
    with qtbot.waitSignal(window.scene.frame_displayed, timeout=5_000):
        pass
    assert window.viewport.gripper.pad_actors[0].mapper.scalar_visibility


def test_escape_cancels_the_run_and_keeps_the_frames(window, qtbot):
    window.editing.edit_param("n_trials", 3)
    assert window.runs.start_simulation()
    run = window.doc.run
    qtbot.waitUntil(lambda: len(run.trials[0].frames) >= 2, timeout=60_000)
    before = len(run.trials[0].frames)
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    # A hang guard, not a speed claim (benchmarks/ measures how fast a run stops).
    _wait_done(qtbot, window, timeout=120_000)
    # The run ended as cancelled: no trial finished, the frames computed so far are kept.
    statuses = [run.trials[k].status for k in sorted(run.trials)]
    assert statuses == ["cancelled"] * 3
    assert len(run.trials[0].frames) >= before >= 2
    assert [len(run.trials[k].frames) for k in (1, 2)] == [0, 0]  # one worker: never started
    assert run.trials[0].result.reason == "cancelled"
    assert window.menus.simulate_action.isEnabled() and not window.menus.cancel_action.isEnabled()


def test_several_trials_fill_the_runs_table(window, qtbot):
    window.editing.edit_param("n_trials", 2)
    assert window.runs.start_simulation(max_frames=4)
    _wait_done(qtbot, window)
    run = window.doc.run
    assert window.runs_table.rowCount() == 2
    assert [run.trials[k].status for k in (0, 1)] == ["done", "done"]
    assert run.trials[0].result.perturbation != run.trials[1].result.perturbation
    window.runs_table.selectRow(1)
    assert window.model.trial == 1
    assert len(window.timeline.series) == len(run.trials[1].frames) == 4


def test_a_crashed_worker_fails_its_trial_with_the_reason(window, qtbot, tmp_path, monkeypatch):
    # The pool's workers are replaced by ones whose body crashes once, after trial 0's
    # second frame (tests/app/crashing_worker.py; no product parameter carries the hook).
    product_body = app.sim_pool.worker_main
    monkeypatch.setattr(app.sim_pool, "worker_main", crashing_worker(tmp_path / "crash"))
    _replace_workers(qtbot, window)
    old_pids = set(window.sim.worker_pids)
    assert window.runs.start_simulation()
    _wait_done(qtbot, window, timeout=60_000)
    rec = window.doc.run.trials[0]
    assert rec.status == "failed"
    assert rec.result.reason == "worker crashed" and "exit code 3" in rec.result.error
    assert len(rec.frames) == 2  # the frames before the crash are kept
    assert "worker crashed" in window.runs_table.item(0, 3).text()
    # A replacement worker takes the next run.
    assert set(window.sim.worker_pids) != old_pids
    # (not monkeypatch.undo(): that would undo the dialogs fixture's answers too)
    monkeypatch.setattr(app.sim_pool, "worker_main", product_body)
    _replace_workers(qtbot, window)  # the next tests get the product's worker body
    assert window.runs.start_simulation(max_frames=2)
    _wait_done(qtbot, window)
    assert window.doc.run.trials[0].status == "done"


def _replace_workers(qtbot, window) -> None:
    """Kill the idle simulation workers; the pool replaces them (with app.sim_pool.worker_main
    as it is now) and they warm up."""
    old = set(window.sim.worker_pids)
    n = len(old)
    # Killed idle and warmed up: none is writing to the pool's shared outbox.
    qtbot.waitUntil(lambda: window.sim.ready_count == n, timeout=120_000)
    for pid in old:
        os.kill(pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: not old & set(window.sim.worker_pids), timeout=30_000)
    qtbot.waitUntil(lambda: window.sim.ready_count == n, timeout=120_000)


@pytest.mark.parametrize("answer", ["cancel", "discard"])
def test_closing_with_unsaved_results_asks(window, qtbot, dialogs, answer):
    from PySide6.QtWidgets import QMessageBox

    assert window.runs.start_simulation(max_frames=2)
    _wait_done(qtbot, window)
    assert window.doc.dirty
    sb = QMessageBox.StandardButton
    dialogs.answers = [sb.Cancel if answer == "cancel" else sb.Discard]
    assert window.sessions.confirm_discard("quit") is (answer == "discard")
    assert dialogs.kinds() == ["question"] and "not saved" in dialogs.calls[0][2]


def test_a_new_run_asks_before_replacing_unsaved_results(window, qtbot, dialogs, tmp_path):
    from PySide6.QtWidgets import QMessageBox

    from app import settings as app_settings
    from engine.io.session import load_session

    sb = QMessageBox.StandardButton
    assert window.runs.start_simulation(max_frames=2)
    _wait_done(qtbot, window)
    first = window.doc.run
    # Cancel: nothing starts, the results stay.
    dialogs.answers = [sb.Cancel]
    assert not window.runs.start_simulation(max_frames=2)
    assert dialogs.kinds() == ["ask"] and "not saved" in dialogs.calls[0][2]
    assert window.doc.run is first and len(first.trials[0].frames) == 2
    # Save: the session (already saved once, so no file dialog) gets the old run first.
    assert window.sessions.save_session(tmp_path / "study")
    assert window.runs.start_simulation(max_frames=3)  # results were saved: no question
    assert dialogs.kinds() == ["ask"]
    _wait_done(qtbot, window)
    # The file holds the first run, saved on purpose: saving asks before replacing it there
    # (issue 39 point 8, tests/app/test_save_keeps_runs.py); "Replace the earlier run".
    dialogs.answers = [sb.Save, sb.Yes]
    assert window.runs.start_simulation(max_frames=2)
    _wait_done(qtbot, window)
    assert dialogs.kinds() == ["ask", "ask", "ask"]
    saved = load_session(tmp_path / "study")
    assert len(saved.trials[0].frames) == 3  # the run the new one replaced
    # "Don't ask again" is remembered.
    dialogs.calls.clear()
    dialogs.answers = [(sb.Discard, True)]
    try:
        assert window.runs.start_simulation(max_frames=2)
        _wait_done(qtbot, window)
        assert not app_settings.ask_before_replacing_results()
        assert not window.menus.ask_replace_action.isChecked()  # Simulation menu shows it
        assert window.runs.start_simulation(max_frames=2)
        _wait_done(qtbot, window)
        assert dialogs.kinds() == ["ask"]  # only the first time
    finally:
        window.menus.ask_replace_action.setChecked(True)
    assert app_settings.ask_before_replacing_results()


def test_closing_with_running_trials_asks(window, qtbot, dialogs):
    assert window.runs.start_simulation()
    dialogs.answers = []  # default answer: No
    assert not window.sessions.confirm_discard("quit")
    assert "running" in dialogs.calls[0][2]
    assert window.sim.is_running()


def test_cancelled_trials_are_left_out_of_r(window, qtbot, tmp_path):
    """Issue 15: Esc during a 3-trial run once trial 0 has finished: the other two are
    "cancelled", not failures, in the status line, the runs table, the CSV and the session."""
    import csv

    window.editing.edit_param("n_trials", 3)
    assert window.runs.start_simulation()
    run = window.doc.run
    qtbot.waitUntil(lambda: run.trials[0].status == "done", timeout=240_000)
    qtbot.waitUntil(lambda: run.trials[1].status == "running", timeout=60_000)
    statuses: list[str] = []
    status = window.ui.status
    window.ui.status = lambda text, log_it=True: (statuses.append(text), status(text, log_it))
    try:
        qtbot.keyClick(window, Qt.Key.Key_Escape)
        _wait_done(qtbot, window, timeout=30_000)
    finally:
        window.ui.status = status
    assert [run.trials[k].status for k in range(3)] == ["done", "cancelled", "cancelled"]
    ok = int(run.trials[0].result.success)
    summary = statuses[-1]
    assert f"run cancelled: {ok} of 1 finished trials lifted (2 cancelled), R = {ok:.2f}" in (
        summary
    ), summary
    table = window.runs_table
    assert [table.item(k, 1).text() for k in range(3)] == ["done", "cancelled", "cancelled"]
    assert table.item(0, 2).text() in ("success", "fail")
    assert table.item(1, 2).text() == "" and "not counted" in table.item(1, 3).text()
    # The CSV: cancelled rows have no outcome.
    assert window.exports.export_csv(tmp_path / "r.csv")
    with open(tmp_path / "r.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["status"] for r in rows] == ["done", "cancelled", "cancelled"]
    assert rows[0]["success"] in ("True", "False") and rows[1]["success"] == ""
    # The grip that decided the outcome: the lowest during the lift and hold.
    lift_hold = [min(f.grip_force_n) for f in run.trials[0].frames if f.phase in ("lift", "hold")]
    assert float(rows[0]["grip_min_lift_hold_n"]) == pytest.approx(min(lift_hold))
    assert table.horizontalHeaderItem(7).text() == "lift grip (N)"
    assert table.item(0, 7).text() == f"{min(lift_hold):.3f}"
    # The session keeps the statuses and the reopened window counts the same way.
    assert window.sessions.save_session(tmp_path / "cancelled")
    assert window.opening.open_path(tmp_path / "cancelled.ipcgrasp.json")
    reopened = window.doc.run
    assert [reopened.trials[k].status for k in range(3)] == ["done", "cancelled", "cancelled"]
    assert f"{ok} of 1 finished trials lifted (2 cancelled)" in window.status_label.text()


def test_timeline_keys_while_a_number_field_has_the_focus(window, qtbot):
    """Issue 15: with a spin box focused, Space still plays and pauses; the arrows, Home and
    End edit the field and the status line says how to step the timeline instead."""
    assert window.runs.start_simulation(max_frames=6)
    _wait_done(qtbot, window)
    window.model.select_trial(0)
    qtbot.waitUntil(lambda: len(window.timeline.series) == 6, timeout=10_000)
    window.scene.seek(0)
    box = window.param_dock.mu_spin
    window.activateWindow()
    box.setFocus()
    qtbot.waitUntil(box.hasFocus, timeout=5_000)
    assert not window.timeline.is_playing()
    qtbot.keyClick(box, Qt.Key.Key_Space)
    assert window.timeline.is_playing()
    qtbot.keyClick(box, Qt.Key.Key_Space)
    assert not window.timeline.is_playing()
    index = window.timeline.index
    qtbot.keyClick(box, Qt.Key.Key_End)
    assert window.timeline.index == index  # the field's End, not the timeline's
    assert "edit the focused field" in window.status_label.text()
