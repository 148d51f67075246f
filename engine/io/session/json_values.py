"""Session JSON values: non-finite floats coded as strings, and each field read back with its
type checked (SessionError naming the field otherwise)."""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any

import numpy as np

from engine.grasp.frames import TrialResult
from engine.io.session.records import SessionError

_HEX64 = re.compile(r"[0-9a-fA-F]{64}")


def _encode(value: object) -> object:
    """`value` as JSON data: arrays as lists, non-finite floats as "NaN"/"Infinity" strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, np.ndarray):
        return _encode(value.tolist())
    if isinstance(value, np.generic):
        return _encode(value.item())
    if isinstance(value, dict):
        return {str(k): _encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    return value


_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _decode_float(value: Any) -> float:
    """The inverse of `_encode` for a float field (JSON data, hence Any); null is NaN."""
    if isinstance(value, str) and value in _NON_FINITE:
        return _NON_FINITE[value]
    if value is None:
        return math.nan
    return float(value)


_RESULT_FIELDS = {f.name: f for f in dataclasses.fields(TrialResult)}
# Result fields with a range, (lowest value, what they are); NaN ('not measured') passes: a
# time is finite and >= 0, a pad's grip force (a sum of contact forces) finite.
_RANGES = {
    "wall_time_s": (0.0, "a finite time >= 0 in seconds"),
    "grip_force1_n": (-math.inf, "a finite force in N"),
    "grip_force2_n": (-math.inf, "a finite force in N"),
}


def _in_range(name: str, value: float, where: str) -> float:
    """`value` of result field `name`, or SessionError when it is outside the field's range."""
    if name in _RANGES and (math.isinf(value) or value < _RANGES[name][0]):
        raise SessionError(
            f"{where} is {value!r}, not {_RANGES[name][1]}; the file was edited or damaged"
        )
    return value


def _result_from_dict(d: Any, where: str) -> TrialResult:
    """A TrialResult from its saved dict, each field checked against its type (SessionError)."""
    if not isinstance(d, dict):
        raise SessionError(f"{where}: 'result' must be an object or null, got {_kind(d)}")
    kwargs: dict[str, Any] = {}
    for k, v in d.items():
        f = _RESULT_FIELDS.get(k)
        if f is None:
            continue
        at = f"{where}: result field {k!r}"
        default = f.default
        if k in ("perturbation", "strength", "strength_weights", "push"):
            if not isinstance(v, dict):
                raise SessionError(f"{at} must be an object of numbers, got {_kind(v)}")
            kwargs[k] = {str(a): _float(b, f"{at}[{a!r}]") for a, b in v.items()}
        elif f.type in ("bool", bool):
            if not isinstance(v, bool):
                raise SessionError(f"{at} must be true or false, got {v!r:.60}")
            kwargs[k] = v
        elif f.type in ("int", int):
            kwargs[k] = _int(v, at, 0)
        elif f.type in ("str", str):
            if not isinstance(v, str):
                raise SessionError(f"{at} must be text, got {_kind(v)}")
            kwargs[k] = v
        elif isinstance(default, float):
            kwargs[k] = _in_range(k, _float(v, at), at)
    for k in ("trial", "success", "reason"):
        if k not in kwargs:
            raise SessionError(f"{where}: result field {k!r} is missing")
    return TrialResult(**kwargs)


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _float(value: Any, where: str) -> float:
    """A saved float (number, "NaN"/"Infinity"/"-Infinity" or null = NaN) or SessionError."""
    if isinstance(value, bool) or not (
        value is None
        or isinstance(value, int | float)
        or (isinstance(value, str) and value in _NON_FINITE)
    ):
        raise SessionError(f"{where} must be a number, got {value!r:.60}")
    try:
        return _decode_float(value)
    except OverflowError:
        raise SessionError(f"{where} is too large ({value!r:.60})") from None


def _int(value: Any, where: str, low: int | None = None) -> int:
    """A saved integer (not a bool, not a float) >= `low`, or SessionError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise SessionError(f"{where} must be an integer, got {value!r:.60}")
    if low is not None and value < low:
        raise SessionError(f"{where} must be >= {low} (got {value})")
    return value


def _vector(value: Any, n: int, where: str) -> np.ndarray:
    """`n` finite numbers, or SessionError."""
    if (
        not isinstance(value, list)
        or len(value) != n
        or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in value)
    ):
        raise SessionError(f"{where} must be a list of {n} numbers, got {value!r:.80}")
    try:
        a = np.array(value, dtype=float)
    except OverflowError:
        raise SessionError(f"{where} holds a number too large for a float") from None
    if not np.all(np.isfinite(a)):
        raise SessionError(f"{where} holds NaN or infinite values")
    return a


def _matrix4(value: Any, where: str) -> np.ndarray:
    if not isinstance(value, list) or len(value) != 4:
        raise SessionError(f"{where} must be a 4x4 matrix of finite numbers")
    return np.array([_vector(row, 4, where) for row in value], dtype=float)


def _object_dict(doc: dict, where: str, name: str) -> dict:
    value = doc.get(name)
    if not isinstance(value, dict):
        raise SessionError(f"{where}: field {name!r} must be an object, got {_kind(value)}")
    return value
