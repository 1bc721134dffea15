"""The Guilds and Dungeon referee: an explicit state machine over immutable states.

Phases: ``guilds`` (choose guilds, redeal a tied suit) → [``redeal_four``] → ``reveal`` → one encounter
(``prize`` for a treasure or scroll, ``friend`` while a caller's friend is still face down, ``fight``
for an enemy, ``trap`` for a revealed trap) → ``reveal`` … → ``over``.

Hidden information is normal. The referee knows a card's place only when the table saw it: a hand is a
count plus the cards known to be in it, the dungeon's order is known only in seeded or dealt games, and
every card whose place is unknown is in ``unseen``. Naming a card (a reveal, a turn-up, a drawn card)
takes it out of ``unseen``, so a card can never be in two places and none is ever created or lost.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Any, Mapping

from companion.cards import InvalidCardError
from companion.games.base import CATALOGUE_PLAYERS, IllegalEvent, InvalidSetup, event_type
from companion.games.dungeon import rules
from companion.games.dungeon.rules import (GUILD_CARDS, GUILD_NAMES, MERCENARY, PLAY_DECK, SCROLL, TRAP, TREASURE,
                                           Options, kind, level, options_dict, parse_options, power, pretty, suit)
from companion.games.dungeon.queries import encounter_ready, enemy_power, still_to_commit
from companion.games.dungeon.state import DungeonState, freeze, thaw
from companion.games.dungeon.view import battlefield as _battlefield
from companion.games.dungeon.view import view as _view

PHASES = ("guilds", "redeal_four", "reveal", "friend", "prize", "fight", "trap", "over")


def _is_low(code: str) -> bool:
    return kind(code) == MERCENARY and power(code) <= 3


def _calls_friend(code: str) -> bool:
    return kind(code) == MERCENARY and 4 <= power(code) <= 9


class _Game:
    """A private, mutable copy of one state while one event is applied."""

    def __init__(self, state: DungeonState) -> None:
        self.w = state.thawed()
        self.o = Options(**dict(state.options))

    # --- small helpers -------------------------------------------------------------------------
    @property
    def players(self) -> list[dict[str, Any]]:
        players: list[dict[str, Any]] = self.w["players"]
        return players

    @property
    def enc(self) -> dict[str, Any]:
        enc: dict[str, Any] = self.w["encounter"]
        return enc

    def say(self, text: str) -> None:
        self.w["new_log"].append(text)

    def record(self, **fields: Any) -> None:
        """The verdict of the encounter now ending, for the history the table and the simulator read."""
        enc = self.enc
        entry = {"encounter": self.w["encounters"] + 1, "revealer": enc["revealer"], "card": enc["card"],
                 "kind": enc["kind"], "winner": None}
        entry.update(fields)
        self.w["new_history"].append(entry)

    def name(self, p: int) -> str:
        return str(self.players[p]["name"])

    def player(self, event: Mapping[str, Any], key: str = "player") -> int:
        if key not in event:
            raise IllegalEvent(f"the event needs {key!r} (a seat number 0-{len(self.players) - 1} or a name)")
        value = event[key]
        if isinstance(value, str):
            for index, player in enumerate(self.players):
                if player["name"] == value:
                    return index
            raise IllegalEvent(f"no player named {value!r}")
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(self.players):
            raise IllegalEvent(f"{key} must be a seat number 0-{len(self.players) - 1} or a name, got {value!r}")
        return value

    def active_player(self, event: Mapping[str, Any], key: str = "player") -> int:
        p = self.player(event, key)
        if self.players[p]["out"]:
            raise IllegalEvent(f"{self.name(p)} is out of the game")
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

    def where(self, card: str) -> str:
        for player in self.players:
            for zone, label in (("known", "hand"), ("rest", "rest area"), ("treasures", "warehouse"),
                                ("trophies", "trophies")):
                if card in player[zone]:
                    return f"in {player['name']}'s {label}"
        if card in self.w["exile"]:
            return "in exile"
        if card == self.w["marker"]:
            return "the doubling marker"
        if self.w["dungeon"] is not None and card in self.w["dungeon"]:
            return "in the dungeon"
        if card in self.battlefield_cards():
            return "on the battlefield"
        return "somewhere else"

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
    def card(self, event: Mapping[str, Any], key: str = "card") -> str:
        if event.get(key) is None:
            raise IllegalEvent(f"the event needs {key!r} naming a card (e.g. '9S')")
        try:
            return rules.normalise(event[key])
        except InvalidCardError as error:
            raise IllegalEvent(str(error)) from None

    def take_from_hand(self, p: int, card: str) -> None:
        player = self.players[p]
        if player["hand_count"] < 1:
            raise IllegalEvent(f"{player['name']} has no card in hand")
        if card in player["known"]:
            player["known"].remove(card)
        elif card in self.w["unseen"] and self.unknown_part(p) >= 1:
            self.w["unseen"].remove(card)
        else:
            raise IllegalEvent(f"{pretty(card)} cannot be in {player['name']}'s hand: it is {self.where(card)}")
        player["hand_count"] -= 1

    def identify_facedown(self, p: int, card: str) -> None:
        """A face-down card of ``p`` is named: it was one of their known cards or an unseen one."""
        player = self.players[p]
        if card in player["known"]:
            player["known"].remove(card)
        elif card in self.w["unseen"] and self.unknown_part(p) >= 1:
            self.w["unseen"].remove(card)
        else:
            raise IllegalEvent(f"{pretty(card)} cannot be {player['name']}'s face-down card: it is {self.where(card)}")

    def put_facedown(self, p: int) -> None:
        if self.players[p]["hand_count"] < 1:
            raise IllegalEvent(f"{self.name(p)} has no card in hand")
        self.players[p]["hand_count"] -= 1

    def to_hand(self, p: int, card: str) -> None:
        self.players[p]["hand_count"] += 1
        self.players[p]["known"].append(card)

    def forget_hand(self, p: int) -> None:
        """The referee no longer knows which cards of ``p``'s hand are which (an unnamed transfer)."""
        player = self.players[p]
        self.w["unseen"].update(player["known"])
        player["known"] = []

    def to_exile(self, *cards: str) -> None:
        self.w["exile"].extend(cards)

    def dungeon_fully_known(self) -> bool:
        return self.w["dungeon"] is not None and len(self.w["dungeon"]) == self.w["dungeon_count"]

    def to_dungeon_bottom(self, card: str) -> None:
        if self.dungeon_fully_known():
            self.w["dungeon"].append(card)
        else:
            self.w["unseen"].add(card)
        self.w["dungeon_count"] += 1

    def draw(self, p: int, n: int, named: Any) -> list[str]:
        if self.w["dungeon_count"] < n:
            raise IllegalEvent(f"the dungeon has only {self.w['dungeon_count']} cards")
        names = None
        if named is not None:
            if not isinstance(named, list) or len(named) != n:
                raise IllegalEvent(f"'drawn' must list the {n} cards drawn")
            names = [self.card({"c": c}, "c") for c in named]
        # The known top cards come first; below them the dungeon's order is unknown.
        top = (self.w["dungeon"] or [])[:n]
        if names is not None and names[:len(top)] != top:
            raise IllegalEvent(f"the dungeon's top cards are {', '.join(top)}, not {', '.join(names[:len(top)])}")
        if self.w["dungeon"]:
            del self.w["dungeon"][:len(top)]
        drawn = list(top)
        for card in (names or [])[len(top):]:
            if card not in self.w["unseen"]:
                raise IllegalEvent(f"{pretty(card)} cannot be drawn from the dungeon: it is {self.where(card)}")
            self.w["unseen"].remove(card)
            drawn.append(card)
        self.players[p]["known"].extend(drawn)
        self.w["dungeon_count"] -= n
        self.players[p]["hand_count"] += n
        return drawn

    def take_top(self, event: Mapping[str, Any]) -> str:
        if self.w["dungeon_count"] == 0:
            raise IllegalEvent("the dungeon is empty")
        if self.w["dungeon"]:
            top = self.w["dungeon"][0]
            if event.get("card") is not None and self.card(event) != top:
                raise IllegalEvent(f"the dungeon's top card is {pretty(top)}, not {pretty(self.card(event))}")
            self.w["dungeon"].pop(0)
        else:
            top = self.card(event)
            if top not in self.w["unseen"]:
                raise IllegalEvent(f"{pretty(top)} cannot come from the dungeon: it is {self.where(top)}")
            self.w["unseen"].remove(top)
        self.w["dungeon_count"] -= 1
        return str(top)


