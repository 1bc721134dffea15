"""The working copy an event is applied to (``_Game``: the thawed state, its hidden-card bookkeeping and the
log) and the small steps several phases share: phase checks, the enemy's power, awarding a prize, ending
an encounter, ending the game.
"""
from __future__ import annotations

from typing import Any

from companion.cards import InvalidCardError
from companion.games.base import IllegalEvent
from companion.games.dungeon import rules
from companion.games.dungeon.operations import MISSING
from companion.games.dungeon.queries import enemy_power
from companion.games.dungeon.rules import (MERCENARY, SCROLL, Options, kind, power, suit)
from companion.games.dungeon.rules import card_name
from companion.games.dungeon.state import DungeonState
from companion.messages import Message, N_


def _is_low(code: str) -> bool:
    return kind(code) == MERCENARY and power(code) <= 3


def _calls_friend(code: str) -> bool:
    return kind(code) == MERCENARY and 4 <= power(code) <= 9


class _Game:
    """A private, mutable copy of one state while one event is applied: ``work`` is the thawed state
    (plain dicts and lists), ``options`` the table's rule options."""

    def __init__(self, state: DungeonState) -> None:
        self.work = state.thawed()
        self.options = Options(**dict(state.options))

    # --- small helpers -------------------------------------------------------------------------
    @property
    def players(self) -> list[dict[str, Any]]:
        players: list[dict[str, Any]] = self.work["players"]
        return players

    @property
    def enc(self) -> dict[str, Any]:
        enc: dict[str, Any] = self.work["encounter"]
        return enc

    def say(self, text: Message) -> None:
        self.work["new_log"].append(text)

    def record(self, **fields: Any) -> None:
        """The verdict of the encounter now ending, for the history the table and the simulator read."""
        enc = self.enc
        entry = {"encounter": self.work["encounters"] + 1, "revealer": enc["revealer"], "card": enc["card"],
                 "kind": enc["kind"], "winner": None}
        entry.update(fields)
        self.work["new_history"].append(entry)

    def name(self, p: int) -> str:
        return str(self.players[p]["name"])

    def player(self, value: object, key: str = "player") -> int:
        """The seat ``value`` (a seat number or a name, as the event sent it under ``key``) names."""
        if value is MISSING:
            raise IllegalEvent(Message('the event needs %(key)s (a seat number 0-%(number)s or a name)', key=repr(key), number=len(self.players) - 1))
        if isinstance(value, str):
            for index, player in enumerate(self.players):
                if player["name"] == value:
                    return index
            raise IllegalEvent(Message('no player named %(value)s', value=repr(value)))
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(self.players):
            raise IllegalEvent(Message("%(key)s must be a seat number 0-%(number)s or a name, got %(value)s",
                                       key=key, number=len(self.players) - 1, value=repr(value)))
        return value

    def active_player(self, value: object, key: str = "player") -> int:
        p = self.player(value, key)
        if self.players[p]["out"]:
            raise IllegalEvent(Message('%(player)s is out of the game', player=self.name(p)))
        return p

    def active(self) -> list[int]:
        return [i for i, player in enumerate(self.players) if not player["out"]]

    def clockwise_from(self, start: int) -> list[int]:
        n = len(self.players)
        return [(start + k) % n for k in range(n) if not self.players[(start + k) % n]["out"]]

    def next_active(self, p: int) -> int:
        order = self.clockwise_from((p + 1) % len(self.players))
        return order[0]

    def facedown_count(self, p: int) -> int:
        enc = self.enc
        if not enc:
            return 0
        count = sum(1 for c in enc["commits"] if c["player"] == p and c["card"] is None)
        trap = enc.get("hand_trap")
        if trap and trap["player"] == p and trap["placed"] and trap["card"] is None:
            count += 1
        return count

    def unknown_part(self, p: int) -> int:
        """Cards of ``p`` (in hand or face down) whose identity the referee does not know."""
        player = self.players[p]
        in_hand: int = player["hand_count"]
        return in_hand + self.facedown_count(p) - len(player["known"])

    def hand_fully_known(self, p: int) -> bool:
        return self.unknown_part(p) == 0 and self.facedown_count(p) == 0

    def where(self, card: str) -> Message:
        zones = (("known", N_("in %(player)s's hand")), ("rest", N_("in %(player)s's rest area")),
                 ("treasures", N_("in %(player)s's warehouse")), ("trophies", N_("in %(player)s's trophies")))
        for player in self.players:
            for zone, text in zones:
                if card in player[zone]:
                    return Message(text, player=player["name"])
        if card in self.work["exile"]:
            return Message("in exile")
        if card == self.work["marker"]:
            return Message("the doubling marker, beside the dungeon")
        if self.work["dungeon"] is not None and card in self.work["dungeon"]:
            return Message("in the dungeon")
        if card in self.battlefield_cards():
            return Message("on the battlefield")
        return Message("somewhere else")

    def battlefield_cards(self) -> list[str]:
        enc = self.enc
        if not enc:
            return []
        cards = [] if enc["primary_destroyed"] or enc.get("card_gone") else [enc["card"]]
        cards += enc["friends"] + enc["extra_prizes"]
        cards += [c["card"] for c in enc["commits"] if c["card"] is not None]
        if enc.get("trap") and enc["trap"]["from_friend"]:
            cards.append(enc["trap"]["card"])
        trap = enc.get("hand_trap")
        if trap:
            cards.append(trap["trap"])
            if trap["card"] is not None:
                cards.append(trap["card"])
        return cards

    # --- moving cards (every move keeps each card in exactly one place) -------------------------
    def card(self, value: object, key: str = "card") -> str:
        """The card ``value`` (as the event sent it under ``key``) names."""
        if value is None:
            raise IllegalEvent(Message("the event needs %(key)s naming a card (e.g. '9S')", key=repr(key)))
        try:
            return rules.normalise(value)
        except InvalidCardError as error:
            raise IllegalEvent(str(error)) from None

    def take_from_hand(self, p: int, card: str) -> None:
        player = self.players[p]
        if player["hand_count"] < 1:
            raise IllegalEvent(Message('%(name)s has no card in hand', name=player['name']))
        if card in player["known"]:
            player["known"].remove(card)
        elif card in self.work["unseen"] and self.unknown_part(p) >= 1:
            self.work["unseen"].remove(card)
        else:
            raise IllegalEvent(Message("%(card)s cannot be in %(name)s's hand: it is %(where)s",
                                       card=card_name(card), name=player['name'], where=self.where(card)))
        player["hand_count"] -= 1

    def identify_facedown(self, p: int, card: str) -> None:
        """A face-down card of ``p`` is named: it was one of their known cards or an unseen one."""
        player = self.players[p]
        if card in player["known"]:
            player["known"].remove(card)
        elif card in self.work["unseen"] and self.unknown_part(p) >= 1:
            self.work["unseen"].remove(card)
        else:
            raise IllegalEvent(Message("%(card)s cannot be %(name)s's face-down card: it is %(where)s",
                                       card=card_name(card), name=player['name'], where=self.where(card)))

    def put_facedown(self, p: int) -> None:
        if self.players[p]["hand_count"] < 1:
            raise IllegalEvent(Message('%(player)s has no card in hand', player=self.name(p)))
        self.players[p]["hand_count"] -= 1

    def to_hand(self, p: int, card: str) -> None:
        self.players[p]["hand_count"] += 1
        self.players[p]["known"].append(card)

    def forget_hand(self, p: int) -> None:
        """The referee no longer knows which cards of ``p``'s hand are which (an unnamed transfer)."""
        player = self.players[p]
        self.work["unseen"].update(player["known"])
        player["known"] = []

    def to_exile(self, *cards: str) -> None:
        self.work["exile"].extend(cards)

    def dungeon_fully_known(self) -> bool:
        return self.work["dungeon"] is not None and len(self.work["dungeon"]) == self.work["dungeon_count"]

    def to_dungeon_bottom(self, card: str) -> None:
        if self.dungeon_fully_known():
            self.work["dungeon"].append(card)
        else:
            self.work["unseen"].add(card)
        self.work["dungeon_count"] += 1

    def draw(self, p: int, n: int, named: Any) -> list[str]:
        if self.work["dungeon_count"] < n:
            raise IllegalEvent(Message('the dungeon has only %(dungeon_count)s cards', dungeon_count=self.work['dungeon_count']))
        names = None
        if named is not None:
            if not isinstance(named, list) or len(named) != n:
                raise IllegalEvent(Message("'drawn' must list the %(n)s cards drawn", n=n))
            names = [self.card(c, "c") for c in named]
        # The known top cards come first; below them the dungeon's order is unknown.
        top = (self.work["dungeon"] or [])[:n]
        if names is not None and names[:len(top)] != top:
            raise IllegalEvent(Message("the dungeon's top cards are %(top)s, not %(player)s", top=list(top), player=list(names[:len(top)])))
        if self.work["dungeon"]:
            del self.work["dungeon"][:len(top)]
        drawn = list(top)
        for card in (names or [])[len(top):]:
            if card not in self.work["unseen"]:
                raise IllegalEvent(Message("%(card)s cannot be drawn from the dungeon: it is %(where)s",
                                           card=card_name(card), where=self.where(card)))
            self.work["unseen"].remove(card)
            drawn.append(card)
        self.players[p]["known"].extend(drawn)
        self.work["dungeon_count"] -= n
        self.players[p]["hand_count"] += n
        return drawn

    def take_top(self, named: object) -> str:
        """The dungeon's top card, which the event may name (``named``: its ``card`` as sent)."""
        if self.work["dungeon_count"] == 0:
            raise IllegalEvent(Message("the dungeon is empty"))
        if self.work["dungeon"]:
            top = self.work["dungeon"][0]
            if named is not None and self.card(named) != top:
                raise IllegalEvent(Message("the dungeon's top card is %(top)s, not %(card)s", top=card_name(top), card=card_name(self.card(named))))
            self.work["dungeon"].pop(0)
        else:
            top = self.card(named)
            if top not in self.work["unseen"]:
                raise IllegalEvent(Message('%(top)s cannot come from the dungeon: it is %(where)s', top=card_name(top), where=self.where(top)))
            self.work["unseen"].remove(top)
        self.work["dungeon_count"] -= 1
        return str(top)


