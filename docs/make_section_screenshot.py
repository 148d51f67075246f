"""docs/section_view.png: the section through the grasp plane (View > Section through the grasp,
Ctrl+4) on the example cube's default grasp, simulated to the end and shown at the middle of
its hold: both pads' cross-sections pressing the cube's, outlined in blue.

    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1600x1000x24" \
        .venv/bin/python docs/make_section_screenshot.py [out.png]
"""

from __future__ import annotations

import sys

from screenshot_window import ROOT, grab, open_window, run_to_end, shut


def main(out: str) -> None:
    app, w = open_window(1400, 900)
    try:
        run_to_end(app, w)
        w.model.select_trial(0)
        frames = w.doc.run.trials[0].frames
        hold = [i for i, f in enumerate(frames) if f.phase == "hold"] or [len(frames) - 1]
        w.timeline.seek(hold[len(hold) // 2])
        w.menus.section_action.setChecked(True)
        grab(app, w, out)
    finally:
        shut(w)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "docs" / "section_view.png"))