# --- guild choice -------------------------------------------------------------------------------

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


def _choose_guild(g: _Game, e: Mapping[str, Any]) -> None:
    _need_phase(g, "guilds")
    p = g.player(e)
    if g.players[p]["guild"]:
        raise IllegalEvent(f"{g.name(p)} already joined the {GUILD_NAMES[g.players[p]['guild']]}")
    try:
        guild = rules.guild_code(e.get("guild"))
    except ValueError as error:
        raise IllegalEvent(str(error)) from None
    forced = _forced_same(g)
    if forced:
        raise IllegalEvent(f"every player can only join the {GUILD_NAMES[forced]}: each puts 4 cards at the bottom "
                           "of the dungeon and draws 4 (redeal_four)")
    if g.hand_fully_known(p):
        best = _best_suits(g, p)
        if guild not in best:
            raise IllegalEvent(f"{g.name(p)} holds most {' / '.join(best)} cards, so cannot join the {GUILD_NAMES[guild]}")
    if g.o.exclusive_guilds and any(pl["guild"] == guild for pl in g.players):
        raise IllegalEvent(f"the {GUILD_NAMES[guild]} already have a member (exclusive_guilds)")
    g.players[p]["guild"] = guild
    g.say(f"{g.name(p)} joins the {GUILD_NAMES[guild]}.")
    if all(player["guild"] for player in g.players):
        g.w["phase"] = "reveal"
        g.w["turn"] = 0
        g.say(f"Every player has a guild; {g.name(0)} reveals the first dungeon card.")


def _put_under(g: _Game, p: int, e: Mapping[str, Any], cards: list[str] | None, count: int) -> None:
    if cards is not None:
        for card in cards:
            g.take_from_hand(p, card)
        for card in cards:
            g.to_dungeon_bottom(card)
    else:
        if g.dungeon_fully_known():
            raise IllegalEvent("the dungeon's order is known: name the cards put at its bottom ('cards')")
        if g.unknown_part(p) < count:
            g.forget_hand(p)
        if g.players[p]["hand_count"] < count:
            raise IllegalEvent(f"{g.name(p)} has only {g.players[p]['hand_count']} cards")
        g.players[p]["hand_count"] -= count
        g.w["dungeon_count"] += count
    g.draw(p, count, e.get("drawn"))


def _named_list(g: _Game, e: Mapping[str, Any], key: str = "cards") -> list[str] | None:
    raw = e.get(key)
    if raw is None:
        return None
    if not isinstance(raw, list) or not raw:
        raise IllegalEvent(f"{key!r} must be a list of card codes")
    cards = [g.card({"c": c}, "c") for c in raw]
    if len(set(cards)) != len(cards):
        raise IllegalEvent(f"{key!r} names a card twice")
    return cards


def _redeal_suit(g: _Game, e: Mapping[str, Any]) -> None:
    _need_phase(g, "guilds")
    p = g.player(e)
    if g.players[p]["guild"]:
        raise IllegalEvent(f"{g.name(p)} already joined a guild")
    try:
        chosen = rules.guild_code(e.get("suit"))
    except ValueError as error:
        raise IllegalEvent(str(error)) from None
    cards = _named_list(g, e)
    if g.hand_fully_known(p):
        best = _best_suits(g, p)
        if len(best) < 2 or chosen not in best:
            raise IllegalEvent(f"{g.name(p)} may only redeal a suit tied for most; their most-held: {' / '.join(best)}")
        held = [c for c in g.players[p]["known"] if suit(c) == chosen]
        if cards is not None and sorted(cards) != sorted(held):
            raise IllegalEvent(f"all {chosen} cards go under the dungeon: {', '.join(held)}")
        cards = held
    elif cards is None:
        count = e.get("count")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise IllegalEvent("name the cards put under the dungeon ('cards') or give their 'count'")
    if cards is not None and any(suit(c) != chosen for c in cards):
        raise IllegalEvent(f"only {chosen} cards may be put under the dungeon in this redeal")
    count = len(cards) if cards is not None else e["count"]
    _put_under(g, p, e, cards, count)
    g.say(f"{g.name(p)} puts {count} {chosen} card(s) under the dungeon, draws {count} and decides again.")


def _redeal_four(g: _Game, e: Mapping[str, Any]) -> None:
    if g.w["phase"] == "guilds":
        known = all(g.hand_fully_known(p) for p in range(len(g.players)))
        if any(player["guild"] for player in g.players) or (known and not _forced_same(g)):
            raise IllegalEvent("the 4-card redeal happens only when every player could only join the same guild")
        g.w["phase"] = "redeal_four"
        g.w["guild_round"]["redealt"] = []
    _need_phase(g, "redeal_four")
    p = g.player(e)
    if p in g.w["guild_round"]["redealt"]:
        raise IllegalEvent(f"{g.name(p)} already put 4 cards under the dungeon")
    cards = _named_list(g, e)
    if cards is not None and len(cards) != 4:
        raise IllegalEvent("exactly 4 cards go under the dungeon")
    if cards is None and g.hand_fully_known(p):
        raise IllegalEvent(f"name the 4 cards {g.name(p)} puts under the dungeon ('cards')")
    _put_under(g, p, e, cards, 4)
    g.w["guild_round"]["redealt"].append(p)
    g.say(f"{g.name(p)} puts 4 cards under the dungeon and draws 4.")
    if len(g.w["guild_round"]["redealt"]) == len(g.players):
        g.w["phase"] = "guilds"
        g.w["guild_round"]["redealt"] = []
        g.say("Every player redealt 4 cards: all decide their guild again.")


# --- table talk: trades and corrections ------------------------------------------------------------

