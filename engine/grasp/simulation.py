"""The IPC-GraspSim squeeze-lift procedure as a stream of frames.

1. The gripper starts open (contact faces `open_width_m` apart) at the grasp pose.
2. Squeeze: both plates close along the grasp axis (at most `closing_speed_m_s`) until both pad
   strain energies reach Psi_th and agree within `psi_balance_tol` (or both pad forces reach
   `squeeze_force_n`). Near the threshold the plate increment is chosen by a secant on
   log(stop quantity) and a step that overshoots is rolled back, so the overshoot does not
   decide the outcome. The stop counts only once both pads touch the object; pads whose own
   strain (weight, motion) reaches Psi_th before that end the trial with the reason.
3. Lift: plates rise at `lift_speed_m_s` with fixed separation until the object's lowest point
   is `lift_height_m` above the ground, then hold still for `hold_time_s`. The lift ends early
   when the object lags the plates by more than `slip_tolerance_m` (it can no longer reach
   the height before the plates' maximum rise of lift_height + slip_tolerance).
Success: the lift height was reached and, at the end, both pads touch the object and the
object does not touch the ground (contact = closer than the barrier distance dhat).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Generator
from dataclasses import replace

import numpy as np

from engine.errors import SolverError
from engine.grasp.contact_region import ContactRegion, contact_region
from engine.grasp.frames import Frame, TrialResult
from engine.grasp.grip_measures import GripTracker
from engine.grasp.lift import lift
from engine.grasp.pad_force_limit import PadForceLimit
from engine.grasp.params import SimulationParams
from engine.grasp.placement_checks import (
    check_pads_close_on_object,
    layout_builder,
    place_open_jaws,
)
from engine.grasp.squeeze import Squeeze
from engine.grasp.squeeze_rules import FORCE_STOP_TOL as FORCE_STOP_TOL
from engine.grasp.squeeze_rules import GripOutcome, Tolerances, judge_lift
from engine.gripper.pad_geometry import PadMesh, mesh_pad, pad_outline
from engine.ipc import ipctk_gateway as ipc
from engine.ipc.affine_body import pose_matrix
from engine.ipc.contact_metrics import (
    SOURCE_PAD1,
    SOURCE_PAD2,
    ContactForces,
    ContactSummary,
    GripForces,
    grip_forces,
    object_contact_forces,
    summarize_contacts,
)
from engine.ipc.stepper import Stepper, StepperSettings, StepState
from engine.ipc.system import OBJECT_OWNER, GraspSystem
from engine.scene.resting import RestingObject

log = logging.getLogger(__name__)


def build_pad(params: SimulationParams) -> PadMesh:
    """The tetrahedral pad of `params` (outline, edge length, layers)."""
    return mesh_pad(pad_outline(params.pad), params.pad_edge_length_m, params.pad_layers)


def stepper_settings(params: SimulationParams) -> StepperSettings:
    """The time stepping's settings from the simulation's parameters."""
    return StepperSettings(
        time_step_s=params.time_step_s,
        dhat_m=params.dhat_m,
        mu=params.mu,
        ground_mu=params.ground_mu,
        eps_v_m_s=params.eps_v_m_s,
        newton_tol_m=params.newton_tol_m,
        max_newton_iterations=params.max_newton_iterations,
        newton_force_tol_n=params.newton_force_tol_n,
        finger_mass_kg=params.finger_mass_kg,
        grip_load_n=params.squeeze_force_cap_n,
    )


class GraspSimulation:
    """One squeeze-lift trial. Iterate `frames()`; read `result` when it is exhausted.

    A consumer cancels by stopping iteration (or calling `close()` on the generator).
    """

    def __init__(
        self,
        obj: RestingObject,
        gripper_pose: np.ndarray,
        params: SimulationParams,
        pad: PadMesh | None = None,
        trial: int = 0,
        perturbation: dict[str, float] | None = None,
        contact_forces: bool = True,
    ) -> None:
        """`contact_forces`: whether frames carry the per-point contact forces (the app's force
        arrows, frame files); a consumer that reads only `result` skips their ~1 ms per frame."""
        started = time.perf_counter()
        self.contact_forces = contact_forces
        self.params = params.validate()
        ipc.configure_threads()
        self.obj = obj
        self.gripper_pose = np.asarray(gripper_pose, dtype=float)
        self.pad = pad if pad is not None else build_pad(params)

        # IPC-GraspSim opens the jaws further, 1 mm at a time, until they clear the object by
        # 1 mm (`auto_open_m` > 0); by default an open gripper that touches the object is an error.
        placed, _ = place_open_jaws(
            obj,
            self.gripper_pose,
            params,
            self.pad,
            layout_builder(obj, self.pad, object_lift_m=0.5 * params.dhat_m),
        )
        self.open_width_m = placed.open_width_m
        self.normals = placed.normals
        check_pads_close_on_object(obj, placed.jaws, self.pad.outline, self.open_width_m)
        self.result = TrialResult(trial=trial, success=False, reason="not run")
        self.result.perturbation = dict(perturbation or {})
        self.hold_force_n: float | None = None  # what the jaws pressed with in the hold
        self._frame_index = 0
        # A scan's far side takes no part in contact: simulate the faces the pads and the
        # ground can reach, and go on with the whole surface if the object leaves them.
        self.region = contact_region(
            obj, self.gripper_pose, placed.jaws, self.pad, self.open_width_m
        )
        whole = _WholeSurface(obj, self.pad, placed.pad_world, params, self.region)
        self.stepper = Stepper(
            whole.cut() if self.region is not None else whole.whole(),
            self.normals,
            stepper_settings(self.params),
            cut=whole if self.region is not None else None,
        )
        # The set-up is part of the trial's wall time (its first numba kernels and the first
        # contact build run here).
        self._setup_s = time.perf_counter() - started

    # --- the procedure ------------------------------------------------------------------------
    def frames(self) -> Generator[Frame, None, None]:
        """The accepted states as frames, squeeze then lift; `result` is final once exhausted."""
        t0 = time.perf_counter()
        try:
            yield from self._run()
        except SolverError as exc:
            self.result.success = False
            self.result.reason = "solver failed"
            self.result.error = str(exc)
        finally:
            self.result.wall_time_s = self._setup_s + time.perf_counter() - t0

    def _run(self) -> Generator[Frame, None, None]:
        p, r = self.params, self.result
        squeeze = Squeeze(self)
        summary = yield from squeeze.run()
        if summary is None:
            return
        psi = self.system.pad_energies(self.stepper.state.u)
        r.psi1_j, r.psi2_j = psi
        r.grip_force1_n, r.grip_force2_n = summary.grip_force_n
        if summary.pad_object[0] == 0 or summary.pad_object[1] == 0:
            missing = 1 if summary.pad_object[0] == 0 else 2
            r.reason = f"pad {missing} does not touch the object at the end of the squeeze"
            return
        # A force-controlled gripper keeps pressing with the force it has reached; on an object
        # the ground still braces, with the servo force that keeps each pad within the
        # gripper's force, raised back to it once the object leaves the ground.
        hold_force_n = max(0.5 * (summary.grip_force_n[0] + summary.grip_force_n[1]), 0.0)
        limit = (
            squeeze.limit
            if squeeze.limit.braced
            else PadForceLimit.of(p.squeeze_force_cap_n, hold_force_n)
        )
        st = self.stepper.state
        grip = GripTracker()
        grip.start(
            self.object_pose(st), self._contact_centres(st), self.normals, st.travel_m, st.lift_m
        )
        r.min_lift_grip_n = math.inf
        summary = yield from lift(self, hold_force_n if p.hold == "force" else None, grip, limit)
        self.hold_force_n = limit.servo_n if p.hold == "force" else None
        r.slip1_m, r.slip2_m = grip.max_slip_m
        r.rotation_rad = grip.max_rotation_rad
        outcome = GripOutcome((r.slip1_m, r.slip2_m), r.rotation_rad, grip.reached_height)
        tolerances = Tolerances(p.slip_tolerance_m, p.rotation_tolerance_rad)
        r.success, r.reason = judge_lift(
            summary, outcome, tolerances, p.dhat_m, self.stepper.state.lift_m
        )

    def pad_pushes(self, st: StepState) -> tuple[float, float]:
        """The force (N) each pad presses the object with along its closing direction at `st`:
        its contacts' normal and friction forces, what the gripper's actuator carries (0 where
        the step kept no contact term)."""
        s = self.system
        if st.contact is None:
            return (0.0, 0.0)
        forces = object_contact_forces(s, st.contact, s.collision_vertices(st.u))
        out = []
        for source, normal in zip((SOURCE_PAD1, SOURCE_PAD2), self.normals, strict=True):
            mine = forces.source == source
            total = (forces.normal_n[mine] + forces.friction_n[mine]).sum(axis=0)
            out.append(float(total @ normal))
        return (out[0], out[1])

    def _contact_centres(self, st: StepState) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Each pad's centre of contact on the object at `st` (its normal forces' centroid,
        world m; None for a pad without contact force)."""
        s = self.system
        if st.contact is None:
            return (None, None)
        forces = object_contact_forces(s, st.contact, s.collision_vertices(st.u))
        out: list[np.ndarray | None] = []
        for source in (SOURCE_PAD1, SOURCE_PAD2):
            mine = forces.source == source
            weight = np.linalg.norm(forces.normal_n[mine], axis=1)
            total = float(weight.sum())
            out.append(
                None if total <= 0.0 else (forces.points[mine] * weight[:, None]).sum(0) / total
            )
        return (out[0], out[1])

    def approach_limit(self, delta: float, touching: tuple[bool, bool]) -> float:
        """Closing increment that brings no untouched pad closer than 0.9 dhat to the object.

        Used until both pads touch, so one step never jumps from free flight deep into the
        barrier (and CCD never has to resolve a face-on impact, which is slow in ipctk).
        """
        dhat = self.params.dhat_m
        pairs = [(k, OBJECT_OWNER) for k in (0, 1) if not touching[k]]
        if not any(touching):
            pairs.append((0, 1))  # jaws closing on nothing must not jump into each other
        s, axis = self.system, self.normals[0]
        x = s.collision_vertices(self.stepper.state.u)
        # The pushing pad carries the object towards the other pad: their gap closes twice
        # as fast as each plate moves. Only the gap is halved, not the gripper's speed.
        share = 0.5 if any(touching) else 1.0
        # Bodies at least this far apart are: the whole increment fits without a query (the
        # free approach's first steps).
        need = delta / share + 0.9 * dhat
        if min(s.gap_bound(x, a, b, axis, need) for a, b in pairs) >= need:
            return delta
        room = s.closest_gap(x, pairs, 2.0 * delta + dhat, axis) - 0.9 * dhat
        return min(delta, share * room)

    # --- readings and frames ------------------------------------------------------------------
    def object_pose(self, st: StepState) -> np.ndarray:
        """The object's pose at `st` (4x4, world <- its resting frame)."""
        return self.object_pose_at(st.u)

    def object_pose_at(self, u: np.ndarray) -> np.ndarray:
        """The object's pose at the unknowns `u` (4x4, world <- its resting frame)."""
        pose = pose_matrix(self.system.object_state(u))
        pose[:3, 3] -= pose[:3, :3] @ np.asarray(self.obj.center_of_mass, dtype=float)
        return pose

    def _barrier(self, st: StepState) -> ipc.BarrierPotential:
        return ipc.barrier(self.params.dhat_m, max(st.kappa, 1e-300))

    def grip(self, st: StepState) -> GripForces:
        """Each pad's grip force, contact pairs and more at the state `st`."""
        x = self.system.collision_vertices(st.u)
        return grip_forces(self.system, self._barrier(st), x, self.params.dhat_m, self.normals)

    @property
    def system(self) -> GraspSystem:
        """The system the stepper steps (a cut surface until the object leaves it)."""
        return self.stepper.system

    def summary(self, st: StepState, grip: GripForces | None = None) -> ContactSummary:
        """The contacts at `st` (`grip`: self.grip(st), when known)."""
        summary = summarize_contacts(
            self.system, self._barrier(st), st.u, self.params.dhat_m, self.normals, grip=grip
        )
        if self.stepper.cut is not None and self.region is not None:
            # The lowest point of the whole object: the cut's or one of the left-out vertices.
            lowest = self.region.lowest_left_out_m(self.system.object_state(st.u))
            if lowest < summary.object_min_z_m:
                summary = replace(summary, object_min_z_m=lowest)
        return summary

    def frame(
        self, st: StepState, phase: str, iterations: int, grip: GripForces | None = None
    ) -> tuple[Frame, ContactSummary]:
        """The frame of an accepted state (`grip`: self.grip(st), when known)."""
        s = self.system
        summary = self.summary(st, grip)
        pose = self.object_pose(st)
        forces = ContactForces.empty()
        if st.contact is not None and self.contact_forces:
            forces = object_contact_forces(s, st.contact, s.collision_vertices(st.u))
        frame = Frame(
            index=self._frame_index,
            time_s=st.time_s,
            phase=phase,
            pad_vertices=(s.pad_positions(st.u, 0).copy(), s.pad_positions(st.u, 1).copy()),
            object_pose=pose,
            plate_travel_m=st.travel_m,
            plate_lift_m=st.lift_m,
            psi_j=self.system.pad_energies(st.u),
            grip_force_n=summary.grip_force_n,
            contacts=summary.as_dict(),
            min_distance_m=summary.min_distance_m,
            object_min_z_m=summary.object_min_z_m,
            newton_iterations=iterations,
            intersection_free=summary.intersection_free,
            contact_points=forces.points,
            contact_normal_n=forces.normal_n,
            contact_friction_n=forces.friction_n,
            contact_source=forces.source,
        )
        self._frame_index += 1
        r = self.result
        r.frames += 1
        r.newton_iterations += iterations
        r.min_distance_m = min(r.min_distance_m, summary.min_distance_m)
        r.intersection_free = r.intersection_free and summary.intersection_free
        r.lift_height_m = summary.object_min_z_m
        return frame, summary


