"""
Draw a frame as a still image
=============================

The desktop app exports a trial as MP4 or GIF (*File > Export video*), rendered with VTK. Here
the same scene is drawn headless with matplotlib, one still per phase: the 3 cm cube and the
two pads (blue and green) at the frame's positions, over the ground, from the frames of one
trial.
"""

import matplotlib.pyplot as plt
import numpy as np
from ipcgrasp.engine.analytic.ranking import default_grasp_for
from ipcgrasp.engine.grasp.params import SimulationParams
from ipcgrasp.engine.grasp.simulation import build_pad
from ipcgrasp.engine.grasp.trials import TrialSpec, plan_trials, run_trial
from ipcgrasp.engine.scene.object_mesh import BUILTIN_CUBE_MASS_KG, builtin_cube
from ipcgrasp.engine.scene.resting import rest_object
from mpl_toolkits.mplot3d.art3d import Poly3DCollection

cube = rest_object(builtin_cube(0.03), mass_kg=BUILTIN_CUBE_MASS_KG)
params = SimulationParams.for_gripper("yumi")
pad = build_pad(params)
(planned,) = plan_trials(default_grasp_for(cube, params).grasp, TrialSpec(n_trials=1))
frames = []
run_trial(cube, planned, params, pad=pad, on_frame=frames.append)


def draw(ax, frame):
    """The cube at the frame's pose and both pads, in millimetres."""
    pose = frame.object_pose
    cube_world = (cube.vertices @ pose[:3, :3].T + pose[:3, 3]) * 1e3
    ax.add_collection3d(
        Poly3DCollection(
            cube_world[cube.faces], facecolor="#b0b8c8", edgecolor="k", lw=0.3, alpha=0.35
        )
    )
    for vertices, colour in zip(frame.pad_vertices, ("#4c72b0", "#55a868"), strict=True):
        ax.add_collection3d(
            Poly3DCollection(
                np.asarray(vertices)[pad.surface_faces] * 1e3,
                facecolor=colour,
                edgecolor="none",
                alpha=0.9,
            )
        )
    ax.set(xlim=(-30, 30), ylim=(-30, 30), zlim=(0, 60))
    ax.plot([-30, 30, 30, -30, -30], [-30, -30, 30, 30, -30], 0, color="grey", lw=0.5)
    ax.set_box_aspect((1, 1, 1))
    ax.set_title(
        f"{frame.phase}, t = {frame.time_s:.2f} s\n"
        f"grip {frame.grip_force_n[0]:.1f} / {frame.grip_force_n[1]:.1f} N"
    )
    ax.view_init(elev=12, azim=-75)
    ax.set_axis_off()


# %%
# The last frame of each phase: the squeeze's end (both pads at the YuMi's 20 N), the lift and
# the hold (the cube 2 cm above the ground).
last = {f.phase: f for f in frames}
fig = plt.figure(figsize=(9, 3.6))
for i, phase in enumerate(("squeeze", "lift", "hold")):
    draw(fig.add_subplot(1, 3, i + 1, projection="3d"), last[phase])
fig.tight_layout()
plt.show()
