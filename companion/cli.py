"""The ``companion`` command line.

Each module in :mod:`companion.commands` adds its own sub-commands through a
``register(subparsers)`` function, so a new command is a new file there and nothing else
(modules whose name starts with ``_`` are helpers the commands share, and are skipped).
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

import companion
import companion.commands
from companion.commands import CommandError

__all__ = ["CommandError", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description=companion.__doc__)
    parser.add_argument("--version", action="version", version=f"companion {companion.__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_info in sorted(pkgutil.iter_modules(companion.commands.__path__), key=lambda m: m.name):
        if module_info.name.startswith("_"):  # shared helpers, not commands
            continue
        module = importlib.import_module(f"companion.commands.{module_info.name}")
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error of ours.
        return 0
    except (CommandError, ValueError, OSError) as error:
        # ValueError covers the library's own errors (bad cards, illegal events, bad files).
        print(f"companion: error: {error}", file=sys.stderr)
        return 2
