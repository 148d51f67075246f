"""Helpers for batch tests: grasp tables and a fast stand-in for the analytic pipeline."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from engine.analytic.result import ModelResult
from tests.conftest import REACH_JSON as REACH_JSON  # re-exported for the batch tests

CSV_HEADER = [
    "grasp_id",
    "object",
    "center_x",
    "center_y",
    "center_z",
    "axis_x",
    "axis_y",
    "axis_z",
]
# Top-down grasp of the built-in 3 cm cube through its centre (one trial takes ~2 s).
CUBE_ROW = ["cube", "0", "0", "0.015", "1", "0", "0"]


def write_grasps(path: Path, rows: list[list[str]], header: list[str] = CSV_HEADER) -> Path:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def fake_analyze_grasp(obj, grasp, params, models, samples, seed):
    """Deterministic stand-in: robustness from the grasp centre and the seed, instantly."""
    q = round((abs(grasp.center[0]) * 1e3 + seed % 7) % 10 / 10.0, 3)
    return [
        ModelResult(
            model=m,
            success=q >= 0.5,
            margin=2 * q,
            robustness=q,
            robustness_ci=(max(0.0, q - 0.1), min(1.0, q + 0.1)),
            reason="" if q >= 0.5 else "insufficient friction: stand-in",
            time_s=0.001,
            time_per_sample_s=0.001 / max(samples, 1),
            samples=samples,
        )
        for m in models
    ]


@pytest.fixture
def fake_analytic(monkeypatch):
    """Replace the analytic pipeline for in-process batches (--workers 0)."""
    import engine.analytic.pipeline as pipeline

    monkeypatch.setattr(pipeline, "analyze_grasp", fake_analyze_grasp)
    return fake_analyze_grasp


@pytest.fixture
def reach_json() -> Path:
    if not REACH_JSON.is_file():
        pytest.skip(f"REACH reference data not found at {REACH_JSON} (../shared/data)")
    return REACH_JSON


def finite(x: str) -> bool:
    try:
        return math.isfinite(float(x))
    except ValueError:
        return False
