"""Mat layouts: data files in mat millimetres that both the printed mat and the camera read.

A layout (``calibration/layouts/<name>.json``) names the mat's size, its ArUco markers (id and
top-left corner, all the same size) and its zones (rectangles, polygons or circles, each with a
name and optionally the player it belongs to). The Chosen mat also has ``rings``: the vault door
and the two circles around it. Mats are drawn from these files, so a table can design its own.

Coordinates: x to the right, y down the sheet, millimetres from the mat's top-left corner.
"""
from __future__ import annotations

import json
import math
import pathlib
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

LAYOUT_DIR = pathlib.Path(__file__).resolve().parent / "layouts"
CARD_MM = (63.0, 88.0)  # a poker card
# A corner index's longer side (rank over suit), as the recogniser boxes it: opposite corner indices
# of a poker card sit ~79 mm apart, 4.2 index sizes on the labelled real photos (companion/vision/grouping.py).
INDEX_MM = 18.0


class LayoutError(ValueError):
    """A layout file that is missing or does not describe a mat."""


@dataclass(frozen=True)
class Marker:
    id: int
    x: float
    y: float
    size: float

    def corners(self) -> np.ndarray:
        """Corners in ArUco order: top-left, top-right, bottom-right, bottom-left."""
        x, y, s = self.x, self.y, self.size
        return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], np.float32)


@dataclass(frozen=True)
class Zone:
    name: str
    shape: str                      # "rect" | "polygon" | "circle"
    points: tuple[tuple[float, float], ...] = ()
    center: tuple[float, float] | None = None
    radius: float | None = None
    label: str = ""
    player: int | None = None       # 1-based seat of the owner, if the zone belongs to a player
    role: str = ""                  # what the zone is for, e.g. "rest", "treasures", "battlefield"
    facing: float = 0.0             # degrees: the direction the label reads (0 = from the bottom edge)

    def contains(self, point: Iterable[float]) -> bool:
        x, y = (float(v) for v in point)
        if self.shape == "circle":
            return math.hypot(x - self.center[0], y - self.center[1]) <= self.radius
        # outside the polygon's bounding box is outside the polygon: the tracker asks every card's zone
        # on every frame, of every zone of the mat (a venue's fifty tables: thousands a second)
        bounds = self.__dict__.get("_bounds")
        if bounds is None:
            xs, ys = [p[0] for p in self.points], [p[1] for p in self.points]
            bounds = (min(xs), min(ys), max(xs), max(ys))
            object.__setattr__(self, "_bounds", bounds)
        if not (bounds[0] <= x <= bounds[2] and bounds[1] <= y <= bounds[3]):
            return False
        return _point_in_polygon(x, y, self.points)

    def centroid(self) -> tuple[float, float]:
        if self.shape == "circle":
            return self.center
        pts = np.asarray(self.points, float)
        return float(pts[:, 0].mean()), float(pts[:, 1].mean())

    def area(self) -> float:
        """The zone's area in mm² (worked out once: ``Layout.zone_at`` asks it for every card on every frame)."""
        known = self.__dict__.get("_area")
        if known is None:
            if self.shape == "circle":
                known = math.pi * self.radius ** 2
            else:
                pts = np.asarray(self.points, float)
                x, y = pts[:, 0], pts[:, 1]
                known = float(abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))) / 2)
            object.__setattr__(self, "_area", known)
        return known


@dataclass(frozen=True)
class Rings:
    """The Chosen's vault door and the two circles around it (radii in mm)."""

    center: tuple[float, float]
    vault: float
    inner: float
    outer: float

    def zone_at(self, point: Iterable[float]) -> str:
        x, y = (float(v) for v in point)
        distance = math.hypot(x - self.center[0], y - self.center[1])
        if distance <= self.vault:
            return "vault"
        if distance <= self.inner:
            return "step2"
        if distance <= self.outer:
            return "step1"
        return "departure"


@dataclass(frozen=True)
class Layout:
    name: str
    game: str
    players: int | None
    size: tuple[float, float]
    markers: tuple[Marker, ...]
    zones: tuple[Zone, ...]
    dictionary: str = "DICT_5X5_100"
    title: str = ""
    rings: Rings | None = None
    notes: tuple[str, ...] = ()
    source: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def width(self) -> float:
        return self.size[0]

    @property
    def height(self) -> float:
        return self.size[1]

    def marker(self, marker_id: int) -> Marker | None:
        return next((m for m in self.markers if m.id == marker_id), None)

    def zone(self, name: str) -> Zone:
        for zone in self.zones:
            if zone.name == name:
                return zone
        raise KeyError(f"layout {self.name} has no zone {name!r}: it has {', '.join(z.name for z in self.zones)}")

    def zone_at(self, point: Iterable[float]) -> Zone | None:
        """The smallest zone holding the point (zones may nest, e.g. a slot inside the battlefield)."""
        holding = [z for z in self.zones if z.contains(point)]
        return min(holding, key=Zone.area) if holding else None

    def on_mat(self, point: Iterable[float], margin: float = 0.0) -> bool:
        x, y = (float(v) for v in point)
        return -margin <= x <= self.width + margin and -margin <= y <= self.height + margin


