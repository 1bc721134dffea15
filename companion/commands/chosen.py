"""``companion chosen replay FILE``: replay a The Chosen scenario and show the table."""
from __future__ import annotations

from companion.commands import _replay
from companion.i18n import _, current
from companion.messages import N_

# The engine's phases in words (the JSON view keeps their names).
PHASES = {"turn": N_("a player's turn"), "reveal": N_("turning chips at the vault"), "over": N_("game over")}


def format_text(view: dict, result) -> str:
    """The table in words, in the command line's language (the engine's messages translated)."""
    say = current().render
    zones = {"departure": _("departure"), "step 1": _("step 1"), "step 2": _("step 2"), "vault": _("vault")}
    lines = [say(line) for line in view["log"]]
    lines.append("")
    for player in view["players"]:
        team = f" [{player['team']}]" if player["team"] else ""
        lines.append(_("%(player)s: score %(score)s, %(hand)s cards in hand, %(chips)s chips waiting", player=player["name"] + team,
                       score=player["score"], hand=player["hand_size"], chips=len(player["chips"])))
    for chosen in view["mat"]:
        lines.append(_("chosen #%(id)s (%(card)s, %(owner)s) at %(zone)s: %(chips)s chips, %(medicine)s medicine, %(radiation)s radiation",
                       id=chosen["id"], card=chosen["card"], owner=chosen["owner"], zone=zones.get(chosen["zone"], chosen["zone"]),
                       chips=len(chosen["chips"]), medicine=len(chosen["medicine"]), radiation=len(chosen["radiation"])))
    phase = view["phase"]
    phase = _(PHASES[phase]) if phase in PHASES else phase
    status = phase if not view["winners"] else _("over, won by %(players)s", players=current().words(view["winners"]))
    lines.append(_("phase: %(status)s; draw pile %(draw)s, discard pile %(discard)s", status=status, draw=view["draw_pile"],
                   discard=view["discard_pile"]))
    if result.error:
        lines.append(_("stopped at refused %(event)s", event=current().render(result.error_message) if result.error_message else result.error))
    lines.extend(_("EXPECTATION FAILED: %(failure)s", failure=failure) for failure in result.failures)
    return "\n".join(lines)


def run_replay(args) -> int:
    from companion.games.chosen import ENGINE
    from companion.games.chosen.scenario import checked, run

    return _replay.run_replay(args, ENGINE, checked, run, format_text)


def register(subparsers) -> None:
    parser = subparsers.add_parser("chosen", help=_("The Chosen referee tools"))
    commands = parser.add_subparsers(dest="chosen_command", metavar="COMMAND", required=True)
    _replay.add_replay_parser(commands, help=_("replay a scenario file (setup + events + expectations)"),
                              description=_("Replay a The Chosen scenario through the referee, print the final table "
                                            "and check its 'expect' block (exit status 1 when an expectation fails)."),
                              referee_help=_("show the referee view, hidden faces included (never show it to players)"),
                              handler=run_replay)
