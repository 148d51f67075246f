"""The scene of a grasp table's row: its object at rest and the grasp in the resting frame (a
REACH gripper pose converted with the YuMi's jaw centre)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from engine.batch.grasp_spec import GraspSpec
from engine.errors import ParameterError
from engine.grasp.grasp import Grasp
from engine.scene.object_mesh import ObjectMesh, object_from_spec
from engine.scene.resting import (
    RestingObject,
    StablePose,
    rest_object,
    rest_object_from_rotation,
)

REACH_JAW_CENTER_Z_M = 0.160098
"""Jaw centre along the YuMi gripper's approach axis (yumi_metal_spline.yaml tooltips)."""

REACH_SNAP_DEG = 2.0
"""Recorded REACH object poses tilted by at most this much are laid flat on their support face."""


def reach_grasp(obj: RestingObject, gripper_pose: np.ndarray, object_pose: np.ndarray) -> Grasp:
    """The REACH gripper pose as a Grasp in `obj`'s resting frame (jaw centre, axis, angle).

    `obj` must come from rest_object_from_rotation(mesh, object_pose[:3, :3]): its resting
    frame is the world frame shifted so the object sits at the origin.
    """
    rest_from_mesh = np.asarray(obj.pose_transform)
    # Use the object's (orthonormalised) rotation so the frame change is a pure translation.
    world_from_mesh = np.array(object_pose, dtype=float)
    world_from_mesh[:3, :3] = rest_from_mesh[:3, :3]
    rest_from_world = rest_from_mesh @ np.linalg.inv(world_from_mesh)
    jaw = np.eye(4)
    jaw[2, 3] = REACH_JAW_CENTER_Z_M
    pose = rest_from_world @ gripper_pose @ jaw
    x, z = pose[:3, 0], pose[:3, 2]
    x = x / np.linalg.norm(x)
    # Grasp.pose() rotates a reference approach z0 about the axis by the approach angle; find
    # the angle that reproduces this z (its component orthogonal to x).
    z = z - np.dot(z, x) * x
    z /= np.linalg.norm(z)
    z0 = Grasp(pose[:3, 3], x, 0.0).pose()[:3, 2]
    angle = math.atan2(float(np.dot(z, np.cross(x, z0))), float(np.dot(z, z0)))
    return Grasp(pose[:3, 3], x, angle)


def build_scene(
    spec: GraspSpec,
    mesh: ObjectMesh | None = None,
    poses: Callable[[], list[StablePose]] | None = None,
) -> tuple[RestingObject, ObjectMesh, Grasp]:
    """Load the mesh, put it at rest and build the grasp (raises IpcGraspError on bad input).

    `mesh`: the row's object already loaded (a batch worker keeps the objects of its tasks);
    `poses`: gives its stable poses (computed once per object by such a caller)."""
    if spec.error:
        raise ParameterError(spec.error)
    if mesh is None:
        mesh = object_from_spec(spec.object, unit=spec.unit, body=spec.body or None)
    if spec.gripper_pose is not None and spec.object_pose is not None:
        obj = rest_object_from_rotation(
            mesh,
            spec.object_pose[:3, :3],
            mass_kg=spec.mass_kg,
            density_kg_m3=spec.density_kg_m3,
            snap_to_support_deg=REACH_SNAP_DEG,
        )
        return obj, mesh, reach_grasp(obj, spec.gripper_pose, spec.object_pose)
    obj = rest_object(
        mesh,
        spec.stable_pose,
        mass_kg=spec.mass_kg,
        density_kg_m3=spec.density_kg_m3,
        poses=None if poses is None else poses(),
    )
    assert spec.center is not None and spec.axis is not None
    return obj, mesh, Grasp(spec.center, spec.axis, spec.approach_angle_rad)