def _point_in_polygon(x: float, y: float, points) -> bool:
    inside = False
    n = len(points)
    for i in range(n):
        x1, y1 = points[i]
        x2, y2 = points[(i + 1) % n]
        if (y1 > y) != (y2 > y):
            cross = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if x <= cross:
                inside = not inside
    return inside


def layout_from_dict(data: dict, origin: str = "layout") -> Layout:
    """Validates and builds a layout; every problem is reported with the file it came from."""
    try:
        width, height = (float(v) for v in data["size_mm"])
        marker_block = data["markers"]
        marker_size = float(marker_block["size_mm"])
        markers = tuple(Marker(int(m["id"]), float(m["x"]), float(m["y"]), marker_size) for m in marker_block["items"])
        zones = []
        for z in data["zones"]:
            shape = z.get("shape", "rect")
            common = dict(name=str(z["name"]), shape=shape, label=str(z.get("label", z["name"])),
                          player=int(z["player"]) if z.get("player") is not None else None,
                          role=str(z.get("role", "")), facing=float(z.get("facing", 0.0)))
            if shape == "rect":
                x1, y1, x2, y2 = (float(v) for v in z["rect"])
                if not (x2 > x1 and y2 > y1):
                    raise LayoutError(f"{origin}: zone {z['name']!r} has an empty rectangle")
                zones.append(Zone(points=((x1, y1), (x2, y1), (x2, y2), (x1, y2)), **common))
            elif shape == "polygon":
                pts = tuple((float(p[0]), float(p[1])) for p in z["points"])
                if len(pts) < 3:
                    raise LayoutError(f"{origin}: polygon zone {z['name']!r} needs at least 3 points")
                zones.append(Zone(points=pts, **common))
            elif shape == "circle":
                zones.append(Zone(center=(float(z["center"][0]), float(z["center"][1])), radius=float(z["radius"]), **common))
            else:
                raise LayoutError(f"{origin}: zone {z['name']!r} has unknown shape {shape!r} (rect, polygon or circle)")
        rings = None
        if data.get("rings"):
            r = data["rings"]
            rings = Rings((float(r["center"][0]), float(r["center"][1])), float(r["vault"]), float(r["inner"]), float(r["outer"]))
            if not rings.vault < rings.inner < rings.outer:
                raise LayoutError(f"{origin}: rings must grow: vault < inner < outer")
        layout = Layout(
            name=str(data.get("name", origin)), game=str(data["game"]),
            players=int(data["players"]) if data.get("players") is not None else None,
            size=(width, height), markers=markers, zones=tuple(zones),
            dictionary=str(marker_block.get("dictionary", "DICT_5X5_100")), title=str(data.get("title", "")),
            rings=rings, notes=tuple(data.get("notes", ())), source=data,
        )
    except LayoutError:
        raise
    except (KeyError, TypeError, ValueError) as error:
        raise LayoutError(f"{origin}: not a mat layout ({type(error).__name__}: {error})") from None
    ids = [m.id for m in layout.markers]
    if len(set(ids)) != len(ids) or not ids:
        raise LayoutError(f"{origin}: marker ids must be present and distinct, got {ids}")
    names = [z.name for z in layout.zones]
    if len(set(names)) != len(names):
        raise LayoutError(f"{origin}: zone names must be distinct")
    for m in layout.markers:
        if not (0 <= m.x and m.x + m.size <= width and 0 <= m.y and m.y + m.size <= height):
            raise LayoutError(f"{origin}: marker {m.id} lies outside the {width:g}×{height:g} mm mat")
    return layout


def load_layout(spec: "str | pathlib.Path") -> Layout:
    """A layout by name (``dungeon-3p``) from the shipped folder, or by path to a JSON file."""
    path = pathlib.Path(spec)
    if not path.suffix:
        path = LAYOUT_DIR / f"{spec}.json"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in LAYOUT_DIR.glob("*.json")))
        raise LayoutError(f"no mat layout {spec!r}: shipped layouts are {known}")
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise LayoutError(f"{path}: not valid JSON ({error})") from None
    return layout_from_dict(data, str(path))


def layout_for(game: str, players: int | None = None) -> Layout:
    """The shipped layout of a game for a player count (Kingdoms has one for any count)."""
    if game == "kingdoms":
        return load_layout("kingdoms")
    count = players or 3
    path = LAYOUT_DIR / f"{game}-{count}p.json"
    if not path.is_file():
        raise LayoutError(f"no shipped {game} mat for {count} players: draw one as a layout file (see docs/table.md)")
    return load_layout(path)


def shipped_layouts() -> list[str]:
    return sorted(p.stem for p in LAYOUT_DIR.glob("*.json"))
