"""A plain double spin box with range, step, unit suffix and tooltip, committing on Enter."""

from __future__ import annotations

from PySide6.QtWidgets import QDoubleSpinBox


def unit_spinbox(
    lo: float, hi: float, step: float, decimals: int, suffix: str, tip: str
) -> QDoubleSpinBox:
    s = QDoubleSpinBox()
    s.setRange(lo, hi)
    s.setSingleStep(step)
    s.setDecimals(decimals)
    s.setSuffix(suffix)
    s.setToolTip(tip)
    # Emit valueChanged once per committed edit, not per keystroke (each edit is an undo step).
    s.setKeyboardTracking(False)
    return s
