"""The analytic models' names, declared once.

Free of imports, so `ipcgrasp analyze --help` lists them without loading the models.
"""

from __future__ import annotations

MODELS = ("soft_point", "reach", "6dfc", "6dls", "exact")
NOMINAL_ONLY = frozenset({"6dls"})  # seconds per grasp: a detail view, not Monte-Carlo
