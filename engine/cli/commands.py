"""The `ipcgrasp` subcommands: name -> (module, one-line help), declared once.

Kept free of heavy imports so `ipcgrasp --help` and `--version` start without loading numba,
scipy, trimesh or ipctk; a command's module is imported only when that command is named.

A command module declares its flags at import (`add_parser`, from the parameter dataclasses and
light modules such as engine.analytic.registry) and imports what executes the command inside its
`run` function and helpers, so `ipcgrasp CMD --help` loads no solver either
(tests/engine/cli/test_cli_startup.py checks every command's import set).
"""

from __future__ import annotations

COMMANDS: dict[str, tuple[str, str]] = {
    "simulate": ("engine.cli.simulate", "run squeeze-lift IPC trials of one grasp"),
    "calibrate-psi": (
        "engine.cli.calibrate",
        "measure the pad strain energy Psi reached at given squeeze forces",
    ),
    "analyze": (
        "engine.cli.analyze",
        "quasi-static analytic models of one grasp (Soft Point, REACH, 6DFC, 6DLS, exact)",
    ),
    "batch": (
        "engine.cli.batch",
        "label many grasps (IPC and analytic models), resumable, local or Ray",
    ),
    "evaluate": (
        "engine.cli.evaluate",
        "score batch results against physical grasp outcomes (AP, AR, F1, Brier)",
    ),
    "grid": (
        "engine.cli.grid",
        "E x mu sensitivity sweep of the IPC model against physical labels",
    ),
    "sample": (
        "engine.cli.sample",
        "sample antipodal grasps that fit the gripper and write them as a grasp CSV",
    ),
    "poses": (
        "engine.cli.poses",
        "list an object's resting poses, look-alikes merged, for --stable-pose",
    ),
    "warmup": (
        "engine.cli.warmup",
        "compile the elastic kernels into numba's cache now, not in the first simulation",
    ),
}


GUI_HELP = "open the desktop app, on a MESH or SESSION file if given (as `ipcgrasp` alone does)"
"""The one-line help of `ipcgrasp gui`, which the console script (app.launcher) runs."""


def help_of(name: str) -> str:
    """The one-line help of command `name`."""
    return COMMANDS[name][1]
