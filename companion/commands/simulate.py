"""``companion simulate GAME``: self-play many games with bots and print the report."""
from __future__ import annotations

import json

from companion.simulate import SIMULATED_GAMES


def parse_option(text: str) -> tuple[str, object]:
    """``name=value``; the value is read as JSON when it parses (``true``, ``3``, ``"x"``), else kept as text."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise ValueError(f"an option must look like name=value, got {text!r}")
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError:
        parsed = value
    return name.strip(), parsed


def format_text(report: dict) -> str:
    lines = [f"{report['game']}: {report['games']} games, seed {report['seed']}, {report['players']} players",
             f"options: {json.dumps(report['options'], sort_keys=True)}",
             f"strategies: {', '.join(report['strategies'])}",
             "win rate by seat: " + "  ".join(f"{seat}: {rate:.1%}" for seat, rate in enumerate(report["win_rate_by_seat"])),
             "win rate by strategy: " + "  ".join(
                 f"{name}: {rate:.1%}" if rate is not None else f"{name}: -" for name, rate in report["win_rate_by_strategy"].items()),
             f"draws: {report['draws']}",
             "length (turns): " + "  ".join(f"{key} {value}" for key, value in report["length"].items()),
             "end reasons: " + "  ".join(f"{reason} {count}" for reason, count in report["end_reasons"].items())]
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
        "simulate", help="play many games with bots through the real rules and report win rates and lengths",
        description="Self-play GAMES games of GAME with bot strategies and print an aggregate report. "
                    "The same --seed gives the same report whatever --processes is.")
    parser.add_argument("game", choices=SIMULATED_GAMES)
    parser.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="run seed; each game's seed derives from it (default 0)")
    parser.add_argument("--players", type=int, default=None, help="players per game (default: dungeon 3, chosen 4)")
    parser.add_argument("--option", action="append", metavar="NAME=VALUE", help="a rule option, repeatable")
    parser.add_argument("--strategy", action="append", metavar="NAME",
                        help="bot strategy, repeatable; seats cycle through them, rotating each game (default: all)")
    parser.add_argument("--processes", type=int, default=None, help="worker processes (default: all cores)")
    parser.add_argument("--format", choices=("json", "text"), default="text")
    parser.set_defaults(handler=run_simulate)
