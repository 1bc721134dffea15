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
from companion.commands import CommandError, error_text, read_json_file
from companion.i18n import _, current


def register(subparsers) -> None:
    parser = subparsers.add_parser("kingdoms", help=_("Kingdoms referee tools"), description=DESCRIPTION())
    commands = parser.add_subparsers(dest="kingdoms_command", metavar="SUBCOMMAND")
    parser.set_defaults(handler=lambda args: (parser.print_help(), 2)[1])
    score = commands.add_parser("score", help=_("score boards from JSON files"), description=DESCRIPTION(),
                                epilog=_("FILE may be - for standard input."))
    score.add_argument("files", nargs="+", metavar="FILE")
    score.add_argument("--rules", choices=RULE_SETS, default=None, help=_("rule set (default: the file's, else poker)"))
    score.add_argument("--format", choices=("json", "text"), default="json", dest="output_format",
                       help=_("json: one object per file per line (default); text: the board drawn and explained"))
    score.add_argument("--decks", type=int, default=None, help=_("poker decks mixed (default 2; 3 with 3 players)"))
    score.add_argument("--wizard", default=None, metavar="CARD", help=_("knizia: the card that stands for the wizard"))
    score.set_defaults(handler=score_files)
    replay = commands.add_parser("replay", help=_("replay a game scenario (setup, events, expect)"),
                                 description=_("Replay a Kingdoms scenario through the referee, print the table and "
                                               "check its 'expect' block (exit status 1 when an expectation fails)."))
    replay.add_argument("files", nargs="+", metavar="FILE")
    replay.add_argument("--format", choices=("json", "text"), default="text", dest="output_format", help=_("text (default) or json"))
    replay.set_defaults(handler=replay_files)


def score_file(path: str, rules: str | None = None, decks: int | None = None, wizard: str | None = None):
    """One file's scored board; a CommandError naming the file when it cannot be read as JSON, a ValueError
    when what it holds is no board."""
    data = read_json_file(path)
    if not isinstance(data, dict):
        raise ValueError(_('expected a JSON object with "players" and "board"'))
    for key in ("players", "board"):
        if key not in data:
            raise ValueError(_('missing "%(key)s": expected {"players": {"black": ["S", "C"], "red": ["H", "D"]}, '
                               '"board": [["AH", null, …], …]}', key=key))
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise ValueError(_('"options" must be an object'))
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
        except (CommandError, ValueError) as error:
            failed += 1
            print(_("companion: error: %(error)s", error=_file_error(path, error)), file=sys.stderr, flush=True)
            continue
        if args.output_format == "json":
            result = board.to_json()
            # the warnings in words, in the command line's language (a file a person reads)
            result["warnings"] = [current().render(warning) for warning in result["warnings"]]
            print(json.dumps({"file": path, **result}, ensure_ascii=False), flush=True)
        else:
            print(render_text(board, path, say=current().render))
            print()
    return 2 if failed else 0


def _file_error(path: str, error: BaseException) -> str:
    """One bad file's error line: a file that cannot be read says its own name; what is wrong inside one is prefixed with it."""
    return error_text(error) if isinstance(error, CommandError) else f"{path}: {error_text(error)}"


def DESCRIPTION() -> str:  # noqa: N802 (the module's description, built once the language is known)
    return _("companion kingdoms score FILE...: score Kingdoms boards from JSON files. Each file is "
             '{"players": {"black": ["S", "C"], "red": ["H", "D"]}, "board": [[code or null, …], …]} with rows top to '
             "bottom. Every file is scored even when an earlier one is bad: a bad file gives one "
             "'companion: error: FILE: …' line on stderr and no output line, and the exit status is 2 if any file was bad.")


def _replay_text(path: str, view: dict, result) -> str:
    say = current()
    totals = lambda totals: say.words(f"{n} {t}" for n, t in totals.items())   # noqa: E731
    lines = [_("%(path)s: %(count)s event(s) applied", path=path, count=result.applied)]
    for entry in view["results"]:
        lines.append(_("round %(round)s: %(totals)s", round=entry["round"], totals=totals(entry["totals"])))
        lines.extend("  " + say.clause_separator.join(say.render(line) for line in castle) for castle in entry["explanations"]["castles"])
    if view["board"]["cells"]:
        lines.append(_("round %(round)s in play, %(count)s card(s) on the grid:", round=view["round"], count=view["board"]["filled"]))
        lines.extend("  " + " ".join(f"{code or '.':>4}" for code in row) for row in view["board"]["rows"])
    supplies = say.clause_separator.join(f"{name} " + " ".join(f"X{rank}×{count}" for rank, count in supply.items())
                                         for name, supply in view["supplies"].items())
    lines.append(_("supplies: %(supplies)s", supplies=supplies))
    if view["winners"]:
        lines.append(_("totals: %(totals)s; winner(s): %(winners)s", totals=totals(view["totals"]), winners=say.words(view["winners"])))
    else:
        lines.append(_("totals: %(totals)s", totals=totals(view["totals"])))
    if result.refused:
        lines.append(_("refused event %(event)s: %(reason)s", event=result.refused["event"], reason=result.refused["message"]))
    lines.extend(_("EXPECTATION FAILED: %(failure)s", failure=failure) for failure in result.failures)
    return "\n".join(lines)


def replay_files(args) -> int:
    status = 0
    for path in args.files:
        try:
            scenario = read_json_file(path)
            result = run(scenario)
        except (CommandError, ValueError) as error:
            print(_("companion: error: %(error)s", error=_file_error(path, error)), file=sys.stderr)
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
