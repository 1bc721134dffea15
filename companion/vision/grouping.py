"""From read corner indices to physical cards.

A poker card prints its index (rank over suit) in two opposite corners. The detector boxes each
index it sees; the classifier reads it and says which way up it reads. Here two readings of the
same code that sit where the two corners of one card would be become one card; a lone index
stands for its card on its own, with the card's centre estimated from where the index points.

All distances are in units of the index's own size, ``scale`` = the longer side of its box, so
the rules hold at any camera distance; the longer side barely changes as a tall index turns
(a 26 × 70 px index is 68 px across at 45°), unlike its area. The constants were measured on the
real labelled photos (``../shared/datasets/cardcounterml``: 2,058 pairs of same-code labels in
one photo, centres 4.2 scales apart at the median, 90 % between 2.7 and 5.1) and on the 31 rendered
training decks (4.8 at the median, 3.8-5.5; the card's centre lies 53° below the upright index's
horizontal, 51-57°).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from companion.cards import Card
from companion.vision.detections import Detections

CORNER_SPAN = 4.5          # distance between the two index centres of one card, in index scales
MIN_SPAN, MAX_SPAN = 2.0, 6.5
# Measured in a table's own index size (18 mm on a mat) a poker card's corner span is 70-90 mm
# whatever the deck: 63-99 mm keeps perspective's share and refuses the diagonal neighbour's
# corner (115 mm in a Kingdoms grid) that the looser range lets through on a misread.
TABLE_SPAN = (3.5, 5.5)
CENTRE_BEARING_DEG = 53.0  # direction from an upright index to the card centre, below horizontal
MAX_BEARING_ERROR_DEG = 60.0
MAX_CENTRE_DISAGREEMENT = 0.5  # of the corner distance, when the two readings are a quarter-turn apart
# Above the worst cost of a pair whose rotations agree (centres 0.5 x 6.5 scales apart, span 2 off).
ROTATION_DISAGREEMENT_COST = 10.0
# Two different codes pair only in the plainest geometry (see disagreeing_pair_cost).
DISAGREEING_BEARING_DEG = 30.0
DISAGREEING_SPAN = (3.0, 6.0)
# One card is one card: on real photos the classifier's rotations rarely tell a card's two corners
# apart (21 of 30 held-out pairs of one card's corners read as different codes read "both upright"),
# so two leftover readings of different codes also become one card from the boxes alone, when they
# lie where one card's two indices lie: at a card's corner span (the held-out photos' labelled pairs
# of one card: 3.0-4.8 index scales, 10th-90th percentile), of one size (95 % within 1.27x), both
# boxes long the same way (the card's long axis) and the line between them across the card, not
# along an edge (two cards side by side: along the short axis; in a column: along the long one), and
# the two codes sharing a rank or a suit (the misreads of one card keep one of them: 24 of 30
# held-out pairs, against 24 of 158 pairs of two cards). Measured with
# ``python -m vision_models.grouping_check ../shared/datasets/cardcounterml`` (see EVALUATION.md).
ONE_CARD_BY_GEOMETRY = True
OPPOSITE_CORNER_SPAN = (2.7, 5.3)
OPPOSITE_CORNER_SIZE_RATIO = 1.3
OPPOSITE_CORNER_ELONGATION = 1.25   # an index box longer than this along one axis shows the card's long axis
OPPOSITE_CORNER_AXIS_DEG = (25.0, 70.0)   # between the boxes' long axis and the line joining them

# A face-down card must be card-shaped. Its axis-aligned box runs from 1.40 long (88 x 63 mm, lying
# square) to 1.0 (at 45°), longer when seen at a slant: the held-out photos' labelled backs reach
# 1.87, while the edges of fanned cards the back detector reports run 2.27-4.26 (9 held-out photos
# with backs, ``python -m vision_models.grouping_check``). Round chips box as squares, like a card at
# 45°: they are told by size instead: a card's long side is at least 4.6 index sizes (88 mm over an
# index 19 mm long, the labelled pairs' median span 4.2 scales = 80 mm); the held-out photos' chips
# box at 3.5-3.7 of the photo's median index size, its real backs at 4.9 and more.
MAX_BACK_ASPECT = 2.0
MIN_BACK_LONG_SIDE = 4.0   # in the frame's median index size, when it shows indices

ROTATIONS = (0, 90, 180, 270)


def rotate_clockwise(vector: tuple[float, float], degrees: int) -> tuple[float, float]:
    """Rotate an image-space vector (x right, y down) clockwise on screen by a multiple of 90°."""
    x, y = vector
    for _ in range((degrees // 90) % 4):
        x, y = -y, x
    return x, y


@dataclass(frozen=True)
class IndexReading:
    """One corner index: its box in frame pixels, what it reads and how the crop had to turn to read it.

    ``rotation`` is the clockwise turn (0, 90, 180 or 270°) that made the crop read upright; the
    card's top therefore points ``rotation`` degrees anticlockwise from the frame's up.
    ``code`` is ``None`` when the classifier said the box holds no index.
    """

    box: tuple[float, float, float, float]
    detection_confidence: float
    code: str | None
    class_confidence: float
    rotation: int = 0

    @property
    def confidence(self) -> float:
        return self.detection_confidence * self.class_confidence

    @property
    def center(self) -> np.ndarray:
        x1, y1, x2, y2 = self.box
        return np.array([(x1 + x2) / 2, (y1 + y2) / 2], np.float64)

    @property
    def scale(self) -> float:
        """The longer side of the box: the index's size, nearly independent of its rotation."""
        x1, y1, x2, y2 = self.box
        return max(x2 - x1, y2 - y1, 1e-6)

    @property
    def toward_center(self) -> np.ndarray:
        """Unit vector from this index toward its card's centre, in frame coordinates."""
        upright = (math.cos(math.radians(CENTRE_BEARING_DEG)), math.sin(math.radians(CENTRE_BEARING_DEG)))
        # The crop was turned ``rotation`` clockwise to read upright; undo that turn.
        return np.array(rotate_clockwise(upright, (360 - self.rotation) % 360), np.float64)

    @property
    def estimated_card_center(self) -> np.ndarray:
        return self.card_center_at(self.scale)

    def card_center_at(self, scale: float) -> np.ndarray:
        """The card's centre for an index of ``scale`` pixels (its own size, or the one a table knows)."""
        return self.center + self.toward_center * (CORNER_SPAN / 2) * scale


