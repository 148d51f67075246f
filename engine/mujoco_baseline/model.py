"""The MuJoCo model of one grasp scene: ground, the resting object, a lifting two-jaw gripper.

Bodies (world z up, the object's resting frame is the world frame as in the IPC simulator):
- `object`: a free body whose frame is the resting frame (mass, centre of mass and inertia of
  the RestingObject), colliding through its convex hull, or through a convex decomposition when
  it is not convex;
- `lift` (a slide joint along world z whose position and speed the procedure prescribes) carrying
  `gripper`, whose pose (body_pos, body_quat) is set per trial to the trial's gripper pose;
- `pad0`, `pad1`: the pad outline (engine.gripper.pad_geometry) extruded through its thickness
  as a convex mesh, placed as engine.gripper.jaws.place_jaws places the open jaws, each on a
  slide joint along its normal (closing travel) driven by a position servo whose force is
  limited to the grip force.

Only explicit contact pairs collide (pad-object, object-ground, pad-ground, pad-pad), each with
its friction (pads: mu; ground: ground mu), elliptic cones, no margin: bodies touch when MuJoCo
reports a contact between them (they overlap by the soft contact's depth). The pad-object
impedance is set per trial (engine.mujoco_baseline.contact).
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine import schema
from engine.errors import MeshError, ParameterError
from engine.grasp.params import SimulationParams
from engine.gripper.jaws import place_jaws
from engine.gripper.pad_geometry import PadOutline
from engine.mujoco_baseline.gripper import GripperSpec
from engine.scene.resting import RestingObject

RIGID_IMPEDANCE = 0.9999  # ground and pad-pad contacts: as hard as MuJoCo allows
LIFT_BODY_MASS_KG = 10.0  # the arm: its motion is prescribed, its mass only anchors the joint


def import_mujoco() -> Any:
    """The `mujoco` module, or an ImportError that names the extra to install."""
    try:
        import mujoco
    except ImportError as exc:
        raise ImportError(
            "the MuJoCo baseline needs the `mujoco` package: pip install mujoco (or, from the "
            "checkout, pip install '.[mujoco]')"
        ) from exc
    return mujoco


@dataclass(frozen=True)
class SceneKey:
    """What a compiled model depends on (trial poses, grip force and stiffness are set later)."""

    object_id: int  # id() of the RestingObject: cached per object instance
    pad: str
    mu: float
    ground_mu: float
    open_width_m: float  # distance between the pads' contact faces at the open pose
    time_step_s: float
    damping_ratio: float
    gripper: GripperSpec


@dataclass
class SceneModel:
    """A compiled MuJoCo model with the indices the procedure needs."""

    model: Any  # mujoco.MjModel
    object_body: int
    pad_bodies: tuple[int, int]
    pad_geoms: tuple[int, int]
    object_geoms: frozenset[int]
    ground_geom: int
    gripper_body: int
    lift_qpos: int
    lift_dof: int
    pad_qpos: tuple[int, int]
    pad_dofs: tuple[int, int]
    object_qpos: int
    pad_object_pairs: tuple[tuple[int, ...], tuple[int, ...]]  # pair ids per pad
    hull_vertices: np.ndarray  # (n,3) object collision vertices, resting frame
    outline: PadOutline


def _fmt(values: np.ndarray | list[float] | tuple[float, ...]) -> str:
    return " ".join(f"{float(v):.10g}" for v in np.ravel(values))


def _quat(rotation: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of a rotation matrix."""
    mujoco = import_mujoco()
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, np.ascontiguousarray(rotation, dtype=float).ravel())
    return q


# Convex decompositions by mesh digest: a batch's tasks and the app's requests on one object
# decompose it once per process (V-HACD takes 2.5-4.5 s on a scan, a trial 0.03-0.12 s).
_PARTS: dict[str, list[np.ndarray]] = {}
_PARTS_KEPT = 8


def convex_parts(obj: RestingObject) -> list[np.ndarray]:
    """The object's collision shapes as vertex arrays (resting frame), computed once per mesh.

    A convex object (hull volume within 0.1 % of its volume) is one part; otherwise a convex
    decomposition (V-HACD through trimesh and vhacdx), and MeshError says what to install when
    it cannot be made.
    """
    vertices = np.ascontiguousarray(obj.vertices, dtype=float)
    faces = np.ascontiguousarray(obj.faces, dtype=np.int64)
    key = hashlib.sha256(vertices.tobytes() + faces.tobytes()).hexdigest()
    if key not in _PARTS:
        if len(_PARTS) >= _PARTS_KEPT:
            _PARTS.pop(next(iter(_PARTS)))
        _PARTS[key] = _decompose(vertices, faces, float(obj.volume_m3))
    return _PARTS[key]


