"""Typing values into the scientific spin boxes (E, Psi_th) with real key events (issue 15)."""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest


def _type(box, text: str, keep_unit: bool) -> None:
    """Select the field's number (keep_unit: as a double click does, the unit stays) or all of
    its text, type `text` key by key and press Enter."""
    box.setFocus()
    if keep_unit:
        box.selectAll()  # QAbstractSpinBox selects the number, not the suffix
    else:
        box.lineEdit().selectAll()
    QTest.keyClicks(box, text)
    QTest.keyClick(box, Qt.Key.Key_Return)


PSI_TYPED = [
    ("1e-6", 1e-6),
    ("1E-6", 1e-6),
    ("1e-06", 1e-6),
    ("0.000001", 1e-6),
    ("2e-9", 2e-9),
    ("3,5e-8", 3.5e-8),
    ("4.5e-7 J", 4.5e-7),
    ("6e-10J", 6e-10),
]


@pytest.mark.parametrize("keep_unit", [False, True])
def test_typed_psi_th_sets_the_value(window, keep_unit):
    dock = window.param_dock
    dock.stop_combo.setCurrentIndex(1)  # stop on Psi_th: its field is enabled
    assert dock.psi_spin.isEnabled() and dock.psi_spin.suffix() == " J"
    typed = [(t, v) for t, v in PSI_TYPED if not (keep_unit and "J" in t)]
    for text, value in typed:
        _type(dock.psi_spin, text, keep_unit)
        assert window.doc.params.psi_th_j == pytest.approx(value, rel=1e-12), text
        assert dock.psi_spin.value() == pytest.approx(value, rel=1e-12)
        assert dock.message.text() == ""
    # Undo names the field as the dock does; typing into one field merges into one step.
    assert window.undo_stack.undoText() == "change Ψ_th"
    assert "change Ψ_th" in window.menus.undo_action.text()
    window.menus.undo_action.trigger()
    assert window.doc.params.squeeze_stop()[0] == "psi"
    assert window.doc.params.psi_th_j != pytest.approx(typed[-1][1])


@pytest.mark.parametrize(
    "text,value",
    [("5e7", 5e7), ("5E7 Pa", 5e7), ("50000000", 5e7), ("2,5e6", 2.5e6), ("3.2e+05 Pa", 3.2e5)],
)
def test_typed_e_sets_the_value(window, text, value):
    dock = window.param_dock
    _type(dock.e_spin, text, keep_unit=False)
    assert window.doc.params.youngs_modulus_pa == pytest.approx(value, rel=1e-12)
    assert dock.e_slider.value() == round(10 * math.log10(value))


def test_typed_value_out_of_range_says_so(window):
    dock = window.param_dock
    before = window.doc.params.youngs_modulus_pa
    _type(dock.e_spin, "1e13", keep_unit=False)
    text = dock.notes["youngs_modulus_pa"].label.text()  # at the field (issue 39 point 7)
    assert "E = 1e+13 Pa is out of range" in text and "1e+12 Pa" in text, text
    assert window.doc.params.youngs_modulus_pa == before
    _type(dock.e_spin, "4e7", keep_unit=False)  # a valid value clears the message
    assert window.doc.params.youngs_modulus_pa == pytest.approx(4e7)
    assert dock.notes["youngs_modulus_pa"].label.text() == ""
    dock.stop_combo.setCurrentIndex(1)
    _type(dock.psi_spin, "2", keep_unit=True)
    assert "Ψ_th = 2 J is out of range" in dock.notes["psi_th_j"].label.text()
    assert window.doc.params.psi_th_j == pytest.approx(dock.psi_spin.value())
    # Not a number at all: the keys are refused as typed, the value stays.
    _type(dock.psi_spin, "abc", keep_unit=False)
    assert window.doc.params.psi_th_j == pytest.approx(dock.psi_spin.value())