def _need_phase(g: _Game, *phases: str) -> None:
    if g.work["phase"] not in phases:
        raise IllegalEvent(Message("not allowed now: the game is in the %(phase)s phase (expected %(phases)s)",
                                   phase=repr(g.work['phase']), phases=list(phases)))


def _no_hand_trap(g: _Game) -> None:
    if g.enc.get("hand_trap"):
        raise IllegalEvent(Message("a trap played from hand must be resolved first (trap_card, trap_call, trap_reveal)"))


def _enemy_power(g: _Game) -> tuple[int, Message]:
    return enemy_power(g.enc, g.options.friend_multiplied, [p["name"] for p in g.players])


def _committed(g: _Game, p: int, side: str = "players") -> list[str]:
    return [c["card"] for c in g.enc["commits"] if c["player"] == p and c["side"] == side and c["card"]]


def _has_black(g: _Game, p: int) -> bool:
    return g.players[p]["guild"] == "S" and any(kind(c) == MERCENARY and suit(c) == "S" for c in _committed(g, p))


def _award_prize(g: _Game, p: int, card: str) -> Message:
    if kind(card) == SCROLL:
        g.to_hand(p, card)
        return Message("%(card)s goes to %(player)s's hand", card=card_name(card), player=g.name(p))
    g.players[p]["treasures"].append(card)
    return Message("%(card)s goes to %(player)s's warehouse", card=card_name(card), player=g.name(p))


