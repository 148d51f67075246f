"""Body of the reading worker process (no Qt): mesh files, sessions and data sets are read,
repaired, checked and given their stable poses here, never on the GUI thread, because their
cost grows with the file (a 500k-face scan, an embedded mesh, a data set of many objects)."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from app.workers.messages import ObjectRead, ReadDataSetJob, ReadObjectJob, ReadSessionJob

log = logging.getLogger(__name__)

ReadJob = ReadObjectJob | ReadSessionJob | ReadDataSetJob


class _AskFirst(Exception):
    """A session names an object file outside its folder the user has not answered for."""

    def __init__(self, path: Path) -> None:
        super().__init__(str(path))
        self.path = path


def _read_object(job: ReadObjectJob) -> ObjectRead:
    from engine.scene.object_mesh import ObjectSizeError, mesh_file_extents, object_from_spec
    from engine.scene.resting import stable_poses

    if job.extents_only:
        return ObjectRead(job.request, extents=mesh_file_extents(job.spec_text))
    try:
        mesh = object_from_spec(job.spec_text, job.unit, job.body)
    except ObjectSizeError as exc:
        # The front end offers the units: it shows the size in each, from the file's own.
        return ObjectRead(job.request, error=exc, extents=mesh_file_extents(job.spec_text))
    from app.model.pose_choices import pose_choices

    poses = stable_poses(mesh)
    return ObjectRead(job.request, (mesh, poses), pose_choices=pose_choices(mesh, poses))


def _read_session(job: ReadSessionJob) -> ObjectRead:
    from engine.io.session import load_session, resolve_object
    from engine.scene.resting import stable_poses

    def consent(path: Path) -> bool:
        if str(path) in job.allowed:
            return True
        if str(path) in job.refused:
            return False
        raise _AskFirst(path)

    session = load_session(job.path)
    try:
        mesh, note = resolve_object(session, job.path, allow_outside=consent)
    except _AskFirst as ask:
        return ObjectRead(job.request, ask_outside=str(ask.path))
    from app.model.pose_choices import pose_choices

    poses = stable_poses(mesh)
    choices = pose_choices(mesh, poses)
    return ObjectRead(job.request, (session, mesh, note, poses), pose_choices=choices)


def _read_data_set(job: ReadDataSetJob) -> ObjectRead:
    from app.model.dataset_reading import load_data_set

    return ObjectRead(job.request, load_data_set(job.path, job.frames_dir))


def read(job: ReadJob) -> ObjectRead:
    """Run one read job; never raises (what went wrong is the answer's `error`)."""
    start = time.perf_counter()
    try:
        if isinstance(job, ReadObjectJob):
            answer = _read_object(job)
        elif isinstance(job, ReadSessionJob):
            answer = _read_session(job)
        else:
            answer = _read_data_set(job)
    except Exception as exc:
        from engine.errors import IpcGraspError

        if not isinstance(exc, IpcGraspError):
            log.exception("reading failed for request %d", job.request)
        answer = ObjectRead(job.request, error=exc)
    answer = _picklable(answer)
    object.__setattr__(answer, "seconds", time.perf_counter() - start)
    return answer


def _picklable(answer: ObjectRead) -> ObjectRead:
    """`answer` with an error that cannot cross to the GUI (an exception pickle cannot rebuild)
    replaced by one that says the same."""
    import pickle

    from engine.errors import IpcGraspError

    if answer.error is None:
        return answer
    try:
        pickle.loads(pickle.dumps(answer.error))
    except Exception:
        text = f"{type(answer.error).__name__}: {answer.error}"
        return ObjectRead(answer.request, error=IpcGraspError(text), extents=answer.extents)
    return answer


def read_main(inbox: Any, outbox: Any, nice: int = 5) -> None:
    """Serve read jobs from `inbox` until None; only the newest waiting job is run. The process
    runs `nice` levels below the GUI and imports the readers before the first job arrives."""
    from app.workers import newest_job
    from app.workers.simulation import lower_priority

    lower_priority(nice)
    import engine.io.session
    import engine.scene.resting  # noqa: F401  (the readers, before the first job)

    while True:
        job = newest_job(inbox)
        if job is None:
            return
        outbox.put(read(job))
