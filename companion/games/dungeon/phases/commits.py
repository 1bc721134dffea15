"""Phases ``prize`` and ``fight`` before the verdict: commits, turn-ups, passes, scrolls, guild abilities,
the assignment of an uncontested prize.
"""
from __future__ import annotations


from companion.games.base import IllegalEvent
from companion.games.dungeon.rules import (MERCENARY, SCROLL, TREASURE,
                                           kind, level, power, suit)
from companion.games.dungeon.rules import card_name
from companion.games.dungeon.operations import Assign, Commit, MageSwitch, Pass, PlayScroll, ThiefSwap, TurnUp
from companion.games.dungeon.game import _Game, _award_prize, _end_encounter, _enemy_power, _need_phase, _no_hand_trap
from companion.messages import CardName, Message


def _commit(g: _Game, op: Commit) -> None:
    _need_phase(g, "prize", "fight")
    _no_hand_trap(g)
    enc = g.enc
    p = g.active_player(op.player)
    if g.work["phase"] == "prize":
        if p not in enc["contenders"]:
            raise IllegalEvent(Message('%(player)s is not in this contest', player=g.name(p)))
    elif p in enc["passed"]:
        raise IllegalEvent(Message('%(player)s passed', player=g.name(p)))
    if [p, enc["round"]] in enc["entered"]:
        raise IllegalEvent(Message("%(player)s already committed in this round", player=g.name(p)) if enc["round"] > 1
                           else Message("%(player)s already committed", player=g.name(p)))
    card = g.card(op.card) if op.card is not None else None
    if card is not None:
        _check_commit_kind(g, card)
        g.take_from_hand(p, card)
    else:
        _check_could_commit(g, p)
        g.put_facedown(p)
    enc["commits"].append({"player": p, "card": card, "side": "players", "round": enc["round"]})
    enc["entered"].append([p, enc["round"]])
    enc["negotiable"] = False
    g.say(Message("%(player)s commits %(card)s.", player=g.name(p), card=card_name(card)) if card
          else Message("%(player)s commits a card face down.", player=g.name(p)))


def _check_could_commit(g: _Game, p: int) -> None:
    """A face-down commit from a hand the referee fully knows must be a card that could be turned up."""
    player = g.players[p]
    needs_mercenary = g.work["phase"] == "fight" or g.enc["round"] > 1
    possible = list(player["known"]) + (sorted(g.work["unseen"]) if g.unknown_part(p) > 0 else [])
    if not any(kind(c) == MERCENARY if needs_mercenary else kind(c) != TREASURE for c in possible):
        raise IllegalEvent(Message("%(player)s holds no mercenary", player=g.name(p)) if needs_mercenary
                           else Message("%(player)s holds no non-treasure card", player=g.name(p)))


def _check_commit_kind(g: _Game, card: str) -> None:
    enc = g.enc
    if g.work["phase"] == "fight" or enc["round"] > 1:
        if kind(card) != MERCENARY:
            raise IllegalEvent(Message("%(card)s is not a mercenary: a fight needs a mercenary", card=card_name(card))
                               if g.work["phase"] == "fight" else
                               Message("%(card)s is not a mercenary: a tie is broken by adding a mercenary", card=card_name(card)))
    elif kind(card) == TREASURE:
        raise IllegalEvent(Message('%(card)s is a treasure: a contest entry is a non-treasure card', card=card_name(card)))


def _turn_up(g: _Game, op: TurnUp) -> None:
    _need_phase(g, "prize", "fight")
    p = g.active_player(op.player)
    card = g.card(op.card)
    slot = next((c for c in g.enc["commits"] if c["player"] == p and c["card"] is None), None)
    if slot is None:
        raise IllegalEvent(Message('%(player)s has no face-down card on the battlefield', player=g.name(p)))
    saved_round = g.enc["round"]
    g.enc["round"] = slot["round"]
    try:
        _check_commit_kind(g, card)
    finally:
        g.enc["round"] = saved_round
    g.identify_facedown(p, card)
    slot["card"] = card
    g.say(Message('%(player)s turns up %(card)s.', player=g.name(p), card=card_name(card)))


