"""Play the MuJoCo baseline's nominal trial on the timeline (Qt-free; the model's own events).

The predictions worker returns the nominal trial's frames with the MuJoCo row
(app/mujoco_prediction.py); `load_mujoco_run` makes them the document's current run (one done
trial), so the timeline, plots, 3D view and exports show it as they show an IPC trial. It
replaces the current run, like a new Simulate.
"""

from __future__ import annotations

import numpy as np

from app.model import AppModel
from app.model.trial_series import TrialSeries
from engine.analytic.result import ModelResult
from engine.grasp.frames import Frame, TrialResult
from engine.io.session import TrialRecord


def load_mujoco_run(model: AppModel, result: ModelResult) -> bool:
    """Make the MuJoCo row's nominal trial the current run and select it; False if it has none."""
    d = model.doc
    frames = result.details.get("frames") if result.details else None
    trial = result.details.get("trial_result") if result.details else None
    if d is None or not frames or not isinstance(trial, TrialResult):
        return False
    frame_list: list[Frame] = list(frames)
    pose = np.asarray(result.details.get("pose", np.eye(4)), dtype=float)
    model.run_counter += 1
    run = d.new_run(model.run_counter)
    rec = TrialRecord(0, pose, "done", frames=frame_list, result=trial)
    run.trials[0] = rec
    model.series = {0: TrialSeries.from_frames(frame_list)}
    model.pads.reset_ranges()
    model.trial = -1
    model.fill_energy(rec)  # rigid pads: zero strain energy density, drawn like IPC's
    model.run_started.emit(run)
    model.trial_updated.emit(rec)
    model.finish_run(False)
    model.select_trial(0)
    return True
