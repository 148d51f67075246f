"""One declaration per parameter: unit, range, help, CLI flag and GUI widget on the dataclass field.

A parameter dataclass declares each field with `param(...)`; everything else is generated from
that declaration:

- `check_fields(obj)`: finite numbers, ranges, choices and integers, with messages that name the
  field, its unit and its valid range (a class's `validate()` adds only cross-field rules);
- `add_arguments(parser, cls)` / `from_args(cls, args)`: the flags of every command;
- `to_dict(obj)` / `from_dict(cls, data)`: session files and JSON (unknown keys are reported);
- `columns(cls, prefix)` / `to_row(obj, prefix)` / `from_row(cls, row, prefix)`: the `param_*`
  columns of result CSVs, written and read back;
- `gui_fields(cls)`: what the app's parameter dock shows (label, display unit and scale,
  widget kind, group, step, decimals).

Adding a parameter is one `param(...)` declaration plus its physics.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import types
import typing
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from engine.errors import ParameterError, Setting

T = TypeVar("T")

SCHEMA_KEY = "ipcgrasp.schema"

WIDGETS = ("spin", "log", "int", "combo", "optional", "none")
"""GUI widget kinds: a spin box, a log-scale spin box with slider, an integer spin box, a combo
box of `choices`, a spin box with a "default" check box (for fields that may be None), or none
(not shown in the dock)."""


@dataclass(frozen=True)
class ParamSpec:
    """The declaration of one parameter field (all values in SI units)."""

    unit: str
    help: str
    low: float | None = None
    high: float | None = None
    low_inclusive: bool = True
    high_inclusive: bool = True
    choices: tuple[str, ...] | None = None
    flag: str | None = None  # CLI flag ("--E"); None: not a command-line option
    label: str = ""
    widget: str = "spin"
    group: str = "advanced"
    display_unit: str = ""  # unit shown in the GUI ("mm")
    display_scale: float = 1.0  # SI value per displayed unit (1e-3 for mm)
    step: float | None = None  # GUI step in displayed units
    decimals: int = 3
    none_means: str = ""  # what None stands for, for optional fields ("same as mu")

    def range_text(self, integer: bool = False) -> str:
        """The valid range in words, e.g. "in (0, 0.5)" or "> 0" (integers written out)."""
        fmt = (lambda v: str(int(v))) if integer else (lambda v: f"{v:g}")
        lo, hi = self.low, self.high
        if self.choices is not None:
            return "one of " + ", ".join(self.choices)
        if lo is not None and hi is not None:
            return (
                f"in {'[' if self.low_inclusive else '('}{fmt(lo)}, {fmt(hi)}"
                f"{']' if self.high_inclusive else ')'}"
            )
        if lo is not None:
            return f"{'>=' if self.low_inclusive else '>'} {fmt(lo)}"
        if hi is not None:
            return f"{'<=' if self.high_inclusive else '<'} {fmt(hi)}"
        return "a finite number"


def param(default: Any, spec: ParamSpec | None = None, **kwargs: Any) -> Any:
    """A dataclass field with its ParamSpec (`param(1e8, unit="Pa", help=..., low=0, ...)`)."""
    if spec is None:
        spec = ParamSpec(**kwargs)
    elif kwargs:
        spec = dataclasses.replace(spec, **kwargs)
    if spec.widget not in WIDGETS:
        raise ValueError(f"unknown widget kind {spec.widget!r}")
    return dataclasses.field(default=default, metadata={SCHEMA_KEY: spec})


@dataclass(frozen=True)
class Declared:
    """A declared field: its name, base type (float, int, str), whether None is allowed, spec."""

    name: str
    kind: type
    optional: bool
    default: Any
    spec: ParamSpec

    @property
    def unit_text(self) -> str:
        return f" {self.spec.unit}" if self.spec.unit else ""


def _field_kind(annotation: Any) -> tuple[type, bool]:
    if isinstance(annotation, str):  # postponed annotations
        optional = "None" in annotation
        base = annotation.replace("| None", "").replace("None |", "").strip()
        kinds = {"float": float, "int": int, "str": str, "bool": bool}
        if base not in kinds:
            raise TypeError(f"unsupported parameter annotation {annotation!r}")
        return kinds[base], optional
    args = typing.get_args(annotation)
    if isinstance(annotation, types.UnionType) or args:
        real = [a for a in args if a is not type(None)]
        return real[0], len(real) != len(args)
    return annotation, False


def declared(cls: type) -> list[Declared]:
    """The declared fields of a parameter dataclass (class or instance), in order."""
    out = []
    for f in dataclasses.fields(cls):
        spec = f.metadata.get(SCHEMA_KEY)
        if spec is None:
            continue
        kind, optional = _field_kind(f.type)
        out.append(Declared(f.name, kind, optional, f.default, spec))
    return out


def field_spec(cls: type, name: str) -> Declared:
    """The declaration of one field; KeyError names the known fields."""
    for d in declared(cls):
        if d.name == name:
            return d
    raise KeyError(f"{cls.__name__} has no parameter {name!r}")


# --- validation --------------------------------------------------------------------------------
def check_value(d: Declared, value: Any) -> Any:
    """`value` converted to the field's type; ParameterError names the field, range and fix."""
    spec = d.spec
    where = f"{d.name} ({spec.flag})" if spec.flag else d.name
    range_text = spec.range_text(integer=d.kind is int)
    if value is None:
        if d.optional:
            return None
        raise ParameterError(f"{where} must be given ({range_text}{d.unit_text})")
    if d.kind is str:
        if not isinstance(value, str):
            raise ParameterError(f"{where} must be text, got {value!r}")
        if spec.choices is not None and value not in spec.choices:
            raise ParameterError(
                f"{where} must be one of {', '.join(spec.choices)} (got {value!r})"
            )
        return value
    if d.kind is bool:
        if not isinstance(value, bool):
            raise ParameterError(f"{where} must be true or false, got {value!r}")
        return value
    if isinstance(value, bool) or (
        not isinstance(value, int | float) and not hasattr(value, "__float__")
    ):
        raise ParameterError(
            f"{where} must be a number{d.unit_text and ' in' + d.unit_text}, got {value!r}"
        )
    number = float(value)
    if not math.isfinite(number):
        raise ParameterError(
            f"{where} is {number}; give a finite number ({range_text}{d.unit_text})"
        )
    if d.kind is int:
        if number != int(number):
            raise ParameterError(f"{where} must be an integer (got {value!r})")
        number = int(number)
    lo, hi = spec.low, spec.high
    too_low = lo is not None and (number < lo if spec.low_inclusive else number <= lo)
    too_high = hi is not None and (number > hi if spec.high_inclusive else number >= hi)
    if too_low or too_high:
        raise ParameterError(
            f"{where} must be {range_text}{d.unit_text} (got {value}): {spec.help}"
        )
    return number


