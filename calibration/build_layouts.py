"""Writes the shipped layout files (``python -m calibration.build_layouts``).

The JSON files are the source of truth for mats and the camera; this script only saves typing
millimetres by hand and documents how the shipped mats were laid out. Seats go clockwise seen from
above: player 1 at the bottom edge, then left, top, right.
"""
from __future__ import annotations

import json

from calibration.layouts import LAYOUT_DIR

MARKER_MM = 40.0
MARGIN_MM = 10.0


def _corner_markers(width: float, height: float, first_id: int) -> list[dict]:
    far_x, far_y = width - MARGIN_MM - MARKER_MM, height - MARGIN_MM - MARKER_MM
    spots = [(MARGIN_MM, MARGIN_MM), (far_x, MARGIN_MM), (far_x, far_y), (MARGIN_MM, far_y)]
    return [{"id": first_id + i, "x": x, "y": y} for i, (x, y) in enumerate(spots)]


def _seats(players: int) -> list[str]:
    return {2: ["bottom", "top"], 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"]}[players]


def _strip(side: str, width: float, height: float, depth: float, length: float) -> tuple[float, float, float, float]:
    """The rectangle along one edge of the mat where a player sits."""
    cx, cy = width / 2, height / 2
    if side == "bottom":
        return cx - length / 2, height - MARGIN_MM - depth, cx + length / 2, height - MARGIN_MM
    if side == "top":
        return cx - length / 2, MARGIN_MM, cx + length / 2, MARGIN_MM + depth
    if side == "left":
        return MARGIN_MM, cy - length / 2, MARGIN_MM + depth, cy + length / 2
    return width - MARGIN_MM - depth, cy - length / 2, width - MARGIN_MM, cy + length / 2


_FACING = {"bottom": 0.0, "left": 90.0, "top": 180.0, "right": 270.0}


def _split_strip(side: str, rect, fractions: list[float]) -> list[tuple[float, float, float, float]]:
    """Splits a player's strip into parts ordered from the player's left to their right."""
    x1, y1, x2, y2 = rect
    gap = 4.0
    out = []
    along_x = side in ("bottom", "top")
    start, end = (x1, x2) if along_x else (y1, y2)
    total = end - start - gap * (len(fractions) - 1)
    # the player's left: bottom seat → small x; top seat → large x; left seat → small y; right seat → large y
    reverse = side in ("top", "right")
    position = end if reverse else start
    for f in fractions:
        size = total * f
        a, b = (position - size, position) if reverse else (position, position + size)
        position = a - gap if reverse else b + gap
        out.append((a, y1, b, y2) if along_x else (x1, a, x2, b))
    return out


def kingdoms_layout() -> dict:
    # Big enough for the 6×5 grid either way round (408×465 or 340×558 mm of cards) between the
    # corner markers, so the cards never cover a marker.
    width, height = 520.0, 600.0
    inner = MARGIN_MM + MARKER_MM + 5
    return {
        "name": "kingdoms", "game": "kingdoms", "players": None,
        "title": "Kingdoms — lay the 6×5 grid anywhere inside the frame",
        "size_mm": [width, height],
        "markers": {"dictionary": "DICT_5X5_100", "size_mm": MARKER_MM, "items": _corner_markers(width, height, 0)},
        "zones": [{"name": "table", "label": "the grid floats: start anywhere", "shape": "rect",
                   "rect": [inner, MARGIN_MM, width - inner, height - MARGIN_MM], "role": "grid"}],
        "notes": ["The markers give the camera scale and perspective; cells come from the cards themselves."],
    }


def dungeon_layout(players: int) -> dict:
    width, height = 700.0, 620.0
    cx = width / 2
    top = 130.0
    zones = [
        {"name": "marker", "label": "doubling marker", "shape": "rect", "rect": [cx - 145, top + 15, cx - 45, top + 85], "role": "marker"},
        {"name": "dungeon", "label": "dungeon", "shape": "rect", "rect": [cx - 38, top, cx + 38, top + 100], "role": "dungeon"},
        {"name": "exile", "label": "exile", "shape": "rect", "rect": [cx + 48, top, cx + 124, top + 100], "role": "exile"},
        {"name": "battlefield", "label": "battlefield: revealed", "shape": "rect", "rect": [cx - 160, top + 108, cx + 160, top + 206],
         "role": "battlefield"},
    ]
    slot_top, slot_bottom = top + 212, top + 310
    slot_width = 320.0 / players
    for seat in range(players):
        x1 = cx - 160 + seat * slot_width
        zones.append({"name": f"battlefield:P{seat + 1}", "label": f"P{seat + 1} commits", "shape": "rect",
                      "rect": [x1 + 2, slot_top, x1 + slot_width - 2, slot_bottom], "player": seat + 1, "role": "committed"})
    for seat, side in enumerate(_seats(players), start=1):
        strip = _strip(side, width, height, 100.0, 320.0)
        rest, treasures, trophies = _split_strip(side, strip, [0.46, 0.27, 0.27])
        for name, label, rect, role in (("rest", "rest area", rest, "rest"), ("treasures", "treasures", treasures, "treasures"),
                                        ("trophies", "trophies", trophies, "trophies")):
            zones.append({"name": f"{name}:P{seat}", "label": f"P{seat} {label}", "shape": "rect",
                          "rect": [round(v, 1) for v in rect], "player": seat, "role": role, "facing": _FACING[side]})
    return {
        "name": f"dungeon-{players}p", "game": "dungeon", "players": players,
        "title": f"Guilds and Dungeon — {players} players",
        "size_mm": [width, height],
        "markers": {"dictionary": "DICT_5X5_100", "size_mm": MARKER_MM, "items": _corner_markers(width, height, 10)},
        "zones": zones,
        "notes": ["Seats go clockwise from the bottom edge. A warehouse keeps treasures on the player's left, trophies on the right."],
    }


def chosen_layout(players: int) -> dict:
    width, height = 800.0, 760.0
    cx, cy = width / 2, height / 2
    zones = []
    for seat, side in enumerate(_seats(players), start=1):
        depth = 80.0 if side in ("bottom", "top") else 125.0
        x1, y1, x2, y2 = _strip(side, width, height, depth, 300.0)
        zones.append({"name": f"area:P{seat}", "label": f"P{seat} chips", "shape": "rect", "rect": [x1, y1, x2, y2],
                      "player": seat, "role": "area", "facing": _FACING[side]})
    return {
        "name": f"chosen-{players}p", "game": "chosen", "players": players,
        "title": f"The Chosen — {players} players",
        "size_mm": [width, height],
        "markers": {"dictionary": "DICT_5X5_100", "size_mm": MARKER_MM, "items": _corner_markers(width, height, 20)},
        "zones": zones,
        # the vault holds a chosen and its chips side by side; each band holds a row of three cards
        "rings": {"center": [cx, cy], "vault": 80.0, "inner": 170.0, "outer": 260.0},
        "notes": ["Outside the big circle and outside every player area is departure."],
    }


def all_layouts() -> list[dict]:
    return [kingdoms_layout()] + [dungeon_layout(n) for n in (2, 3, 4)] + [chosen_layout(n) for n in (2, 3, 4)]


def main() -> None:
    LAYOUT_DIR.mkdir(exist_ok=True)
    for data in all_layouts():
        (LAYOUT_DIR / f"{data['name']}.json").write_text(json.dumps(data, indent=1) + "\n")
        print("wrote", data["name"])


if __name__ == "__main__":
    main()
