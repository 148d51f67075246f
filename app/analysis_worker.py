"""Re-export shim: the analysis worker body moved to app.workers.analysis (issue 38). Kept
until app/tables.py imports prediction_models from there; then delete this file."""

from app.workers.analysis import prediction_models

__all__ = ["prediction_models"]
