"""``companion simulate GAME``: self-play many games with bots and print the report."""
from __future__ import annotations

import json

from companion.simulate import SIMULATED_GAMES
from companion.i18n import _, current
from companion.messages import N_

# The words of a report's text form, by its JSON keys (docs/simulator.md names each figure); the JSON
# keeps the keys as they are.
LENGTH_WORDS = {"mean": N_("mean"), "median": N_("median"), "p90": N_("90th percentile"), "max": N_("maximum")}
END_REASONS = {"all_out": N_("everyone out"), "dungeon_empty": N_("dungeon empty"), "last_player": N_("last player left"),
               "trophies": N_("trophies"), "stalled": N_("stalled (no move)"), "target_reached": N_("score reached"),
               "turn_limit": N_("turn limit")}
DETAIL_WORDS = {
    # Guilds and Dungeon (companion/simulate/dungeon.py)
    "fights": N_("fights"), "fights_per_game": N_("fights per game"), "enemy_power": N_("enemy power"),
    "histogram": N_("histogram"), "table_cannot_win_share": N_("fights the table could not win"),
    "fights_won_share": N_("fights won"), "multiplied_fights": N_("multiplied fights"), "count": N_("count"),
    "won_share": N_("won"), "power_27_or_more": N_("enemies of power 27 or more"), "per_game": N_("per game"),
    "games_with_one": N_("games with one"), "beaten_share": N_("beaten"), "winnable_share": N_("winnable"),
    "three_then_nine": N_("a 3 marker, then a 9"), "beaten": N_("beaten"), "win_rate_by_guild": N_("win rate by guild"),
    "seats_by_guild": N_("seats by guild"), "win_rate_by_hand_strength_rank": N_("win rate by starting hand's rank"),
    "win_rate_by_hand_strength_band": N_("win rate by starting hand's strength"),
    "mean_treasures_won": N_("treasures won per game"),
    # The Chosen (companion/simulate/chosen.py)
    "verdicts_per_game": N_("verdicts per game"), "vault_pass_rate": N_("chosen passing the vault"),
    "shot_radiation_on_chosen": N_("chosen shot for radiation"), "shot_not_enough_medicine": N_("chosen shot for too little medicine"),
    "chips_per_passing_chosen": N_("chips per chosen passing"), "reshuffles_per_game": N_("reshuffles per game"),
    "decks": N_("decks"),
    **LENGTH_WORDS,
}


def _word(key: str) -> str:
    return _(DETAIL_WORDS[key]) if key in DETAIL_WORDS else key


def _share(key: str) -> bool:
    """Figures that are shares of a whole, shown as percentages."""
    return key.endswith(("_share", "_rate")) or key.startswith("win_rate") or key == "games_with_one"


def _value(key: str, value, parent: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, dict):
        return "  ".join(f"{_item_key(key, k)} {_value(k, v, key)}" for k, v in value.items())
    if isinstance(value, list):
        return current().words(value)
    if isinstance(value, float) and (_share(key) or _share(parent)):
        return f"{value:.1%}"
    return str(value)


def _item_key(key: str, item: str) -> str:
    if key in ("win_rate_by_guild", "seats_by_guild"):
        from companion.games.dungeon.rules import GUILD_NAMES

        return current().render(GUILD_NAMES[item]) + ":" if item in GUILD_NAMES else f"{item}:"
    if key in ("histogram", "win_rate_by_hand_strength_rank", "win_rate_by_hand_strength_band"):
        return f"{item.replace('<=', '≤').replace('>=', '≥')}:"
    return _word(item)


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
             _("length (turns): %(length)s", length="  ".join(f"{_word(key)} {value}" for key, value in report["length"].items())),
             _("end reasons: %(reasons)s", reasons="  ".join(f"{_(END_REASONS[reason]) if reason in END_REASONS else reason} {count}"
                                                             for reason, count in report["end_reasons"].items()))]
    for key, value in report.get("details", {}).items():
        lines.append(_("%(figure)s: %(value)s", figure=_word(key), value=_value(key, value)))
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
