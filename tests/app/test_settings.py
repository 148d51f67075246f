"""Preferences read back from QSettings (no window needed)."""

from __future__ import annotations

import pytest

from app import settings as app_settings


class _FakeSettings:
    def __init__(self, value: object) -> None:
        self._value = value

    def value(self, key: str, default: object = None) -> object:
        return self._value


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        (["/a.stl", "/b.obj"], ["/a.stl", "/b.obj"]),
        ("/a.stl", ["/a.stl"]),  # a one-element list comes back as a string (ini files)
        (None, []),  # an empty list comes back as nothing
        ("", []),
        (3, []),  # a value of another type (hand-edited settings) is no list
        (["/a.stl", ""], ["/a.stl"]),
    ],
)
def test_recent_files_reads_any_stored_value(monkeypatch, stored, expected):
    monkeypatch.setattr(app_settings, "settings", lambda: _FakeSettings(stored))
    assert app_settings.recent_files() == expected


@pytest.mark.parametrize(
    ("diagonal", "unit"),
    [
        (0.089, "m"),  # a 40 x 80 mm can saved in metres
        (8.9, "cm"),  # ... in centimetres
        (89.0, "mm"),  # ... in millimetres
        (1500.0, "mm"),  # a 1.5 m object in millimetres
        (1e5, "m"),  # nothing fits: metres, and the chooser marks every unit
    ],
)
def test_the_suggested_unit_makes_an_everyday_size(diagonal, unit):
    from app.mesh_units import suggest_unit

    assert suggest_unit(diagonal) == unit


def test_mesh_units_and_bodies_are_remembered_per_file(tmp_path, monkeypatch):
    from PySide6.QtCore import QSettings

    store = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    monkeypatch.setattr(app_settings, "settings", lambda: store)
    a, b = tmp_path / "a.stl", tmp_path / "b.stl"
    unit, body = app_settings.MESH_UNIT, app_settings.MESH_BODY
    assert unit.get(a) is None and body.get(a) is None
    unit.set(a, "cm")
    body.set(a, "1")
    assert unit.get(a) == "cm" and unit.get(b) is None
    assert body.get(a) == "1" and body.get(b) is None
    unit.set(a, None)
    assert unit.get(a) is None and body.get(a) == "1"
    # The unit's key is the one earlier versions wrote: units chosen before are kept.
    import hashlib

    store.setValue("mesh_units/" + hashlib.sha1(str(b.resolve()).encode()).hexdigest(), "mm")
    assert unit.get(b) == "mm"
