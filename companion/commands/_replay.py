"""The ``replay FILE`` sub-command shared by the games whose scenarios replay one file at a time
(``companion chosen replay``, ``companion dungeon replay``): the parser with its common flags and the
handler that reads (:func:`companion.commands.read_json_file`), replays, prints and sets the exit status.
Each game supplies its engine, its scenario ``checked``/``run`` and its own text layout.

Not a command module of its own: :func:`companion.cli.build_parser` skips modules whose name starts
with ``_``.
"""
from __future__ import annotations

import json
from typing import Any, Callable

from companion.commands import read_json_file
from companion.i18n import _


def add_replay_parser(commands, *, help: str, description: str, referee_help: str,
                      handler: Callable[[Any], int]):
    """Adds ``replay FILE [--format json|text] [--referee]`` to a game's sub-commands."""
    replay = commands.add_parser("replay", help=help, description=description)
    replay.add_argument("file")
    replay.add_argument("--format", choices=("json", "text"), default="text", help=_("text (default) or json"))
    replay.add_argument("--referee", action="store_true", help=referee_help)
    replay.set_defaults(handler=handler)
    return replay


def run_replay(args, engine, checked: Callable[[Any, str], dict], run: Callable,
               format_text: Callable[[dict, Any], str]) -> int:
    """Replays ``args.file``, prints the public (or, with ``--referee``, the referee) view as JSON or
    text, and returns 1 when an expectation failed, else 0. ``checked(data, path)``: the game's scenario from
    the file's JSON. A file that cannot be read as JSON is a CommandError naming it and what is wrong."""
    scenario = checked(read_json_file(args.file), args.file)
    result = run(scenario)
    view = engine.referee_view(result.state) if args.referee else engine.view(result.state)
    if args.format == "json":
        print(json.dumps({"scenario": scenario.get("name"), "applied": result.applied, "refused": result.error,
                          "expectations_failed": result.failures, "view": view}, indent=2, ensure_ascii=False))
    else:
        print(format_text(view, result))
    return 1 if result.failures else 0
