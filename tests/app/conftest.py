"""pytest-qt fixtures that drive the real main window under an X server (Xvfb).

The GUI tests need a display: scripts/test runs them under its own Xvfb, and a plain `pytest`
gets one from pytest-xvfb. QT_QPA_PLATFORM=offscreen cannot host the VTK OpenGL widget.
One window (with its worker processes) is shared by the tests, reset before each one: spawning
workers per test would dominate the run time on a 2-core machine.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import GUI_FREE_APP_MODULES

pytest.importorskip("PySide6")
pytest.importorskip("pyvistaqt")


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        path = Path(item.fspath)
        if here in path.parents and path.name not in GUI_FREE_APP_MODULES:
            item.add_marker(pytest.mark.gui)


class DialogLog:
    """Replaces QMessageBox's static dialogs: records them and returns scripted answers."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str]] = []
        self.answers: list = []

    def install(self, monkeypatch) -> None:
        from PySide6.QtWidgets import QMessageBox

        def record(kind: str, default):
            def fn(parent, title, text, *args, **kwargs):
                self.calls.append((kind, title, text))
                return self.answers.pop(0) if self.answers else default

            return fn

        sb = QMessageBox.StandardButton
        monkeypatch.setattr(QMessageBox, "critical", record("critical", sb.Ok))
        monkeypatch.setattr(QMessageBox, "warning", record("warning", sb.Ok))
        monkeypatch.setattr(QMessageBox, "information", record("information", sb.Ok))
        monkeypatch.setattr(QMessageBox, "question", record("question", sb.No))

        def ask(feedback, box):
            """Feedback.ask: an answer may be (button, tick "don't ask again")."""
            self.calls.append(("ask", box.windowTitle(), box.text()))
            answer = self.answers.pop(0) if self.answers else sb.Discard
            if isinstance(answer, tuple):
                answer, tick = answer
                box.checkBox().setChecked(tick)
            return answer

        from app.ui import Feedback

        monkeypatch.setattr(Feedback, "ask", ask)

    def kinds(self) -> list[str]:
        return [c[0] for c in self.calls]


@pytest.fixture(scope="session")
def _settings_dir(tmp_path_factory):
    from PySide6.QtCore import QSettings, QStandardPaths

    QStandardPaths.setTestModeEnabled(True)  # the log file goes to a test location
    d = tmp_path_factory.mktemp("qsettings")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(d))
    # app.settings uses QSettings(organization, application), which is always NativeFormat:
    # without this the tests wrote the user's own ~/.config/ipcgrasp/ipcgrasp.conf.
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(d))
    return d


# Package scope: the window and its worker processes shut down after the last app test. Kept
# for the session, its analysis worker went on computing predictions (MuJoCo trials) during the
# engine tests, and its records, forwarded into this process's logging, landed in a CLI test's
# captured stderr (CI at 3188e87: test_analyze_errors_exit_2).
@pytest.fixture(scope="package")
def shared_window(qapp, _settings_dir):
    if not os.environ.get("DISPLAY"):
        pytest.skip("GUI tests need an X display: run scripts/test or install pytest-xvfb")
    from app.main_window import MainWindow

    w = MainWindow(n_workers=1)
    w.resize(1280, 860)
    w.show()
    yield w
    if w.doc is not None:
        w.doc.dirty = False
    w.shutdown()
    w.deleteLater()


@pytest.fixture
def dialogs(monkeypatch):
    log = DialogLog()
    log.install(monkeypatch)
    return log


@pytest.fixture
def window(shared_window, qtbot, dialogs):
    """The main window with the example cube, the default grasp checked, no run."""
    w = shared_window
    if w.sim.is_running():
        w.sim.cancel()
        qtbot.waitUntil(lambda: not w.sim.is_running(), timeout=30_000)
    if w.doc is not None:
        w.doc.dirty = False
    w.ui.errors.clear()
    # The window is shared by every test: leave no data set, comparison or dock of an earlier
    # test behind (a data-set dock narrows the 3D view, its glyphs take clicks).
    w.model.set_dataset(None)
    w.model.unpin()
    w.dataset_dock_widget.hide()
    if w.help_overlay is not None:
        w.help_overlay.hide()
    w.menus.color_combo.setCurrentIndex(1)
    w.menus.force_mode_actions["points"].setChecked(True)  # the default: per contact point
    w.menus.forces_action.setChecked(False)
    w.menus.side_by_side_action.setChecked(False)  # a pinned trial outlined (the default)
    assert w.opening.load_example()
    w.activateWindow()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.model.grasp_valid is not None, timeout=120_000)
    qtbot.waitUntil(lambda: w.sim.ready_count > 0, timeout=180_000)
    dialogs.calls.clear()
    yield w
    if w.sim.is_running():
        w.sim.cancel()
        qtbot.waitUntil(lambda: not w.sim.is_running(), timeout=30_000)