def _trade(g: _Game, e: Mapping[str, Any]) -> None:
    if g.w["phase"] == "over":
        raise IllegalEvent("the game is over")
    a, b = g.active_player(e, "a"), g.active_player(e, "b")
    if a == b:
        raise IllegalEvent("a trade needs two different players")
    gives: dict[int, list[str] | int] = {}
    for p, key in ((a, "a_gives"), (b, "b_gives")):
        raw = e.get(key, [])
        if isinstance(raw, list):
            named = gives[p] = [g.card({"c": c}, "c") for c in raw]
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


def _correct_hand_size(g: _Game, e: Mapping[str, Any]) -> None:
    if g.w["phase"] == "over":
        raise IllegalEvent("the game is over")
    p = g.player(e)
    count = e.get("count")
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise IllegalEvent("'count' must be the number of cards the player really holds (0 or more)")
    delta = count - g.players[p]["hand_count"]
    if delta == 0:
        raise IllegalEvent(f"{g.name(p)} already has {count} cards")
    if e.get("other") is not None:
        q = g.player(e, "other")
        if q == p:
            raise IllegalEvent("'other' must be another player")
        if g.players[q]["hand_count"] - delta < 0:
            raise IllegalEvent(f"{g.name(q)} has only {g.players[q]['hand_count']} cards")
        source = g.name(q)
    else:
        if g.dungeon_fully_known():
            raise IllegalEvent("the dungeon's order is known: say which player the difference came from ('other')")
        if g.w["dungeon_count"] - delta < len(g.w["dungeon"] or []):
            raise IllegalEvent(f"the dungeon has only {g.w['dungeon_count']} cards")
        q, source = None, "the dungeon count"
    for seat in (p, q):
        if seat is not None:
            g.forget_hand(seat)
    g.players[p]["hand_count"] = count
    if q is None:
        g.w["dungeon_count"] -= delta
    else:
        g.players[q]["hand_count"] -= delta
    for seat in (p, q):
        if seat is not None and g.unknown_part(seat) < 0:
            raise IllegalEvent(f"{g.name(seat)} has face-down cards on the battlefield that the count must include")
    g.say(f"Referee: {g.name(p)} holds {count} cards ({delta:+d}, balanced against {source}).")


# --- encounters -----------------------------------------------------------------------------------

def _need_phase(g: _Game, *phases: str) -> None:
    if g.w["phase"] not in phases:
        raise IllegalEvent(f"not allowed now: the game is in the {g.w['phase']!r} phase (expected {' or '.join(phases)})")


def _reveal(g: _Game, e: Mapping[str, Any]) -> None:
    _need_phase(g, "reveal", "friend")
    if g.w["phase"] == "friend":
        _reveal_friend(g, e)
        return
    if e.get("player") is not None and g.player(e) != g.w["turn"]:
        raise IllegalEvent(f"it is {g.name(g.w['turn'])}'s turn to reveal")
    card = g.take_top(e)
    revealer = g.w["turn"]
    what = kind(card)
    g.w["encounter"] = {
        "revealer": revealer, "card": card, "kind": what, "multiplier": 1, "multiplied_by": None,
        "friends": [], "extra_prizes": [], "commits": [], "contenders": g.clockwise_from(revealer), "round": 1,
        "passed": [], "entered": [], "negotiable": True, "trap": None, "hand_trap": None, "friend_reveals_left": 0,
        "primary_destroyed": False, "card_gone": False,
    }
    enc = g.enc
    marker = g.w["marker"]
    if what != MERCENARY:
        if marker and g.o.marker_cleared_by_non_enemy:
            g.w["marker"] = None
            g.to_exile(marker)
            g.say(f"The {pretty(marker)} marker is cleared by a non-enemy reveal (marker_cleared_by_non_enemy) and exiled.")
        elif marker:
            g.say(f"The {pretty(marker)} marker keeps waiting for the next enemy.")
    if what in (TREASURE, SCROLL):
        g.w["phase"] = "prize"
        label = f"a treasure of level {level(card)}" if what == TREASURE else "a magic scroll (it counts as a treasure)"
        g.say(f"{g.name(revealer)} reveals {pretty(card)}: {label}. Agree who takes it (assign) or contest it (commit).")
    elif what == TRAP:
        enc["trap"] = {"card": card, "calls": {}, "drawn": [], "from_friend": False}
        g.w["phase"] = "trap"
        g.say(f"{g.name(revealer)} reveals a trap ({pretty(card)}): everyone calls odd or even, then draws from "
              "their left neighbour.")
    else:
        printed = power(card)
        g.say(f"{g.name(revealer)} reveals the enemy {pretty(card)} (level {printed}).")
        if marker:
            g.w["marker"] = None
            g.to_exile(marker)
            if printed > 3 or g.o.low_enemy_multiplied:
                enc["multiplier"] = power(marker)
                enc["multiplied_by"] = marker
                g.say(f"The {pretty(card)} fights at {printed * power(marker)}: it was multiplied by the "
                      f"{pretty(marker)} marker, which is now exiled.")
            else:
                g.say(f"The {pretty(marker)} marker is replaced without multiplying (low_enemy_multiplied off) and exiled.")
        if _calls_friend(card):
            _start_friend_call(g, card)
        else:
            g.w["phase"] = "fight"
            g.say("Everyone commits exactly one mercenary.")


def _start_friend_call(g: _Game, caller: str) -> None:
    if g.w["dungeon_count"] > 0:
        g.enc["friend_reveals_left"] += 1
        g.w["phase"] = "friend"
        g.say(f"The {pretty(caller)} calls a friend: reveal one more card.")
    else:
        g.w["phase"] = "fight"
        g.say(f"The {pretty(caller)} calls a friend, but the dungeon is empty. Everyone commits exactly one mercenary.")


def _after_friend(g: _Game) -> None:
    if g.enc["friend_reveals_left"] > 0 and g.w["dungeon_count"] > 0:
        g.w["phase"] = "friend"
    else:
        g.enc["friend_reveals_left"] = 0
        g.w["phase"] = "fight"
        power, text = _enemy_power(g)
        g.say(f"The players face {power} ({text}). Everyone commits exactly one mercenary.")


def _reveal_friend(g: _Game, e: Mapping[str, Any]) -> None:
    enc = g.enc
    card = g.take_top(e)
    enc["friend_reveals_left"] -= 1
    what = kind(card)
    if what in (TREASURE, SCROLL):
        enc["extra_prizes"].append(card)
        g.say(f"The friend is {pretty(card)}: an extra prize for the player who contributes most against the caller.")
    elif what == TRAP:
        enc["trap"] = {"card": card, "calls": {}, "drawn": [], "from_friend": True}
        g.w["phase"] = "trap"
        g.say(f"The friend is a trap ({pretty(card)}): resolved at once (everyone calls odd or even, then draws "
              "from their left neighbour); then the fight goes on against the caller alone.")
        return
    else:
        enc["friends"].append(card)
        times = f" × {enc['multiplier']}" if g.o.friend_multiplied and enc["multiplier"] > 1 else ""
        g.say(f"The friend {pretty(card)} (level {level(card)}{times}) joins the fight.")
        if g.o.friend_calls_friend and _calls_friend(card):
            _start_friend_call(g, card)
            if g.w["phase"] == "friend":
                return
    _after_friend(g)


