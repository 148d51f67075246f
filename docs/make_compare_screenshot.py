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
from pathlib import Path

from screenshot_window import ROOT, compared_runs, grab, shut


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "compare.png"
    app, w, frames = compared_runs(1600, 980)
    lift = next(i for i, f in enumerate(frames) if f.phase == "lift")
    w.timeline.seek(lift + (len(frames) - lift) // 2)
    p = w.viewport.plotter
    p.camera_position = [(0.13, -0.2, 0.12), (0.0, 0.0, 0.03), (0.0, 0.0, 1.0)]
    grab(app, w, out)
    print(f"saved {out}: {w.compare_label.text()}")
    shut(w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
