"""The floating 6×5 grid: bounds, orientation, and the line segments mountains cut.

Cells are ``(row, col)`` integer pairs. Nothing here assumes where the grid's corner is: the
occupied cells' bounding box must fit 6 wide × 5 tall or 5 wide × 6 tall, and lines (rows
and columns) are cut into segments by mountains only; empty cells do not cut a line.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Mapping

from companion.games.kingdoms.pieces import Piece, PieceKind
from companion.messages import Message, N_

Cell = tuple[int, int]
LONG_SIDE, SHORT_SIDE = 6, 5
CELLS_IN_GRID = LONG_SIDE * SHORT_SIDE


def bounding_box(cells: Iterable[Cell]) -> tuple[int, int, int, int] | None:
    """(top, left, bottom, right), inclusive, or None for no cells."""
    cells = list(cells)
    if not cells:
        return None
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    return min(rows), min(cols), max(rows), max(cols)


def extent(cells: Iterable[Cell]) -> tuple[int, int]:
    """(height, width) of the occupied area; (0, 0) when empty."""
    box = bounding_box(cells)
    if box is None:
        return 0, 0
    top, left, bottom, right = box
    return bottom - top + 1, right - left + 1


def fits(height: int, width: int, orientation: str = "either") -> bool:
    wide = height <= SHORT_SIDE and width <= LONG_SIDE
    tall = height <= LONG_SIDE and width <= SHORT_SIDE
    return {"wide": wide, "tall": tall}.get(orientation, wide or tall)


def fixed_orientation(height: int, width: int, orientation: str = "either") -> str | None:
    """'wide' (6 wide × 5 tall) or 'tall' (5 wide × 6 tall) once the cards or the option decide it, else None."""
    if orientation in ("wide", "tall"):
        return orientation
    if width == LONG_SIDE:
        return "wide"
    if height == LONG_SIDE:
        return "tall"
    return None


def describe_extent(height: int, width: int, orientation: str) -> Message:
    allowed = {"wide": N_("6 wide × 5 tall"), "tall": N_("5 wide × 6 tall")}.get(orientation, N_("6 wide × 5 tall or 5 wide × 6 tall"))
    return Message("the cards would span %(width)s column(s) × %(height)s row(s); the grid is %(allowed)s",
                   width=width, height=height, allowed=Message(allowed))


@dataclass(frozen=True)
class Segment:
    """The part of one row or column between the grid's edges and mountains."""

    axis: str                 # "row" or "column"
    line: int                 # the row or column index
    cells: tuple[Cell, ...]   # occupied, non-mountain cells, in order
    before: Cell | None       # the mountain that ends it on the top/left, if any
    after: Cell | None        # the mountain that ends it on the bottom/right, if any

    def describe(self) -> Message:
        ends = [f"({m[0]},{m[1]})" for m in (self.before, self.after) if m is not None]
        where = Message("row %(line)s", line=self.line) if self.axis == "row" else Message("column %(line)s", line=self.line)
        if len(ends) == 2:
            return Message("%(where)s, cut by the mountain at %(first)s and the mountain at %(second)s", where=where,
                           first=ends[0], second=ends[1])
        if ends:
            return Message("%(where)s, cut by the mountain at %(cell)s", where=where, cell=ends[0])
        return Message("%(where)s, edge to edge", where=where)


def segments(pieces: Mapping[Cell, Piece]) -> tuple[dict[Cell, Segment], dict[Cell, Segment]]:
    """Each non-mountain cell's row segment and column segment."""
    by_row: dict[int, list[Cell]] = defaultdict(list)
    by_col: dict[int, list[Cell]] = defaultdict(list)
    for cell in pieces:
        by_row[cell[0]].append(cell)
        by_col[cell[1]].append(cell)
    row_of: dict[Cell, Segment] = {}
    col_of: dict[Cell, Segment] = {}
    for axis, lines, target, key in (("row", by_row, row_of, 1), ("column", by_col, col_of, 0)):
        for line, cells in lines.items():
            cells.sort(key=lambda cell: cell[key])
            run: list[Cell] = []
            before = None
            for cell in cells:
                if pieces[cell].kind is PieceKind.MOUNTAIN:
                    segment = Segment(axis, line, tuple(run), before, cell)
                    for member in run:
                        target[member] = segment
                    run, before = [], cell
                else:
                    run.append(cell)
            segment = Segment(axis, line, tuple(run), before, None)
            for member in run:
                target[member] = segment
    return row_of, col_of


def mountain_between(pieces: Mapping[Cell, Piece], a: Cell, b: Cell) -> Cell | None:
    """The first mountain strictly between two cells of one line, seen from ``a``; None if the line is open."""
    if a[0] == b[0]:
        step = 1 if b[1] > a[1] else -1
        between = [(a[0], c) for c in range(a[1] + step, b[1], step)]
    elif a[1] == b[1]:
        step = 1 if b[0] > a[0] else -1
        between = [(r, a[1]) for r in range(a[0] + step, b[0], step)]
    else:
        raise ValueError(f"{a} and {b} share no line")
    for cell in between:
        piece = pieces.get(cell)
        if piece is not None and piece.kind is PieceKind.MOUNTAIN:
            return cell
    return None


def dragon_reaching(pieces: Mapping[Cell, Piece], cell: Cell) -> Cell | None:
    """A dragon whose row or column segment holds ``cell`` (occupied or not), or None."""
    for other, piece in sorted(pieces.items()):
        if piece.kind is PieceKind.DRAGON and other != cell and (other[0] == cell[0] or other[1] == cell[1]):
            if mountain_between(pieces, other, cell) is None:
                return other
    return None

