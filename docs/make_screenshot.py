"""Regenerate docs/screenshot.png: the app with a finished simulation of the example cube.

    xvfb-run -a -s "-screen 0 1440x960x24" .venv/bin/python docs/make_screenshot.py

Runs 3 perturbed trials of the default grasp, selects trial 0 at a frame during the lift,
colours the pads by strain energy density and grabs the whole window.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    from PySide6.QtWidgets import QApplication

    from app.main_window import MainWindow
    from app.smoke_test import wait_until

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshot.png"
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("ipcgrasp")
    w = MainWindow(n_workers=1)
    w.ui.quiet = True
    w.resize(1440, 920)
    w.show()
    w.opening.load_example()
    wait_until(
        app, lambda: w.sim.ready_count > 0 and w.model.grasp_valid is not None, 300, "workers"
    )
    w.editing.edit_param("n_trials", 3)
    w.runs.start_simulation()
    wait_until(app, lambda: not w.sim.is_running(), 600, "the run")
    w.bottom_tabs.setCurrentIndex(0)
    w.model.select_trial(0)
    frames = w.doc.run.trials[0].frames
    lift = next(i for i, f in enumerate(frames) if f.phase == "lift")
    w.timeline.seek(lift + (len(frames) - lift) // 2)
    p = w.viewport.plotter
    p.camera_position = [(0.16, -0.4, 0.21), (0.0, 0.0, 0.03), (0.0, 0.0, 1.0)]
    end = time.perf_counter() + 1.5
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.01)
    w.viewport.render_now()
    app.processEvents()
    w.grab().save(str(out))
    print(f"saved {out}")
    w.doc.dirty = False
    w.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
