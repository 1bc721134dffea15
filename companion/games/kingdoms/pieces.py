"""What each poker card is in Kingdoms: the card → piece mapping and who owns which suit.

The mapping depends on the table: a 10 is a castle only when its suit belongs to a seated
player, and the card the table chose to stand for the knizia wizard is a wizard. Everything
else that is not one of the 22 territory cards is flagged as illegal in the grid.
"""
from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from companion.cards import Card, Kind, Suit
from companion.games.base import IllegalEvent, InvalidSetup
from companion.messages import CardName, Message, N_

DRAGON_CARD = Card.parse("9S")
SUIT_NAMES = {Suit.SPADES: N_("spades"), Suit.HEARTS: N_("hearts"), Suit.DIAMONDS: N_("diamonds"), Suit.CLUBS: N_("clubs")}
# Ten, jack, queen, king are castles of rank 1-4.
CASTLE_RANK = {10: 1, 11: 2, 12: 3, 13: 4}


class IllegalCard(IllegalEvent):
    """A card that has no place in a Kingdoms grid at this table."""


class PieceKind(str, enum.Enum):
    RESOURCE = "resource"
    HAZARD = "hazard"
    DRAGON = "dragon"
    GOLD_MINE = "gold_mine"
    MOUNTAIN = "mountain"
    CASTLE = "castle"
    WIZARD = "wizard"
    FACE_DOWN = "face_down"


@dataclass(frozen=True)
class Piece:
    """A game piece. ``value`` is +1…+6 for resources and −1…−6 for hazards; castles have ``owner`` and ``rank``."""

    kind: PieceKind
    value: int = 0
    owner: str | None = None
    rank: int = 0

    @property
    def is_castle(self) -> bool:
        return self.kind is PieceKind.CASTLE

    @property
    def castle_owner(self) -> str:
        """The owner of a castle (every castle has one); ValueError for any other piece."""
        if self.owner is None:
            raise ValueError(f"a {self.kind.value} has no owner")
        return self.owner

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind.value}
        if self.kind in (PieceKind.RESOURCE, PieceKind.HAZARD):
            data["value"] = self.value
        if self.kind is PieceKind.CASTLE:
            data["owner"] = self.owner
            data["rank"] = self.rank
        return data

    @functools.cached_property
    def label(self) -> Message:
        """The piece in a sentence (``str()`` of it is the English): 富庶之地 +3, X2城堡, 龙 …"""
        if self.kind is PieceKind.RESOURCE:
            return Message("resource +%(value)s", value=self.value)
        if self.kind is PieceKind.HAZARD:
            return Message("hazard %(value)s", value=self.value)
        if self.kind is PieceKind.CASTLE:
            return Message("%(owner)s's rank-%(rank)s castle", owner=self.owner, rank=self.rank)
        return Message({PieceKind.DRAGON: N_("dragon"), PieceKind.GOLD_MINE: N_("gold mine"), PieceKind.MOUNTAIN: N_("mountain"),
                        PieceKind.WIZARD: N_("wizard"), PieceKind.FACE_DOWN: N_("face-down tile")}[self.kind])


FACE_DOWN_PIECE = Piece(PieceKind.FACE_DOWN)
DRAGON = Piece(PieceKind.DRAGON)
GOLD_MINE = Piece(PieceKind.GOLD_MINE)
MOUNTAIN = Piece(PieceKind.MOUNTAIN)
WIZARD = Piece(PieceKind.WIZARD)

# The territory pile of one round: 12 red A-6, 6 spade A-6, the dragon, the gold mine, two mountains.
TERRITORY_PILE: dict[str, int] = {
    **{Card(Kind.STANDARD, r, s).code: 1 for s in (Suit.HEARTS, Suit.DIAMONDS, Suit.SPADES) for r in range(1, 7)},
    "9S": 1, "BJ": 1, "SJ": 2,
}


def decks_for(players: int) -> int:
    """The decks a table of ``players`` mixes by default: 3 with three players (three tens each), else 2."""
    return 3 if players == 3 else 2


