"""Implicit-Euler time stepping of a grasp system under a gripper command.

A `Stepper` owns the system's dynamic state (positions, velocities, plate travel and lift, the
barrier stiffness, the last step's contact term) and advances it by one `StepCommand`: the
plates moved on position (closing travel, lift), or pressed by a force-limited actuator (hold
force, servo travel). Each step minimises the incremental potential (engine.ipc.potential: a
list of terms) with `newton_solve`, from an intersection-free initial guess. It knows nothing of
squeezes and lifts (engine.grasp.simulation decides the commands) and reads its settings from
`StepperSettings`, not from the simulation's parameters.

A step raises `StepBlocked` when no intersection-free initial guess reaches the commanded plate
positions (the caller takes a shorter one) and `NewtonNotConverged` when even the halved steps
do not converge.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol, overload

import numpy as np

from engine.errors import NewtonNotConverged
from engine.ipc import ipctk_gateway as ipc
from engine.ipc.actuator_term import ActuatorTerm
from engine.ipc.candidate_cover import CandidateCover
from engine.ipc.contact_term import COVER_MARGIN, ContactTerm
from engine.ipc.ground_rest import equilibrium_lift
from engine.ipc.internal_term import InternalTerm
from engine.ipc.load_term import LoadTerm
from engine.ipc.newton import Hints, PatternLdl, newton_solve
from engine.ipc.potential import IncrementalPotential, initial_kappa
from engine.ipc.reduction import Reduction
from engine.ipc.step_start import StepStart
from engine.ipc.step_types import StepCommand, StepperSettings, StepState
from engine.ipc.system import GraspSystem
from engine.ipc.terms import Term

# A time step whose Newton solve does not converge is split in two, at most this many times
# (down to 1/8 of the step).
MAX_STEP_HALVINGS = 3


class StepBlocked(Exception):
    """No initial guess of a step is intersection-free; take a smaller step. `alpha`: the
    largest fraction of the step a tried start allows (a pushed object carried along: the
    other pad's approach, not the pushing pad's contact, limits the step)."""

    def __init__(self, alpha: float) -> None:
        super().__init__(alpha)
        self.alpha = alpha


class SurfaceCut(Protocol):
    """A system whose object takes part in contact with a part of its surface only: valid
    while `holds` at every accepted state; `whole()` is the system with its whole surface."""

    def holds(self, system: GraspSystem, u: np.ndarray) -> bool: ...

    def whole(self) -> GraspSystem: ...


class Stepper:
    """Time stepping of one trial's system; `state` is the last accepted state."""

    def __init__(
        self,
        system: GraspSystem,
        normals: tuple[np.ndarray, np.ndarray],
        settings: StepperSettings,
        cut: SurfaceCut | None = None,
    ) -> None:
        """`normals`: each jaw's closing direction. `cut`: how `system`'s object surface was
        cut to the part that takes part in contact (None: it is whole)."""
        self.system = s = system
        self.cut = cut
        self.settings = settings
        self.normals = normals
        self._glued_rest = s.u_initial[s.fixed].copy()
        # Plate motion of each fixed DOF per metre of closing travel and of lift.
        close_dir = np.zeros(s.ndof)
        lift_dir = np.zeros(s.ndof)
        for blk, n in zip(s.pads, normals, strict=True):
            close_dir[blk.dof] = np.tile(n, len(blk.mesh.vertices))
            lift_dir[blk.dof] = np.tile([0.0, 0.0, 1.0], len(blk.mesh.vertices))
        self.close_dir, self.lift_dir = close_dir, lift_dir
        self.state = StepState(s.u_initial.copy(), np.zeros(s.ndof), 0.0, 0.0, 0.0, 0.0)
        self._reductions: dict[bool, Reduction] = {}  # by force_driven, for this system
        self._ldl = PatternLdl()
        # The broad phase of the last initial guess's move that the last step's cover did not
        # hold (_stepsize): the step's first contact set and CCD are then taken from it too.
        self._guess_cover: CandidateCover | None = None
        # Load steps' starts: another load from the same state and command has the same
        # initial guess and first Newton matrix (a load adds a linear term only). Kept: the
        # first since the last step without a load (the state the loads began at, e.g. the
        # hold) and the latest (engine.ipc.step_start).
        self._load_starts: list[StepStart] = []
        # Barrier stiffness from ipctk's heuristic at the initial state, once. It lives in the
        # state because a rolled-back step restores the state: with kappa 0 (ipctk only ever
        # doubles it) the ground would stop holding the object for the rest of the trial.
        self.state.kappa, self._kappa_max = initial_kappa(
            s, self.state.u, settings.time_step_s, settings.dhat_m,
            float(s.mass.diagonal().mean()), load_n=settings.grip_load_n,
        )  # fmt: skip
        # The object starts where the ground's barrier carries its weight (at dhat/2 the
        # barrier would launch it and the first steps spend iterations settling it).
        x0 = s.collision_vertices(self.state.u)
        self.state.u[s.obj_dof.start + 2] += equilibrium_lift(
            x0[s.object_rows, 2],
            -float(s.gravity_force[s.obj_dof.start + 2]),
            settings.dhat_m,
            self.state.kappa,
        )

    # --- stepping -----------------------------------------------------------------------------
    def step(self, cmd: StepCommand) -> tuple[StepState, int]:
        """The state after `cmd` from `state` (not adopted: assign `state` to accept it) and
        the Newton iterations spent (_halving_step). On a cut surface whose cut no longer holds
        at that state, the step is taken again on the whole surface, which the stepper keeps
        from then on."""
        new, its = self._halving_step(cmd)
        return self._on_cut(cmd, new, its)

    def watched_step(
        self, cmd: StepCommand, watch: Callable[[np.ndarray], bool]
    ) -> tuple[StepState | None, int]:
        """As `step`, but Newton stops at the first iterate u for which watch(u) holds: then
        (None, the iterations spent). For steps whose outcome an iterate already tells (the
        grip-strength test's load steps: once the object slides, the rest of the iterations,
        10-100, only resolve the slide)."""
        try:
            new, its = self._solve_step(cmd, watch)
        except NewtonNotConverged as exc:
            again, more = self.step(cmd)
            return again, exc.iterations + more
        return (None, its) if new is None else self._on_cut(cmd, new, its)

    def _on_cut(self, cmd: StepCommand, new: StepState, its: int) -> tuple[StepState, int]:
        """`new` (after `its` Newton iterations), unless the cut surface no longer holds there:
        then the step again on the whole surface, which the stepper keeps from then on."""
        if self.cut is None or self.cut.holds(self.system, new.u):
            return new, its
        self.use_whole_surface()
        again, more = self._halving_step(cmd)
        return again, its + more

    def drop_load_starts(self) -> None:
        """Forget the load steps' kept starts and their factors (a scan's are megabytes)."""
        self._load_starts = []

    def use_whole_surface(self) -> None:
        """Go on from the current state with the cut's whole-surface system."""
        if self.cut is None:
            return
        self.system, self.cut = self.cut.whole(), None
        # Contact sets, covers and the factorization's pattern belong to the cut collision mesh.
        self.state = replace(self.state, collisions=None, contact=None)
        self._reductions = {}
        self._ldl = PatternLdl()
        self._guess_cover = None
        self._load_starts = []

    def _halving_step(self, cmd: StepCommand, halvings: int = 0) -> tuple[StepState, int]:
        """The state after `cmd` from `state` (not adopted: assign `state` to accept it) and
        the Newton iterations spent; where Newton does not converge in one step, two half steps
        (each with half the motion), up to MAX_STEP_HALVINGS times.

        A step that squeezes an object out of the pads, or turns it on a pad's edge, changes
        the contact set and the friction's directions within one time step; the friction is
        lagged (its normal forces and tangents fixed at the step's start), and over 10 ms that
        lag can leave no state Newton converges to (REACH grasp 4, trial 2 at mu 0.5: 200
        full steps of 2 um, a 4 N residual on the object barely shrinking). Halving the step
        halves the lag; the caller still reports one frame at the end of the whole step.
        """
        try:
            return self._solve_step(cmd)
        except NewtonNotConverged as exc:
            if halvings >= MAX_STEP_HALVINGS:
                raise
            spent = exc.iterations
        h = self.settings.time_step_s if cmd.h_s is None else cmd.h_s
        half = cmd.halved(h)
        saved = self.state
        try:
            first, its1 = self._halving_step(half, halvings=halvings + 1)
            self.state = first
            second, its2 = self._halving_step(half, halvings=halvings + 1)
        finally:
            self.state = saved
        return second, spent + its1 + its2

    @overload
    def _solve_step(self, cmd: StepCommand) -> tuple[StepState, int]: ...

    @overload
    def _solve_step(
        self, cmd: StepCommand, watch: Callable[[np.ndarray], bool]
    ) -> tuple[StepState | None, int]: ...

    def _solve_step(
        self, cmd: StepCommand, watch: Callable[[np.ndarray], bool] | None = None
    ) -> tuple[StepState | None, int]:
        """Advance one time step of cmd.h_s (default the time step); the initial guess
        (_initial_guess) must be intersection-free. With `watch`: None where it stopped
        Newton (newton_solve)."""
        p, st = self.settings, self.state
        h = p.time_step_s if cmd.h_s is None else cmd.h_s
        start = self._start(st, h, cmd)
        guess, reference = start.guess, start.reference
        # Every load step's start is one of the kept ones (_start).
        keep_first = cmd.object_load is not None and start.factor is None
        actuator = None
        if cmd.hold_force_n is not None:
            actuator = ActuatorTerm(
                self._reduction(force_driven=True),
                reference,
                cmd.hold_force_n,
                p.finger_mass_kg,
                st.closing_speed_m_s,
                h,
                command_m=cmd.servo_travel_m,
                max_closing_m=0.5 * p.dhat_m,
            )
        potential = self._potential(st, h, actuator, start.cover, cmd.object_load)
        res = newton_solve(
            potential,
            guess,
            p.newton_tol_m,
            p.max_newton_iterations,
            self._ldl,
            force_tol=p.newton_force_tol_n,
            chord_start=True,
            hints=Hints(watch, start.factor, keep_first=keep_first),
        )
        if keep_first:
            start.factor = res.first_factor
        if res.stopped:
            return None, res.iterations
        closed = cmd.travel_m if actuator is None else actuator.travel(res.u)
        new = StepState(
            res.u,
            (res.u - st.u) / h,
            st.time_s + h,
            st.travel_m + closed,
            st.lift_m + cmd.lift_m,
            potential.kappa,
            potential.collisions,
            closed / h,
            potential.contact,
            cmd.lift_m / h,
        )
        return new, res.iterations

    def _start(self, st: StepState, h: float, cmd: StepCommand) -> StepStart:
        """How a step of `cmd` from `st` starts. Load steps keep two starts for other loads
        from the same state and command (engine.ipc.step_start): the first since the last step
        without a load, which the grip-strength test returns to for every direction, and the
        latest."""
        kept = self._load_starts
        if cmd.object_load is None:
            kept.clear()
        else:
            for start in kept:
                if start.serves(st, cmd):
                    return start
        s = self.system
        x0 = s.collision_vertices(st.u)
        guess, reference = self._initial_guess(st, h, x0, cmd, cmd.hold_force_n is not None)
        cover = self._first_cover(st, s.collision_vertices(guess))
        start = StepStart(st, replace(cmd, object_load=None), guess, reference, cover)
        if cmd.object_load is not None:
            del kept[1:]
            kept.append(start)
        return start

    def _potential(
        self,
        st: StepState,
        h: float,
        actuator: ActuatorTerm | None,
        cover: CandidateCover | None,
        load: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> IncrementalPotential:
        """The incremental potential of the time step of h seconds that starts at `st`, its
        contact term starting from `cover` (see _first_cover), with an external `load` on the
        object (force, torque) when given."""
        p, s = self.settings, self.system
        reduction = actuator.reduction if actuator is not None else self._reduction(False)
        internal = InternalTerm(s, st.u, st.v, h, reduction)
        contact = ContactTerm(
            s, st.u, h, st.kappa, self._kappa_max, p.dhat_m, p.mu, p.ground_mu, p.eps_v_m_s,
            st.collisions, cover,
        )  # fmt: skip
        # Energies are summed in this order (a line search compares them), gradients with the
        # closing coordinate's last (engine.ipc.terms.Assembly).
        terms: list[Term] = [internal] if actuator is None else [internal, actuator]
        terms.append(contact)
        if load is not None:
            terms.append(LoadTerm(s, st.u, *load))
        return IncrementalPotential(s, reduction, terms, h, contact=contact)

    def _reduction(self, force_driven: bool) -> Reduction:
        """The unknowns of force- or position-driven plates (built once per system)."""
        r = self._reductions
        if force_driven not in r:
            r[force_driven] = Reduction(self.system, self.close_dir if force_driven else None)
        return r[force_driven]

    # --- initial guesses ----------------------------------------------------------------------
    def _dirichlet(self, travel: float, lift: float) -> np.ndarray:
        s = self.system
        return self._glued_rest + travel * self.close_dir[s.fixed] + lift * self.lift_dir[s.fixed]

    def _initial_guess(
        self, st: StepState, h: float, x0: np.ndarray, cmd: StepCommand, servo: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """A step's initial guess (intersection-free on the way from x0, the collision
        vertices at st) and the state whose glued vertices are the plates moved by the command:
        the reference of the closing coordinate (s = 0) of force-driven plates (`servo`).

        Servo steps start from the inertial guess when it is valid: the jaws keep their closing
        speed (s = h v_closing; during a lift the servo creeps a fraction of a um per step,
        comparable to the contact gaps, and starting from s = 0 costs iterations) and, once the
        pads deform, every pad vertex keeps its velocity relative to its plate and the object
        its velocity (the 25 REACH nominal grasps: 3865 Newton iterations instead of 4130).
        Otherwise the pads move rigidly with their plates and the object by its velocity or
        `object_shift`, whichever CCD lets through first.
        """
        s = self.system
        d_travel, d_lift = cmd.travel_m, cmd.lift_m
        glued = self._dirichlet(st.travel_m + d_travel, st.lift_m + d_lift)
        closing = h * st.closing_speed_m_s * self.close_dir
        if servo:
            inertial = self._inertial_guess(st, h, d_travel, d_lift, closing)
            if inertial is not None and self.valid_start(x0, inertial):
                reference = inertial.copy()
                reference[s.fixed] = glued
                return inertial, reference
        guess = self._rigid_guess(st, h, x0, cmd)
        guess[s.fixed] = glued
        reference = guess.copy()
        if servo and st.closing_speed_m_s != 0.0:
            predicted = guess + closing
            if self.valid_start(x0, predicted):
                guess = predicted
        return guess, reference

    def _rigid_guess(self, st: StepState, h: float, x0: np.ndarray, cmd: StepCommand) -> np.ndarray:
        """The pads moved rigidly with their plates and the object by its velocity or the
        command's object shift, whichever CCD lets through first; else the current state with
        only the glued back faces moved; else the pads moved and the object by the shift's
        horizontal part. StepBlocked when even that collides."""
        s = self.system
        d_travel, d_lift = cmd.travel_m, cmd.lift_m
        guess = st.u + d_travel * self.close_dir + d_lift * self.lift_dir
        alpha = best = 0.0  # best: the largest fraction a tried start allows
        obj = slice(s.obj_dof.start, s.obj_dof.start + 12)
        moves = []
        if np.any(st.v[obj]) or d_lift:
            # The object keeps its velocity (pushed along the ground), and its velocity relative
            # to the plates' lift (held: see _inertial_guess): the inertial prediction is close
            # to the solution, so Newton needs few iterations.
            move = h * st.v[obj]
            move[2] += d_lift - h * st.lift_speed_m_s
            moves.append(move)
        if cmd.object_shift is not None and np.any(cmd.object_shift):
            moves.append(np.concatenate([cmd.object_shift, np.zeros(9)]))
        for move in moves:
            shifted = guess.copy()
            shifted[obj] += move
            alpha = self._stepsize(x0, s.collision_vertices(shifted))
            best = max(best, alpha)
            if alpha >= 1.0:
                guess = shifted
                break
        if alpha < 1.0:
            alpha = self._stepsize(x0, s.collision_vertices(guess))
        if alpha < 1.0:
            # A pad pressed against the object cannot translate further than its contact gap;
            # start instead from the current state with only the glued back faces moved (the
            # pads compress by the plate increment, which the Newton solve then relaxes).
            compressed = st.u.copy()
            compressed[s.fixed] = self._dirichlet(st.travel_m + d_travel, st.lift_m + d_lift)
            if self.valid_start(x0, compressed):
                return compressed
            # Nor can a pushed object follow a closing axis that dips into the ground (YCB
            # scissors, Robotiq 2F-85: every push step was refused and retried at 2.5 %): it
            # slides along the ground.
            if cmd.object_shift is not None:
                guess[s.obj_dof.start : s.obj_dof.start + 2] += cmd.object_shift[:2]
            if not self.valid_start(x0, guess):
                raise StepBlocked(float(max(alpha, best)))
        return guess

    def _inertial_guess(
        self, st: StepState, h: float, d_travel: float, d_lift: float, closing: np.ndarray
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
        out = st.u + d_travel * self.close_dir + d_lift * self.lift_dir + closing
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

    def valid_start(self, x0: np.ndarray, guess: np.ndarray) -> bool:
        """An initial guess must not invert a pad element nor collide on the way from x0."""
        if not all(math.isfinite(e) for e in self.system.pad_energies(guess)):
            return False
        s = self.system
        return self._stepsize(x0, s.collision_vertices(guess)) >= 1.0

    def _stepsize(self, x0: np.ndarray, x1: np.ndarray) -> float:
        """collision_free_stepsize of the move x0 -> x1 from the current state, from the last
        step's broad phase when it covers the move, else from a cover of this move (kept as
        the guess cover: a lift step's guess leaves the last cover, and the same broad phase
        then serves the step's first contact set and first CCD)."""
        contact = self.state.contact
        alpha = contact.covered_stepsize(x0, x1) if contact is not None else None
        if alpha is None:
            mesh = self.system.collision_mesh
            dhat = self.settings.dhat_m
            cover = CandidateCover.holding(
                self._guess_cover, mesh, x0, x1, dhat, COVER_MARGIN * dhat
            )
            self._guess_cover = cover
            alpha = ipc.candidates_stepsize(cover.ccd_candidates(x0, x1), mesh, x0, x1)
        return alpha

    def _first_cover(self, st: StepState, x: np.ndarray) -> CandidateCover | None:
        """The cover a step starting from `st` at the initial guess x (collision vertices)
        begins with: the last step's, or the guess cover when only that one holds x."""
        last = st.contact.cover if st.contact is not None else None
        if last is not None and last.covers(x):
            return last
        guess = self._guess_cover
        return guess if guess is not None and guess.covers(x) else last

    # --- readings -----------------------------------------------------------------------------
