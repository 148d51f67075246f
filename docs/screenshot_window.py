"""What the docs/make_*screenshot.py scripts share: the real main window opened under Xvfb with
fresh settings (no view choice or recent file of the user's own sessions changes a picture),
waited on until its workers are up, runs simulated to the end, and the window grabbed once its
view has settled.

    from screenshot_window import ROOT, grab, open_window, run_to_end, shut

The two comparison pictures start alike: `compared_runs` makes them.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def open_window(width: int, height: int, example: bool = True) -> tuple[Any, Any]:
    """(QApplication, MainWindow) of `width` x `height`, shown, its simulation worker ready;
    with `example`, the built-in cube open and its default grasp checked."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from app.main_window import MainWindow
    from app.smoke_test import wait_until

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("ipcgrasp")
    # app.settings' QSettings(organization, application) is NativeFormat (an INI file on Linux).
    QSettings.setPath(
        QSettings.Format.NativeFormat,
        QSettings.Scope.UserScope,
        tempfile.mkdtemp(prefix="ipcgrasp-docs-settings-"),
    )
    w = MainWindow(n_workers=1)
    w.ui.quiet = True
    w.resize(width, height)
    w.show()
    if example:
        w.opening.load_example()
        wait_until(
            app, lambda: w.sim.ready_count > 0 and w.model.grasp_valid is not None, 300, "workers"
        )
    else:
        wait_until(app, lambda: w.sim.ready_count > 0, 300, "workers")
    return app, w


def run_to_end(app: Any, w: Any, what: str = "the run") -> None:
    """Simulate (the current grasp and parameters) and wait for every trial to end."""
    from app.smoke_test import wait_until

    w.doc.dirty = False
    w.runs.start_simulation()
    wait_until(app, lambda: not w.sim.is_running(), 600, what)


def compared_runs(width: int, height: int) -> tuple[Any, Any, list[Any]]:
    """(QApplication, MainWindow, frames of the shown trial) after the example cube's default
    grasp was simulated with E = 1e8 Pa, pinned (Simulation > Pin trial for comparison), and
    simulated again with E = 1e7 Pa, that second run's trial 0 shown with the plots tab."""
    app, w = open_window(width, height)
    run_to_end(app, w, "the first run")
    w.compare.pin()
    w.editing.edit_param("youngs_modulus_pa", 1e7)
    run_to_end(app, w, "the second run")
    w.bottom_tabs.setCurrentIndex(0)
    w.model.select_trial(0)
    return app, w, w.doc.run.trials[0].frames


def grab(app: Any, w: Any, out: str | Path, settle_s: float = 1.5) -> None:
    """Let the window settle for `settle_s` (the display clock draws, anti-aliasing comes
    back), render the view once more and save the whole window as `out`."""
    end = time.perf_counter() + settle_s
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.01)
    w.viewport.render_now()
    app.processEvents()
    w.grab().save(str(out))


def shut(w: Any) -> None:
    """Close the window without asking about its results."""
    if w.doc is not None:
        w.doc.dirty = False
    w.shutdown()
