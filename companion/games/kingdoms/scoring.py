"""Scoring a Kingdoms grid under the ``poker`` rules (tiles) or the ``knizia`` rules (lines), with reasons.

Every number comes with the reason a person would give at the table: which dragon cancelled a
tile, which gold mine doubled it, which mountain cut a castle's line. Cells are whatever the
caller passes (the engine and the file loader pass 1-based cells from the grid's top-left).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from companion.games.kingdoms.grid import Cell, Segment, mountain_between, segments
from companion.games.kingdoms.pieces import Piece, PieceKind, cell_name

VALUED = (PieceKind.RESOURCE, PieceKind.HAZARD, PieceKind.FACE_DOWN)


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else str(value)


@dataclass(frozen=True)
class Term:
    """One tile as a castle's line counts it."""

    cell: Cell
    label: str
    counts: int
    why: str = ""

    def describe(self) -> str:
        text = f"{self.label} {cell_name(self.cell)} {_signed(self.counts)}"
        return f"{text} ({self.why})" if self.why else text


@dataclass(frozen=True)
class CastleScore:
    owner: str
    cell: Cell
    label: str
    base_rank: int
    rank: int
    row: int
    column: int
    total: int
    row_segment: Segment
    column_segment: Segment
    row_terms: tuple[Term, ...]
    column_terms: tuple[Term, ...]
    cut_off: tuple[str, ...] = ()   # tiles on the castle's lines that a mountain keeps out
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"owner": self.owner, "cell": [self.cell[0], self.cell[1]], "rank": self.rank,
                "row": self.row, "column": self.column, "total": self.total}

    def explain(self) -> str:
        def line(name: str, segment: Segment, terms: tuple[Term, ...], total: int) -> str:
            body = ", ".join(t.describe() for t in terms) if terms else "nothing that counts"
            return f"{name} ({segment.describe()}): {body} = {total}"

        parts = [f"{self.owner}'s {self.label} (rank {self.base_rank}) at {cell_name(self.cell)}",
                 line("row", self.row_segment, self.row_terms, self.row),
                 line("column", self.column_segment, self.column_terms, self.column)]
        parts.extend(self.cut_off)
        parts.extend(self.notes)
        parts.append(f"total ({self.row} {'+' if self.column >= 0 else '-'} {abs(self.column)}) × {self.rank} = {self.total}")
        return "; ".join(parts)


@dataclass(frozen=True)
class TileNote:
    """What one occupied cell is worth and why."""

    cell: Cell
    label: str
    piece: Piece
    counts: int | None            # poker: what every castle scoring it gets; knizia: None
    reasons: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"cell": [self.cell[0], self.cell[1]], "card": self.label, "piece": self.piece.to_json(),
                "counts": self.counts, "reasons": list(self.reasons), "text": self.explain()}

    def explain(self) -> str:
        head = f"{cell_name(self.cell)} {self.label}: {self.piece.label}"
        if self.counts is not None and self.piece.kind in VALUED:
            head += f", counts {_signed(self.counts)}"
        return f"{head}: {'; '.join(self.reasons)}" if self.reasons else head


@dataclass(frozen=True)
class BoardScore:
    rules: str
    players: tuple[str, ...]
    castles: tuple[CastleScore, ...]
    tiles: tuple[TileNote, ...]
    warnings: tuple[str, ...] = ()

    @property
    def totals(self) -> dict[str, int]:
        totals = {name: 0 for name in self.players}
        for castle in self.castles:
            totals[castle.owner] += castle.total
        return totals

    def with_warnings(self, warnings: Sequence[str]) -> "BoardScore":
        return BoardScore(self.rules, self.players, self.castles, self.tiles, tuple(warnings) + self.warnings)

    def to_json(self) -> dict[str, Any]:
        return {"totals": self.totals, "castles": [c.to_json() for c in self.castles], "warnings": list(self.warnings)}

    def explanations(self) -> dict[str, Any]:
        return {"castles": [c.explain() for c in self.castles], "tiles": [t.to_json() for t in self.tiles]}


