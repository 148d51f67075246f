"""Regenerate docs/predictions_strength.png: the analytic models beside the grip strength the
simulator measured, on the example cube.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python docs/make_strength_screenshot.py

Sets Parameters > Disturbance to "down", simulates the default grasp's nominal trial and shows
the Analytic predictions tab: each model's margin with what limits it (the weight's pull or
gravity's moment about the grasp centre) and, under the table, the margin IPC measured
((pull down at slip + weight) / weight) with the load the cube left the grip at.
"""

from __future__ import annotations

import sys
from pathlib import Path

from screenshot_window import ROOT, grab, open_window, run_to_end, shut


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "predictions_strength.png"
    app, w = open_window(1500, 900)
    from app.smoke_test import wait_until

    w.editing.edit_param("disturb", "down")
    w.editing.edit_param("n_trials", 1)
    run_to_end(app, w)
    panel = w.predictions
    w.bottom_tabs.setCurrentIndex(1)
    wait_until(app, lambda: not panel.measured_label.isHidden(), 60, "the measured strength")
    wait_until(
        app, lambda: panel.stage == "robust" and "soft_point" in panel.results, 120, "models"
    )
    grab(app, w, out)
    print(f"saved {out}")
    shut(w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
