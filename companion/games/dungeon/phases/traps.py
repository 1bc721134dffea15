"""Phase ``trap`` and traps played from hand: calls, the draw, the trap's card and its reveal.
"""
from __future__ import annotations


from companion.games.base import IllegalEvent
from companion.games.dungeon.rules import (TRAP, kind, level, power)
from companion.games.dungeon.rules import card_name
from companion.games.dungeon.operations import PlayTrap, TrapCall, TrapCard, TrapDraw, TrapReveal
from companion.games.dungeon.game import _Game, _end_encounter, _need_phase, _no_hand_trap
from companion.games.dungeon.phases.reveal import _after_friend
from companion.messages import Message

# A call as the log says it, in the reader's language (the event keeps "odd" / "even" as typed).
CALLS = {"odd": Message("odd"), "even": Message("even")}


def _trap_call(g: _Game, op: TrapCall) -> None:
    call = op.call
    if call not in ("odd", "even"):
        raise IllegalEvent(Message("'call' must be 'odd' or 'even'"))
    p = g.active_player(op.player)
    enc = g.enc
    if enc and enc.get("hand_trap"):
        trap = enc["hand_trap"]
        if p == trap["player"]:
            raise IllegalEvent(Message('%(player)s played the trap and does not call', player=g.name(p)))
        if not trap["placed"]:
            raise IllegalEvent(Message('%(player)s must first put a numbered card on the trap (trap_card)', player=g.name(trap['player'])))
        if p in trap["calls"]:
            raise IllegalEvent(Message('%(player)s already called', player=g.name(p)))
        trap["calls"][p] = call
        g.say(Message('%(player)s calls %(call)s.', player=g.name(p), call=CALLS.get(call, call)))
        return
    _need_phase(g, "trap")
    trap = enc["trap"]
    if p in trap["calls"]:
        raise IllegalEvent(Message('%(player)s already called', player=g.name(p)))
    trap["calls"][p] = call
    g.say(Message('%(player)s calls %(call)s.', player=g.name(p), call=CALLS.get(call, call)))


def _parity_matches(card: str, call: str) -> bool:
    number = level(card)
    return number is not None and (number % 2 == 1) == (call == "odd")


def _trap_draw(g: _Game, op: TrapDraw) -> None:
    _need_phase(g, "trap")
    trap = g.enc["trap"]
    p = g.active_player(op.player)
    if len(trap["calls"]) < len(g.active()):
        waiting = [g.name(q) for q in g.active() if q not in trap["calls"]]
        raise IllegalEvent(Message('everyone calls before anyone draws; still to call: %(waiting)s', waiting=list(waiting)))
    if p in trap["drawn"]:
        raise IllegalEvent(Message('%(player)s already drew', player=g.name(p)))
    neighbour = g.next_active(p)
    if g.players[neighbour]["hand_count"] == 0:
        if op.card is not None:
            raise IllegalEvent(Message('%(player)s has no card in hand to draw', player=g.name(neighbour)))
        g.say(Message("%(player)s has nothing to draw: %(player2)s's hand is empty.", player=g.name(p), player2=g.name(neighbour)))
    else:
        card = g.card(op.card)
        g.take_from_hand(neighbour, card)
        call = trap["calls"][p]
        if _parity_matches(card, call):
            g.to_exile(card)
            g.say(Message("%(player)s draws %(card)s from %(player2)s: %(call)s as called, so it is exiled.",
                          player=g.name(p), card=card_name(card), player2=g.name(neighbour), call=CALLS.get(call, call)))
        elif g.options.trap_miss_card_exiled:
            g.to_exile(card)
            g.say(Message("%(player)s draws %(card)s from %(player2)s: not %(call)s, exiled anyway (trap_miss_card_exiled).",
                          player=g.name(p), card=card_name(card), player2=g.name(neighbour), call=CALLS.get(call, call)))
        else:
            g.to_hand(neighbour, card)
            g.say(Message("%(player)s draws %(card)s from %(player2)s: not %(call)s, so it goes back.",
                          player=g.name(p), card=card_name(card), player2=g.name(neighbour), call=CALLS.get(call, call)))
    trap["drawn"].append(p)
    if len(trap["drawn"]) == len(g.active()):
        g.to_exile(trap["card"])
        g.enc["trap"] = None
        g.say(Message('The trap %(card)s is resolved and exiled.', card=card_name(trap['card'])))
        if not trap["from_friend"]:
            g.record(outcome=Message("trap resolved"))
        if trap["from_friend"]:
            _after_friend(g)
        else:
            _end_encounter(g)


