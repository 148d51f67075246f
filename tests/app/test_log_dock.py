"""View > Log: the app's log records (and the workers', see test_workers.py) in a dock and a file."""

from __future__ import annotations

import logging


def test_log_dock_shows_the_app_log_and_names_the_file(window, qtbot):
    view = window.log_view
    window.log_dock.show()
    try:
        logging.getLogger("app.test").warning("a line for the log dock")
        qtbot.waitUntil(lambda: "a line for the log dock" in view.text.toPlainText(), timeout=5_000)
        assert "opened example cube" in view.text.toPlainText()  # status lines are logged
        path = window.log_hub.file_path
        assert path is not None and str(path) in view.file_label.text()
        for h in logging.getLogger().handlers:
            h.flush()
        assert "a line for the log dock" in path.read_text(encoding="utf-8")
    finally:
        window.log_dock.hide()
    assert window.log_dock.toggleViewAction() in window.menuBar().actions()[3].menu().actions()