def _enemy_power(g: _Game) -> tuple[int, str]:
    return enemy_power(g.enc, g.o.friend_multiplied, [p["name"] for p in g.players])


def _trap_call(g: _Game, e: Mapping[str, Any]) -> None:
    call = e.get("call")
    if call not in ("odd", "even"):
        raise IllegalEvent("'call' must be 'odd' or 'even'")
    p = g.active_player(e)
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


def _trap_draw(g: _Game, e: Mapping[str, Any]) -> None:
    _need_phase(g, "trap")
    trap = g.enc["trap"]
    p = g.active_player(e)
    if len(trap["calls"]) < len(g.active()):
        waiting = [g.name(q) for q in g.active() if q not in trap["calls"]]
        raise IllegalEvent(f"everyone calls before anyone draws; still to call: {', '.join(waiting)}")
    if p in trap["drawn"]:
        raise IllegalEvent(f"{g.name(p)} already drew")
    neighbour = g.next_active(p)
    if g.players[neighbour]["hand_count"] == 0:
        if e.get("card") is not None:
            raise IllegalEvent(f"{g.name(neighbour)} has no card in hand to draw")
        g.say(f"{g.name(p)} has nothing to draw: {g.name(neighbour)}'s hand is empty.")
    else:
        card = g.card(e)
        g.take_from_hand(neighbour, card)
        call = trap["calls"][p]
        if _parity_matches(card, call):
            g.to_exile(card)
            g.say(f"{g.name(p)} draws {pretty(card)} from {g.name(neighbour)}: {call} as called, so it is exiled.")
        elif g.o.trap_miss_card_exiled:
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


def _no_hand_trap(g: _Game) -> None:
    if g.enc.get("hand_trap"):
        raise IllegalEvent("a trap played from hand must be resolved first (trap_card, trap_call, trap_reveal)")


def _commit(g: _Game, e: Mapping[str, Any]) -> None:
    _need_phase(g, "prize", "fight")
    _no_hand_trap(g)
    enc = g.enc
    p = g.active_player(e)
    if g.w["phase"] == "prize":
        if p not in enc["contenders"]:
            raise IllegalEvent(f"{g.name(p)} is not in this contest")
    elif p in enc["passed"]:
        raise IllegalEvent(f"{g.name(p)} passed")
    if [p, enc["round"]] in enc["entered"]:
        raise IllegalEvent(f"{g.name(p)} already committed" + (" in this round" if enc["round"] > 1 else ""))
    card = g.card(e) if e.get("card") is not None else None
    if card is not None:
        _check_commit_kind(g, card)
        g.take_from_hand(p, card)
    else:
        _check_could_commit(g, p)
        g.put_facedown(p)
    enc["commits"].append({"player": p, "card": card, "side": "players", "round": enc["round"]})
    enc["entered"].append([p, enc["round"]])
    enc["negotiable"] = False
    g.say(f"{g.name(p)} commits " + (pretty(card) if card else "a card face down") + ".")


def _check_could_commit(g: _Game, p: int) -> None:
    """A face-down commit from a hand the referee fully knows must be a card that could be turned up."""
    player = g.players[p]
    needs_mercenary = g.w["phase"] == "fight" or g.enc["round"] > 1
    possible = list(player["known"]) + (sorted(g.w["unseen"]) if g.unknown_part(p) > 0 else [])
    if not any(kind(c) == MERCENARY if needs_mercenary else kind(c) != TREASURE for c in possible):
        raise IllegalEvent(f"{g.name(p)} holds no " + ("mercenary" if needs_mercenary else "non-treasure card"))


def _check_commit_kind(g: _Game, card: str) -> None:
    enc = g.enc
    if g.w["phase"] == "fight" or enc["round"] > 1:
        if kind(card) != MERCENARY:
            raise IllegalEvent(f"{pretty(card)} is not a mercenary: " +
                               ("a fight needs a mercenary" if g.w["phase"] == "fight" else "a tie is broken by adding a mercenary"))
    elif kind(card) == TREASURE:
        raise IllegalEvent(f"{pretty(card)} is a treasure: a contest entry is a non-treasure card")


def _turn_up(g: _Game, e: Mapping[str, Any]) -> None:
    _need_phase(g, "prize", "fight")
    p = g.active_player(e)
    card = g.card(e)
    slot = next((c for c in g.enc["commits"] if c["player"] == p and c["card"] is None), None)
    if slot is None:
        raise IllegalEvent(f"{g.name(p)} has no face-down card on the battlefield")
    saved_round = g.enc["round"]
    g.enc["round"] = slot["round"]
    try:
        _check_commit_kind(g, card)
    finally:
        g.enc["round"] = saved_round
    g.identify_facedown(p, card)
    slot["card"] = card
    g.say(f"{g.name(p)} turns up {pretty(card)}.")


def _pass(g: _Game, e: Mapping[str, Any]) -> None:
    _need_phase(g, "prize", "fight")
    _no_hand_trap(g)
    enc = g.enc
    p = g.active_player(e)
    if [p, enc["round"]] in enc["entered"]:
        raise IllegalEvent(f"{g.name(p)} already committed")
    known = g.players[p]["known"] if g.hand_fully_known(p) else None
    if g.w["phase"] == "prize":
        if p not in enc["contenders"]:
            raise IllegalEvent(f"{g.name(p)} is not in this contest")
        if enc["round"] == 1 and known is not None and any(kind(c) != TREASURE for c in known):
            raise IllegalEvent(f"{g.name(p)} holds a non-treasure card and must enter the contest")
        enc["contenders"].remove(p)
        g.say(f"{g.name(p)} drops out of the contest.")
    else:
        if p in enc["passed"]:
            raise IllegalEvent(f"{g.name(p)} already passed")
        if known is not None and any(kind(c) == MERCENARY for c in known):
            raise IllegalEvent(f"{g.name(p)} holds a mercenary and must commit exactly one")
        enc["passed"].append(p)
        g.say(f"{g.name(p)} has no mercenary to commit.")


def _play_scroll(g: _Game, e: Mapping[str, Any]) -> None:
    _need_phase(g, "prize", "fight")
    _no_hand_trap(g)
    enc = g.enc
    p = g.active_player(e)
    card = g.card(e)
    if kind(card) != SCROLL:
        raise IllegalEvent(f"{pretty(card)} is not a magic scroll (a Queen)")
    target = e.get("target")
    if target in ("enemy", "friend"):
        if not g.o.scroll_can_destroy_enemy:
            raise IllegalEvent("a scroll destroys a committed mercenary, not an enemy (scroll_can_destroy_enemy is off)")
        if g.w["phase"] != "fight":
            raise IllegalEvent("there is no enemy in a contest")
        g.take_from_hand(p, card)
        if target == "enemy":
            if enc["primary_destroyed"]:
                raise IllegalEvent("the enemy is already destroyed")
            enc["primary_destroyed"] = True
            victim = enc["card"]
        else:
            wanted = g.card(e, "target_card") if e.get("target_card") is not None else (enc["friends"] or [None])[0]
            if wanted not in enc["friends"]:
                raise IllegalEvent("no such friend enemy on the battlefield")
            enc["friends"].remove(wanted)
            victim = wanted
        g.to_exile(card, victim)
        g.say(f"{g.name(p)} plays the scroll {pretty(card)}: the enemy {pretty(victim)} is destroyed and exiled.")
        return
    q = g.player(e, "target")
    theirs = [c for c in enc["commits"] if c["player"] == q and c["card"] is not None]
    if e.get("target_card") is not None:
        wanted = g.card(e, "target_card")
        theirs = [c for c in theirs if c["card"] == wanted]
    if not theirs:
        raise IllegalEvent(f"{g.name(q)} has no face-up committed mercenary to destroy")
    victim = theirs[-1]
    g.take_from_hand(p, card)
    enc["commits"].remove(victim)
    g.to_exile(card, victim["card"])
    note = ""
    if g.w["phase"] == "prize" and q in enc["contenders"]:
        enc["contenders"].remove(q)
        note = f"; {g.name(q)} is out of this contest"
    g.say(f"{g.name(p)} plays the scroll {pretty(card)}: {g.name(q)}'s {pretty(victim['card'])} is destroyed and exiled{note}.")


