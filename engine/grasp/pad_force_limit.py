"""The servo force per jaw that keeps each pad's push within the gripper's force.

The jaws share one closing coordinate, so the actuator sets the sum of the pads' pushes (2 F
with F per jaw). On a free object the two pushes balance; an object braced against the ground or
an edge lets the ground take a share, and one pad then pushes with F plus half that share (the
YCB potted meat can: 128 / 12 N with the Franka Hand's 70 N; a Dex-Net climbing hold: 82 / 57 N).
A gripper that limits each finger's force stops that finger at F: the servo's force is lowered
until the harder pad pushes with F, and raised back to F once the pushes balance again (the
object has left the ground in the lift).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.grasp.squeeze_rules import FORCE_STOP_TOL


@dataclass
class PadForceLimit:
    """The servo's force per jaw (N): `target_n` on a free object, lowered under a per-pad cap
    of `cap_n` while something braces it."""

    cap_n: float
    servo_n: float
    target_n: float
    braced: bool = False  # the ground (or an edge) takes a share of the grip

    @classmethod
    def of(cls, cap_n: float, target_n: float | None = None) -> PadForceLimit:
        """`target_n`: the servo's force on a free object (default: the cap)."""
        target = cap_n if target_n is None else target_n
        return cls(cap_n=cap_n, servo_n=target, target_n=target)

    def over(self, forces: tuple[float, float]) -> bool:
        """Whether readings `forces` (N) call for the pushes: a pad above the cap by more than
        the force stop's tolerance, or any reading while braced."""
        return self.braced or max(forces) > self.cap_n * (1.0 + FORCE_STOP_TOL)

    def update(self, pushes: tuple[float, float]) -> None:
        """Follow the pads' pushes (N, normal and friction forces along each pad's closing
        direction). Pushes further apart than twice the force stop's tolerance are uneven (not
        the momentary overshoot of both pads after an impact, which the force stop waits out,
        nor a rough or slanted surface, where the normal forces differ but the pushes balance);
        the servo force is set from the cap, not scaled from the last one, so a share that
        persists lowers it once, not at every step."""
        cap = self.cap_n
        apart = max(pushes) - min(pushes)
        uneven = apart > 2.0 * FORCE_STOP_TOL * cap
        if uneven and (self.braced or max(pushes) > cap * (1.0 + FORCE_STOP_TOL)):
            self.servo_n, self.braced = min(self.target_n, cap - 0.5 * apart), True
        elif self.braced and not uneven:
            self.servo_n, self.braced = self.target_n, False

    def lowers(self, pushes: tuple[float, float]) -> bool:
        """update(pushes), and whether it lowered the servo's force (the step that pushed so is
        then taken again at the lowered force)."""
        before = self.servo_n
        self.update(pushes)
        return self.servo_n < before
