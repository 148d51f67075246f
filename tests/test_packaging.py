"""The PyInstaller bundle (packaging/README.md, packaging/pyinstaller/ipcgrasp.spec).

Offline and quick: the spec names every solver backend that its package loads with importlib
(OSQP's algebras, SCS's linear solvers) and ships every module with cached numba kernels as
source (so numba caches them in the documented folder). On demand (IPCGRASP_TEST_BUNDLE=1, minutes and ~1.5 GB):
the README's build command as written, with dist/ and build/ in a temporary folder, then the
README's checks of the bundle plus the 6DLS model (cvxpy lists OSQP) and numba's cache folder.
The README's first step (`pip install -e ".[package]"`) needs the package index: it is skipped
here, and the test needs PyInstaller installed already.
"""

from __future__ import annotations

import importlib.util
import os
import pkgutil
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "packaging" / "pyinstaller" / "ipcgrasp.spec"
README = REPO / "packaging" / "README.md"


def _spec_arguments() -> dict:
    """The keyword arguments the spec gives Analysis (the spec run with stand-ins for the build)."""
    pytest.importorskip("PyInstaller")
    seen: dict = {}

    def analysis(scripts, **kwargs):
        seen.update(kwargs, scripts=scripts)
        return type("A", (), {"pure": [], "scripts": [], "binaries": [], "datas": []})()

    def ignore(*args, **kwargs):
        return None

    namespace = {
        "SPECPATH": str(SPEC.parent),
        "Analysis": analysis,
        "PYZ": ignore,
        "EXE": ignore,
        "COLLECT": ignore,
    }
    exec(compile(SPEC.read_text(), str(SPEC), "exec"), namespace)
    return seen


def test_spec_sets_qt_paths_without_importing_qt_at_every_start():
    """PyInstaller's PySide6 runtime hook (it imports QtCore at start) is replaced by ours."""
    pytest.importorskip("PyInstaller")
    rthook = ("pyi_rth_pyside6", "/somewhere/pyi_rth_pyside6.py", "PYSOURCE")
    kept = ("launcher", "/somewhere/launcher.py", "PYSOURCE")
    seen: dict = {}

    def analysis(scripts, **kwargs):
        seen.update(kwargs)
        return type("A", (), {"pure": [], "scripts": [rthook, kept], "binaries": [], "datas": []})()

    namespace = {
        "SPECPATH": str(SPEC.parent),
        "Analysis": analysis,
        "PYZ": lambda *a, **k: None,
        "EXE": lambda *a, **k: None,
        "COLLECT": lambda *a, **k: None,
    }
    exec(compile(SPEC.read_text(), str(SPEC), "exec"), namespace)
    assert namespace["a"].scripts == [kept]
    (hook,) = seen["runtime_hooks"]
    text = Path(hook).read_text()
    assert "QT_PLUGIN_PATH" in text and "import PySide6" not in text


def _installed_backends() -> list[str]:
    """The dynamically loaded solver backend modules installed here."""
    names = []
    if importlib.util.find_spec("osqp") is not None:
        from osqp import interface

        names += [m for m in interface._ALGEBRA_MODULES.values() if importlib.util.find_spec(m)]
    if importlib.util.find_spec("scs") is not None:
        import scs

        names += [
            f"scs.{m.name}"
            for m in pkgutil.iter_modules(scs.__path__)
            if m.name.startswith("_scs_")
        ]
    return names


def test_spec_collects_every_solver_backend_and_the_kernels_source():
    args = _spec_arguments()
    backends = _installed_backends()
    assert "osqp.ext_builtin" in backends  # the backend the bundle missed
    missing = sorted(set(backends) - set(args["hiddenimports"]))
    assert missing == [], f"the bundle would lack {missing}"
    assert Path(args["scripts"][0]).is_file()


