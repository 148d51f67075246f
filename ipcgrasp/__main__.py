"""`python -m ipcgrasp [COMMAND ...]`: the same as the `ipcgrasp` console script."""

from __future__ import annotations

import sys

from app.launcher import main

if __name__ == "__main__":
    sys.exit(main())
