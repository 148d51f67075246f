"""Where numba caches the compiled kernels (`@njit(cache=True)`: the elastic terms in
engine.fem, the LDL^T and contact kernels in engine.ipc).

Compiling the kernels takes seconds; numba stores the machine code on disk and later processes
load it. The folder is `$NUMBA_CACHE_DIR` when set, else `$XDG_CACHE_HOME/ipcgrasp/numba/<kernels>`
(`~/.cache/ipcgrasp/numba/<kernels>`): one writable per-user folder for a checkout, a wheel
installed in a read-only site-packages and the PyInstaller bundle alike (numba's default,
`__pycache__` next to the source, is not writable everywhere, and numba falls back to
`~/.cache/numba` silently). `<kernels>` is a fingerprint of the kernels' sources
(`kernel_fingerprint`): numba checks only the file that defines a cached function, not the
files of the kernels it calls (and compiles in), so after an edit or a `git pull` that changed
`psi` alone, an unchanged caller would go on loading the old `psi` from the cache; a new
fingerprint starts a fresh folder instead, and folders of old fingerprints unused for
STALE_DAYS are removed. `import engine` calls `configure()`, before anything imports numba;
inside, numba keeps one subfolder per source folder (`fem_<hash of its path>`), so several
checkouts or installs do not share kernels. numba uses the folder only for modules whose `.py`
file exists on disk, which is why the bundle ships every module with cached kernels as source
(packaging/pyinstaller/ipcgrasp.spec).
`ipcgrasp warmup` fills it ahead of the first simulation.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from pathlib import Path

ENV = "NUMBA_CACHE_DIR"

# The engine's packages whose modules define cached numba kernels (tests/engine/test_numba_cache
# checks that no other module does): their kernel modules make the fingerprint.
KERNEL_PACKAGES = ("fem", "ipc", "scene")
# Another fingerprint's folder that no process used for this many days is removed when a new
# one starts (~8 MB each).
STALE_DAYS = 30
_ENGINE = Path(__file__).resolve().parent


def kernel_fingerprint(engine_dir: Path = _ENGINE) -> str:
    """16 hex digits of a hash of every module in KERNEL_PACKAGES that defines a numba kernel
    (its name and bytes): a change to any kernel's source changes it (about 1 ms)."""
    digest = hashlib.sha1()
    for package in KERNEL_PACKAGES:
        for path in sorted((engine_dir / package).glob("*.py")):
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if b"@njit" in data:
                digest.update(f"{package}/{path.name}\0".encode())
                digest.update(data)
    return digest.hexdigest()[:16]


def default_dir() -> Path | None:
    """`$XDG_CACHE_HOME/ipcgrasp/numba/<kernel_fingerprint()>`, or the same under `~/.cache`;
    None without a home."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # unset, empty or relative: ignored, as the XDG spec says
        try:
            base = str(Path.home() / ".cache")
        except (RuntimeError, KeyError):  # no home directory (some service accounts)
            return None
    return Path(base) / "ipcgrasp" / "numba" / kernel_fingerprint()


def _cache_folder_name(name: str) -> bool:
    """A fingerprint's folder (16 hex digits), or one numba made there before fingerprints
    (`fem_<40 hex digits of its source folder>`)."""
    stem, _, tail = name.rpartition("_")
    hexdigits = set("0123456789abcdef")
    if not stem:
        return len(name) == 16 and set(name) <= hexdigits
    return len(tail) == 40 and set(tail) <= hexdigits


def remove_stale(folder: Path, days: float = STALE_DAYS) -> None:
    """Remove the other fingerprints' folders beside `folder` that nobody used for `days`
    (best effort: another process may be using or removing them)."""
    cutoff = time.time() - days * 86400.0
    try:
        siblings = list(folder.parent.iterdir())
    except OSError:
        return
    for other in siblings:
        if other == folder or not _cache_folder_name(other.name):
            continue
        try:
            if other.is_dir() and other.stat().st_mtime < cutoff:
                shutil.rmtree(other, ignore_errors=True)
        except OSError:
            continue


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
    if not folder.exists():  # a new fingerprint: the first process after a change
        remove_stale(folder)
    else:
        try:
            os.utime(folder)  # in use: its age counts from now (remove_stale)
        except OSError:
            pass
    os.environ[ENV] = str(folder)
    config = sys.modules.get("numba.core.config")
    if config is not None and not getattr(config, "CACHE_DIR", ""):
        setattr(config, "CACHE_DIR", str(folder))  # noqa: B010 (a module numba owns)
