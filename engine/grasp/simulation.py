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
from dataclasses import dataclass

import numpy as np

from engine.errors import GraspError, NewtonNotConverged, SolverError
from engine.fem.neohookean import elastic_energy
from engine.grasp.frames import Frame, TrialResult
from engine.grasp.params import SimulationParams
from engine.grasp.rays import any_ray_hits
from engine.grasp.squeeze_rules import FORCE_STOP_TOL as FORCE_STOP_TOL
from engine.grasp.squeeze_rules import (
    JAWS_CLOSED,
    force_stop_reached,
    jaws_rest_on_each_other,
    judge_lift,
    overshoot_limit,
    psi_balanced,
    stop_accepted,
    stop_quantity,
    threshold_reached,
)
from engine.gripper.jaws import JawPlacement, place_jaws
from engine.gripper.pad_geometry import PadMesh, mesh_pad, pad_outline
from engine.gripper.presets import GRIPPERS
from engine.ipc import ipctk_gateway as ipc
from engine.ipc.affine_body import pose_matrix
from engine.ipc.candidate_cover import CandidateCover
from engine.ipc.contact_metrics import (
    ContactForces,
    ContactSummary,
    GripForces,
    grip_forces,
    object_contact_forces,
    summarize_contacts,
)
from engine.ipc.ground_rest import equilibrium_lift
from engine.ipc.newton import PatternLdl, newton_solve
from engine.ipc.potential import IncrementalPotential, initial_kappa
from engine.ipc.reduction import Reduction
from engine.ipc.system import OBJECT_OWNER, GraspSystem
from engine.ipc.terms import COVER_MARGIN, SERVO_LAG_M, ActuatorTerm, ContactTerm
from engine.scene.resting import RestingObject

log = logging.getLogger(__name__)


class _StepBlocked(Exception):
    """The rigid-translation initial guess of a step would collide; take a smaller step."""

    def __init__(self, alpha: float) -> None:
        super().__init__(alpha)
        self.alpha = alpha


@dataclass
class _State:
    u: np.ndarray
    v: np.ndarray
    time_s: float
    travel_m: float
    lift_m: float
    kappa: float
    collisions: ipc.NormalCollisions | None = None  # contact set at u, when known
    closing_speed_m_s: float = 0.0  # each plate's closing speed over the last step
    contact: ContactTerm | None = None  # the last step's contact term (its lagged friction)
    lift_speed_m_s: float = 0.0  # the plates' lift speed over the last step


# A free-flight closing step (no pad near the object) spans at most this many time steps.
FREE_FLIGHT_STEPS = 8
# A lift step at the steady lift speed spans up to this many time steps (fewer for the last
# one, so the lift ends within one time step's rise of its height, as with single steps).
STEADY_LIFT_STEPS = 4
# A time step whose Newton solve does not converge is split in two, at most this many times
# (down to 1/8 of the step).
MAX_STEP_HALVINGS = 3
# A step in which one pad pushes the object alone spans at most this many time steps.
PUSH_STEPS = 2


