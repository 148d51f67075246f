"""The `ipcgrasp` console script: the desktop app or an engine command.

`ipcgrasp` alone or `ipcgrasp gui [MESH|SESSION] [--smoke-test]` opens the app; anything else is
an engine command handed to `engine.cli.main`. Qt is imported only for the app, so the engine
commands work on machines without Qt or a display.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Open the app (no arguments or `gui ...`) or run an engine command; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] == "gui":
        from app.gui_main import gui_main  # lazy: pulls in Qt

        return gui_main(args[1:])
    from engine.cli.main import main as engine_main

    return engine_main(args)


if __name__ == "__main__":
    sys.exit(main())
