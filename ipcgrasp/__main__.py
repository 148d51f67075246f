"""`python -m ipcgrasp [COMMAND ...]`: the same as the `ipcgrasp` console script (the desktop
app, or an engine command such as `python -m ipcgrasp simulate --object cube`).

In a checkout the engine and the app are the top-level `engine` and `app` (ipcgrasp/__init__.py
makes `ipcgrasp.engine` and `ipcgrasp.app` name them too); the wheel installs them as
ipcgrasp.engine and ipcgrasp.app, with this file rewritten by hatch_build.py.
"""

from __future__ import annotations

import sys

from app.launcher import main

if __name__ == "__main__":
    sys.exit(main())
