"""A spin box for quantities spanning decades (E, Psi_th): scientific text, log-scale steps."""

from __future__ import annotations

import math
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QValidator
from PySide6.QtWidgets import QDoubleSpinBox, QWidget

# What a scientist types: 1e-6, 1E-6, 1e-06, 0.000001, 2,5e-9 (decimal comma), +3.
_NUMBER = re.compile(r"^[+]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$")
_PARTIAL = re.compile(r"^[+]?(\d*[.,]?\d*)([eE][+-]?\d*)?$")


def parse_scientific(text: str, suffix: str = "") -> float | None:
    """The number in `text` (with or without the unit `suffix`, a comma or a point as the
    decimal separator, any case of e), or None when it is not a complete number."""
    core = _strip(text, suffix)
    if not _NUMBER.match(core):
        return None
    value = float(core.replace(",", "."))
    return value if math.isfinite(value) else None


def _strip(text: str, suffix: str) -> str:
    core = text.replace(" ", "")
    unit = suffix.replace(" ", "")
    # Qt keeps the field's suffix while one types, so a typed unit appears twice.
    while unit and core.endswith(unit):
        core = core[: -len(unit)]
    return core


class SciSpinBox(QDoubleSpinBox):
    """Positive values shown as 1.5e+08; each step multiplies by 10^(1/steps_per_decade).

    Typed text is accepted in any scientific spelling (see `parse_scientific`); a complete
    number outside the range is not silently dropped: Enter or leaving the field emits
    `refused` with the reason (the parameter dock shows it) and the previous value stays.
    """

    refused = Signal(str)

    def __init__(
        self,
        minimum: float,
        maximum: float,
        steps_per_decade: int = 10,
        parent: QWidget | None = None,
        label: str = "the value",
    ) -> None:
        super().__init__(parent)
        self._steps = steps_per_decade
        self.label = label
        self.setDecimals(300)  # QDoubleSpinBox rounds to `decimals`; keep tiny values intact
        self.setRange(minimum, maximum)
        self.setKeyboardTracking(False)  # emit once the user finishes typing, not per key

    def textFromValue(self, value: float) -> str:
        return f"{value:.3g}"

    def valueFromText(self, text: str) -> float:
        value = parse_scientific(text, self.suffix())
        return self.value() if value is None else value

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:  # Qt override
        value = parse_scientific(text, self.suffix())
        if value is not None:
            if self.minimum() <= value <= self.maximum():
                return (QValidator.State.Acceptable, text, pos)
            return (QValidator.State.Intermediate, text, pos)
        core = _strip(text, self.suffix())
        unit = self.suffix().strip()
        # While typing: a partial number, perhaps followed by the start of the unit.
        heads = [core] + [core[:-k] for k in range(1, len(unit) + 1) if core.endswith(unit[:k])]
        if any(_PARTIAL.match(head) for head in heads):
            return (QValidator.State.Intermediate, text, pos)
        return (QValidator.State.Invalid, text, pos)

    def fixup(self, text: str) -> str:
        return self.textFromValue(self.value())

    def stepBy(self, steps: int) -> None:
        value = max(self.value(), self.minimum(), 1e-300)
        exponent = round(math.log10(value) * self._steps) + steps
        self.setValue(min(max(10.0 ** (exponent / self._steps), self.minimum()), self.maximum()))

    # --- typed values out of range: say so -----------------------------------------------------
    def out_of_range_reason(self) -> str | None:
        """Why the text being edited cannot be applied, or None (in range, or not a number)."""
        value = parse_scientific(self.lineEdit().text(), self.suffix())
        if value is None or self.minimum() <= value <= self.maximum():
            return None
        unit = self.suffix()
        return (
            f"{self.label} = {value:g}{unit} is out of range: it must be between "
            f"{self.minimum():g}{unit} and {self.maximum():g}{unit}; "
            f"kept {self.textFromValue(self.value())}{unit}"
        )

    def keyPressEvent(self, event: QKeyEvent) -> None:  # Qt override
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            reason = self.out_of_range_reason()
            if reason is not None:
                self.refused.emit(reason)
        super().keyPressEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:  # Qt override
        reason = self.out_of_range_reason()
        if reason is not None:
            self.refused.emit(reason)
        super().focusOutEvent(event)
