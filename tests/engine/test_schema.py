"""One declaration per parameter: validation, flags, CSV columns and session I/O all follow it."""

from __future__ import annotations

import argparse
import dataclasses
import math

import pytest

from engine import schema
from engine.errors import ParameterError
from engine.grasp.params import SimulationParams
from engine.grasp.trials import TrialSpec


@dataclasses.dataclass(frozen=True)
class Toy:
    """A parameter class declared only here, so the test checks the generator, not its data."""

    stiffness_pa: float = schema.param(
        1e6, unit="Pa", help="how stiff", low=0.0, low_inclusive=False, high=1e9, flag="--k"
    )
    count: int = schema.param(3, unit="", help="how many", low=1, high=10, flag="--count")
    shape: str = schema.param("box", unit="", help="which", choices=("box", "ball"), flag="--shape")
    limit_n: float | None = schema.param(None, unit="N", help="optional", low=0.0, flag="--limit")
    hidden: float = schema.param(0.5, unit="", help="no flag", low=0.0, high=1.0, widget="none")
    undeclared: float = 7.0


def test_declared_fields_and_types():
    names = [(d.name, d.kind, d.optional) for d in schema.declared(Toy)]
    assert names == [
        ("stiffness_pa", float, False),
        ("count", int, False),
        ("shape", str, False),
        ("limit_n", float, True),
        ("hidden", float, False),
    ]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"stiffness_pa": 0.0},
            r"stiffness_pa \(--k\) must be in \(0, 1e\+09\] Pa \(got 0.0\): how stiff",
        ),
        ({"stiffness_pa": 2e9}, r"must be in \(0, 1e\+09\] Pa"),
        ({"stiffness_pa": math.nan}, r"stiffness_pa \(--k\) is nan; give a finite number"),
        ({"count": 0}, r"count \(--count\) must be in \[1, 10\]"),
        ({"count": 2.5}, r"count \(--count\) must be an integer"),
        ({"count": True}, "must be a number"),
        ({"shape": "cone"}, r"shape \(--shape\) must be one of box, ball \(got 'cone'\)"),
        ({"limit_n": -1.0}, r"limit_n \(--limit\) must be >= 0 N"),
        ({"hidden": 1.5}, r"hidden must be in \[0, 1\]"),
    ],
)
def test_check_fields_names_field_flag_range_and_unit(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        schema.check_fields(Toy(**kwargs))


def test_boundaries_are_inclusive_or_exclusive_as_declared():
    schema.check_fields(Toy(stiffness_pa=1e9, count=1, limit_n=0.0, hidden=0.0))
    schema.check_fields(Toy(count=10, hidden=1.0))
    with pytest.raises(ParameterError):
        schema.check_fields(Toy(stiffness_pa=0.0))


def test_flags_are_generated_with_defaults_and_overrides():
    p = argparse.ArgumentParser()
    added = schema.add_arguments(p, Toy, defaults={"count": 5})
    assert added == ["stiffness_pa", "count", "shape", "limit_n"]  # hidden has no flag
    args = p.parse_args(["--k", "2e6", "--shape", "ball"])
    toy = schema.from_args(Toy, args)
    assert toy == Toy(stiffness_pa=2e6, count=5, shape="ball", limit_n=None)
    with pytest.raises(ParameterError, match=r"count \(--count\) must be in \[1, 10\]"):
        schema.from_args(Toy, p.parse_args(["--count", "11"]))
    with pytest.raises(SystemExit):
        p.parse_args(["--shape", "cone"])


def test_excluded_flags_are_left_to_the_command():
    p = argparse.ArgumentParser()
    schema.add_arguments(p, Toy, exclude=("stiffness_pa",))
    p.add_argument("--k", dest="k_values")  # e.g. grid's comma-separated list
    assert p.parse_args(["--k", "1,2"]).k_values == "1,2"


def test_dict_and_row_round_trip_and_unknown_keys():
    toy = Toy(stiffness_pa=3e6, limit_n=2.0)
    d = schema.to_dict(toy)
    assert "undeclared" not in d and d["limit_n"] == 2.0
    unknown: list[str] = []
    back = schema.from_dict(Toy, {**d, "from_the_future": 1}, unknown=unknown)
    assert back == toy and unknown == ["from_the_future"]
    with pytest.raises(ParameterError, match="is inf"):
        schema.from_dict(Toy, {"stiffness_pa": "Infinity"})
    row = schema.to_row(Toy())
    assert row["param_limit_n"] == "" and list(row) == schema.columns(Toy)


def test_every_simulation_parameter_is_declared_once_with_unit_help_and_a_flag():
    fields = {f.name for f in dataclasses.fields(SimulationParams)}
    declared = schema.declared(SimulationParams)
    assert {d.name for d in declared} == fields
    flags = [d.spec.flag for d in declared]
    assert all(flags) and len(set(flags)) == len(flags)
    assert all(d.spec.help for d in declared)
    # The defaults are valid, and every range contains its default.
    SimulationParams().validate()
    TrialSpec().validate()


def test_gui_fields_follow_the_declarations():
    shown = [d.name for d in schema.gui_fields(SimulationParams, "advanced")]
    assert "poisson_ratio" in shown and "mu_ground" in shown
    assert "dhat_m" not in shown  # solver internals stay in the CLI
    e = schema.field_spec(SimulationParams, "youngs_modulus_pa")
    assert e.spec.widget == "log" and e.spec.unit == "Pa"
