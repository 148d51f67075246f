"""Regenerate docs/browser.png: the data-set browser on the REACH cube's batch results.

    .venv/bin/ipcgrasp batch ../shared/data/reach_cube/reach_cube_3cm.json \\
        --out out/reach_cube/results.csv --frames out/reach_cube/results_frames \\
        --models ipc,soft_point,reach,6dfc,exact --trials 5 --samples 20 --seed 0 \\
        --E 1e8 --mu 0.4 --squeeze-force 20 --auto-open 0.02 --analytic-mu 0.3
    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python docs/make_browser_screenshot.py \\
        [out/reach_cube/results.csv] [docs/browser.png]

Opens the results as a data set (the physical outcomes come from the batch's REACH JSON, the
frames from the folder beside the results), shows the grasps IPC lifts that mostly fail on the
robot (its false positives), chooses the first one and replays its first trial that lifts the
cube, during the lift.
"""

from __future__ import annotations

import sys
from pathlib import Path

from screenshot_window import ROOT, grab, open_window, shut


def main() -> int:
    from app.dataset_dock import SHOW_CHOICES
    from app.model.dataset import FALSE_POSITIVE

    results = (
        Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "out" / "reach_cube" / "results.csv"
    )
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "docs" / "browser.png"
    app, w = open_window(1600, 980, example=False)
    if not w.datasets.open_path(results):
        print("; ".join(w.ui.errors), file=sys.stderr)
        return 1
    dock = w.dataset_dock
    dock.model_combo.setCurrentIndex(dock.model_combo.findData("ipc"))
    dock.show_combo.setCurrentIndex([v for _t, v in SHOW_CHOICES].index(FALSE_POSITIVE))
    index = dock.visible_grasps()[0]
    w.datasets.show_grasp(index)
    g = w.model.dataset.grasps[index]
    trial = next(t for t in g.frames_trials() if t.outcome == "success")
    dock.select_trial(trial)
    w.datasets.replay(trial)
    frames = w.doc.run.trials[trial.trial].frames
    lift = next(i for i, f in enumerate(frames) if f.phase == "lift")
    w.timeline.seek(lift + (len(frames) - lift) * 3 // 4)
    w.bottom_tabs.setCurrentIndex(0)
    p = w.viewport.plotter
    p.camera_position = [(-0.24, -0.19, 0.16), (-0.005, 0.0, 0.025), (0.0, 0.0, 1.0)]
    grab(app, w, out, settle_s=2.0)
    print(f"saved {out}: {w.status_label.text()}")
    shut(w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
