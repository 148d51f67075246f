"""numba caches the elastic kernels in the documented per-user folder (engine/numba_cache.py):
`$NUMBA_CACHE_DIR` when set, else `$XDG_CACHE_HOME/ipcgrasp/numba/<kernels>`
(~/.cache/ipcgrasp/numba/<kernels>), and really reads them back from there (NUMBA_DEBUG_CACHE);
`ipcgrasp warmup` fills it. `<kernels>` fingerprints the kernels' sources, so a kernel edited in
one file is never loaded from the cache of an unchanged caller in another."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

from engine import numba_cache

ROOT = Path(__file__).resolve().parents[2]
FINGERPRINT = numba_cache.kernel_fingerprint()


def _folder(base: Path) -> Path:
    return base / "ipcgrasp" / "numba" / FINGERPRINT


# One kernel (the energy), compiled in a fresh interpreter: a second or two.
ENERGY = """
import numpy as np
from engine.fem.neohookean import elastic_energy_per_tet, tet_rest
x = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
rest = tet_rest(x, np.array([[0, 1, 2, 3]]))
print(float(elastic_energy_per_tet(x * 1.01, rest, 1e6, 1e6)[0]))
"""


def _child_env(xdg: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    return {**env, "XDG_CACHE_HOME": str(xdg), "NUMBA_DEBUG_CACHE": "1", **extra}


def _run(code: str, env: dict[str, str]) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return out.stdout


@pytest.fixture
def clean_env(monkeypatch):
    """No NUMBA_CACHE_DIR; restored after the test (configure() sets it)."""
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    return monkeypatch


def test_folder_follows_xdg_cache_home(clean_env, tmp_path):
    clean_env.setenv("XDG_CACHE_HOME", str(tmp_path))
    numba_cache.configure()
    assert os.environ["NUMBA_CACHE_DIR"] == str(_folder(tmp_path))
    assert numba_cache.cache_dir() == _folder(tmp_path)


def test_relative_xdg_is_ignored_and_home_is_used(clean_env, tmp_path):
    clean_env.setenv("XDG_CACHE_HOME", "relative/cache")
    clean_env.setenv("HOME", str(tmp_path))
    numba_cache.configure()
    assert os.environ["NUMBA_CACHE_DIR"] == str(_folder(tmp_path / ".cache"))


def test_a_folder_the_user_chose_wins(clean_env, tmp_path):
    clean_env.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    clean_env.setenv("XDG_CACHE_HOME", str(tmp_path))
    numba_cache.configure()
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "mine")


def test_numba_imported_first_gets_the_folder_too(clean_env, tmp_path):
    config = types.SimpleNamespace(CACHE_DIR="")
    clean_env.setitem(sys.modules, "numba.core.config", config)
    clean_env.setenv("XDG_CACHE_HOME", str(tmp_path))
    numba_cache.configure()
    assert config.CACHE_DIR == str(_folder(tmp_path))


def test_numba_saves_and_loads_kernels_in_the_folder(tmp_path):
    folder = _folder(tmp_path)
    first = _run(ENERGY, _child_env(tmp_path))
    assert f"data saved to '{folder}" in first, first
    second = _run(ENERGY, _child_env(tmp_path))
    assert f"data loaded from '{folder}" in second, second
    assert "data saved" not in second, second
    # Nothing went to numba's own defaults (__pycache__ next to the source, ~/.cache/numba).
    paths = [line.split("'")[1] for line in (first + second).splitlines() if "'" in line]
    assert paths and all(p.startswith(str(folder)) for p in paths), paths


COLD = "from engine.grasp.warmup import kernels_cold; print(kernels_cold())"


def test_a_cold_cache_is_told_apart_without_compiling(tmp_path):
    """`simulate` says it compiles when the folder holds none of the kernels (a fresh install)."""
    env = _child_env(tmp_path)
    cold = _run(COLD, env)
    assert cold.splitlines()[-1] == "True" and "data saved" not in cold, cold
    _run(ENERGY, env)  # one kernel compiled and cached: no longer a fresh install
    assert _run(COLD, env).splitlines()[-1] == "False"


@pytest.mark.slow
def test_warmup_compiles_what_a_simulation_needs(tmp_path):
    env = _child_env(tmp_path)
    cli = "from app.launcher import main; import sys; sys.exit(main(sys.argv[1:]))"
    first = subprocess.run(
        [sys.executable, "-c", cli, "warmup"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert first.returncode == 0, first.stderr
    assert "compiled in" in first.stdout and str(_folder(tmp_path)) in first.stdout
    again = subprocess.run(
        [sys.executable, "-c", cli, "warmup"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert "cached already" in again.stdout and "data saved" not in again.stdout
    sim = subprocess.run(
        [sys.executable, "-c", cli, "simulate", "--object", "cube", "--trials", "1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert sim.returncode == 0, sim.stderr
    # The simulation compiled nothing: every kernel came from the warm-up's cache.
    assert "data saved" not in sim.stdout and "data loaded" in sim.stdout
    assert "compiling the elastic kernels" not in sim.stderr


def _kernel_tree(root: Path) -> Path:
    """A copy of the engine's kernel packages' modules under root/engine."""
    for package in numba_cache.KERNEL_PACKAGES:
        (root / "engine" / package).mkdir(parents=True)
        for path in (ROOT / "engine" / package).glob("*.py"):
            (root / "engine" / package / path.name).write_bytes(path.read_bytes())
    return root / "engine"


def test_an_edited_kernel_gets_a_new_folder_an_edited_plain_module_does_not(tmp_path):
    """numba checks only the file that defines a cached function: a caller in an unchanged file
    keeps the callee it was compiled with (numba 0.68: f in a.py calling g in b.py returns the
    old g's value after b.py changed). So the folder must change with any kernel's source."""
    engine = _kernel_tree(tmp_path)
    assert numba_cache.kernel_fingerprint(engine) == FINGERPRINT
    density = engine / "fem" / "neohookean_density.py"
    density.write_text(density.read_text().replace("0.5 * mu * norm2", "0.25 * mu * norm2"))
    edited = numba_cache.kernel_fingerprint(engine)
    assert edited != FINGERPRINT
    plain = engine / "ipc" / "stepper.py"
    assert "@njit" not in plain.read_text()
    plain.write_text(plain.read_text() + "\n# a comment\n")
    assert numba_cache.kernel_fingerprint(engine) == edited


def test_every_cached_kernel_is_in_a_fingerprinted_package():
    outside = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "engine").rglob("*.py")
        if re.search(r"@njit\(", path.read_text())
        and path.parent.name not in numba_cache.KERNEL_PACKAGES
        and path.name != "numba_cache.py"
    ]
    assert outside == [], f"add their packages to numba_cache.KERNEL_PACKAGES: {outside}"


def test_old_folders_unused_for_a_month_go_when_a_new_fingerprint_starts(tmp_path):
    base = tmp_path / "ipcgrasp" / "numba"
    current = base / FINGERPRINT
    old = base / "0123456789abcdef"
    recent = base / "fedcba9876543210"
    before = base / ("fem_" + "a" * 40)  # numba's folder from before the fingerprints
    mine = base / "notes"  # not ours: kept
    for folder in (old, recent, before, mine):
        (folder / "sub").mkdir(parents=True)
    month_ago = time.time() - (numba_cache.STALE_DAYS + 1) * 86400.0
    for folder in (old, before, mine):
        os.utime(folder, (month_ago, month_ago))
    numba_cache.remove_stale(current)
    assert not old.exists() and not before.exists()
    assert recent.exists() and mine.exists()