def _pass(g: _Game, op: Pass) -> None:
    _need_phase(g, "prize", "fight")
    _no_hand_trap(g)
    enc = g.enc
    p = g.active_player(op.player)
    if [p, enc["round"]] in enc["entered"]:
        raise IllegalEvent(Message('%(player)s already committed', player=g.name(p)))
    known = g.players[p]["known"] if g.hand_fully_known(p) else None
    if g.work["phase"] == "prize":
        if p not in enc["contenders"]:
            raise IllegalEvent(Message('%(player)s is not in this contest', player=g.name(p)))
        if enc["round"] == 1 and known is not None and any(kind(c) != TREASURE for c in known):
            raise IllegalEvent(Message('%(player)s holds a non-treasure card and must enter the contest', player=g.name(p)))
        enc["contenders"].remove(p)
        g.say(Message('%(player)s drops out of the contest.', player=g.name(p)))
    else:
        if p in enc["passed"]:
            raise IllegalEvent(Message('%(player)s already passed', player=g.name(p)))
        if known is not None and any(kind(c) == MERCENARY for c in known):
            raise IllegalEvent(Message('%(player)s holds a mercenary and must commit exactly one', player=g.name(p)))
        enc["passed"].append(p)
        g.say(Message('%(player)s has no mercenary to commit.', player=g.name(p)))


def _play_scroll(g: _Game, op: PlayScroll) -> None:
    _need_phase(g, "prize", "fight")
    _no_hand_trap(g)
    enc = g.enc
    p = g.active_player(op.player)
    card = g.card(op.card)
    if kind(card) != SCROLL:
        raise IllegalEvent(Message('%(card)s is not a magic scroll (a Queen)', card=card_name(card)))
    target = op.target
    if target in ("enemy", "friend"):
        if not g.options.scroll_can_destroy_enemy:
            raise IllegalEvent(Message("a scroll destroys a committed mercenary, not an enemy (scroll_can_destroy_enemy is off)"))
        if g.work["phase"] != "fight":
            raise IllegalEvent(Message("there is no enemy in a contest"))
        g.take_from_hand(p, card)
        if target == "enemy":
            if enc["primary_destroyed"]:
                raise IllegalEvent(Message("the enemy is already destroyed"))
            enc["primary_destroyed"] = True
            victim = enc["card"]
        else:
            wanted = g.card(op.target_card, "target_card") if op.target_card is not None else (enc["friends"] or [None])[0]
            if wanted not in enc["friends"]:
                raise IllegalEvent(Message("no such friend enemy on the battlefield"))
            enc["friends"].remove(wanted)
            victim = wanted
        g.to_exile(card, victim)
        g.say(Message("%(player)s plays the scroll %(card)s: the enemy %(victim)s is destroyed and exiled.",
                      player=g.name(p), card=card_name(card), victim=card_name(victim)))
        return
    q = g.player(op.target, "target")
    theirs = [c for c in enc["commits"] if c["player"] == q and c["card"] is not None]
    if op.target_card is not None:
        wanted = g.card(op.target_card, "target_card")
        theirs = [c for c in theirs if c["card"] == wanted]
    if not theirs:
        raise IllegalEvent(Message('%(player)s has no face-up committed mercenary to destroy', player=g.name(q)))
    victim = theirs[-1]
    g.take_from_hand(p, card)
    enc["commits"].remove(victim)
    g.to_exile(card, victim["card"])
    note: Message | str = ""
    if g.work["phase"] == "prize" and q in enc["contenders"]:
        enc["contenders"].remove(q)
        note = Message("; %(player)s is out of this contest", player=g.name(q))
    g.say(Message("%(player)s plays the scroll %(card)s: %(player2)s's %(card2)s is destroyed and exiled%(note)s.",
                  player=g.name(p), card=card_name(card), player2=g.name(q), card2=card_name(victim['card']), note=note))


