"""Where numba caches the compiled kernels (`@njit(cache=True)`: the elastic terms in
engine.fem, the LDL^T and contact kernels in engine.ipc).

Compiling the kernels takes seconds; numba stores the machine code on disk and later processes
load it. The folder is `$NUMBA_CACHE_DIR` when set, else `$XDG_CACHE_HOME/ipcgrasp/numba`
(`~/.cache/ipcgrasp/numba`): one writable per-user folder for a checkout, a wheel installed in a
read-only site-packages and the PyInstaller bundle alike (numba's default, `__pycache__` next to
the source, is not writable everywhere, and numba falls back to `~/.cache/numba` silently).
`import engine` calls `configure()`, before anything imports numba; inside, numba keeps one
subfolder per source folder (`fem_<hash of its path>`), so several checkouts or installs do not
share kernels. numba uses the folder only for modules whose `.py` file exists on disk, which is
why the bundle ships every module with cached kernels as source
(packaging/pyinstaller/ipcgrasp.spec).
`ipcgrasp warmup` fills it ahead of the first simulation.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ENV = "NUMBA_CACHE_DIR"


def default_dir() -> Path | None:
    """`$XDG_CACHE_HOME/ipcgrasp/numba`, or `~/.cache/ipcgrasp/numba`; None without a home."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # unset, empty or relative: ignored, as the XDG spec says
        try:
            base = str(Path.home() / ".cache")
        except (RuntimeError, KeyError):  # no home directory (some service accounts)
            return None
    return Path(base) / "ipcgrasp" / "numba"


def cache_dir() -> Path | None:
    """The folder numba caches the kernels in (after `configure()`)."""
    value = os.environ.get(ENV)
    return Path(value) if value else default_dir()


def configure() -> None:
    """Point numba's cache at `cache_dir()` unless the user chose a folder (`$NUMBA_CACHE_DIR`).

    Sets the environment variable, which numba reads when it is imported and which worker
    processes inherit; when numba is already imported, sets its config too. A folder that cannot
    be created or written is skipped by numba (it then caches next to the source).
    """
    if os.environ.get(ENV):
        return
    folder = default_dir()
    if folder is None:
        return
    os.environ[ENV] = str(folder)
    config = sys.modules.get("numba.core.config")
    if config is not None and not getattr(config, "CACHE_DIR", ""):
        setattr(config, "CACHE_DIR", str(folder))  # noqa: B010 (a module numba owns)
