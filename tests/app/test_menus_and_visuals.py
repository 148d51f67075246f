"""Issue 38 (app half): the window's menus are one typed object, `window.menus`, and nothing of
them is bolted onto the window; the 3D view holds one visual per layer kind of the visuals
table (app/visuals), each drawing what the view shows."""

from __future__ import annotations

import typing

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QMenu

from app.menus import Menus
from app.visuals import VISUAL_TYPES, Visual


def test_the_menus_are_one_typed_object_and_nothing_is_bolted_onto_the_window(window):
    hints = typing.get_type_hints(Menus)
    assert len(hints) >= 29
    for name, hint in hints.items():
        value = getattr(window.menus, name)
        if typing.get_origin(hint) is dict:  # dict[str, QAction]
            assert value and all(isinstance(a, QAction) for a in value.values()), name
        else:
            assert isinstance(value, hint), (name, hint)
        assert name not in vars(window), f"window.{name} is bolted onto the window"
    assert isinstance(window.menus.recent_menu, QMenu)
    assert isinstance(window.menus.color_combo, QComboBox)
    # The actions are the window's (their shortcuts work window-wide; F1 lists them).
    assert window.menus.simulate_action in window.actions()


def test_the_view_holds_one_visual_per_kind_of_the_table(window):
    vp = window.viewport
    assert set(vp.visuals.by_kind) == set(VISUAL_TYPES)
    for kind, cls in VISUAL_TYPES.items():
        assert issubclass(cls, Visual)
        assert type(vp.visuals.by_kind[kind]) is cls, kind
    # The gripper visual holds what is drawn: the example cube's open pads.
    assert vp.gripper.drawn and len(vp.gripper.points) == 2
    assert vp.object.actor is vp.plotter.renderer.actors["object"]
