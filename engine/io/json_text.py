"""JSON text read with a budget on integers: a 5000-digit number is refused by name.

Python refuses integers over 4300 digits with a bare ValueError (not a JSONDecodeError), which
ended readers in a traceback; smaller giants are each field's check's to refuse (a session
names the field: "holds a number too large for a float"). Every JSON a user hands in
(sessions, REACH records and labels) is read through `loads`.
"""

from __future__ import annotations

import json
from typing import Any

MAX_INT_DIGITS = 4300
"""Longest integer read: Python's own limit for converting text to int (sys.int_info's
default_max_str_digits), said by name instead of a bare ValueError."""


class JsonNumberError(ValueError):
    """An integer in the JSON text has more than MAX_INT_DIGITS digits."""


def _int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise JsonNumberError(
            f"it holds an integer of {digits} digits ({text[:12]}...), more than the "
            f"{MAX_INT_DIGITS} a JSON number may have here: the file is damaged or not what it "
            "claims"
        )
    return int(text)


def loads(text: str) -> Any:
    """json.loads with integers of at most MAX_INT_DIGITS digits (JsonNumberError, a
    ValueError, otherwise; malformed text raises json.JSONDecodeError as before)."""
    return json.loads(text, parse_int=_int)
