"""Guilds and Dungeon: what each poker card is, and the rule options.

Every **Ruling** of ``../shared/rules/dungeon.md`` is an option's default; each plausible other
reading is another value of that option, so a table can play it and the simulator can measure it.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cache
from typing import Any, Mapping

from companion.cards import FULL_DECK, Card, InvalidCardError, Kind
from companion.games.base import UnknownOption
from companion.messages import CardName, Message, N_

GUILD = "guild"
SCROLL = "scroll"
TRAP = "trap"
TREASURE = "treasure"
MERCENARY = "mercenary"

# Guilds are named by the suit whose King is their guild card.
# Each guild's name in a sentence (translated where shown: 剑士工会, 法师工会, 盗贼工会, 第四工会).
GUILD_NAMES = {"S": Message("Swordsmen"), "D": Message("Mages"), "C": Message("Thieves"), "H": Message("the Heart guild")}
# The guild colour of a mercenary's suit (♥ A-J are treasures, so no mercenary is ever red-heart).
COLOURS = {"S": "black", "D": "blue", "C": "yellow"}
_GUILD_ALIASES = {"swordsmen": "S", "mages": "D", "thieves": "C", "heart": "H", "hearts": "H",
                  "spades": "S", "diamonds": "D", "clubs": "C"}

# The 50 cards in play (Kings are the guild cards, set aside), in the card model's fixed order.
PLAY_DECK: tuple[str, ...] = tuple(c.code for c in FULL_DECK if c.rank != 13)
GUILD_CARDS: tuple[str, ...] = tuple(c.code for c in FULL_DECK if c.rank == 13)


def normalise(code: object) -> str:
    """The canonical code of a card in play (not a King, not a face-down card)."""
    if not isinstance(code, str):
        raise InvalidCardError(Message('a card code must be text, got %(code)s', code=repr(code)))
    return _normalise(code)


@cache
def _normalise(code: str) -> str:
    card = Card.parse(code)
    if card.kind is Kind.BACK:
        raise InvalidCardError(Message("a face-down card has no identity: name the card (e.g. '9S')"))
    if card.rank == 13:
        raise InvalidCardError(Message('%(code)s is a King: Kings are the guild cards and are not in play', code=card.code))
    return card.code


@cache
def kind(code: str) -> str:
    card = Card.parse(code)
    if card.is_joker:
        return TRAP
    if card.rank == 13:
        return GUILD
    if card.rank == 12:
        return SCROLL
    if card.standard[1].value == "H":
        return TREASURE
    return MERCENARY


@cache
def level(code: str) -> int | None:
    """Printed level / power: A = 1 … J = 11; scrolls, traps and guild cards have none."""
    card = Card.parse(code)
    return card.rank if card.rank is not None and card.rank <= 11 else None


def power(code: str) -> int:
    """The level of a card that has one (a mercenary, an enemy); ValueError for one that has none."""
    value = level(code)
    if value is None:
        raise ValueError(f"{code} has no level")
    return value


@cache
def suit(code: str) -> str | None:
    card = Card.parse(code)
    return card.suit.value if card.suit is not None else None


@cache
def colour(code: str) -> str | None:
    """A mercenary's guild colour (black ♠, blue ♦, yellow ♣); None for everything else."""
    guild = suit(code)
    return COLOURS.get(guild) if guild is not None and kind(code) == MERCENARY else None


@cache
def pretty(code: str | None) -> str:
    return "a face-down card" if code is None else Card.parse(code).pretty


def card_name(code: str | None) -> CardName | Message:
    """A card in a sentence, as the reader's language names it (10♥ / 红桃10); None: a face-down card."""
    return Message("a face-down card") if code is None else CardName(Card.parse(code).code)


class UnknownGuild(ValueError):
    def __init__(self, message: Message) -> None:
        super().__init__(str(message))
        self.message = message


