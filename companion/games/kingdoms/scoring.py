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
from companion.messages import CardName, Message, N_, Words, english

Label = Message | CardName | str   # a tile in a sentence: its card (as the table has it) or the piece

VALUED = (PieceKind.RESOURCE, PieceKind.HAZARD, PieceKind.FACE_DOWN)


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else str(value)


@dataclass(frozen=True)
class Term:
    """One tile as a castle's line counts it."""

    cell: Cell
    label: Label
    counts: int
    why: Message | str = ""

    def describe(self) -> Message:
        if self.why:
            return Message("%(tile)s %(cell)s %(counts)s (%(why)s)", tile=self.label, cell=cell_name(self.cell),
                           counts=_signed(self.counts), why=self.why)
        return Message("%(tile)s %(cell)s %(counts)s", tile=self.label, cell=cell_name(self.cell), counts=_signed(self.counts))


@dataclass(frozen=True)
class CastleScore:
    owner: str
    cell: Cell
    label: Label
    base_rank: int
    rank: int
    row: int
    column: int
    total: int
    row_segment: Segment
    column_segment: Segment
    row_terms: tuple[Term, ...]
    column_terms: tuple[Term, ...]
    cut_off: tuple[Message, ...] = ()   # tiles on the castle's lines that a mountain keeps out
    notes: tuple[Message, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"owner": self.owner, "cell": [self.cell[0], self.cell[1]], "rank": self.rank,
                "row": self.row, "column": self.column, "total": self.total}

    def explain_lines(self) -> list[Message]:
        """The explanation, one message per line (castle, row, column, what a mountain keeps out, the total)."""
        def line(segment: Segment, terms: tuple[Term, ...], total: int) -> Message:
            body = [t.describe() for t in terms] if terms else Message("nothing that counts")
            return Message("%(segment)s: %(terms)s = %(total)s", segment=segment.describe(), terms=body, total=total)

        parts = [Message("%(owner)s's %(castle)s (rank %(rank)s) at %(cell)s", owner=self.owner, castle=self.label,
                         rank=self.base_rank, cell=cell_name(self.cell)),
                 line(self.row_segment, self.row_terms, self.row),
                 line(self.column_segment, self.column_terms, self.column)]
        parts.extend(self.cut_off)
        parts.extend(self.notes)
        parts.append(Message("total (%(row)s %(sign)s %(column)s) × %(rank)s = %(total)s", row=self.row,
                             sign="+" if self.column >= 0 else "-", column=abs(self.column), rank=self.rank, total=self.total))
        return parts

    def explain(self) -> str:
        """The explanation in English, its lines joined by "; " (the command line's and tests' text)."""
        return "; ".join(english(part) for part in self.explain_lines())


@dataclass(frozen=True)
class TileNote:
    """What one occupied cell is worth and why."""

    cell: Cell
    label: Label
    piece: Piece
    counts: int | None            # poker: what every castle scoring it gets; knizia: None
    reasons: tuple[Message, ...]

    def to_json(self) -> dict[str, Any]:
        return {"cell": [self.cell[0], self.cell[1]], "card": english(self.label) if isinstance(self.label, Message) else
                (self.label.code if isinstance(self.label, CardName) else self.label), "piece": self.piece.to_json(),
                "counts": self.counts, "reasons": [r.to_json() for r in self.reasons], "text": self.explanation().to_json()}

    def explanation(self) -> Message:
        if self.counts is not None and self.piece.kind in VALUED:
            head = Message("%(cell)s %(tile)s: %(piece)s, counts %(counts)s", cell=cell_name(self.cell), tile=self.label,
                           piece=self.piece.label, counts=_signed(self.counts))
        else:
            head = Message("%(cell)s %(tile)s: %(piece)s", cell=cell_name(self.cell), tile=self.label, piece=self.piece.label)
        if self.reasons:
            return Message("%(head)s: %(reasons)s", head=head, reasons=Words(self.reasons, clauses=True))
        return head

    def explain(self) -> str:
        return english(self.explanation())