def _centre(reading: IndexReading, index_px: float | None) -> np.ndarray:
    return reading.card_center_at(index_px) if index_px else reading.estimated_card_center


def _length(v: np.ndarray) -> float:
    """The length of a 2-vector (math, not numpy: the grouping weighs thousands of pairs a second on a server)."""
    return math.hypot(float(v[0]), float(v[1]))


def _angle_deg(a: np.ndarray, b: np.ndarray) -> float:
    ax, ay, bx, by = float(a[0]), float(a[1]), float(b[0]), float(b[1])
    cosine = (ax * bx + ay * by) / max(math.hypot(ax, ay) * math.hypot(bx, by), 1e-9)
    return math.degrees(math.acos(max(-1.0, min(1.0, cosine))))


def pairing_cost(a: IndexReading, b: IndexReading, trust_rotation: bool = False,
                 index_px: float | None = None) -> float | None:
    """How well two same-code readings fit being the two corners of one card (lower is better), or None.

    The rotations the classifier picks say which way each index faces, so a true pair is half a
    turn apart with each index facing the other (or a quarter turn with agreeing centres, near
    45°). On real photos that cue is weak: the classifier learned real indices in every orientation,
    and on the held-out photos 99 of 193 same-code pairs at a card's corner span failed it. With one
    deck on the table, the same code twice at that span is one card, so by default a pair whose
    rotations disagree still pairs, after every pair whose rotations agree
    (``ROTATION_DISAGREEMENT_COST``). ``trust_rotation=True`` refuses such pairs instead: for
    tables with two decks, where two cards of one code may lie side by side. ``index_px``, when the
    table's scale is known, measures the span instead of the readings' own sizes (see
    :func:`group_cards`).
    """
    if a.code is None or a.code != b.code:
        return None
    scale = index_px or (a.scale + b.scale) / 2
    between = b.center - a.center
    distance = _length(between)
    low, high = TABLE_SPAN if index_px else (MIN_SPAN, MAX_SPAN)
    if not low * scale <= distance <= high * scale:
        return None
    span_error = abs(distance / scale - CORNER_SPAN) * 0.25
    turn = (a.rotation - b.rotation) % 360
    disagreement = _length(_centre(a, index_px) - _centre(b, index_px))
    if turn == 0:
        # Both read upright the same way: two cards lying alike, never one card's two corners.
        consistent = False
    elif turn == 180:
        consistent = (_angle_deg(between, a.toward_center) <= MAX_BEARING_ERROR_DEG
                      and _angle_deg(-between, b.toward_center) <= MAX_BEARING_ERROR_DEG)
    else:
        # A quarter-turn apart happens when a card lies near 45°: the centres must then agree.
        consistent = disagreement <= MAX_CENTRE_DISAGREEMENT * distance
    if consistent:
        return disagreement / scale + span_error
    return None if trust_rotation else ROTATION_DISAGREEMENT_COST + span_error


