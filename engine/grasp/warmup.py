"""Warm numba's kernels: run what a simulation's first frame runs, once per process.

`ipcgrasp warmup` calls it after an install; the app's simulation workers call it at start so
the first Simulate does not wait for kernels to load.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from engine.fem import (
    element_hessian_cache,
    matrix3,
    neohookean,
    neohookean_density,
    neohookean_elements,
)
from engine.grasp.default_grasp import default_grasp
from engine.grasp.params import SimulationParams
from engine.grasp.sampler import open_gripper_clearance, settings_for
from engine.grasp.simulation import GraspSimulation, build_pad
from engine.gripper.pad_fields import PadFieldEvaluator
from engine.ipc import (
    body_broad_phase,
    candidate_cover,
    collision_layout,
    face_tree,
    internal_term,
    ldl_kernels,
    near_pairs,
    primitive_distance,
    reduction,
    sparse_products,
    supernodal_ldl,
)
from engine.ipc.collision_layout import OBJECT_OWNER
from engine.scene import box_faces, mesh_rays
from engine.scene.object_mesh import builtin_cube
from engine.scene.resting import rest_object

# The modules holding numba kernels a simulation calls.
KERNEL_MODULES = (
    matrix3,
    neohookean_density,
    neohookean_elements,
    neohookean,
    element_hessian_cache,
    internal_term,
    reduction,
    ldl_kernels,
    supernodal_ldl,
    sparse_products,
    collision_layout,
    face_tree,
    primitive_distance,
    near_pairs,
    candidate_cover,
    body_broad_phase,
    mesh_rays,
    box_faces,
)


def warm_up() -> tuple[int, int]:
    """Run what a trial's first frame runs, and the pads' strain energy density that frames and
    the app show: every numba kernel a simulation calls is compiled (and cached) or loaded.

    Returns (kernel signatures compiled, kernel signatures loaded from the cache)."""

    obj = rest_object(builtin_cube())
    params = SimulationParams()
    pad = build_pad(params)
    grasp = default_grasp(obj, pad.outline)
    # The default grasp's check that the open fingers clear the object (engine.scene.box_faces).
    open_gripper_clearance(obj, grasp, settings_for(params.open_width_m, pad.outline, params.mu))
    sim = GraspSimulation(obj, grasp.pose(), params, pad=pad)
    frames = sim.frames()
    frame = next(frames)
    frames.close()
    # A pad's distance to the object (the approach's closest gap), which the open jaws'
    # checks skip while their clearance is plain from the bodies' extents.
    system = sim.system
    system.pair_distance(0, OBJECT_OWNER, system.collision_vertices(system.u_initial), 1.0)
    PadFieldEvaluator(pad, params.youngs_modulus_pa, params.poisson_ratio).energy_density(
        frame.pad_vertices[0]
    )
    # The first frame has no contact: map a contact Hessian as ipctk returns one (CSC, int32).
    # The barrier's and the friction's are summed first.
    h, j = sp.csc_matrix(np.eye(3)), sp.csr_matrix(np.eye(3))
    hp, hi, hv = reduction._summed_csc([h, h])
    reduction._upper_triplets(
        hp, hi, hv, j.indptr, j.indices, j.data, 3, np.array([-1, -1, 0]), np.array([2])
    )
    # Nor a second Newton matrix of one analysis: which supernodes it recomputes.
    one = np.zeros(1, dtype=np.int64)
    redo = supernodal_ldl.supernodes_to_redo(one, one, np.array([0, 1]), one, np.array([-1]))
    supernodal_ldl.in_order_of(redo, one, np.array([0, 1, 1, 1]))
    # Nor a cover's pruned queries (broad phases of PRUNE_MIN_PAIRS pairs or more).
    x3 = np.zeros((4, 3))
    pair, face = np.zeros((1, 2), dtype=np.int64), np.zeros((1, 3), dtype=np.int64)
    near_pairs._gaps(x3, pair, face, pair, pair)
    near_pairs._largest_relative_move(x3, x3, near_pairs._vertices_of(4, pair, face, pair, pair))
    compiled = loaded = 0
    for module in KERNEL_MODULES:
        for kernel in vars(module).values():
            stats = getattr(kernel, "stats", None)  # numba dispatchers: cache hits and misses
            if stats is not None and hasattr(stats, "cache_hits"):
                loaded += sum(stats.cache_hits.values())
                compiled += sum(stats.cache_misses.values())
    return compiled, loaded


def kernels_cold() -> bool:
    """True when numba's cache folder holds none of the solver's kernels for this install (a
    fresh install, or its source changed): the first simulation then compiles them, seconds.
    Compiles nothing. False when numba's cache internals are not the ones this reads.

    All or nothing: the kernels of one module share its source stamp, and a simulation with the
    default settings uses most of them (the other Hessian projections' few are compiled when
    first chosen, without a word)."""
    indexes = 0
    for kernel in (k for module in KERNEL_MODULES for k in vars(module).values()):
        load = getattr(
            getattr(getattr(kernel, "_cache", None), "_cache_file", None), "_load_index", None
        )
        if load is None:
            continue
        try:
            if load():  # {} when the index is missing or stale (the source changed)
                return False
        except Exception:
            return False
        indexes += 1
    return indexes > 0
