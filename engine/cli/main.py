"""`ipcgrasp` command line: one subcommand per engine capability."""

from __future__ import annotations

import argparse
import logging
import sys

from engine import logs
from engine.cli import analyze, batch, calibrate, evaluate, grid, sample, simulate
from engine.errors import IpcGraspError
from engine.version import build_id

log = logging.getLogger(__name__)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ipcgrasp",
        description="Inspect parallel-jaw grasps with IPC simulation (SI units throughout).",
    )
    parser.add_argument("--version", action="version", version=f"ipcgrasp {build_id()}")
    parser.add_argument(
        "--log-level",
        choices=logs.LEVELS,
        default="warning",
        help="what the engine logs to stderr (info: one line per trial and task)",
    )
    parser.add_argument("--log-file", help="also append the log to this file")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    simulate.add_parser(sub)
    calibrate.add_parser(sub)
    analyze.add_parser(sub)
    batch.add_parser(sub)
    evaluate.add_parser(sub)
    grid.add_parser(sub)
    sample.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logs.configure(args.log_level, args.log_file)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(args.run(args))
    except IpcGraspError as exc:
        # Bad input or a failed computation: the message says what to change.
        log.debug("ipcgrasp %s failed", args.command, exc_info=True)
        print(f"ipcgrasp {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
