"""Work split in two halves (engine.ipc.helper_thread): the halves' results come back in order,
the helper always finishes before the caller goes on, and a trial's numbers do not depend on
whether the halves ran on one thread or two (the two pads' elastic terms, checked bit for bit
on 1.5 mm pads, which are large enough to be split)."""

from __future__ import annotations

import dataclasses
import threading
import time

import numpy as np
import pytest

from engine.ipc import helper_thread, internal_term


def test_in_pair_returns_both_halves_in_order_from_two_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(helper_thread, "two_threads", lambda: True)
    names: list[str] = []

    def half(value: int) -> int:
        names.append(threading.current_thread().name)
        return value

    assert helper_thread.in_pair(lambda: half(1), lambda: half(2)) == (1, 2)
    assert len(set(names)) == 2  # the second half ran on the helper
    monkeypatch.setattr(helper_thread, "two_threads", lambda: False)
    names.clear()
    assert helper_thread.in_pair(lambda: half(3), lambda: half(4)) == (3, 4)
    assert len(set(names)) == 1


def test_a_failing_half_is_raised_after_the_helper_is_done(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The helper writes into arrays the caller owns: even when this thread's half fails, the
    caller goes on only once the helper's half has finished."""
    monkeypatch.setattr(helper_thread, "two_threads", lambda: True)
    done: list[bool] = []

    def slow() -> None:
        time.sleep(0.05)
        done.append(True)

    def fails() -> None:
        raise ValueError("first half")

    with pytest.raises(ValueError, match="first half"):
        helper_thread.in_pair(fails, slow)
    assert done == [True]

    def fails_too() -> None:
        raise KeyError("second half")

    with pytest.raises(KeyError, match="second half"):
        helper_thread.in_pair(lambda: None, fails_too)


def _fine_pad_simulation():  # -> engine.grasp.simulation.GraspSimulation
    from engine.grasp.default_grasp import default_grasp
    from engine.grasp.params import SimulationParams
    from engine.grasp.simulation import GraspSimulation, build_pad
    from engine.scene.object_mesh import builtin_cube
    from engine.scene.resting import rest_object

    obj = rest_object(builtin_cube(), 0)
    params = dataclasses.replace(
        SimulationParams.for_gripper("yumi"), youngs_modulus_pa=1e6, pad_edge_length_m=0.0015
    )
    pad = build_pad(params)
    return GraspSimulation(obj, default_grasp(obj, pad.outline).pose(), params, pad=pad)


def test_the_pads_elastic_terms_are_the_same_on_one_thread_or_two(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each pad's gradient and Hessian blocks are its own arithmetic whichever thread runs them,
    and they are added in pad order: the internal term's gradient and Hessian data are equal bit
    for bit with the pads split over two threads or not (the 1.5 mm pads are split)."""
    pairs: list[int] = []
    original = helper_thread.in_pair

    def counted(first, second):  # type: ignore[no-untyped-def]
        pairs.append(1)
        return original(first, second)

    monkeypatch.setattr(internal_term, "in_pair", counted)
    results = []
    for split in (False, True):
        monkeypatch.setattr(internal_term, "two_threads", lambda split=split: split)
        sim = _fine_pad_simulation()
        stepper = sim.stepper
        assert min(len(b.rest.tets) for b in sim.system.pads) >= internal_term.THREAD_MIN_TETS
        potential = stepper._potential(stepper.state, stepper.settings.time_step_s, None, None)
        term = next(t for t in potential.terms if isinstance(t, internal_term.InternalTerm))
        u = stepper.state.u + 1e-5 * np.random.default_rng(3).standard_normal(sim.system.ndof)
        before = len(pairs)
        g, hessian = term.gradient_hessian(u, project=False)
        results.append((term.gradient(u), g, hessian.values(), len(pairs) - before))
    (g0, gh0, d0, pairs0), (g1, gh1, d1, pairs1) = results
    assert pairs0 == 0 and pairs1 == 2
    np.testing.assert_array_equal(g0, g1)
    np.testing.assert_array_equal(gh0, gh1)
    np.testing.assert_array_equal(d0, d1)
