"""Plain number fields with range, step, unit suffix and tooltip, committing on Enter; the
parameter dock's say why a typed value out of range is refused instead of dropping it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QValidator
from PySide6.QtWidgets import QAbstractSpinBox, QDoubleSpinBox, QSpinBox, QWidget

from app.widgets.sci_spinbox import parse_scientific


def _setup(s: QDoubleSpinBox, lo: float, hi: float, step: float, decimals: int, suffix: str,
           tip: str) -> QDoubleSpinBox:  # fmt: skip
    s.setRange(lo, hi)
    s.setSingleStep(step)
    s.setDecimals(decimals)
    s.setSuffix(suffix)
    s.setToolTip(tip)
    # Emit valueChanged once per committed edit, not per keystroke (each edit is an undo step).
    s.setKeyboardTracking(False)
    return s


def unit_spinbox(
    lo: float, hi: float, step: float, decimals: int, suffix: str, tip: str
) -> QDoubleSpinBox:
    return _setup(QDoubleSpinBox(), lo, hi, step, decimals, suffix, tip)


def checked_spinbox(
    lo: float, hi: float, step: float, decimals: int, suffix: str, tip: str, label: str
) -> CheckedSpinBox:
    """A unit_spinbox whose typed value out of range is refused with the reason (`refused`)."""
    box = CheckedSpinBox(label)
    _setup(box, lo, hi, step, decimals, suffix, tip)
    return box


def range_refusal(box: QAbstractSpinBox, label: str, shown: str) -> str | None:
    """Why the text typed in `box` cannot be applied (a complete number outside its range),
    or None (in range, or not a number yet); `shown` is the value it keeps, as displayed."""
    if not isinstance(box, QSpinBox | QDoubleSpinBox):
        return None
    text = box.lineEdit().text()
    if box.prefix() and text.startswith(box.prefix()):
        text = text[len(box.prefix()) :]
    value = parse_scientific(text, box.suffix())
    if value is None or box.minimum() <= value <= box.maximum():
        return None
    unit = box.suffix()
    return (
        f"{label} = {value:g}{unit} is out of range: it must be between {box.minimum():g}"
        f"{unit} and {box.maximum():g}{unit}; kept {shown}"
    )


def _allow_out_of_range(
    result: tuple[QValidator.State, str, int], text: str, suffix: str
) -> tuple[QValidator.State, str, int]:
    """Qt's validation of `text`, except that a complete number out of range is accepted while
    typing (Qt drops the keystroke silently otherwise): Enter then says why it is refused."""
    if result[0] == QValidator.State.Invalid and parse_scientific(text, suffix) is not None:
        return (QValidator.State.Intermediate, result[1], result[2])
    return result


class _RefusalNotes:
    """What both checked spin boxes add to Qt's: a typed value out of range is kept while
    typing, and Enter or leaving the field emits `refused` with why it was not taken."""

    label: str
    refused: Any

    def _check(self) -> None:
        box: Any = self
        shown = box.textFromValue(box.value()) + box.suffix()
        reason = range_refusal(box, self.label, shown)
        if reason is not None:
            self.refused.emit(reason)

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:  # Qt override
        qt: Any = super()
        box: Any = self
        return _allow_out_of_range(qt.validate(text, pos), text, box.suffix())

    def keyPressEvent(self, event: QKeyEvent) -> None:  # Qt override
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._check()
        box: Any = super()
        box.keyPressEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:  # Qt override
        self._check()
        box: Any = super()
        box.focusOutEvent(event)


class CheckedSpinBox(_RefusalNotes, QDoubleSpinBox):
    """A QDoubleSpinBox that says why a typed value out of range is not taken (`refused`)."""

    refused = Signal(str)

    def __init__(self, label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = label


class CheckedIntSpinBox(_RefusalNotes, QSpinBox):
    """A QSpinBox that says why a typed value out of range is not taken (`refused`)."""

    refused = Signal(str)

    def __init__(self, label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = label
