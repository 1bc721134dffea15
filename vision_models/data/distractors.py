"""Things on a card table that are not cards: drawn negatives for the detector's scenes and checks.

Players' tables carry poker chips, coins, dice and phones, and a hand of face-up cards fanned so
tight that only the strips of their edges show. None of them is a face-down card, yet the back
detector, which never saw them in training, reports some as backs (issue 13). This module draws
them with OpenCV primitives only (no photos, no downloads), sized from the scene's card width by
their real sizes, and lays them on the bare table beside the cards, *under* them where they reach:
a pixel a card covers is never changed, so a scene's labels stay exactly those of the same scene without them. They are
unlabelled: every box the detector puts on one is a false positive.

``DISTRACTOR_SHARE`` of the training scenes carry them (``vision_models.data.synth.write_scenes``);
``vision_models.checks.negatives_check`` measures what the shipped models make of them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

KINDS = ("chips", "coin", "dice", "phone", "fan_strips")
# Share of the training scenes that carry distractors: most tables in the real photos have none,
# and a scene with none still teaches the cards; half keeps both kinds of table common.
DISTRACTOR_SHARE = 0.5
# Real sizes over a poker card's width (63 mm): a casino chip 39-43 mm across, coins 16-30 mm,
# dice 12-19 mm, a phone 68-78 mm wide and about 2.1 times as long, a fanned card one card.
CHIP_WIDTHS = (0.62, 0.68)
COIN_WIDTHS = (0.25, 0.48)
DIE_WIDTHS = (0.19, 0.30)
PHONE_WIDTHS = (1.08, 1.24)
PHONE_ASPECT = (1.95, 2.2)
CARD_ASPECT = 1.4


@dataclass(frozen=True)
class Distractor:
    kind: str
    box: tuple[float, float, float, float]   # pixels, x1 y1 x2 y2, clipped to the frame

    def contains(self, point) -> bool:
        x, y = float(point[0]), float(point[1])
        return self.box[0] <= x <= self.box[2] and self.box[1] <= y <= self.box[3]


class _Layer:
    """One distractor's colour and coverage, composited onto the table at the end."""

    def __init__(self, height: int, width: int):
        self.image = np.zeros((height, width, 3), np.uint8)
        self.mask = np.zeros((height, width), np.uint8)

    def fill_ellipse(self, centre, axes, angle, colour, thickness=-1, start=0, end=360) -> None:
        import cv2

        c = (int(round(centre[0] * 4)), int(round(centre[1] * 4)))
        a = (max(1, int(round(axes[0] * 4))), max(1, int(round(axes[1] * 4))))
        cv2.ellipse(self.image, c, a, angle, start, end, tuple(int(v) for v in colour), thickness, cv2.LINE_AA, 2)
        cv2.ellipse(self.mask, c, a, angle, start, end, 255, thickness, cv2.LINE_AA, 2)

    def fill_polygon(self, points, colour) -> None:
        import cv2

        pts = np.round(np.asarray(points, np.float64) * 4).astype(np.int32)
        cv2.fillPoly(self.image, [pts], tuple(int(v) for v in colour), cv2.LINE_AA, 2)
        cv2.fillPoly(self.mask, [pts], 255, cv2.LINE_AA, 2)

    def polyline(self, points, colour, thickness: int, closed: bool = True) -> None:
        import cv2

        pts = np.round(np.asarray(points, np.float64) * 4).astype(np.int32)
        cv2.polylines(self.image, [pts], closed, tuple(int(v) for v in colour), max(1, thickness), cv2.LINE_AA, 2)


def _rounded_rect(centre, width: float, height: float, angle_deg: float, radius: float, steps: int = 6) -> np.ndarray:
    """The outline of a rounded rectangle, turned by ``angle_deg``, as (N, 2) points."""
    radius = min(radius, width / 2, height / 2)
    corners = [(width / 2 - radius, height / 2 - radius, 0), (-width / 2 + radius, height / 2 - radius, 90),
               (-width / 2 + radius, -height / 2 + radius, 180), (width / 2 - radius, -height / 2 + radius, 270)]
    points = []
    for cx, cy, start in corners:
        for k in range(steps + 1):
            a = math.radians(start + 90 * k / steps)
            points.append((cx + radius * math.cos(a), cy + radius * math.sin(a)))
    a = math.radians(angle_deg)
    rotation = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return np.asarray(points) @ rotation.T + np.asarray(centre, np.float64)


def _shade(colour, factor: float) -> np.ndarray:
    return np.clip(np.asarray(colour, np.float64) * factor, 0, 255)


