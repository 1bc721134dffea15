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

Many real decks print the index in all four corners: the two upper indices face the same way, one
card-width apart less an index, and the two lower ones are turned 180° to them. Such a card shows up
to four readings of its code; :func:`choose_groups` joins all of them into one card (along the card's
edges as well as across its diagonal), never more than a card's four corners, and only readings that
are pairwise where one card's corners lie (complete linkage: a chain of two real cards never joins).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from companion.cards import Card
from companion.vision.detections import Detections, IndexScale

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
# the held-out cardcounterml photos read once and grouped with and without it (EVALUATION.md, "One card is
# one card"; ``vision_models.checks.real_check --source cardcounterml`` reads them, its ``check`` regroups).
ONE_CARD_BY_GEOMETRY = True
OPPOSITE_CORNER_SPAN = (2.7, 5.3)
OPPOSITE_CORNER_SIZE_RATIO = 1.3
OPPOSITE_CORNER_ELONGATION = 1.25   # an index box longer than this along one axis shows the card's long axis
OPPOSITE_CORNER_AXIS_DEG = (25.0, 70.0)   # between the boxes' long axis and the line joining them

# Four-index decks: the indices lie at the corners of a rectangle INDEX_ACROSS wide (the two upper
# ones, side by side, facing the same way) and INDEX_ALONG long (an upper and the lower one on the same
# side, turned 180°), in index scales. Measured on poker-cards-rf100, a real four-index deck (its
# labelled whole cards of both splits, each card's readings of its own code inside its box, 2026-12-02):
# across 2.65 at the median (1.92-4.56, 5th-95th percentile, the tail being misread rotations), along
# 3.51 (3.03-5.16); the drawn deck's four-index option (companion.synthetic.deck) 2.48 x 3.18.
INDEX_ACROSS = 2.6
INDEX_ALONG = 3.4
# Two cards side by side in a row put their upper-left indices a card's width apart: 3.49 index
# scales at the median on the same photos (cards lying square), against an across of 2.65: a pair
# whose facing says "the two upper indices" stops between the two (a same-code pair further apart
# still joins as any same-code pair does with one deck, after the pairs whose facing fits).
ACROSS_SPAN = (1.6, 3.0)
ALONG_SPAN = (2.6, 4.8)
# On a mat the index size is the layout's 18 mm (calibration.layouts.INDEX_MM) and a poker card is
# 63 x 88 mm: its upper indices ~51 mm apart (2.8) and ~64 mm down its side (3.6); a neighbour in a
# row puts its own index 63 mm or more away (3.5), one in a column 88 mm or more (4.9).
TABLE_ACROSS_SPAN = (2.2, 3.2)
TABLE_ALONG_SPAN = (3.0, 4.4)
# How far the line between two indices may lean off the reading's axes and still be one edge: a
# card lies anywhere within 45° of the quarter turn its readings are binned to, and a diagonal leans
# atan(2.6 / 3.4) = 37° off the long side; 25° keeps the two apart. Beyond it one deck still joins
# same-code readings by their span (and three or more by corners_of_one_card); two decks do not.
EDGE_ANGLE_DEG = 25.0
MAX_INDICES_PER_CARD = 4
# Three or four readings are one card only where they lie as its corners (corners_of_one_card). On the
# rf100 four-index deck's labelled cards (1,206 triples of one card's readings) the angle at the
# triangle's corner runs 68-115° (1st-99th percentile; perspective, boxes off their index's centre),
# the longer leg over the shorter 1.01-1.98; its legs 1.65 and 4.4 index scales at the extremes.
CORNER_ANGLE_TOLERANCE_DEG = 30.0
MAX_LEG_RATIO = 2.2

