"""ipcgrasp engine: headless scene, IPC grasp simulation, analytic models and file formats.

Everything here is SI (metres, kilograms, seconds, newtons, pascals, joules) and never imports Qt.
"""

from engine import numba_cache as _numba_cache

__version__ = "0.2.0"
"""The release version: the single source (pyproject reads it; engine.version adds the commit)."""

# Before anything imports numba: where the compiled kernels are cached (engine/numba_cache.py).
_numba_cache.configure()