CHIP_COLOURS = ((40, 40, 200), (200, 80, 30), (40, 150, 40), (30, 30, 30), (235, 235, 235), (150, 50, 120), (40, 160, 230))


def _chips(rng: np.random.Generator, layer: _Layer, centre, card_width: float) -> list[np.ndarray]:
    """One to three stacks of poker chips: striped rims, an inlay; flat from above or stacked at a slant."""
    radius = card_width * rng.uniform(*CHIP_WIDTHS) / 2
    squash = 1.0 if rng.random() < 0.5 else rng.uniform(0.45, 0.9)    # minor/major axis: camera slant
    tilt = rng.uniform(0, 180)
    up = np.array([math.sin(math.radians(tilt)), -math.cos(math.radians(tilt))])  # the stack grows this way
    thickness = radius * 0.17 * math.sqrt(max(0.0, 1 - squash ** 2))
    outline = []
    stacks = int(rng.integers(1, 4))
    row = rng.uniform(0, 2 * math.pi)          # stacks stand side by side, nearly touching
    for s in range(stacks):
        base = np.asarray(centre, np.float64) + np.array([math.cos(row), math.sin(row)]) * radius * 2.1 * s
        count = 1 if squash == 1.0 else int(rng.integers(1, 12))
        for level in range(count):
            if level == 0 or rng.random() < 0.3:          # a stack mixes a few colours
                colour = CHIP_COLOURS[int(rng.integers(0, len(CHIP_COLOURS)))]
            stripe = (245, 245, 245) if np.mean(colour) < 200 else (40, 40, 200)
            c = base + up * thickness * level
            axes = (radius, radius * squash)
            layer.fill_ellipse(c, axes, tilt, _shade(colour, 0.75))          # the chip's side
            top = c + up * thickness * 0.6
            layer.fill_ellipse(top, axes, tilt, colour)
            stripes = int(rng.integers(4, 9))
            for k in range(stripes):                                          # edge spots
                start = k * 360 / stripes + rng.uniform(0, 8)
                layer.fill_ellipse(top, (radius * 0.92, radius * squash * 0.92), tilt, stripe,
                                   thickness=max(1, int(radius * 0.16)), start=start, end=start + 180 / stripes)
            layer.fill_ellipse(top, (radius * 0.62, radius * squash * 0.62), tilt, _shade(colour, 1.15))   # inlay
            layer.fill_ellipse(top, (radius * 0.62, radius * squash * 0.62), tilt, stripe, thickness=max(1, int(radius * 0.05)))
            outline.append(_ellipse_points(top, axes, tilt))
            outline.append(_ellipse_points(c, axes, tilt))
    return outline


def _ellipse_points(centre, axes, angle_deg: float) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, 24, endpoint=False)
    a = math.radians(angle_deg)
    x, y = axes[0] * np.cos(t), axes[1] * np.sin(t)
    return np.stack([centre[0] + x * math.cos(a) - y * math.sin(a), centre[1] + x * math.sin(a) + y * math.cos(a)], axis=1)


def _coin(rng: np.random.Generator, layer: _Layer, centre, card_width: float) -> list[np.ndarray]:
    """A metal disc: gold, silver or copper, a raised rim, a worn relief in the middle."""
    radius = card_width * rng.uniform(*COIN_WIDTHS) / 2
    squash = 1.0 if rng.random() < 0.5 else rng.uniform(0.55, 0.95)
    tilt = rng.uniform(0, 180)
    metal = ((60, 170, 210), (190, 190, 190), (70, 110, 190))[rng.integers(0, 3)]
    axes = (radius, radius * squash)
    layer.fill_ellipse(centre, axes, tilt, _shade(metal, 0.7))
    light = rng.uniform(0, 2 * math.pi)
    shift = np.array([math.cos(light), math.sin(light)]) * radius * 0.06
    layer.fill_ellipse(np.asarray(centre) - shift, (radius * 0.97, radius * squash * 0.97), tilt, _shade(metal, 1.2))
    layer.fill_ellipse(centre, (radius * 0.84, radius * squash * 0.84), tilt, metal)
    for _ in range(int(rng.integers(3, 9))):     # relief: a head, a number, a wreath, worn flat
        spot = np.asarray(centre) + rng.uniform(-0.45, 0.45, 2) * radius
        layer.fill_ellipse(spot, (radius * rng.uniform(0.05, 0.3), radius * rng.uniform(0.05, 0.2)), rng.uniform(0, 180),
                           _shade(metal, rng.uniform(0.75, 1.25)))
    return [_ellipse_points(centre, axes, tilt)]


