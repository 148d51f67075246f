"""`ipcgrasp batch --frames DIR`: one frames file per IPC trial, named by its task key, in the
format the app replays; resumable like the rows (a complete file is kept, a missing or damaged
one is written again without a second row)."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from engine.batch.trial_frames import frames_path
from engine.cli.main import main
from engine.grasp.frames import PHASES
from engine.io.frames_npz import frames_file_complete, frames_from_arrays, load_frames
from tests.engine.batch.conftest import CUBE_ROW, read_rows, write_grasps
from tests.engine.io.test_safe_write import _save_frames


def batch(*args: str) -> int:
    return main(["batch", *args, "--quiet"])


def test_frames_file_complete_reads_only_the_directory_and_meta(tmp_path):
    whole = _save_frames(tmp_path / "whole.npz")
    assert frames_file_complete(whole)
    data = whole.read_bytes()
    cut = tmp_path / "cut.npz"
    cut.write_bytes(data[: len(data) // 2])  # a copy interrupted half-way
    assert not frames_file_complete(cut)
    assert not frames_file_complete(tmp_path / "absent.npz")
    # A zip without one of a trial's arrays is not a complete frames file.
    partial = tmp_path / "partial.npz"
    with zipfile.ZipFile(whole) as src, zipfile.ZipFile(partial, "w") as dst:
        for name in src.namelist():
            if name != "t0/pad2.npy":
                dst.writestr(name, src.read(name))
    assert not frames_file_complete(partial)


@pytest.mark.slow
def test_batch_keeps_each_ipc_trial_frames_and_resumes_them(tmp_path, fake_analytic, capsys):
    grasps = write_grasps(tmp_path / "g.csv", [["a", *CUBE_ROW]])
    out, folder = tmp_path / "r.csv", tmp_path / "frames"
    args = [str(grasps), "--out", str(out), "--models", "ipc,reach", "--trials", "1"]
    args += ["--workers", "0", "--frames", str(folder)]
    assert batch(*args) == 0
    rows = read_rows(out)
    ipc = next(r for r in rows if r["model"] == "ipc")
    assert ipc["status"] == "ok" and ipc["error"] == ""
    # One file per IPC trial, named by its task key; none for the analytic model.
    assert sorted(p.name for p in folder.iterdir()) == [f"{ipc['task_key']}.npz"]
    path = frames_path(folder, ipc["task_key"])
    meta, arrays = load_frames(path)
    assert meta["trials"] == [0] and meta["task_key"] == ipc["task_key"]
    assert meta["grasp_id"] == "a" and meta["model"] == "ipc"
    pose = np.asarray(meta["gripper_pose"])
    # The nominal pose of a top-down grasp through the cube's centre (trial 0 of N = 1).
    np.testing.assert_allclose(pose[:3, 3], [0.0, 0.0, 0.015], atol=1e-12)
    frames = frames_from_arrays(arrays, "t0/")
    assert len(frames) == int(ipc["frames"]) > 0
    # The cube is lifted: the file ends in the hold, as the row says.
    assert ipc["success"] == "True" and frames[-1].phase == "hold" and "hold" in PHASES
    assert arrays["object_vertices"].shape == (8, 3)  # the built-in cube, resting frame

    # Resuming keeps the complete file (not rewritten) and adds no row.
    stamp = path.stat().st_mtime_ns
    before = out.read_bytes()
    assert batch(*args) == 0
    assert path.stat().st_mtime_ns == stamp and out.read_bytes() == before

    # A missing (or damaged) file: that trial runs again for its frames; its row is kept.
    path.write_bytes(path.read_bytes()[:1000])
    capsys.readouterr()
    assert batch(*args) == 0
    assert "1 finished IPC trials have no frames file" in capsys.readouterr().err
    assert frames_file_complete(path) and out.read_bytes() == before
    assert len(frames_from_arrays(load_frames(path)[1], "t0/")) == len(frames)


def test_frames_flag_refuses_a_file(tmp_path, capsys):
    grasps = write_grasps(tmp_path / "g.csv", [["a", *CUBE_ROW]])
    blocker = tmp_path / "frames"
    blocker.write_text("not a folder")
    code = batch(str(grasps), "--out", str(tmp_path / "r.csv"), "--frames", str(blocker))
    assert code == 2
    assert "is a file; give a folder for the frames" in capsys.readouterr().err
