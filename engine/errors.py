"""Errors the engine raises for bad input or failed computations.

Every message names the problem and what the user can do about it. Where the fix is a setting
(a parameter, the resting pose, the mesh's unit), the error carries it as a `Setting` and its
message names it through a placeholder, so each front end says it in its own words: the command
line as its flag (`str(exc)`, "--gripper franka_hand (Franka Hand, 80 mm)"), the app as its
control (`exc.render(...)`, "the Franka Hand (Parameters > Gripper)").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Setting:
    """A setting an error points to: `name` is the field (a SimulationParams or AnalyticParams
    field, or a scene setting: "stable_pose", "unit", "body"), `flag` its command-line flag,
    `value` the value that would fix the problem (None: the setting itself), `note` what that
    value means ("Franka Hand, 80 mm")."""

    name: str
    flag: str
    value: object = None
    note: str = ""

    def cli_words(self) -> str:
        """The command line's words: "--gripper franka_hand (Franka Hand, 80 mm)"."""
        text = self.flag if self.value is None else f"{self.flag} {self.value}"
        return f"{text} ({self.note})" if self.note else text


Renderer = Callable[[Setting], str]


def literal(text: str) -> str:
    """`text` as part of a message with settings: its braces doubled, so it is not a
    placeholder."""
    return text.replace("{", "{{").replace("}", "}}")


@dataclass(frozen=True)
class Message:
    """A notice (not an error) that names settings the same way: `template` holds {0}, {1},
    ... for `settings`; `str()` says them in the command line's words."""

    template: str
    settings: tuple[Setting, ...] = ()

    def render(self, say: Renderer = Setting.cli_words) -> str:
        """The message with each setting said by `say`."""
        if not self.settings:
            return self.template
        return self.template.format(*(say(s) for s in self.settings))

    def __str__(self) -> str:
        return self.render()


class IpcGraspError(Exception):
    """Base class: a problem the user can act on (the message says how).

    `message` names the error's `settings` as {0}, {1}, ... (only when settings are given, so
    other messages may hold braces); `str(exc)` says them in the command line's words.
    """

    def __init__(self, message: str = "", *, settings: Sequence[Setting] = ()) -> None:
        self.template = message
        self.settings = tuple(settings)
        super().__init__(self.render())

    def render(self, say: Renderer = Setting.cli_words) -> str:
        """The message with each setting said by `say`."""
        if not self.settings:
            return self.template
        return self.template.format(*(say(s) for s in self.settings))

    def __reduce__(self) -> tuple[Any, ...]:
        # Errors cross process boundaries (batch and app workers) with their settings.
        return (_rebuild, (type(self), self.template, self.settings, dict(self.__dict__)))


def _rebuild(
    cls: type[IpcGraspError], template: str, settings: tuple[Setting, ...], state: dict
) -> IpcGraspError:
    exc = cls.__new__(cls)
    exc.__dict__.update(state)
    exc.template, exc.settings = template, settings
    exc.args = (exc.render(),)
    return exc


class MeshError(IpcGraspError, ValueError):
    """A mesh that cannot be used (missing, unreadable, not watertight, wrong units)."""


class ParameterError(IpcGraspError, ValueError):
    """A parameter outside its valid range (NaN, E <= 0, mu < 0, ...)."""


class GraspError(IpcGraspError, ValueError):
    """A grasp that cannot be executed (misses the object, open jaws collide, too wide)."""


class SolverError(IpcGraspError, RuntimeError):
    """The time-step solver failed (Newton did not converge, line search stalled)."""


class NewtonNotConverged(SolverError):
    """Newton used its iterations without converging (`iterations` of them)."""

    def __init__(self, message: str, iterations: int) -> None:
        super().__init__(message)
        self.iterations = iterations
