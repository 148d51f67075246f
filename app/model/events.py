"""A tiny Qt-free observer: models emit events, views and controllers subscribe to them."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

Callback = Callable[..., Any]


class Event:
    """A list of callbacks that `emit(*args)` calls in the order they were connected.

    Like a Qt signal without Qt: no threads, no queued delivery; `emit` returns after every
    callback ran. A callback that raises is logged and does not stop the others.
    """

    def __init__(self, name: str = "") -> None:
        self.name = name
        self._callbacks: list[Callback] = []

    def connect(self, callback: Callback) -> Callback:
        """Call `callback(*args)` on every emit; returns it (usable as a decorator)."""
        self._callbacks.append(callback)
        return callback

    def disconnect(self, callback: Callback) -> None:
        """Stop calling `callback` (no error when it was not connected)."""
        if callback in self._callbacks:
            self._callbacks.remove(callback)

    def emit(self, *args: Any) -> None:
        """Call every connected callback with `args`."""
        for cb in list(self._callbacks):
            try:
                cb(*args)
            except Exception:
                log.exception("a subscriber of %s failed", self.name or "an event")

    def __len__(self) -> int:
        return len(self._callbacks)
