"""What every analytic model returns for one grasp."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.analytic.contact_patch import ContactPatch, ContactPoint

if TYPE_CHECKING:  # contact_forces imports contact_profile, which imports this module
    from engine.analytic.contact_forces import ContactForces

FAILURE_REASONS = (
    "no contact on a jaw",
    "slip at a contact",
    "approach collision",
    "too wide",
    "insufficient friction",
    "degenerate contact patch",
    "solver failure",
    "invalid input",
)


def wilson_interval(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95 % Wilson score interval of a binomial proportion (nan, nan for n = 0)."""
    if n == 0:
        return (math.nan, math.nan)
    p = successes / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


@dataclass
class ModelResult:
    """One model's verdict on one grasp.

    margin: the largest multiple s* of the external load the contacts can hold on the nominal
    pose (success iff s* >= 1). robustness: fraction of perturbed poses with s* >= 1.
    """

    model: str
    success: bool
    margin: float
    robustness: float = math.nan
    robustness_ci: tuple[float, float] = (math.nan, math.nan)
    reason: str = ""  # empty on success; otherwise one of FAILURE_REASONS plus detail
    time_s: float = 0.0  # wall time for the nominal pose and all samples
    time_per_sample_s: float = math.nan
    samples: int = 0
    sample_margins: list[float] = field(default_factory=list)
    contacts: list[ContactPoint] | list[ContactPatch] = field(default_factory=list)
    details: dict = field(default_factory=dict)  # model-specific extras (cone edges, w_max, ...)
    # The contact forces it holds the weight with on the nominal pose (analyze_grasp's explain;
    # engine.analytic.contact_forces); None when not asked or the model failed for a reason.
    forces: ContactForces | None = None

    def as_json(self) -> dict:
        """The result as a JSON-ready dict; non-finite floats become None."""

        def clean(v: float) -> float | None:
            return None if (isinstance(v, float) and not math.isfinite(v)) else v

        return {
            "model": self.model,
            "success": self.success,
            "margin": clean(float(self.margin)),
            "robustness": clean(float(self.robustness)),
            "robustness_ci_low": clean(float(self.robustness_ci[0])),
            "robustness_ci_high": clean(float(self.robustness_ci[1])),
            "reason": self.reason,
            "time_s": self.time_s,
            "time_per_sample_s": clean(float(self.time_per_sample_s)),
            "samples": self.samples,
        }
