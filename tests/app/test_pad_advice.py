"""A soft pad under a strong gripper: the parameter dock says so under the pad's material
(engine.grasp.pad_strain), and stops saying so once E suits the gripper."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from engine.grasp.pad_strain import pad_strain_advice


def _type(box, text: str) -> None:
    box.setFocus()
    box.lineEdit().selectAll()
    QTest.keyClicks(box, text)
    QTest.keyClick(box, Qt.Key.Key_Return)


def test_a_soft_pad_on_the_robotiq_shows_advice_until_e_suits_it(window, qtbot):
    dock = window.param_dock
    label = dock.advice_label
    assert not label.isVisible()  # the YuMi's defaults: E = 1e8 Pa
    gripper = dock.fields["gripper"].editor
    try:
        gripper.setCurrentText("robotiq_2f85")
        assert window.doc.params.gripper == "robotiq_2f85"
        assert not label.isVisible()  # its 235 N on stiff pads: 0.4 %
        _type(dock.e_spin, "1e6")
        assert window.doc.params.youngs_modulus_pa == 1e6
        qtbot.waitUntil(label.isVisible, timeout=5_000)
        assert label.text() == f"warning: {pad_strain_advice(window.doc.params)}"
        assert "about 43 %" in label.text() and "E >= 4.3 MPa" in label.text()
        _type(dock.e_spin, "4.3e6")  # what the advice asks for
        qtbot.waitUntil(lambda: not label.isVisible(), timeout=5_000)
        # The YuMi's 20 N on the 1 MPa pad is the validated soft setting: no advice.
        gripper.setCurrentText("yumi")
        _type(dock.e_spin, "1e6")
        assert window.doc.params.youngs_modulus_pa == 1e6
        assert not label.isVisible()
    finally:
        gripper.setCurrentText("yumi")
        _type(dock.e_spin, "1e8")