def _mage_switch(g: _Game, op: MageSwitch) -> None:
    _need_phase(g, "fight")
    _no_hand_trap(g)
    enc = g.enc
    p = g.active_player(op.player)
    if g.players[p]["guild"] != "D":
        raise IllegalEvent(Message('%(player)s is not a Mage', player=g.name(p)))
    enemies = ([] if enc["primary_destroyed"] else [enc["card"]]) + enc["friends"]
    if not any(suit(c) == "D" for c in enemies):
        raise IllegalEvent(Message("the Mages' switch needs a blue (♦) enemy"))
    mine = [c for c in enc["commits"] if c["player"] == p and c["side"] == "players" and c["card"]
            and suit(c["card"]) == "D"]
    if not mine:
        raise IllegalEvent(Message('%(player)s has no face-up blue (♦) mercenary committed', player=g.name(p)))
    mine[0]["side"] = "enemy"
    power, text = _enemy_power(g)
    g.say(Message("%(player)s (Mages) moves %(card)s to the enemy's side: the enemy now has %(power)s (%(text)s).",
                  player=g.name(p), card=card_name(mine[0]['card']), power=power, text=text))


def _thief_swap(g: _Game, op: ThiefSwap) -> None:
    _need_phase(g, "prize")
    _no_hand_trap(g)
    enc = g.enc
    p = g.active_player(op.player)
    if enc["kind"] != SCROLL or enc["card_gone"]:
        raise IllegalEvent(Message("the Thieves' swap needs a revealed scroll"))
    if not enc["negotiable"]:
        raise IllegalEvent(Message("the Thieves' swap comes when the scroll is revealed, before the contest"))
    if g.players[p]["guild"] != "C":
        raise IllegalEvent(Message('%(player)s is not a Thief', player=g.name(p)))
    card = g.card(op.card)
    if kind(card) != MERCENARY or suit(card) != "C":
        raise IllegalEvent(Message('%(card)s is not a yellow (♣) mercenary', card=card_name(card)))
    if g.hand_fully_known(p):
        best = max((power(c) for c in g.players[p]["known"] if kind(c) == MERCENARY and suit(c) == "C"), default=0)
        if level(card) != best:
            raise IllegalEvent(Message('the swap gives the highest yellow mercenary in hand (level %(best)s)', best=best))
    g.take_from_hand(p, card)
    scroll = enc["card"]
    enc["card_gone"] = True
    g.to_hand(p, scroll)
    if g.options.thief_swap_card == "dungeon_bottom":
        g.to_dungeon_bottom(card)
        where = Message("goes under the dungeon")
    else:
        g.to_exile(card)
        where = Message("is exiled")
    g.record(winner=p, how="thief_swap", outcome=Message("%(player)s swapped %(card)s for the scroll", player=g.name(p), card=CardName(card)))
    g.say(Message("%(player)s (Thieves) swaps %(card)s for the scroll %(scroll)s, which goes to hand; %(card)s %(where)s.",
                  player=g.name(p), card=card_name(card), scroll=card_name(scroll), where=where))
    _end_encounter(g)


def _assign(g: _Game, op: Assign) -> None:
    _need_phase(g, "prize")
    _no_hand_trap(g)
    enc = g.enc
    if not enc["negotiable"]:
        raise IllegalEvent(Message("the negotiation is over: the contest has started"))
    p = g.active_player(op.player)
    g.say(Message("Agreed: %(prize)s.", prize=_award_prize(g, p, enc['card'])))
    g.record(winner=p, how="agreement", outcome=Message("%(player)s takes it by agreement", player=g.name(p)))
    enc["card_gone"] = True
    _end_encounter(g)