def guild_code(value: object) -> str:
    """A guild given as its suit letter (S D C H) or its name."""
    if isinstance(value, str):
        text = value.strip()
        if text.upper() in GUILD_NAMES:
            return text.upper()
        if text.lower() in _GUILD_ALIASES:
            return _GUILD_ALIASES[text.lower()]
    raise UnknownGuild(Message("unknown guild %(value)s: use S (Swordsmen), D (Mages), C (Thieves) or H (Heart guild)", value=repr(value)))


@dataclass(frozen=True)
class Options:
    # Cards dealt to each player.
    hand_size: int = 7
    # Slots in a rest area; one more arrival sends the oldest back to its owner's hand.
    rest_area_size: int = 2
    # A player with this many cards in hand or fewer is out (checked after each encounter).
    out_at_hand_size: int = 2
    # Trophies of printed level >= trophy_min_level that win at once.
    trophies_to_win: int = 5
    trophy_min_level: int = 10
    # Ruling: the mercenaries' total equal to the enemy power wins for the players.
    ties_go_to_enemy: bool = False
    # Ruling: treasures, scrolls and traps leave a waiting marker in place.
    marker_cleared_by_non_enemy: bool = False
    # Ruling: a new low enemy is itself multiplied by a waiting marker (3 then 3 fights at 9).
    low_enemy_multiplied: bool = True
    # Ruling: a low enemy laid as the marker is not a trophy. True: beaten low enemies are trophies, no marker.
    marker_is_trophy: bool = False
    # Ruling: a low enemy lays the marker after its fight whether the players won or lost.
    low_enemy_marks_after_loss: bool = True
    # Ruling: the multiplier applies to the first enemy only, not to a friend.
    friend_multiplied: bool = False
    # Ruling: a friend does not call another friend.
    friend_calls_friend: bool = False
    # Ruling: a friend of level 1-3 becomes the marker after the fight.
    low_friend_becomes_marker: bool = True
    # Ruling: a trap card drawn with the wrong parity goes back to its owner; True: it is exiled anyway.
    trap_miss_card_exiled: bool = False
    # Ruling: the ♥ guild has no ability. "treasure_ties": a ♥ player wins ties in treasure contests.
    heart_guild_ability: str = "none"
    # Ruling: a scroll destroys a committed mercenary only. True: it may also destroy an enemy.
    scroll_can_destroy_enemy: bool = False
    # Ruling: the yellow mercenary a Thief swaps for a revealed scroll is exiled; or goes under the dungeon.
    thief_swap_card: str = "exiled"
    # Ruling: the numbered card put on a trap played from hand is exiled with the trap; or back to hand.
    hand_trap_card: str = "exiled"
    # Ruling: a player may join a guild another player already joined.
    exclusive_guilds: bool = False
    # Automation, not a rule: a complete encounter (everybody committed or passed, every card face up, no
    # open hand trap) is resolved without waiting for the referee. The default is what the camera always
    # did; the engine says so (``automatic_events``) and whoever follows the table applies and logs it.
    auto_resolve: bool = True


