"""Detects a Qt binding that drops references to None (it aborts the app at random later).

PySide6 6.12.0 on Python 3.11 decrements None's reference count on every call of a method that
returns void (QPainter.setPen, drawLine, ...; measured: -1 per call). None is not immortal
before Python 3.12, so after some tens of thousands of such calls, a few minutes of painting,
the interpreter aborts with "Fatal Python error: none_dealloc: deallocating None". 6.11.3 and
6.10.3 are clean; pyproject.toml keeps PySide6 below 6.12.
"""

from __future__ import annotations

import sys

FIX = "install a PySide6 without the bug: pip install 'PySide6-Essentials>=6.6,<6.12'"


def none_references_lost(calls: int = 200) -> int:
    """How many references to None `calls` void QPainter calls lose (0 for a sound binding)."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QColor, QImage, QPainter

    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    color = QColor("#336699")
    before = sys.getrefcount(None)
    for _ in range(calls):
        painter.setPen(color)
        painter.drawLine(QPointF(0.0, 0.0), QPointF(7.0, 7.0))
    lost = before - sys.getrefcount(None)
    painter.end()
    return max(0, lost)


def binding_problem() -> str:
    """'' when the binding is sound, else what is wrong and how to fix it."""
    if sys.version_info >= (3, 12):  # None is immortal: the leak cannot crash
        return ""
    lost = none_references_lost()
    if lost < 100:  # a few references may move legitimately; a leak loses one per call
        return ""
    from PySide6 import __version__ as version

    return (
        f"PySide6 {version} loses a reference to None on every void Qt call ({lost} in 400 "
        "calls); Python 3.11 then aborts the app after a few minutes ('deallocating None'). "
        f"Fix: {FIX}"
    )
