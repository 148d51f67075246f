"""Names of the pad outline presets (engine.gripper.pad_geometry builds them).

Kept apart from pad_geometry so parameter declarations (and every `ipcgrasp CMD --help`) can
list the choices without importing numpy.
"""

PAD_PRESETS: tuple[str, ...] = ("rounded", "rectangular")
