"""A procedural, licence-free poker deck drawn with OpenCV primitives only.

No font files and no images: ranks use OpenCV's built-in Hershey stroke fonts, suits are
polygons. The deck exists so the project can render training images and test recordings
without any third-party artwork. Like a real deck it has a rank + suit index in the top-left
corner and the same index turned 180° in the bottom-right corner, and 6 and 9 carry an
underline so they stay distinguishable upside down. With ``four_index`` it prints the index in all
four corners, as many real decks do: the top-right one facing the same way as the top-left, the
bottom-left one turned 180° like the bottom-right.

The index geometry depends only on the card size (not on ``style_seed``), so
:func:`index_boxes` can tell a labeller exactly where the indices are.
"""
from __future__ import annotations

import math
import os
import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from companion.cards import Card, Kind, Suit
from companion.vision.deck_folder import (  # noqa: F401  (the folder reading lives in the vision layer, below this one)
    IMAGE_SUFFIXES,
    art_index_fractions,
    card_images,
    code_from_filename,
)

BoxXYXY = tuple[int, int, int, int]

# Index area as fractions of the card (left, top, right, bottom); the bottom-right copy is the
# same rectangle turned 180° about the card centre.
_INDEX_FRACTION = (0.035, 0.03, 0.185, 0.255)
_JOKER_INDEX_FRACTION = (0.035, 0.03, 0.145, 0.40)
_CORNER_RADIUS_FRACTION = 0.06

_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX)

# Pip positions for 2-10 in a unit face box: (x, y), x in {0, .5, 1}, y from 0 (top) to 1 (bottom).
_PIP_LAYOUTS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.5, 0.0), (0.5, 1.0)),
    3: ((0.5, 0.0), (0.5, 0.5), (0.5, 1.0)),
    4: ((0, 0), (1, 0), (0, 1), (1, 1)),
    5: ((0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)),
    6: ((0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)),
    7: ((0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)),
    8: ((0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)),
    9: ((0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)),
    10: ((0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (0.5, 5 / 6), (0, 1), (1, 1)),
}


@dataclass(frozen=True)
class _Style:
    font: int
    thickness_scale: float
    paper: tuple[int, int, int]
    red: tuple[int, int, int]
    black: tuple[int, int, int]
    accent: tuple[int, int, int]
    accent2: tuple[int, int, int]
    back_main: tuple[int, int, int]
    back_line: tuple[int, int, int]
    back_pattern: int


def _style(seed: int) -> _Style:
    if seed == 0:
        return _Style(cv2.FONT_HERSHEY_SIMPLEX, 1.0, (250, 250, 250), (30, 20, 200), (25, 25, 25),
                      (40, 160, 230), (160, 70, 30), (140, 40, 30), (235, 225, 215), 0)
    rng = random.Random(seed)

    def jitter(colour, amount):
        return tuple(int(min(255, max(0, c + rng.randint(-amount, amount)))) for c in colour)

    back_main = rng.choice([(140, 40, 30), (35, 35, 170), (40, 110, 40), (90, 40, 110), (30, 30, 30)])
    return _Style(
        font=rng.choice(_FONTS),
        thickness_scale=rng.uniform(0.8, 1.3),
        paper=jitter((248, 248, 246), 8),
        red=jitter((30, 20, 200), 25),
        black=jitter((25, 25, 25), 20),
        accent=jitter((40, 160, 230), 40),
        accent2=jitter((160, 70, 30), 40),
        back_main=jitter(back_main, 20),
        back_line=jitter((235, 225, 215), 15),
        back_pattern=rng.randrange(3),
    )


# ---------------------------------------------------------------- suit shapes (unit polygons)

def _heart_unit(samples: int = 48) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, samples, endpoint=False)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    pts = np.stack([x, y], 1)
    pts -= (pts.max(0) + pts.min(0)) / 2
    return pts / (pts.max(0) - pts.min(0)).max()


def _circle_unit(cx: float, cy: float, r: float, samples: int = 28) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, samples, endpoint=False)
    return np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], 1)