def check_fields(obj: Any) -> None:
    """Check every declared field of a parameter dataclass instance (raises ParameterError)."""
    for d in declared(type(obj)):
        check_value(d, getattr(obj, d.name))


# --- dictionaries, sessions and CSV rows --------------------------------------------------------
_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def to_dict(obj: Any) -> dict[str, Any]:
    """Every declared field of `obj` by name (SI units; None stays None)."""
    return {d.name: getattr(obj, d.name) for d in declared(type(obj))}


def from_dict(cls: type[T], data: Mapping[str, Any], *, unknown: list[str] | None = None) -> T:
    """An instance of `cls` from a dict (session, JSON); missing fields take their defaults.

    Keys that `cls` does not declare are skipped and appended to `unknown` when given (a file
    written by a newer version). Values are checked with their declarations.
    """
    kwargs: dict[str, Any] = {}
    names = {d.name: d for d in declared(cls)}
    for key, value in data.items():
        d = names.get(key)
        if d is None:
            if unknown is not None:
                unknown.append(key)
            continue
        if isinstance(value, str) and value in _NON_FINITE:
            value = _NON_FINITE[value]
        if d.kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        kwargs[key] = check_value(d, value)
    return cls(**kwargs)


def columns(cls: type, prefix: str = "param_") -> list[str]:
    """The CSV column names of a parameter class's fields."""
    return [prefix + d.name for d in declared(cls)]


def to_row(obj: Any, prefix: str = "param_") -> dict[str, object]:
    """CSV cells of `obj`'s fields (None as an empty cell)."""
    return {prefix + k: ("" if v is None else v) for k, v in to_dict(obj).items()}


_BOOL_CELLS = {"true": True, "false": False}


def _cell_value(d: Declared, text: str) -> Any:
    """A CSV cell's text as the field's type (range checks are check_value's)."""
    if text == "":
        return None  # to_row's None
    if d.kind is str:
        return text
    if d.kind is bool:
        if text.strip().lower() not in _BOOL_CELLS:
            raise ParameterError(f"{text!r} is not True or False")
        return _BOOL_CELLS[text.strip().lower()]
    try:
        return int(text) if d.kind is int and text.strip().lstrip("+-").isdigit() else float(text)
    except ValueError:
        raise ParameterError(f"{text!r} is not a number") from None