@dataclass(frozen=True)
class Seating:
    """The players in seat order and the suits of their castles."""

    players: tuple[tuple[str, tuple[Suit, ...]], ...]

    @classmethod
    def from_json(cls, players: Any) -> "Seating":
        """From ``{"black": ["S", "C"], …}`` (the score file) or ``[{"name": …, "suits": […]}, …]`` (a game setup).

        A game setup may leave out the suits: 2 players get hearts+diamonds then spades+clubs,
        3 or 4 players get spades, hearts, diamonds (, clubs) in seat order.
        """
        if isinstance(players, Mapping):
            entries = [(name, suits) for name, suits in players.items()]
        elif isinstance(players, (list, tuple)):
            entries = []
            for index, entry in enumerate(players):
                if isinstance(entry, str):
                    entries.append((entry, None))
                elif isinstance(entry, Mapping) and "name" in entry:
                    unknown = set(entry) - {"name", "suits"}
                    if unknown:
                        raise InvalidSetup(Message("player %(number)s: unknown keys %(unknown)s (expected name, suits)",
                                                   number=index + 1, unknown=str(sorted(unknown))))
                    entries.append((entry["name"], entry.get("suits")))
                else:
                    raise InvalidSetup(Message('player %(number)s must be a name or {"name": …, "suits": […]}, got %(entry)s',
                                               number=index + 1, entry=repr(entry)))
        else:
            raise InvalidSetup(Message('players must be a list or a mapping of name → suits, got %(name)s', name=type(players).__name__))
        count = len(entries)
        if not 2 <= count <= 4:
            raise InvalidSetup(Message('Kingdoms is for 2 to 4 players, got %(count)s', count=count))
        defaults = [["H", "D"], ["S", "C"]] if count == 2 else [["S"], ["H"], ["D"], ["C"]][:count]
        seats = []
        for index, (name, suits) in enumerate(entries):
            if not isinstance(name, str) or not name.strip():
                raise InvalidSetup(Message('player %(number)s needs a non-empty name, got %(name)s', number=index + 1, name=repr(name)))
            if suits is None:
                suits = defaults[index]
            if isinstance(suits, str):
                suits = list(suits)
            if not isinstance(suits, (list, tuple)) or not suits:
                raise InvalidSetup(Message('player %(name)s: suits must be a non-empty list such as ["H", "D"], got %(suits)s',
                                           name=repr(name), suits=repr(suits)))
            parsed = []
            for text in suits:
                try:
                    parsed.append(Suit(str(text).strip().upper()))
                except ValueError:
                    raise InvalidSetup(Message("player %(name)s: unknown suit %(text)s; suits are S H D C",
                                               name=repr(name), text=repr(text))) from None
            seats.append((name.strip(), tuple(parsed)))
        names = [name for name, _ in seats]
        if len(set(names)) != len(names):
            raise InvalidSetup(Message('player names must differ, got %(player)s', player=names))
        all_suits = [s for _, suits in seats for s in suits]
        if len(set(all_suits)) != len(all_suits):
            raise InvalidSetup(Message("a suit can belong to only one player"))
        for name, suits in seats:
            if count == 2:
                colours = {s.is_red for s in suits}
                if len(suits) != 2 or len(colours) != 1:
                    raise InvalidSetup(
                        Message('with 2 players each kingdom is one colour: red ["H", "D"] or black ["S", "C"]; %(name)s has %(value)s',
                                name=repr(name), value=[s.value for s in suits]))
            elif len(suits) != 1:
                raise InvalidSetup(Message("with %(count)s players each player holds one suit; %(name)s has %(value)s",
                                           count=count, name=repr(name), value=[s.value for s in suits]))
        return cls(tuple(seats))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.players)

    def owner_of(self, suit: Suit) -> str | None:
        for name, suits in self.players:
            if suit in suits:
                return name
        return None

    @property
    def default_decks(self) -> int:
        """2 players: 2 decks (two small jokers), 3 players: 3 (three tens each), 4 players: 2."""
        return decks_for(len(self.players))

    @property
    def castle_supply(self) -> tuple[int, int, int, int]:
        """Each player's castles at the start of the game, ranks 1-4."""
        return ({2: 4, 3: 3, 4: 2}[len(self.players)], 1, 1, 1)

    def to_json(self) -> list[dict[str, Any]]:
        return [{"name": name, "suits": [s.value for s in suits]} for name, suits in self.players]


def piece_for(card: Card, seating: Seating, wizard: Card | None = None) -> Piece:
    """The piece a card stands for at this table; :class:`IllegalCard` for a card that has none."""
    if card.kind is Kind.BACK:
        return FACE_DOWN_PIECE
    if wizard is not None and card == wizard:
        return WIZARD
    if card.kind is Kind.BIG_JOKER:
        return GOLD_MINE
    if card.kind is Kind.SMALL_JOKER:
        return MOUNTAIN
    rank, suit = card.standard
    if rank <= 6:
        if suit.is_red:
            return Piece(PieceKind.RESOURCE, value=rank)
        if suit is Suit.SPADES:
            return Piece(PieceKind.HAZARD, value=-rank)
        raise IllegalCard(Message("%(code)s (%(card)s) is not a Kingdoms card: only red A-6 and spade A-6 are territory",
                                  code=card.code, card=CardName(card.code)))
    if card == DRAGON_CARD:
        return DRAGON
    if rank in CASTLE_RANK:
        owner = seating.owner_of(suit)
        if owner is None:
            raise IllegalCard(Message("%(code)s (%(card)s) would be a castle of %(suit)s, but no seated player holds %(suit)s",
                                      code=card.code, card=CardName(card.code), suit=Message(SUIT_NAMES[suit])))
        return Piece(PieceKind.CASTLE, owner=owner, rank=CASTLE_RANK[rank])
    raise IllegalCard(Message("%(code)s (%(card)s) is not a Kingdoms card: of the 7s, 8s and 9s only 9♠ (the dragon) is used",
                              code=card.code, card=CardName(card.code)))


def parse_wizard(code: Any, seating: Seating) -> Card | None:
    """The card the table chose for the knizia wizard: one that is otherwise not a Kingdoms card."""
    if code is None:
        return None
    try:
        card = Card.parse(code)
    except ValueError as error:
        raise InvalidSetup(Message('wizard: %(error)s', error=error)) from None
    if card.kind is Kind.BACK:
        raise InvalidSetup(Message("wizard: a face-down card cannot stand for the wizard"))
    try:
        piece = piece_for(card, seating)
    except IllegalCard:
        return card
    raise InvalidSetup(Message("wizard: %(code)s is already the %(label)s; choose a card with no other meaning, e.g. 7C",
                               code=card.code, label=piece.label))


def cell_name(cell: Sequence[int]) -> str:
    return f"({cell[0]},{cell[1]})"
