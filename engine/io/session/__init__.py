"""Session files: everything needed to reopen a grasp study, as JSON plus NumPy arrays.

A session is two files side by side (never pickle):

`NAME.ipcgrasp.json` (UTF-8 JSON, human readable):
    format "ipcgrasp-session", version 1, ipcgrasp_version, saved_at (ISO 8601 UTC);
    object: source ("builtin:cube", "builtin:cube:N" or the absolute mesh path),
        relative_path (from the session's folder, or null), sha256 (of the mesh file, null for
        built-ins), unit (the file unit it was loaded with, or null = metres), stable_pose
        (index, most probable first), density_kg_m3, name, body (which body of a file holding
        several: "K", "all" or "" for the only one; absent in older files) and repair (what
        loading repaired: {"changes": [one line per change], "body": "K of N" | "all" | ""})
        and facts (the object as a result row's object_* columns record it: unit, scale_m,
        mass_kg, density_kg_m3, size_{x,y,z}_mm; engine.scene.object_facts; informational,
        absent in older files);
    grasp: center [m], axis (unit), approach_angle_rad (resting frame, see engine.grasp.grasp);
    params: every SimulationParams field (SI units; engine.schema declares each field's unit
        and range, and reading checks them; fields a newer version added are ignored with a
        warning, fields missing take their defaults);
    trials: the TrialSpec fields n_trials, seed, translation_sigma_m, rotation_sigma_rad;
    results: one object per trial: trial, status (queued | running | done | failed |
        cancelled), gripper_pose (4x4, world <- gripper of the perturbed trial) and result
        (the TrialResult fields, or null when the trial has not finished);
    frames_file: the arrays file name (relative to the session file) and frames_sha256;
    extras: free-form (the app keeps its analytic predictions and camera here).
    Non-finite numbers are written as the strings "NaN", "Infinity", "-Infinity".

`NAME.ipcgrasp.npz` or `NAME.ipcgrasp.2.npz`, the one the JSON's frames_file names (saving over
a session writes the arrays under the name its JSON does not use, then replaces the JSON in one
rename, so the old pair opens until the new one is complete; numpy.savez_compressed, read with
allow_pickle=False):
    object_vertices (v,3) float64 and object_faces (m,3) int64: the mesh in its file frame, in
    metres, so a session opens even when the mesh file has moved;
    per trial k with frames, the arrays of engine.io.frames_npz under the prefix `t{k}/`
    (time_s, phase, pad1, pad2, object_pose, psi, grip_force, contacts, min_distance,
    object_min_z, plate, newton_iterations, intersection_free) plus, when present,
    `t{k}/energy1` and `t{k}/energy2` (F,n) float32 pad strain energy density per vertex
    (J/m^3). Sessions saved before the per-frame intersection_free array existed read it
    from the trial result's flag.

The package: records.py (what a session holds), files.py (the two files' names and digest),
json_values.py (JSON values and their checks), writing.py (`save_session`), reading.py
(`load_session`), arrays.py (the arrays file read back), object_file.py (`resolve_object`).
"""

from engine.io.session.files import (
    ARRAYS_SUFFIX,
    NEXT_ARRAYS_SUFFIX,
    SESSION_SUFFIX,
    session_paths,
)
from engine.io.session.object_file import resolve_object
from engine.io.session.reading import MAX_JSON_BYTES, load_session
from engine.io.session.records import (
    FORMAT,
    TRIAL_STATUSES,
    VERSION,
    Session,
    SessionError,
    TrialRecord,
)
from engine.io.session.writing import save_session

__all__ = [
    "ARRAYS_SUFFIX",
    "FORMAT",
    "MAX_JSON_BYTES",
    "NEXT_ARRAYS_SUFFIX",
    "SESSION_SUFFIX",
    "TRIAL_STATUSES",
    "VERSION",
    "Session",
    "SessionError",
    "TrialRecord",
    "load_session",
    "resolve_object",
    "save_session",
    "session_paths",
]
