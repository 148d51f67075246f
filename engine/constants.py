"""Physical constants shared by the simulator and the analytic models (SI units)."""

from __future__ import annotations

GRAVITY_M_S2 = 9.81
"""Standard gravity used everywhere (m/s^2), as IPC-GraspSim and the REACH models."""