# A face-down card must be card-shaped. Its axis-aligned box runs from 1.40 long (88 x 63 mm, lying
# square) to 1.0 (at 45°), longer when seen at a slant: the held-out photos' labelled backs reach
# 1.87, while the edges of fanned cards the back detector reports run 2.27-4.26 (9 held-out photos
# with backs, EVALUATION.md, "One card is one card"). Round chips box as squares, like a card at
# 45°: they are told by size instead: a card's long side is at least 4.6 index sizes (88 mm over an
# index 19 mm long, the labelled pairs' median span 4.2 scales = 80 mm); the held-out photos' chips
# box at 3.5-3.7 of the photo's median index size, its real backs at 4.9 and more.
# Issue 28 measured both on real backs labelled by eye (``python -m vision_models.checks.backs_check``, 145
# backs in 111 photos and 1,944 real photos with none; the back threshold 0.75): a strip of a covered
# card in a column or a cascade boxes up to 5 long, and its long side is the card's width, 2-4 index
# sizes; MAX_BACK_ASPECT 2.0 -> 3.0 and MIN_BACK_LONG_SIDE 4.0 -> 3.0 took backs P / R 1.000 / 0.538 ->
# 0.978 / 0.621 (3.0 and 3.5: 0.989 / 0.600; 3.0 and 2.5: 0.978 / 0.628; an aspect of 6 drops nothing
# more than 3 does), the photos no network trained on 1.00 / 0.40 -> 0.94 / 0.45, rendered back scenes
# 1.00 / 0.29 -> 1.00 / 0.30. The rendered chips of negatives_check (3.5-3.7) were not re-measured.
MAX_BACK_ASPECT = 3.0
MIN_BACK_LONG_SIDE = 3.0   # in the frame's median index size, when it shows indices
# A face-down card shows no index: a back box that holds a face-up card's joined corners (two or more
# readings of one card, all inside it) centred on that card's centre is the face-up card boxed as a back
# (dark decks, bright faces under glare). On the real photos (``vision_models.checks.real_check``, 2026-12-02)
# the back boxes that held a joined face card lay 0.1-0.6 index sizes from its centre (6 boxes, all
# false: cardcounterml's dark deck, rf100, the feliksh scan, kentdoan); every labelled back held at
# most one reading and lay 1.1 index sizes or more from the nearest face card's centre. Re-measured on
# the backs labelled by eye (issue 28, backs_check, the constants above): without it backs P / R 0.968 /
# 0.621, with it 0.978 / 0.621: it drops no real back.
FACE_ON_BACK_CENTRE = 0.9   # in index sizes

# Where the table's scale is unknown (a photo) a card seen at one index only must be sure of it
# (detection x classification confidence): a second corner of the same code confirms a card, a lone
# index does not. Chosen on the real development photos (``vision_models.checks.real_check --source rf100-train
# --source webcam-strips-train``, 1,082 photos, 4,469 cards, read at detector.PHOTO_INDEX_CONF 0.3;
# 2026-12-02): lone cards' floor 0 / 0.5 / 0.6 / 0.65 / 0.7 / 0.75 / 0.8 gave card F1 0.831 / 0.865 /
# 0.875 / 0.877 / 0.879 / 0.879 / 0.876 (read lower and kept only where sure, more cards are found with
# their corners joined, fewer phantoms kept), and on the rendered held-out deck's scenes, whose cascades
# show one index of each covered card (``vision_models.checks.negatives_check --learn-from none``), 0.5 / 0.6 /
# 0.7 gave 0.890 / 0.882 / 0.857 against 0.881 before: 0.6 is the highest floor that costs the cascades
# nothing. Measured on the other real photos in EVALUATION.md, "General models on real photos".
LONE_CARD_MIN_CONFIDENCE = 0.6

# A deck that prints its index in all four corners shows a card it holds in plain view by two or more
# corners, so in a photo whose grouping joined three or four corners of one card (the deck is a
# four-index one: a two-index card shows two) a lone index is more often a corner misread than a card
# seen by one corner. Chosen with the chain's candidate detector (issue 28) on the development photos
# (``vision_models.checks.real_check --source rf100-valid --four-index-floor P``, the four-index deck the
# detector learned, photos it never saw): 0.6 (the floor above) / 0.7 / 0.8 / 0.85 / 0.9 gave card F1
# 0.911 / 0.921 / 0.930 / 0.932 / 0.932; on every real source 0.909 / 0.915 / 0.921 / 0.921 / 0.921 with
# cardcounterml's two-index photos unchanged (no card of three corners), where one floor of 0.8 for every
# photo cost them 0.898 -> 0.848 (EVALUATION.md, "Lone indices on a four-index deck"). The shipped detector
# (the candidate is not shipped) chooses the same on rf100-valid (0.895 -> 0.902 at 0.85 and 0.9); on every
# real source it trades recall for precision (R 0.898 -> 0.875, P 0.908 -> 0.935, F1 0.903 -> 0.904).
FOUR_INDEX_LONE_CARD_MIN_CONFIDENCE = 0.85

