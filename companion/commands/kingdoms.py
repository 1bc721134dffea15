"""``companion kingdoms score FILE...``: score Kingdoms boards from JSON files.

Each file is ``{"players": {"black": ["S", "C"], "red": ["H", "D"]}, "board": [[code or null, …], …]}``
with rows top to bottom. Every file is scored even when an earlier one is bad: a bad file gives
one ``companion: error: FILE: …`` line on stderr and no output line, and the exit status is 2
if any file was bad.
"""
from __future__ import annotations

import json
import sys

from companion.games.kingdoms import ENGINE, render_text, score_rows
from companion.games.kingdoms.scenario import run
from companion.games.kingdoms.options import RULE_SETS


def register(subparsers) -> None:
    parser = subparsers.add_parser("kingdoms", help="Kingdoms referee tools", description=__doc__)
    commands = parser.add_subparsers(dest="kingdoms_command", metavar="SUBCOMMAND")
    parser.set_defaults(handler=lambda args: (parser.print_help(), 2)[1])
    score = commands.add_parser("score", help="score boards from JSON files", description=__doc__,
                                epilog="FILE may be - for standard input.")
    score.add_argument("files", nargs="+", metavar="FILE")
    score.add_argument("--rules", choices=RULE_SETS, default=None, help="rule set (default: the file's, else poker)")
    score.add_argument("--format", choices=("json", "text"), default="json", dest="output_format",
                       help="json: one object per file per line (default); text: the board drawn and explained")
    score.add_argument("--decks", type=int, default=None, help="poker decks mixed (default 2; 3 with 3 players)")
    score.add_argument("--wizard", default=None, metavar="CARD", help="knizia: the card that stands for the wizard")
    score.set_defaults(handler=score_files)
    replay = commands.add_parser("replay", help="replay a game scenario (setup, events, expect)",
                                 description="Replay a Kingdoms scenario through the referee, print the table and "
                                             "check its 'expect' block (exit status 1 when an expectation fails).")
    replay.add_argument("files", nargs="+", metavar="FILE")
    replay.add_argument("--format", choices=("json", "text"), default="text", dest="output_format")
    replay.set_defaults(handler=replay_files)


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def score_file(path: str, rules: str | None = None, decks: int | None = None, wizard: str | None = None):
    """One file's scored board; ValueError/OSError with a readable message when the file is bad."""
    try:
        data = json.loads(_read(path))
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    except UnicodeDecodeError:
        raise ValueError("not a UTF-8 text file") from None
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object with \"players\" and \"board\"")
    for key in ("players", "board"):
        if key not in data:
            raise ValueError(f"missing \"{key}\": expected {{\"players\": {{\"black\": [\"S\", \"C\"], "
                             f"\"red\": [\"H\", \"D\"]}}, \"board\": [[\"AH\", null, …], …]}}")
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise ValueError("\"options\" must be an object")
    options = dict(options)
    for name, value in (("rules", rules), ("decks", decks), ("wizard", wizard)):
        if value is not None:
            options[name] = value
    return score_rows(data["board"], data["players"], options)


def score_files(args) -> int:
    failed = 0
    for path in args.files:
        try:
            board = score_file(path, args.rules, args.decks, args.wizard)
        except (ValueError, OSError) as error:
            failed += 1
            reason = error.strerror if isinstance(error, OSError) and error.strerror else error
            print(f"companion: error: {path}: {reason}", file=sys.stderr, flush=True)
            continue
        if args.output_format == "json":
            print(json.dumps({"file": path, **board.to_json()}, ensure_ascii=False), flush=True)
        else:
            print(render_text(board, path))
            print()
    return 2 if failed else 0


def _replay_text(path: str, view: dict, result) -> str:
    lines = [f"{path}: {result.applied} event(s) applied"]
    for entry in view["results"]:
        lines.append(f"round {entry['round']}: " + ", ".join(f"{n} {t}" for n, t in entry["totals"].items()))
        lines.extend(f"  {text}" for text in entry["explanations"]["castles"])
    if view["board"]["cells"]:
        lines.append(f"round {view['round']} in play, {view['board']['filled']} card(s) on the grid:")
        lines.extend("  " + " ".join(f"{code or '.':>4}" for code in row) for row in view["board"]["rows"])
    lines.append("supplies: " + "; ".join(f"{name} " + " ".join(f"r{rank}×{count}" for rank, count in supply.items())
                                          for name, supply in view["supplies"].items()))
    lines.append("totals: " + ", ".join(f"{n} {t}" for n, t in view["totals"].items())
                 + (f"; winner(s): {', '.join(view['winners'])}" if view["winners"] else ""))
    if result.refused:
        lines.append(f"refused event {result.refused['event']}: {result.refused['message']}")
    lines.extend(f"EXPECTATION FAILED: {failure}" for failure in result.failures)
    return "\n".join(lines)


def replay_files(args) -> int:
    status = 0
    for path in args.files:
        try:
            scenario = json.loads(_read(path))
            result = run(scenario)
        except json.JSONDecodeError as error:
            print(f"companion: error: {path}: not JSON ({error.msg} at line {error.lineno})", file=sys.stderr)
            status = 2
            continue
        except (ValueError, OSError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else error
            print(f"companion: error: {path}: {reason}", file=sys.stderr)
            status = 2
            continue
        view = ENGINE.view(result.state)
        if args.output_format == "json":
            print(json.dumps({"file": path, "scenario": scenario.get("name"), "applied": result.applied,
                              "refused": result.refused, "expectations_failed": list(result.failures), "view": view},
                             ensure_ascii=False))
        else:
            print(_replay_text(path, view, result))
            print()
        if result.failures and status == 0:
            status = 1
    return status
