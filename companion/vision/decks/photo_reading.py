"""What the detector and classifier see in learning photos, and those readings grouped into cards.

Each corner index the detector finds is cut exactly as the classifier sees it, and the classifier's
pooled features (the numbers before its last layer, exposed by :mod:`companion.vision.models`)
describe it; the grouping's pairs fix each reading's turn.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np

from companion.vision.decks.profile import DECK_CODES, back_histogram
from companion.vision.decks.result import LearnedCard
from companion.vision.grouping import CORNER_SPAN, ROTATIONS, IndexReading, choose_pairs, rotate_clockwise

# The detector's index threshold while learning: the assignment leaves stray boxes unplaced, and a
# missed index is a card the player must name. In a whole-deck spread of the held-out 'plastic' deck
# the shipped 0.6 found none of its court cards' indices and 0.3 all of them (vision_models.checks.deck_check).
LEARN_INDEX_CONF = 0.3
# A face-down card in a learning photo is taken as the deck's back only when this sure.
LEARN_BACK_CONF = 0.6
# A lone box whose overlap with another reading's box covers this share of the smaller one is a second
# box on that corner (see second_boxes); the indices of two cards in overlapping rows do not overlap so.
SECOND_BOX_SHARE = 0.5
# Units of one code join into one card (a four-index deck's corners) when their readings lie no
# further apart than this share of the photo's card diagonal. On the feliksh scan one card's readings
# span 1.0 diagonal (its two diagonals) and a card beside it 1.3 or more (one card width further).
CARD_EXTENT_SHARE = 1.15
# A rectangle's corners lie on one circle; a corner index within this share of its radius is on it.
# One card's own corners: within 0.023 on the feliksh scan (156 joins), 0.04 in a drawn four-index
# spread (one join of 141 at 0.29 refused); the copy of a queen dealt beside or below it in the drawn
# spreads (tests/test_deck_profile.py) lies 0.46 off.
CORNER_RADIUS_TOLERANCE = 0.15


@dataclass
class PhotoReading:
    readings: list[IndexReading]
    probabilities: list[np.ndarray]        # per reading: T x 55, one row per tried turn
    embeddings: list[np.ndarray]           # per reading: T x D
    turns: list[tuple[int, ...]]
    colours: list[np.ndarray]              # per reading: its ink colours
    backs: list[np.ndarray]                # histograms of sure face-down cards
    general: list[tuple] = field(default_factory=list)   # per reading: the general classifier's (code or None, confidence, turn)


def read_photo(detector, frame: np.ndarray) -> PhotoReading:
    from companion.vision.detector import BACK_CLASS, INDEX_CLASS, best_rotation

    raw = detector.detect_boxes(frame)
    index_boxes = raw.boxes[raw.classes == INDEX_CLASS]
    index_scores = raw.scores[raw.classes == INDEX_CLASS]
    embedded = detector.embed_boxes(frame, index_boxes)
    colours = detector.ink_colours(frame, index_boxes)
    classes = detector.manifest.classifier.classes
    readings, probabilities, embeddings, turns, general = [], [], [], [], []
    for box, score, (wanted, probs, embeds) in zip(index_boxes, index_scores, embedded):
        full = np.zeros((len(ROTATIONS), len(classes)), np.float32)
        for row, turn in enumerate(wanted):
            full[ROTATIONS.index(turn)] = probs[row]
        code, confidence, rotation = best_rotation(full, classes)
        general.append((code, confidence, rotation))
        if code is None:
            # NONE outvoted every face at every turn: still a reading, placed by the assignment on its faces
            faces = full.copy()
            faces[:, classes.index("NONE")] = -1
            turn_row, column = np.unravel_index(int(faces.argmax()), faces.shape)
            code, confidence, rotation = classes[column], float(faces[turn_row, column]), ROTATIONS[turn_row]
        readings.append(IndexReading(tuple(float(v) for v in box), float(score), code, confidence, rotation))
        probabilities.append(probs)
        embeddings.append(embeds)
        turns.append(wanted)
    backs = []
    back_mask = (raw.classes == BACK_CLASS) & (raw.scores >= LEARN_BACK_CONF)
    if back_mask.any():
        best = int(np.argmax(np.where(back_mask, raw.scores, -1)))
        hist = back_histogram(frame, raw.boxes[best])
        if hist is not None:
            backs.append(hist)
    return PhotoReading(readings, probabilities, embeddings, turns, colours=colours, backs=backs, general=general)


def facing_turn(reading_center: np.ndarray, toward: np.ndarray, turns: tuple[int, ...]) -> int:
    """Of the tried turns, the row whose 'toward the card centre' direction best points along ``toward``."""
    from companion.vision.grouping import CENTRE_BEARING_DEG

    upright = (np.cos(np.radians(CENTRE_BEARING_DEG)), np.sin(np.radians(CENTRE_BEARING_DEG)))
    best, best_row = -2.0, 0
    norm = float(np.linalg.norm(toward)) or 1.0
    for row, turn in enumerate(turns):
        direction = np.array(rotate_clockwise(upright, (360 - turn) % 360))
        cosine = float(direction @ toward) / norm
        if cosine > best:
            best, best_row = cosine, row
    return best_row


def on_one_rectangle(centres: list[np.ndarray]) -> bool:
    """Whether index centres can be a card's corners: a rectangle's corners are equidistant from its
    centre, the middle of its diagonal (the two centres furthest apart), within ``CORNER_RADIUS_TOLERANCE``.

    A neighbour's index in a row or a column lies further from the card's centre (in the drawn
    spreads 1.46 times the half-diagonal), though closer to a corner than the diagonal is long.
    """
    points = np.asarray(centres, np.float64)
    distance = np.linalg.norm(points[:, None] - points[None, :], axis=-1)
    i, j = np.unravel_index(int(distance.argmax()), distance.shape)
    centre, radius = (points[i] + points[j]) / 2, distance[i, j] / 2
    if radius <= 0:
        return False
    return bool(np.all(np.abs(np.linalg.norm(points - centre, axis=1) / radius - 1) <= CORNER_RADIUS_TOLERANCE))


def one_card_units(reading: PhotoReading, units: list[list[int]], apart: set[tuple[int, ...]] = frozenset()
                   ) -> list[list[list[int]]]:
    """The grouping's units (pairs and lone readings) joined where they are one card's indices.

    A deck printed with an index in all four corners shows each card as two units: its two diagonals,
    or its top and bottom pairs, or a pair and a lone corner. In a photo of each card once, units that
    read the same code best are one card when together they span no more than one card: their readings
    at most ``CARD_EXTENT_SHARE`` times the photo's own card diagonal apart (the median span of its
    pairs read half a turn apart, one card's opposite corners; ``CORNER_SPAN`` index sizes where it has
    none), and at most four of them. Two copies of a card lie a card's width or more apart, and their
    readings span more than one card, and a neighbour's index lies off the circle through one card's
    corners (:func:`on_one_rectangle`). Two lone readings are never joined here (the grouping's pairs
    already weigh them; a copy's upper index beside the first card's is as far from it as a
    four-index card's second upper index). One card's indices are read along one axis (turned 0 or 180°,
    or 90 or 270°); a sideways box over one of them (a 4000×3000 drawn spread's 9♠) is no fourth corner.
    Readings of a pair in ``apart`` (split as two cards) stay apart. The 600-dpi scan of a four-index deck was learned as 104 cards
    for 52, every card "counted twice", before this.
    """
    index = reading.readings
    diagonals = [float(np.linalg.norm(index[a].center - index[b].center)) / ((index[a].scale + index[b].scale) / 2)
                 for a, b in (u for u in units if len(u) == 2) if (index[a].rotation - index[b].rotation) % 360 == 180]
    diagonal = float(np.median(diagonals)) if diagonals else CORNER_SPAN
    codes = []
    for unit in units:
        cost = sum(-np.log(np.clip(reading.probabilities[k][:, :len(DECK_CODES)].max(0), 1e-6, 1.0)) for k in unit)
        codes.append(int(np.argmin(cost)))
    cards = [list(unit) for unit in units]
    members = [[unit] for unit in units]
    by_code: dict[int, list[int]] = {}
    for k, code in enumerate(codes):
        by_code.setdefault(code, []).append(k)
    for same_code in by_code.values():
        while True:
            best = None
            for a in same_code:
                for b in same_code:
                    if a < b and members[a] and members[b] and 3 <= len(cards[a]) + len(cards[b]) <= 4:
                        joined = cards[a] + cards[b]
                        if any(i in joined and j in joined for i, j in apart):
                            continue
                        scale = max(index[k].scale for k in joined)     # a box cut short by a neighbour is smaller
                        extent = max(float(np.linalg.norm(index[i].center - index[j].center)) for i in joined for j in joined)
                        if len({index[k].rotation % 180 for k in joined}) > 1:
                            continue        # one card's indices all lie along its long axis: upright or upside down together
                        if (extent <= CARD_EXTENT_SHARE * diagonal * scale and on_one_rectangle([index[k].center for k in joined])
                                and (best is None or extent < best[0])):
                            best = (extent, a, b)
            if best is None:
                break
            _, a, b = best
            cards[a] += cards[b]
            members[a] += members[b]
            members[b] = []
    return [found for found in members if found]


def second_boxes(readings: list[IndexReading], paired: set[int]) -> set[int]:
    """Lone readings whose box lies mostly (``SECOND_BOX_SHARE`` of its area) on another reading's:
    a second box on one corner (a sideways box over a "10"), not a card. Learned as a card, it would
    teach its sideways reading as a code's prototype (a drawn four-index spread placed such a box on
    the 10 of clubs surely as the 10 of spades' second corner)."""
    doubles = set()
    order = sorted(range(len(readings)), key=lambda k: (k not in paired, -readings[k].detection_confidence))
    kept: list[int] = []
    for k in order:
        x1, y1, x2, y2 = readings[k].box
        area = max((x2 - x1) * (y2 - y1), 1e-6)
        if k not in paired:
            for other in kept:
                a1, b1, a2, b2 = readings[other].box
                overlap = max(0.0, min(x2, a2) - max(x1, a1)) * max(0.0, min(y2, b2) - max(y1, b1))
                smaller = min(area, max((a2 - a1) * (b2 - b1), 1e-6))
                if overlap >= SECOND_BOX_SHARE * smaller:
                    doubles.add(k)
                    break
        if k not in doubles:
            kept.append(k)
    return doubles


def cards_of_photo(photo: int, reading: PhotoReading, split: set[tuple[int, ...]] = frozenset()
                    ) -> tuple[list[LearnedCard], list[np.ndarray], list[list[int]]]:
    """Group a photo's readings into cards; per card a 54-code cost vector and the turn row each reading is read at.

    A pair's turns are fixed by its geometry (each index faces the other), which tells a 6 from a 9
    where the classifier alone cannot; a lone reading may be read at any turn it allows. Units that
    are one card's indices (a four-index deck's two diagonals: :func:`one_card_units`) are one card.
    """
    # Learning keeps the rotation-checked pairs only: its assignment already weighs each reading's
    # probabilities, and a wrongly joined pair would take a card away from a whole-deck photo.
    same, different = choose_pairs(reading.readings, one_card_geometry=False)
    paired = {k for pair in same + different for k in pair}
    units = [list(p) for p in same + different if tuple(p) not in split]
    units += [[k] for pair in same + different if tuple(pair) in split for k in pair]
    doubles = second_boxes(reading.readings, paired)
    units += [[k] for k in range(len(reading.readings)) if k not in paired and k not in doubles]
    cards, costs, rows = [], [], []
    for card_units in one_card_units(reading, units, split):
        cost = np.zeros(len(DECK_CODES), np.float64)
        group, group_rows = [], []
        for unit in card_units:
            for k in unit:
                probs = reading.probabilities[k][:, :len(DECK_CODES)]
                if len(unit) == 2:
                    other = reading.readings[unit[1] if k == unit[0] else unit[0]]
                    row = facing_turn(reading.readings[k].center, other.center - reading.readings[k].center, reading.turns[k])
                    per_code = probs[row]
                    group_rows.append([row] * len(DECK_CODES))
                else:
                    per_code = probs.max(0)
                    group_rows.append(list(probs.argmax(0)))
                cost += -np.log(np.clip(per_code, 1e-6, 1.0))
                group.append(k)
        box = tuple(float(v) for v in (
            min(reading.readings[k].box[0] for k in group), min(reading.readings[k].box[1] for k in group),
            max(reading.readings[k].box[2] for k in group), max(reading.readings[k].box[3] for k in group)))
        order = np.argsort(cost)[:3]
        cards.append(LearnedCard(photo, box, group, guesses=[DECK_CODES[c] for c in order]))
        costs.append(cost / len(group))
        rows.append(group_rows)
    return cards, costs, rows


def read_photos(detector, photos: list[tuple[str, np.ndarray]]) -> list[PhotoReading]:
    """What the detector and classifier see in learning photos (the slow part of learning)."""
    if detector.conf > LEARN_INDEX_CONF or getattr(detector, "photo_thresholds", None) is not None:
        detector = copy.copy(detector)
        detector.conf = min(detector.conf, LEARN_INDEX_CONF)
        detector.photo_thresholds = None   # learning keeps its own thresholds (and the general back's)
    return [read_photo(detector, frame) for _, frame in photos]
