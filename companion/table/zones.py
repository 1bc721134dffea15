"""Zone mapping: a point on the table plane → the name of the place a game cares about.

* Kingdoms: a grid cell ``"r,c"``. The grid floats, so cells are counted from the first settled
  card (``first_cell``; the Kingdoms binding uses the engine's canvas centre, ``6,6``); rows grow
  down and columns right as the camera (or the mat) sees the table, and the lattice's angle and
  spacing are inferred from the cards' own centres.
* Guilds and Dungeon: the smallest named zone of the mat layout holding the point.
* The Chosen: a player's area if the point is in one, else the ring by distance from the vault
  door (``vault``, ``step2``, ``step1``, ``departure``).
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

from calibration.layouts import CARD_MM, Layout


def cell_name(row: int, col: int) -> str:
    return f"{row},{col}"


def parse_cell(zone: str) -> tuple[int, int]:
    try:
        row, col = (int(v) for v in zone.split(","))
    except (ValueError, AttributeError):
        raise ValueError(f"not a grid cell: {zone!r} (expected 'row,col')") from None
    return row, col


class MatZones:
    """Named zones of a mat layout (Dungeon, Chosen); ``margin`` mm around the mat still counts."""

    def __init__(self, layout: Layout, margin: float = 60.0) -> None:
        self.layout = layout
        self.margin = margin

    def __call__(self, position: Sequence[float]) -> str | None:
        if not self.layout.on_mat(position, self.margin):
            return None
        zone = self.layout.zone_at(position)
        if zone is not None and (zone.player is not None or self.layout.rings is None):
            return zone.name
        if self.layout.rings is not None:
            return self.layout.rings.zone_at(position)
        return None

    def player_facing(self, position: Sequence[float]) -> int | None:
        """The seat whose area lies in the direction of ``position`` seen from the vault (Chosen)."""
        areas = [z for z in self.layout.zones if z.player is not None]
        if not areas or self.layout.rings is None:
            return None
        cx, cy = self.layout.rings.center
        angle = math.atan2(position[1] - cy, position[0] - cx)

        def gap(zone):
            zx, zy = zone.centroid()
            return abs(math.remainder(math.atan2(zy - cy, zx - cx) - angle, math.tau))

        return min(areas, key=gap).player


class GridZones:
    """A floating lattice of card cells inferred from card centres (Kingdoms, with or without a mat).

    ``spacing`` is the centre-to-centre distance of neighbouring cells (x, y) in table units; on a
    mat it defaults to a poker card plus a small gap. Without a mat the pipeline sets it from the
    detected card sizes in pixels. The angle is fixed by the first two neighbouring cards; the
    anchor (``first_cell``) is the first settled card, so a cell never changes once given.
    """

    def __init__(self, spacing: tuple[float, float] | None = (CARD_MM[0] + 5.0, CARD_MM[1] + 5.0),
                 angle: float | None = None, first_cell: tuple[int, int] = (1, 1)) -> None:
        self.spacing = spacing
        self.first_cell = first_cell
        self.angle = angle            # radians; the lattice's x axis
        self.anchor: tuple[float, float] | None = None
        self.known: list[tuple[float, float]] = []

    def observe(self, positions: Iterable[Sequence[float]], card_size: tuple[float, float] | None = None) -> None:
        """Learns spacing and angle from the settled cards' centres (and their size, without a mat)."""
        points = [tuple(map(float, p)) for p in positions]
        if card_size and self.spacing is None:
            self.spacing = (card_size[0] * 1.08, card_size[1] * 1.06)
        if self.angle is None and len(points) >= 2 and self.spacing:
            angle = lattice_angle(points, self.spacing)
            if angle is not None:
                self.angle = angle
        self.known = points

    def __call__(self, position: Sequence[float]) -> str | None:
        if self.spacing is None:
            return None
        if self.anchor is None:
            self.anchor = (float(position[0]), float(position[1]))
        row, col = self.cell_of(position)
        return cell_name(row, col)

    def cell_of(self, position: Sequence[float]) -> tuple[int, int]:
        angle = self.angle or 0.0
        dx, dy = position[0] - self.anchor[0], position[1] - self.anchor[1]
        u = dx * math.cos(angle) + dy * math.sin(angle)
        v = -dx * math.sin(angle) + dy * math.cos(angle)
        return int(round(v / self.spacing[1])) + self.first_cell[0], int(round(u / self.spacing[0])) + self.first_cell[1]


def lattice_angle(points: Sequence[Sequence[float]], spacing: tuple[float, float], tolerance: float = 0.2) -> float | None:
    """The angle (radians, in −45°…45°) of the card lattice through the points.

    Only pairs of cards one cell apart count: their distance within ``tolerance`` of a spacing and
    nearer to it than to a diagonal neighbour's, so diagonal neighbours do not tilt the answer (a
    Kingdoms recording of seed 82 laid two diagonal neighbours 110 mm apart on a 68.5 × 93.9 mm
    lattice, within 20 % of the rows' spacing; that pair tilted the lattice 18° and three cards
    already placed were read as moved). Directions are averaged modulo 90° (as 4θ on the unit
    circle), so rows and columns agree.
    """
    pts = np.asarray(points, float)
    if len(pts) < 2:
        return None
    diagonal = math.hypot(*spacing)
    angles = []
    for i in range(len(pts)):
        for j in range(i + 1, len(pts)):
            dx, dy = pts[j] - pts[i]
            length = math.hypot(dx, dy)
            if any(abs(length - s) <= tolerance * s and abs(length - s) < abs(length - diagonal) for s in spacing):
                angles.append(math.atan2(dy, dx))
    if not angles:
        return None
    angles = np.array(angles)
    return float(math.atan2(np.sin(4 * angles).mean(), np.cos(4 * angles).mean()) / 4)
