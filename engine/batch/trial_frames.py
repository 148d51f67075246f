"""Frames of batch IPC trials (`ipcgrasp batch --frames DIR`), so any labelled trial can be
replayed later (the app's data-set browser does).

One compressed frames file per IPC trial, `DIR/<task key>.npz`, in the format of
engine.io.frames_npz (the one `ipcgrasp simulate --frames` and the app read), its meta naming
the task, the grasp, the trial and the trial's gripper pose. The worker that ran the trial
writes it atomically before it returns the trial's row, so a row whose trial had frames has its
file unless the write failed (the row's `error` then says so). Resuming with `--frames` runs a
finished trial again when its file is missing, incomplete or damaged (every array read back and
compared with the checksum in its meta, engine.io.frames_npz.frames_file_damage); its row stays
the one in the file. A file that passes is never recomputed.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from engine.errors import ParameterError
from engine.io.frames_npz import frames_file_complete, frames_file_damage, save_frames

if TYPE_CHECKING:
    from engine.batch.results_store import ResumeInfo
    from engine.batch.tasks import Task
    from engine.grasp.frames import Frame
    from engine.gripper.pad_geometry import PadMesh
    from engine.scene.resting import RestingObject

log = logging.getLogger(__name__)


def frames_folder(path: str | os.PathLike | None) -> str | None:
    """The absolute folder of `--frames DIR` (workers may run elsewhere: Ray), or None.

    ParameterError when it names an existing file."""
    if path is None or str(path) == "":
        return None
    p = Path(path).expanduser().resolve()
    if p.exists() and not p.is_dir():
        raise ParameterError(f"--frames {path}: {p} is a file; give a folder for the frames")
    return str(p)


def frames_path(frames_dir: str | os.PathLike, task_key: str) -> Path:
    """Where the frames of the trial of task `task_key` go."""
    return Path(frames_dir) / f"{task_key}.npz"


def save_trial_frames(
    task: Task,
    gripper_pose: np.ndarray,
    frames: list[Frame],
    pad: PadMesh,
    obj: RestingObject,
) -> Path | None:
    """Write the frames of `task`'s trial to its file in the batch's frames folder.

    Nothing is written without a folder or frames, or when an undamaged file is there already
    (the same task key is the same trial); a damaged one is replaced. ParameterError when the
    file cannot be written.
    """
    folder = task.config.frames_dir
    if not folder or not frames:
        return None
    path = frames_path(folder, task.key)
    if path.exists() and not frames_file_damage(path):
        return path
    meta = {
        "task_key": task.key,
        "grasp_id": task.grasp.grasp_id,
        "model": task.model,
        "trial": task.trial,
        "gripper_pose": np.asarray(gripper_pose, dtype=float).tolist(),
    }
    return save_frames(
        path,
        {task.trial: frames},
        pad.tets,
        pad.surface_faces,
        obj.vertices,
        obj.faces,
        overwrite=True,
        extra_meta=meta,
    )


class FramesToRedo(NamedTuple):
    """Keys of the finished IPC tasks whose frames file must be written again."""

    missing: set[str]  # no file, or an incomplete one (cut short)
    damaged: set[str]  # a whole file whose arrays do not read back or match their checksum

    @property
    def keys(self) -> set[str]:
        return self.missing | self.damaged


def missing_frames(
    tasks: Iterable[Task], rows: Iterable[Mapping[str, str]], frames_dir: str | os.PathLike
) -> FramesToRedo:
    """The IPC tasks whose row in the results says the trial finished with frames but whose
    frames file is missing, incomplete or damaged (they run again for their frames). Every
    existing file is read back and its checksum verified: a damaged file is never trusted."""
    from engine.batch.tasks import IPC, STATUS_OK

    done = {r.get("task_key", ""): r for r in rows if r.get("status") == STATUS_OK}
    redo = FramesToRedo(set(), set())
    for task in tasks:
        row = done.get(task.key)
        if task.model != IPC or row is None:
            continue
        try:
            n = int(float(row.get("frames") or 0))
        except ValueError:
            n = 0
        if n <= 0:
            continue
        path = frames_path(frames_dir, task.key)
        if not frames_file_complete(path):
            redo.missing.add(task.key)
        elif why := frames_file_damage(path):
            log.info("frames file %s: %s; its trial runs again", path, why)
            redo.damaged.add(task.key)
    return redo


def rerun_for_frames(info: ResumeInfo, keys: set[str]) -> ResumeInfo:
    """`info` with the tasks `keys` not finished, so they are scheduled again; the results
    store keeps their rows (it never appends a second row for a task it holds finished)."""
    return dataclasses.replace(info, ok_keys=info.ok_keys - keys)
