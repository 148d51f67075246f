"""Entry point of the frozen (PyInstaller) app: the same `ipcgrasp` command line."""

from __future__ import annotations

import multiprocessing
import os
import sys
from pathlib import Path

if __name__ == "__main__":
    # Spawned worker processes re-run this file; freeze_support() turns them into workers
    # instead of a second GUI.
    multiprocessing.freeze_support()
    # numba caches compiled kernels next to the sources, which a bundle does not have.
    os.environ.setdefault("NUMBA_CACHE_DIR", str(Path.home() / ".cache" / "ipcgrasp" / "numba"))
    from app.launcher import main

    sys.exit(main())
