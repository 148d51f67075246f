"""The one place that talks to IPC Toolkit (ipctk 1.6.1): broad phase, contact sets, CCD, barrier
and friction objects, and the workarounds this version needs.

Everything else in the engine calls these functions instead of `ipctk` directly, so an ipctk
upgrade (or a change of broad phase) is a change to this module alone. Workarounds:

1. Plane-vertex pairs activate only below dhat/2 when `NormalCollisions.build` finds its own
   candidates (its broad phase inflates each box by dhat/2, which pairs two primitives within
   dhat but a vertex and the plane only within dhat/2), while the barrier uses dhat: the energy
   would jump at dhat/2 and break the line search (shared/notes/ipctk_notes.md, pitfall 1).
   `active_collisions` hands it candidates that reach the plane within dhat (and pairs of
   primitives within dhat: boxes inflated by dhat/2) instead, and the narrow phase keeps the
   pairs within dhat. (Building with 2 dhat, as before, also listed the pairs between dhat
   and 2 dhat, whose energy, forces and friction are zero: 45-60 % of the pairs of a 235 N grip
   on a scan, each evaluated and assembled.)
2. `BarrierPotential` has no stiffness setter: `barrier` makes a new one for each kappa.
3. The friction potential reads `mu_s_effective_lagged` / `mu_k_effective_lagged` of each
   tangential collision (fixed when it is built), not `mu_s` / `mu_k`: `lagged_friction` sets
   all four on the plane (ground) pairs to give the ground its own coefficient.
4. `Candidates.build` filters pairs of codimensional vertices (in no edge: the cut object's
   ground slab) by their rows in the list of such vertices instead of their vertex ids, so one
   body's own vertices became contacts. The meshes `collision_mesh` makes take their
   candidates from the broad phase between bodies (engine.ipc.body_broad_phase), which pairs
   only different bodies' primitives, and only those near another body: it also replaces the
   LBVH's hierarchy over the whole mesh per query. Where the LBVH still builds them (too many
   candidates to hand over from Python), those pairs are dropped.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeAlias

import ipctk
import numpy as np

from engine.cores import usable_cores
from engine.ipc.body_broad_phase import BodyBroadPhase

# ipctk ships no type information: its classes are `Any` to mypy. Declared as aliases so the
# rest of the engine can use them in annotations (at run time they are ipctk's classes).
CollisionMesh: TypeAlias = ipctk.CollisionMesh
Candidates: TypeAlias = ipctk.Candidates
NormalCollisions: TypeAlias = ipctk.NormalCollisions
TangentialCollisions: TypeAlias = ipctk.TangentialCollisions
BarrierPotential: TypeAlias = ipctk.BarrierPotential
FrictionPotential: TypeAlias = ipctk.FrictionPotential
NormalCollision: TypeAlias = ipctk.NormalCollision
TangentialCollision: TypeAlias = ipctk.TangentialCollision

# LBVH was ipctk's fastest broad phase for these scenes (2.0 ms vs HashGrid 4.4 ms per build,
# ipctk_notes.md); one instance serves the queries of meshes without bodies (the ground mesh)
# and, where the body broad phase would hand over too many candidates, the bodies' meshes.
BROAD_PHASE = ipctk.LBVH()
# Additive CCD (Li et al. 2021, conservative by construction: it never steps past a contact)
# was 2.5x cheaper per call than Tight Inclusion here (1.7 vs 4.4 ms, ipctk_notes.md) and cut
# the REACH cube trials' time by a third with the same outcomes.
NARROW_PHASE = ipctk.AdditiveCCD()
# candidates_stepsize asks the plain query only about stops at or beyond this fraction.
PLAIN_CCD_ABOVE = 0.5
PSD_CLAMP = ipctk.PSDProjectionMethod.CLAMP
PSD_NONE = ipctk.PSDProjectionMethod.NONE


# Threads of the whole-trial work (contact sets, energies, derivatives) and of the order-free
# queries (CCD, the intersection test); set by configure_threads.
_threads = 1
_query_threads = 1


def default_query_threads() -> int:
    """Threads of the order-free queries without IPCGRASP_QUERY_THREADS: two where the
    process may use two cores (the machines measured here have two)."""
    return min(2, usable_cores())


def query_threads() -> int:
    """Threads the order-free work may use (configure_threads); the LDL^T's independent
    subtrees (engine.ipc.pattern_ldl) take two when this is two or more."""
    return _query_threads


def configure_threads() -> None:
    """ipctk's threads for this process, from the environment.

    Contact sets, energies, gradients and Hessians run on IPCGRASP_IPCTK_THREADS threads
    (default 1). ipctk sums them in the order TBB hands out pairs to threads, and lists a
    contact set's pairs in that order, so on more than one thread a trial's numbers vary
    between runs at round-off (the 98-vertex Table V cube: its grip force in the 15th digit
    from run to run, in the 8th from one thread): one thread keeps trials bitwise
    reproducible.

    CCD step sizes (the earliest impact over all pairs) and ipctk's intersection test (whether
    any pair crosses; the bodies' meshes have their own, engine.ipc.body_broad_phase) do not
    depend on that order: they run on IPCGRASP_QUERY_THREADS threads, by default two when the
    process may use two cores (each query about halves; batch workers, one per core, set it
    to 1).
    """
    global _threads, _query_threads
    _threads = _threads_from_environment("IPCGRASP_IPCTK_THREADS", 1)
    _query_threads = max(
        _threads, _threads_from_environment("IPCGRASP_QUERY_THREADS", default_query_threads())
    )
    ipctk.set_num_threads(_threads)


def _threads_from_environment(name: str, default: int) -> int:
    """A thread count from environment variable `name` (default when unset)."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{name}={text!r} is not a thread count: set it to 1 or more, or unset it")
    return value