def _modules_with_cached_kernels() -> set[str]:
    """The engine modules that define numba kernels cached on disk (imported and inspected)."""
    import importlib

    from numba.core.caching import NullCache
    from numba.core.registry import CPUDispatcher

    import engine

    names = set()
    for info in pkgutil.walk_packages(engine.__path__, "engine."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, CPUDispatcher)
                and value.__module__ == info.name
                and not isinstance(value._cache, NullCache)
            ):
                names.add(info.name)
    return names


def test_spec_ships_every_module_with_cached_kernels_as_source():
    """numba caches a kernel in the documented folder only when its module's .py file is in
    the bundle; from bytecode it falls back to ~/.cache/numba (the ldl, reduction and contact
    kernels did, before the spec found the modules itself)."""
    args = _spec_arguments()
    kernels = _modules_with_cached_kernels()
    assert {"engine.fem.neohookean", "engine.ipc.ldl_kernels"} <= kernels
    shipped = {name for name, mode in args["module_collection_mode"].items() if mode == "py"}
    assert kernels <= shipped, f"shipped as bytecode: {sorted(kernels - shipped)}"


def _readme_commands() -> list[str]:
    """The shell commands of the README's bundle section, continuation lines joined."""
    text = README.read_text()
    section = text[text.index("## Desktop bundle") :]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "packaging/README.md has no bash block under 'Desktop bundle'"
    joined = block.group(1).replace("\\\n", " ")
    return [
        line.split("#")[0].strip() for line in joined.splitlines() if line.split("#")[0].strip()
    ]


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("IPCGRASP_TEST_BUNDLE") != "1",
    reason="builds the 1.5 GB bundle (minutes): run with IPCGRASP_TEST_BUNDLE=1",
)
def test_bundle_built_as_the_readme_says(tmp_path):
    pytest.importorskip("PyInstaller")
    commands = _readme_commands()
    build = next(c for c in commands if "pyinstaller" in c)
    argv = shlex.split(build)
    argv[0] = str(Path(sys.executable).parent / "pyinstaller")
    argv[argv.index("--distpath") + 1] = str(tmp_path / "dist")
    argv[argv.index("--workpath") + 1] = str(tmp_path / "build")
    subprocess.run(argv, cwd=REPO, check=True, capture_output=True, text=True)
    exe = tmp_path / "dist" / "ipcgrasp" / "ipcgrasp"
    assert exe.is_file()
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(XDG_CACHE_HOME=str(cache), NUMBA_DEBUG_CACHE="1")

    def run(*args: str, display: bool = False) -> subprocess.CompletedProcess[str]:
        prefix = ["xvfb-run", "-a"] if display else []
        return subprocess.run(
            [*prefix, str(exe), *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    # The README's checks (the app itself needs a screen: its smoke test stands for it).
    assert any("gui --smoke-test" in c for c in commands)
    if shutil.which("xvfb-run"):
        smoke = run("gui", "--smoke-test", display=True)
        assert smoke.returncode == 0, smoke.stderr[-2000:]
    sim = run("simulate", "--object", "cube")
    assert sim.returncode == 0 and "robustness R = 1.000" in sim.stdout, sim.stderr[-2000:]
    # numba wrote (the smoke test's pre-started workers already did) and reads every kernel in
    # the documented folder, not in ~/.cache/numba.
    folder = cache / "ipcgrasp" / "numba"
    used = [line for line in sim.stdout.splitlines() if line.startswith("[cache] data ")]
    assert used and all(f"'{folder}" in line for line in used), [
        line for line in used if f"'{folder}" not in line
    ][:3]
    again = run("warmup")
    assert "data saved" not in again.stdout and f"data loaded from '{folder}" in again.stdout
    # 6DLS solves with cvxpy, which imports every installed solver: OSQP's backend is there.
    six = run("analyze", "--object", "cube", "--models", "6dls", "--samples", "0")
    assert six.returncode == 0, six.stderr[-2000:]
    assert "No algebra backend" not in six.stdout + six.stderr
    assert "Encountered unexpected exception importing solver" not in six.stdout + six.stderr
