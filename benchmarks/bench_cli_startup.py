"""Start-up time of the `ipcgrasp` command line: `--help`, `--version` and `CMD --help` per command.

Each command line runs 6 times as a fresh process (`python -m app.launcher ...`, what the
`ipcgrasp` script runs, with this tree first on the path, so the time includes the interpreter's
start); the first run is reported alone (the files may not be in the page cache yet: not a true
cold start) and the median of the other 5 as the warm time. `--before REV` also times the tree of
git revision REV (exported to a temporary folder) in the same sitting, for comparison. The
machine's load (`uptime`) before and after is recorded: on a busy machine the numbers are not
worth keeping. PYTHONDONTWRITEBYTECODE is removed from the children's environment: a user's
Python writes the bytecode caches on the first run and reads them afterwards (with it set, every
run compiles the engine's sources again). Writes benchmarks/results/cli_startup.md.

`--wheel` also builds the wheel (`pip wheel`), installs it with `pip --no-deps` into a fresh venv
whose dependencies come from this interpreter's site-packages (a .pth file), records its size,
times the installed `ipcgrasp` script the same way (a column of the table), and times the cube's
first and second `simulate --object cube --trials 1` after the install with an empty numba cache
folder, then again with `ipcgrasp warmup` run first (what scripts/run does after installing).

`--bundle EXE` also times a PyInstaller bundle built beforehand (packaging/README.md).

    .venv/bin/python benchmarks/bench_cli_startup.py [--before REV] [--wheel] [--bundle EXE]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.cli.commands import COMMANDS  # noqa: E402

RUNS = 6
TARGET_S = 0.3
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(tree: Path, args: list[str]) -> tuple[float, int]:
    """(wall time in s, exit code) of `ipcgrasp ARGS` run from `tree` (a source tree), or of the
    console script `tree` (an installed `ipcgrasp`)."""
    script = tree.is_file()
    t = time.perf_counter()
    done = subprocess.run(
        [str(tree), *args] if script else [sys.executable, "-m", "app.launcher", *args],
        cwd=tree.parent.parent if script else tree,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - t, done.returncode


def measure(tree: Path, args: list[str]) -> str:
    """'first / warm median (min-max)' for one command line, or how it failed."""
    runs = [timed(tree, args) for _ in range(RUNS)]
    codes = {code for _, code in runs}
    if codes != {0}:
        return f"fails (exit {', '.join(map(str, sorted(codes)))}) | -"
    times = [t for t, _ in runs]
    warm = times[1:]
    return f"{times[0]:.3f} | {statistics.median(warm):.3f} ({min(warm):.3f}-{max(warm):.3f})"


def export(rev: str, folder: Path) -> Path:
    """The tree of git revision `rev` under `folder`."""
    archive = folder / "tree.tar"
    subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", "-o", str(archive), rev], check=True
    )
    with tarfile.open(archive) as tar:
        tar.extractall(folder / "tree", filter="data")
    return folder / "tree"


def install_wheel(folder: Path) -> tuple[Path, int, float]:
    """(the installed `ipcgrasp` script, wheel size in bytes, build + install time in s)."""
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(folder / "dist"), "."],
        cwd=ROOT,
        check=True,
    )
    (wheel,) = (folder / "dist").glob("ipcgrasp-*.whl")
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", wheel],
        check=True,
    )
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    (venv / "lib" / version / "site-packages" / "zz_bench_deps.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n"
    )
    return venv / "bin" / "ipcgrasp", wheel.stat().st_size, time.perf_counter() - t


def simulation_times(script: Path, cache: Path, warmup: bool) -> list[str]:
    """Rows: the cube's first and second simulation (one trial) with numba's cache in `cache`
    (empty at the start), after `ipcgrasp warmup` when `warmup`."""
    env = {**ENV, "NUMBA_CACHE_DIR": str(cache)}
    env.pop("PYTHONPATH", None)
    rows = []
    runs = [["warmup"]] if warmup else []
    runs += [["simulate", "--object", "cube", "--trials", "1"]] * 2
    for k, args in enumerate(runs):
        t = time.perf_counter()
        done = subprocess.run(
            [str(script), *args], cwd=script.parent.parent, env=env, capture_output=True, text=True
        )
        wall = time.perf_counter() - t
        trial = re.search(r"trial 0: .* ([0-9.]+) s$", done.stdout, re.M)
        said = "yes" if "compiling the elastic kernels" in done.stderr else "no"
        name = "warmup" if args == ["warmup"] else ("first" if k == len(runs) - 2 else "second")
        rows.append(
            f"| {'after warmup' if warmup else 'fresh install'} | {name} `ipcgrasp {' '.join(args)}` | "
            f"{wall:.1f} | {trial.group(1) if trial else '-'} | {said} | {done.returncode} |"
        )
    return rows


def git(*args: str) -> str:
    out = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    return out.stdout.strip() or "?"


def uptime() -> str:
    out = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout
    return out.strip() or "(uptime unavailable)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", metavar="REV", help="also time the tree of this revision")
    parser.add_argument(
        "--wheel", action="store_true", help="also build, install and time the wheel"
    )
    parser.add_argument(
        "--bundle",
        metavar="EXE",
        type=Path,
        help="also time this PyInstaller bundle's executable (dist/ipcgrasp/ipcgrasp)",
    )
    opts = parser.parse_args()
    lines = [["--help"], ["--version"], *([name, "--help"] for name in COMMANDS)]
    head = git("log", "-1", "--format=%h")
    dirty = (
        " (with uncommitted changes)"
        if git("status", "--porcelain", "--", "engine", "app") != "?"
        else ""
    )
    before_load = uptime()
    with tempfile.TemporaryDirectory() as tmp:
        trees = [(f"{head}{dirty}", ROOT)]
        if opts.before:
            trees.insert(
                0, (git("log", "-1", "--format=%h", opts.before), export(opts.before, Path(tmp)))
            )
        wheel_lines: list[str] = []
        if opts.wheel:
            script, size, install_s = install_wheel(Path(tmp) / "wheel")
            trees.append((f"{head}{dirty} wheel, installed", script))
            wheel_lines = [
                f"- wheel: {size / 1000:.0f} kB (`pip wheel . --no-deps`); built and installed "
                f"(`pip install --no-deps` into a fresh venv) in {install_s:.1f} s",
            ]
        if opts.bundle:
            trees.append(("bundle", opts.bundle.resolve()))
        results: dict[str, list[str]] = {}
        for args in lines:
            key = " ".join(args)
            results[key] = [measure(tree, args) for _, tree in trees]
            print(f"ipcgrasp {key:<22} " + "   ".join(results[key]), flush=True)
        sim_rows: list[str] = []
        if opts.wheel:
            for warmup in (False, True):
                cache = Path(tmp) / f"numba-{warmup}"
                sim_rows += simulation_times(script, cache, warmup)
                print("\n".join(sim_rows[-3:]), flush=True)
    after_load = uptime()
    header = "| command line |" + "".join(
        f" {name}: first (s) | {name}: warm median (min-max) (s) |" for name, _ in trees
    )
    text = [
        "# `ipcgrasp` start-up",
        "",
        f"`benchmarks/bench_cli_startup.py{' --before ' + opts.before if opts.before else ''}`: "
        f"each command line run {RUNS} times as a fresh process (`python -m app.launcher ARGS`, "
        "what the `ipcgrasp` script runs, bytecode caches written); *first* is the first run "
        "(not a true cold start: the page cache is not dropped), *warm* the median of the other "
        f"{RUNS - 1}. Target: warm "
        f"< {TARGET_S} s. {os.cpu_count()} cores, {platform.machine()}, Python "
        f"{platform.python_version()}.",
        "",
        f"- niceness of the benchmark and its children: {os.nice(0)}",
        f"- uptime before: `{before_load}`",
        f"- uptime after: `{after_load}`",
        *(
            [
                f"- the {opts.before} tree is a `git archive` export without `.git`, so its build "
                "id needs no git command (in a checkout it took three, ~50 ms, on every parser "
                "build before `--version` looked it up lazily)"
            ]
            if opts.before
            else []
        ),
        "",
        header,
        "|---|" + "---:|---:|" * len(trees),
    ]
    for key, cells in results.items():
        text.append(f"| `ipcgrasp {key}` | " + " | ".join(cells) + " |")
    text.append("")
    if opts.wheel:
        text[text.index(f"- uptime after: `{after_load}`") + 1 : 0] = wheel_lines
        text += [
            "## The first simulation after installing the wheel",
            "",
            "The installed wheel's `ipcgrasp`, numba's cache folder empty at the start of each "
            "block (`NUMBA_CACHE_DIR` in a new temporary folder): *wall* is the whole command, "
            "*trial* the simulation's own time as printed; *says* whether it printed that it "
            "compiles the kernels. Target: the first within 20 % of the second.",
            "",
            "| install | run | wall (s) | trial (s) | says it compiles | exit |",
            "|---|---|---:|---:|---|---:|",
            *sim_rows,
            "",
        ]
    out = ROOT / "benchmarks" / "results" / "cli_startup.md"
    out.write_text("\n".join(text))
    print(f"-> {out}")


if __name__ == "__main__":
    main()