# One deck: no code is two cards. Where the table's scale is unknown (a photo) and one deck is assumed
# (``trust_rotation`` False, as every same-code pairing here assumes), a code read as two cards keeps the
# surer one (a card of joined corners before a lone index, then the higher confidence): the other is a
# corner left unjoined or another card's index misread as this code. Development photos (as above, with
# the floor): card F1 0.878 -> 0.895, counted twice 193 -> 0; dropping lone duplicates only: 0.887.
ONE_CARD_PER_CODE = True

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

    # The geometry below is asked of every reading for each of its neighbours (a 30-card mat: ~200 pairs a
    # frame), so each is worked out once a reading (read-only: shared by every caller)
    @cached_property
    def center(self) -> np.ndarray:
        x1, y1, x2, y2 = self.box
        return _read_only(np.array([(x1 + x2) / 2, (y1 + y2) / 2], np.float64))

    @cached_property
    def scale(self) -> float:
        """The longer side of the box: the index's size, nearly independent of its rotation."""
        x1, y1, x2, y2 = self.box
        return max(x2 - x1, y2 - y1, 1e-6)

    @cached_property
    def toward_center(self) -> np.ndarray:
        """Unit vector from this index toward its card's centre, in frame coordinates."""
        upright = (math.cos(math.radians(CENTRE_BEARING_DEG)), math.sin(math.radians(CENTRE_BEARING_DEG)))
        # The crop was turned ``rotation`` clockwise to read upright; undo that turn.
        return _read_only(np.array(rotate_clockwise(upright, (360 - self.rotation) % 360), np.float64))

    @property
    def estimated_card_center(self) -> np.ndarray:
        return self.card_center_at(self.scale)

    def card_center_at(self, scale: float) -> np.ndarray:
        """The card's centre for an index of ``scale`` pixels (its own size, or the one a table knows)."""
        return self.center + self.toward_center * (CORNER_SPAN / 2) * scale


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def _centre(reading: IndexReading, index_px: float | None) -> np.ndarray:
    return reading.card_center_at(index_px) if index_px else reading.estimated_card_center


def _length(v: np.ndarray) -> float:
    """The length of a 2-vector (math, not numpy: the grouping weighs thousands of pairs a second on a server)."""
    return math.hypot(float(v[0]), float(v[1]))


def _angle_deg(a: np.ndarray, b: np.ndarray) -> float:
    ax, ay, bx, by = float(a[0]), float(a[1]), float(b[0]), float(b[1])
    cosine = (ax * bx + ay * by) / max(math.hypot(ax, ay) * math.hypot(bx, by), 1e-9)
    return math.degrees(math.acos(max(-1.0, min(1.0, cosine))))


# A joker's index (JOKER spelled down the corner, or a figure) reads nearly the same turned half a
# turn: in two Kingdoms recordings (seeds 61 and 81, 2026-12-07, every 6th frame, each index followed
# where it lay) a joker's index was read at the other half-turn from its usual one in 58 of 381
# readings (15 %), any other code's in 57 of 3,276 (1.7 %) (``scripts/index_facing.py``). Its facing is known to a half turn only,
# so its pairs are weighed both ways: two jokers in a column were otherwise one card of two cards'
# upper indices (seeds 61 and 81: an SJ placed, read as moved off the grid, removed and placed again).
HALF_TURN_AMBIGUOUS_CODES = frozenset({"SJ", "BJ"})


def _facings(reading: IndexReading) -> tuple[IndexReading, ...]:
    """The reading as read and, for a code whose facing is known to a half turn only, turned half a turn."""
    if reading.code in HALF_TURN_AMBIGUOUS_CODES:
        return reading, replace(reading, rotation=(reading.rotation + 180) % 360)
    return (reading,)


