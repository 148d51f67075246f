"""
Sample grasps, label them in a batch, evaluate against outcomes
===============================================================

The data-set workflow on an object made in code: a 40 x 20 x 60 mm box written as an OBJ file
(metres). ``ipcgrasp sample`` writes antipodal grasps that fit the gripper as a grasp table,
``ipcgrasp batch`` runs the IPC simulator and an analytic model on every grasp (resumable, one
CSV row per task), and ``ipcgrasp evaluate`` scores each model against physical outcomes.

The commands are the ones a shell runs; ``ipcgrasp`` below runs them with the ``ipcgrasp``
console script of the Python environment this example runs in and stops on a non-zero exit
status.
"""

import csv
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.image as mpimg
import matplotlib.pyplot as plt
import trimesh


def ipcgrasp(args: list[str]) -> None:
    """Run `ipcgrasp ARGS...` (the script beside this Python, else the one on PATH)."""
    script = Path(sys.executable).with_name("ipcgrasp")
    command = str(script) if script.exists() else shutil.which("ipcgrasp") or "ipcgrasp"
    print("$ ipcgrasp", " ".join(args))
    done = subprocess.run([command, *args], capture_output=True, text=True)
    print(done.stdout)
    if done.returncode != 0:
        raise RuntimeError(f"ipcgrasp {args[0]} exited {done.returncode}: {done.stderr}")


work = Path(tempfile.mkdtemp(prefix="ipcgrasp_example_"))
box = work / "box.obj"
trimesh.creation.box(extents=(0.04, 0.02, 0.06)).export(box)

# %%
# Sample grasps
# -------------
# Four grasps with the YuMi (50 mm stroke), ranked by their Soft Point margin; the same seed
# gives the same table. The table's optional ``mass`` column (kg) makes the box 50 g; without
# it the object gets a density of 1000 kg/m^3.
grasps = work / "grasps.csv"
ipcgrasp(["sample", str(box), "--n", "4", "--seed", "0", "--out", str(grasps)])
with open(grasps, newline="") as f:
    rows = list(csv.DictReader(f))
for row in rows:
    row["mass"] = "0.05"
with open(grasps, "w", newline="") as f:
    writer = csv.DictWriter(f, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
print([row["grasp_id"] for row in rows])

# %%
# Label them
# ----------
# One nominal IPC trial per grasp (``--trials 1``; the paper's protocol is 5 perturbed trials)
# and the Soft Point model. Every finished task is appended to the results at once, so running
# the same command again resumes.
results = work / "results.csv"
ipcgrasp(
    [
        "batch",
        str(grasps),
        "--out",
        str(results),
        "--models",
        "ipc,soft_point",
        "--trials",
        "1",
        "--workers",
        "1",
    ]
)

# %%
# Score against outcomes
# ----------------------
# Physical outcomes come from a robot: a labels CSV with ``grasp_id, successes, trials`` (or
# one row per trial with ``grasp_id, result``). The outcomes below are made up to show the
# format; replace them with your robot's.
labels = work / "robot_outcomes.csv"
with open(labels, "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["grasp_id", "successes", "trials"])
    for k, row in enumerate(rows):
        writer.writerow([row["grasp_id"], [5, 4, 1, 5][k % 4], 5])
plot = work / "pr.png"
ipcgrasp(["evaluate", str(results), "--labels", str(labels), "--plot", str(plot)])

# %%
# The precision-recall plot ``evaluate`` wrote:
plt.imshow(mpimg.imread(plot))
plt.axis("off")
plt.show()
