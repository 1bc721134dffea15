"""Whole boards: the checks a grid of cards must pass, and scoring a board given as rows of codes.

The engine and the score file share these checks, so a grid the CLI accepts is a grid the game
could have produced: legal cards, no more copies than the decks hold, castles within the supply,
face-down cards only inside a dragon's lines, and cards spanning at most 6 × 5.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from companion.cards import Card, Kind
from companion.games.base import GameError
from companion.games.kingdoms.grid import CELLS_IN_GRID, Cell, describe_extent, dragon_reaching, extent, fits
from companion.games.kingdoms.options import Options
from companion.games.kingdoms.pieces import TERRITORY_PILE, IllegalCard, Piece, PieceKind, Seating, cell_name, piece_for
from companion.games.kingdoms.scoring import BoardScore, score
from companion.messages import CardName, Message, Words, english


class InvalidBoard(GameError):
    """A board (from a file or the camera) that no legal game could show."""


def allowed_copies(card: Card, options: Options) -> int | None:
    """How many copies of ``card`` one grid may hold; None for face-down cards (any card could be underneath)."""
    if card.kind is Kind.BACK:
        return None
    if options.territory_limit == "pile":
        if card.code in TERRITORY_PILE:
            return min(TERRITORY_PILE[card.code], options.decks)
        if options.wizard and card.code == options.wizard:
            return 1
    return options.decks


def copies_problem(cards: Iterable[Card], options: Options) -> Message | None:
    for card, count in sorted(Counter(cards).items()):
        code = card.code
        limit = allowed_copies(card, options)
        if limit is not None and count > limit:
            if options.territory_limit == "pile" and code in TERRITORY_PILE:
                return Message("%(count)s copies of %(code)s (%(card)s) in one grid, but the territory pile holds only %(limit)s",
                               count=count, code=code, card=CardName(code), limit=limit)
            return Message("%(count)s copies of %(code)s (%(card)s) in one grid, but %(decks)s deck(s) hold only %(limit)s",
                           count=count, code=code, card=CardName(code), decks=options.decks, limit=limit)
    return None


def supply_problem(pieces: Iterable[Piece], seating: Seating) -> Message | None:
    """Castles beyond what a player starts a game with."""
    used = Counter((p.owner, p.rank) for p in pieces if p.is_castle)
    supply = seating.castle_supply
    for (owner, rank), count in sorted(used.items()):
        if count > supply[rank - 1]:
            return Message("%(owner)s has %(count)s rank-%(rank)s castles in the grid but owns only %(owned)s",
                           owner=owner, count=count, rank=rank, owned=supply[rank - 1])
    return None


def labels_for(cards: Mapping[Cell, Card]) -> dict[Cell, CardName]:
    return {cell: CardName(card.code) for cell, card in cards.items()}


@dataclass(frozen=True)
class ScoredBoard:
    """A board read from rows of codes, its score and the codes as read (for drawing)."""

    rows: tuple[tuple[str | None, ...], ...]
    score: BoardScore
    options: Options

    def to_json(self) -> dict[str, Any]:
        return self.score.to_json()


def parse_rows(rows: Any, seating: Seating, options: Options) -> dict[Cell, Card]:
    """Rows top to bottom of codes or null/"" → cards by 1-based (row, col); :class:`InvalidBoard` on a bad shape or code."""
    if not isinstance(rows, list) or not rows:
        raise InvalidBoard(Message("board must be a non-empty list of rows, each a list of card codes or null"))
    width = None
    cards: dict[Cell, Card] = {}
    for r, row in enumerate(rows, start=1):
        if not isinstance(row, list):
            raise InvalidBoard(Message('board row %(r)s must be a list of card codes or null, got %(name)s', r=r, name=type(row).__name__))
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise InvalidBoard(Message("board row %(r)s has %(count)s cells but row 1 has %(width)s: every row needs the same length",
                                       r=r, count=len(row), width=width))
        for c, code in enumerate(row, start=1):
            if code is None or code == "":
                continue
            if not isinstance(code, str):
                raise InvalidBoard(Message('cell (%(r)s,%(c)s): a card code must be text or null, got %(code)s', r=r, c=c, code=repr(code)))
            try:
                cards[(r, c)] = Card.parse(code)
            except ValueError as error:
                raise InvalidBoard(Message('cell (%(r)s,%(c)s): %(error)s', r=r, c=c, error=error)) from None
    return cards


def check_board(cards: Mapping[Cell, Card], seating: Seating, options: Options) -> dict[Cell, Piece]:
    """The pieces of a whole grid, or :class:`InvalidBoard` naming the first rule it breaks."""
    pieces: dict[Cell, Piece] = {}
    wizard = options.wizard_card
    for cell, card in sorted(cards.items()):
        try:
            pieces[cell] = piece_for(card, seating, wizard)
        except IllegalCard as error:
            raise InvalidBoard(Message('cell %(cell)s: %(error)s', cell=cell_name(cell), error=error)) from None
    height, width = extent(pieces)
    if not fits(height, width, options.orientation):
        raise InvalidBoard(describe_extent(height, width, options.orientation))
    problem = copies_problem(cards.values(), options) or supply_problem(pieces.values(), seating)
    if problem:
        raise InvalidBoard(problem)
    for cell, piece in sorted(pieces.items()):
        if piece.kind is PieceKind.FACE_DOWN and dragon_reaching(pieces, cell) is None:
            raise InvalidBoard(Message("cell %(cell)s: a face-down card is legal only inside the dragon's lines (its row or column, up to a "
                                       "mountain)",
                                       cell=cell_name(cell)))
    return pieces


def score_rows(rows: Any, players: Any, options: Any = None) -> ScoredBoard:
    """Score a board given as rows of codes (top to bottom), full or partly filled.

    ``players`` is ``{"black": ["S", "C"], "red": ["H", "D"]}`` or a setup's player list;
    ``options`` the same named options as a game (``rules``, ``decks``, ``wizard``, …).
    Cells in the result are 1-based from the top-left of the rows as given.
    """
    seating = Seating.from_json(players)
    opts = options if isinstance(options, Options) else Options.from_json(options, seating)
    cards = parse_rows(rows, seating, opts)
    pieces = check_board(cards, seating, opts)
    warnings = []
    if not pieces:
        warnings.append(Message("the board is empty"))
    elif len(pieces) < CELLS_IN_GRID:
        warnings.append(Message("the board is not full: %(count)s of %(cells)s cells hold a card; scored as it stands",
                                count=len(pieces), cells=CELLS_IN_GRID))
    result = score(pieces, seating.names, opts.rules, labels_for(cards)).with_warnings(warnings)
    width = len(rows[0])
    table = tuple(tuple(cards[(r, c)].code if (r, c) in cards else None for c in range(1, width + 1))
                  for r in range(1, len(rows) + 1))
    return ScoredBoard(table, result, opts)


def _short(code: str | None) -> str:
    """A cell drawn in a few characters: ``10♥``, ``BJ``, ``▒`` for face down, ``·`` for empty."""
    if code is None:
        return "·"
    card = Card.parse(code)
    if card.kind is Kind.STANDARD:
        return card.pretty
    return "▒" if card.kind is Kind.BACK else card.code


def render_text(board: ScoredBoard, title: str = "", say: Callable[[Message], str] = english) -> str:
    """The board drawn, each castle's reasoning and the notable tiles, for a person to read (``say`` renders
    a message in the reader's language; English by default)."""
    score_ = board.score
    lines = []
    if title:
        lines.append(say(Message("%(title)s — %(rules)s rules", title=title, rules=score_.rules)))
    width = len(board.rows[0]) if board.rows else 0
    cell_text = {(r, c): _short(code) for r, row in enumerate(board.rows, 1) for c, code in enumerate(row, 1)}
    lines.append("     " + "".join(f"{c:>6}" for c in range(1, width + 1)))
    for r, _row in enumerate(board.rows, 1):
        lines.append(f"{r:>5}" + "".join(f"{cell_text[(r, c)]:>6}" for c in range(1, width + 1)))
    lines.append("")
    for castle in score_.castles:
        lines.append("  " + say(Message("%(lines)s", lines=Words(castle.explain_lines(), clauses=True))))
    notable = [t for t in score_.tiles if t.piece.kind in (PieceKind.RESOURCE, PieceKind.GOLD_MINE, PieceKind.FACE_DOWN,
                                                             PieceKind.HAZARD) and t.reasons]
    if notable:
        lines.append(say(Message("tiles:")))
        lines.extend("  " + say(t.explanation()) for t in notable)
    for warning in score_.warnings:
        lines.append(say(Message("warning: %(warning)s", warning=warning)))
    lines.append(say(Message("totals: %(totals)s", totals=[Message("%(player)s %(total)s", player=name, total=total)
                                                            for name, total in score_.totals.items()])))
    return "\n".join(lines)