PIPS = {1: ((0, 0),), 2: ((-1, -1), (1, 1)), 3: ((-1, -1), (0, 0), (1, 1)), 4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
        5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)), 6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1))}


def _dice(rng: np.random.Generator, layer: _Layer, centre, card_width: float) -> list[np.ndarray]:
    """One to three dice: rounded squares with pips, a shaded side when the camera looks at a slant."""
    outline = []
    body = ((240, 240, 240), (40, 40, 200), (30, 30, 30), (200, 225, 235), (60, 140, 40))[rng.integers(0, 5)]
    pip = (30, 30, 30) if np.mean(body) > 150 else (240, 240, 240)
    for k in range(int(rng.integers(1, 4))):
        side = card_width * rng.uniform(*DIE_WIDTHS)
        at = np.asarray(centre, np.float64) + rng.uniform(-1.2, 1.2, 2) * side * k
        angle = rng.uniform(0, 90)
        slant = rng.uniform(0, 0.35) * side
        direction = rng.uniform(0, 2 * math.pi)
        if slant > 1:
            moved = at + np.array([math.cos(direction), math.sin(direction)]) * slant
            layer.fill_polygon(_rounded_rect(moved, side, side, angle, side * 0.18), _shade(body, 0.6))
            outline.append(_rounded_rect(moved, side, side, angle, side * 0.18))
        face = _rounded_rect(at, side, side, angle, side * 0.18)
        layer.fill_polygon(face, body)
        outline.append(face)
        a = math.radians(angle)
        rotation = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        for offset in PIPS[int(rng.integers(1, 7))]:
            spot = at + rotation @ (np.asarray(offset, np.float64) * side * 0.27)
            layer.fill_ellipse(spot, (side * 0.09, side * 0.09), 0, pip)
    return outline


def _phone(rng: np.random.Generator, layer: _Layer, centre, card_width: float) -> list[np.ndarray]:
    """A phone about twice as long as wide: face up (a lit or dark screen) or face down (a back and its cameras)."""
    width = card_width * rng.uniform(*PHONE_WIDTHS)
    length = width * rng.uniform(*PHONE_ASPECT)
    angle = rng.uniform(0, 180)
    case = ((25, 25, 25), (60, 60, 60), (120, 80, 40), (200, 200, 205), (40, 40, 140))[rng.integers(0, 5)]
    body = _rounded_rect(centre, width, length, angle, width * 0.14)
    layer.fill_polygon(body, case)
    a = math.radians(angle)
    rotation = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    if rng.random() < 0.6:           # face up
        screen = _rounded_rect(centre, width * 0.9, length * 0.93, angle, width * 0.1)
        lit = rng.random() < 0.6
        layer.fill_polygon(screen, rng.integers(80, 255, 3) if lit else (15, 15, 20))
        if lit:                       # a few panels of an app or a photo
            for _ in range(int(rng.integers(2, 7))):
                u, v = rng.uniform(-0.35, 0.35) * width, rng.uniform(-0.4, 0.4) * length
                panel = _rounded_rect(np.asarray(centre) + rotation @ np.array([u, v]),
                                      width * rng.uniform(0.15, 0.7), length * rng.uniform(0.04, 0.2), angle, width * 0.03)
                layer.fill_polygon(panel, rng.integers(0, 255, 3))
    else:                             # face down: the cameras in a corner
        lens = np.asarray(centre) + rotation @ np.array([-width * 0.28, -length * 0.38])
        layer.fill_polygon(_rounded_rect(lens, width * 0.35, width * 0.35, angle, width * 0.08), _shade(case, 0.7))
        for du, dv in ((-0.07, -0.07), (0.07, 0.07), (-0.07, 0.07)):
            layer.fill_ellipse(lens + rotation @ (np.array([du, dv]) * width), (width * 0.055, width * 0.055), 0, (20, 20, 20))
    return [body]


