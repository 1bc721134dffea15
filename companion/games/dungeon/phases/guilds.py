"""Phase ``guilds`` (and ``redeal_four``): joining guilds, redealing a tied suit, the four-card redeal.
"""
from __future__ import annotations

from collections import Counter

from companion.games.base import IllegalEvent
from companion.games.dungeon import rules
from companion.games.dungeon.rules import (GUILD_NAMES, suit)
from companion.games.dungeon.operations import ChooseGuild, RedealFour, RedealSuit
from companion.games.dungeon.game import _Game, _need_phase
from companion.messages import Message


def _best_suits(g: _Game, p: int) -> list[str]:
    counts = Counter(suit(c) for c in g.players[p]["known"] if suit(c) is not None)
    if not counts:
        return list(GUILD_NAMES)
    top = max(counts.values())
    return [s for s in ("S", "D", "C", "H") if counts[s] == top]


def _forced_same(g: _Game) -> str | None:
    """The guild every player can only join, when that is the case (then the 4-card redeal is due)."""
    if any(player["guild"] for player in g.players) or not all(g.hand_fully_known(p) for p in range(len(g.players))):
        return None
    bests = [_best_suits(g, p) for p in range(len(g.players))]
    if all(len(b) == 1 for b in bests) and len({b[0] for b in bests}) == 1:
        return bests[0][0]
    return None


def _guild_code(value: object) -> str:
    """A guild named by suit or name, as the rules spell it; an unknown one is an illegal event."""
    try:
        return rules.guild_code(value)
    except rules.UnknownGuild as error:
        raise IllegalEvent(error.message) from None


def _choose_guild(g: _Game, op: ChooseGuild) -> None:
    _need_phase(g, "guilds")
    p = g.player(op.player)
    if g.players[p]["guild"]:
        raise IllegalEvent(Message('%(player)s already joined the %(guild_names)s', player=g.name(p), guild_names=GUILD_NAMES[g.players[p]['guild']]))
    guild = _guild_code(op.guild)
    forced = _forced_same(g)
    if forced:
        raise IllegalEvent(Message("every player can only join the %(guild_names)s: each puts 4 cards at the bottom of the dungeon and draws "
                                   "4 (redeal_four)",
                                   guild_names=GUILD_NAMES[forced]))
    if g.hand_fully_known(p):
        best = _best_suits(g, p)
        if guild not in best:
            raise IllegalEvent(Message("%(player)s holds most %(best)s cards, so cannot join the %(guild_names)s",
                                       player=g.name(p), best=' / '.join(best), guild_names=GUILD_NAMES[guild]))
    if g.options.exclusive_guilds and any(pl["guild"] == guild for pl in g.players):
        raise IllegalEvent(Message('the %(guild_names)s already have a member (exclusive_guilds)', guild_names=GUILD_NAMES[guild]))
    g.players[p]["guild"] = guild
    g.say(Message('%(player)s joins the %(guild_names)s.', player=g.name(p), guild_names=GUILD_NAMES[guild]))
    if all(player["guild"] for player in g.players):
        g.work["phase"] = "reveal"
        g.work["turn"] = 0
        g.say(Message('Every player has a guild; %(player)s reveals the first dungeon card.', player=g.name(0)))


def _put_under(g: _Game, p: int, drawn: object, cards: list[str] | None, count: int) -> None:
    if cards is not None:
        for card in cards:
            g.take_from_hand(p, card)
        for card in cards:
            g.to_dungeon_bottom(card)
    else:
        if g.dungeon_fully_known():
            raise IllegalEvent(Message("the dungeon's order is known: name the cards put at its bottom ('cards')"))
        if g.unknown_part(p) < count:
            g.forget_hand(p)
        if g.players[p]["hand_count"] < count:
            raise IllegalEvent(Message('%(player)s has only %(hand_count)s cards', player=g.name(p), hand_count=g.players[p]['hand_count']))
        g.players[p]["hand_count"] -= count
        g.work["dungeon_count"] += count
    g.draw(p, count, drawn)


def _named_list(g: _Game, raw: object, key: str = "cards") -> list[str] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or not raw:
        raise IllegalEvent(Message('%(key)s must be a list of card codes', key=repr(key)))
    cards = [g.card(c, "c") for c in raw]
    if len(set(cards)) != len(cards):
        raise IllegalEvent(Message('%(key)s names a card twice', key=repr(key)))
    return cards


def _redeal_suit(g: _Game, op: RedealSuit) -> None:
    _need_phase(g, "guilds")
    p = g.player(op.player)
    if g.players[p]["guild"]:
        raise IllegalEvent(Message('%(player)s already joined a guild', player=g.name(p)))
    chosen = _guild_code(op.suit)
    cards = _named_list(g, op.cards)
    if g.hand_fully_known(p):
        best = _best_suits(g, p)
        if len(best) < 2 or chosen not in best:
            raise IllegalEvent(Message("%(player)s may only redeal a suit tied for most; their most-held: %(best)s",
                                       player=g.name(p), best=' / '.join(best)))
        held = [c for c in g.players[p]["known"] if suit(c) == chosen]
        if cards is not None and sorted(cards) != sorted(held):
            raise IllegalEvent(Message('all %(chosen)s cards go under the dungeon: %(held)s', chosen=chosen, held=list(held)))
        cards = held
    elif cards is None:
        sent = op.count
        if isinstance(sent, bool) or not isinstance(sent, int) or sent < 1:
            raise IllegalEvent(Message("name the cards put under the dungeon ('cards') or give their 'count'"))
        count = sent
    if cards is not None and any(suit(c) != chosen for c in cards):
        raise IllegalEvent(Message('only %(chosen)s cards may be put under the dungeon in this redeal', chosen=chosen))
    if cards is not None:
        count = len(cards)
    _put_under(g, p, op.drawn, cards, count)
    g.say(Message("%(player)s puts %(count)s %(chosen)s card(s) under the dungeon, draws %(count)s and decides again.",
                  player=g.name(p), count=count, chosen=chosen))


def _redeal_four(g: _Game, op: RedealFour) -> None:
    if g.work["phase"] == "guilds":
        known = all(g.hand_fully_known(p) for p in range(len(g.players)))
        if any(player["guild"] for player in g.players) or (known and not _forced_same(g)):
            raise IllegalEvent(Message("the 4-card redeal happens only when every player could only join the same guild"))
        g.work["phase"] = "redeal_four"
        g.work["guild_round"]["redealt"] = []
    _need_phase(g, "redeal_four")
    p = g.player(op.player)
    if p in g.work["guild_round"]["redealt"]:
        raise IllegalEvent(Message('%(player)s already put 4 cards under the dungeon', player=g.name(p)))
    cards = _named_list(g, op.cards)
    if cards is not None and len(cards) != 4:
        raise IllegalEvent(Message("exactly 4 cards go under the dungeon"))
    if cards is None and g.hand_fully_known(p):
        raise IllegalEvent(Message("name the 4 cards %(player)s puts under the dungeon ('cards')", player=g.name(p)))
    _put_under(g, p, op.drawn, cards, 4)
    g.work["guild_round"]["redealt"].append(p)
    g.say(Message('%(player)s puts 4 cards under the dungeon and draws 4.', player=g.name(p)))
    if len(g.work["guild_round"]["redealt"]) == len(g.players):
        g.work["phase"] = "guilds"
        g.work["guild_round"]["redealt"] = []
        g.say(Message("Every player redealt 4 cards: all decide their guild again."))