def _play_trap(g: _Game, e: Mapping[str, Any]) -> None:
    _need_phase(g, "prize", "fight")
    _no_hand_trap(g)
    p = g.active_player(e)
    card = g.card(e)
    if kind(card) != TRAP:
        raise IllegalEvent(f"{pretty(card)} is not a trap (a joker)")
    g.take_from_hand(p, card)
    player = g.players[p]
    if player["hand_count"] < 1 or (player["hand_count"] == len(player["known"])
                                    and not any(level(c) is not None for c in player["known"])):
        raise IllegalEvent(f"{g.name(p)} needs a numbered card to put on the trap")
    g.enc["hand_trap"] = {"player": p, "trap": card, "card": None, "placed": False, "calls": {}}
    g.say(f"{g.name(p)} plays the trap {pretty(card)} from hand and puts a numbered card face down on it.")


def _trap_card(g: _Game, e: Mapping[str, Any]) -> None:
    _need_phase(g, "prize", "fight")
    trap = g.enc.get("hand_trap")
    p = g.active_player(e)
    if not trap or trap["player"] != p:
        raise IllegalEvent(f"{g.name(p)} has no trap waiting for a card")
    if trap["placed"]:
        raise IllegalEvent("the trap already has its card")
    if e.get("card") is not None:
        card = g.card(e)
        if level(card) is None:
            raise IllegalEvent(f"{pretty(card)} has no number")
        g.take_from_hand(p, card)
        trap["card"] = card
    else:
        g.put_facedown(p)
    trap["placed"] = True
    g.say(f"{g.name(p)} puts a card face down on the trap; the others call odd or even.")


def _trap_reveal(g: _Game, e: Mapping[str, Any]) -> None:
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
        card = g.card(e)
        if level(card) is None:
            raise IllegalEvent(f"{pretty(card)} has no number: the trap's card must be numbered")
        g.identify_facedown(trap["player"], card)
        trap["card"] = card
    elif e.get("card") is not None and g.card(e) != trap["card"]:
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
        if g.w["phase"] == "prize" and q in enc["contenders"]:
            enc["contenders"].remove(q)
    g.to_exile(trap["trap"])
    if g.o.hand_trap_card == "back_to_hand":
        g.to_hand(trap["player"], card)
    else:
        g.to_exile(card)
    enc["hand_trap"] = None
    g.say(f"The trap's card is {pretty(card)} ({parity}). " +
          (f"Exiled: {', '.join(lost)}." if lost else "Nobody loses a mercenary.") +
          (f" Wrong calls: {', '.join(g.name(q) for q in wrong)}." if wrong else ""))


def _mage_switch(g: _Game, e: Mapping[str, Any]) -> None:
    _need_phase(g, "fight")
    _no_hand_trap(g)
    enc = g.enc
    p = g.active_player(e)
    if g.players[p]["guild"] != "D":
        raise IllegalEvent(f"{g.name(p)} is not a Mage")
    enemies = ([] if enc["primary_destroyed"] else [enc["card"]]) + enc["friends"]
    if not any(suit(c) == "D" for c in enemies):
        raise IllegalEvent("the Mages' switch needs a blue (♦) enemy")
    mine = [c for c in enc["commits"] if c["player"] == p and c["side"] == "players" and c["card"]
            and suit(c["card"]) == "D"]
    if not mine:
        raise IllegalEvent(f"{g.name(p)} has no face-up blue (♦) mercenary committed")
    mine[0]["side"] = "enemy"
    power, text = _enemy_power(g)
    g.say(f"{g.name(p)} (Mages) moves {pretty(mine[0]['card'])} to the enemy's side: the enemy now has {power} ({text}).")


def _thief_swap(g: _Game, e: Mapping[str, Any]) -> None:
    _need_phase(g, "prize")
    _no_hand_trap(g)
    enc = g.enc
    p = g.active_player(e)
    if enc["kind"] != SCROLL or enc["card_gone"]:
        raise IllegalEvent("the Thieves' swap needs a revealed scroll")
    if not enc["negotiable"]:
        raise IllegalEvent("the Thieves' swap comes when the scroll is revealed, before the contest")
    if g.players[p]["guild"] != "C":
        raise IllegalEvent(f"{g.name(p)} is not a Thief")
    card = g.card(e)
    if kind(card) != MERCENARY or suit(card) != "C":
        raise IllegalEvent(f"{pretty(card)} is not a yellow (♣) mercenary")
    if g.hand_fully_known(p):
        best = max((power(c) for c in g.players[p]["known"] if kind(c) == MERCENARY and suit(c) == "C"), default=0)
        if level(card) != best:
            raise IllegalEvent(f"the swap gives the highest yellow mercenary in hand (level {best})")
    g.take_from_hand(p, card)
    scroll = enc["card"]
    enc["card_gone"] = True
    g.to_hand(p, scroll)
    if g.o.thief_swap_card == "dungeon_bottom":
        g.to_dungeon_bottom(card)
        where = "goes under the dungeon"
    else:
        g.to_exile(card)
        where = "is exiled"
    g.record(winner=p, how="thief_swap", outcome=f"{g.name(p)} swapped {card} for the scroll")
    g.say(f"{g.name(p)} (Thieves) swaps {pretty(card)} for the scroll {pretty(scroll)}, which goes to hand; "
          f"{pretty(card)} {where}.")
    _end_encounter(g)


def _award_prize(g: _Game, p: int, card: str) -> str:
    if kind(card) == SCROLL:
        g.to_hand(p, card)
        return f"{pretty(card)} goes to {g.name(p)}'s hand"
    g.players[p]["treasures"].append(card)
    return f"{pretty(card)} goes to {g.name(p)}'s warehouse"


def _assign(g: _Game, e: Mapping[str, Any]) -> None:
    _need_phase(g, "prize")
    _no_hand_trap(g)
    enc = g.enc
    if not enc["negotiable"]:
        raise IllegalEvent("the negotiation is over: the contest has started")
    p = g.active_player(e)
    g.say(f"Agreed: {_award_prize(g, p, enc['card'])}.")
    g.record(winner=p, how="agreement", outcome=f"{g.name(p)} takes it by agreement")
    enc["card_gone"] = True
    _end_encounter(g)


