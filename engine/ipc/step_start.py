"""How a time step starts (its initial guess, the actuator's closing reference, its first
broad-phase cover), kept for the grip-strength test's load steps: they restart from one state
with other loads, and a load is a linear term (engine.ipc.load_term), so the start and the
first Newton matrix are the same for every load."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.ipc.candidate_cover import CandidateCover
from engine.ipc.newton import Factor
from engine.ipc.step_types import StepCommand, StepState


@dataclass
class StepStart:
    """A step's start from `state` under `command` (its load left out), and once a solve made
    it, the factor of the first Newton matrix."""

    state: StepState
    command: StepCommand
    guess: np.ndarray
    reference: np.ndarray
    cover: CandidateCover | None
    factor: Factor | None = None

    def serves(self, st: StepState, cmd: StepCommand) -> bool:
        """Whether a step of `cmd` from `st` starts as this one."""
        c = self.command
        return (
            st is self.state
            and cmd.object_shift is None
            and c.object_shift is None
            and (cmd.travel_m, cmd.lift_m, cmd.hold_force_n, cmd.servo_travel_m, cmd.h_s)
            == (c.travel_m, c.lift_m, c.hold_force_n, c.servo_travel_m, c.h_s)
        )