def _end_encounter(g: _Game) -> None:
    """The encounter ends: its mercenaries rest, then the end conditions; its history entry (recorded by the
    verdict) gets each seat's standing after it, which the result page charts encounter by encounter."""
    _close_encounter(g)
    g.work["new_history"][-1]["standing"] = [
        {"treasures": len(p["treasures"]), "trophies": len(p["trophies"]),
         "high_trophies": sum(power(c) >= g.options.trophy_min_level for c in p["trophies"]),
         "hand_count": p["hand_count"], "out": p["out"]} for p in g.players]


def _close_encounter(g: _Game) -> None:
    enc = g.enc
    size = g.options.rest_area_size
    for c in enc["commits"]:
        rest = g.players[c["player"]]["rest"]
        rest.append(c["card"])
        if len(rest) > size:
            oldest = rest.pop(0)
            g.to_hand(c["player"], oldest)
            g.say(Message("%(player)s's rest area is full: the oldest, %(oldest)s, goes back to hand.",
                          player=g.name(c['player']), oldest=card_name(oldest)))
    revealer = enc["revealer"]
    g.work["encounter"] = None
    g.work["encounters"] += 1
    reached = [q for q in g.clockwise_from(revealer)
               if sum(power(c) >= g.options.trophy_min_level for c in g.players[q]["trophies"]) >= g.options.trophies_to_win]
    if reached:
        q = reached[0]
        count = sum(power(c) >= g.options.trophy_min_level for c in g.players[q]["trophies"])
        together = Message("%(players)s reached the trophies together: the first clockwise from %(player)s, who revealed the card, wins.",
                           players=[g.name(p) for p in reached], player=g.name(revealer)) if len(reached) > 1 else None
        _game_over(g, [q], "trophies", Message("%(player)s has %(count)s trophies of level %(level)s or more and wins.",
                                               player=g.name(q), count=count, level=g.options.trophy_min_level), together)
        return
    going = [q for q in g.active() if g.players[q]["hand_count"] <= g.options.out_at_hand_size]
    for q in going:
        g.players[q]["out"] = True
        g.say(Message('%(player)s has %(hand_count)s cards in hand and is out.', player=g.name(q), hand_count=g.players[q]['hand_count']))
    left = g.active()
    if len(left) == 1:
        _game_over(g, left, "last_player", Message("%(player)s is the last player left and wins.", player=g.name(left[0])))
        return
    if not left:
        _game_over(g, [], "all_out", Message("%(players)s go out together: a draw.", players=[g.name(q) for q in going]))
        return
    if g.work["dungeon_count"] == 0:
        most = max(len(g.players[q]["treasures"]) for q in left)
        best = [q for q in left if len(g.players[q]["treasures"]) == most]
        tie: Message | None = None
        if len(best) > 1:
            tied = best
            hand = max(g.players[q]["hand_count"] for q in best)
            best = [q for q in best if g.players[q]["hand_count"] == hand]
            tie = (Message("%(players)s tie on %(count)s treasures: the most cards in hand (%(hand)s) decides.",
                           players=[g.name(q) for q in tied], count=most, hand=hand) if len(best) == 1 else
                   Message("%(players)s tie on %(count)s treasures and on %(hand)s cards in hand: nothing more separates them.",
                           players=[g.name(q) for q in best], count=most, hand=hand))
        if len(best) == 1:
            _game_over(g, best, "dungeon_empty", Message("The dungeon is empty: %(player)s wins with %(count)s treasures.",
                                                         player=g.name(best[0]), count=most), tie)
        else:
            _game_over(g, [], "dungeon_empty", Message("The dungeon is empty: %(players)s tie on %(count)s treasures and hand size: a draw.",
                                                       players=[g.name(q) for q in best], count=most), tie)
        return
    g.work["turn"] = g.next_active(revealer)
    g.work["phase"] = "reveal"


def _game_over(g: _Game, winners: list[int], reason: str, text: Message, tie_break: Message | None = None) -> None:
    """The game ends: ``tie_break`` says how players level on the end condition were told apart (or not)."""
    g.work["phase"] = "over"
    g.work["result"] = {"winners": winners, "reason": reason, "text": text, "tie_break": tie_break}
    g.say(text)