# ipctk starts on every core: configure it before any query (GraspSimulation reconfigures, so a
# changed environment applies to the next trial).
configure_threads()


@contextmanager
def _query_parallelism() -> Iterator[None]:
    """ipctk on the order-free queries' threads for the duration (configure_threads)."""
    if _query_threads == _threads:
        yield
        return
    ipctk.set_num_threads(_query_threads)
    try:
        yield
    finally:
        ipctk.set_num_threads(_threads)


# The broad phase between the bodies of each mesh collision_mesh made, while the mesh lives.
_BODIES: weakref.WeakKeyDictionary[CollisionMesh, BodyBroadPhase] = weakref.WeakKeyDictionary()


def bodies_of(mesh: CollisionMesh) -> BodyBroadPhase | None:
    """The broad phase between the bodies of a mesh collision_mesh made, else None."""
    return _BODIES.get(mesh)


def collision_mesh(
    x0: np.ndarray, faces: np.ndarray, owner: np.ndarray, ground: bool
) -> CollisionMesh:
    """A collision mesh whose vertices collide only with other bodies' (owner ids differ).

    `ground` adds the plane z = 0. Same-body pairs are filtered: the object is rigid and a
    3 mm pad cannot fold onto itself under grasp loads. Its candidates come from the broad
    phase between its bodies (engine.ipc.body_broad_phase).
    """
    faces = np.ascontiguousarray(faces, dtype=np.int32)
    mesh = ipctk.CollisionMesh(np.asarray(x0, dtype=float), ipctk.edges(faces), faces)
    planes = [ipctk.Hyperplane(np.array([0.0, 0.0, 1.0]), np.zeros(3))] if ground else []
    mesh.planes = planes
    owner = np.asarray(owner, dtype=np.int32)
    mesh.can_collide = ipctk.make_vertex_patches_filter(owner)
    _BODIES[mesh] = BodyBroadPhase(np.asarray(mesh.edges), faces, owner, planes)
    return mesh


def ground_mesh(x0: np.ndarray) -> CollisionMesh:
    """Vertices without edges or faces, and the plane z = 0: its contact sets hold the
    vertex-ground pairs alone, so one call evaluates a potential over all of them.

    The vertices are one patch: two of them closer than the build radius (a pad's vertex at
    the object's corner) would otherwise make a vertex-vertex pair.
    """
    x0 = np.asarray(x0, dtype=float)
    # Not ipctk.edges of no faces: in 1.6.1 it can raise std::bad_alloc on an empty array.
    edges, faces = np.zeros((0, 2), dtype=np.int32), np.zeros((0, 3), dtype=np.int32)
    mesh = ipctk.CollisionMesh(x0, edges, faces)
    planes = [ipctk.Hyperplane(np.array([0.0, 0.0, 1.0]), np.zeros(3))]
    mesh.planes = planes
    owner = np.zeros(len(x0), dtype=np.int32)
    mesh.can_collide = ipctk.make_vertex_patches_filter(owner)
    # Its candidates are the vertices near the plane: the body broad phase finds them without
    # ipctk's LBVH over every vertex (1-2 % of a REACH cube trial, in the lift's force readings).
    _BODIES[mesh] = BodyBroadPhase(edges, faces, owner, planes)
    return mesh


def active_collisions(mesh: CollisionMesh, x: np.ndarray, dhat: float) -> NormalCollisions:
    """The contact set of the barrier at positions x: the pairs closer than dhat, the plane's
    included (workaround 1: candidates that reach the plane within dhat, primitives' boxes
    inflated by dhat/2)."""
    return collisions_within_among(swept_candidates(mesh, x, x, 0.5 * dhat, dhat), mesh, x, dhat)