def build_pad(params: SimulationParams) -> PadMesh:
    """The tetrahedral pad of `params` (outline, edge length, layers)."""
    return mesh_pad(pad_outline(params.pad), params.pad_edge_length_m, params.pad_layers)


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
        extra_steps = math.floor(params.auto_open_m / 0.001 + 1e-9)
        for k in range(extra_steps + 1):
            self.open_width_m = params.open_width_m + 0.001 * k
            jaws = place_jaws(self.gripper_pose, self.open_width_m)
            self.normals = (jaws[0].normal, jaws[1].normal)
            pad_world = (
                jaws[0].to_world(self.pad.vertices),
                jaws[1].to_world(self.pad.vertices),
            )
            _check_open_jaws_clear_ground(pad_world)
            self.system = GraspSystem(
                (self.pad, self.pad),
                pad_world,
                obj,
                object_lift_m=0.5 * params.dhat_m,
                youngs_modulus_pa=params.youngs_modulus_pa,
                poisson_ratio=params.poisson_ratio,
                pad_density_kg_m3=params.pad_density_kg_m3,
                object_stiffness_pa=params.effective_object_stiffness_pa,
            )
            try:
                self._check_open_jaws_clear_object(0.001 if extra_steps else params.dhat_m)
                break
            except GraspError:
                if k == extra_steps:
                    raise
        self._check_jaws_close_on_object(jaws)
        s = self.system
        self._glued_rest = s.u_initial[s.fixed].copy()
        # Plate motion of each fixed DOF per metre of closing travel and of lift.
        close_dir = np.zeros(s.ndof)
        lift_dir = np.zeros(s.ndof)
        for blk, n in zip(s.pads, self.normals, strict=True):
            close_dir[blk.dof] = np.tile(n, len(blk.mesh.vertices))
            lift_dir[blk.dof] = np.tile([0.0, 0.0, 1.0], len(blk.mesh.vertices))
        self._close_dir, self._lift_dir = close_dir, lift_dir
        self.result = TrialResult(trial=trial, success=False, reason="not run")
        self.result.perturbation = dict(perturbation or {})
        self._state = _State(s.u_initial.copy(), np.zeros(s.ndof), 0.0, 0.0, 0.0, 0.0)
        self._frame_index = 0
        self._reduction: Reduction | None = None
        self._ldl = PatternLdl()
        # The broad phase of the last initial guess's move that the last step's cover did not
        # hold (_stepsize): the step's first contact set and CCD are then taken from it too.
        self._guess_cover: CandidateCover | None = None
        self._hold_force_n = 0.0
        # Barrier stiffness from ipctk's heuristic at the initial state, once. It lives in the
        # state because a rolled-back step restores the state: with kappa 0 (ipctk only ever
        # doubles it) the ground would stop holding the object for the rest of the trial.
        self._state.kappa, self._kappa_max = initial_kappa(
            s,
            self._state.u,
            params.time_step_s,
            params.dhat_m,
            float(s.mass.diagonal().mean()),
            load_n=params.squeeze_force_cap_n,
        )
        # The object starts where the ground's barrier carries its weight (at dhat/2 the
        # barrier would launch it and the first steps spend iterations settling it).
        x0 = s.collision_vertices(self._state.u)
        self._state.u[s.obj_dof.start + 2] += equilibrium_lift(
            x0[s.object_rows, 2],
            -float(s.gravity_force[s.obj_dof.start + 2]),
            params.dhat_m,
            self._state.kappa,
        )
        # The set-up is part of the trial's wall time (its first numba kernels and the first
        # contact build run here).
        self._setup_s = time.perf_counter() - started

    # --- input checks -------------------------------------------------------------------------
    def _check_open_jaws_clear_object(self, clearance_m: float) -> None:
        s = self.system
        x = s.collision_vertices(s.u_initial)
        if ipc.has_intersections(s.collision_mesh, x) or self._pad_inside_object(x):
            axis = self.gripper_pose[:3, 0]
            width = float(np.ptp(np.asarray(self.obj.vertices) @ axis))
            preset = self.params.preset
            wider = [g.label for g in GRIPPERS.values() if g.stroke_m > max(width, preset.stroke_m)]
            hint = f", or a gripper with a larger stroke ({', '.join(wider)})" if wider else ""
            raise GraspError(
                "the open jaws intersect the object: it is "
                f"{width * 1e3:.1f} mm wide along the closing axis and the {preset.label} "
                f"opens {self.open_width_m * 1e3:.0f} mm, or the grasp centre is off the object; "
                f"move the grasp or choose a narrower closing axis{hint}"
            )
        pairs = [(0, OBJECT_OWNER), (1, OBJECT_OWNER), (0, 1)]
        if self._closest_gap(x, pairs, clearance_m) < clearance_m:
            raise GraspError(
                "the open jaws touch the object before closing (closer than "
                f"{clearance_m * 1e3:.2f} mm); move the grasp so the open jaws "
                "are clear of the object"
            )

    def _closest_gap(self, x: np.ndarray, pairs: list[tuple[int, int]], radius: float) -> float:
        """Smallest distance (m) between the bodies of any pair, or inf if none is within radius.

        The bodies' separation along the closing axis bounds their distance from below. A
        pad approaching a face squarely is that far from it: the pairs just beyond it (one dhat)
        hold the closest one, and a tilted pad's are found a little further (a quarter more),
        while the whole radius can hold thousands of pairs (4-8 ms per query on the 98-vertex
        Table V cube against 1-2 ms). Each search is exact once it finds a pair: every pair
        outside it is further apart than its radius.
        """
        s = self.system
        dhat = self.params.dhat_m
        gap = math.inf
        for a, b in pairs:
            apart = self._apart(x, a, b)
            searches = [apart + dhat, 1.25 * apart + dhat] if apart > 0.0 else []
            for reach in [r for r in searches if r < radius] + [radius]:
                d = s.pair_distance(a, b, x, reach)
                if d < math.inf or reach == radius:
                    gap = min(gap, d)
                    break
        return gap

    def _apart(self, x: np.ndarray, a: int, b: int) -> float:
        """How far apart bodies a and b are along the closing axis at collision positions x
        (m; negative where their extents overlap): a lower bound on their distance."""
        owner, axis = self.system.collision_owner, self.normals[0]
        pa, pb = x[owner == a] @ axis, x[owner == b] @ axis
        return float(max(pb.min() - pa.max(), pa.min() - pb.max()))

    def _pad_inside_object(self, x: np.ndarray) -> bool:
        """A pad wholly inside the object crosses no surface, so test containment too."""
        import trimesh

        s = self.system
        mesh = trimesh.Trimesh(x[s.object_rows], self.obj.faces, process=False)
        pad_points = x[s.collision_owner != OBJECT_OWNER]
        return bool(np.any(mesh.contains(pad_points)))

    def _check_jaws_close_on_object(self, jaws: tuple[JawPlacement, JawPlacement]) -> None:
        """Rays from jaw 0's contact face along its closing direction must hit the object."""
        outline = self.pad.outline.polygon
        lo, hi = outline.min(axis=0), outline.max(axis=0)
        a, b = np.meshgrid(np.linspace(lo[0], hi[0], 24), np.linspace(lo[1], hi[1], 16))
        pts = np.column_stack([a.ravel(), b.ravel()])
        pts = pts[_inside_polygon(pts, outline)]
        origins = jaws[0].to_world(np.column_stack([pts, np.zeros(len(pts))]))
        normal = np.asarray(jaws[0].normal, dtype=float)
        if any_ray_hits(origins, normal, self.obj.vertices, self.obj.faces, self.open_width_m):
            return
        raise GraspError(
            "the grasp misses the object: closing the jaws would not touch it. Move the grasp "
            "centre onto the object (resting-frame bounds "
            f"{np.round(self.obj.vertices.min(0) * 1e3, 1).tolist()} .. "
            f"{np.round(self.obj.vertices.max(0) * 1e3, 1).tolist()} mm)"
        )

    # --- stepping -----------------------------------------------------------------------------
    def _dirichlet(self, travel: float, lift: float) -> np.ndarray:
        s = self.system
        return self._glued_rest + travel * self._close_dir[s.fixed] + lift * self._lift_dir[s.fixed]

    def _step(
        self,
        d_travel: float,
        d_lift: float,
        object_shift: np.ndarray | None = None,
        hold_force_n: float | None = None,
        servo_travel_m: float | None = None,
        h_s: float | None = None,
        halvings: int = 0,
    ) -> tuple[_State, int]:
        """`_solve_step`, or two half steps (each with half the motion) where Newton does not
        converge in one, up to MAX_STEP_HALVINGS times; the Newton iterations spent.

        A step that squeezes an object out of the pads, or turns it on a pad's edge, changes
        the contact set and the friction's directions within one time step; the friction is
        lagged (its normal forces and tangents fixed at the step's start), and over 10 ms that
        lag can leave no state Newton converges to (REACH grasp 4, trial 2 at mu 0.5: 200
        full steps of 2 um, a 4 N residual on the object barely shrinking). Halving the step
        halves the lag; the frame is still reported at the end of the whole step.
        """
        args = (d_travel, d_lift, object_shift, hold_force_n, servo_travel_m, h_s)
        try:
            return self._solve_step(*args)
        except NewtonNotConverged as exc:
            if halvings >= MAX_STEP_HALVINGS:
                raise
            spent = exc.iterations
        h = self.params.time_step_s if h_s is None else h_s
        shift = None if object_shift is None else 0.5 * object_shift
        servo = None if servo_travel_m is None else 0.5 * servo_travel_m
        half = (0.5 * d_travel, 0.5 * d_lift, shift, hold_force_n, servo, 0.5 * h)
        saved = self._state
        try:
            first, its1 = self._step(*half, halvings=halvings + 1)
            self._state = first
            second, its2 = self._step(*half, halvings=halvings + 1)
        finally:
            self._state = saved
        return second, spent + its1 + its2

    def _solve_step(
        self,
        d_travel: float,
        d_lift: float,
        object_shift: np.ndarray | None = None,
        hold_force_n: float | None = None,
        servo_travel_m: float | None = None,
        h_s: float | None = None,
    ) -> tuple[_State, int]:
        """Advance one time step (of h_s, default the time step) with the plates moved by
        (d_travel, d_lift).

        With `hold_force_n`, the plates' closing is not prescribed: the actuator pushes each
        jaw with that force and the solve finds how far they close (d_travel must be 0).
        The initial guess (_initial_guess) must be intersection-free.
        """
        p, s, st = self.params, self.system, self._state
        h = p.time_step_s if h_s is None else h_s
        x0 = s.collision_vertices(st.u)
        servo = hold_force_n is not None
        guess, reference = self._initial_guess(st, h, x0, d_travel, d_lift, object_shift, servo)
        actuator = None
        if hold_force_n is not None:
            actuator = ActuatorTerm(
                self._force_reduction(),
                reference,
                hold_force_n,
                p.finger_mass_kg,
                st.closing_speed_m_s,
                h,
                command_m=servo_travel_m,
            )
        potential = self._potential(
            st, h, actuator, self._first_cover(st, s.collision_vertices(guess))
        )
        res = newton_solve(
            potential,
            guess,
            p.newton_tol_m,
            p.max_newton_iterations,
            self._ldl,
            force_tol=p.newton_force_tol_n,
            chord_start=True,
        )
        closed = d_travel if actuator is None else actuator.travel(res.u)
        new = _State(
            res.u,
            (res.u - st.u) / h,
            st.time_s + h,
            st.travel_m + closed,
            st.lift_m + d_lift,
            potential.kappa,
            potential.collisions,
            closed / h,
            potential.contact,
            d_lift / h,
        )
        return new, res.iterations

    def _initial_guess(
        self,
        st: _State,
        h: float,
        x0: np.ndarray,
        d_travel: float,
        d_lift: float,
        object_shift: np.ndarray | None,
        servo: bool,
    ) -> tuple[np.ndarray, np.ndarray]:
        """A step's initial guess (intersection-free on the way from x0, the collision
        vertices at st) and the state whose glued vertices are the plates moved by
        (d_travel, d_lift): the reference of the closing coordinate (s = 0) of force-driven
        plates (`servo`).

        Servo steps start from the inertial guess when it is valid: the jaws keep their closing
        speed (s = h v_closing; during a lift the servo creeps a fraction of a um per step,
        comparable to the contact gaps, and starting from s = 0 costs iterations) and, once the
        pads deform, every pad vertex keeps its velocity relative to its plate and the object
        its velocity (the 25 REACH nominal grasps: 3865 Newton iterations instead of 4130).
        Otherwise the pads move rigidly with their plates and the object by its velocity or
        `object_shift`, whichever CCD lets through first.
        """
        s = self.system
        glued = self._dirichlet(st.travel_m + d_travel, st.lift_m + d_lift)
        closing = h * st.closing_speed_m_s * self._close_dir
        if servo:
            inertial = self._inertial_guess(st, h, d_travel, d_lift, closing)
            if inertial is not None and self._valid_start(x0, inertial):
                reference = inertial.copy()
                reference[s.fixed] = glued
                return inertial, reference
        guess = st.u + d_travel * self._close_dir + d_lift * self._lift_dir
        alpha = 0.0
        obj = slice(s.obj_dof.start, s.obj_dof.start + 12)
        moves = []
        if np.any(st.v[obj]) or d_lift:
            # The object keeps its velocity (pushed along the ground), and its velocity relative
            # to the plates' lift (held: see _inertial_guess): the inertial prediction is close
            # to the solution, so Newton needs few iterations.
            move = h * st.v[obj]
            move[2] += d_lift - h * st.lift_speed_m_s
            moves.append(move)
        if object_shift is not None and np.any(object_shift):
            moves.append(np.concatenate([object_shift, np.zeros(9)]))
        for move in moves:
            shifted = guess.copy()
            shifted[obj] += move
            alpha = self._stepsize(x0, s.collision_vertices(shifted))
            if alpha >= 1.0:
                guess = shifted
                break
        if alpha < 1.0:
            alpha = self._stepsize(x0, s.collision_vertices(guess))
        if alpha < 1.0:
            # A pad pressed against the object cannot translate further than its contact gap;
            # start instead from the current state with only the glued back faces moved (the
            # pads compress by the plate increment, which the Newton solve then relaxes).
            guess = st.u.copy()
            guess[s.fixed] = glued
            if not self._valid_start(x0, guess):
                raise _StepBlocked(float(alpha))
        guess[s.fixed] = glued
        reference = guess.copy()
        if servo and st.closing_speed_m_s != 0.0:
            predicted = guess + closing
            if self._valid_start(x0, predicted):
                guess = predicted
        return guess, reference

    def _inertial_guess(
        self, st: _State, h: float, d_travel: float, d_lift: float, closing: np.ndarray
    ) -> np.ndarray | None:
        """The state after h if each pad vertex keeps its velocity relative to its plate and
        the object its velocity relative to the plates' lift, the plates moved by
        (d_travel, d_lift) plus `closing` (full DOFs, m); None while the pads move rigidly
        (nothing to extrapolate).

        A held object rises with the plates: while they speed up (the lift's ramp) or stop
        (the hold), its own velocity alone would leave it behind by more than the friction's
        stick zone (eps_v h, 10 um), where the friction force is saturated and Newton's model
        of the object's height has only its inertia: the 98-vertex Table V cube then spent 3-5
        iterations per lift step on centimetre steps that CCD cut to microns.
        """
        s = self.system
        out = st.u + d_travel * self._close_dir + d_lift * self._lift_dir + closing
        deforming = False
        for blk in s.pads:
            v = st.v[blk.dof].reshape(-1, 3)
            relative = v - v[int(np.argmax(blk.mesh.glued))]  # a glued vertex moves with the plate
            deforming = deforming or bool(np.any(relative))
            out[blk.dof] += h * relative.ravel()
        if not deforming:
            return None
        obj = s.obj_dof
        out[obj] = st.u[obj] + h * st.v[obj]
        out[obj.start + 2] += d_lift - h * st.lift_speed_m_s
        out[s.fixed] = (
            self._dirichlet(st.travel_m + d_travel, st.lift_m + d_lift) + closing[s.fixed]
        )
        return out

    def _force_reduction(self) -> Reduction:
        """The unknowns of force-driven plates (built once per trial)."""
        if self._reduction is None:
            self._reduction = Reduction(self.system, self._close_dir)
        return self._reduction

    def _potential(
        self,
        st: _State,
        h: float,
        actuator: ActuatorTerm | None = None,
        cover: CandidateCover | None = None,
    ) -> IncrementalPotential:
        """The incremental potential of the time step of h seconds that starts at `st`, its
        contact term starting from `cover` (see _first_cover)."""
        p = self.params
        return IncrementalPotential(
            self.system,
            st.u,
            st.v,
            h,
            st.kappa,
            self._kappa_max,
            p.dhat_m,
            p.mu,
            p.ground_mu,
            p.eps_v_m_s,
            st.collisions,
            actuator,
            cover,
        )

    def _valid_start(self, x0: np.ndarray, guess: np.ndarray) -> bool:
        """An initial guess must not invert a pad element nor collide on the way from x0."""
        if not all(math.isfinite(e) for e in self._pad_energies(guess)):
            return False
        s = self.system
        return self._stepsize(x0, s.collision_vertices(guess)) >= 1.0

    def _stepsize(self, x0: np.ndarray, x1: np.ndarray) -> float:
        """collision_free_stepsize of the move x0 -> x1 from the current state, from the last
        step's broad phase when it covers the move, else from a cover of this move (kept as
        the guess cover: a lift step's guess leaves the last cover, and the same broad phase
        then serves the step's first contact set and first CCD)."""
        contact = self._state.contact
        alpha = contact.covered_stepsize(x0, x1) if contact is not None else None
        if alpha is None:
            mesh = self.system.collision_mesh
            dhat = self.params.dhat_m
            cover = CandidateCover.holding(
                self._guess_cover, mesh, x0, x1, dhat, COVER_MARGIN * dhat
            )
            self._guess_cover = cover
            alpha = ipc.candidates_stepsize(cover.candidates, mesh, x0, x1)
        return alpha

    def _first_cover(self, st: _State, x: np.ndarray) -> CandidateCover | None:
        """The cover a step starting from `st` at the initial guess x (collision vertices)
        begins with: the last step's, or the guess cover when only that one holds x."""
        last = st.contact.cover if st.contact is not None else None
        if last is not None and last.covers(x):
            return last
        guess = self._guess_cover
        return guess if guess is not None and guess.covers(x) else last

    def _pad_energies(self, u: np.ndarray) -> tuple[float, float]:
        s = self.system
        out = [
            elastic_energy(s.pad_positions(u, k), blk.rest, s.mu_lame, s.lambda_lame)
            for k, blk in enumerate(s.pads)
        ]
        return (out[0], out[1])

    def _barrier(self, st: _State) -> ipc.BarrierPotential:
        return ipc.barrier(self.params.dhat_m, max(st.kappa, 1e-300))

    def _grip(self, st: _State) -> GripForces:
        x = self.system.collision_vertices(st.u)
        return grip_forces(self.system, self._barrier(st), x, self.params.dhat_m, self.normals)

    def _summary(self, st: _State, grip: GripForces | None = None) -> ContactSummary:
        return summarize_contacts(
            self.system, self._barrier(st), st.u, self.params.dhat_m, self.normals, grip=grip
        )

    def _frame(
        self, st: _State, phase: str, iterations: int, grip: GripForces | None = None
    ) -> tuple[Frame, ContactSummary]:
        """The frame of an accepted state (`grip`: self._grip(st), when known)."""
        s = self.system
        summary = self._summary(st, grip)
        q = s.object_state(st.u)
        pose = pose_matrix(q)
        pose[:3, 3] -= pose[:3, :3] @ np.asarray(self.obj.center_of_mass, dtype=float)
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
            psi_j=self._pad_energies(st.u),
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
        summary = yield from self._squeeze()
        if summary is None:
            return
        psi = self._pad_energies(self._state.u)
        r.psi1_j, r.psi2_j = psi
        r.grip_force1_n, r.grip_force2_n = summary.grip_force_n
        # A force-controlled gripper keeps pressing with the force it has reached.
        self._hold_force_n = max(0.5 * (summary.grip_force_n[0] + summary.grip_force_n[1]), 0.0)
        if summary.pad_object[0] == 0 or summary.pad_object[1] == 0:
            missing = 1 if summary.pad_object[0] == 0 else 2
            r.reason = f"pad {missing} does not touch the object at the end of the squeeze"
            return
        summary = yield from self._lift()
        if summary is None:
            return
        r.success, r.reason = judge_lift(summary, p.lift_height_m, p.dhat_m, self._state.lift_m)

    def _squeeze(self) -> Generator[Frame, None, ContactSummary | None]:
        """Close until the stop quantity is in [th, (1+overshoot) th]; returns the last summary."""
        p, r = self.params, self.result
        stop, threshold = p.squeeze_stop()
        use_force = stop == "force"
        upper = overshoot_limit(threshold, p.threshold_overshoot)
        target = threshold * math.sqrt(1.0 + p.threshold_overshoot)
        delta_max = p.closing_speed_m_s * p.time_step_s
        delta_min = p.newton_tol_m  # plate increments below the Newton tolerance are noise
        first_contact = p.dhat_m / 8.0
        max_travel = 0.5 * self.open_width_m
        contact_cap = 0.5 * p.dhat_m  # in contact, never move more than half the barrier zone
        delta = delta_max
        q_prev = 0.0  # stop quantity of the previous frame, 0 until both pads touch
        unbalanced = 0
        touching = (False, False)
        summary = None
        # A force-controlled gripper (hold="force") closes on position until both pads touch,
        # then as a force-limited servo: the jaws follow the same closing increments but push
        # with at most force_cap (the force stop, or the gripper's maximum for a Psi stop), so
        # the squeeze can never overshoot the force. The paper's position-driven jaws
        # (hold="position") keep closing on position throughout.
        force_drive = p.hold == "force"
        force_cap = p.squeeze_force_cap_n
        settled_steps = 0
        blocked_before = False
        for _ in range(p.max_steps):
            st = self._state
            if st.travel_m + delta > max_travel:
                delta = max_travel - st.travel_m
                if delta <= delta_min:
                    r.reason = "jaws closed completely without reaching the squeeze threshold"
                    return None
            h = p.time_step_s
            if all(touching):
                delta = min(delta, contact_cap)
            elif delta >= delta_max and not blocked_before:
                if not any(touching):
                    # Free flight: nothing moves but the plates (at the closing speed) until a
                    # pad comes within the barrier zone, so one longer step covers what several
                    # would. Additive CCD stops a motion at a fraction of the starting gap (its
                    # conservative rescaling), so a free step closes at most 80 % of the gap.
                    longest = FREE_FLIGHT_STEPS * delta_max
                    room = self._approach_limit(2.0 * longest, touching)
                    step = min(longest, 0.8 * (room + 0.9 * p.dhat_m), max_travel - st.travel_m)
                else:
                    # One pad pushes the object along the ground at the closing speed, a slow
                    # quasi-static slide: a step spans PUSH_STEPS time steps while the other pad
                    # is far (the pushed object turns by the same 4.4 deg in REACH grasp 2 as
                    # with single steps).
                    step = self._approach_limit(PUSH_STEPS * delta_max, touching)
                if step > delta_max:
                    delta, h = step, step / p.closing_speed_m_s
                else:
                    delta = max(step, first_contact)
            else:
                delta = min(delta, max(self._approach_limit(delta, touching), first_contact))
            # A pad that pushes the object alone carries it along in the initial guess.
            shift = np.zeros(3)
            if touching[0] != touching[1]:
                shift = delta * self.normals[0 if touching[0] else 1]
            servo = force_drive and all(touching)
            try:
                if servo:
                    new, its = self._step(0.0, 0.0, hold_force_n=force_cap, servo_travel_m=delta)
                else:
                    new, its = self._step(delta, 0.0, object_shift=shift, h_s=h)
            except _StepBlocked as blocked:
                delta = max(0.5 * blocked.alpha * delta, delta_min)
                blocked_before = True  # the next step is an ordinary one, not a longer retry
                continue
            blocked_before = False
            grip = self._grip(new)
            forces, pairs, _ = grip
            q = stop_quantity(forces if use_force else self._pad_energies(new.u), use_force)
            gripping = min(pairs) > 0
            if not gripping:  # the pads' strain is their own (weight, motion), not grip
                q_free, q = q, 0.0
            if q > upper and delta > delta_min:
                r.rollbacks += 1
                if q_prev > 0.0 and q > q_prev:
                    ratio = math.log(target / q_prev) / math.log(q / q_prev)
                    delta *= min(max(ratio, 0.05), 0.5)
                else:
                    delta *= 0.25
                continue
            self._state = new
            frame, summary = self._frame(new, "squeeze", its, grip)
            yield frame
            touching = (summary.pad_object[0] > 0, summary.pad_object[1] > 0)
            if summary.pad_pad > 0 and min(summary.pad_object) == 0:
                r.reason = JAWS_CLOSED
                return None
            if not gripping and q_free >= threshold:
                # IPC-GraspSim's rule (A): Psi_th must lie above the strain energy that other
                # forces (gravity) give the pads, or the squeeze cannot tell when it grips.
                psi = frame.psi_j
                r.reason = "squeeze threshold reached before gripping"
                r.error = (
                    f"both pads' strain energy ({psi[0]:.3g}, {psi[1]:.3g} J) reached Psi_th = "
                    f"{threshold:.3g} J before they gripped the object: at E = "
                    f"{p.youngs_modulus_pa:.3g} Pa the pads' own weight and motion strain them "
                    "that much; raise Psi_th well above it (or stop the squeeze on a force)"
                )
                return None
            # A servo step presses with at most force_cap: a force stop is reached when the
            # contact force has come within FORCE_STOP_TOL of it and the jaws have stopped
            # (closing slower than 1 % of the gripper's speed).
            at_rest = servo and abs(new.closing_speed_m_s) < 0.01 * p.closing_speed_m_s
            if servo and use_force:
                # The fingers' and pads' momentum can press the contact above the servo's force
                # for a few steps after impact: wait until it has settled within the tolerance
                # (or has stayed at rest for 10 steps).
                settled_steps = settled_steps + 1 if at_rest else 0
                reached = force_stop_reached(q, threshold, at_rest, settled_steps)
            else:
                # A force-driven squeeze ends on a servo step only: a position step in which both
                # pads meet the object at once (a flat pad on a faceted cylinder: 67 pairs) can
                # press past the force, and the servo then eases it to the force it applies.
                reached = threshold_reached(q, threshold, servo, force_drive)
            # Jaws at rest against each other: the squeeze can get no further (without this a
            # force stop waited for a force it could not reach until max_steps, "solver failed"),
            # and a Psi stop they reach by pressing each other grips nothing (the trial lifted
            # and ended "object slipped").
            grip_n = stop_quantity(forces, True)
            rest = jaws_rest_on_each_other(summary.pad_pad, at_rest, reached, grip_n, force_cap)
            if rest == "closed":
                r.reason = JAWS_CLOSED
                return None
            if rest == "holding":
                log.info(
                    "squeeze: the jaws rest against each other around the object, holding it "
                    "with %.3g N per jaw",
                    grip_n,
                )
                return summary
            # Saturated: the object held the jaws back from the commanded increment, so they
            # press with force_cap.
            saturated = servo and delta - (new.travel_m - st.travel_m) > SERVO_LAG_M
            if saturated and at_rest and not use_force and not reached:
                # The gripper presses as hard as it can and Psi_th is not reached: it stops
                # there, as the real gripper would.
                log.info(
                    "squeeze: the gripper's %.3g N per jaw reach Psi = %.3g J < Psi_th = %.3g J;"
                    " holding at that force",
                    force_cap,
                    q,
                    threshold,
                )
                return summary
            if reached:
                psi = frame.psi_j
                balanced = psi_balanced(psi, p.psi_balance_tol)
                r.squeeze_balanced = bool(balanced or use_force)
                if stop_accepted(r.squeeze_balanced, unbalanced, q, threshold):
                    return summary
                unbalanced += 1
            elif not gripping:
                delta = delta_max  # the approach limit sizes the next step
            elif q_prev == 0.0:
                delta = first_contact
            elif q > q_prev * (1.0 + 1e-6):
                # Secant on log(q) against plate travel towards the middle of the window; a
                # step that overshoots is rolled back, so growth may be bold and shrinking mild.
                ratio = math.log(target / q) / math.log(q / q_prev)
                delta = min(delta * min(max(ratio, 0.5), 4.0), delta_max)
            else:
                # q did not grow: the object yields (slides, rolls on an edge); close faster.
                delta = min(2.0 * delta, delta_max)
            q_prev = q
        raise SolverError(f"the squeeze did not finish within {p.max_steps} steps")

    def _approach_limit(self, delta: float, touching: tuple[bool, bool]) -> float:
        """Closing increment that brings no untouched pad closer than 0.9 dhat to the object.

        Used until both pads touch, so one step never jumps from free flight deep into the
        barrier (and CCD never has to resolve a face-on impact, which is slow in ipctk).
        """
        dhat = self.params.dhat_m
        pairs = [(k, OBJECT_OWNER) for k in (0, 1) if not touching[k]]
        if not any(touching):
            pairs.append((0, 1))  # jaws closing on nothing must not jump into each other
        x = self.system.collision_vertices(self._state.u)
        # The pushing pad carries the object towards the other pad: their gap closes twice
        # as fast as each plate moves. Only the gap is halved, not the gripper's speed.
        share = 0.5 if any(touching) else 1.0
        # Bodies at least this far apart along the closing axis are at least this far apart:
        # the whole increment fits without a query (the free approach's first steps).
        if min(self._apart(x, a, b) for a, b in pairs) >= delta / share + 0.9 * dhat:
            return delta
        room = self._closest_gap(x, pairs, 2.0 * delta + dhat) - 0.9 * dhat
        return min(delta, share * room)

    def _lift_increment(self, elapsed_s: float, h: float) -> float:
        """Plate rise over the next step of h seconds: the speed ramps up linearly over
        lift_ramp_s.

        Jerking a held object to full speed in one step would add an inertial load of
        m v / h (as large as the weight of the 3 g cube at 0.1 m/s and h = 0.01 s), so the grip
        would be tested against more than gravity.
        """
        p = self.params
        if p.lift_ramp_s <= 0:
            return p.lift_speed_m_s * h
        t0, t1 = elapsed_s, elapsed_s + h
        ramp = p.lift_ramp_s

        # Integral of v(t) = v_max min(1, t / ramp) over [t0, t1].
        def dist(t: float) -> float:
            return 0.5 * t * t / ramp if t <= ramp else 0.5 * ramp + (t - ramp)

        return p.lift_speed_m_s * (dist(t1) - dist(t0))

    def _hold_command(self, force_n: float | None, h: float) -> float | None:
        """The force hold's servo command for a step of h seconds: the jaws press with the
        force, but close at most at the gripper's closing speed, as a real gripper's fingers
        do when the object gives way (a pure force would fling them shut in one step: the
        fingers' inertia is all that resists, and Newton then fails on centimetre steps)."""
        return None if force_n is None else self.params.closing_speed_m_s * h

    def _steady_lift_steps(self, height_m: float) -> int:
        """Time steps one steady-speed lift step spans: STEADY_LIFT_STEPS, or as few as bring
        the object from `height_m` to the lift height (a longer step would overshoot it)."""
        p = self.params
        rise = p.lift_speed_m_s * p.time_step_s
        needed = math.ceil((p.lift_height_m - height_m) / rise - 1e-9)
        return max(1, min(STEADY_LIFT_STEPS, needed))

    def _lift(self) -> Generator[Frame, None, ContactSummary]:
        p, st0 = self.params, self._state
        max_lift = p.lift_height_m + p.slip_tolerance_m
        t_start = st0.time_s
        summary = self._summary(st0)
        z0 = summary.object_min_z_m
        phase = "lift"
        hold_steps = round(p.hold_time_s / p.time_step_s)
        force = self._hold_force_n if p.hold == "force" else None
        for _ in range(p.max_steps):
            st = self._state
            if phase == "lift":
                elapsed = st.time_s - t_start
                # Once the plates rise at a steady speed, nothing changes from step to step
                # but the height: longer steps cover the same lift.
                steady = p.lift_ramp_s <= 0 or elapsed >= p.lift_ramp_s - 1e-9
                h = p.time_step_s * (
                    self._steady_lift_steps(summary.object_min_z_m) if steady else 1
                )
                d = min(self._lift_increment(elapsed, h), max_lift - st.lift_m)
                servo = self._hold_command(force, h)
                try:
                    new, its = self._step(
                        0.0,
                        d,
                        object_shift=np.array([0.0, 0.0, d]),
                        hold_force_n=force,
                        servo_travel_m=servo,
                        h_s=h,
                    )
                except _StepBlocked as blocked:
                    # Rare: the rigid guess touches something; take a shorter step this once.
                    d = max(0.5 * blocked.alpha * d, 1e-6)
                    new, its = self._step(0.0, d, hold_force_n=force, servo_travel_m=servo, h_s=h)
            else:
                new, its = self._step(
                    0.0,
                    0.0,
                    hold_force_n=force,
                    servo_travel_m=self._hold_command(force, p.time_step_s),
                )
            self._state = new
            frame, summary = self._frame(new, phase, its)
            yield frame
            if phase == "lift":
                lag = new.lift_m - (summary.object_min_z_m - z0)
                if summary.object_min_z_m >= p.lift_height_m:
                    phase = "hold"
                elif lag > p.slip_tolerance_m or new.lift_m >= max_lift - 1e-12:
                    return summary
            else:
                hold_steps -= 1
            if phase == "hold" and hold_steps <= 0:
                return summary
        raise SolverError(f"the lift did not finish within {p.max_steps} steps")


def _check_open_jaws_clear_ground(pad_world: tuple[np.ndarray, np.ndarray]) -> None:
    low = min(float(x[:, 2].min()) for x in pad_world)
    if low <= 0.0:
        raise GraspError(
            f"the open jaws reach {low * 1e3:.1f} mm below the ground plane; raise the grasp "
            f"centre by at least {-low * 1e3 + 1:.0f} mm or tilt the approach"
        )


def _inside_polygon(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """Even-odd point-in-polygon test for (n,2) points against a (k,2) closed polygon."""
    x, y = points[:, 0:1], points[:, 1:2]
    x0, y0 = polygon[:, 0], polygon[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    crosses = (y0 > y) != (y1 > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        xi = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
    return np.logical_and(crosses, x < xi).sum(axis=1) % 2 == 1