# One line per option, shown beside it on the phone (the Ruling it selects, from docs/dungeon.md).
OPTION_HELP: dict[str, str] = {
    "hand_size": N_("cards dealt to each player (default 7; 3-12)"),
    "rest_area_size": N_("slots in a rest area; the next arrival sends the oldest back to hand (default 2; 1-5)"),
    "out_at_hand_size": N_("a player with this many cards in hand or fewer is out after an encounter (default 2; 0-6)"),
    "trophies_to_win": N_("trophies of level >= trophy_min_level that win at once (default 5; 1-10)"),
    "trophy_min_level": N_("the lowest level a trophy counts towards trophies_to_win (default 10; 1-11)"),
    "ties_go_to_enemy": N_("false (default): a total equal to the enemy power wins for the players; true: they need more"),
    "marker_cleared_by_non_enemy": N_("false (default): treasures, scrolls and traps leave the marker waiting; true: they exile it"),
    "low_enemy_multiplied": N_("true (default): a low enemy is multiplied by a waiting marker, then becomes the marker (3 then 3 = 9)"),
    "marker_is_trophy": N_("false (default): a low enemy laid as the marker is no trophy; true: a beaten one is a trophy, no marker"),
    "low_enemy_marks_after_loss": N_("true (default): a low enemy lays the marker won or lost; false: a lost fight exiles it"),
    "friend_multiplied": N_("false (default): the multiplier applies to the first enemy only; true: to the friend too"),
    "friend_calls_friend": N_("false (default): no chained friends; true: a 4-9 friend calls another"),
    "low_friend_becomes_marker": N_("true (default): a level 1-3 friend becomes the marker; false: a trophy like the caller"),
    "trap_miss_card_exiled": N_("false (default): a drawn card of the wrong parity goes back to its owner; true: exiled anyway"),
    "heart_guild_ability": N_("none (default): the Heart guild has no ability; treasure_ties: it wins ties in treasure contests"),
    "scroll_can_destroy_enemy": N_("false (default): scrolls destroy committed mercenaries only; true: an enemy too"),
    "thief_swap_card": N_("exiled (default): the club mercenary a Thief swaps for a scroll is exiled; or dungeon_bottom"),
    "hand_trap_card": N_("exiled (default): the card put on a trap from hand is exiled with it; or back_to_hand"),
    "exclusive_guilds": N_("false (default): two players may join the same guild; true: one player per guild"),
    "auto_resolve": N_("true (default): a complete encounter is resolved by itself; false: it waits for the referee's resolve"),
}

CHOICES: dict[str, tuple[Any, ...]] = {
    "heart_guild_ability": ("none", "treasure_ties"),
    "thief_swap_card": ("exiled", "dungeon_bottom"),
    "hand_trap_card": ("exiled", "back_to_hand"),
}
WHOLE_NUMBERS = {"hand_size": (3, 12), "rest_area_size": (1, 5), "out_at_hand_size": (0, 6),
                 "trophies_to_win": (1, 10), "trophy_min_level": (1, 11)}


def parse_options(raw: Mapping[str, Any] | None) -> Options:
    if raw is not None and not isinstance(raw, Mapping):
        raise UnknownOption(Message('options must be a mapping of name to value, got %(name)s', name=type(raw).__name__))
    raw = dict(raw or {})
    known = {f.name: f for f in fields(Options)}
    for name, value in raw.items():
        if name not in known:
            raise UnknownOption(Message("unknown option %(name)s for Guilds and Dungeon: options are %(known)s",
                                        name=repr(name), known=list(sorted(known))))
        default = known[name].default
        if name in CHOICES:
            if value not in CHOICES[name] or not isinstance(value, str):
                raise UnknownOption(Message("option %(name)s must be one of %(map)s, got %(value)s",
                                            name=name, map=list(map(repr, CHOICES[name])), value=repr(value)))
        elif isinstance(default, bool):
            if not isinstance(value, bool):
                raise UnknownOption(Message('option %(name)s must be true or false, got %(value)s', name=name, value=repr(value)))
        else:
            low, high = WHOLE_NUMBERS[name]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise UnknownOption(Message("option %(name)s must be a whole number from %(low)s to %(high)s, got %(value)s",
                                            name=name, low=low, high=high, value=repr(value)))
    return Options(**raw)


def options_dict(options: Options) -> dict[str, Any]:
    return {f.name: getattr(options, f.name) for f in fields(Options)}