def _best_facing(cost, a: IndexReading, b: IndexReading, *args) -> float | None:
    """The lowest of ``cost`` over the two readings' possible facings, or None when none fits."""
    if a.code not in HALF_TURN_AMBIGUOUS_CODES and b.code not in HALF_TURN_AMBIGUOUS_CODES:
        return cost(a, b, *args)   # one facing each: most pairs, weighed once
    costs = [c for first in _facings(a) for second in _facings(b) if (c := cost(first, second, *args)) is not None]
    return min(costs) if costs else None


def pairing_cost(a: IndexReading, b: IndexReading, trust_rotation: bool = False,
                 index_px: float | None = None) -> float | None:
    """How well two same-code readings fit being the two corners of one card (lower is better), or None.
    A joker's readings are weighed at both their facings (``HALF_TURN_AMBIGUOUS_CODES``).

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
    return _best_facing(_pairing_cost_as_faced, a, b, trust_rotation, index_px)


def _pairing_cost_as_faced(a: IndexReading, b: IndexReading, trust_rotation: bool, index_px: float | None) -> float | None:
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


def edge_cost(a: IndexReading, b: IndexReading, trust_rotation: bool = False,
              index_px: float | None = None) -> float | None:
    """How well two same-code readings fit being two corners on one edge of a four-index card, or None.

    Across the card's top (or bottom) the two indices face the same way and lie side by side
    (``INDEX_ACROSS``); down one side they are turned half a turn, each index's foot toward the other
    (``INDEX_ALONG``). Readings whose rotations do not fit that still join with one deck on the table,
    after every pair that does (``ROTATION_DISAGREEMENT_COST``), as in :func:`pairing_cost`; with
    ``trust_rotation`` (two decks) they do not. The across span stops short of two cards' upper
    indices in a row (``ACROSS_SPAN``). A joker's readings are weighed at both their facings.
    """
    if a.code is None or a.code != b.code:
        return None
    return _best_facing(_edge_cost_as_faced, a, b, trust_rotation, index_px)


def _edge_cost_as_faced(a: IndexReading, b: IndexReading, trust_rotation: bool, index_px: float | None) -> float | None:
    scale = index_px or (a.scale + b.scale) / 2
    x, y = rotate_clockwise((float(b.center[0] - a.center[0]), float(b.center[1] - a.center[1])), a.rotation)
    x, y = x / scale, y / scale
    distance = math.hypot(x, y)
    lean = math.tan(math.radians(EDGE_ANGLE_DEG))
    turn = (b.rotation - a.rotation) % 360
    across_span = TABLE_ACROSS_SPAN if index_px else ACROSS_SPAN
    along_span = TABLE_ALONG_SPAN if index_px else ALONG_SPAN
    if abs(y) <= lean * abs(x):
        low, high = across_span
        nominal, off_edge, consistent = INDEX_ACROSS, abs(y), turn == 0
    elif abs(x) <= lean * abs(y):
        low, high = along_span
        nominal, off_edge, consistent = INDEX_ALONG, abs(x), turn == 180 and y > 0
    elif turn == 180 and x < 0 < y and across_span[0] <= -x <= across_span[1] and along_span[0] <= y <= along_span[1]:
        # A four-index card's other diagonal: from a top-right index (facing as the top-left one)
        # down and left to the bottom-left one, turned half a turn (pairing_cost knows the usual one).
        return abs(-x - INDEX_ACROSS) * 0.25 + abs(y - INDEX_ALONG) * 0.25
    else:
        # Neither edge by the reading's axes: a card lying 25-45° off them (the rotation comes in
        # quarter turns), or a diagonal. One deck: still one card's corners if at an edge's span
        # (the shape of three or more is checked rotation-free, corners_of_one_card).
        low, high = across_span[0], along_span[1]
        nominal = INDEX_ACROSS if distance < (INDEX_ACROSS + INDEX_ALONG) / 2 else INDEX_ALONG
        off_edge, consistent = 0.0, False
    if not low <= distance <= high:
        return None
    span_error = abs(distance - nominal) * 0.25
    if consistent:
        return off_edge + span_error
    return None if trust_rotation else ROTATION_DISAGREEMENT_COST + span_error


def link_cost(a: IndexReading, b: IndexReading, trust_rotation: bool = False,
              index_px: float | None = None) -> float | None:
    """How well two same-code readings fit being two corners of one card, across it or along an edge (lower is better), or None."""
    costs = [c for c in (pairing_cost(a, b, trust_rotation, index_px), edge_cost(a, b, trust_rotation, index_px))
             if c is not None]
    return min(costs) if costs else None


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


def holds_face_card(box: tuple[float, float, float, float], faces: list[tuple[list[IndexReading], np.ndarray]]) -> bool:
    """Whether a face-down box is a face-up card: it holds all the joined corners of one of ``faces``
    (each its readings and its centre) and is centred on that card (``FACE_ON_BACK_CENTRE``)."""
    x1, y1, x2, y2 = box
    centre = np.array([(x1 + x2) / 2, (y1 + y2) / 2])
    for members, face_centre in faces:
        scale = float(np.mean([r.scale for r in members]))
        if (all(x1 <= r.center[0] <= x2 and y1 <= r.center[1] <= y2 for r in members)
                and _length(face_centre - centre) <= FACE_ON_BACK_CENTRE * scale):
            return True
    return False


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
WIDEST_SPAN = max(MAX_SPAN, TABLE_SPAN[1], DISAGREEING_SPAN[1], OPPOSITE_CORNER_SPAN[1], ALONG_SPAN[1], TABLE_ALONG_SPAN[1])


def _local_sizes(readings: list[IndexReading], index_px: IndexScale | float | None) -> list[float] | None:
    """The table's index size where each reading lies (:class:`IndexScale`), or None where the scale is unknown."""
    scale = IndexScale.of(index_px)
    return None if scale is None else [scale.at(r.center) for r in readings]


