"""Regenerate docs/compare.png: two runs of the example cube compared, E = 1e8 Pa pinned and
E = 1e7 Pa shown.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python docs/make_compare_screenshot.py

Simulates the default grasp's nominal trial, pins it (Simulation > Pin trial for comparison),
sets E to 1e7 Pa, simulates again and shows a frame during the lift: the pinned trial's curves
are dashed in the plots, its pads and cube outlined in purple in the view, and the line above the runs
table names what differs.
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

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "compare.png"
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("ipcgrasp")
    w = MainWindow(n_workers=1)
    w.ui.quiet = True
    w.resize(1600, 980)
    w.show()
    w.opening.load_example()
    wait_until(
        app, lambda: w.sim.ready_count > 0 and w.model.grasp_valid is not None, 300, "workers"
    )
    w.runs.start_simulation()
    wait_until(app, lambda: not w.sim.is_running(), 600, "the first run")
    w.compare.pin()
    w.editing.edit_param("youngs_modulus_pa", 1e7)
    w.doc.dirty = False
    w.runs.start_simulation()
    wait_until(app, lambda: not w.sim.is_running(), 600, "the second run")
    w.bottom_tabs.setCurrentIndex(0)
    w.model.select_trial(0)
    frames = w.doc.run.trials[0].frames
    lift = next(i for i, f in enumerate(frames) if f.phase == "lift")
    w.timeline.seek(lift + (len(frames) - lift) // 2)
    p = w.viewport.plotter
    p.camera_position = [(0.13, -0.2, 0.12), (0.0, 0.0, 0.03), (0.0, 0.0, 1.0)]
    end = time.perf_counter() + 1.5
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.01)
    w.viewport.render_now()
    app.processEvents()
    w.grab().save(str(out))
    print(f"saved {out}: {w.compare_label.text()}")
    w.doc.dirty = False
    w.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
