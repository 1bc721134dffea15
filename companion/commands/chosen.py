"""``companion chosen replay FILE``: replay a The Chosen scenario and show the table."""
from __future__ import annotations

from companion.commands import _replay


def format_text(view: dict, result) -> str:
    lines = list(view["log"])
    lines.append("")
    for player in view["players"]:
        team = f" [{player['team']}]" if player["team"] else ""
        lines.append(f"{player['name']}{team}: score {player['score']}, {player['hand_size']} cards in hand, "
                     f"{len(player['chips'])} chips waiting")
    for chosen in view["mat"]:
        lines.append(f"chosen #{chosen['id']} ({chosen['card']}, {chosen['owner']}) at {chosen['zone']}: "
                     f"{len(chosen['chips'])} chips, {len(chosen['medicine'])} medicine, {len(chosen['radiation'])} radiation")
    status = view["phase"] if not view["winners"] else f"over, won by {' and '.join(view['winners'])}"
    lines.append(f"phase: {status}; draw pile {view['draw_pile']}, discard pile {view['discard_pile']}")
    if result.error:
        lines.append(f"stopped at refused {result.error}")
    lines.extend(f"EXPECTATION FAILED: {failure}" for failure in result.failures)
    return "\n".join(lines)


def run_replay(args) -> int:
    from companion.games.chosen import ENGINE
    from companion.games.chosen.scenario import load, run

    return _replay.run_replay(args, ENGINE, load, run, format_text)


def register(subparsers) -> None:
    parser = subparsers.add_parser("chosen", help="The Chosen referee tools")
    commands = parser.add_subparsers(dest="chosen_command", metavar="COMMAND", required=True)
    _replay.add_replay_parser(commands, help="replay a scenario file (setup + events + expectations)",
                              description="Replay a The Chosen scenario through the referee, print the final table "
                                          "and check its 'expect' block (exit status 1 when an expectation fails).",
                              referee_help="show the referee view, hidden faces included (never show it to players)",
                              handler=run_replay)