def _fan_strips(rng: np.random.Generator, layer: _Layer, centre, card_width: float) -> list[np.ndarray]:
    """The edges of a tight fan of face-up cards: white strips with thin borders, each card all but hidden by the next."""
    count = int(rng.integers(5, 14))
    spread = rng.uniform(1.5, 5.0)           # degrees between neighbours
    base = rng.uniform(0, 360)
    height = card_width * CARD_ASPECT
    shown = card_width * rng.uniform(0.05, 0.14)     # the strip of each card left in view
    pivot = np.asarray(centre, np.float64)
    paper = np.array([rng.uniform(215, 250)] * 3) - rng.uniform(0, 15, 3)
    border = rng.integers(90, 170)
    outline = []
    for k in range(count):
        angle = base + (k - (count - 1) / 2) * spread
        a = math.radians(angle)
        rotation = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        # the strip along the card's left long edge, the card's bottom at the pivot
        local = np.array([[-card_width / 2, -height], [-card_width / 2 + shown, -height],
                          [-card_width / 2 + shown, 0], [-card_width / 2, 0]], np.float64)
        local[:, 0] += k * shown * 0.15
        strip = local @ rotation.T + pivot
        layer.fill_polygon(strip, _shade(paper, rng.uniform(0.9, 1.02)))
        layer.polyline(strip[[1, 0, 3]], (border, border, border), 1, closed=False)
        if rng.random() < 0.35:                 # a face card's frame line shows in some strips
            inset = np.array([[-card_width / 2 + shown * 0.6, -height * 0.88], [-card_width / 2 + shown * 0.6, -height * 0.12]])
            inset[:, 0] += k * shown * 0.15
            colour = ((40, 40, 190), (40, 40, 40), (160, 110, 30))[rng.integers(0, 3)]
            layer.polyline(inset @ rotation.T + pivot, colour, 1, closed=False)
        outline.append(strip)
    return outline


DRAWERS = {"chips": _chips, "coin": _coin, "dice": _dice, "phone": _phone, "fan_strips": _fan_strips}


def draw_distractors(rng: np.random.Generator, canvas: np.ndarray, covered: np.ndarray, card_width: float,
                     count: int | None = None, kinds: tuple[str, ...] = KINDS) -> list[Distractor]:
    """Draw ``count`` distractors (1-4 when None) onto ``canvas`` in place, under what ``covered`` marks.

    ``covered`` (H x W, 0-1 or 0-255) is how much of each pixel the cards already hide: the
    distractors show only where the table shows, so they lie under the cards and every label
    stays true. Each is placed where the table is bare if a few tries find such a place. Returns
    what was drawn, kind and box, in drawing order (a box may be partly hidden by a card).
    Each is centred on a bare pixel (one where ``covered`` is under a half) when there is one.
    """
    import cv2

    if canvas.ndim != 3 or covered.shape != canvas.shape[:2]:
        raise ValueError(f"canvas {canvas.shape} and covered {covered.shape} must be H x W x 3 and H x W")
    unknown = [k for k in kinds if k not in DRAWERS]
    if unknown or not kinds:
        raise ValueError(f"unknown distractor kinds {unknown}: choose from {KINDS}")
    height, width = canvas.shape[:2]
    free = 1.0 - covered.astype(np.float32) / (255.0 if covered.dtype == np.uint8 else 1.0)
    drawn = []
    for _ in range(int(rng.integers(1, 5)) if count is None else count):
        kind = kinds[int(rng.integers(0, len(kinds)))]
        # on bare table where there is some (beside the cards, not under them), away from the frame's edge
        bare = np.argwhere(free[int(0.08 * height):int(0.92 * height), int(0.08 * width):int(0.92 * width)] > 0.5)
        if len(bare):
            y, x = bare[int(rng.integers(0, len(bare)))]
            centre = np.array([x + int(0.08 * width) + 0.5, y + int(0.08 * height) + 0.5])
        else:
            centre = rng.uniform(0.08, 0.92, 2) * (width, height)
        layer = _Layer(height, width)
        outline = DRAWERS[kind](rng, layer, centre, card_width)
        points = np.concatenate(outline)
        x1, y1 = np.clip(points.min(axis=0), 0, (width, height))
        x2, y2 = np.clip(points.max(axis=0), 0, (width, height))
        if x2 - x1 < 2 or y2 - y1 < 2:
            continue
        # a soft contact shadow, then the thing itself, both only where the table shows
        alpha = layer.mask.astype(np.float32) / 255.0
        shadow = cv2.GaussianBlur(alpha, (0, 0), max(1.0, card_width * 0.03)) * rng.uniform(0.15, 0.4)
        step = max(1, int(card_width * 0.02))            # the light from above and a little to the left
        shadow[step:, step:] = shadow[:-step, :-step].copy()
        shadow[:step, :] = 0
        shadow[:, :step] = 0
        canvas[:] = (canvas * (1 - (shadow * free)[..., None])).astype(np.uint8)
        alpha = (alpha * free)[..., None]
        canvas[:] = (canvas * (1 - alpha) + layer.image * alpha).astype(np.uint8)
        drawn.append(Distractor(kind, (float(x1), float(y1), float(x2), float(y2))))
    return drawn
