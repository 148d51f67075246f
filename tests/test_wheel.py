"""The wheel installs `ipcgrasp.engine` and `ipcgrasp.app`, never top-level `engine` or `app`.

hatch_build.py builds the wheel from the unchanged checkout: it copies engine/ and app/ under
ipcgrasp/ and rewrites their imports, module-name strings and the console script. The fast tests
check the rewriter, on examples and on every module of the checkout. The slow ones build the
wheel (`pip wheel`; with the dev extra's hatchling installed, without build isolation, so
without the package index), install it with pip into a fresh venv that already holds two other
distributions owning top-level `engine` and `app`, and run the command line (and, with an X
server, the app's smoke test) from the wheel. The fresh
venv reuses this interpreter's installed dependencies through a .pth file instead of
downloading them (pip --no-deps), so it takes seconds, not minutes.
"""

from __future__ import annotations

import ast
import base64
import csv
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _hook():
    spec = importlib.util.spec_from_file_location("hatch_build", REPO / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hook = _hook()
MODULES = {"engine", "engine.cli", "engine.cli.main", "engine.errors", "app", "app.launcher"}


def rewrite(source: str) -> str:
    return hook.rewrite_source(source, MODULES)


def test_imports_are_moved_under_the_namespace():
    source = (
        "from engine.cli.main import main\n"
        "from engine import errors as e\n"
        "from app import launcher\n"
        "import engine.cli.main as m\n"
        "import os, app.launcher\n"
        "def f():\n"
        "    import engine.errors  # noqa: F401\n"
        "    return engine.errors.IpcGraspError\n"
        "x = 1; from engine import cli\n"
        "if x: import engine.cli as c\n"
        "from . import sibling\n"
        "from .engine import thing\n"
        "from engineering import y\n"
        "import apple\n"
    )
    assert rewrite(source) == (
        "from ipcgrasp.engine.cli.main import main\n"
        "from ipcgrasp.engine import errors as e\n"
        "from ipcgrasp.app import launcher\n"
        "import ipcgrasp.engine.cli.main as m\n"
        "import os, ipcgrasp.app.launcher; from ipcgrasp import app\n"
        "def f():\n"
        "    import ipcgrasp.engine.errors; from ipcgrasp import engine  # noqa: F401\n"
        "    return engine.errors.IpcGraspError\n"
        "x = 1; from ipcgrasp.engine import cli\n"
        "if x: import ipcgrasp.engine.cli as c\n"
        "from . import sibling\n"
        "from .engine import thing\n"
        "from engineering import y\n"
        "import apple\n"
    )


def test_module_name_strings_and_loggers_are_moved_only_they():
    source = (
        'A = ("engine.cli.main", "help text")\n'
        "B = type(e).__module__ != 'engine.errors'\n"
        'C = "engine.cli.main.build_parser"\n'
        'D = {"engine": build_id(), "app": 1}\n'
        'E = "engine.nowhere"\n'
        'F = f"engine.cli.{x}"\n'
        'G = "see engine.cli.main"\n'
        'H = b"engine.cli.main"\n'
        'log = logging.getLogger("app")\n'
        'w = logging.getLogger(f"app.worker.{name}")\n'
        'v = logging.getLogger(f"{name}.app")\n'
        '"""Docstring naming engine.cli.main."""\n'
        "from engine.cli import main as engine  # engine.cli.main in a comment\n"
        "yield_from = 1\n"
    )
    assert rewrite(source) == (
        'A = ("ipcgrasp.engine.cli.main", "help text")\n'
        "B = type(e).__module__ != 'ipcgrasp.engine.errors'\n"
        'C = "ipcgrasp.engine.cli.main.build_parser"\n'
        'D = {"engine": build_id(), "app": 1}\n'
        'E = "engine.nowhere"\n'
        'F = f"engine.cli.{x}"\n'
        'G = "see engine.cli.main"\n'
        'H = b"engine.cli.main"\n'
        'log = logging.getLogger("ipcgrasp.app")\n'
        'w = logging.getLogger(f"ipcgrasp.app.worker.{name}")\n'
        'v = logging.getLogger(f"{name}.app")\n'
        '"""Docstring naming engine.cli.main."""\n'
        "from ipcgrasp.engine.cli import main as engine  # engine.cli.main in a comment\n"
        "yield_from = 1\n"
    )


def test_raise_from_and_yield_from_are_not_imports():
    source = "def g(engine):\n    yield from engine\n    raise ValueError from engine\n"
    assert rewrite(source) == source


def test_entry_point_object_reference():
    assert hook.rewrite_object_ref("app.launcher:main") == "ipcgrasp.app.launcher:main"
    assert hook.rewrite_object_ref("other.mod:main") == "other.mod:main"


def _top_level_references(tree: ast.Module) -> list[str]:
    """Imports of, and string constants naming modules of, top-level engine / app."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in hook.PACKAGES]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in hook.PACKAGES:
                found.append(node.module)
    return found


def test_every_module_of_the_checkout_is_rewritten_completely(tmp_path):
    """The namespaced copy of the whole tree parses and imports nothing top-level; the module
    names given to importlib (the subcommands) name modules of the copy."""
    tree = hook.write_namespaced_tree(REPO, tmp_path)
    copies = sorted(tree.rglob("*.py"))
    # + ipcgrasp/__init__.py and ipcgrasp/__main__.py (`python -m ipcgrasp`)
    assert len(copies) == len(hook.module_names(REPO)) + 2
    main_module = (tree / "__main__.py").read_text()
    assert "from ipcgrasp.app.launcher import main" in main_module
    leftovers = {
        str(p.relative_to(tmp_path)): refs
        for p in copies
        if (refs := _top_level_references(ast.parse(p.read_text())))
    }
    assert leftovers == {}
    commands = tree / "engine" / "cli" / "commands.py"
    namespace: dict = {}
    exec(compile(commands.read_text(), str(commands), "exec"), namespace)
    for module, _ in namespace["COMMANDS"].values():
        assert module.startswith("ipcgrasp.engine.cli.")
        assert (tmp_path / (module.replace(".", "/") + ".py")).is_file(), module
    # Line numbers are kept (tracebacks of the installed package point at the checkout's lines).
    main = (tree / "engine" / "cli" / "main.py").read_text()
    assert len(main.splitlines()) == len((REPO / "engine/cli/main.py").read_text().splitlines())


# --- the wheel, built and installed ------------------------------------------------------------


def _dummy_wheel(folder: Path, name: str, files: dict[str, str]) -> Path:
    """A minimal wheel of distribution `name` holding `files` (path -> text)."""
    dist_info = f"{name}-1.0.dist-info"
    files = {
        **files,
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
        f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{path},sha256={digest.decode()},{len(text.encode())}")
    record.append(f"{dist_info}/RECORD,,")
    path = folder / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for p, text in files.items():
            z.writestr(p, text)
        z.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    return path


# Another distribution's top-level `engine` (a plain module) and `app` (a package with a
# submodule named like ours): if ipcgrasp imported either name, it would get these and fail.
DUMMIES = {
    "other_engine": {"engine.py": 'WHO = "other engine"\n'},
    "other_app": {"app/__init__.py": 'WHO = "other app"\n', "app/launcher.py": "main = None\n"},
}
CHECK_DUMMIES = "import engine, app, app.launcher; print(engine.WHO, '|', app.WHO)"


class Installed:
    def __init__(self, root: Path, wheel: Path, timings: dict[str, float]) -> None:
        self.root = root
        self.wheel = wheel
        self.timings = timings
        self.python = root / "venv" / "bin" / "python"
        self.script = root / "venv" / "bin" / "ipcgrasp"
        self.env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        # Where numba caches the kernels: a fresh folder, as after a fresh install.
        self.env["NUMBA_CACHE_DIR"] = str(root / "numba-cache")
        self.env["MPLBACKEND"] = "Agg"

    def run(self, *argv: str | Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(a) for a in argv],
            cwd=self.root,  # not the checkout: nothing may come from its folders
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    """The wheel built from the checkout and pip-installed into a fresh venv next to DUMMIES."""
    import time

    root = tmp_path_factory.mktemp("wheel")
    timings = {}
    t0 = time.perf_counter()
    # With hatchling installed (the dev extra) the build needs no package index.
    offline = ["--no-build-isolation"] if importlib.util.find_spec("hatchling") else []
    dist = str(root / "dist")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *offline, "-w", dist, "."],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    timings["build"] = time.perf_counter() - t0
    (wheel,) = (root / "dist").glob("ipcgrasp-*.whl")
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    installed = Installed(root, wheel, timings)
    dummies = [_dummy_wheel(root / "dist", name, files) for name, files in DUMMIES.items()]
    pip = [sys.executable, "-m", "pip", "--python", str(installed.python), "install", "-q"]
    result = installed.run(*pip, "--no-deps", "--no-index", *dummies)
    assert result.returncode == 0, result.stderr
    before = installed.run(installed.python, "-c", CHECK_DUMMIES)
    assert before.stdout.strip() == "other engine | other app", before.stderr
    result = installed.run(*pip, "--no-deps", "--no-index", wheel)
    assert result.returncode == 0, result.stderr
    # The dependencies: this environment's, after the venv's own site-packages (.pth files of
    # that folder, such as an editable install's path to the checkout, are not read).
    site = (
        installed.python.parent.parent
        / "lib"
        / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    )
    (site / "site-packages" / "zz_ipcgrasp_test_deps.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n"
    )
    timings["venv and install"] = time.perf_counter() - t0
    return installed


@pytest.mark.slow
def test_wheel_holds_only_the_namespace(installed):
    with zipfile.ZipFile(installed.wheel) as z:
        names = z.namelist()
        entry_points = z.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert {n.split("/")[0] for n in names} == {
        "ipcgrasp",
        f"{installed.wheel.stem.split('-py3')[0]}.dist-info",
    }
    assert "ipcgrasp = ipcgrasp.app.launcher:main" in entry_points
    assert "ipcgrasp/engine/_resources/icons/ipcgrasp.svg" in names
    assert "ipcgrasp/engine/cli/main.py" in names and "ipcgrasp/app/launcher.py" in names
    site = installed.python.parent.parent / "lib"
    assert not list(site.glob("python*/site-packages/engine/**/*.py"))
    print(f"wheel {installed.wheel.stat().st_size / 1000:.0f} kB, {installed.timings}")


@pytest.mark.slow
def test_other_engine_and_app_keep_working_next_to_ipcgrasp(installed):
    after = installed.run(installed.python, "-c", CHECK_DUMMIES)
    assert after.stdout.strip() == "other engine | other app", after.stderr
    # Both in one process: ipcgrasp's command line, then the others' modules.
    both = installed.run(
        installed.python,
        "-c",
        "import sys, ipcgrasp.engine.cli.main as m, ipcgrasp.app.resources as r\n"
        "assert r.icon_path() is not None, 'icon'\n"
        "import engine, app\n"
        "print(engine.WHO, '|', app.WHO, '|', m.__file__)\n"
        "print(sorted(n for n in sys.modules if n.split('.')[0] in ('engine', 'app')))",
    )
    assert both.returncode == 0, both.stderr
    first, modules = both.stdout.strip().splitlines()
    who_engine, who_app, path = first.split(" | ")
    assert (who_engine, who_app) == ("other engine", "other app")
    assert Path(path).is_relative_to(installed.root / "venv")
    assert modules == "['app', 'engine']"


@pytest.mark.slow
def test_every_module_of_the_wheel_imports_without_top_level_names(installed):
    """Each module of the installed package imports (Qt's and pyvista's too, no display needed),
    and none of them pulls in a top-level `engine` or `app` (here: the other distributions')."""
    pytest.importorskip("PySide6")
    code = (
        "import importlib, pkgutil, sys, ipcgrasp\n"
        "names = [m.name for m in pkgutil.walk_packages(ipcgrasp.__path__, 'ipcgrasp.')]\n"
        "for name in names: importlib.import_module(name)\n"
        "print(len(names), sorted(n for n in sys.modules if n.split('.')[0] in ('engine', 'app')))"
    )
    result = installed.run(installed.python, "-c", code)
    assert result.returncode == 0, result.stderr[-3000:]
    count, top_level = result.stdout.strip().split(" ", 1)
    # + ipcgrasp.__main__ (`python -m ipcgrasp`)
    assert int(count) == len(hook.module_names(REPO)) + 1 and top_level == "[]"


@pytest.mark.slow
def test_command_line_runs_from_the_wheel(installed):
    from engine.cli.commands import COMMANDS

    help_ = installed.run(installed.script, "--help")
    assert help_.returncode == 0 and help_.stdout.startswith("usage: ipcgrasp"), help_.stderr
    version = installed.run(installed.script, "--version")
    assert version.returncode == 0 and version.stdout.startswith("ipcgrasp "), version.stderr
    as_module = installed.run(installed.python, "-m", "ipcgrasp", "--version")
    assert as_module.stdout == version.stdout, as_module.stderr
    for name in COMMANDS:  # each command's module, imported by its (namespaced) name
        sub = installed.run(installed.script, name, "--help")
        assert sub.returncode == 0 and sub.stdout.startswith(f"usage: ipcgrasp {name}"), sub.stderr
    out = installed.root / "cube.csv"
    sim = installed.run(
        installed.script, "simulate", "--object", "cube", "--trials", "1", "--out", out
    )
    assert sim.returncode == 0, sim.stderr[-3000:]
    assert "robustness R = 1.000" in sim.stdout
    # A fresh install's first simulation says why it takes longer (numba compiles the kernels).
    assert "compiling the elastic kernels, once per install" in sim.stderr
    with out.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1


@pytest.mark.slow
@pytest.mark.gui
def test_app_smoke_test_runs_from_the_wheel(installed):
    """The desktop app of the wheel (its worker processes start as ipcgrasp.app modules)."""
    pytest.importorskip("PySide6")
    if not os.environ.get("DISPLAY"):
        if shutil.which("xvfb-run") is None:
            pytest.skip("no X server and no xvfb-run")
        argv: list[str | Path] = ["xvfb-run", "-a", installed.script]
    else:
        argv = [installed.script]
    smoke = installed.run(*argv, "gui", "--smoke-test", timeout=600)
    assert smoke.returncode == 0, smoke.stdout[-2000:] + smoke.stderr[-3000:]
    assert "ipcgrasp smoke test: OK" in smoke.stdout + smoke.stderr
