"""``companion dungeon replay FILE``: replay a Guilds and Dungeon scenario and show the table."""
from __future__ import annotations

from companion.commands import _replay
from companion.i18n import _, current
from companion.messages import N_

# The engine's phases in words (the JSON view keeps their names).
PHASES = {"guilds": N_("joining guilds"), "redeal_four": N_("dealing again"), "reveal": N_("revealing the dungeon's next card"),
          "friend": N_("calling a friend"), "prize": N_("negotiation and contest"), "fight": N_("combat"), "trap": N_("a trap"),
          "over": N_("game over")}


def format_text(view: dict, result) -> str:
    """The table in words, in the command line's language (the engine's messages translated)."""
    say = current().render
    cards = lambda codes: " ".join(codes) or "-"   # noqa: E731 (card codes, the same in every language)
    lines = [say(line) for line in view["log"]]
    lines.append("")
    for player in view["players"]:
        guild = say(player["guild_name"]) if player["guild_name"] else _("no guild yet")
        out = _(" (out)") if player["out"] else ""
        line = _("%(player)s [%(guild)s]: %(hand)s cards in hand, rest area %(rest)s, treasures %(treasures)s, trophies %(trophies)s",
                 player=player["name"] + out, guild=guild, hand=player["hand_count"],
                 rest=cards(player["rest_area"]), treasures=cards(player["treasures"]), trophies=cards(player["trophies"]))
        lines.append(line)
    marker = say(view["marker"]["text"]) if view["marker"] else _("no doubling marker")
    lines.append(_("dungeon: %(count)s cards; %(marker)s; exile: %(exile)s", count=view["dungeon_count"], marker=marker,
                   exile=cards(view["exile"])))
    battlefield = view["battlefield"]
    if battlefield and "enemy_power" in battlefield:
        lines.append(_("battlefield: enemy %(power)s (%(how)s); %(multiplier)s; players %(total)s", power=battlefield["enemy_power"],
                       how=say(battlefield["enemy_power_text"]), multiplier=say(battlefield["multiplier"]["text"]),
                       total=battlefield["players_total"]))
    phase = view["phase"]
    phase = _(PHASES[phase]) if phase in PHASES else phase
    lines.append(say(view["result"]["text"]) if view["result"] else _("phase %(phase)s", phase=phase))
    if result.error:
        lines.append(_("stopped at refused %(event)s", event=say(result.error_message) if result.error_message else result.error))
    lines.extend(_("EXPECTATION FAILED: %(failure)s", failure=failure) for failure in result.failures)
    return "\n".join(lines)


def run_replay(args) -> int:
    from companion.games.dungeon import ENGINE
    from companion.games.dungeon.scenario import checked, run

    return _replay.run_replay(args, ENGINE, checked, run, format_text)


def register(subparsers) -> None:
    parser = subparsers.add_parser("dungeon", help=_("Guilds and Dungeon referee tools"))
    commands = parser.add_subparsers(dest="dungeon_command", metavar="COMMAND", required=True)
    _replay.add_replay_parser(commands, help=_("replay a scenario file (players, options, deal, events, expect)"),
                              description=_("Replay a Guilds and Dungeon scenario through the referee, print the "
                                            "final table and check its 'expect' block (exit status 1 when an "
                                            "expectation fails)."),
                              referee_help=_("also show what the companion knows of each secret hand (never shown to players)"),
                              handler=run_replay)
