"""Per-trial time series for the timeline and plots (plain numpy, no Qt)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.grasp.frames import Frame


@dataclass
class TrialSeries:
    """Columns of a trial's frames, grown as frames stream in."""

    time_s: list[float]
    phase: list[str]
    psi1: list[float]
    psi2: list[float]
    force1: list[float]
    force2: list[float]
    height_mm: list[float]  # object's lowest point above the ground
    both_touch: list[bool]

    @classmethod
    def empty(cls) -> TrialSeries:
        """A series with no frames."""
        return cls([], [], [], [], [], [], [], [])

    @classmethod
    def from_frames(cls, frames: list[Frame]) -> TrialSeries:
        """A series of `frames`."""
        s = cls.empty()
        for f in frames:
            s.append(f)
        return s

    def append(self, f: Frame) -> None:
        """Add one frame's values."""
        self.time_s.append(f.time_s)
        self.phase.append(f.phase)
        self.psi1.append(f.psi_j[0])
        self.psi2.append(f.psi_j[1])
        self.force1.append(f.grip_force_n[0])
        self.force2.append(f.grip_force_n[1])
        self.height_mm.append(f.object_min_z_m * 1e3)
        c = f.contacts
        self.both_touch.append(
            c.get("contacts_pad1_object", 0) > 0 and c.get("contacts_pad2_object", 0) > 0
        )

    def __len__(self) -> int:
        return len(self.time_s)

    def markers(self) -> list[tuple[int, str]]:
        """(frame index, label) of the phase events: contact, squeeze end, lift start, end."""
        out: list[tuple[int, str]] = []
        if not self.time_s:
            return out
        if any(self.both_touch):
            out.append((self.both_touch.index(True), "contact"))
        if "lift" in self.phase:
            lift = self.phase.index("lift")
            if lift > 0:
                out.append((lift - 1, "squeeze end"))
            out.append((lift, "lift start"))
        if "hold" in self.phase:
            out.append((self.phase.index("hold"), "hold"))
        out.append((len(self.time_s) - 1, "end"))
        return out

    def array(self, name: str) -> np.ndarray:
        """Column `name` as a float array."""
        return np.asarray(getattr(self, name), dtype=float)
