"""Regenerate docs/compare_side_by_side.png: two runs of the example cube side by side,
E = 1e8 Pa pinned (right) and E = 1e7 Pa shown (left), at the same time of the squeeze.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python \\
        docs/make_compare_side_by_side_screenshot.py

Simulates the default grasp's nominal trial, pins it (Simulation > Pin trial for comparison),
sets E to 1e7 Pa, simulates again, turns on View > Compare side by side and shows a frame
during the squeeze: each half of the view titled with its run and its E, one camera for both.
"""

from __future__ import annotations

import sys
from pathlib import Path

from screenshot_window import ROOT, compared_runs, grab, shut


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "compare_side_by_side.png"
    app, w, frames = compared_runs(1600, 980)
    w.menus.side_by_side_action.trigger()
    top = max(min(f.grip_force_n) for f in frames)
    squeeze = next(i for i, f in enumerate(frames) if min(f.grip_force_n) >= 0.9 * top)
    w.timeline.seek(squeeze)
    w.viewport.plotter.camera_position = [(0.11, -0.27, 0.15), (0.0, 0.0, 0.02), (0, 0, 1)]
    grab(app, w, out)
    print(f"saved {out}: frame {squeeze}; {' | '.join(w.viewport.side_by_side.titles)}")
    shut(w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
