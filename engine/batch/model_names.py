"""The models a batch runs, declared once.

Free of imports, so `ipcgrasp batch --help` and `grid --help` list them without loading the
simulator (engine.batch.tasks uses them to make and run the tasks).
"""

from __future__ import annotations

IPC = "ipc"
ANALYTIC_MODELS = ("soft_point", "reach", "6dfc", "exact")
MUJOCO = "mujoco"
TRIAL_MODELS = (IPC, MUJOCO)  # one task per planned trial, rows reduced by mean success
MODELS = (IPC, *ANALYTIC_MODELS, MUJOCO)
NOMINAL_ONLY_MODELS = ("6dls",)  # too slow for robustness sampling: not offered in batches
