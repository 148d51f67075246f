"""Regenerate docs/screenshot.png: the app with a finished simulation of the example cube.

    xvfb-run -a -s "-screen 0 1440x960x24" .venv/bin/python docs/make_screenshot.py

Runs 3 perturbed trials of the default grasp, selects trial 0 at a frame during the lift,
colours the pads by strain energy density and grabs the whole window.
"""

from __future__ import annotations

import sys
from pathlib import Path

from screenshot_window import ROOT, grab, open_window, run_to_end, shut


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshot.png"
    app, w = open_window(1440, 920)
    w.editing.edit_param("n_trials", 3)
    run_to_end(app, w)
    w.bottom_tabs.setCurrentIndex(0)
    w.model.select_trial(0)
    frames = w.doc.run.trials[0].frames
    lift = next(i for i, f in enumerate(frames) if f.phase == "lift")
    w.timeline.seek(lift + (len(frames) - lift) // 2)
    p = w.viewport.plotter
    p.camera_position = [(0.16, -0.4, 0.21), (0.0, 0.0, 0.03), (0.0, 0.0, 1.0)]
    grab(app, w, out)
    print(f"saved {out}")
    shut(w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
