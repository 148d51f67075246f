"""The `ipcgrasp` parser as the command-line page shows it (sphinx-argparse reads it here).

It is engine.cli.main.build_parser's parser with every command's arguments, unchanged except
that its help texts, written as plain text for the terminal, are escaped for reStructuredText
(a `|Psi1 - Psi2|` would otherwise be read as a substitution) and their `code` spans shown as
literals.
"""

from __future__ import annotations

import argparse
import re

from engine.cli.main import build_parser

_RST_SPECIAL = str.maketrans({"|": r"\|", "*": r"\*", "_": r"\_", "\\": r"\\"})
_CODE = re.compile(r"`([^`]+)`")


def _escape(text: str | None) -> str | None:
    """Plain text as reST: `code` spans become literals, everything else is escaped."""
    if text is None or text is argparse.SUPPRESS:
        return text
    parts = _CODE.split(text)  # even: plain text, odd: code
    return "".join(
        part.translate(_RST_SPECIAL) if i % 2 == 0 else f"``{part}``"
        for i, part in enumerate(parts)
    )


def _escape_parser(parser: argparse.ArgumentParser) -> None:
    parser.description = _escape(parser.description)
    parser.epilog = _escape(parser.epilog)
    for action in parser._actions:
        if action.help is not argparse.SUPPRESS:
            action.help = _escape(action.help)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                choice.help = _escape(choice.help)
            for sub in action.choices.values():
                _escape_parser(sub)


def parser() -> argparse.ArgumentParser:
    """Every `ipcgrasp` command with its arguments, help texts escaped for reST."""
    p = build_parser()
    _escape_parser(p)
    return p
