"""Shared test helpers: where the reference data of ../shared/data lives."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
REFERENCE_CUBE = SHARED_DATA / "reach_cube" / "cube_3cm.obj"