def from_row(
    cls: type[T],
    row: Mapping[str, Any],
    prefix: str = "param_",
    *,
    unknown: list[str] | None = None,
) -> T:
    """The inverse of `to_row`: an instance of `cls` from a CSV row's `prefix` columns.

    An empty cell is None (an optional field's default-meaning value); other cells are read as
    the field's type and checked with its declaration; a bad cell raises ParameterError naming
    its column. As in `from_dict`, missing columns take their defaults and columns with the
    prefix that `cls` does not declare are skipped (appended to `unknown` when given); columns
    without the prefix are not the parameters'.
    """
    names = {d.name: d for d in declared(cls)}
    kwargs: dict[str, Any] = {}
    for column, cell in row.items():
        if not isinstance(column, str) or not column.startswith(prefix):
            continue
        d = names.get(column[len(prefix) :])
        if d is None:
            if unknown is not None:
                unknown.append(column)
            continue
        try:
            value = _cell_value(d, cell) if isinstance(cell, str) else cell
            kwargs[d.name] = check_value(d, value)
        except ParameterError as exc:
            raise ParameterError(f"column {column}: {exc}") from None
    return cls(**kwargs)


# --- command-line flags --------------------------------------------------------------------------
def _parser_type(d: Declared):
    """The flag's text -> number; ranges are checked with the whole parameter set afterwards."""
    if d.kind is str:
        return str

    def convert(text: str) -> Any:
        try:
            return float(text) if d.kind is float else int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {'a number' if d.kind is float else 'an integer'}"
            ) from None

    convert.__name__ = d.kind.__name__
    return convert


def add_arguments(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    cls: type,
    *,
    exclude: Iterable[str] = (),
    defaults: Mapping[str, Any] | None = None,
) -> list[str]:
    """Add a flag for every declared field of `cls` that has one; returns the field names.

    `defaults` overrides the dataclass defaults for this command; `from_args` then builds and
    validates the instance, so a bad value is reported with its field, range, unit and flag.
    """
    skip = set(exclude)
    added = []
    for d in declared(cls):
        if d.spec.flag is None or d.name in skip:
            continue
        overridden = defaults is not None and d.name in defaults
        default = defaults[d.name] if defaults is not None and overridden else d.default
        help_text = d.spec.help.replace("%", "%%")  # the unit is the flag's metavar
        shown = d.spec.none_means if default is None and d.spec.none_means else default
        if not overridden:  # argparse's formatter adds the others' default itself
            help_text += f" (default: {str(shown).replace('%', '%%')})"
        # A flag that is not given leaves no attribute (SUPPRESS), so from_args knows what the
        # user chose; a command's own default counts as given.
        kwargs: dict[str, Any] = {
            "dest": d.name,
            "default": default if overridden else argparse.SUPPRESS,
            "help": help_text,
        }
        if d.kind is bool:
            kwargs["action"] = argparse.BooleanOptionalAction
        else:
            kwargs["type"] = _parser_type(d)
            kwargs["metavar"] = d.spec.unit or ("N" if d.kind is int else "X")
            if d.spec.choices is not None:
                del kwargs["metavar"]
                kwargs["choices"] = list(d.spec.choices)
                kwargs["type"] = str
        parser.add_argument(d.spec.flag, **kwargs)
        added.append(d.name)
    return added


def from_args(cls: type[T], args: argparse.Namespace, **overrides: Any) -> T:
    """An instance of `cls` from the flags the user gave (and `overrides`), validated.

    Fields without a given flag keep their defaults; a class with a `from_values` constructor
    (SimulationParams: the gripper preset fills what was not given) builds it that way.
    """
    kwargs = {d.name: getattr(args, d.name) for d in declared(cls) if hasattr(args, d.name)}
    kwargs.update(overrides)
    build = getattr(cls, "from_values", None)
    obj = build(**kwargs) if callable(build) else cls(**kwargs)
    validate = getattr(obj, "validate", None)
    if callable(validate):
        validate()
    else:
        check_fields(obj)
    return obj


def setting(cls: type, name: str, value: Any = None, note: str = "") -> Setting:
    """The parameter `name` of `cls` as a setting an error points to (engine.errors.Setting),
    with its declared flag."""
    d = field_spec(cls, name)
    return Setting(name, d.spec.flag or name, value, note)


# --- GUI ---------------------------------------------------------------------------------------
def gui_fields(cls: type, group: str | None = None) -> Iterator[Declared]:
    """The fields the parameter dock shows (optionally of one group), in declaration order."""
    for d in declared(cls):
        if d.spec.widget != "none" and (group is None or d.spec.group == group):
            yield d