@dataclass(frozen=True)
class BoardScore:
    rules: str
    players: tuple[str, ...]
    castles: tuple[CastleScore, ...]
    tiles: tuple[TileNote, ...]
    warnings: tuple[Message, ...] = ()

    @property
    def totals(self) -> dict[str, int]:
        totals = {name: 0 for name in self.players}
        for castle in self.castles:
            totals[castle.owner] += castle.total
        return totals

    def with_warnings(self, warnings: Sequence[Message]) -> "BoardScore":
        return BoardScore(self.rules, self.players, self.castles, self.tiles, tuple(warnings) + self.warnings)

    def to_json(self) -> dict[str, Any]:
        return {"totals": self.totals, "castles": [c.to_json() for c in self.castles], "warnings": [w.to_json() for w in self.warnings]}

    def explanations(self) -> dict[str, Any]:
        """Each castle's explanation as a list of message lines, each tile's note (their JSON: views carry no prose)."""
        return {"castles": [[line.to_json() for line in c.explain_lines()] for c in self.castles],
                "tiles": [t.to_json() for t in self.tiles]}


def _label(cell: Cell, labels: Mapping[Cell, Label] | None, piece: Piece) -> Label:
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


def _cut_off(pieces: Mapping[Cell, Piece], labels: Mapping[Cell, Label] | None, castle: Cell, segment: Segment,
             line: Sequence[Cell]) -> list[Message]:
    """Valued tiles and effect tiles on the castle's line that a mountain keeps out of its segment."""
    notes = []
    inside = set(segment.cells)
    for cell in line:
        if cell == castle or cell in inside:
            continue
        piece = pieces[cell]
        if piece.kind in (PieceKind.RESOURCE, PieceKind.HAZARD, PieceKind.DRAGON, PieceKind.GOLD_MINE):
            mountain = mountain_between(pieces, castle, cell)
            if mountain:
                notes.append(Message("%(tile)s %(cell)s is behind the mountain at %(mountain)s", tile=_label(cell, labels, piece),
                                     cell=cell_name(cell), mountain=cell_name(mountain)))
            else:
                notes.append(Message("%(tile)s %(cell)s is cut off", tile=_label(cell, labels, piece), cell=cell_name(cell)))
    return notes


def _lines(pieces: Mapping[Cell, Piece]) -> tuple[dict[int, list[Cell]], dict[int, list[Cell]]]:
    rows: dict[int, list[Cell]] = {}
    cols: dict[int, list[Cell]] = {}
    for cell in sorted(pieces):
        rows.setdefault(cell[0], []).append(cell)
        cols.setdefault(cell[1], []).append(cell)
    return rows, cols


def _blocked_effects(pieces: Mapping[Cell, Piece], cell: Cell, effects: Sequence[Cell]) -> list[Message]:
    """Dragons and gold mines on the cell's lines that a mountain keeps from reaching it."""
    notes = []
    for other in effects:
        if other == cell or (other[0] != cell[0] and other[1] != cell[1]):
            continue
        mountain = mountain_between(pieces, other, cell)
        if mountain is not None:
            text = (N_("the dragon at %(cell)s would reach it but the mountain at %(mountain)s is in between")
                    if pieces[other].kind is PieceKind.DRAGON else
                    N_("the gold mine at %(cell)s would reach it but the mountain at %(mountain)s is in between"))
            notes.append(Message(text, cell=cell_name(other), mountain=cell_name(mountain)))
    return notes