def disagreeing_pair_cost(a: IndexReading, b: IndexReading, index_px: float | None = None) -> float | None:
    """How surely two readings of different codes are still one card's two corners, or None.

    Only the plainest geometry counts: half a turn apart, each index facing the other within
    ``DISAGREEING_BEARING_DEG``, at a card's corner span. Two different cards would have to overlap
    to show that, so it is one card whose corners the classifier read differently (a 5 and a 6,
    a joker and a 3).
    """
    if a.code is None or b.code is None or a.code == b.code or (a.rotation - b.rotation) % 360 != 180:
        return None
    scale = index_px or (a.scale + b.scale) / 2
    between = b.center - a.center
    distance = _length(between)
    if not DISAGREEING_SPAN[0] * scale <= distance <= DISAGREEING_SPAN[1] * scale:
        return None
    if (_angle_deg(between, a.toward_center) > DISAGREEING_BEARING_DEG
            or _angle_deg(-between, b.toward_center) > DISAGREEING_BEARING_DEG):
        return None
    return _length(_centre(a, index_px) - _centre(b, index_px)) / scale


def _long_axis(box: tuple[float, float, float, float]) -> np.ndarray | None:
    """The image axis an index box is longer along (the card's long axis when it lies square), or None when near square."""
    width, height = box[2] - box[0], box[3] - box[1]
    if max(width, height) < OPPOSITE_CORNER_ELONGATION * max(min(width, height), 1e-6):
        return None
    return np.array([0.0, 1.0]) if height > width else np.array([1.0, 0.0])


def _share_rank_or_suit(a: str, b: str) -> bool:
    first, second = Card.parse(a), Card.parse(b)
    if first.is_joker or second.is_joker:
        return first.is_joker and second.is_joker
    return first.rank == second.rank or first.suit is second.suit


def opposite_corner_cost(a: IndexReading, b: IndexReading, index_px: float | None = None) -> float | None:
    """How well two readings of different codes fit being one card's opposite corners by their boxes alone, or None.

    Unlike :func:`disagreeing_pair_cost` it does not trust the readings' rotations; it asks for a
    card's corner span, one index size, boxes long the same way with the line between them across
    the card (``OPPOSITE_CORNER_AXIS_DEG`` from their long axis), and codes sharing a rank or a suit.
    """
    if a.code is None or b.code is None or a.code == b.code or not _share_rank_or_suit(a.code, b.code):
        return None
    if max(a.scale, b.scale) > OPPOSITE_CORNER_SIZE_RATIO * min(a.scale, b.scale):
        return None
    scale = index_px or (a.scale + b.scale) / 2
    between = b.center - a.center
    distance = _length(between)
    if not OPPOSITE_CORNER_SPAN[0] * scale <= distance <= OPPOSITE_CORNER_SPAN[1] * scale:
        return None
    axis_a, axis_b = _long_axis(a.box), _long_axis(b.box)
    if axis_a is None or axis_b is None or not np.array_equal(axis_a, axis_b):
        return None
    off_axis = 90.0 - abs(90.0 - _angle_deg(between, axis_a))
    if not OPPOSITE_CORNER_AXIS_DEG[0] <= off_axis <= OPPOSITE_CORNER_AXIS_DEG[1]:
        return None
    return abs(distance / scale - CORNER_SPAN)


def card_shaped(box: tuple[float, float, float, float], index_scale: float | None = None) -> bool:
    """Whether a face-down detection could be a card: not a thin strip, and, when the frame's index size is known, not smaller than a card."""
    width, height = box[2] - box[0], box[3] - box[1]
    if min(width, height) <= 0 or max(width, height) > MAX_BACK_ASPECT * min(width, height):
        return False
    return index_scale is None or max(width, height) >= MIN_BACK_LONG_SIDE * index_scale