def _play_trap(g: _Game, op: PlayTrap) -> None:
    _need_phase(g, "prize", "fight")
    _no_hand_trap(g)
    p = g.active_player(op.player)
    card = g.card(op.card)
    if kind(card) != TRAP:
        raise IllegalEvent(Message('%(card)s is not a trap (a joker)', card=card_name(card)))
    g.take_from_hand(p, card)
    player = g.players[p]
    if player["hand_count"] < 1 or (player["hand_count"] == len(player["known"])
                                    and not any(level(c) is not None for c in player["known"])):
        raise IllegalEvent(Message('%(player)s needs a numbered card to put on the trap', player=g.name(p)))
    g.enc["hand_trap"] = {"player": p, "trap": card, "card": None, "placed": False, "calls": {}}
    g.say(Message('%(player)s plays the trap %(card)s from hand and puts a numbered card face down on it.', player=g.name(p), card=card_name(card)))


def _trap_card(g: _Game, op: TrapCard) -> None:
    _need_phase(g, "prize", "fight")
    trap = g.enc.get("hand_trap")
    p = g.active_player(op.player)
    if not trap or trap["player"] != p:
        raise IllegalEvent(Message('%(player)s has no trap waiting for a card', player=g.name(p)))
    if trap["placed"]:
        raise IllegalEvent(Message("the trap already has its card"))
    if op.card is not None:
        card = g.card(op.card)
        if level(card) is None:
            raise IllegalEvent(Message('%(card)s has no number', card=card_name(card)))
        g.take_from_hand(p, card)
        trap["card"] = card
    else:
        g.put_facedown(p)
    trap["placed"] = True
    g.say(Message('%(player)s puts a card face down on the trap; the others call odd or even.', player=g.name(p)))


def _trap_reveal(g: _Game, op: TrapReveal) -> None:
    _need_phase(g, "prize", "fight")
    enc = g.enc
    trap = enc.get("hand_trap")
    if not trap or not trap["placed"]:
        raise IllegalEvent(Message("no trap played from hand is waiting to be revealed"))
    callers = [q for q in g.active() if q != trap["player"]]
    if any(q not in trap["calls"] for q in callers):
        waiting = [g.name(q) for q in callers if q not in trap["calls"]]
        raise IllegalEvent(Message('still to call: %(waiting)s', waiting=list(waiting)))
    if trap["card"] is None:
        card = g.card(op.card)
        if level(card) is None:
            raise IllegalEvent(Message("%(card)s has no number: the trap's card must be numbered", card=card_name(card)))
        g.identify_facedown(trap["player"], card)
        trap["card"] = card
    elif op.card is not None and g.card(op.card) != trap["card"]:
        raise IllegalEvent(Message("the trap's card is %(card)s", card=card_name(trap['card'])))
    card = trap["card"]
    parity = "odd" if power(card) % 2 else "even"
    wrong = [q for q in callers if trap["calls"][q] != parity]
    lost = []
    for q in wrong:
        for c in [c for c in enc["commits"] if c["player"] == q]:
            enc["commits"].remove(c)
            if c["card"] is None:  # a face-down card is turned up as it is exiled; its identity stays unknown
                raise IllegalEvent(Message("%(player)s's committed card is still face down: turn it up first", player=g.name(q)))
            g.to_exile(c["card"])
            lost.append(Message("%(player)s's %(card)s", player=g.name(q), card=card_name(c['card'])))
        if g.work["phase"] == "prize" and q in enc["contenders"]:
            enc["contenders"].remove(q)
    g.to_exile(trap["trap"])
    if g.options.hand_trap_card == "back_to_hand":
        g.to_hand(trap["player"], card)
    else:
        g.to_exile(card)
    enc["hand_trap"] = None
    g.say(Message("The trap's card is %(card)s (%(parity)s). %(exiled)s%(wrong)s", card=card_name(card),
                  parity=Message("odd") if parity == "odd" else Message("even"),
                  exiled=Message("Exiled: %(cards)s.", cards=lost) if lost else Message("Nobody loses a mercenary."),
                  wrong=Message(" Wrong calls: %(players)s.", players=[g.name(q) for q in wrong]) if wrong else ""))