def _label(cell: Cell, labels: Mapping[Cell, str] | None, piece: Piece) -> str:
    if labels and cell in labels:
        return labels[cell]
    return piece.label


def _castle_order(players: Sequence[str]) -> Callable[[tuple[Cell, Piece]], tuple[int, int, Cell]]:
    seat = {name: i for i, name in enumerate(players)}
    return lambda item: (seat.get(item[1].owner or "", len(seat)), -item[1].rank, item[0])


def _wizard_bonus(pieces: Mapping[Cell, Piece], cell: Cell) -> list[Cell]:
    r, c = cell
    return [n for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if n in pieces and pieces[n].kind is PieceKind.WIZARD]


def _cut_off(pieces: Mapping[Cell, Piece], labels: Mapping[Cell, str] | None, castle: Cell, segment: Segment,
             line: Sequence[Cell]) -> list[str]:
    """Valued tiles and effect tiles on the castle's line that a mountain keeps out of its segment."""
    notes = []
    inside = set(segment.cells)
    for cell in line:
        if cell == castle or cell in inside:
            continue
        piece = pieces[cell]
        if piece.kind in (PieceKind.RESOURCE, PieceKind.HAZARD, PieceKind.DRAGON, PieceKind.GOLD_MINE):
            mountain = mountain_between(pieces, castle, cell)
            behind = f"behind the mountain at {cell_name(mountain)}" if mountain else "cut off"
            notes.append(f"{_label(cell, labels, piece)} {cell_name(cell)} is {behind}")
    return notes


def _lines(pieces: Mapping[Cell, Piece]) -> tuple[dict[int, list[Cell]], dict[int, list[Cell]]]:
    rows: dict[int, list[Cell]] = {}
    cols: dict[int, list[Cell]] = {}
    for cell in sorted(pieces):
        rows.setdefault(cell[0], []).append(cell)
        cols.setdefault(cell[1], []).append(cell)
    return rows, cols


def _blocked_effects(pieces: Mapping[Cell, Piece], cell: Cell, effects: Sequence[Cell]) -> list[str]:
    """Dragons and gold mines on the cell's lines that a mountain keeps from reaching it."""
    notes = []
    for other in effects:
        if other == cell or (other[0] != cell[0] and other[1] != cell[1]):
            continue
        mountain = mountain_between(pieces, other, cell)
        if mountain is not None:
            name = "dragon" if pieces[other].kind is PieceKind.DRAGON else "gold mine"
            notes.append(f"the {name} at {cell_name(other)} would reach it but the mountain at {cell_name(mountain)} is in between")
    return notes


