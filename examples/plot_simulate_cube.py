"""
Simulate a grasp from Python and plot its grip force
====================================================

The squeeze-lift procedure on the built-in 3 cm cube with the default gripper (the ABB YuMi,
20 N): place the cube on the ground in its most probable resting pose, take the default grasp
(through the centre of mass), run the nominal trial and plot what each frame reports.
"""

import matplotlib.pyplot as plt
from ipcgrasp.engine.analytic.ranking import default_grasp_for
from ipcgrasp.engine.grasp.params import SimulationParams
from ipcgrasp.engine.grasp.trials import TrialSpec, plan_trials, run_trial
from ipcgrasp.engine.scene.object_mesh import BUILTIN_CUBE_MASS_KG, builtin_cube
from ipcgrasp.engine.scene.resting import rest_object

# %%
# The object and the grasp
# ------------------------
# Everything is in SI units. ``SimulationParams.for_gripper`` applies a gripper preset (stroke,
# closing speed, pad, finger mass); any field given explicitly wins.
cube = rest_object(builtin_cube(0.03), stable_pose=0, mass_kg=BUILTIN_CUBE_MASS_KG)
params = SimulationParams.for_gripper("yumi", mu=0.4)
grasp = default_grasp_for(cube, params).grasp
print("grasp centre (m):", grasp.center, "closing axis:", grasp.axis)

# %%
# One nominal trial
# -----------------
# ``plan_trials`` with one trial gives the nominal pose (two or more give perturbed poses).
# ``on_frame`` receives every frame as it is computed; returning a string would stop the trial.
frames = []
(planned,) = plan_trials(grasp, TrialSpec(n_trials=1, seed=0))
result = run_trial(cube, planned, params, on_frame=frames.append)
print(
    f"{result.reason}: grip {result.grip_force_n:.2f} N, lifted to "
    f"{result.lift_height_m * 1e3:.1f} mm in {result.frames} frames"
)

# %%
# Grip force and height over time
# -------------------------------
t = [f.time_s for f in frames]
fig, (ax_force, ax_height) = plt.subplots(2, 1, sharex=True, figsize=(6, 5))
ax_force.plot(t, [f.grip_force_n[0] for f in frames], label="pad 1")
ax_force.plot(t, [f.grip_force_n[1] for f in frames], "--", label="pad 2")
ax_force.axhline(20.0, color="grey", lw=0.8, label="YuMi's 20 N")
ax_force.set_ylabel("grip force (N)")
ax_force.legend()
ax_height.plot(t, [f.object_min_z_m * 1e3 for f in frames])
ax_height.set_ylabel("cube's lowest point (mm)")
ax_height.set_xlabel("time (s)")
for f in frames:
    if f.phase == "lift":
        for ax in (ax_force, ax_height):
            ax.axvline(f.time_s, color="orange", lw=0.8)
        break
fig.suptitle("3 cm cube, YuMi: squeeze, then lift (orange line)")
fig.tight_layout()
plt.show()
