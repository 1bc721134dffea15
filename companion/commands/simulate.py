"""``companion simulate GAME``: self-play many games with bots and print the report."""
from __future__ import annotations

import json

from companion.simulate import SIMULATED_GAMES
from companion.i18n import _


def parse_option(text: str) -> tuple[str, object]:
    """``name=value``; the value is read as JSON when it parses (``true``, ``3``, ``"x"``), else kept as text."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise ValueError(_("an option must look like name=value, got %(given)s", given=repr(text)))
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError:
        parsed = value
    return name.strip(), parsed


def format_text(report: dict) -> str:
    lines = [_("%(game)s: %(games)s games, seed %(seed)s, %(players)s players", game=report["game"], games=report["games"],
               seed=report["seed"], players=report["players"]),
             _("options: %(options)s", options=json.dumps(report["options"], sort_keys=True)),
             _("strategies: %(strategies)s", strategies=", ".join(report["strategies"])),
             _("win rate by seat: %(rates)s", rates="  ".join(f"{seat}: {rate:.1%}" for seat, rate in enumerate(report["win_rate_by_seat"]))),
             _("win rate by strategy: %(rates)s", rates="  ".join(
                 f"{name}: {rate:.1%}" if rate is not None else f"{name}: -" for name, rate in report["win_rate_by_strategy"].items())),
             _("draws: %(draws)s", draws=report["draws"]),
             _("length (turns): %(length)s", length="  ".join(f"{key} {value}" for key, value in report["length"].items())),
             _("end reasons: %(reasons)s", reasons="  ".join(f"{reason} {count}" for reason, count in report["end_reasons"].items()))]
    for key, value in report.get("details", {}).items():
        lines.append(f"{key}: {json.dumps(value, sort_keys=True)}")
    return "\n".join(lines)


def run_simulate(args) -> int:
    from companion.simulate.runner import simulate

    options = dict(parse_option(text) for text in args.option or [])
    report = simulate(args.game, games=args.games, seed=args.seed, players=args.players, options=options,
                      strategies=args.strategy, processes=args.processes)
    if args.format == "json":
        print(json.dumps(report, indent=2, sort_keys=False))
    else:
        print(format_text(report))
    return 0


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "simulate", help=_("play many games with bots through the real rules and report win rates and lengths"),
        description=_("Self-play GAMES games of GAME with bot strategies and print an aggregate report. "
                      "The same --seed gives the same report whatever --processes is."))
    parser.add_argument("game", choices=SIMULATED_GAMES)
    parser.add_argument("--games", type=int, default=100, help=_("number of games (default 100)"))
    parser.add_argument("--seed", type=int, default=0, help=_("run seed; each game's seed derives from it (default 0)"))
    parser.add_argument("--players", type=int, default=None, help=_("players per game (default: dungeon 3, chosen 4)"))
    parser.add_argument("--option", action="append", metavar="NAME=VALUE", help=_("a rule option, repeatable"))
    parser.add_argument("--strategy", action="append", metavar="NAME",
                        help=_("bot strategy, repeatable; seats cycle through them, rotating each game (default: all)"))
    parser.add_argument("--processes", type=int, default=None, help=_("worker processes (default: all cores)"))
    parser.add_argument("--format", choices=("json", "text"), default="text")
    parser.set_defaults(handler=run_simulate)
