"""
Read a frames file
==================

``ipcgrasp simulate --frames FILE.npz`` (and ``ipcgrasp batch --frames DIR``, one file per
trial) saves every frame of a trial: NumPy arrays and a JSON ``meta`` entry, never pickle. This
example writes such a file for a short trial of a generated object, a 35 mm ball of 30 g, and
reads it back twice: as plain arrays with ``numpy.load`` and as ``Frame`` objects.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import trimesh
from ipcgrasp.engine.analytic.ranking import default_grasp_for
from ipcgrasp.engine.grasp.params import SimulationParams
from ipcgrasp.engine.grasp.simulation import build_pad
from ipcgrasp.engine.grasp.trials import TrialSpec, plan_trials, run_trial
from ipcgrasp.engine.io.frames_npz import frames_from_arrays, load_frames, save_frames
from ipcgrasp.engine.scene.object_mesh import ObjectMesh
from ipcgrasp.engine.scene.resting import rest_object

# %%
# Write a frames file
# -------------------
# A ball made in code (an icosphere of 162 vertices), resting on the ground, gripped by the
# YuMi through its centre. ``save_frames`` is what ``simulate --frames`` calls.
sphere = trimesh.creation.icosphere(subdivisions=2, radius=0.0175)
mesh = ObjectMesh(
    vertices=sphere.vertices, faces=sphere.faces, name="ball", source="generated", sha256=None
)
ball = rest_object(mesh, stable_pose=0, mass_kg=0.03)
params = SimulationParams.for_gripper("yumi")
pad = build_pad(params)
(planned,) = plan_trials(default_grasp_for(ball, params).grasp, TrialSpec(n_trials=1))
frames = []
result = run_trial(ball, planned, params, pad=pad, on_frame=frames.append)
path = Path(tempfile.mkdtemp(prefix="ipcgrasp_example_")) / "ball_frames.npz"
save_frames(path, {0: frames}, pad.tets, pad.surface_faces, ball.vertices, ball.faces)
print(result.reason, f"after {result.frames} frames")

# %%
# Plain NumPy
# -----------
# Any tool that reads ``.npz`` reads the file; the layout is documented in
# ``engine/io/frames_npz.py`` (trial ``k``'s arrays are named ``t{k}/...``).
with np.load(path, allow_pickle=False) as data:
    for name in sorted(data.files)[:12]:
        print(f"{name:22s} {data[name].dtype} {data[name].shape}")

# %%
# Frames again
# ------------
# ``load_frames`` checks every array (shapes, types, finite values) and refuses a file that is
# not a frames file with the reason; ``frames_from_arrays`` rebuilds the trial's frames.
meta, arrays = load_frames(path)
read = frames_from_arrays(arrays, prefix="t0/")
print(meta["format"], "version", meta["version"], "trials", meta["trials"])

t = np.array([f.time_s for f in read])
psi = np.array([f.psi_j for f in read])
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.semilogy(t, np.maximum(psi[:, 0], 1e-12), label="pad 1")
ax.semilogy(t, np.maximum(psi[:, 1], 1e-12), "--", label="pad 2")
ax.set_xlabel("time (s)")
ax.set_ylabel("pad strain energy Psi (J)")
ax.set_title("35 mm ball, 30 g: the pads' strain energy, read back")
ax.legend()
fig.tight_layout()
plt.show()
