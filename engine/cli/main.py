"""`ipcgrasp` command line: one subcommand per engine capability."""

from __future__ import annotations

import argparse
import sys

from engine.cli import analyze, batch, calibrate, evaluate, grid, simulate
from engine.errors import IpcGraspError
from engine.version import build_id


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ipcgrasp",
        description="Inspect parallel-jaw grasps with IPC simulation (SI units throughout).",
    )
    parser.add_argument("--version", action="version", version=f"ipcgrasp {build_id()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    simulate.add_parser(sub)
    calibrate.add_parser(sub)
    analyze.add_parser(sub)
    batch.add_parser(sub)
    evaluate.add_parser(sub)
    grid.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(args.run(args))
    except IpcGraspError as exc:
        # Bad input or a failed computation: the message says what to change.
        print(f"ipcgrasp {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