def swept_candidates(
    mesh: CollisionMesh,
    x0: np.ndarray,
    x1: np.ndarray,
    radius: float,
    plane_radius: float | None = None,
) -> Candidates:
    """Every primitive pair (of different bodies, workaround 4) whose boxes, swept over the
    straight move x0 -> x1 and each inflated by radius (m), overlap: among them every pair that
    comes within 2 radius anywhere on the move; and every vertex that comes within
    `plane_radius` (default `radius`) of a plane. (ipctk's own build, where the body broad phase
    hands over, has one radius: the larger, a superset.)

    One broad phase then serves CCD and contact-set builds (the broad phase is ~90 % of a
    contact-set build: 0.8 of 0.9 ms on the REACH cube scene).
    """
    found = swept_candidate_pairs(mesh, x0, x1, radius, plane_radius)
    if isinstance(found, ipctk.Candidates):
        return found
    bodies, pairs = found
    return bodies.candidates_of(*pairs)


def swept_candidate_pairs(
    mesh: CollisionMesh,
    x0: np.ndarray,
    x1: np.ndarray,
    radius: float,
    plane_radius: float | None = None,
) -> tuple[BodyBroadPhase, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] | Candidates:
    """swept_candidates' pairs: as id arrays (edge-edge, face-vertex, vertex-vertex,
    plane-vertex) with the mesh's body broad phase that found them, or as ipctk's candidates
    where its LBVH builds them sooner (BodyBroadPhase.too_many) or the mesh has no bodies."""
    bodies = _BODIES.get(mesh)
    if bodies is not None:
        pairs = bodies.pairs(x0, x1, radius, plane_radius)
        if not bodies.too_many(pairs):
            return bodies, pairs
    c = ipctk.Candidates()
    c.build(mesh, x0, x1, max(radius, plane_radius or 0.0), BROAD_PHASE)
    if bodies is not None:
        bodies.drop_own_pairs(c)
    return c


def active_collisions_among(
    candidates: Candidates, mesh: CollisionMesh, x: np.ndarray, dhat: float
) -> NormalCollisions:
    """active_collisions(mesh, x, dhat) from candidates that hold every pair within dhat at x
    (engine.ipc.candidate_cover.CandidateCover): the narrow phase only."""
    return collisions_within_among(candidates, mesh, x, dhat)


def candidates_stepsize(
    candidates: Candidates, mesh: CollisionMesh, x0: np.ndarray, x1: np.ndarray
) -> float:
    """collision_free_stepsize(mesh, x0, x1) using candidates of that move: the same step,
    or a slightly shorter one, still intersection-free.

    The candidates (swept_candidates: inflated boxes) hold every pair the plain query checks
    and more, so their step is never larger. When it is the whole step, it is the answer.
    Additive CCD can stop a hair short of 1 on an extra pair that never touches (it stops a
    pair at a tenth of its start distance): there the plain query decides. A stop in the
    first half of the move comes from a pair that closes in on another, which the plain query
    checks too: over REACH's 25 nominal trials, 2 of 679 such stops differed from the plain
    query's, in the last digits, while 14 of 221 stops above it did (all above 0.87, by up
    to 0.1); a 235 N scan trial's 22 agreed.
    """
    with _query_parallelism():
        alpha = float(candidates.compute_collision_free_stepsize(mesh, x0, x1, 0.0, NARROW_PHASE))
    if alpha >= 1.0:
        return 1.0
    return alpha if alpha < PLAIN_CCD_ABOVE else collision_free_stepsize(mesh, x0, x1)


def collisions_within(mesh: CollisionMesh, x: np.ndarray, radius: float) -> NormalCollisions:
    """Pairs closer than `radius` (m) at positions x: candidates within radius / 2 of each
    other (as ipctk's own build takes them), then the narrow phase."""
    c = ipctk.NormalCollisions()
    c.build(swept_candidates(mesh, x, x, 0.5 * radius), mesh, x, radius)
    return c


def collisions_within_among(
    candidates: Candidates, mesh: CollisionMesh, x: np.ndarray, radius: float
) -> NormalCollisions:
    """collisions_within(mesh, x, radius) from candidates that hold every pair closer than
    `radius` at x: the narrow phase only (the same pairs, listed in the candidates' order)."""
    c = ipctk.NormalCollisions()
    c.build(candidates, mesh, x, radius)
    return c


def minimum_distance(collisions: NormalCollisions, mesh: CollisionMesh, x: np.ndarray) -> float:
    """Smallest distance (m) over a contact set; inf for an empty set."""
    if not len(collisions):
        return float("inf")
    return float(np.sqrt(collisions.compute_minimum_distance(mesh, x)))


def minimum_squared_distance(
    collisions: NormalCollisions, mesh: CollisionMesh, x: np.ndarray
) -> float:
    """Smallest squared distance (m^2) over a contact set; inf for an empty set."""
    if not len(collisions):
        return float("inf")
    return float(collisions.compute_minimum_distance(mesh, x))


