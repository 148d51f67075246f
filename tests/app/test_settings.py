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
