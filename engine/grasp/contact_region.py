"""The part of a rigid object's surface a trial's pads and the ground can touch.

A scanned object has ~16k faces, while a pad touches a few square centimetres of it and the
ground its underside: every broad phase, CCD query and intersection check over the whole surface
is work on faces nothing reaches. A trial therefore simulates the faces near the pads' closing
path (each pad's swept box, widened by a margin) and the vertices near the ground (a plane,
whose pairs are plane-vertex pairs), and checks after every step that this stays true: each
pad, seen from the object, is still well inside its box, and every left-out vertex is still
well above the ground. A step that breaks either is taken again on the whole surface, which
the trial then keeps (GraspSimulation.step).

The object is an affine body whose mass properties come from the whole mesh; only its collision
surface is cut, so a trial whose checks hold is the trial on the whole surface.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from engine.gripper.jaws import JawPlacement
from engine.gripper.pad_geometry import PadMesh
from engine.ipc.affine_body import affine_matrix
from engine.ipc.system import GraspSystem
from engine.scene.resting import RestingObject

# How far (m) the object may move against a pad, beyond the pad's closing path, or tilt towards
# the ground before a step is retaken on the whole surface: half of REGION_MARGIN_M, above the
# success rule's slip tolerance (5 mm), and far above a step's relative motion (< 1 mm).
REGION_MARGIN_M = 0.012
# Vertices within this height (m) of the ground at rest are kept; a left-out vertex that comes
# within half of it retakes the step on the whole surface.
GROUND_SLAB_M = 0.004
# A cut that keeps more than this share of the faces is not worth its checks.
MOST_FACES = 0.7


@dataclass(frozen=True)
class ContactRegion:
    """The kept faces of an object's surface and the checks that they suffice."""

    vertex_ids: np.ndarray  # (k,) kept vertex ids into the object's vertices
    faces: np.ndarray  # (f, 3) kept faces, rows into vertex_ids
    n_faces: int  # the whole surface's face count
    gripper_frame: np.ndarray  # 4x4 resting frame <- gripper frame at the start
    pad_boxes: np.ndarray  # (2, 2, 3) each pad's allowed box (lo, hi), gripper frame, m
    center_of_mass: np.ndarray  # (3,) resting frame
    left_out: np.ndarray  # (m, 3) left-out vertices about the centre of mass, resting frame
    ground_guard_m: float

    def lowest_left_out_m(self, q: np.ndarray) -> float:
        """The height (m) of the lowest left-out vertex at the object's affine state q."""
        if not len(self.left_out):
            return float("inf")
        return float((self.left_out @ affine_matrix(q)[2] + q[2]).min())

    def holds(self, system: GraspSystem, u: np.ndarray) -> bool:
        """Whether at state u every pad is inside its box as the object sees it, and every
        left-out vertex is above the ground guard."""
        q = system.object_state(u)
        a, t = affine_matrix(q), q[:3]
        if self.lowest_left_out_m(q) < self.ground_guard_m:
            return False
        rot, origin = self.gripper_frame[:3, :3], self.gripper_frame[:3, 3]
        for k in (0, 1):
            world = system.pad_positions(u, k)
            body = np.linalg.solve(a, (world - t).T).T + self.center_of_mass
            local = (body - origin) @ rot
            lo, hi = self.pad_boxes[k]
            if not ((local >= lo) & (local <= hi)).all():
                return False
        return True


def contact_region(
    obj: RestingObject,
    gripper_pose: np.ndarray,
    jaws: tuple[JawPlacement, JawPlacement],
    pad: PadMesh,
    open_width_m: float,
) -> ContactRegion | None:
    """The faces of `obj` (resting frame) the pads on `jaws` and the ground can touch in a
    trial, or None when they are most of the surface."""
    rot, origin = gripper_pose[:3, :3], gripper_pose[:3, 3]
    vertices = np.asarray(obj.vertices, dtype=float)
    faces = np.asarray(obj.faces, dtype=np.int64)
    boxes = []
    for jaw in jaws:
        # The pad from its open position to the far jaw's open position: anywhere it can close.
        start = jaw.to_world(pad.vertices)
        path = np.vstack([start, start + open_width_m * jaw.normal])
        local = (path - origin) @ rot
        boxes.append((local.min(axis=0), local.max(axis=0)))
    local = (vertices - origin) @ rot
    at_faces = local[faces]  # (f, 3, 3)
    lo_f, hi_f = at_faces.min(axis=1), at_faces.max(axis=1)
    keep = np.zeros(len(faces), dtype=bool)
    for lo, hi in boxes:
        keep |= ((hi_f >= lo - REGION_MARGIN_M) & (lo_f <= hi + REGION_MARGIN_M)).all(axis=1)
    if keep.sum() > MOST_FACES * len(faces):
        return None
    # The ground touches vertices only (ipctk's plane-vertex pairs): the slab's vertices are
    # kept without their faces, which no pad reaches outside its box. On a scan lying on its
    # side (the YCB banana) the slab's faces were a third of the cut.
    on_ground = np.flatnonzero(vertices[:, 2] < GROUND_SLAB_M)
    vertex_ids = np.union1d(faces[keep], on_ground)
    remap = -np.ones(len(vertices), dtype=np.int64)
    remap[vertex_ids] = np.arange(len(vertex_ids))
    com = np.asarray(obj.center_of_mass, dtype=float)
    out = np.ones(len(vertices), dtype=bool)
    out[vertex_ids] = False
    left_out = vertices[out]
    # The lowest point of a (nearly) rigid body is a vertex of its convex hull.
    try:
        left_out = left_out[ConvexHull(left_out).vertices] if len(left_out) >= 4 else left_out
    except QhullError:  # flat or degenerate: keep them all
        pass
    guard = 0.5 * REGION_MARGIN_M
    return ContactRegion(
        vertex_ids=vertex_ids,
        faces=remap[faces[keep]],
        n_faces=len(faces),
        gripper_frame=np.asarray(gripper_pose, dtype=float),
        pad_boxes=np.array([[lo - guard, hi + guard] for lo, hi in boxes]),
        center_of_mass=com,
        left_out=left_out - com,
        ground_guard_m=0.5 * GROUND_SLAB_M,
    )