def score_poker(pieces: Mapping[Cell, Piece], players: Sequence[str], labels: Mapping[Cell, Label] | None = None) -> BoardScore:
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
    why: dict[Cell, Message] = {}
    tiles = []
    warnings = []
    for cell in sorted(pieces):
        piece = pieces[cell]
        reasons: list[Message] = []
        value = 0
        kind = piece.kind
        if kind is PieceKind.RESOURCE:
            if cell in cancelled:
                dragon, axis = cancelled[cell]
                why[cell] = Message("cancelled by the dragon at %(cell)s", cell=cell_name(dragon))
                reasons.append(_in_its_line(N_("cancelled by the dragon at %(cell)s in its row"),
                                            N_("cancelled by the dragon at %(cell)s in its column"), axis, cell=cell_name(dragon)))
                if cell in doubled:
                    reasons.append(Message("the gold mine at %(cell)s doubles nothing the dragon cancelled", cell=cell_name(doubled[cell][0])))
            elif cell in doubled:
                mine, axis = doubled[cell]
                value = piece.value * 2
                why[cell] = Message("%(value)s doubled by the gold mine at %(cell)s", value=piece.value, cell=cell_name(mine))
                reasons.append(_in_its_line(N_("doubled by the gold mine at %(cell)s in its row, for every castle that scores it"),
                                            N_("doubled by the gold mine at %(cell)s in its column, for every castle that scores it"),
                                            axis, cell=cell_name(mine)))
            else:
                value = piece.value
            reasons += _blocked_effects(pieces, cell, effects)
        elif kind is PieceKind.HAZARD:
            value = piece.value
            if cell in doubled:
                reasons.append(Message("hazards are never doubled (gold mine at %(cell)s)", cell=cell_name(doubled[cell][0])))
            if cell in cancelled:
                reasons.append(Message("the dragon at %(cell)s cancels only positive values", cell=cell_name(cancelled[cell][0])))
        elif kind is PieceKind.GOLD_MINE:
            if cell in cancelled:
                dragon, axis = cancelled[cell]
                reasons.append(_in_its_line(N_("cancelled by the dragon at %(cell)s in its row: it doubles nothing"),
                                            N_("cancelled by the dragon at %(cell)s in its column: it doubles nothing"), axis,
                                            cell=cell_name(dragon)))
            else:
                reasons.append(Message("doubles the resources of its row and column segments; worth 0, does not block"))
        elif kind is PieceKind.DRAGON:
            reasons.append(Message("cancels the resources of its row and column segments; worth 0, does not block"))
        elif kind is PieceKind.MOUNTAIN:
            reasons.append(Message("cuts its row and column: effects and castles stop here"))
        elif kind is PieceKind.FACE_DOWN:
            if cell in cancelled:
                reasons.append(Message("face down in the lines of the dragon at %(cell)s: worth 0, does not block",
                                       cell=cell_name(cancelled[cell][0])))
            else:
                reasons.append(Message("face down: worth 0, does not block"))
                warnings.append(Message("the face-down card at %(cell)s is in no dragon's lines; it was counted as 0", cell=cell_name(cell)))
        elif kind is PieceKind.CASTLE:
            reasons.append(Message("worth 0, does not block"))
        elif kind is PieceKind.WIZARD:
            reasons.append(Message("the wizard has no effect under poker rules; worth 0, does not block"))
        values[cell] = value
        tiles.append(TileNote(cell, _label(cell, labels, piece), piece, value, tuple(reasons)))

    castles = []
    for cell, piece in sorted(((c, p) for c, p in pieces.items() if p.is_castle), key=_castle_order(players)):
        sums, terms = [], []
        for segment in (row_of[cell], col_of[cell]):
            line_terms = tuple(Term(t, _label(t, labels, pieces[t]), values[t], why.get(t) or "")
                               for t in segment.cells if t != cell and pieces[t].kind in VALUED)
            terms.append(line_terms)
            sums.append(sum(values[t] for t in segment.cells))
        cut = (_cut_off(pieces, labels, cell, row_of[cell], by_row[cell[0]])
               + _cut_off(pieces, labels, cell, col_of[cell], by_col[cell[1]]))
        castles.append(CastleScore(piece.castle_owner, cell, _label(cell, labels, piece), piece.rank, piece.rank, sums[0], sums[1],
                                   (sums[0] + sums[1]) * piece.rank, row_of[cell], col_of[cell], terms[0], terms[1],
                                   tuple(cut)))
    return BoardScore("poker", tuple(players), tuple(castles), tuple(tiles), tuple(warnings))


