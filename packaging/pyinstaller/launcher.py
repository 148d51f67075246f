"""Entry point of the frozen (PyInstaller) app: the same `ipcgrasp` command line."""

from __future__ import annotations

import multiprocessing
import sys

if __name__ == "__main__":
    # Spawned worker processes re-run this file; freeze_support() turns them into workers
    # instead of a second GUI.
    multiprocessing.freeze_support()
    # Where numba caches the kernels: engine/numba_cache.py, when engine is imported.
    from app.launcher import main

    sys.exit(main())
