"""A batch of sampled grasps on one scanned object with local workers: rows per minute over the
run and each worker's memory, sampled every second, to show both stay flat (issue 37).

`ipcgrasp sample` draws N grasps of the mesh (seed 0), then `ipcgrasp batch` runs one nominal IPC
trial of each with K workers into a fresh results file. While it runs, this script reads every
second how many rows the results file holds and the resident memory (VmRSS, and the peak VmHWM
at the end) of each process below the batch command, from /proc. The run is cut into quarters
by rows: a rate or a worker's memory that grows from quarter to quarter is what this is for.
Writes benchmarks/results/scan_batch.md.

    .venv/bin/python benchmarks/bench_scan_batch.py --mesh /tmp/meshes/ycb_Banana.obj \
        --mass 0.066 [--n 200] [--workers 2] [--gripper yumi]

Run it on a quiet machine (no tests, builds or helpers): the load is recorded in the result.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "scan_batch.md"


def _children(root: int) -> list[int]:
    """Every process below `root` (from /proc's parent ids)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        kids = parents.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def _memory_mb(pid: int) -> tuple[float, float] | None:
    """(VmRSS, VmHWM) of `pid` in MB, None once it is gone."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return None
    values = {
        k: float(v.split()[0]) / 1024
        for k, v in (ln.split(":", 1) for ln in lines)
        if k in ("VmRSS", "VmHWM")
    }
    return (values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)) if values else None


def _rows(path: Path) -> int:
    try:
        with path.open(newline="") as f:
            return max(0, sum(1 for _ in f) - 1)
    except OSError:
        return 0


def _command_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:120]
    except OSError:
        return ""


def run(args: argparse.Namespace) -> dict:
    python = sys.executable
    work = Path(tempfile.mkdtemp(prefix="scan_batch_"))
    grasps, results = work / "grasps.csv", work / "results.csv"
    mass = ["--mass", str(args.mass)] if args.mass else []
    t0 = time.perf_counter()
    subprocess.run(
        [python, "-m", "ipcgrasp", "sample", args.mesh, "--n", str(args.n), "--seed", "0",
         "--gripper", args.gripper, "--out", str(grasps), *mass],
        cwd=ROOT, check=True, capture_output=True, text=True,
    )  # fmt: skip
    sample_s = time.perf_counter() - t0
    with grasps.open(newline="") as f:
        n_grasps = sum(1 for _ in csv.DictReader(f))
    load_before = os.getloadavg()
    cmd = [
        python, "-m", "ipcgrasp", "batch", str(grasps), "--out", str(results), "--models", "ipc",
        "--trials", "1", "--workers", str(args.workers), "--gripper", args.gripper, "--quiet",
    ]  # fmt: skip
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    samples: list[tuple[float, int, dict[int, float]]] = []
    peaks: dict[int, float] = {}
    names: dict[int, str] = {}
    while proc.poll() is None:
        mem = {}
        for pid in _children(proc.pid):
            got = _memory_mb(pid)
            if got is not None:
                mem[pid] = got[0]
                peaks[pid] = max(peaks.get(pid, 0.0), got[1])
                names.setdefault(pid, _command_name(pid))
        samples.append((time.perf_counter() - t0, _rows(results), mem))
        time.sleep(1.0)
    wall = time.perf_counter() - t0
    _, err = proc.communicate()
    rows = _rows(results)
    with results.open(newline="") as f:
        table = list(csv.DictReader(f))
    return {
        "sample_s": sample_s, "grasps": n_grasps, "wall_s": wall, "rows": rows, "rc": proc.returncode,
        "samples": samples, "peaks": peaks, "names": names, "table": table,
        "load_before": load_before, "load_after": os.getloadavg(), "stderr": err.decode()[-2000:],
    }  # fmt: skip


def _quarters(r: dict) -> list[dict]:
    """Per quarter of the rows: rows per minute, and each worker's median memory."""
    samples = r["samples"]
    total = r["rows"]
    out = []
    for q in range(4):
        lo, hi = q * total / 4, (q + 1) * total / 4
        inside = [s for s in samples if lo <= s[1] < hi or (q == 3 and s[1] >= hi)]
        if len(inside) < 2:
            out.append({"rate": float("nan"), "mem": {}})
            continue
        dt = inside[-1][0] - inside[0][0]
        dr = inside[-1][1] - inside[0][1]
        mem: dict[int, list[float]] = {}
        for _, _, m in inside:
            for pid, mb in m.items():
                mem.setdefault(pid, []).append(mb)
        out.append(
            {
                "rate": 60.0 * dr / dt if dt > 0 else float("nan"),
                "mem": {pid: statistics.median(v) for pid, v in mem.items()},
            }
        )
    return out


def write(r: dict, args: argparse.Namespace) -> None:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lifted = sum(1 for row in r["table"] if row.get("success") in ("True", "1"))
    errors = sum(1 for row in r["table"] if row.get("status") not in ("ok", None, ""))
    trial_s = [float(row["wall_time_s"]) for row in r["table"] if row.get("wall_time_s")]
    task_s = [float(row["task_time_s"]) for row in r["table"] if row.get("task_time_s")]
    quarters = _quarters(r)
    # Workers: the processes that ran trials (the pool's children), by their peak memory.
    workers = sorted(
        (pid for pid, mb in r["peaks"].items() if mb > 150), key=lambda p: -r["peaks"][p]
    )
    lines = [
        "# A batch of sampled grasps on one scan: rows per minute and worker memory",
        "",
        f"Run {when} on {platform.node()} ({os.cpu_count()} cores) at {commit}; load (1, 5, 15 "
        f"min) before {tuple(round(x, 2) for x in r['load_before'])}, after "
        f"{tuple(round(x, 2) for x in r['load_after'])}.",
        "",
        f"    {' '.join(Path(sys.argv[0]).parts[-2:])} --mesh {args.mesh} --mass {args.mass} "
        f"--n {args.n} --workers {args.workers} --gripper {args.gripper}",
        "",
        f"`ipcgrasp sample` drew {r['grasps']} grasps in {r['sample_s']:.1f} s; `ipcgrasp batch "
        f"--models ipc --trials 1 --workers {args.workers}` wrote {r['rows']} rows in "
        f"{r['wall_s']:.0f} s (exit {r['rc']}): **{60 * r['rows'] / r['wall_s']:.1f} rows per "
        f"minute** end to end; {lifted} lifted, {errors} error rows; trial median "
        f"{statistics.median(trial_s) if trial_s else float('nan'):.2f} s, task median (the "
        f"object's set-up included) {statistics.median(task_s) if task_s else float('nan'):.2f} s.",
        "",
        "Per quarter of the rows (memory: each worker's median resident MB in that quarter):",
        "",
        "| quarter | rows per minute | "
        + " | ".join(f"worker {i + 1} MB" for i in range(len(workers)))
        + " |",
        "|---|---|" + "---|" * len(workers),
    ]
    for q, row in enumerate(quarters):
        mems = " | ".join(f"{row['mem'].get(pid, float('nan')):.0f}" for pid in workers)
        lines.append(f"| {q + 1} | {row['rate']:.1f} | {mems} |")
    lines += [
        "",
        "Peak resident memory (VmHWM) of every process below the batch command:",
        "",
        "| process | peak MB |",
        "|---|---|",
    ]
    for pid in sorted(r["peaks"], key=lambda p: -r["peaks"][p]):
        lines.append(f"| `{r['names'].get(pid, '')[:80]}` | {r['peaks'][pid]:.0f} |")
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mesh", required=True)
    ap.add_argument("--mass", type=float, default=None, help="kg (default: the mesh's density)")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--gripper", default="yumi")
    args = ap.parse_args()
    write(run(args), args)


if __name__ == "__main__":
    main()
