"""Regenerate docs/contact_forces.png and docs/contact_forces_patches.png: the example cube
squeezed, with the contact forces per contact point and per pad and patch.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python docs/make_forces_screenshot.py

Simulates the default grasp's nominal trial, turns on View > Contact forces and shows a squeeze
frame in which the pads press about half the gripper's force: the arrows end where the pads
(and the ground) push the cube, normal forces orange, friction green, at the scales the legend
in the view's corner states; the cube's centre of mass is the purple dot (its weight, 0.029 N,
is drawn from there at the normal forces' scale). Then the same frame per pad and patch
(View > Forces per pad and patch): one resultant per patch at its centre of pressure.
"""

from __future__ import annotations

import sys
from pathlib import Path

from screenshot_window import ROOT, grab, open_window, run_to_end, shut


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "contact_forces.png"
    out_patches = out.with_name(out.stem + "_patches" + out.suffix)
    app, w = open_window(1600, 980)
    run_to_end(app, w)
    w.bottom_tabs.setCurrentIndex(0)
    w.model.select_trial(0)
    frames = w.doc.run.trials[0].frames
    top = max(min(f.grip_force_n) for f in frames)
    mid = next(i for i, f in enumerate(frames) if min(f.grip_force_n) >= 0.3 * top)
    w.menus.forces_action.setChecked(True)
    w.timeline.seek(mid)
    # From the front right and above: pad 2 presses the near face; pad 1's arrows, on the far
    # face, show through the cube (the arrows are drawn over the scene).
    w.viewport.plotter.camera_position = [(0.05, -0.16, 0.09), (0.0, 0.0, 0.015), (0, 0, 1)]
    f = frames[mid]
    for mode, path in (("points", out), ("patches", out_patches)):
        w.menus.force_mode_actions[mode].trigger()
        grab(app, w, path)
        print(
            f"saved {path}: frame {mid} ({f.phase}), grip {f.grip_force_n[0]:.2f} / "
            f"{f.grip_force_n[1]:.2f} N, {len(f.contact_source)} contact points; "
            + "; ".join(w.viewport.forces.layer.legend)
        )
    shut(w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