def score_poker(pieces: Mapping[Cell, Piece], players: Sequence[str], labels: Mapping[Cell, str] | None = None) -> BoardScore:
    """The ruling's scoring: dragon first, gold mine second (a property of the tile), castles by segments."""
    row_of, col_of = segments(pieces)
    cancelled: dict[Cell, tuple[Cell, str]] = {}
    for dragon in sorted(c for c, p in pieces.items() if p.kind is PieceKind.DRAGON):
        for axis, segment in (("row", row_of[dragon]), ("column", col_of[dragon])):
            for cell in segment.cells:
                if cell != dragon:
                    cancelled.setdefault(cell, (dragon, axis))
    doubled: dict[Cell, tuple[Cell, str]] = {}
    for mine in sorted(c for c, p in pieces.items() if p.kind is PieceKind.GOLD_MINE):
        if mine in cancelled:
            continue
        for axis, segment in (("row", row_of[mine]), ("column", col_of[mine])):
            for cell in segment.cells:
                if cell != mine:
                    doubled.setdefault(cell, (mine, axis))

    effects = sorted(c for c, p in pieces.items() if p.kind in (PieceKind.DRAGON, PieceKind.GOLD_MINE))
    by_row, by_col = _lines(pieces)
    values: dict[Cell, int] = {}
    why: dict[Cell, str] = {}
    tiles = []
    warnings = []
    for cell in sorted(pieces):
        piece = pieces[cell]
        reasons: list[str] = []
        value = 0
        kind = piece.kind
        if kind is PieceKind.RESOURCE:
            if cell in cancelled:
                dragon, axis = cancelled[cell]
                why[cell] = f"cancelled by the dragon at {cell_name(dragon)}"
                reasons.append(f"cancelled by the dragon at {cell_name(dragon)} in its {axis}")
                if cell in doubled:
                    reasons.append(f"the gold mine at {cell_name(doubled[cell][0])} doubles nothing the dragon cancelled")
            elif cell in doubled:
                mine, axis = doubled[cell]
                value = piece.value * 2
                why[cell] = f"{piece.value} doubled by the gold mine at {cell_name(mine)}"
                reasons.append(f"doubled by the gold mine at {cell_name(mine)} in its {axis}, "
                               f"for every castle that scores it")
            else:
                value = piece.value
            reasons += _blocked_effects(pieces, cell, effects)
        elif kind is PieceKind.HAZARD:
            value = piece.value
            if cell in doubled:
                reasons.append(f"hazards are never doubled (gold mine at {cell_name(doubled[cell][0])})")
            if cell in cancelled:
                reasons.append(f"the dragon at {cell_name(cancelled[cell][0])} cancels only positive values")
        elif kind is PieceKind.GOLD_MINE:
            if cell in cancelled:
                dragon, axis = cancelled[cell]
                reasons.append(f"cancelled by the dragon at {cell_name(dragon)} in its {axis}: it doubles nothing")
            else:
                reasons.append("doubles the resources of its row and column segments; worth 0, does not block")
        elif kind is PieceKind.DRAGON:
            reasons.append("cancels the resources of its row and column segments; worth 0, does not block")
        elif kind is PieceKind.MOUNTAIN:
            reasons.append("cuts its row and column: effects and castles stop here")
        elif kind is PieceKind.FACE_DOWN:
            if cell in cancelled:
                reasons.append(f"face down in the lines of the dragon at {cell_name(cancelled[cell][0])}: worth 0, does not block")
            else:
                reasons.append("face down: worth 0, does not block")
                warnings.append(f"the face-down card at {cell_name(cell)} is in no dragon's lines; it was counted as 0")
        elif kind is PieceKind.CASTLE:
            reasons.append("worth 0, does not block")
        elif kind is PieceKind.WIZARD:
            reasons.append("the wizard has no effect under poker rules; worth 0, does not block")
        values[cell] = value
        tiles.append(TileNote(cell, _label(cell, labels, piece), piece, value, tuple(reasons)))

    castles = []
    for cell, piece in sorted(((c, p) for c, p in pieces.items() if p.is_castle), key=_castle_order(players)):
        sums, terms = [], []
        for segment in (row_of[cell], col_of[cell]):
            line_terms = tuple(Term(t, _label(t, labels, pieces[t]), values[t], why.get(t, ""))
                               for t in segment.cells if t != cell and pieces[t].kind in VALUED)
            terms.append(line_terms)
            sums.append(sum(values[t] for t in segment.cells))
        cut = (_cut_off(pieces, labels, cell, row_of[cell], by_row[cell[0]])
               + _cut_off(pieces, labels, cell, col_of[cell], by_col[cell[1]]))
        castles.append(CastleScore(piece.castle_owner, cell, _label(cell, labels, piece), piece.rank, piece.rank, sums[0], sums[1],
                                   (sums[0] + sums[1]) * piece.rank, row_of[cell], col_of[cell], terms[0], terms[1],
                                   tuple(cut)))
    return BoardScore("poker", tuple(players), tuple(castles), tuple(tiles), tuple(warnings))


