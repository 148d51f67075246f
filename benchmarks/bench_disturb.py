"""What the grip-strength test costs (issue 41): each grasp's nominal IPC trial run plain,
with `--disturb down` and with `--disturb all`, in this process, one after the other, that
round `--repeat` times (each mode's fastest run kept); the wall time of each and the ratios to
the plain trial (medians over the grasps).

The grasps: the REACH cube's 25 records (../shared/data, the batch's placement) and a grasp
table of sampled grasps on a scan (`ipcgrasp sample MESH --n 20 --seed 1 --mass M --out T`).
Writes benchmarks/results/disturb_cost.md.

    .venv/bin/python benchmarks/bench_disturb.py [--table T --label NAME [--gripper G]]...

Run it on a quiet machine (no tests, builds or helpers): the load is recorded in the result.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "disturb_cost.md"
REACH = ROOT.parent / "shared" / "data" / "reach_cube" / "reach_cube_3cm.json"


def _trials(table: Path, gripper: str | None):
    """(grasp id, resting object, planned nominal trial, params) per grasp of the table, as
    the batch builds them."""
    from engine.batch.grasp_scene import build_scene
    from engine.batch.grasp_table import read_grasp_table
    from engine.grasp.params import SimulationParams
    from engine.grasp.trials import TrialSpec, plan_trials

    params = SimulationParams.for_gripper(gripper) if gripper else SimulationParams()
    t = read_grasp_table(table, mesh_dir=REACH.parent if table == REACH else None)
    for spec in t.grasps:
        if spec.error:
            continue
        obj, _, grasp = build_scene(spec)
        (planned,) = plan_trials(grasp, TrialSpec(1, 0))
        yield spec.grasp_id, obj, planned, params


def _run(obj, planned, params):
    from engine.grasp.trials import run_trial

    start = time.perf_counter()
    r = run_trial(obj, planned, params)
    return r, time.perf_counter() - start


def measure(table: Path, gripper: str | None, repeat: int) -> list[dict]:
    from engine.errors import IpcGraspError

    rows = []
    for gid, obj, planned, params in _trials(table, gripper):
        row: dict = {"grasp": gid}
        try:
            for _ in range(repeat):
                for mode in ("off", "down", "all"):
                    r, s = _run(obj, planned, dataclasses.replace(params, disturb=mode))
                    row[mode] = min(s, row.get(mode, s))
                    row["lifted"] = r.success
        except IpcGraspError as exc:
            print(f"{gid}: {exc}", file=sys.stderr)
            continue
        rows.append(row)
        print(gid, {k: round(v, 2) if isinstance(v, float) else v for k, v in row.items()})
    return rows


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}" if values else "-"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--table", action="append", default=[], type=Path)
    ap.add_argument("--label", action="append", default=[])
    ap.add_argument("--gripper", action="append", default=[])
    ap.add_argument(
        "--repeat", type=int, default=2, help="runs of each mode per grasp, the fastest kept"
    )
    args = ap.parse_args()
    sets = [("REACH cube, 25 records (YuMi)", REACH, None)]
    for k, table in enumerate(args.table):
        label = args.label[k] if k < len(args.label) else table.stem
        gripper = args.gripper[k] if k < len(args.gripper) else None
        sets.append((label, table, gripper))
    load = os.getloadavg()
    lines = [
        "# What the grip-strength test costs",
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.node()} "
        f"({os.cpu_count()} cores), load average before: {load[0]:.2f} / {load[1]:.2f} / "
        f"{load[2]:.2f}. Command: `{' '.join(['.venv/bin/python', *sys.argv])}`.",
        "",
        "Each grasp's nominal trial run in one process plain, with `--disturb down` and with "
        f"`--disturb all` (the disturbance only runs after a trial that lifted), that round "
        f"{args.repeat} times, each mode's fastest run kept: this machine's speed drifts by "
        "10-20 % over minutes, which moved single runs' ratios by 0.1. Ratios are per grasp, "
        "to its plain trial; medians over the grasps that lifted.",
        "",
        "| grasps | lifted | plain trial (s) | + down (s) | + all (s) | down / plain "
        "| all / plain | down / plain, slowest |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, table, gripper in sets:
        rows = measure(table, gripper, args.repeat)
        lifted = [r for r in rows if r["lifted"]]
        down = [r["down"] / r["off"] for r in lifted]
        every = [r["all"] / r["off"] for r in lifted]
        lines.append(
            f"| {label} | {len(lifted)} of {len(rows)} | {_median([r['off'] for r in lifted])} "
            f"| {_median([r['down'] for r in lifted])} | {_median([r['all'] for r in lifted])} "
            f"| {_median(down)} | {_median(every)} | {max(down) if down else 0:.2f} |"
        )
    load = os.getloadavg()
    lines += ["", f"Load average after: {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}.", ""]
    OUT.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
