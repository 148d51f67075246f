"""`ipcgrasp` command line: one subcommand per engine capability."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from engine import logs
from engine.cli.commands import COMMANDS, GUI_HELP
from engine.cli.parsing import Parser
from engine.errors import IpcGraspError
from engine.version import build_id

log = logging.getLogger(__name__)


class _Version(argparse.Action):
    """`--version`: prints the build id, which is looked up (git, ~50 ms) only when asked for."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS) -> None:
        super().__init__(
            option_strings,
            dest,
            default=argparse.SUPPRESS,
            nargs=0,
            help="show the version and exit",
        )

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(f"ipcgrasp {build_id()}")
        parser.exit()


def build_parser(commands: list[str] | None = None) -> argparse.ArgumentParser:
    """The `ipcgrasp` parser with the arguments of `commands` (default: all of them).

    Commands left out are still listed (name and help) but their modules are not imported,
    so `--help` and `--version` stay instant.
    """
    parser = Parser(
        prog="ipcgrasp",
        description="Inspect parallel-jaw grasps with IPC simulation (SI units throughout).",
    )
    parser.add_argument("--version", action=_Version)
    parser.add_argument(
        "--log-level",
        choices=logs.LEVELS,
        default="warning",
        help="what the engine logs to stderr (info: one line per trial and task)",
    )
    parser.add_argument("--log-file", help="also append the log to this file")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # `ipcgrasp gui` is the console script's (app.launcher): listed here, run there.
    sub.add_parser("gui", help=GUI_HELP, add_help=False)
    wanted = list(COMMANDS) if commands is None else commands
    for name, (module, help_text) in COMMANDS.items():
        if name in wanted:
            importlib.import_module(module).add_parser(sub)
        else:
            sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # Only the commands named on the line are imported (a name may also be an option's value:
    # importing one command too many is harmless).
    parser = build_parser([word for word in argv if word in COMMANDS])
    args = parser.parse_args(argv)
    logs.configure(args.log_level, args.log_file)
    if args.command is None:
        parser.print_help()
        return 0
    if args.command == "gui":  # reached only without the console script (python -m engine...)
        print(
            "ipcgrasp gui: the desktop app starts from the `ipcgrasp` command or "
            "`python -m ipcgrasp gui`, not from engine.cli.main",
            file=sys.stderr,
        )
        return 2
    try:
        return int(args.run(args))
    except IpcGraspError as exc:
        # Bad input or a failed computation: the message says what to change.
        log.debug("ipcgrasp %s failed", args.command, exc_info=True)
        print(f"ipcgrasp {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Ctrl+C where the command did not say more itself (loading, checks, compiling): its
        # writers leave no half-written file, so one line is all there is to say.
        log.debug("ipcgrasp %s interrupted", args.command, exc_info=True)
        print(f"ipcgrasp {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
