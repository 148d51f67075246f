"""Scene: object meshes (files or the built-in cube) and how they rest on the table."""

from engine.scene.object_mesh import (
    BUILTIN_CUBE_MASS_KG,
    ObjectMesh,
    builtin_cube,
    load_object_mesh,
    object_from_spec,
)
from engine.scene.resting import (
    DEFAULT_DENSITY_KG_M3,
    RestingObject,
    StablePose,
    rest_object,
    stable_poses,
)

__all__ = [
    "BUILTIN_CUBE_MASS_KG",
    "DEFAULT_DENSITY_KG_M3",
    "ObjectMesh",
    "RestingObject",
    "StablePose",
    "builtin_cube",
    "load_object_mesh",
    "object_from_spec",
    "rest_object",
    "stable_poses",
]
