"""Phases ``reveal`` and ``friend``: the dungeon's next card starts an encounter; a low enemy calls a friend.
"""
from __future__ import annotations


from companion.games.base import IllegalEvent
from companion.games.dungeon.rules import (MERCENARY, SCROLL, TRAP, TREASURE,
                                           kind, level, power, pretty)
from companion.games.dungeon.operations import Reveal
from companion.games.dungeon.game import _Game, _calls_friend, _enemy_power, _need_phase


def _reveal(g: _Game, op: Reveal) -> None:
    _need_phase(g, "reveal", "friend")
    if g.work["phase"] == "friend":
        _reveal_friend(g, op)
        return
    if op.player is not None and g.player(op.player) != g.work["turn"]:
        raise IllegalEvent(f"it is {g.name(g.work['turn'])}'s turn to reveal")
    card = g.take_top(op.card)
    revealer = g.work["turn"]
    what = kind(card)
    g.work["encounter"] = {
        "revealer": revealer, "card": card, "kind": what, "multiplier": 1, "multiplied_by": None,
        "friends": [], "extra_prizes": [], "commits": [], "contenders": g.clockwise_from(revealer), "round": 1,
        "passed": [], "entered": [], "negotiable": True, "trap": None, "hand_trap": None, "friend_reveals_left": 0,
        "primary_destroyed": False, "card_gone": False,
    }
    enc = g.enc
    marker = g.work["marker"]
    if what != MERCENARY:
        if marker and g.options.marker_cleared_by_non_enemy:
            g.work["marker"] = None
            g.to_exile(marker)
            g.say(f"The {pretty(marker)} marker is cleared by a non-enemy reveal (marker_cleared_by_non_enemy) and exiled.")
        elif marker:
            g.say(f"The {pretty(marker)} marker keeps waiting for the next enemy.")
    if what in (TREASURE, SCROLL):
        g.work["phase"] = "prize"
        label = f"a treasure of level {level(card)}" if what == TREASURE else "a magic scroll (it counts as a treasure)"
        g.say(f"{g.name(revealer)} reveals {pretty(card)}: {label}. Agree who takes it (assign) or contest it (commit).")
    elif what == TRAP:
        enc["trap"] = {"card": card, "calls": {}, "drawn": [], "from_friend": False}
        g.work["phase"] = "trap"
        g.say(f"{g.name(revealer)} reveals a trap ({pretty(card)}): everyone calls odd or even, then draws from "
              "their left neighbour.")
    else:
        printed = power(card)
        g.say(f"{g.name(revealer)} reveals the enemy {pretty(card)} (level {printed}).")
        if marker:
            g.work["marker"] = None
            g.to_exile(marker)
            if printed > 3 or g.options.low_enemy_multiplied:
                enc["multiplier"] = power(marker)
                enc["multiplied_by"] = marker
                g.say(f"The {pretty(card)} fights at {printed * power(marker)}: it was multiplied by the "
                      f"{pretty(marker)} marker, which is now exiled.")
            else:
                g.say(f"The {pretty(marker)} marker is replaced without multiplying (low_enemy_multiplied off) and exiled.")
        if _calls_friend(card):
            _start_friend_call(g, card)
        else:
            g.work["phase"] = "fight"
            g.say("Everyone commits exactly one mercenary.")


def _start_friend_call(g: _Game, caller: str) -> None:
    if g.work["dungeon_count"] > 0:
        g.enc["friend_reveals_left"] += 1
        g.work["phase"] = "friend"
        g.say(f"The {pretty(caller)} calls a friend: reveal one more card.")
    else:
        g.work["phase"] = "fight"
        g.say(f"The {pretty(caller)} calls a friend, but the dungeon is empty. Everyone commits exactly one mercenary.")


def _after_friend(g: _Game) -> None:
    if g.enc["friend_reveals_left"] > 0 and g.work["dungeon_count"] > 0:
        g.work["phase"] = "friend"
    else:
        g.enc["friend_reveals_left"] = 0
        g.work["phase"] = "fight"
        power, text = _enemy_power(g)
        g.say(f"The players face {power} ({text}). Everyone commits exactly one mercenary.")


def _reveal_friend(g: _Game, op: Reveal) -> None:
    enc = g.enc
    card = g.take_top(op.card)
    enc["friend_reveals_left"] -= 1
    what = kind(card)
    if what in (TREASURE, SCROLL):
        enc["extra_prizes"].append(card)
        g.say(f"The friend is {pretty(card)}: an extra prize for the player who contributes most against the caller.")
    elif what == TRAP:
        enc["trap"] = {"card": card, "calls": {}, "drawn": [], "from_friend": True}
        g.work["phase"] = "trap"
        g.say(f"The friend is a trap ({pretty(card)}): resolved at once (everyone calls odd or even, then draws "
              "from their left neighbour); then the fight goes on against the caller alone.")
        return
    else:
        enc["friends"].append(card)
        times = f" × {enc['multiplier']}" if g.options.friend_multiplied and enc["multiplier"] > 1 else ""
        g.say(f"The friend {pretty(card)} (level {level(card)}{times}) joins the fight.")
        if g.options.friend_calls_friend and _calls_friend(card):
            _start_friend_call(g, card)
            if g.work["phase"] == "friend":
                return
    _after_friend(g)