def score_knizia(pieces: Mapping[Cell, Piece], players: Sequence[str], labels: Mapping[Cell, str] | None = None) -> BoardScore:
    """The boxed game: every row and column segment scored on its own; the wizard raises adjacent castles."""
    row_of, col_of = segments(pieces)
    segment_value: dict[Segment, int] = {}
    segment_terms: dict[Segment, dict[Cell, Term]] = {}
    for segment in set(row_of.values()) | set(col_of.values()):
        kinds = {pieces[c].kind for c in segment.cells}
        has_dragon, has_mine = PieceKind.DRAGON in kinds, PieceKind.GOLD_MINE in kinds
        terms = {}
        for cell in segment.cells:
            piece = pieces[cell]
            if piece.kind not in VALUED:
                continue
            value, notes = piece.value, []
            if piece.kind is PieceKind.RESOURCE and has_dragon:
                value, notes = 0, ["the dragon is in this segment"]
            if has_mine and value:
                value, notes = value * 2, notes + ["the gold mine doubles this segment"]
            terms[cell] = Term(cell, _label(cell, labels, piece), value, "; ".join(notes))
        segment_terms[segment] = terms
        segment_value[segment] = sum(t.counts for t in terms.values())

    by_row, by_col = _lines(pieces)
    tiles, warnings = [], []
    for cell in sorted(pieces):
        piece = pieces[cell]
        reasons = []
        if piece.kind is PieceKind.MOUNTAIN:
            reasons.append("cuts its row and column: effects and castles stop here")
        else:
            for axis, segment in (("row", row_of[cell]), ("column", col_of[cell])):
                term = segment_terms[segment].get(cell)
                if term is not None:
                    reasons.append(f"in its {axis} counts {_signed(term.counts)}" + (f" ({term.why})" if term.why else ""))
            if piece.kind in (PieceKind.DRAGON, PieceKind.GOLD_MINE):
                verb = "zeroes the resources" if piece.kind is PieceKind.DRAGON else "doubles the whole sum"
                reasons.append(f"{verb} of its own row and column segments; worth 0, does not block")
            elif piece.kind is PieceKind.WIZARD:
                reasons.append("raises by one the rank of each castle next to it; worth 0, does not block")
            elif piece.kind is PieceKind.CASTLE:
                reasons.append("worth 0, does not block")
        if piece.kind is PieceKind.FACE_DOWN:
            reasons.append("face down: worth 0, does not block")
            warnings.append(f"the face-down card at {cell_name(cell)} was counted as 0; under knizia rules its real "
                            "value would count in a segment without the dragon")
        tiles.append(TileNote(cell, _label(cell, labels, piece), piece, None, tuple(reasons)))

    castles = []
    for cell, piece in sorted(((c, p) for c, p in pieces.items() if p.is_castle), key=_castle_order(players)):
        wizards = _wizard_bonus(pieces, cell)
        rank = piece.rank + len(wizards)
        row, column = segment_value[row_of[cell]], segment_value[col_of[cell]]
        wizard_notes = tuple(f"the wizard at {cell_name(w)} raises its rank by one" for w in wizards)
        cut = (_cut_off(pieces, labels, cell, row_of[cell], by_row[cell[0]])
               + _cut_off(pieces, labels, cell, col_of[cell], by_col[cell[1]]))
        castles.append(CastleScore(piece.castle_owner, cell, _label(cell, labels, piece), piece.rank, rank, row, column,
                                   (row + column) * rank, row_of[cell], col_of[cell],
                                   tuple(segment_terms[row_of[cell]].values()),
                                   tuple(segment_terms[col_of[cell]].values()), tuple(cut), wizard_notes))
    return BoardScore("knizia", tuple(players), tuple(castles), tuple(tiles), tuple(warnings))


SCORERS = {"poker": score_poker, "knizia": score_knizia}


def score(pieces: Mapping[Cell, Piece], players: Sequence[str], rules: str = "poker",
          labels: Mapping[Cell, str] | None = None) -> BoardScore:
    return SCORERS[rules](pieces, players, labels)