def _resolve(g: _Game, e: Mapping[str, Any]) -> None:
    _need_phase(g, "prize", "fight")
    _no_hand_trap(g)
    enc = g.enc
    if any(c["card"] is None for c in enc["commits"]):
        hidden = sorted({g.name(c["player"]) for c in enc["commits"] if c["card"] is None})
        raise IllegalEvent(f"face-down cards must be turned up first: {', '.join(hidden)}")
    if g.w["phase"] == "prize":
        _resolve_contest(g)
    else:
        _resolve_fight(g)


def _committed(g: _Game, p: int, side: str = "players") -> list[str]:
    return [c["card"] for c in g.enc["commits"] if c["player"] == p and c["side"] == side and c["card"]]


def _has_black(g: _Game, p: int) -> bool:
    return g.players[p]["guild"] == "S" and any(kind(c) == MERCENARY and suit(c) == "S" for c in _committed(g, p))


def _resolve_contest(g: _Game) -> None:
    enc = g.enc
    waiting = still_to_commit("prize", enc, g.players)
    if waiting:
        raise IllegalEvent(f"still to commit or pass: {', '.join(g.name(q) for q in waiting)}")
    prize = enc["card"]
    order = [q for q in g.clockwise_from(enc["revealer"]) if q in enc["contenders"]]
    if kind(prize) == TREASURE:
        for q in order:
            if g.players[q]["guild"] == "C" and any(
                    kind(c) == MERCENARY and suit(c) == "C" and level(c) == level(prize) for c in _committed(g, q)):
                g.record(winner=q, how="thief_grab", outcome=f"{g.name(q)}'s Thieves take it")
                g.say(f"Thieves: {g.name(q)}'s yellow mercenary matches the treasure's level {level(prize)}: "
                      f"{_award_prize(g, q, prize)}.")
                enc["card_gone"] = True
                _end_encounter(g)
                return
    if not order:
        g.to_exile(prize)
        enc["card_gone"] = True
        g.say(f"Nobody is left in the contest: {pretty(prize)} is exiled.")
        g.record(how="nobody_left", outcome="exiled: nobody left in the contest")
        _end_encounter(g)
        return
    powers = {}
    for q in order:
        cards = _committed(g, q)
        numbers = [power(c) if kind(c) == MERCENARY else 0 for c in cards]
        powers[q] = sum(numbers)
    best = max(powers.values())
    tied = [q for q in order if powers[q] == best]
    winner, how = None, ""
    if len(tied) == 1:
        winner = tied[0]
    else:
        swords = [q for q in tied if _has_black(g, q)]
        hearts = [q for q in tied if g.players[q]["guild"] == "H"]
        if len(swords) == 1:
            winner, how = swords[0], " (Swordsmen win ties with a black mercenary)"
        elif swords:
            tied = swords
        elif g.o.heart_guild_ability == "treasure_ties" and kind(prize) == TREASURE and len(hearts) == 1:
            winner, how = hearts[0], " (the Heart guild wins treasure ties)"
    summary = ", ".join(f"{g.name(q)} {powers[q]}" for q in order)
    if winner is None:
        enc["round"] += 1
        enc["contenders"] = tied
        g.say(f"Contest: {summary}. Tie at {best} between {', '.join(g.name(q) for q in tied)}: each adds a "
              "mercenary (commit) or drops out (pass).")
        return
    enc["card_gone"] = True
    g.record(winner=winner, how="contest", powers={str(q): powers[q] for q in order},
             outcome=f"{g.name(winner)} wins the contest{how}")
    g.say(f"Contest: {summary}. {g.name(winner)} wins{how}: {_award_prize(g, winner, prize)}.")
    _end_encounter(g)


def _top_contributor(g: _Game, contributions: dict[int, int]) -> tuple[int, str]:
    order = g.clockwise_from(g.enc["revealer"])
    best = max(contributions.values())
    tied = [q for q in order if contributions.get(q, -1) == best]
    if len(tied) == 1:
        return tied[0], ""
    swords = [q for q in tied if _has_black(g, q)]
    if len(swords) == 1:
        return swords[0], " (Swordsman with a black mercenary wins the tie)"
    pool = swords or tied
    return pool[0], f" (tie for most: first clockwise from {g.name(g.enc['revealer'])})"


def _resolve_fight(g: _Game) -> None:
    enc = g.enc
    waiting = still_to_commit("fight", enc, g.players)
    if waiting:
        raise IllegalEvent(f"still to commit a mercenary: {', '.join(g.name(q) for q in waiting)}")
    enemy, text = _enemy_power(g)
    contributions = {q: sum(power(c) for c in _committed(g, q)) for q in g.active()}
    total = sum(contributions.values())
    won = total > enemy if g.o.ties_go_to_enemy else total >= enemy
    enemies = ([] if enc["primary_destroyed"] else [("primary", enc["card"])]) + [("friend", f) for f in enc["friends"]]
    markers = []
    for role, card in enemies:
        if not _is_low(card):
            continue
        if role == "friend" and not g.o.low_friend_becomes_marker:
            continue
        if won and g.o.marker_is_trophy:
            continue
        if not won and not g.o.low_enemy_marks_after_loss:
            continue
        markers.append(card)
    others = [card for _, card in enemies if card not in markers]
    verdict = f"Verdict: players {total} vs enemy {enemy} ({text}): "
    switched = [c for c in enc["commits"] if c["side"] == "enemy"]
    winner, how = _top_contributor(g, contributions) if won else (None, "")
    g.record(winner=winner, enemy_power=enemy, enemy_power_text=text, players_total=total, won=won,
             multiplier=enc["multiplier"], marker=enc["multiplied_by"], friends=list(enc["friends"]),
             extra_prizes=list(enc["extra_prizes"]), contributions={str(q): v for q, v in contributions.items()},
             switched=[c["card"] for c in switched],
             outcome=("players win" + (f"; {g.name(winner)} contributed most" if winner is not None else ""))
             if won else "enemy wins")
    if won:
        assert winner is not None, "a won fight always has a top contributor"
        gains = []
        if others:
            g.players[winner]["trophies"].extend(others)
            gains.append("trophies " + ", ".join(pretty(c) for c in others))
        for prize in enc["extra_prizes"]:
            gains.append(_award_prize(g, winner, prize))
        g.say(verdict + f"the players win. {g.name(winner)} contributed most{how}" +
              (": " + "; ".join(gains) if gains else "") + ".")
    else:
        lost = [c for c in enc["commits"] if c["side"] == "players"]
        for c in lost:
            enc["commits"].remove(c)
        exiled = others + enc["extra_prizes"] + [c["card"] for c in lost]
        g.to_exile(*exiled)
        g.say(verdict + "the enemy wins; exiled: " + (", ".join(pretty(c) for c in exiled) or "nothing") +
              (f"; {', '.join(pretty(c['card']) for c in switched)} survives on the enemy's side" if switched else "") + ".")
    for c in switched:
        c["side"] = "players"  # a switched mercenary survives and rests with its owner
    enc["card_gone"] = True
    enc["friends"], enc["extra_prizes"] = [], []
    for card in markers[:-1]:
        g.to_exile(card)
    if markers:
        g.w["marker"] = markers[-1]
        g.say(f"The {pretty(markers[-1])} is laid sideways as the doubling marker: the next enemy is multiplied "
              f"by {level(markers[-1])}.")
    _end_encounter(g)