@lru_cache(maxsize=None)
def _suit_polygons(suit: Suit) -> tuple[np.ndarray, ...]:
    """Polygons in a unit box centred on 0 (x, y in -0.5…0.5, y downwards), pointing upright."""
    if suit is Suit.HEARTS:
        return (_heart_unit(),)
    if suit is Suit.DIAMONDS:
        return (np.array([[0, -0.5], [0.36, 0], [0, 0.5], [-0.36, 0]], float),)
    stem = np.array([[0, 0.05], [0.2, 0.5], [-0.2, 0.5]], float)
    if suit is Suit.SPADES:
        body = _heart_unit() * np.array([1.0, -1.0]) * 0.8 + np.array([0, -0.1])
        return (body, stem)
    # clubs: three leaves and a stem
    return (_circle_unit(0, -0.25, 0.22), _circle_unit(-0.25, 0.1, 0.22), _circle_unit(0.25, 0.1, 0.22),
            np.array([[0, -0.1], [0.12, 0.1], [-0.12, 0.1]], float), stem)


def draw_suit(image: np.ndarray, suit: Suit, center: tuple[float, float], size: float,
              colour: tuple[int, int, int], upside_down: bool = False) -> None:
    """Draws a filled suit symbol of height ``size`` centred at ``center``."""
    flip = np.array([1.0, -1.0 if upside_down else 1.0])
    for poly in _suit_polygons(suit):
        pts = (poly * flip * size + np.asarray(center, float)) * 16
        cv2.fillPoly(image, [np.round(pts).astype(np.int32)], colour, cv2.LINE_AA, shift=4)


# ---------------------------------------------------------------- text helpers

def _fit_text(text: str, font: int, box_w: float, box_h: float, thickness: int) -> tuple[float, tuple[int, int], int]:
    (w, h), base = cv2.getTextSize(text, font, 1.0, thickness)
    scale = min(box_w / max(w, 1), box_h / max(h, 1))
    return scale, cv2.getTextSize(text, font, scale, thickness)[0], base


def _draw_text_in_box(image: np.ndarray, text: str, box: tuple[float, float, float, float], colour, font: int,
                      thickness: int) -> tuple[float, float, float, float]:
    """Draws ``text`` as large as fits in ``box`` (centred horizontally); returns the ink box."""
    x1, y1, x2, y2 = box
    thickness = max(1, thickness)
    scale, (tw, th), _ = _fit_text(text, font, x2 - x1, y2 - y1, thickness)
    ox = x1 + (x2 - x1 - tw) / 2
    oy = y1 + (y2 - y1 + th) / 2
    cv2.putText(image, text, (int(round(ox)), int(round(oy))), font, scale, colour, thickness, cv2.LINE_AA)
    return ox, oy - th, ox + tw, oy


# ---------------------------------------------------------------- public API

def _index_rect(card: Card, width: int, height: int) -> tuple[int, int, int, int]:
    fx1, fy1, fx2, fy2 = _JOKER_INDEX_FRACTION if card.is_joker else _INDEX_FRACTION
    return (int(round(fx1 * width)), int(round(fy1 * height)), int(round(fx2 * width)), int(round(fy2 * height)))


def index_boxes(code: str, width: int = 250, height: int = 350, four_index: bool = False) -> list[BoxXYXY]:
    """Pixel boxes ``(x1, y1, x2, y2)`` of the corner indices: top-left, then bottom-right (turned
    180°); with ``four_index`` then top-right (facing as the top-left) and bottom-left (turned 180°).
    Even places read upright with the card, odd ones turned half a turn.

    A face-down card (``BACK``) shows no index: the list is empty.
    """
    card = Card.parse(code)
    _check_size(width, height)
    if card.is_face_down:
        return []
    x1, y1, x2, y2 = _index_rect(card, width, height)
    # 180° turn about the card centre maps pixel x to (width - 1 - x); boxes are half-open.
    boxes = [(x1, y1, x2, y2), (width - x2, height - y2, width - x1, height - y1)]
    if four_index:
        # the top-right copy is the top-left one moved across the card (not mirrored: it reads the same)
        boxes += [(width - x2, y1, width - x1, y2), (x1, height - y2, x2, height - y1)]
    return boxes


def _check_size(width: int, height: int) -> None:
    if not (isinstance(width, (int, np.integer)) and isinstance(height, (int, np.integer))) or width < 40 or height < 56:
        raise ValueError(f"card size must be whole pixels of at least 40×56, got {width!r}×{height!r}")