def _union(boxes: list[tuple[float, float, float, float]]) -> list[float]:
    array = np.asarray(boxes, np.float64)
    return [array[:, 0].min(), array[:, 1].min(), array[:, 2].max(), array[:, 3].max()]


def _lone_card_box(reading: IndexReading, centre: np.ndarray) -> list[float]:
    """The index box together with where the opposite corner's index would be (its mirror through the centre)."""
    x1, y1, x2, y2 = reading.box
    mirrored = (2 * centre[0] - x2, 2 * centre[1] - y2, 2 * centre[0] - x1, 2 * centre[1] - y1)
    return _union([reading.box, mirrored])


# No pair of readings further apart than this many index sizes is one card, by any of the costs below
# (their spans' upper ends): only pairs within it are weighed (a 30-card table: ~30 pairs, not ~1,800).
WIDEST_SPAN = max(MAX_SPAN, TABLE_SPAN[1], DISAGREEING_SPAN[1], OPPOSITE_CORNER_SPAN[1])


def _near_pairs(readings: list[IndexReading], index_px: float | None) -> list[tuple[int, int]]:
    """Every (i, j), i < j, whose centres lie within ``WIDEST_SPAN`` index sizes (``index_px``, else
    the larger of the two readings' own): the only pairs any cost can accept."""
    if len(readings) < 2:
        return []
    centres = np.array([r.center for r in readings], np.float64)
    scales = np.array([r.scale for r in readings], np.float64)
    distance = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=-1)
    reach = WIDEST_SPAN * 1.001 * (np.full_like(distance, index_px) if index_px else np.maximum(scales[:, None], scales[None, :]))
    near = np.triu(distance <= reach + 1e-6, k=1)
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(near))]


