"""Phases ``reveal`` and ``friend``: the dungeon's next card starts an encounter; a low enemy calls a friend.
"""
from __future__ import annotations


from companion.games.base import IllegalEvent
from companion.games.dungeon.rules import (MERCENARY, SCROLL, TRAP, TREASURE,
                                           kind, level, power)
from companion.games.dungeon.rules import card_name
from companion.games.dungeon.operations import Reveal
from companion.games.dungeon.game import _Game, _calls_friend, _enemy_power, _need_phase
from companion.messages import Message


def _reveal(g: _Game, op: Reveal) -> None:
    _need_phase(g, "reveal", "friend")
    if g.work["phase"] == "friend":
        _reveal_friend(g, op)
        return
    if op.player is not None and g.player(op.player) != g.work["turn"]:
        raise IllegalEvent(Message("it is %(player)s's turn to reveal", player=g.name(g.work['turn'])))
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
            g.say(Message("The %(marker)s marker is cleared by a non-enemy reveal (marker_cleared_by_non_enemy) and exiled.",
                          marker=card_name(marker)))
        elif marker:
            g.say(Message('The %(marker)s marker keeps waiting for the next enemy.', marker=card_name(marker)))
    if what in (TREASURE, SCROLL):
        g.work["phase"] = "prize"
        label = (Message("a treasure of level %(level)s", level=level(card)) if what == TREASURE
                 else Message("a magic scroll (it counts as a treasure)"))
        g.say(Message("%(player)s reveals %(card)s: %(label)s. Agree who takes it (assign) or contest it (commit).",
                      player=g.name(revealer), card=card_name(card), label=label))
    elif what == TRAP:
        enc["trap"] = {"card": card, "calls": {}, "drawn": [], "from_friend": False}
        g.work["phase"] = "trap"
        g.say(Message("%(player)s reveals a trap (%(card)s): everyone calls odd or even, then draws from their left neighbour.",
                      player=g.name(revealer), card=card_name(card)))
    else:
        printed = power(card)
        g.say(Message('%(player)s reveals the enemy %(card)s (level %(printed)s).', player=g.name(revealer), card=card_name(card), printed=printed))
        if marker:
            g.work["marker"] = None
            g.to_exile(marker)
            if printed > 3 or g.options.low_enemy_multiplied:
                enc["multiplier"] = power(marker)
                enc["multiplied_by"] = marker
                g.say(Message("The %(card)s fights at %(number)s: it was multiplied by the %(marker)s marker, which is now exiled.",
                              card=card_name(card), number=printed * power(marker), marker=card_name(marker)))
            else:
                g.say(Message("The %(marker)s marker is replaced without multiplying (low_enemy_multiplied off) and exiled.",
                              marker=card_name(marker)))
        if _calls_friend(card):
            _start_friend_call(g, card)
        else:
            g.work["phase"] = "fight"
            g.say(Message("Everyone commits exactly one mercenary."))


def _start_friend_call(g: _Game, caller: str) -> None:
    if g.work["dungeon_count"] > 0:
        g.enc["friend_reveals_left"] += 1
        g.work["phase"] = "friend"
        g.say(Message('The %(caller)s calls a friend: reveal one more card.', caller=card_name(caller)))
    else:
        g.work["phase"] = "fight"
        g.say(Message('The %(caller)s calls a friend, but the dungeon is empty. Everyone commits exactly one mercenary.', caller=card_name(caller)))


def _after_friend(g: _Game) -> None:
    if g.enc["friend_reveals_left"] > 0 and g.work["dungeon_count"] > 0:
        g.work["phase"] = "friend"
    else:
        g.enc["friend_reveals_left"] = 0
        g.work["phase"] = "fight"
        power, text = _enemy_power(g)
        g.say(Message('The players face %(power)s (%(text)s). Everyone commits exactly one mercenary.', power=power, text=text))


def _reveal_friend(g: _Game, op: Reveal) -> None:
    enc = g.enc
    card = g.take_top(op.card)
    enc["friend_reveals_left"] -= 1
    what = kind(card)
    if what in (TREASURE, SCROLL):
        enc["extra_prizes"].append(card)
        g.say(Message('The friend is %(card)s: an extra prize for the player who contributes most against the caller.', card=card_name(card)))
    elif what == TRAP:
        enc["trap"] = {"card": card, "calls": {}, "drawn": [], "from_friend": True}
        g.work["phase"] = "trap"
        g.say(Message("The friend is a trap (%(card)s): resolved at once (everyone calls odd or even, then draws from their left neighbour); "
                      "then the fight goes on against the caller alone.",
                      card=card_name(card)))
        return
    else:
        enc["friends"].append(card)
        times = f" × {enc['multiplier']}" if g.options.friend_multiplied and enc["multiplier"] > 1 else ""   # a formula, the same in every language
        g.say(Message('The friend %(card)s (level %(level)s%(times)s) joins the fight.', card=card_name(card), level=level(card), times=times))
        if g.options.friend_calls_friend and _calls_friend(card):
            _start_friend_call(g, card)
            if g.work["phase"] == "friend":
                return
    _after_friend(g)