def _pair_px(local: list[float] | None, *members: int) -> float | None:
    """The table's index size for readings weighed together: the mean of where they lie."""
    return None if local is None else sum(local[k] for k in members) / len(members)


def _near_pairs(readings: list[IndexReading], local: list[float] | None) -> list[tuple[int, int]]:
    """Every (i, j), i < j, whose centres lie within ``WIDEST_SPAN`` index sizes (the table's where each
    lies, ``local``, else the readings' own), the larger of the two: the only pairs any cost can accept."""
    if len(readings) < 2:
        return []
    centres = np.array([r.center for r in readings], np.float64)
    scales = np.array(local if local is not None else [r.scale for r in readings], np.float64)
    distance = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=-1)
    reach = WIDEST_SPAN * 1.001 * np.maximum(scales[:, None], scales[None, :])
    near = np.triu(distance <= reach + 1e-6, k=1)
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(near))]


def choose_pairs(readings: list[IndexReading], trust_rotation: bool = False, index_px: IndexScale | float | None = None,
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
    local = _local_sizes(readings, index_px)
    near = _near_pairs(readings, local)
    candidates = sorted((cost, i, j) for i, j in near
                        if (cost := pairing_cost(readings[i], readings[j], trust_rotation, _pair_px(local, i, j))) is not None)
    used: set[int] = set()
    same: list[tuple[int, int]] = []
    for _, i, j in candidates:
        if i not in used and j not in used:
            used.update((i, j))
            same.append((i, j))
    disagreeing = sorted((cost, i, j) for i, j in near if i not in used and j not in used
                         and (cost := disagreeing_pair_cost(readings[i], readings[j], _pair_px(local, i, j))) is not None)
    different: list[tuple[int, int]] = []
    for _, i, j in disagreeing:
        if i not in used and j not in used:
            used.update((i, j))
            different.append((i, j))
    if one_card_geometry:
        by_boxes = sorted((cost, i, j) for i, j in near if i not in used and j not in used
                          and (cost := opposite_corner_cost(readings[i], readings[j], _pair_px(local, i, j))) is not None)
        for _, i, j in by_boxes:
            if i not in used and j not in used:
                used.update((i, j))
                different.append((i, j))
    return same, different


def corners_of_one_card(points: list[np.ndarray], scale: float, on_mat: bool = False) -> bool:
    """Whether three or four index centres lie where one card's corners lie: every three of them a
    right-angled triangle (``CORNER_ANGLE_TOLERANCE_DEG``, perspective's share) whose legs are a card's
    across and along (``ACROSS_SPAN``'s low end to ``ALONG_SPAN``'s high end, in ``scale`` units, the
    longer no more than ``MAX_LEG_RATIO`` times the shorter). Rotation-free: it holds at any angle the card lies.
    ``on_mat``: ``scale`` is the mat's index size, which knows a card's size: the shorter leg must be
    an across (``TABLE_ACROSS_SPAN``) and the longer an along (``TABLE_ALONG_SPAN``), so that a corner
    of the next card in a grid (63 mm or more away, as far as an along) never makes a third."""
    low, high = ACROSS_SPAN[0], ALONG_SPAN[1]
    for a, b, c in itertools.combinations(points, 3):
        sides = sorted(((_length(b - c), a), (_length(a - c), b), (_length(a - b), c)), key=lambda side: side[0])
        (short, _), (long, _), (hypotenuse, corner) = sides
        legs = [p for p in (a, b, c) if p is not corner]
        angle = _angle_deg(legs[0] - corner, legs[1] - corner)
        if abs(angle - 90.0) > CORNER_ANGLE_TOLERANCE_DEG:
            return False
        if not (low * scale <= short and long <= high * scale and long <= MAX_LEG_RATIO * short):
            return False
        if on_mat and not (TABLE_ACROSS_SPAN[0] * scale <= short <= TABLE_ACROSS_SPAN[1] * scale
                           and TABLE_ALONG_SPAN[0] * scale <= long <= TABLE_ALONG_SPAN[1] * scale):
            return False
    return True


def choose_groups(readings: list[IndexReading], trust_rotation: bool = False, index_px: IndexScale | float | None = None,
                  one_card_geometry: bool | None = None) -> tuple[list[tuple[int, ...]], list[tuple[int, int]]]:
    """Which readings are one card: (groups of up to four readings of one code, different-code pairs), as indices.

    Same-code readings join best fit first (:func:`link_cost`), two groups only where every reading of
    the one fits every reading of the other and the two together are no more than a card's four
    corners; a lone reading stays a group of one. Then, as in :func:`choose_pairs`, two lone
    readings of different codes that can only be one card's corners become a pair.
    """
    return _choose_groups(readings, trust_rotation, _local_sizes(readings, index_px), one_card_geometry)


def _choose_groups(readings: list[IndexReading], trust_rotation: bool, local: list[float] | None,
                   one_card_geometry: bool | None) -> tuple[list[tuple[int, ...]], list[tuple[int, int]]]:
    """:func:`choose_groups` with the table's index size where each reading lies worked out (``_local_sizes``)."""
    if one_card_geometry is None:
        one_card_geometry = ONE_CARD_BY_GEOMETRY and local is None
    near = _near_pairs(readings, local)
    links: dict[tuple[int, int], float] = {}
    for i, j in near:
        if readings[i].code is None or readings[i].code != readings[j].code:
            continue   # never linked (link_cost): most near pairs, skipped without weighing
        cost = link_cost(readings[i], readings[j], trust_rotation, _pair_px(local, i, j))
        if cost is not None:
            links[i, j] = cost
    group_of = list(range(len(readings)))
    members: dict[int, list[int]] = {k: [k] for k in range(len(readings))}
    for (i, j), _ in sorted(links.items(), key=lambda item: (item[1], item[0])):
        first, second = group_of[i], group_of[j]
        if first == second or len(members[first]) + len(members[second]) > MAX_INDICES_PER_CARD:
            continue
        if not all((min(k, m), max(k, m)) in links for k in members[first] for m in members[second]):
            continue
        joined = members[first] + members[second]
        if len(joined) > 2 and not corners_of_one_card([readings[k].center for k in joined],
                                                     _pair_px(local, *joined) or float(np.mean([readings[k].scale for k in joined])),
                                                     on_mat=local is not None):
            continue
        keep, gone = min(first, second), max(first, second)
        members[keep] = sorted(members[keep] + members.pop(gone))
        for k in members[keep]:
            group_of[k] = keep
    groups = sorted(tuple(m) for m in members.values())
    used = {k for group in groups if len(group) > 1 for k in group}
    disagreeing = sorted((cost, i, j) for i, j in near if i not in used and j not in used
                         and (cost := disagreeing_pair_cost(readings[i], readings[j], _pair_px(local, i, j))) is not None)
    different: list[tuple[int, int]] = []
    for _, i, j in disagreeing:
        if i not in used and j not in used:
            used.update((i, j))
            different.append((i, j))
    if one_card_geometry:
        by_boxes = sorted((cost, i, j) for i, j in near if i not in used and j not in used
                          and (cost := opposite_corner_cost(readings[i], readings[j], _pair_px(local, i, j))) is not None)
        for _, i, j in by_boxes:
            if i not in used and j not in used:
                used.update((i, j))
                different.append((i, j))
    paired = {k for pair in different for k in pair}
    return [g for g in groups if not (len(g) == 1 and g[0] in paired)], different


def _slot_centres(reading: IndexReading, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Where the card's centre lies if the reading is its left index (the usual one) or, on a four-index deck, its right one."""
    half_across, half_along = INDEX_ACROSS / 2 * scale, INDEX_ALONG / 2 * scale
    turn = (360 - reading.rotation) % 360
    left = np.array(rotate_clockwise((half_across, half_along), turn), np.float64)
    right = np.array(rotate_clockwise((-half_across, half_along), turn), np.float64)
    return reading.center + left, reading.center + right


def _group_centre(group: list[IndexReading], index_px: float | None) -> np.ndarray:
    """A card's centre from the corners it shows. Four corners: their middle; three: the middle of the
    triangle's long side (the card's diagonal), whichever way the card lies; two: the middle of a
    diagonal unless the two face as one edge's indices do, then the centre both agree on (each the
    left or the right index of its edge)."""
    points = [r.center for r in group]
    if len(group) >= 4:
        return np.mean(points, axis=0)
    if len(group) == 3:
        a, b, c = points
        sides = [(_length(b - c), b, c), (_length(a - c), a, c), (_length(a - b), a, b)]
        _, first, second = max(sides, key=lambda side: side[0])
        return (first + second) / 2
    a, b = group
    midpoint = (a.center + b.center) / 2
    if edge_cost(a, b, True, index_px) is None or pairing_cost(a, b, True, index_px) is not None:
        return midpoint
    scale = index_px or (a.scale + b.scale) / 2
    options = [_slot_centres(r, scale) for r in group]
    # each reading its left or right slot: the assignment whose centres agree best
    pairs = [(_length(options[0][i] - options[1][j]), i, j) for i in (0, 1) for j in (0, 1)]
    spread, i, j = min(pairs)
    if spread > MAX_CENTRE_DISAGREEMENT * scale:
        return midpoint
    return (options[0][i] + options[1][j]) / 2


def _card_box(group: list[IndexReading], centre: np.ndarray) -> list[float]:
    """The readings' boxes together with their mirrors through the card's centre (its other corners)."""
    boxes = []
    for reading in group:
        x1, y1, x2, y2 = reading.box
        boxes += [reading.box, (2 * centre[0] - x2, 2 * centre[1] - y2, 2 * centre[0] - x1, 2 * centre[1] - y1)]
    return _union(boxes)


def group_cards(indices: list[IndexReading], backs: list[tuple[tuple[float, float, float, float], float]] = (),
                frame_shape: tuple[int, int] | None = None, trust_rotation: bool = False,
                index_px: IndexScale | float | None = None, one_card_geometry: bool | None = None,
                check_back_shape: bool | None = None, min_lone_confidence: float | None = None,
                one_card_per_code: bool | None = None, four_index_lone_confidence: float | None = None) -> Detections:
    """Readings and face-down boxes → one :class:`Detections` entry per physical card.

    Pairs are chosen greedily, best fit first, each reading used at most once (see
    :func:`pairing_cost` for ``trust_rotation``), spans measured in index sizes (``index_px``
    when the caller knows the table's scale, as for a lone index below: a number, or an
    :class:`IndexScale` that gives each reading the size where it lies); then two leftover readings of different codes
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
    frame's edge may belong to a card whose centre is outside it). A card of one index is kept only
    at ``min_lone_confidence`` or surer: by default ``LONE_CARD_MIN_CONFIDENCE`` where the table's
    scale is unknown (``index_px`` None), none on a mat, where the tracker weighs readings over frames.
    Where the floor is the default one and three or four corners of one card were joined (a four-index
    deck), a lone index needs ``four_index_lone_confidence`` (by default ``FOUR_INDEX_LONE_CARD_MIN_CONFIDENCE``).
    A face-down box that holds a face-up card's joined corners is that card (:func:`holds_face_card`).
    ``one_card_per_code``: a code read as several cards keeps the surest (``ONE_CARD_PER_CODE``); by
    default where the scale is unknown and one deck assumed (``index_px`` None, ``trust_rotation`` False).
    """
    readings = [r for r in indices if r.code is not None]
    local = _local_sizes(readings, index_px)
    groups, disagreeing = _choose_groups(readings, trust_rotation, local, one_card_geometry)
    used = {k for group in groups if len(group) > 1 for k in group} | {k for pair in disagreeing for k in pair}
    boxes, confidences, codes, centres, others = [], [], [], [], []
    certain = (np.nan, np.nan)
    joined_faces: list[tuple[list[IndexReading], np.ndarray]] = []
    joined: list[bool] = []   # each face card: from two or more readings
    for group in groups:
        if len(group) == 1:
            continue
        members = [readings[k] for k in group]
        centre = _group_centre(members, _pair_px(local, *group))
        joined_faces.append((members, centre))
        boxes.append(_card_box(members, centre))
        confidences.append(max(r.confidence for r in members))
        codes.append(members[0].code)
        centres.append(centre)
        others.append(certain)
        joined.append(True)
    for i, j in disagreeing:
        sure, other = sorted((readings[i], readings[j]), key=lambda r: -r.confidence)
        boxes.append(_union([sure.box, other.box]))
        # the card is the surer reading, and only as sure as its share of the two
        confidences.append(sure.confidence * sure.confidence / (sure.confidence + other.confidence))
        codes.append(sure.code)
        centres.append((sure.center + other.center) / 2)
        others.append(certain)
        joined.append(True)
    if min_lone_confidence is None:
        min_lone_confidence = LONE_CARD_MIN_CONFIDENCE if index_px is None else 0.0
        if index_px is None and any(len(group) > 2 for group in groups):
            four = FOUR_INDEX_LONE_CARD_MIN_CONFIDENCE if four_index_lone_confidence is None else four_index_lone_confidence
            min_lone_confidence = max(min_lone_confidence, four)
    for i, reading in enumerate(readings):
        if i in used or reading.confidence < min_lone_confidence:
            continue
        centre = _centre(reading, _pair_px(local, i))
        boxes.append(_lone_card_box(reading, centre))
        confidences.append(reading.confidence)
        codes.append(reading.code)
        centres.append(centre)
        others.append(2 * reading.center - centre)     # the index read facing the other way
        joined.append(False)
    if one_card_per_code is None:
        one_card_per_code = ONE_CARD_PER_CODE and index_px is None and not trust_rotation
    if one_card_per_code:
        surest: dict[str, int] = {}
        for k, code in enumerate(codes):
            if code not in surest or (joined[k], confidences[k]) > (joined[surest[code]], confidences[surest[code]]):
                surest[code] = k
        kept = sorted(surest.values())
        boxes, confidences, codes, centres, others = ([values[k] for k in kept]
                                                      for values in (boxes, confidences, codes, centres, others))
    if check_back_shape is None:
        check_back_shape = index_px is None
    if check_back_shape:
        index_scale = float(np.median([r.scale for r in indices])) if indices else None
        backs = [(box, confidence) for box, confidence in backs
                 if card_shaped(box, index_scale) and not holds_face_card(box, joined_faces)]
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
                        frame_shape: tuple[int, int] | None, index_px: IndexScale | float | None = None,
                        learned_back: bool = False, min_lone_confidence: float | None = None) -> Detections:
    """The cards of one frame's readings, grouped the one way every reader's readings are: a frame read
    by this process's detector (whole or incrementally) and the readings a phone or a table computer
    posts (``companion.table.readings``) all come through here, so a grouping fix reaches every feed.

    ``learned_back``: the backs were checked against a learned deck's back (``DeckProfile.is_back``),
    whose colours tell a strip of real back from a chip or a fanned edge, so their shape is not asked.
    ``min_lone_confidence``: see :func:`group_cards` (a learned deck's reader passes 0: its prototypes
    vet each index, and its confidences are similarities, not the general classifier's).
    """
    return group_cards(indices, backs, frame_shape, index_px=index_px,
                       check_back_shape=False if learned_back else None, min_lone_confidence=min_lone_confidence)
