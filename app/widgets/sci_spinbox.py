"""A spin box for quantities spanning decades (E, Psi_th): scientific text, log-scale steps."""

from __future__ import annotations

import math
import re

from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QDoubleSpinBox, QWidget

_NUMBER = re.compile(r"^\s*[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$")
_PARTIAL = re.compile(r"^\s*[+]?(\d*\.?\d*)([eE][+-]?\d*)?\s*$")


class SciSpinBox(QDoubleSpinBox):
    """Positive values shown as 1.5e+08; each step multiplies by 10^(1/steps_per_decade)."""

    def __init__(
        self,
        minimum: float,
        maximum: float,
        steps_per_decade: int = 10,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._steps = steps_per_decade
        self.setDecimals(300)  # QDoubleSpinBox rounds to `decimals`; keep tiny values intact
        self.setRange(minimum, maximum)
        self.setKeyboardTracking(False)  # emit once the user finishes typing, not per key

    def textFromValue(self, value: float) -> str:
        return f"{value:.3g}"

    def valueFromText(self, text: str) -> float:
        try:
            return float(text.strip())
        except ValueError:
            return self.value()

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:  # Qt override
        if _NUMBER.match(text):
            value = float(text)
            if self.minimum() <= value <= self.maximum():
                return (QValidator.State.Acceptable, text, pos)
            return (QValidator.State.Intermediate, text, pos)
        if _PARTIAL.match(text):
            return (QValidator.State.Intermediate, text, pos)
        return (QValidator.State.Invalid, text, pos)

    def fixup(self, text: str) -> str:
        return self.textFromValue(self.value())

    def stepBy(self, steps: int) -> None:
        value = max(self.value(), self.minimum(), 1e-300)
        exponent = round(math.log10(value) * self._steps) + steps
        self.setValue(min(max(10.0 ** (exponent / self._steps), self.minimum()), self.maximum()))