def choose_pairs(readings: list[IndexReading], trust_rotation: bool = False, index_px: float | None = None,
                 one_card_geometry: bool | None = None) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Which readings are one card's two corners: (same-code pairs, different-code pairs), as indices.

    Same-code pairs are chosen greedily, best fit first (:func:`pairing_cost`), each reading used
    at most once; then leftover readings of different codes that can only be one card's corners
    (:func:`disagreeing_pair_cost`), and, with ``one_card_geometry``, those whose boxes alone place
    them at one card's opposite corners (:func:`opposite_corner_cost`); by default
    (``one_card_geometry`` None) only where the table's scale is unknown (``index_px`` None, a photo):
    a table pipeline on a mat weighs two corners' codes over many frames itself (its tracker), and
    there a per-frame guess from confidences made an incremental reading differ from a full one.
    Readings without a code never pair.
    """
    if one_card_geometry is None:
        one_card_geometry = ONE_CARD_BY_GEOMETRY and index_px is None
    near = _near_pairs(readings, index_px)
    candidates = sorted((cost, i, j) for i, j in near
                        if (cost := pairing_cost(readings[i], readings[j], trust_rotation, index_px)) is not None)
    used: set[int] = set()
    same: list[tuple[int, int]] = []
    for _, i, j in candidates:
        if i not in used and j not in used:
            used.update((i, j))
            same.append((i, j))
    disagreeing = sorted((cost, i, j) for i, j in near if i not in used and j not in used
                         and (cost := disagreeing_pair_cost(readings[i], readings[j], index_px)) is not None)
    different: list[tuple[int, int]] = []
    for _, i, j in disagreeing:
        if i not in used and j not in used:
            used.update((i, j))
            different.append((i, j))
    if one_card_geometry:
        by_boxes = sorted((cost, i, j) for i, j in near if i not in used and j not in used
                          and (cost := opposite_corner_cost(readings[i], readings[j], index_px)) is not None)
        for _, i, j in by_boxes:
            if i not in used and j not in used:
                used.update((i, j))
                different.append((i, j))
    return same, different


def group_cards(indices: list[IndexReading], backs: list[tuple[tuple[float, float, float, float], float]] = (),
                frame_shape: tuple[int, int] | None = None, trust_rotation: bool = False,
                index_px: float | None = None, one_card_geometry: bool | None = None,
                check_back_shape: bool | None = None) -> Detections:
    """Readings and face-down boxes → one :class:`Detections` entry per physical card.

    Pairs are chosen greedily, best fit first, each reading used at most once (see
    :func:`pairing_cost` for ``trust_rotation``), spans measured in index sizes (``index_px``
    when the caller knows the table's scale, as for a lone index below); then two leftover readings of different codes
    that can only be one card's corners (:func:`disagreeing_pair_cost`) become that card, read as
    the surer one with a confidence lowered by the other. A lone index's card centre lies
    ``CORNER_SPAN / 2`` index sizes away from it: its own size, or ``index_px`` when the caller
    knows the table's scale: printed index sizes vary between decks, a card's corner-to-centre
    distance does not (in the 31 rendered decks an index lies 2.1-2.7 of its own sizes from the
    card's centre, 10th-90th percentile, but a joker's 1.4-6.4). A card's
    confidence is its best corner's ``detection × classification`` confidence. With
    ``check_back_shape`` a face-down box that is not card-shaped (:func:`card_shaped`, measured
    against the median size of all index boxes in the frame) is dropped; by default only where the
    table's scale is unknown (``index_px`` None): on a mat a face-down card under another card shows
    a strip of real back (The Chosen's chips under a chosen). Boxes are
    clipped to ``frame_shape`` (height, width) when given; centres are not (a lone index at the
    frame's edge may belong to a card whose centre is outside it).
    """
    readings = [r for r in indices if r.code is not None]
    same, disagreeing = choose_pairs(readings, trust_rotation, index_px, one_card_geometry)
    used = {k for pair in same + disagreeing for k in pair}
    boxes, confidences, codes, centres, others = [], [], [], [], []
    certain = (np.nan, np.nan)
    for i, j in same:
        a, b = readings[i], readings[j]
        boxes.append(_union([a.box, b.box]))
        confidences.append(max(a.confidence, b.confidence))
        codes.append(a.code)
        centres.append((a.center + b.center) / 2)
        others.append(certain)
    for i, j in disagreeing:
        sure, other = sorted((readings[i], readings[j]), key=lambda r: -r.confidence)
        boxes.append(_union([sure.box, other.box]))
        # the card is the surer reading, and only as sure as its share of the two
        confidences.append(sure.confidence * sure.confidence / (sure.confidence + other.confidence))
        codes.append(sure.code)
        centres.append((sure.center + other.center) / 2)
        others.append(certain)
    for i, reading in enumerate(readings):
        if i in used:
            continue
        centre = _centre(reading, index_px)
        boxes.append(_lone_card_box(reading, centre))
        confidences.append(reading.confidence)
        codes.append(reading.code)
        centres.append(centre)
        others.append(2 * reading.center - centre)     # the index read facing the other way
    if check_back_shape is None:
        check_back_shape = index_px is None
    if check_back_shape:
        index_scale = float(np.median([r.scale for r in indices])) if indices else None
        backs = [(box, confidence) for box, confidence in backs if card_shaped(box, index_scale)]
    for box, confidence in backs:
        boxes.append(list(box))
        confidences.append(confidence)
        codes.append("BACK")
        centres.append(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2))
        others.append(certain)
    if not codes:
        return Detections.empty()
    boxes_array = np.asarray(boxes, np.float32)
    if frame_shape is not None:
        boxes_array[:, [0, 2]] = boxes_array[:, [0, 2]].clip(0, frame_shape[1])
        boxes_array[:, [1, 3]] = boxes_array[:, [1, 3]].clip(0, frame_shape[0])
    order = np.argsort(-np.asarray(confidences), kind="stable")
    return Detections(boxes_array[order], np.asarray(confidences, np.float32)[order],
                      tuple(codes[k] for k in order), np.asarray(centres, np.float32)[order],
                      np.asarray(others, np.float32)[order])


def cards_from_readings(indices: list[IndexReading], backs: list[tuple[tuple[float, float, float, float], float]],
                        frame_shape: tuple[int, int] | None, index_px: float | None = None,
                        learned_back: bool = False) -> Detections:
    """The cards of one frame's readings, grouped the one way every reader's readings are: a frame read
    by this process's detector (whole or incrementally) and the readings a phone or a table computer
    posts (``companion.table.readings``) all come through here, so a grouping fix reaches every feed.

    ``learned_back``: the backs were checked against a learned deck's back (``DeckProfile.is_back``),
    whose colours tell a strip of real back from a chip or a fanned edge, so their shape is not asked.
    """
    return group_cards(indices, backs, frame_shape, index_px=index_px,
                       check_back_shape=False if learned_back else None)