class _WholeSurface:
    """Builds a trial's system on the object's whole surface or on its contact region (the
    stepper's SurfaceCut)."""

    def __init__(
        self,
        obj: RestingObject,
        pad: PadMesh,
        pad_world: tuple[np.ndarray, np.ndarray],
        params: SimulationParams,
        region: ContactRegion | None,
    ) -> None:
        self.obj, self.pad, self.pad_world, self.params, self.region = (
            obj,
            pad,
            pad_world,
            params,
            region,
        )

    def _build(self, surface: tuple[np.ndarray, np.ndarray] | None) -> GraspSystem:
        p = self.params
        return GraspSystem(
            (self.pad, self.pad),
            self.pad_world,
            self.obj,
            object_lift_m=0.5 * p.dhat_m,
            youngs_modulus_pa=p.youngs_modulus_pa,
            poisson_ratio=p.poisson_ratio,
            pad_density_kg_m3=p.pad_density_kg_m3,
            object_stiffness_pa=p.effective_object_stiffness_pa,
            object_surface=surface,
        )

    def cut(self) -> GraspSystem:
        """The system on the contact region."""
        assert self.region is not None
        return self._build((self.region.vertex_ids, self.region.faces))

    def whole(self) -> GraspSystem:
        """The system on the whole surface."""
        if self.region is not None:
            log.info(
                "the object left its contact region (%d of %d faces): going on with its whole "
                "surface",
                len(self.region.faces),
                self.region.n_faces,
            )
        return self._build(None)

    def holds(self, system: GraspSystem, u: np.ndarray) -> bool:
        return self.region is None or self.region.holds(system, u)