def _end_encounter(g: _Game) -> None:
    enc = g.enc
    size = g.o.rest_area_size
    for c in enc["commits"]:
        rest = g.players[c["player"]]["rest"]
        rest.append(c["card"])
        if len(rest) > size:
            oldest = rest.pop(0)
            g.to_hand(c["player"], oldest)
            g.say(f"{g.name(c['player'])}'s rest area is full: the oldest, {pretty(oldest)}, goes back to hand.")
    revealer = enc["revealer"]
    g.w["encounter"] = None
    g.w["encounters"] += 1
    for q in g.clockwise_from(revealer):
        high = [c for c in g.players[q]["trophies"] if power(c) >= g.o.trophy_min_level]
        if len(high) >= g.o.trophies_to_win:
            _game_over(g, [q], "trophies", f"{g.name(q)} has {len(high)} trophies of level "
                                           f"{g.o.trophy_min_level} or more and wins.")
            return
    going = [q for q in g.active() if g.players[q]["hand_count"] <= g.o.out_at_hand_size]
    for q in going:
        g.players[q]["out"] = True
        g.say(f"{g.name(q)} has {g.players[q]['hand_count']} cards in hand and is out.")
    left = g.active()
    if len(left) == 1:
        _game_over(g, left, "last_player", f"{g.name(left[0])} is the last player left and wins.")
        return
    if not left:
        _game_over(g, [], "all_out", f"{', '.join(g.name(q) for q in going)} go out together: a draw.")
        return
    if g.w["dungeon_count"] == 0:
        most = max(len(g.players[q]["treasures"]) for q in left)
        best = [q for q in left if len(g.players[q]["treasures"]) == most]
        if len(best) > 1:
            hand = max(g.players[q]["hand_count"] for q in best)
            best = [q for q in best if g.players[q]["hand_count"] == hand]
        if len(best) == 1:
            _game_over(g, best, "dungeon_empty", f"The dungeon is empty: {g.name(best[0])} wins with {most} treasures.")
        else:
            _game_over(g, [], "dungeon_empty", f"The dungeon is empty: {', '.join(g.name(q) for q in best)} tie on "
                                               f"{most} treasures and hand size: a draw.")
        return
    g.w["turn"] = g.next_active(revealer)
    g.w["phase"] = "reveal"


def _game_over(g: _Game, winners: list[int], reason: str, text: str) -> None:
    g.w["phase"] = "over"
    g.w["result"] = {"winners": winners, "reason": reason, "text": text}
    g.say(text)


_HANDLERS = {
    "choose_guild": _choose_guild, "redeal_suit": _redeal_suit, "redeal_four": _redeal_four,
    "trade": _trade, "correct_hand_size": _correct_hand_size,
    "reveal": _reveal, "assign": _assign, "commit": _commit, "turn_up": _turn_up, "pass": _pass,
    "play_scroll": _play_scroll, "play_trap": _play_trap, "trap_card": _trap_card, "trap_reveal": _trap_reveal,
    "trap_call": _trap_call, "trap_draw": _trap_draw, "mage_switch": _mage_switch, "thief_swap": _thief_swap,
    "resolve": _resolve,
}
EVENT_TYPES = tuple(_HANDLERS)


def _facedown_needs(g: _Game, p: int) -> list[Any]:
    """What each of ``p``'s face-down cards must turn out to be, as tests on a card code."""
    enc = g.enc
    if not enc:
        return []
    needs = []
    for c in enc["commits"]:
        if c["player"] == p and c["card"] is None:
            if g.w["phase"] == "fight" or c["round"] > 1:
                needs.append(lambda code: kind(code) == MERCENARY)
            else:
                needs.append(lambda code: kind(code) != TREASURE)
    trap = enc.get("hand_trap")
    if trap and trap["player"] == p and trap["placed"] and trap["card"] is None:
        needs.append(lambda code: level(code) is not None)
    return needs


def _check_facedown_cards(g: _Game) -> None:
    """Refuses an event that leaves some face-down card no possible identity (e.g. naming the last mercenary
    a player could have committed face down as something else)."""
    for p in range(len(g.players)):
        needs = _facedown_needs(g, p)
        if not needs:
            continue
        capacity = g.unknown_part(p)
        unseen = sorted(g.w["unseen"]) if capacity > 0 else []
        if not _identities_fit(needs, g.players[p]["known"], unseen, capacity):
            raise IllegalEvent(f"this would leave {g.name(p)}'s face-down card with no possible identity")


def _identities_fit(needs: list[Any], known: list[str], unseen: list[str], capacity: int) -> bool:
    """Whether each face-down card (a test in ``needs``) can be a different known card of the hand,
    or one of at most ``capacity`` unseen cards."""

    def fits(index: int, used: frozenset[str], from_unseen: int) -> bool:
        if index == len(needs):
            return True
        test = needs[index]
        for card in known:
            if card not in used and test(card) and fits(index + 1, used | {card}, from_unseen):
                return True
        if from_unseen < capacity and sum(1 for c in unseen if test(c)) > from_unseen:
            return fits(index + 1, used, from_unseen + 1)
        return False

    return fits(0, frozenset(), 0)