def _decompose(vertices: np.ndarray, faces: np.ndarray, volume_m3: float) -> list[np.ndarray]:
    import trimesh

    mesh = trimesh.Trimesh(vertices, faces, process=False)
    hull = mesh.convex_hull
    if hull.volume <= abs(volume_m3) * 1.001:
        return [np.asarray(hull.vertices, dtype=float)]
    try:
        parts = trimesh.decomposition.convex_decomposition(mesh)
    except ImportError as exc:
        raise MeshError(
            f"the object is not convex (its hull is {hull.volume / volume_m3:.2f} x its volume) "
            "and MuJoCo collides meshes only through convex pieces: its convex decomposition "
            f"needs vhacdx ({exc}); install it with pip install vhacdx (or pip install "
            "'ipcgrasp[mujoco]')"
        ) from exc
    except Exception as exc:
        raise MeshError(
            f"the object is not convex (its hull is {hull.volume / volume_m3:.2f} x its volume) "
            f"and its convex decomposition for MuJoCo failed ({type(exc).__name__}: {exc}); "
            "repair the mesh (a closed, consistently oriented surface) or use a convex object"
        ) from exc
    if isinstance(parts, dict):
        parts = [parts]
    out = [np.asarray(p["vertices"] if isinstance(p, dict) else p.vertices, float) for p in parts]
    if not out:
        raise MeshError("the convex decomposition of the object returned no parts")
    return out


def _inertia(obj: RestingObject) -> np.ndarray:
    s = np.asarray(obj.second_moment, dtype=float)
    inertia = np.trace(s) * np.eye(3) - s
    return np.array(
        [inertia[0, 0], inertia[1, 1], inertia[2, 2], inertia[0, 1], inertia[0, 2], inertia[1, 2]]
    )


def _pad_vertices(outline: PadOutline) -> np.ndarray:
    poly = np.asarray(outline.polygon, dtype=float)
    front = np.column_stack([poly, np.zeros(len(poly))])
    back = np.column_stack([poly, np.full(len(poly), -outline.thickness_m)])
    return np.vstack([front, back])


def scene_xml(
    obj: RestingObject, parts: list[np.ndarray], outline: PadOutline, key: SceneKey
) -> str:
    """The MJCF text of the scene (gripper at the identity pose, fully open)."""
    g = key.gripper
    jaws = place_jaws(np.eye(4), key.open_width_m)
    tc = 2.0 * key.time_step_s
    zeta = key.damping_ratio
    rigid = f"{RIGID_IMPEDANCE} {RIGID_IMPEDANCE} 0.001 0.5 2"
    pad_fr = f"{key.mu} {key.mu} 0.005 0.0001 0.0001"
    ground_fr = f"{key.ground_mu} {key.ground_mu} 0.005 0.0001 0.0001"
    contact = f'condim="3" solref="{tc} {zeta}"'
    assets = [f'<mesh name="pad" vertex="{_fmt(_pad_vertices(outline))}"/>']
    assets += [f'<mesh name="part{i}" vertex="{_fmt(p)}"/>' for i, p in enumerate(parts)]
    object_geoms = "\n".join(
        f'<geom name="part{i}" type="mesh" mesh="part{i}" contype="0" conaffinity="0" '
        'group="1" mass="0"/>'
        for i in range(len(parts))
    )
    pads = []
    for k, jaw in enumerate(jaws):
        pads.append(
            f'<body name="pad{k}" pos="{_fmt(jaw.origin)}" quat="{_fmt(_quat(jaw.rotation))}" '
            'gravcomp="1">'
            f'<joint name="close{k}" type="slide" axis="0 0 1" range="{-0.5 * g.stroke_m} {0.5 * key.open_width_m}"/>'
            f'<inertial pos="0 0 {-0.5 * outline.thickness_m}" mass="{g.jaw_mass_kg}" '
            'diaginertia="1e-5 1e-5 1e-5"/>'
            f'<geom name="pad{k}" type="mesh" mesh="pad" contype="0" conaffinity="0" mass="0"/>'
            "</body>"
        )
    pairs = []
    for k in range(2):
        for i in range(len(parts)):
            pairs.append(
                f'<pair name="pad{k}_part{i}" geom1="pad{k}" geom2="part{i}" {contact} '
                f'friction="{pad_fr}" solimp="{rigid}"/>'
            )
        pairs.append(
            f'<pair geom1="pad{k}" geom2="ground" {contact} friction="{pad_fr}" solimp="{rigid}"/>'
        )
    for i in range(len(parts)):
        pairs.append(
            f'<pair geom1="part{i}" geom2="ground" {contact} friction="{ground_fr}" '
            f'solimp="{rigid}"/>'
        )
    pairs.append(
        f'<pair geom1="pad0" geom2="pad1" {contact} friction="{pad_fr}" solimp="{rigid}"/>'
    )
    com = np.asarray(obj.center_of_mass, dtype=float)
    actuators = "\n".join(
        f'<position name="servo{k}" joint="close{k}" kp="{_servo_kp(g)}" kv="{_servo_kv(g)}" '
        f'ctrlrange="{-g.stroke_m} {g.stroke_m}" forcerange="-{g.max_force_n} {g.max_force_n}"/>'
        for k in range(2)
    )
    return f"""<mujoco model="ipcgrasp_baseline">
  <compiler angle="radian" inertiafromgeom="false"/>
  <option timestep="{key.time_step_s}" integrator="implicitfast" cone="elliptic" solver="Newton"
          iterations="100" tolerance="1e-10" gravity="0 0 -9.80665"/>
  <asset>{"".join(assets)}</asset>
  <worldbody>
    <geom name="ground" type="plane" size="0 0 1" contype="0" conaffinity="0"/>
    <body name="object">
      <freejoint name="object"/>
      <inertial pos="{_fmt(com)}" mass="{obj.mass_kg}" fullinertia="{_fmt(_inertia(obj))}"/>
      {object_geoms}
    </body>
    <body name="lift" gravcomp="1">
      <joint name="lift" type="slide" axis="0 0 1"/>
      <inertial pos="0 0 0" mass="{LIFT_BODY_MASS_KG}" diaginertia="1 1 1"/>
      <body name="gripper" gravcomp="1">
        <inertial pos="0 0 0" mass="0.1" diaginertia="1e-4 1e-4 1e-4"/>
        {"".join(pads)}
      </body>
    </body>
  </worldbody>
  <contact>{"".join(pairs)}</contact>
  <actuator>{actuators}</actuator>
</mujoco>"""


