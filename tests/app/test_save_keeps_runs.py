"""Issue 39 point 8: Ctrl+S never drops a run saved on purpose. A session holds one run, so
Ctrl+S on a session file whose run is not the one shown asks: save as a new file (the
default), replace the earlier run, or cancel."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from engine.io.session import load_session

sb = QMessageBox.StandardButton


def _run(window, qtbot, frames: int) -> None:
    assert window.runs.start_simulation(max_frames=frames)
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=120_000)


def _ctrl_s(window, qtbot) -> None:
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)


@pytest.fixture
def saved_from_the_prompt(window, qtbot, dialogs, tmp_path, monkeypatch):
    """Run 1 (2 frames) saved from the "save before replacing?" prompt of run 2 (3 frames)."""
    chosen: list[str] = []
    answers = [str(tmp_path / "study.ipcgrasp.json")]

    def save_dialog(parent, title, directory, filt):
        chosen.append(directory)
        return (answers.pop(0), filt) if answers else ("", "")

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_dialog)
    _run(window, qtbot, 2)
    dialogs.answers = [sb.Save]  # "Unsaved results": Save (a file dialog: never saved yet)
    _run(window, qtbot, 3)
    assert dialogs.kinds() == ["ask"]
    assert len(load_session(tmp_path / "study").trials[0].frames) == 2
    assert len(window.doc.run.trials[0].frames) == 3  # the new run, not saved
    dialogs.calls.clear()
    return chosen, answers


def test_ctrl_s_saves_the_new_run_as_a_new_file_by_default(
    saved_from_the_prompt, window, qtbot, dialogs, tmp_path
):
    chosen, answers = saved_from_the_prompt
    answers.append(str(tmp_path / "study_2.ipcgrasp.json"))
    dialogs.answers = [sb.Save]  # "Save as new file…", the default button
    _ctrl_s(window, qtbot)
    assert dialogs.kinds() == ["ask"]
    title, text = dialogs.calls[0][1:]
    assert title == "Replace the saved run?" and "study.ipcgrasp.json" in text
    assert "earlier run (1 trial)" in text
    assert chosen[-1] == str(tmp_path / "study_2.ipcgrasp.json")  # a name no file uses
    assert len(load_session(tmp_path / "study").trials[0].frames) == 2  # kept
    assert len(load_session(tmp_path / "study_2").trials[0].frames) == 3
    assert window.doc.path == tmp_path / "study_2.ipcgrasp.json" and not window.doc.dirty
    # The new file holds the run shown: Ctrl+S again saves there without asking.
    dialogs.calls.clear()
    _ctrl_s(window, qtbot)
    assert dialogs.calls == []


def test_ctrl_s_replaces_the_earlier_run_only_when_told(
    saved_from_the_prompt, window, qtbot, dialogs, tmp_path
):
    dialogs.answers = [sb.Cancel]
    _ctrl_s(window, qtbot)
    assert dialogs.kinds() == ["ask"]
    assert len(load_session(tmp_path / "study").trials[0].frames) == 2  # cancelled: kept
    assert "not saved" in window.status_label.text()
    assert window.doc.dirty
    dialogs.answers = [sb.Yes]  # "Replace the earlier run"
    _ctrl_s(window, qtbot)
    assert len(load_session(tmp_path / "study").trials[0].frames) == 3
    assert not window.doc.dirty
    assert sorted(p.name for p in tmp_path.glob("*.json")) == ["study.ipcgrasp.json"]
