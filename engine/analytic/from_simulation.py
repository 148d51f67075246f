"""The analytic models' parameters for a simulation's: one mapping, used by every caller.

Batch rows of the analytic models, the sampler's and the default grasp's ranker, the app's
predictions and `ipcgrasp analyze --gripper` all take the gripper's opening, pad and grip force
from here, so a model never judges a grasp for another gripper than the one simulated (a
Franka Hand grasp 54 mm wide is not "too wide" for its 80 mm stroke).

Light (no numpy): engine.batch.tasks calls it when it makes the tasks' keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.analytic.params import AnalyticParams

if TYPE_CHECKING:
    from engine.grasp.params import SimulationParams
    from engine.grasp.trial_plan import TrialSpec


def analytic_params_for(
    params: SimulationParams,
    *,
    closing_force_n: float | None = None,
    mu: float | None = None,
    spec: TrialSpec | None = None,
) -> AnalyticParams:
    """AnalyticParams with the simulation's friction, pad (outline and resolution), opening and
    grip force per jaw; the other fields keep their defaults (validated).

    closing_force_n: default the squeeze's force stop, or with a Psi_th stop the gripper's
    grip force (the most a force-controlled squeeze presses with); the app passes the force a
    run reached or a Psi_th stop implies. mu: default the simulation's. spec: the trial plan
    whose perturbation sigmas the robustness samples use (default AnalyticParams').
    """
    values: dict[str, Any] = {
        "mu": params.mu if mu is None else mu,
        "closing_force_n": (
            params.squeeze_force_cap_n if closing_force_n is None else closing_force_n
        ),
        "pad": params.pad,
        "pad_edge_length_m": params.pad_edge_length_m,
        "open_width_m": params.open_width_m,
    }
    if spec is not None:
        values["translation_sigma_m"] = spec.translation_sigma_m
        values["rotation_sigma_rad"] = spec.rotation_sigma_rad
    return AnalyticParams(**values).validate()
