"""Regenerate docs/model_forces.png: the contact forces an analytic model holds the example
cube's weight with.

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python docs/make_model_forces_screenshot.py

Opens the example cube with its default grasp, shows the Analytic predictions tab, ticks "draw
contacts of the selected model" and selects the REACH row: its contact patches, coloured by
pressure, with arrows (the friction cells' forces summed on a drawing grid) for the normal force
(orange) and the friction force (green) that hold the cube's weight (purple, at its centre of mass), at the scales the legend in
the view's corner states; the legend's last line names the model and sums the forces per jaw
(engine.analytic.contact_forces states the rule that picks them).
"""

from __future__ import annotations

import sys
from pathlib import Path

from screenshot_window import ROOT, grab, open_window, shut


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "model_forces.png"
    app, w = open_window(1600, 980)
    from app.smoke_test import wait_until

    panel = w.predictions
    w.bottom_tabs.setCurrentIndex(w.bottom_tabs.indexOf(panel))
    wait_until(
        app,
        lambda: (
            not panel.pending
            and panel.stage == "robust"
            and getattr(panel.results.get("reach"), "forces", None) is not None
        ),
        180,
        "the models' forces and robustness",
    )
    panel.contacts_box.setChecked(True)
    panel.table.selectRow([m.name for m in panel.models].index("reach"))
    contacts = w.viewport.contacts
    wait_until(app, lambda: contacts.forces_text.startswith("REACH:"), 30, "REACH's forces")
    # From the front right and above: jaw 2's patch on the near face, jaw 1's arrows on the far
    # face seen through the cube (the arrows are drawn over the scene).
    w.viewport.plotter.camera_position = [(0.045, -0.11, 0.065), (0.0, 0.0, 0.015), (0, 0, 1)]
    grab(app, w, out)
    print(f"saved {out}: " + "; ".join(contacts.layer.legend))
    shut(w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
