"""Events allowed in any phase: a trade between players and the referee's hand-size correction.
"""
from __future__ import annotations

from typing import Any

from companion.games.base import IllegalEvent
from companion.games.dungeon.rules import (pretty)
from companion.games.dungeon.operations import CorrectHandSize, Trade
from companion.games.dungeon.game import _Game


def _trade(g: _Game, op: Trade) -> None:
    if g.work["phase"] == "over":
        raise IllegalEvent("the game is over")
    a, b = g.active_player(op.a, "a"), g.active_player(op.b, "b")
    if a == b:
        raise IllegalEvent("a trade needs two different players")
    gives: dict[int, list[str] | int] = {}
    for p, key, raw in ((a, "a_gives", op.a_gives), (b, "b_gives", op.b_gives)):
        if isinstance(raw, list):
            named = gives[p] = [g.card(c, "c") for c in raw]
            if len(set(named)) != len(named):
                raise IllegalEvent(f"{key!r} names a card twice")
        elif isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0:
            gives[p] = raw
        else:
            raise IllegalEvent(f"{key!r} must be a list of cards or a number of unnamed cards")
    sizes = {p: (len(v) if isinstance(v, list) else v) for p, v in gives.items()}
    if sizes[a] == 0 and sizes[b] == 0:
        raise IllegalEvent("a trade moves at least one card")
    moved: dict[int, list[str]] = {}
    for p, given in gives.items():
        if isinstance(given, list):
            for card in given:
                g.take_from_hand(p, card)
            moved[p] = given
        else:
            if g.unknown_part(p) - g.facedown_count(p) < given:
                g.forget_hand(p)
            if g.players[p]["hand_count"] < given:
                raise IllegalEvent(f"{g.name(p)} has only {g.players[p]['hand_count']} cards")
            g.players[p]["hand_count"] -= given
            moved[p] = []
    for giver, receiver in ((a, b), (b, a)):
        g.players[receiver]["hand_count"] += sizes[giver]
        g.players[receiver]["known"].extend(moved[giver])
    g.say(f"Trade: {g.name(a)} gives {_describe(gives[a])} to {g.name(b)}, who gives {_describe(gives[b])}.")


def _describe(given: Any) -> str:
    if isinstance(given, list):
        return ", ".join(pretty(c) for c in given) if given else "nothing"
    return f"{given} card(s)" if given else "nothing"


def _correct_hand_size(g: _Game, op: CorrectHandSize) -> None:
    if g.work["phase"] == "over":
        raise IllegalEvent("the game is over")
    p = g.player(op.player)
    count = op.count
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise IllegalEvent("'count' must be the number of cards the player really holds (0 or more)")
    delta = count - g.players[p]["hand_count"]
    if delta == 0:
        raise IllegalEvent(f"{g.name(p)} already has {count} cards")
    if op.other is not None:
        q = g.player(op.other, "other")
        if q == p:
            raise IllegalEvent("'other' must be another player")
        if g.players[q]["hand_count"] - delta < 0:
            raise IllegalEvent(f"{g.name(q)} has only {g.players[q]['hand_count']} cards")
        source = g.name(q)
    else:
        if g.dungeon_fully_known():
            raise IllegalEvent("the dungeon's order is known: say which player the difference came from ('other')")
        if g.work["dungeon_count"] - delta < len(g.work["dungeon"] or []):
            raise IllegalEvent(f"the dungeon has only {g.work['dungeon_count']} cards")
        q, source = None, "the dungeon count"
    for seat in (p, q):
        if seat is not None:
            g.forget_hand(seat)
    g.players[p]["hand_count"] = count
    if q is None:
        g.work["dungeon_count"] -= delta
    else:
        g.players[q]["hand_count"] -= delta
    for seat in (p, q):
        if seat is not None and g.unknown_part(seat) < 0:
            raise IllegalEvent(f"{g.name(seat)} has face-down cards on the battlefield that the count must include")
    g.say(f"Referee: {g.name(p)} holds {count} cards ({delta:+d}, balanced against {source}).")
