"""``companion dungeon replay FILE``: replay a Guilds and Dungeon scenario and show the table."""
from __future__ import annotations

from companion.commands import _replay


def format_text(view: dict, result) -> str:
    lines = list(view["log"])
    lines.append("")
    for player in view["players"]:
        guild = player["guild_name"] or "no guild yet"
        state = " (out)" if player["out"] else ""
        lines.append(f"{player['name']}{state} [{guild}]: {player['hand_count']} cards in hand, rest area "
                     f"{' '.join(player['rest_area']) or '-'}, treasures {' '.join(player['treasures']) or '-'}, "
                     f"trophies {' '.join(player['trophies']) or '-'}")
    marker = view["marker"]["text"] if view["marker"] else "no doubling marker"
    lines.append(f"dungeon: {view['dungeon_count']} cards; {marker}; exile: {' '.join(view['exile']) or '-'}")
    battlefield = view["battlefield"]
    if battlefield and "enemy_power" in battlefield:
        lines.append(f"battlefield: enemy {battlefield['enemy_power']} ({battlefield['enemy_power_text']}); "
                     f"{battlefield['multiplier']['text']}; players {battlefield['players_total']}")
    status = view["result"]["text"] if view["result"] else f"phase {view['phase']}"
    lines.append(status)
    if result.error:
        lines.append(f"stopped at refused {result.error}")
    lines.extend(f"EXPECTATION FAILED: {failure}" for failure in result.failures)
    return "\n".join(lines)


def run_replay(args) -> int:
    from companion.games.dungeon import ENGINE
    from companion.games.dungeon.scenario import load, run

    return _replay.run_replay(args, ENGINE, load, run, format_text)


def register(subparsers) -> None:
    parser = subparsers.add_parser("dungeon", help="Guilds and Dungeon referee tools")
    commands = parser.add_subparsers(dest="dungeon_command", metavar="COMMAND", required=True)
    _replay.add_replay_parser(commands, help="replay a scenario file (players, options, deal, events, expect)",
                              description="Replay a Guilds and Dungeon scenario through the referee, print the "
                                          "final table and check its 'expect' block (exit status 1 when an "
                                          "expectation fails).",
                              referee_help="also show what the companion knows of each secret hand (never shown to players)",
                              handler=run_replay)
