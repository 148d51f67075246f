"""`ipcgrasp warmup`: compile the elastic kernels now, so the first simulation does not wait.

numba compiles the Neo-Hookean kernels (engine.fem.neohookean) the first time a process uses
them and caches the machine code on disk (engine/numba_cache.py says where); without this, the
first simulation after an install takes seconds longer than the next. `scripts/run` runs it
after installing. Safe to run again: with a warm cache it only loads the kernels.
"""

from __future__ import annotations

import argparse
import time

from engine.cli.commands import help_of


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `ipcgrasp warmup`."""
    p = sub.add_parser(
        "warmup",
        help=help_of("warmup"),
        description=(
            "Compile the elastic kernels numba uses (the first frame of the built-in cube with "
            "the default grasp and parameters) into numba's cache folder, so that the first "
            "simulation after an install does not pay the compilation. The folder is "
            "$NUMBA_CACHE_DIR when set, else $XDG_CACHE_HOME/ipcgrasp/numba/<kernels> "
            "(~/.cache/ipcgrasp/numba/<kernels>; <kernels> is a fingerprint of their sources, so "
            "an update that changes one compiles them anew)."
        ),
    )
    p.add_argument("--quiet", action="store_true", help="print nothing unless it fails")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Warm the kernels; say where they are cached, how many were compiled and how long it took."""
    from engine.grasp.warmup import warm_up
    from engine.numba_cache import cache_dir

    say = (lambda text: None) if args.quiet else (lambda text: print(text, flush=True))
    say(f"ipcgrasp warmup: elastic kernels -> {cache_dir() or 'next to the engine sources'}")
    start = time.perf_counter()
    compiled, _ = warm_up()
    elapsed = time.perf_counter() - start
    if compiled:
        say(f"ipcgrasp warmup: compiled in {elapsed:.1f} s; simulations load them from the cache")
    else:
        say(f"ipcgrasp warmup: they were cached already (loaded in {elapsed:.1f} s)")
    return 0