def _servo_kp(g: GripperSpec) -> float:
    """Jaw servo gain: the force limit is reached 2 mm behind the target (50 Hz for 50 g)."""
    return g.max_force_n / 0.002


def _servo_kv(g: GripperSpec) -> float:
    """Critical damping of the jaw servo."""
    return 2.0 * float(np.sqrt(_servo_kp(g) * g.jaw_mass_kg))


@functools.lru_cache(maxsize=8)
def _compiled(xml: str) -> Any:
    mujoco = import_mujoco()
    try:
        return mujoco.MjModel.from_xml_string(xml)
    except ValueError as exc:
        raise MeshError(f"MuJoCo could not build the grasp scene: {exc}") from exc


_SCENES: dict[SceneKey, tuple[RestingObject, SceneModel]] = {}


def scene_model(obj: RestingObject, outline: PadOutline, key: SceneKey) -> SceneModel:
    """The compiled scene of `key`, cached per object instance and settings."""
    cached = _SCENES.get(key)
    if cached is not None and cached[0] is obj:
        return cached[1]
    if key.open_width_m > key.gripper.stroke_m * (1 + 1e-9):
        raise ParameterError(
            f"the opening {key.open_width_m * 1e3:.1f} mm is wider than the {key.gripper.name} "
            f"gripper's {key.gripper.stroke_m * 1e3:.0f} mm stroke; lower {{0}}",
            settings=[schema.setting(SimulationParams, "open_width_m")],
        )
    mujoco = import_mujoco()
    parts = convex_parts(obj)
    model = _compiled(scene_xml(obj, parts, outline, key))

    def body(name: str) -> int:
        return int(mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name))

    def geom(name: str) -> int:
        return int(mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, name))

    def joint(name: str) -> int:
        return int(mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name))

    def pair(name: str) -> int:
        return int(mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_PAIR, name))

    close = (joint("close0"), joint("close1"))
    scene = SceneModel(
        model=model,
        object_body=body("object"),
        pad_bodies=(body("pad0"), body("pad1")),
        pad_geoms=(geom("pad0"), geom("pad1")),
        object_geoms=frozenset(geom(f"part{i}") for i in range(len(parts))),
        ground_geom=geom("ground"),
        gripper_body=body("gripper"),
        lift_qpos=int(model.jnt_qposadr[joint("lift")]),
        lift_dof=int(model.jnt_dofadr[joint("lift")]),
        pad_qpos=(int(model.jnt_qposadr[close[0]]), int(model.jnt_qposadr[close[1]])),
        pad_dofs=(int(model.jnt_dofadr[close[0]]), int(model.jnt_dofadr[close[1]])),
        object_qpos=int(model.jnt_qposadr[joint("object")]),
        pad_object_pairs=tuple(
            tuple(pair(f"pad{k}_part{i}") for i in range(len(parts))) for k in range(2)
        ),  # type: ignore[arg-type]
        hull_vertices=np.vstack(parts),
        outline=outline,
    )
    if len(_SCENES) >= 8:
        _SCENES.pop(next(iter(_SCENES)))
    _SCENES[key] = (obj, scene)
    return scene


def set_gripper_pose(scene: SceneModel, pose: np.ndarray) -> None:
    """Place the gripper body at `pose` (4x4 world <- gripper) for the next reset."""
    m = scene.model
    m.body_pos[scene.gripper_body] = np.asarray(pose, dtype=float)[:3, 3]
    m.body_quat[scene.gripper_body] = _quat(np.asarray(pose, dtype=float)[:3, :3])
