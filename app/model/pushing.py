"""The app's push, Qt-free: whether the shown frame can be pushed, the force a drag asks for,
and the one-trial run that re-simulates the pushed trial with the push after its hold
(engine.grasp.push; the worker runs it, its frames stream as a run's do).

A drag across the object's whole size asks for the grip's Coulomb capacity 2 mu F (F the
trial's grip force): what breaks a grip reads the same on a 3 g cube in a 20 N grip and on a
1 kg can in a 235 N one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.model.document import Document, Run
from engine.constants import GRAVITY_M_S2
from engine.grasp.frames import Frame
from engine.grasp.push import RISE_S, Push
from engine.grasp.trials import PlannedTrial, plan_trials
from engine.io.session import TrialRecord

PUSH_PHASES = ("hold", "push")
"""The phases of the frames a drag pushes on (during the hold, or on an earlier push)."""


@dataclass(frozen=True)
class PushTarget:
    """A trial the user may push: its record, its run, the grip's friction 2 mu F it ended
    with (N), the object's size (its largest extent, m) and weight (N)."""

    record: TrialRecord
    run: Run
    capacity_n: float
    size_m: float
    weight_n: float

    @property
    def newtons_per_m(self) -> float:
        """The push (N) per metre of drag: the grip's friction over the object's size."""
        return self.capacity_n / max(self.size_m, 1e-9)

    def force(self, drag_m: np.ndarray) -> np.ndarray:
        """The push (N, world frame) a drag of `drag_m` (m, world frame) asks for."""
        return self.newtons_per_m * np.asarray(drag_m, dtype=float)

    def describe(self, force_n: np.ndarray) -> str:
        """The status line while dragging."""
        f = float(np.linalg.norm(force_n))
        return (
            f"push {f:.2f} N = {f / self.weight_n:.1f} x the weight, "
            f"{f / max(self.capacity_n, 1e-12):.2f} x the grip's friction 2 mu F = "
            f"{self.capacity_n:.1f} N: release to simulate it (Esc cancels)"
        )


def push_target(doc: Document | None, trial: int, frame_index: int) -> PushTarget | str:
    """The trial shown at `frame_index` if a drag may push it, else why not."""
    run = doc.run if doc is not None else None
    rec = run.trials.get(trial) if run is not None else None
    if doc is None or run is None or rec is None:
        return "simulate first: a push acts on a held object (Ctrl+drag on it during the hold)"
    if rec.status != "done" or rec.result is None:
        return "wait for the trial to end: a push re-runs a trial that lifted"
    if not rec.result.success:
        return f"trial {trial} did not lift the object ({rec.result.reason}): nothing to push"
    if not 0 <= frame_index < len(rec.frames) or rec.frames[frame_index].phase not in PUSH_PHASES:
        return "scrub to the hold (the end of the timeline) to push the held object"
    obj = run.obj if run.obj is not None else doc.obj
    size = float(np.ptp(np.asarray(obj.vertices), axis=0).max())
    capacity = 2.0 * run.params.mu * max(rec.result.grip_force_n, 0.0)
    return PushTarget(rec, run, capacity, size, obj.mass_kg * GRAVITY_M_S2)


def push_run(target: PushTarget, push: Push, run_id: int) -> tuple[Run, PlannedTrial]:
    """The one-trial run that re-simulates `target`'s trial, then pushes, and that trial."""
    old = target.run
    k = target.record.trial
    planned = plan_trials(old.grasp, old.spec)[k]
    run = Run(
        run_id, old.grasp, old.params, old.spec, object_version=old.object_version, obj=old.obj,
        push=push, push_arrow_m_per_n=1.0 / max(target.newtons_per_m, 1e-12),
    )  # fmt: skip
    run.trials[k] = TrialRecord(k, planned.pose, "queued")
    return run, planned


def push_summary(run: Run) -> str:
    """What the push did, for the status line ('' for a plain run or before it ends)."""
    if run.push is None:
        return ""
    for rec in run.trials.values():
        r = rec.result
        if r is None:
            continue
        if r.push:
            q = r.push
            word = "held" if q["held"] else "NOT held"
            return (
                f"push of {run.push.magnitude_n:.2f} N ({q['weights']:.1f} x the weight): {word} "
                f"(the object moved {q['moved'] * 1e3:.2f} mm and turned "
                f"{np.degrees(q['turned']):.2f} deg in the grip)"
            )
        return f"push not applied: {r.reason}{': ' + r.error if r.error else ''}"
    return ""


def push_arrow_at(run: Run, rec: TrialRecord, frame: Frame) -> tuple[np.ndarray, np.ndarray] | None:
    """(tail, head) of the arrow drawn onto the pushed point in a push frame while the push
    acts (world, m; its length the force at that frame, on the drag's scale); None otherwise."""
    push = run.push
    if push is None or frame.phase != "push":
        return None
    first = next(f.time_s for f in rec.frames if f.phase == "push")
    elapsed = frame.time_s - first + run.params.time_step_s
    if elapsed > push.duration_s + 1e-9:
        return None
    share = min(elapsed / RISE_S, 1.0)
    pose = np.asarray(frame.object_pose, dtype=float)
    head = pose[:3, :3] @ np.asarray(push.point_m, dtype=float) + pose[:3, 3]
    tail = head - share * np.asarray(push.force_n, dtype=float) * run.push_arrow_m_per_n
    return tail, head
