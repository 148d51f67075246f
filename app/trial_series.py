"""Moved to app.model.trial_series; kept so `app.trial_series` imports keep working."""

from app.model.trial_series import TrialSeries

__all__ = ["TrialSeries"]
