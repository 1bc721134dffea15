"""``companion chosen replay FILE``: replay a The Chosen scenario and show the table."""
from __future__ import annotations

import json

from companion.cli import CommandError


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

    try:
        scenario = load(args.file)
    except FileNotFoundError:
        raise CommandError(f"no such scenario file: {args.file}") from None
    result = run(scenario)
    view = ENGINE.referee_view(result.state) if args.referee else ENGINE.view(result.state)
    if args.format == "json":
        print(json.dumps({"scenario": scenario.get("name"), "applied": result.applied, "refused": result.error,
                          "expectations_failed": result.failures, "view": view}, indent=2, ensure_ascii=False))
    else:
        print(format_text(view, result))
    return 1 if result.failures else 0


def register(subparsers) -> None:
    parser = subparsers.add_parser("chosen", help="The Chosen referee tools")
    commands = parser.add_subparsers(dest="chosen_command", metavar="COMMAND", required=True)
    replay = commands.add_parser("replay", help="replay a scenario file (setup + events + expectations)",
                                 description="Replay a The Chosen scenario through the referee, print the final table "
                                             "and check its 'expect' block (exit status 1 when an expectation fails).")
    replay.add_argument("file")
    replay.add_argument("--format", choices=("json", "text"), default="text")
    replay.add_argument("--referee", action="store_true",
                        help="show the referee view, hidden faces included (never show it to players)")
    replay.set_defaults(handler=run_replay)
