"""Events allowed in any phase: a trade between players and the referee's hand-size correction.
"""
from __future__ import annotations

from typing import Any

from companion.games.base import IllegalEvent
from companion.games.dungeon.rules import card_name
from companion.games.dungeon.operations import CorrectHandSize, Trade
from companion.games.dungeon.game import _Game
from companion.messages import Message, Words


def _trade(g: _Game, op: Trade) -> None:
    if g.work["phase"] == "over":
        raise IllegalEvent(Message("the game is over"))
    a, b = g.active_player(op.a, "a"), g.active_player(op.b, "b")
    if a == b:
        raise IllegalEvent(Message("a trade needs two different players"))
    gives: dict[int, list[str] | int] = {}
    for p, key, raw in ((a, "a_gives", op.a_gives), (b, "b_gives", op.b_gives)):
        if isinstance(raw, list):
            named = gives[p] = [g.card(c, "c") for c in raw]
            if len(set(named)) != len(named):
                raise IllegalEvent(Message('%(key)s names a card twice', key=repr(key)))
        elif isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0:
            gives[p] = raw
        else:
            raise IllegalEvent(Message('%(key)s must be a list of cards or a number of unnamed cards', key=repr(key)))
    sizes = {p: (len(v) if isinstance(v, list) else v) for p, v in gives.items()}
    if sizes[a] == 0 and sizes[b] == 0:
        raise IllegalEvent(Message("a trade moves at least one card"))
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
                raise IllegalEvent(Message('%(player)s has only %(hand_count)s cards', player=g.name(p), hand_count=g.players[p]['hand_count']))
            g.players[p]["hand_count"] -= given
            moved[p] = []
    for giver, receiver in ((a, b), (b, a)):
        g.players[receiver]["hand_count"] += sizes[giver]
        g.players[receiver]["known"].extend(moved[giver])
    g.say(Message("Trade: %(player)s gives %(given)s to %(player2)s, who gives %(given2)s.",
                  player=g.name(a), given=_describe(gives[a]), player2=g.name(b), given2=_describe(gives[b])))


def _describe(given: Any) -> Message | Words:
    if isinstance(given, list):
        return Words(card_name(c) for c in given) if given else Message("nothing")
    return Message("%(count)s card(s)", count=given) if given else Message("nothing")


def _correct_hand_size(g: _Game, op: CorrectHandSize) -> None:
    if g.work["phase"] == "over":
        raise IllegalEvent(Message("the game is over"))
    p = g.player(op.player)
    count = op.count
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise IllegalEvent(Message("'count' must be the number of cards the player really holds (0 or more)"))
    delta = count - g.players[p]["hand_count"]
    if delta == 0:
        raise IllegalEvent(Message('%(player)s already has %(count)s cards', player=g.name(p), count=count))
    if op.other is not None:
        q = g.player(op.other, "other")
        if q == p:
            raise IllegalEvent(Message("'other' must be another player"))
        if g.players[q]["hand_count"] - delta < 0:
            raise IllegalEvent(Message('%(player)s has only %(hand_count)s cards', player=g.name(q), hand_count=g.players[q]['hand_count']))
        source = g.name(q)
    else:
        if g.dungeon_fully_known():
            raise IllegalEvent(Message("the dungeon's order is known: say which player the difference came from ('other')"))
        if g.work["dungeon_count"] - delta < len(g.work["dungeon"] or []):
            raise IllegalEvent(Message('the dungeon has only %(dungeon_count)s cards', dungeon_count=g.work['dungeon_count']))
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
            raise IllegalEvent(Message('%(player)s has face-down cards on the battlefield that the count must include', player=g.name(seat)))
    g.say(Message("Referee: %(player)s holds %(count)s cards (%(delta)s, balanced against %(source)s).",
                  player=g.name(p), count=count, delta=format(delta, '+d'), source=source))