class DungeonEngine:
    """The Guilds and Dungeon referee (see ``docs/dungeon.md``)."""

    name = "dungeon"
    option_help: dict[str, str] = {}   # the view's rulings say what each option changes

    def new_game(self, setup: Mapping[str, Any]) -> DungeonState:
        if not isinstance(setup, Mapping):
            raise InvalidSetup("the setup must be a mapping with 'players'")
        names = _player_names(setup.get("players"))
        options = parse_options(setup.get("options"))
        n, size = len(names), options.hand_size
        if n * size >= len(PLAY_DECK):
            raise InvalidSetup(f"{n} hands of {size} leave no dungeon")
        seed = setup.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise InvalidSetup(f"seed must be a whole number or null, got {seed!r}")
        hands, dungeon = _deal(setup.get("deal"), seed, n, size)
        placed = [c for hand in (hands or []) for c in hand] + list(dungeon or [])
        unseen = set(PLAY_DECK) - set(placed)
        players = [{"name": name, "guild": None, "hand_count": size, "known": list(hands[i]) if hands else [],
                    "rest": [], "treasures": [], "trophies": [], "out": False} for i, name in enumerate(names)]
        work = {
            "setup": thaw(freeze(dict(setup))), "options": options_dict(options), "phase": "guilds", "turn": 0,
            "players": players, "dungeon": list(dungeon) if dungeon is not None else None,
            "dungeon_count": len(PLAY_DECK) - n * size, "unseen": unseen, "marker": None, "encounter": None,
            "exile": [], "encounters": 0, "guild_round": {"redealt": []}, "result": None, "log": (), "history": (), "new_history": [],
            "new_log": [f"New game for {', '.join(names)}: {size} cards each, {len(PLAY_DECK) - n * size} in the "
                        "dungeon. Each player joins the guild of the suit they hold most of."],
        }
        return DungeonState.frozen(work)

    def apply(self, state: DungeonState, event: Mapping[str, Any]) -> DungeonState:
        handler = _HANDLERS[event_type(event, EVENT_TYPES)]
        if state.phase == "over":
            raise IllegalEvent("the game is over")
        game = _Game(state)
        try:
            handler(game, event)
        except InvalidCardError as error:  # a card code in the event the card model cannot read
            raise IllegalEvent(f"bad {event.get('type')} event: {error}") from None
        # Anything else a handler raises (KeyError, TypeError, ...) is a bug of the engine, not a
        # refusal: it reaches the caller as itself. Every field an event brings is checked where it
        # is read (``_Game.card``, ``_Game.player``, ``_named_list``), which refuses bad input.
        _check_facedown_cards(game)
        return DungeonState.frozen(game.w)

    def view(self, state: DungeonState) -> dict[str, Any]:
        return _view(state)

    def referee_view(self, state: DungeonState) -> dict[str, Any]:
        """The view plus what the companion knows of each secret hand: never shown to players."""
        return _view(state, referee=True)

    # --- queries ------------------------------------------------------------------------------
    def option_defaults(self, players: int = CATALOGUE_PLAYERS) -> dict[str, Any]:
        return options_dict(parse_options(None))

    def audit(self, state: DungeonState) -> list[str]:
        return audit(state)

    def awaiting(self, state: DungeonState) -> list[str]:
        """Choosing guilds: who has none yet; a contest or fight: who still commits or passes."""
        names = [p["name"] for p in state.players]
        if state.phase == "guilds":
            return [p["name"] for p in state.players if p["guild"] is None and not p["out"]]
        if state.phase in ("prize", "fight") and state.encounter is not None:
            return [names[q] for q in still_to_commit(state.phase, thaw(state.encounter), state.players)]
        return []

    def round_complete(self, state: DungeonState) -> bool:
        """The encounter can be resolved: everybody committed, every card is turned up, no open hand trap."""
        enc = thaw(state.encounter) if state.encounter is not None else None
        return encounter_ready(state.phase, enc, state.players)

    def battlefield(self, state: DungeonState) -> dict[str, Any] | None:
        """The view's ``battlefield`` alone (the simulator's bots read it every turn; the whole view grows)."""
        return _battlefield(state)


def _player_names(raw: Any) -> list[str]:
    if not isinstance(raw, (list, tuple)) or not 2 <= len(raw) <= 4:
        raise InvalidSetup("Guilds and Dungeon needs 'players': a list of 2 to 4 players")
    names = []
    for index, entry in enumerate(raw):
        name = entry.get("name") if isinstance(entry, Mapping) else entry
        if not isinstance(name, str) or not name.strip():
            raise InvalidSetup(f"player {index} needs a name")
        names.append(name.strip())
    if len(set(names)) != len(names):
        raise InvalidSetup("player names must differ")
    return names


def _cards(raw: Any, what: str) -> list[str]:
    if not isinstance(raw, (list, tuple)):
        raise InvalidSetup(f"{what} must be a list of card codes")
    try:
        return [rules.normalise(c) for c in raw]
    except InvalidCardError as error:
        raise InvalidSetup(f"{what}: {error}") from None


def _deal(deal: Any, seed: int | None, n: int, size: int) -> tuple[list[list[str]] | None, list[str] | None]:
    """Known hands and dungeon order: from an explicit deal, else a seeded shuffle, else unknown."""
    dungeon_size = len(PLAY_DECK) - n * size
    if deal is None:
        if seed is None:
            return None, None
        deck = list(PLAY_DECK)
        random.Random(seed).shuffle(deck)
        # Players take turns drawing one card at a time, as the seed describes.
        seeded = [[deck[k * n + i] for k in range(size)] for i in range(n)]
        return seeded, deck[n * size:]
    if not isinstance(deal, Mapping):
        raise InvalidSetup("deal must be a mapping with 'hands' and/or 'dungeon'")
    hands: list[list[str]] | None = None
    dungeon: list[str] | None = None
    if deal.get("hands") is not None:
        raw = deal["hands"]
        if not isinstance(raw, (list, tuple)) or len(raw) != n:
            raise InvalidSetup(f"deal.hands must list one hand per player ({n})")
        hands = [_cards(h, f"deal.hands[{i}]") for i, h in enumerate(raw)]
        for i, hand in enumerate(hands):
            if len(hand) > size:  # fewer: the cards known to be in that hand
                raise InvalidSetup(f"deal.hands[{i}] has {len(hand)} cards, more than the {size} dealt")
    if deal.get("dungeon") is not None:
        dungeon = _cards(deal["dungeon"], "deal.dungeon")
        if len(dungeon) > dungeon_size:  # fewer: the known top of the dungeon
            raise InvalidSetup(f"deal.dungeon has {len(dungeon)} cards, more than the {dungeon_size} in the dungeon")
    placed = [c for hand in (hands or []) for c in hand] + (dungeon or [])
    repeated = [c for c, k in Counter(placed).items() if k > 1]
    if repeated:
        raise InvalidSetup(f"deal names {', '.join(repeated)} more than once")
    if hands is not None and dungeon is None and seed is not None and all(len(h) == size for h in hands):
        rest = [c for c in PLAY_DECK if c not in set(placed)]
        random.Random(seed).shuffle(rest)
        dungeon = rest
    return hands, dungeon


ENGINE = DungeonEngine()


def audit(state: DungeonState) -> list[str]:
    """Conservation problems (empty when every card is in exactly one place)."""
    g = _Game(state)
    w = g.w
    located: list[str] = list(GUILD_CARDS)
    problems = []
    for p, player in enumerate(w["players"]):
        located += player["known"] + player["rest"] + player["treasures"] + player["trophies"]
        if g.unknown_part(p) < 0:
            problems.append(f"{player['name']}: more known cards than cards")
        if player["hand_count"] < 0:
            problems.append(f"{player['name']}: negative hand")
    located += w["exile"] + ([w["marker"]] if w["marker"] else []) + g.battlefield_cards()
    if w["dungeon"] is not None:
        located += w["dungeon"]
        if len(w["dungeon"]) > w["dungeon_count"]:
            problems.append("more known dungeon cards than dungeon cards")
    repeated = [c for c, k in Counter(located + sorted(w["unseen"])).items() if k > 1]
    if repeated:
        problems.append(f"in two places: {repeated}")
    everything = set(located) | w["unseen"]
    if everything != set(PLAY_DECK) | set(GUILD_CARDS):
        problems.append(f"missing: {sorted(set(PLAY_DECK) - everything)}; extra: {sorted(everything - set(PLAY_DECK) - set(GUILD_CARDS))}")
    hidden = (w["dungeon_count"] - len(w["dungeon"] or [])) + sum(g.unknown_part(p) for p in range(len(w["players"])))
    if hidden != len(w["unseen"]):
        problems.append(f"{len(w['unseen'])} unseen cards but {hidden} unknown places")
    return problems
