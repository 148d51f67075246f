"""Time per call of the projected Neo-Hookean Hessian and its sparse assembly on the rounded pad.

Median of 20 calls at edge lengths 3, 2 and 1.5 mm (default layers), on a moderately deformed
pad. The 9x9-eigh projection is timed too, as the reference the analytic one replaces.
Prints a markdown table and writes benchmarks/results/neohookean.md.

    .venv/bin/python benchmarks/bench_neohookean.py
"""

from __future__ import annotations

import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.fem.neohookean import (  # noqa: E402
    HessianAssembler,
    elastic_hessian,
    lame_parameters,
    tet_rest,
)
from engine.gripper.pad_geometry import mesh_pad, pad_outline  # noqa: E402

EDGES_M = (0.003, 0.002, 0.0015)
CALLS = 20


def median_ms(fn: Callable[[], object], calls: int = CALLS) -> float:
    fn()  # warm-up (and numba compile / cache load)
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1e3 * statistics.median(times)


def main() -> None:
    mu, lam = lame_parameters(1.0e6, 0.45)
    rng = np.random.default_rng(0)
    rows = []
    for edge in EDGES_M:
        mesh = mesh_pad(pad_outline("rounded", edge), edge)
        rest = tet_rest(mesh.vertices, mesh.tets)
        x = mesh.vertices @ (np.eye(3) + 0.03 * rng.standard_normal((3, 3))).T
        x += 0.02 * edge * rng.standard_normal(x.shape)
        _, _, blocks = elastic_hessian(x, rest, mu, lam)
        assembler = HessianAssembler(rest)
        rows.append(
            (
                edge,
                len(mesh.vertices),
                len(mesh.tets),
                median_ms(lambda x=x, rest=rest: elastic_hessian(x, rest, mu, lam)),
                median_ms(lambda a=assembler, b=blocks: a.assemble(b)),
                median_ms(
                    lambda x=x, rest=rest: elastic_hessian(x, rest, mu, lam, projection="eigh")
                ),
            )
        )
    lines = [
        "# Neo-Hookean Hessian benchmark (rounded pad, default layers)",
        "",
        f"Median of {CALLS} calls, one thread, {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}. Hessian = energy + gradient + projected (t,12,12) "
        "element blocks.",
        "",
        "| edge (mm) | vertices | tets | elastic_hessian analytic (ms) | assemble (ms) "
        "| elastic_hessian 9x9 eigh (ms) |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for edge, nv, nt, t_hess, t_asm, t_eigh in rows:
        lines.append(
            f"| {edge * 1e3:g} | {nv} | {nt} | {t_hess:.2f} | {t_asm:.2f} | {t_eigh:.2f} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    out = ROOT / "benchmarks" / "results" / "neohookean.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)


if __name__ == "__main__":
    main()
