"""The app's Qt-free model: the document, the run, the selection, with change events.

Views and controllers import from here; nothing in this package imports Qt or VTK.
"""

from app.model.app_model import AppModel
from app.model.document import (
    Document,
    ProvisionalGrasp,
    Run,
    build_pad,
    provisional_default_grasp,
    safe_default_grasp,
)
from app.model.edit_state import EditState
from app.model.events import Event
from app.model.trial_series import TrialSeries

__all__ = [
    "AppModel",
    "Document",
    "EditState",
    "Event",
    "ProvisionalGrasp",
    "Run",
    "TrialSeries",
    "build_pad",
    "provisional_default_grasp",
    "safe_default_grasp",
]