def collision_free_stepsize(mesh: CollisionMesh, x0: np.ndarray, x1: np.ndarray) -> float:
    """Largest fraction in [0, 1] of the straight move x0 -> x1 that stays intersection-free."""
    candidates = swept_candidates(mesh, x0, x1, 0.0)
    with _query_parallelism():
        alpha = candidates.compute_collision_free_stepsize(mesh, x0, x1, 0.0, NARROW_PHASE)
    return min(1.0, float(alpha))


def has_intersections(mesh: CollisionMesh, x: np.ndarray) -> bool:
    """Whether any two bodies' surfaces intersect at x."""
    bodies = _BODIES.get(mesh)
    if bodies is not None:
        return bodies.has_intersections(x)
    with _query_parallelism():
        return bool(ipctk.has_intersections(mesh, x, BROAD_PHASE))


def barrier(dhat: float, kappa: float) -> BarrierPotential:
    """The log barrier with stiffness kappa (workaround 2: no setter, so a new object)."""
    return ipctk.BarrierPotential(dhat, float(kappa))


def lagged_friction(
    mesh: CollisionMesh,
    x: np.ndarray,
    collisions: NormalCollisions,
    barrier_potential: BarrierPotential,
    mu: float,
    mu_ground: float,
) -> TangentialCollisions:
    """Friction pairs lagged at x: normal forces and tangent bases fixed for the time step.

    Body-body pairs get `mu`, ground (plane-vertex) pairs `mu_ground` (workaround 3).
    """
    tangential = ipctk.TangentialCollisions()
    if mu <= 0 and mu_ground <= 0:
        return tangential
    tangential.build(mesh, x, collisions, barrier_potential, mu)
    if mu_ground != mu:
        for tc in tangential:
            if isinstance(tc, ipctk.PlaneVertexTangentialCollision):
                tc.mu_s = tc.mu_k = mu_ground
                tc.mu_s_effective_lagged = tc.mu_k_effective_lagged = mu_ground
    return tangential


def is_plane_vertex(collision: NormalCollision | TangentialCollision) -> bool:
    """Whether a contact or friction pair is between a vertex and a plane (the ground)."""
    return isinstance(
        collision, ipctk.PlaneVertexNormalCollision | ipctk.PlaneVertexTangentialCollision
    )


def pair_gradient(
    potential: BarrierPotential | FrictionPotential,
    collision: NormalCollision | TangentialCollision,
    mesh: CollisionMesh,
    x: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """One pair's share of a potential's gradient at x (positions for the barrier, displacements
    for friction): (its collision vertex ids, (k, 3) gradient at them)."""
    ids = np.asarray(collision.vertex_ids(mesh.edges, mesh.faces))
    ids = ids[ids >= 0]
    g = potential.gradient(collision, collision.dof(x, mesh.edges, mesh.faces))
    return ids, np.asarray(g).reshape(-1, 3)[: len(ids)]


def barrier_pair_force(distance: float, dhat: float, kappa: float) -> float:
    """Normal force (N) of one contact pair of unit weight at `distance` (m)."""
    return float(barrier_pair_forces(np.array([distance]), dhat, kappa)[0])


def barrier_pair_forces(distances: np.ndarray, dhat: float, kappa: float) -> np.ndarray:
    """Normal forces (N) of contact pairs of unit weight at `distances` (m); 0 at dhat and beyond."""
    b = ipctk.BarrierPotential(dhat, float(kappa)).barrier
    return np.array(
        [ipctk.barrier_force_magnitude(d * d, b, dhat, kappa, 0.0) for d in np.asarray(distances)],
        dtype=float,
    )


def friction(eps_v_h: float) -> FrictionPotential:
    """The smoothed friction dissipative potential with its tangential threshold eps_v h (m)."""
    return ipctk.FrictionPotential(eps_v_h)


def initial_barrier_stiffness(
    bbox_diagonal: float,
    barrier_potential: BarrierPotential,
    dhat: float,
    average_mass: float,
    grad_energy: np.ndarray,
    grad_barrier: np.ndarray,
) -> tuple[float, float]:
    """ipctk's (kappa, kappa_max) heuristic (IPC paper, supplementary Sec. 3)."""
    kappa, kappa_max = ipctk.initial_barrier_stiffness(
        bbox_diagonal, barrier_potential.barrier, dhat, average_mass, grad_energy, grad_barrier
    )
    return float(kappa), float(kappa_max)


def update_barrier_stiffness(
    prev_min_d2: float, min_d2: float, kappa_max: float, kappa: float, bbox_diagonal: float
) -> float:
    """ipctk's adaptive kappa: doubles it when the closest pair keeps approaching."""
    return float(
        ipctk.update_barrier_stiffness(prev_min_d2, min_d2, kappa_max, kappa, bbox_diagonal)
    )