def card_mask(width: int = 250, height: int = 350) -> np.ndarray:
    """The card's outline (rounded corners) as a uint8 mask, 255 inside."""
    _check_size(width, height)
    mask = np.zeros((height, width), np.uint8)
    r = max(2, int(round(_CORNER_RADIUS_FRACTION * width)))
    cv2.rectangle(mask, (r, 0), (width - 1 - r, height - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (width - 1, height - 1 - r), 255, -1)
    for cx, cy in ((r, r), (width - 1 - r, r), (r, height - 1 - r), (width - 1 - r, height - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


def render_card(code: str, width: int = 250, height: int = 350, style_seed: int = 0,
                four_index: bool = False) -> np.ndarray:
    """A BGR image of the card (``four_index``: an index in every corner, see :func:`index_boxes`).
    Outside the rounded corners the pixels are black (use :func:`card_mask`)."""
    card = Card.parse(code)
    _check_size(width, height)
    style = _style(int(style_seed))
    image = np.zeros((height, width, 3), np.uint8)
    if card.is_face_down:
        _draw_back(image, style)
    else:
        image[:] = style.paper
        _draw_face(image, card, style)
        _draw_indices(image, card, style, four_index)
        cv2.rectangle(image, (0, 0), (width - 1, height - 1), (200, 200, 200), 1)
    mask = card_mask(width, height)
    image[mask == 0] = 0
    # soft edge of the rounded corners
    border = cv2.bitwise_and(mask, cv2.bitwise_not(cv2.erode(mask, np.ones((3, 3), np.uint8))))
    image[border > 0] = (image[border > 0] * 0.6 + 100).astype(np.uint8)
    return image


def _colour(card: Card, style: _Style) -> tuple[int, int, int]:
    if card.kind is Kind.BIG_JOKER:
        return style.red
    return style.red if card.is_red else style.black


def _index_layer(card: Card, width: int, height: int, style: _Style) -> tuple[np.ndarray, np.ndarray]:
    """The top-left index drawn on its own layer, with its ink mask."""
    layer = np.zeros((height, width, 3), np.uint8)
    ink = np.zeros((height, width), np.uint8)
    x1, y1, x2, y2 = _index_rect(card, width, height)
    colour = _colour(card, style)
    thick = max(1, int(round(width / 110 * style.thickness_scale)))
    pad = max(1, (x2 - x1) // 12)
    if card.is_joker:
        letters = "JOKER"
        step = (y2 - y1) / len(letters)
        for i, letter in enumerate(letters):
            box = (x1 + pad, y1 + i * step + pad, x2 - pad, y1 + (i + 1) * step - pad)
            for target, value in ((layer, colour), (ink, 255)):
                _draw_text_in_box(target, letter, box, value, style.font, thick)
        # the small joker is monochrome, the big one carries a second colour mark under the text
        return layer, ink
    rank_h = (y2 - y1) * 0.55
    rank_box = (x1 + pad, y1 + pad, x2 - pad, y1 + rank_h - (pad if card.rank not in (6, 9) else 3 * pad))
    for target, value in ((layer, colour), (ink, 255)):
        ix1, iy1, ix2, iy2 = _draw_text_in_box(target, card.rank_name, rank_box, value, style.font, thick)
        if card.rank in (6, 9):
            uy = int(round(iy2 + 1.6 * pad))
            cv2.line(target, (int(ix1), uy), (int(ix2), uy), value, max(1, thick), cv2.LINE_AA)
    suit_size = min((y2 - y1) * 0.38, (x2 - x1) * 0.85)
    centre = ((x1 + x2) / 2, y1 + rank_h + suit_size / 2 + pad)
    draw_suit(layer, card.suit, centre, suit_size, colour)
    draw_suit(ink, card.suit, centre, suit_size, 255)
    return layer, ink


def _draw_indices(image: np.ndarray, card: Card, style: _Style, four_index: bool = False) -> None:
    height, width = image.shape[:2]
    layer, ink = _index_layer(card, width, height, style)
    layers = [(layer, ink), (layer[::-1, ::-1], ink[::-1, ::-1])]
    if four_index:
        # the top-left index moved across to the top-right corner, then that one turned 180° (bottom-left)
        x1, _, x2, _ = _index_rect(card, width, height)
        shift = (width - x2) - x1
        across = np.zeros_like(layer), np.zeros_like(ink)
        across[0][:, x1 + shift:x2 + shift] = layer[:, x1:x2]
        across[1][:, x1 + shift:x2 + shift] = ink[:, x1:x2]
        layers += [across, (across[0][::-1, ::-1], across[1][::-1, ::-1])]
    for lay, msk in layers:
        alpha = (msk.astype(np.float32) / 255)[..., None]
        image[:] = (image * (1 - alpha) + lay * alpha).astype(np.uint8)


def _face_box(width: int, height: int) -> tuple[float, float, float, float]:
    return 0.23 * width, 0.10 * height, 0.77 * width, 0.90 * height


def _draw_face(image: np.ndarray, card: Card, style: _Style) -> None:
    height, width = image.shape[:2]
    fx1, fy1, fx2, fy2 = _face_box(width, height)
    colour = _colour(card, style)
    if card.is_joker:
        _draw_joker(image, card, style, (fx1, fy1, fx2, fy2))
        return
    if card.rank <= 10:
        pip = min(fx2 - fx1, fy2 - fy1) * (0.5 if card.rank == 1 else 0.2)
        if card.rank == 1 and card.suit is Suit.SPADES:
            pip *= 1.25  # the ace of spades is traditionally the big one
        ix1, ix2 = fx1 + pip * 0.5, fx2 - pip * 0.5
        iy1, iy2 = fy1 + pip * 0.5, fy2 - pip * 0.5
        for ux, uy in _PIP_LAYOUTS[card.rank]:
            cx, cy = ix1 + ux * (ix2 - ix1), iy1 + uy * (iy2 - iy1)
            draw_suit(image, card.suit, (cx, cy), pip, colour, upside_down=uy > 0.5 + 1e-6)
        return
    _draw_court(image, card, style, (fx1, fy1, fx2, fy2))


def _draw_court(image: np.ndarray, card: Card, style: _Style, box) -> None:
    """A framed court card, point-symmetric like a real one: a figure and the rank letter in each half."""
    height, width = image.shape[:2]
    fx1, fy1, fx2, fy2 = (int(round(v)) for v in box)
    colour = _colour(card, style)
    cv2.rectangle(image, (fx1, fy1), (fx2, fy2), colour, max(1, width // 120), cv2.LINE_AA)
    half = np.zeros_like(image)
    mask = np.zeros(image.shape[:2], np.uint8)
    w, h = fx2 - fx1, (fy2 - fy1) / 2
    cx = (fx1 + fx2) / 2
    head = (int(cx), int(fy1 + h * 0.38))
    r = int(w * 0.13)
    # body (robe) and head
    robe = np.array([[cx - w * 0.36, fy1 + h], [cx - w * 0.2, fy1 + h * 0.55], [cx + w * 0.2, fy1 + h * 0.55],
                     [cx + w * 0.36, fy1 + h]], np.int32)
    for target, c1, c2, c3 in ((half, style.accent2, style.accent, colour), (mask, 255, 255, 255)):
        cv2.fillPoly(target, [robe], c1, cv2.LINE_AA)
        cv2.circle(target, head, r, c2, -1, cv2.LINE_AA)
        if card.rank == 13:  # king: a pointed crown
            crown = np.array([[head[0] - r, head[1] - r], [head[0] - r, head[1] - 2.2 * r], [head[0] - r / 2, head[1] - 1.5 * r],
                              [head[0], head[1] - 2.4 * r], [head[0] + r / 2, head[1] - 1.5 * r], [head[0] + r, head[1] - 2.2 * r],
                              [head[0] + r, head[1] - r]], np.int32)
            cv2.fillPoly(target, [crown], c3, cv2.LINE_AA)
        elif card.rank == 12:  # queen: a round tiara
            cv2.ellipse(target, (head[0], head[1] - r), (r, int(r * 0.8)), 0, 180, 360, c3, -1, cv2.LINE_AA)
        else:  # jack: a flat cap with a feather
            cv2.rectangle(target, (head[0] - r, head[1] - int(1.5 * r)), (head[0] + r, head[1] - r // 2), c3, -1)
            cv2.line(target, (head[0] + r, head[1] - r), (head[0] + 2 * r, head[1] - 2 * r), c3, max(1, r // 3), cv2.LINE_AA)
    letter_box = (fx1 + w * 0.05, fy1 + h * 0.05, fx1 + w * 0.3, fy1 + h * 0.35)
    _draw_text_in_box(half, card.rank_name, letter_box, colour, style.font, max(1, width // 90))
    _draw_text_in_box(mask, card.rank_name, letter_box, 255, style.font, max(1, width // 90))
    draw_suit(half, card.suit, (fx2 - w * 0.17, fy1 + h * 0.2), w * 0.2, colour)
    draw_suit(mask, card.suit, (fx2 - w * 0.17, fy1 + h * 0.2), w * 0.2, 255)
    # the lower half is the upper one turned 180° about the face centre
    ccx, ccy = (fx1 + fx2) / 2, (fy1 + fy2) / 2
    turn = cv2.getRotationMatrix2D((ccx, ccy), 180, 1.0)
    half = np.maximum(half, cv2.warpAffine(half, turn, (width, height)))
    mask = np.maximum(mask, cv2.warpAffine(mask, turn, (width, height)))
    alpha = (mask.astype(np.float32) / 255)[..., None]
    image[:] = (image * (1 - alpha) + half * alpha).astype(np.uint8)
    cv2.line(image, (fx1, int(ccy)), (fx2, int(ccy)), colour, 1, cv2.LINE_AA)


def _draw_joker(image: np.ndarray, card: Card, style: _Style, box) -> None:
    """Big joker: a multicoloured jester; small joker: the same figure in black only, outlined."""
    fx1, fy1, fx2, fy2 = box
    big = card.kind is Kind.BIG_JOKER
    cx, cy = (fx1 + fx2) / 2, (fy1 + fy2) / 2
    w, h = fx2 - fx1, fy2 - fy1
    colours = (style.red, style.accent, style.accent2) if big else (style.black, style.black, style.black)
    # jester hat: three points with bells
    base_y = cy - h * 0.12
    tips = [(cx - w * 0.45, cy - h * 0.38), (cx, cy - h * 0.46), (cx + w * 0.45, cy - h * 0.38)]
    for tip, colour in zip(tips, colours):
        tri = np.array([[cx - w * 0.25, base_y], [cx + w * 0.25, base_y], tip], np.int32)
        if big:
            cv2.fillPoly(image, [tri], colour, cv2.LINE_AA)
        else:
            cv2.polylines(image, [tri], True, colour, max(1, int(w // 40)), cv2.LINE_AA)
        cv2.circle(image, (int(tip[0]), int(tip[1])), max(2, int(w * 0.06)), colour, -1, cv2.LINE_AA)
    # face and collar
    cv2.circle(image, (int(cx), int(cy)), int(w * 0.22), colours[1], -1 if big else max(1, int(w // 40)), cv2.LINE_AA)
    star = []
    for k in range(10):
        ang = -math.pi / 2 + k * math.pi / 5
        rad = w * (0.4 if k % 2 == 0 else 0.17)
        star.append((cx + rad * math.cos(ang), cy + h * 0.3 + rad * math.sin(ang)))
    star_pts = np.round(np.array(star)).astype(np.int32)
    if big:
        cv2.fillPoly(image, [star_pts], colours[2], cv2.LINE_AA)
    else:
        cv2.polylines(image, [star_pts], True, colours[0], max(1, int(w // 40)), cv2.LINE_AA)
    label = "JOKER"
    _draw_text_in_box(image, label, (fx1, fy2 - h * 0.08, fx2, fy2), colours[0], style.font, max(1, int(w // 60)))


def _draw_back(image: np.ndarray, style: _Style) -> None:
    height, width = image.shape[:2]
    image[:] = style.paper
    m = max(3, int(width * 0.06))
    inner = image[m:height - m, m:width - m]
    inner[:] = style.back_main
    ih, iw = inner.shape[:2]
    step = max(6, width // 14)
    thick = max(1, width // 160)
    if style.back_pattern in (0, 2):
        for k in range(-ih, iw + ih, step):
            cv2.line(inner, (k, 0), (k + ih, ih), style.back_line, thick, cv2.LINE_AA)
            cv2.line(inner, (k, 0), (k - ih, ih), style.back_line, thick, cv2.LINE_AA)
    if style.back_pattern in (1, 2):
        for yy in range(step // 2, ih, step):
            for xx in range(step // 2, iw, step):
                cv2.circle(inner, (xx, yy), max(1, step // 4), style.back_line, thick, cv2.LINE_AA)
    cv2.rectangle(inner, (0, 0), (iw - 1, ih - 1), style.back_line, max(1, thick * 2))
    cv2.ellipse(inner, (iw // 2, ih // 2), (iw // 4, ih // 6), 0, 0, 360, style.back_line, -1, cv2.LINE_AA)
    cv2.ellipse(inner, (iw // 2, ih // 2), (iw // 5, ih // 8), 0, 0, 360, style.back_main, -1, cv2.LINE_AA)


# ----------------------------------------------------------------------------- other decks' art

class DrawnDeck:
    """The project's own drawn deck, one design per ``style_seed``, behind the interface a recording
    draws with; ``four_index``: an index in all four corners (see :func:`index_boxes`)."""

    def __init__(self, style_seed: int = 0, four_index: bool = False):
        self.style_seed = int(style_seed)
        self.four_index = bool(four_index)
        self.name = f"drawn-{self.style_seed}" + ("-four-index" if self.four_index else "")

    def render(self, code: str, width: int, height: int) -> np.ndarray:
        return render_card(code, width, height, self.style_seed, self.four_index)

    def mask(self, code: str, width: int, height: int) -> np.ndarray:
        return card_mask(width, height)

    def index_boxes(self, code: str, width: int, height: int) -> list[BoxXYXY]:
        return index_boxes(code, width, height, self.four_index)


class ArtDeck:
    """A deck drawn from card images named by code (``10c.jpg``, ``QH.png``, ``BJ.png``, ``back.png``).

    Images with an alpha channel keep their outline; others get the rounded card outline. The
    index boxes (only for ``--card-truth``) are the usual printed place, not measured per deck.
    """

    def __init__(self, folder: "str | os.PathLike"):
        self.folder = Path(folder)
        self.images = card_images(self.folder)
        if "BACK" not in self.images:
            raise ValueError(f"{self.folder}: no back.png: a recording needs the deck's back for face-down cards")
        self.name = self.folder.name
        self._art: dict[str, np.ndarray] = {}

    def _load(self, code: str) -> np.ndarray:
        if code not in self._art:
            path = self.images.get(code)
            if path is None:
                raise ValueError(f"{self.folder}: no image for {code}")
            image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
            if image is None:
                raise ValueError(f"{path}: not a readable image")
            if image.ndim == 2:
                image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
            if image.shape[2] == 3:
                image = np.dstack([image, card_mask(image.shape[1], image.shape[0])]) if min(image.shape[:2]) >= 40 else \
                    np.dstack([image, np.full(image.shape[:2], 255, np.uint8)])
            self._art[code] = image
        return self._art[code]

    def _sized(self, code: str, width: int, height: int) -> np.ndarray:
        art = self._load("BACK" if Card.parse(code).is_face_down else code)
        interpolation = cv2.INTER_AREA if art.shape[1] > width else cv2.INTER_LINEAR
        return cv2.resize(art, (width, height), interpolation=interpolation)

    def render(self, code: str, width: int, height: int) -> np.ndarray:
        sized = self._sized(code, width, height)
        image = sized[..., :3].copy()
        image[sized[..., 3] < 128] = 0
        return image

    def mask(self, code: str, width: int, height: int) -> np.ndarray:
        return np.where(self._sized(code, width, height)[..., 3] >= 128, 255, 0).astype(np.uint8)

    def index_boxes(self, code: str, width: int, height: int) -> list[BoxXYXY]:
        if Card.parse(code).is_face_down:
            return []
        return [(round(x1 * width), round(y1 * height), round(x2 * width), round(y2 * height))
                for x1, y1, x2, y2 in art_index_fractions()]


def load_deck_art(folder: "str | os.PathLike | None", style_seed: int = 0):
    """The deck a recording is drawn with: the art in ``folder``, else the drawn deck."""
    return DrawnDeck(style_seed) if folder is None else ArtDeck(folder)
