"""The argument parser and help formatter of every `ipcgrasp` command.

- `Parser` reads a negative number in scientific notation as a value, not as an option:
  argparse's own test accepts `-1` and `-0.5` but not `-8.6568e-05`, so a grasp axis printed by
  ipcgrasp could not be pasted back into `--grasp-axis` (or any option taking numbers).
- `HelpFormatter` appends an option's default to its help only when that says something: not
  for options whose default is None or False (no value: the help says what happens) and not
  when the help already says its default in words.
"""

from __future__ import annotations

import argparse
import re

NUMBER = re.compile(r"^-(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")
"""A negative number as the command line may give one: -1, -0.5, -.5, -5., -8.6568e-05."""


class Parser(argparse.ArgumentParser):
    """argparse.ArgumentParser that takes every negative number as a value (see module)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        # argparse's classification of "-<digits>" words; no ipcgrasp option looks like a
        # number, so a word that is one is always a value.
        self._negative_number_matcher = NUMBER


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Defaults in the help only where they are values the help does not already state."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        help_text = action.help or ""
        if action.default in (None, False, argparse.SUPPRESS) or "default" in help_text:
            return help_text
        return super()._get_help_string(action)