# The referee's rulings where the seed is silent or loose: (id, what the companion does, option or None).
RULINGS: tuple[tuple[str, str, str | None], ...] = (
    ("heart-guild", N_("The ♥ guild has no ability."), "heart_guild_ability"),
    ("shared-guilds", N_("Two players may join the same guild; only 'every player could only join the same guild' "
                      "forces the 4-card redeal."), "exclusive_guilds"),
    ("verdict-tie", N_("Mercenaries' total equal to the enemy power: the players win (>=)."), "ties_go_to_enemy"),
    ("contest-tie-sum", N_("Tied contestants add another mercenary and their powers add up; a tied player with "
                        "nothing to add (or who passes) drops out. Nobody left: the prize is exiled. (Comparing only "
                        "the added cards would rank the tied players the same way, so it is no option.)"), None),
    ("contest-card", N_("A contest entry may be any non-treasure card; a scroll or trap entered counts power 0. "
                     "Cards added after a tie must be mercenaries."), None),
    ("most-contributed", N_("A tie for most contributed is won by a tied Swordsman with a black (♠) mercenary, "
                         "else by the tied player first clockwise starting with the player who revealed the card."),
     None),
    ("trap-parity", N_("A trap's drawn card whose number has the called parity is exiled; otherwise it goes back "
                    "to its owner. Cards without a number (scroll, trap) never match."), "trap_miss_card_exiled"),
    ("left-neighbour", N_("Play goes clockwise, so a player's left neighbour is the next player in turn order."), None),
    ("trap-card-spent", N_("A trap revealed from the dungeon is exiled once resolved; a scroll or trap played "
                        "from hand is exiled once used."), None),
    ("marker-waits", N_("Treasures, scrolls and traps revealed in between leave the marker waiting."),
     "marker_cleared_by_non_enemy"),
    ("low-enemy-multiplied", N_("A new low enemy is itself multiplied by a waiting marker, then becomes the new "
                             "marker: a 3 then a 3 fights at 9."), "low_enemy_multiplied"),
    ("marker-not-trophy", N_("A low enemy laid as the marker is not a trophy."), "marker_is_trophy"),
    ("marker-after-loss", N_("A low enemy lays the marker after its fight whether the players won or lost."),
     "low_enemy_marks_after_loss"),
    ("friend-not-multiplied", N_("The multiplier applies only to the first enemy of the encounter, not to a friend."),
     "friend_multiplied"),
    ("no-chained-friends", N_("A friend does not call another friend."), "friend_calls_friend"),
    ("low-friend-marker", N_("A friend of level 1-3 becomes the marker after the fight."), "low_friend_becomes_marker"),
    ("trap-friend", N_("A trap revealed as a friend is resolved as a trap at once; the fight goes on against the "
                    "caller alone."), None),
    ("lost-fight", N_("A lost fight exiles every face-up card on the battlefield, an extra prize included; "
                   "a mercenary a Mage moved to the enemy side survives and goes to its owner's rest area."), None),
    ("mage-any-blue-enemy", N_("The Mages' switch works when any enemy in the fight is blue."), None),
    ("scroll-target", N_("A scroll destroys a face-up committed mercenary."), "scroll_can_destroy_enemy"),
    ("thief-grab", N_("A Thief's face-up yellow mercenary of the treasure's level takes it when the contest resolves, "
                   "if no scroll destroyed it first."), None),
    ("thief-swap", N_("The yellow mercenary a Thief swaps for a revealed scroll is exiled."), "thief_swap_card"),
    ("hand-trap-card", N_("The numbered card put on a trap played from hand is exiled with the trap; each player who "
                       "called wrong loses their committed mercenaries."), "hand_trap_card"),
    ("rest-area", N_("Surviving committed cards go to the rest area in commit order; when it overflows the oldest "
                  "goes back to its owner's hand."), "rest_area_size"),
    ("out-check", N_("A player with 2 or fewer cards in hand is out, checked after each encounter; the last player "
                  "left wins; if all remaining players go out together it is a draw."), "out_at_hand_size"),
    ("end-order", N_("After an encounter: the 5-trophy win first, then players going out, then the empty dungeon."), None),
    ("auto-resolve", N_("An automation, not a rule: once everybody committed or passed and every card is face up, "
                     "the encounter is resolved without waiting for the referee."), "auto_resolve"),
)
