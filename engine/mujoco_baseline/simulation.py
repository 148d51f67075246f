"""The squeeze-lift-hold procedure of engine.grasp.simulation, run by MuJoCo with rigid pads.

1. Open: the pads' contact faces `open_width_m` apart at the trial's gripper pose (opened wider
   in 1 mm steps up to `auto_open_m` until they clear the object by 1 mm, as the IPC simulator
   does); open jaws below the ground, in the object, or that would miss it are refused.
2. Squeeze: each jaw's position servo closes at `closing_speed_m_s`, its force limited to the
   grip force F (`MujocoParams.grip_force_n`, else `squeeze_force_n`, else the force at which
   a linear pad stores Psi_th). The squeeze ends once both pads push on the object with at
   least 0.98 F and the jaws and the object have come to rest (below 1 mm/s: the force is the
   static grip, not the impact of the closing jaws); the servos keep pressing with F afterwards, like a force-controlled gripper.
3. Lift: the gripper rises at `lift_speed_m_s` (ramped over `lift_ramp_s`) until the object's
   lowest point is `lift_height_m` above the ground, then holds for `hold_time_s`; the lift
   ends early when the object lags the gripper by more than `slip_tolerance_m`.
Success (the IPC simulator's test): the lift height was reached and, at the end, both pads touch
the object and the object does not touch the ground (touch: MuJoCo reports a contact, i.e. the
bodies overlap by the soft contact's depth; IPC's touch is a gap below dhat).

Differences from the IPC simulator: the pads are rigid (their compliance is the contact's, see
engine.mujoco_baseline.contact), the grip is force-controlled during the lift (IPC fixes the
plates' separation at the squeeze's end), and contact is MuJoCo's soft contact (a few points per
pad, a squeeze depth instead of a barrier gap).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Generator

import numpy as np

from engine.errors import GraspError
from engine.grasp.frames import Frame, TrialResult
from engine.grasp.grasp import Grasp
from engine.grasp.grip_measures import GripTracker
from engine.grasp.params import SimulationParams
from engine.grasp.placement_checks import check_open_jaws_clear_ground
from engine.grasp.squeeze_rules import (
    CLOSED_COMPLETELY,
    JAWS_CLOSED,
    GripOutcome,
    Tolerances,
    closed_reason,
    judge_lift,
)
from engine.grasp.trial_plan import PlannedTrial, TrialSpec, plan_trials
from engine.grasp.trials import OnFrame, drive_trial
from engine.gripper.jaws import place_jaws
from engine.gripper.pad_geometry import pad_outline
from engine.ipc.contact_metrics import ContactSummary
from engine.mujoco_baseline import contact
from engine.mujoco_baseline.contact_readings import contact_readings, pad_contact_centres
from engine.mujoco_baseline.gripper import GripperSpec, gripper_for
from engine.mujoco_baseline.jaw_contacts import JawContact, grip_force, jaw_contacts, jaw_prism
from engine.mujoco_baseline.model import (
    SceneKey,
    SceneModel,
    import_mujoco,
    scene_model,
    set_gripper_pose,
)
from engine.mujoco_baseline.params import MUJOCO_SOLIMP, MujocoParams
from engine.scene.resting import RestingObject

log = logging.getLogger(__name__)

MODEL_NAME = "mujoco"
CANCELLED = "cancelled"
SQUEEZE_FORCE_FRACTION = 0.98  # the squeeze ends when both pads push with this fraction of F
SETTLED_SPEED_M_S = 1e-3  # ... and the jaws and the object move slower than this


class MujocoTrial:
    """One squeeze-lift-hold trial in MuJoCo. Iterate `frames()`; `result` is final after it."""

    def __init__(
        self,
        obj: RestingObject,
        gripper_pose: np.ndarray,
        params: SimulationParams,
        mj: MujocoParams | None = None,
        *,
        gripper: GripperSpec | None = None,
        trial: int = 0,
        perturbation: dict[str, float] | None = None,
        pad_points: np.ndarray | None = None,
    ) -> None:
        self.params = params.validate()
        self.mj = (mj or MujocoParams()).validate()
        self.mujoco = import_mujoco()
        self.obj = obj
        self.pose = np.asarray(gripper_pose, dtype=float)
        self.gripper = gripper = gripper if gripper is not None else gripper_for(params)
        self.outline = pad_outline(params.pad, params.pad_edge_length_m)
        self.pad_points = pad_points
        self.result = TrialResult(trial=trial, success=False, reason="not run")
        self.result.perturbation = dict(perturbation or {})
        p = self.params
        self._check_ground()
        self.extra_open_m, self.jaws = self._opening()
        self.scene: SceneModel = scene_model(
            obj,
            self.outline,
            SceneKey(
                object_id=id(obj),
                pad=p.pad,
                mu=p.mu,
                ground_mu=p.ground_mu,
                open_width_m=p.open_width_m,
                time_step_s=self.mj.time_step_s,
                damping_ratio=self.mj.damping_ratio,
                gripper=gripper,
            ),
        )
        m = self.scene.model
        inv_mass = float(
            m.body_invweight0[self.scene.object_body, 0]
            + m.body_invweight0[self.scene.pad_bodies[0], 0]
        )
        self.inv_mass = inv_mass
        e, t = p.youngs_modulus_pa, self.outline.thickness_m
        self.stiffness = [
            contact.derive(e, j.area_m2, t, self.mj.time_step_s, inv_mass, 1, self.mj.damping_ratio)
            for j in self.jaws
        ]
        k_mean = 0.5 * (self.stiffness[0].pad_stiffness_n_m + self.stiffness[1].pad_stiffness_n_m)
        self.force_n = gripper.check_force(grip_force(p, self.mj, k_mean))
        self.data = self.mujoco.MjData(m)

    # --- set-up ----------------------------------------------------------------------------
    def _check_ground(self) -> None:
        jaws = place_jaws(self.pose, self.params.open_width_m)
        check_open_jaws_clear_ground(
            (jaws[0].to_world(jaw_prism(self.outline)), jaws[1].to_world(jaw_prism(self.outline)))
        )

    def _opening(self) -> tuple[float, tuple[JawContact, JawContact]]:
        """Extra opening (m) that clears the object (IPC's auto-open) and the jaws' contacts."""
        p = self.params
        steps = math.floor(p.auto_open_m / 0.001 + 1e-9)
        for k in range(steps + 1):
            width = p.open_width_m + 0.001 * k
            jaws = jaw_contacts(self.obj, self.pose, self.outline, width)
            if not all(math.isfinite(j.gap_m) for j in jaws):
                raise GraspError(
                    "the grasp misses the object: closing the jaws would not touch it. Move the "
                    "grasp centre onto the object"
                )
            clearance = 0.001 if steps else p.dhat_m
            if min(j.gap_m for j in jaws) >= clearance and not self._pads_inside(width):
                return 0.001 * k, jaws
        raise GraspError(
            "the open jaws intersect or touch the object: it is wider than the "
            f"{p.open_width_m * 1e3:.0f} mm opening at this grasp, or the grasp centre is off "
            "the object; move the grasp or choose another closing axis"
        )

    def _pads_inside(self, width: float) -> bool:
        import trimesh

        mesh = trimesh.Trimesh(
            np.asarray(self.obj.vertices), np.asarray(self.obj.faces), process=False
        )
        pts = np.vstack([j.to_world(jaw_prism(self.outline)) for j in place_jaws(self.pose, width)])
        return bool(np.any(mesh.contains(pts)))

    def _reset(self) -> None:
        mj, s, d = self.mujoco, self.scene, self.data
        m = s.model
        set_gripper_pose(s, self.pose)
        for k in range(2):
            for pair in s.pad_object_pairs[k]:
                m.pair_solimp[pair] = self._solimp(k)
                m.pair_solref[pair] = self.stiffness[k].solref()
            m.actuator_forcerange[k] = (-self.force_n, self.force_n)
        mj.mj_resetData(m, d)
        d.qpos[s.object_qpos : s.object_qpos + 7] = [0.0, 0.0, 0.5 * self.params.dhat_m, 1, 0, 0, 0]
        for k in range(2):
            d.qpos[s.pad_qpos[k]] = -0.5 * self.extra_open_m
            d.ctrl[k] = -0.5 * self.extra_open_m
        mj.mj_forward(m, d)

    # --- measurements ------------------------------------------------------------------------
    def _contacts(self) -> dict[str, object]:
        """Forces and touches: pad k on the object, the object on the ground, pad-pad."""
        return contact_readings(self.mujoco, self.scene, self.data)

    def _pad_contact_centres(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Each pad's centre of contact on the object (its normal forces' centroid, world m)."""
        return pad_contact_centres(self.mujoco, self.scene, self.data)

    def _object_pose(self) -> np.ndarray:
        d, b = self.data, self.scene.object_body
        pose = np.eye(4)
        pose[:3, :3] = np.asarray(d.xmat[b]).reshape(3, 3)
        pose[:3, 3] = d.xpos[b]
        return pose

    def _object_min_z(self) -> float:
        pose = self._object_pose()
        return float((self.scene.hull_vertices @ pose[:3, :3].T + pose[:3, 3])[:, 2].min())

    def _pad_world(self, k: int) -> np.ndarray:
        d, b = self.data, self.scene.pad_bodies[k]
        pts = self.pad_points if self.pad_points is not None else jaw_prism(self.outline)
        return np.asarray(pts) @ np.asarray(d.xmat[b]).reshape(3, 3).T + d.xpos[b]

    def _settled(self) -> bool:
        """Jaws and object at rest (below SETTLED_SPEED): the grip force is static, not impact."""
        d, s = self.data, self.scene
        jaws = max(abs(float(d.qvel[s.pad_dofs[0]])), abs(float(d.qvel[s.pad_dofs[1]])))
        j = int(s.model.jnt_dofadr[s.model.body_jntadr[s.object_body]])
        return max(jaws, float(np.abs(d.qvel[j : j + 3]).max())) < SETTLED_SPEED_M_S

    def _travel(self) -> float:
        d, s = self.data, self.scene
        return (
            float(0.5 * (d.qpos[s.pad_qpos[0]] + d.qpos[s.pad_qpos[1]])) + 0.5 * self.extra_open_m
        )

    def _retune(self, points: list[int]) -> None:
        """Share each pad's stiffness among the contact points MuJoCo found (contact.derive)."""
        m, p, mj = self.scene.model, self.params, self.mj
        for k in range(2):
            n = max(points[k], 1)
            if n != self.stiffness[k].points:
                self.stiffness[k] = contact.derive(
                    p.youngs_modulus_pa,
                    self.jaws[k].area_m2,
                    self.outline.thickness_m,
                    mj.time_step_s,
                    self.inv_mass,
                    n,
                    mj.damping_ratio,
                )
                for pair in self.scene.pad_object_pairs[k]:
                    m.pair_solimp[pair] = self._solimp(k)

    def _solimp(self, k: int) -> tuple[float, ...]:
        """Pad k's contact impedance: MuJoCo's default, or the one derived from the pad."""
        if self.mj.contact_model == "mujoco":
            return MUJOCO_SOLIMP
        return self.stiffness[k].solimp()

    # --- the procedure -----------------------------------------------------------------------
    def frames(self) -> Generator[Frame, None, None]:
        """The states every `frame_interval_s`, squeeze then lift and hold; `result` is final after."""
        t0 = time.perf_counter()
        try:
            yield from self._run()
        finally:
            self.result.wall_time_s = time.perf_counter() - t0

    def _frame(self, phase: str, c: dict[str, object], index: int) -> Frame:
        d = self.data
        force = c["force"]
        assert isinstance(force, list)
        psi = tuple(
            f * f / (2.0 * st.pad_stiffness_n_m) if st.pad_stiffness_n_m > 0 else 0.0
            for f, st in zip(force, self.stiffness, strict=True)
        )
        touch, ground, pad_pad = c["touch"], c["ground"], c["pad_pad"]
        assert isinstance(touch, list) and isinstance(ground, int) and isinstance(pad_pad, int)
        min_dist = float(c["min_dist"])  # type: ignore[arg-type]
        r = self.result
        r.frames += 1
        r.min_distance_m = min(r.min_distance_m, min_dist)
        free = min_dist > -self.outline.thickness_m
        r.intersection_free = r.intersection_free and free
        z = self._object_min_z()
        r.lift_height_m = z
        return Frame(
            index=index,
            time_s=float(d.time),
            phase=phase,
            pad_vertices=(self._pad_world(0), self._pad_world(1)),
            object_pose=self._object_pose(),
            plate_travel_m=self._travel(),
            plate_lift_m=float(d.qpos[self.scene.lift_qpos]),
            psi_j=(float(psi[0]), float(psi[1])),
            grip_force_n=(float(force[0]), float(force[1])),
            contacts={
                "pad1_object": int(touch[0]),
                "pad2_object": int(touch[1]),
                "object_ground": ground,
                "pad_pad": pad_pad,
            },
            min_distance_m=min_dist,
            object_min_z_m=z,
            newton_iterations=int(self._iterations),
            intersection_free=free,
        )

    def _step(self, lift_speed: float) -> None:
        d, s = self.data, self.scene
        d.qvel[s.lift_dof] = lift_speed
        self.mujoco.mj_step(s.model, d)
        self._iterations += int(d.solver_niter[0])

    def _run(self) -> Generator[Frame, None, None]:
        self._reset()
        self._iterations = 0
        self._index = 0
        h = self.mj.time_step_s
        self._per_frame = max(1, round(self.mj.frame_interval_s / h))
        # How far past the contact the servo targets lead the jaws.
        self._lead = self.force_n / self.scene.model.actuator_gainprm[0, 0] * 2.0
        squeezed = yield from self._squeeze()
        if not squeezed:
            return
        for k in range(2):  # keep pressing with F
            self.data.ctrl[k] = float(self.data.qpos[self.scene.pad_qpos[k]]) + self._lead
        lift0 = float(self.data.qpos[self.scene.lift_qpos])
        grip = GripTracker()
        jaws = place_jaws(self.pose, self.params.open_width_m)
        normals = (jaws[0].normal, jaws[1].normal)
        grip.start(self._object_pose(), self._pad_contact_centres(), normals, 0.0, 0.0)
        self.result.min_lift_grip_n = math.inf
        yield from self._lift(lift0, grip)
        self._judge(lift0, grip)

    def _emit(self, phase: str, c: dict[str, object]) -> Frame:
        frame = self._frame(phase, c, self._index)
        self._index += 1
        return frame

    def _squeeze(self) -> Generator[Frame, None, bool]:
        """Close with the force-limited servos until both pads press with the grip force and
        everything has settled; False when the trial ends here (the reason set)."""
        p, r, h = self.params, self.result, self.mj.time_step_s
        close_step = p.closing_speed_m_s * h
        max_travel = 0.5 * (p.open_width_m + self.extra_open_m)
        target = -0.5 * self.extra_open_m
        # Squeeze: time to close the whole stroke and settle, at most.
        squeeze_steps = math.ceil((max_travel / p.closing_speed_m_s + 1.0) / h)
        c = self._contacts()
        touched = False  # a pad has touched the object
        for step in range(1, squeeze_steps + 1):
            force = c["force"]
            assert isinstance(force, list)
            if min(force) < self.force_n:
                # Advance the servo targets at the closing speed, never more than `lead` past
                # where the jaw is (so the force limit, not the target, decides the grip).
                for k in range(2):
                    q = float(self.data.qpos[self.scene.pad_qpos[k]])
                    self.data.ctrl[k] = min(target + close_step, q + self._lead)
                target = float(max(self.data.ctrl[0], self.data.ctrl[1]))
            self._step(0.0)
            c = self._contacts()
            points = c["points"]
            assert isinstance(points, list)
            self._retune(points)
            force = c["force"]
            assert isinstance(force, list)
            touch = c["touch"]
            assert isinstance(touch, list)
            done = (
                min(force) >= SQUEEZE_FORCE_FRACTION * self.force_n
                and min(touch) > 0
                and self._settled()
            )
            if step % self._per_frame == 0 or done:
                yield self._emit("squeeze", c)
            if done:
                self._record_squeeze(force)
                return True
            touched = touched or max(touch) > 0
            met = int(c["pad_pad"]) > 0 and min(touch) == 0  # type: ignore[call-overload]
            if met or self._travel() >= max_travel - 1e-6:
                closed = JAWS_CLOSED if met else CLOSED_COMPLETELY
                r.reason = closed_reason(closed, touched, max(touch) > 0)
                return False
        r.reason = "the squeeze did not reach the grip force"
        return False

    def _record_squeeze(self, force: list[float]) -> None:
        r = self.result
        r.grip_force1_n, r.grip_force2_n = force
        r.psi1_j, r.psi2_j = (
            f * f / (2.0 * st.pad_stiffness_n_m)
            for f, st in zip(force, self.stiffness, strict=True)
        )
        r.squeeze_balanced = True

    def _lift(self, lift0: float, grip: GripTracker) -> Generator[Frame, None, None]:
        """Lift (after the ramp, at the lift speed) to the lift height, then hold; `grip`
        follows the object's slip and rotation in the grip."""
        p, h = self.params, self.mj.time_step_s
        z0 = self._object_min_z()
        max_lift = p.lift_height_m + p.slip_tolerance_m
        ramp = p.lift_ramp_s
        phase, t_lift, hold_left = "lift", 0.0, round(p.hold_time_s / h)
        lift_steps = math.ceil((max_lift / p.lift_speed_m_s + ramp + p.hold_time_s + 1.0) / h)
        for step in range(1, lift_steps + 1):
            lifted = float(self.data.qpos[self.scene.lift_qpos]) - lift0
            if phase == "lift":
                speed = p.lift_speed_m_s * (min(1.0, t_lift / ramp) if ramp > 0 else 1.0)
                speed = min(speed, max(max_lift - lifted, 0.0) / h)
                t_lift += h
            else:
                speed = 0.0
            self._step(speed)
            self.data.qvel[self.scene.lift_dof] = 0.0
            z = self._object_min_z()
            lifted = float(self.data.qpos[self.scene.lift_qpos]) - lift0
            slips, turned = grip.update(self._object_pose(), 0.0, lifted)
            out_of_grip = max(slips) > p.slip_tolerance_m or turned > p.rotation_tolerance_rad
            end = False
            if phase == "lift":
                if z >= p.lift_height_m:
                    phase = "hold"
                    grip.reached_height = True
                elif (
                    lifted - (z - z0) > p.slip_tolerance_m
                    or out_of_grip
                    or lifted >= max_lift - 1e-9
                ):
                    end = True
            else:
                hold_left -= 1
                end = hold_left <= 0
            if step % self._per_frame == 0 or end:
                c = self._contacts()
                force = c["force"]
                assert isinstance(force, list)
                self.result.min_lift_grip_n = min(self.result.min_lift_grip_n, min(force))
                yield self._emit(phase, c)
            if end:
                break

    def _judge(self, lift0: float, grip: GripTracker) -> None:
        """The outcome by the IPC simulator's success test (engine.grasp.squeeze_rules)."""
        p, r = self.params, self.result
        c = self._contacts()
        touch, force = c["touch"], c["force"]
        assert isinstance(touch, list) and isinstance(force, list)
        z = self._object_min_z()
        r.lift_height_m = z
        r.newton_iterations = self._iterations
        r.slip1_m, r.slip2_m = grip.max_slip_m
        r.rotation_rad = grip.max_rotation_rad
        summary = ContactSummary(
            pad_object=(int(touch[0]), int(touch[1])),
            object_ground=int(c["ground"]),  # type: ignore[call-overload]
            pad_ground=0,
            pad_pad=int(c["pad_pad"]),  # type: ignore[call-overload]
            grip_force_n=(float(force[0]), float(force[1])),
            min_distance_m=float(c["min_dist"]),  # type: ignore[arg-type]
            object_min_z_m=z,
            intersection_free=True,
        )
        outcome = GripOutcome((r.slip1_m, r.slip2_m), r.rotation_rad, grip.reached_height)
        tolerances = Tolerances(p.slip_tolerance_m, p.rotation_tolerance_rad)
        lifted = float(self.data.qpos[self.scene.lift_qpos]) - lift0
        r.success, r.reason = judge_lift(summary, outcome, tolerances, p.dhat_m, lifted)


def run_mujoco_trial(
    obj: RestingObject,
    trial: PlannedTrial,
    params: SimulationParams,
    mj: MujocoParams | None = None,
    *,
    gripper: GripperSpec | None = None,
    pad_points: np.ndarray | None = None,
    on_frame: OnFrame | None = None,
) -> TrialResult:
    """One planned trial (engine.grasp.trial_plan) in MuJoCo, like engine.grasp.trials.run_trial.

    A perturbed pose that cannot be executed is a failed trial ("invalid perturbed grasp"); the
    nominal pose raises GraspError instead. `on_frame` may return a reason to stop.
    """

    def build() -> MujocoTrial:
        return MujocoTrial(
            obj,
            trial.pose,
            params,
            mj,
            gripper=gripper,
            trial=trial.index,
            perturbation=trial.perturbation_dict,
            pad_points=pad_points,
        )

    return drive_trial(build, trial, on_frame, label="mujoco trial")


def run_mujoco_trials(
    obj: RestingObject,
    grasp: Grasp,
    params: SimulationParams,
    spec: TrialSpec,
    mj: MujocoParams | None = None,
    *,
    gripper: GripperSpec | None = None,
) -> list[TrialResult]:
    """Every trial of `plan_trials(grasp, spec)` in MuJoCo (the IPC simulator's poses)."""
    return [run_mujoco_trial(obj, t, params, mj, gripper=gripper) for t in plan_trials(grasp, spec)]