def score_knizia(pieces: Mapping[Cell, Piece], players: Sequence[str], labels: Mapping[Cell, Label] | None = None) -> BoardScore:
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
                value, notes = 0, [Message("the dragon is in this segment")]
            if has_mine and value:
                value, notes = value * 2, notes + [Message("the gold mine doubles this segment")]
            terms[cell] = Term(cell, _label(cell, labels, piece), value, Message("%(notes)s", notes=Words(notes, clauses=True)) if notes else "")
        segment_terms[segment] = terms
        segment_value[segment] = sum(t.counts for t in terms.values())

    by_row, by_col = _lines(pieces)
    tiles, warnings = [], []
    for cell in sorted(pieces):
        piece = pieces[cell]
        reasons: list[Message] = []
        if piece.kind is PieceKind.MOUNTAIN:
            reasons.append(Message("cuts its row and column: effects and castles stop here"))
        else:
            for axis, segment in (("row", row_of[cell]), ("column", col_of[cell])):
                term = segment_terms[segment].get(cell)
                if term is not None:
                    if term.why:
                        reasons.append(_in_its_line(N_("in its row counts %(counts)s (%(why)s)"), N_("in its column counts %(counts)s (%(why)s)"),
                                                    axis, counts=_signed(term.counts), why=term.why))
                    else:
                        reasons.append(_in_its_line(N_("in its row counts %(counts)s"), N_("in its column counts %(counts)s"), axis,
                                                    counts=_signed(term.counts)))
            if piece.kind is PieceKind.DRAGON:
                reasons.append(Message("zeroes the resources of its own row and column segments; worth 0, does not block"))
            elif piece.kind is PieceKind.GOLD_MINE:
                reasons.append(Message("doubles the whole sum of its own row and column segments; worth 0, does not block"))
            elif piece.kind is PieceKind.WIZARD:
                reasons.append(Message("raises by one the rank of each castle next to it; worth 0, does not block"))
            elif piece.kind is PieceKind.CASTLE:
                reasons.append(Message("worth 0, does not block"))
        if piece.kind is PieceKind.FACE_DOWN:
            reasons.append(Message("face down: worth 0, does not block"))
            warnings.append(Message("the face-down card at %(cell)s was counted as 0; under knizia rules its real "
                                    "value would count in a segment without the dragon", cell=cell_name(cell)))
        tiles.append(TileNote(cell, _label(cell, labels, piece), piece, None, tuple(reasons)))

    castles = []
    for cell, piece in sorted(((c, p) for c, p in pieces.items() if p.is_castle), key=_castle_order(players)):
        wizards = _wizard_bonus(pieces, cell)
        rank = piece.rank + len(wizards)
        row, column = segment_value[row_of[cell]], segment_value[col_of[cell]]
        wizard_notes = tuple(Message("the wizard at %(cell)s raises its rank by one", cell=cell_name(w)) for w in wizards)
        cut = (_cut_off(pieces, labels, cell, row_of[cell], by_row[cell[0]])
               + _cut_off(pieces, labels, cell, col_of[cell], by_col[cell[1]]))
        castles.append(CastleScore(piece.castle_owner, cell, _label(cell, labels, piece), piece.rank, rank, row, column,
                                   (row + column) * rank, row_of[cell], col_of[cell],
                                   tuple(segment_terms[row_of[cell]].values()),
                                   tuple(segment_terms[col_of[cell]].values()), tuple(cut), wizard_notes))
    return BoardScore("knizia", tuple(players), tuple(castles), tuple(tiles), tuple(warnings))


def _in_its_line(row_text: str, column_text: str, axis: str, **params: Any) -> Message:
    """One of two sentences, as the tile lies in a castle's row or column (the languages say these differently)."""
    return Message(row_text if axis == "row" else column_text, **params)


SCORERS = {"poker": score_poker, "knizia": score_knizia}


def score(pieces: Mapping[Cell, Piece], players: Sequence[str], rules: str = "poker",
          labels: Mapping[Cell, Label] | None = None) -> BoardScore:
    return SCORERS[rules](pieces, players, labels)
