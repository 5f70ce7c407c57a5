"""Command-line entry point for ancath-bot (stub)."""

from __future__ import annotations

import argparse
import sys

NOT_IMPLEMENTED = "ancath-bot: not implemented yet"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ancath-bot",
        description="IRC referee bot for An Cath percentile-dice duels.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    sub.add_parser("run", help="connect to IRC (or a local console channel) and referee fights")
    sub.add_parser("console", help="referee fights in a local console channel")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in ("run", "console"):
        print(NOT_IMPLEMENTED, file=sys.stderr)
        return 1
    parser.error(f"unknown command: {args.command}")  # pragma: no cover


if __name__ == "__main__":
    raise SystemExit(main())
