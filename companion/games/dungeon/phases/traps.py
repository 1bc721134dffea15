"""Phase ``trap`` and traps played from hand: calls, the draw, the trap's card and its reveal.
"""
from __future__ import annotations


from companion.games.base import IllegalEvent
from companion.games.dungeon.rules import (TRAP, kind, level, power, pretty)
from companion.games.dungeon.operations import PlayTrap, TrapCall, TrapCard, TrapDraw, TrapReveal
from companion.games.dungeon.game import _Game, _end_encounter, _need_phase, _no_hand_trap
from companion.games.dungeon.phases.reveal import _after_friend


def _trap_call(g: _Game, op: TrapCall) -> None:
    call = op.call
    if call not in ("odd", "even"):
        raise IllegalEvent("'call' must be 'odd' or 'even'")
    p = g.active_player(op.player)
    enc = g.enc
    if enc and enc.get("hand_trap"):
        trap = enc["hand_trap"]
        if p == trap["player"]:
            raise IllegalEvent(f"{g.name(p)} played the trap and does not call")
        if not trap["placed"]:
            raise IllegalEvent(f"{g.name(trap['player'])} must first put a numbered card on the trap (trap_card)")
        if p in trap["calls"]:
            raise IllegalEvent(f"{g.name(p)} already called")
        trap["calls"][p] = call
        g.say(f"{g.name(p)} calls {call}.")
        return
    _need_phase(g, "trap")
    trap = enc["trap"]
    if p in trap["calls"]:
        raise IllegalEvent(f"{g.name(p)} already called")
    trap["calls"][p] = call
    g.say(f"{g.name(p)} calls {call}.")


def _parity_matches(card: str, call: str) -> bool:
    number = level(card)
    return number is not None and (number % 2 == 1) == (call == "odd")


def _trap_draw(g: _Game, op: TrapDraw) -> None:
    _need_phase(g, "trap")
    trap = g.enc["trap"]
    p = g.active_player(op.player)
    if len(trap["calls"]) < len(g.active()):
        waiting = [g.name(q) for q in g.active() if q not in trap["calls"]]
        raise IllegalEvent(f"everyone calls before anyone draws; still to call: {', '.join(waiting)}")
    if p in trap["drawn"]:
        raise IllegalEvent(f"{g.name(p)} already drew")
    neighbour = g.next_active(p)
    if g.players[neighbour]["hand_count"] == 0:
        if op.card is not None:
            raise IllegalEvent(f"{g.name(neighbour)} has no card in hand to draw")
        g.say(f"{g.name(p)} has nothing to draw: {g.name(neighbour)}'s hand is empty.")
    else:
        card = g.card(op.card)
        g.take_from_hand(neighbour, card)
        call = trap["calls"][p]
        if _parity_matches(card, call):
            g.to_exile(card)
            g.say(f"{g.name(p)} draws {pretty(card)} from {g.name(neighbour)}: {call} as called, so it is exiled.")
        elif g.options.trap_miss_card_exiled:
            g.to_exile(card)
            g.say(f"{g.name(p)} draws {pretty(card)} from {g.name(neighbour)}: not {call}, exiled anyway "
                  "(trap_miss_card_exiled).")
        else:
            g.to_hand(neighbour, card)
            g.say(f"{g.name(p)} draws {pretty(card)} from {g.name(neighbour)}: not {call}, so it goes back.")
    trap["drawn"].append(p)
    if len(trap["drawn"]) == len(g.active()):
        g.to_exile(trap["card"])
        g.enc["trap"] = None
        g.say(f"The trap {pretty(trap['card'])} is resolved and exiled.")
        if not trap["from_friend"]:
            g.record(outcome="trap resolved")
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
        raise IllegalEvent(f"{pretty(card)} is not a trap (a joker)")
    g.take_from_hand(p, card)
    player = g.players[p]
    if player["hand_count"] < 1 or (player["hand_count"] == len(player["known"])
                                    and not any(level(c) is not None for c in player["known"])):
        raise IllegalEvent(f"{g.name(p)} needs a numbered card to put on the trap")
    g.enc["hand_trap"] = {"player": p, "trap": card, "card": None, "placed": False, "calls": {}}
    g.say(f"{g.name(p)} plays the trap {pretty(card)} from hand and puts a numbered card face down on it.")


def _trap_card(g: _Game, op: TrapCard) -> None:
    _need_phase(g, "prize", "fight")
    trap = g.enc.get("hand_trap")
    p = g.active_player(op.player)
    if not trap or trap["player"] != p:
        raise IllegalEvent(f"{g.name(p)} has no trap waiting for a card")
    if trap["placed"]:
        raise IllegalEvent("the trap already has its card")
    if op.card is not None:
        card = g.card(op.card)
        if level(card) is None:
            raise IllegalEvent(f"{pretty(card)} has no number")
        g.take_from_hand(p, card)
        trap["card"] = card
    else:
        g.put_facedown(p)
    trap["placed"] = True
    g.say(f"{g.name(p)} puts a card face down on the trap; the others call odd or even.")


def _trap_reveal(g: _Game, op: TrapReveal) -> None:
    _need_phase(g, "prize", "fight")
    enc = g.enc
    trap = enc.get("hand_trap")
    if not trap or not trap["placed"]:
        raise IllegalEvent("no trap played from hand is waiting to be revealed")
    callers = [q for q in g.active() if q != trap["player"]]
    if any(q not in trap["calls"] for q in callers):
        waiting = [g.name(q) for q in callers if q not in trap["calls"]]
        raise IllegalEvent(f"still to call: {', '.join(waiting)}")
    if trap["card"] is None:
        card = g.card(op.card)
        if level(card) is None:
            raise IllegalEvent(f"{pretty(card)} has no number: the trap's card must be numbered")
        g.identify_facedown(trap["player"], card)
        trap["card"] = card
    elif op.card is not None and g.card(op.card) != trap["card"]:
        raise IllegalEvent(f"the trap's card is {pretty(trap['card'])}")
    card = trap["card"]
    parity = "odd" if power(card) % 2 else "even"
    wrong = [q for q in callers if trap["calls"][q] != parity]
    lost = []
    for q in wrong:
        for c in [c for c in enc["commits"] if c["player"] == q]:
            enc["commits"].remove(c)
            if c["card"] is None:  # a face-down card is turned up as it is exiled; its identity stays unknown
                raise IllegalEvent(f"{g.name(q)}'s committed card is still face down: turn it up first")
            g.to_exile(c["card"])
            lost.append(f"{g.name(q)}'s {pretty(c['card'])}")
        if g.work["phase"] == "prize" and q in enc["contenders"]:
            enc["contenders"].remove(q)
    g.to_exile(trap["trap"])
    if g.options.hand_trap_card == "back_to_hand":
        g.to_hand(trap["player"], card)
    else:
        g.to_exile(card)
    enc["hand_trap"] = None
    g.say(f"The trap's card is {pretty(card)} ({parity}). " +
          (f"Exiled: {', '.join(lost)}." if lost else "Nobody loses a mercenary.") +
          (f" Wrong calls: {', '.join(g.name(q) for q in wrong)}." if wrong else ""))
