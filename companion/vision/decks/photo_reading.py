"""What the detector and classifier see in learning photos, and those readings grouped into cards.

Each corner index the detector finds is cut exactly as the classifier sees it, and the classifier's
pooled features (the numbers before its last layer, exposed by :mod:`companion.vision.models`)
describe it; the grouping's pairs fix each reading's turn.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from companion.vision.decks.profile import DECK_CODES, back_histogram
from companion.vision.decks.result import LearnedCard
from companion.vision.grouping import ROTATIONS, IndexReading, choose_pairs, rotate_clockwise

# The detector's index threshold while learning: the assignment leaves stray boxes unplaced, and a
# missed index is a card the player must name. In a whole-deck spread of the held-out 'plastic' deck
# the shipped 0.6 found none of its court cards' indices and 0.3 all of them (vision_models.deck_check).
LEARN_INDEX_CONF = 0.3
# A face-down card in a learning photo is taken as the deck's back only when this sure.
LEARN_BACK_CONF = 0.6


@dataclass
class PhotoReading:
    readings: list[IndexReading]
    probabilities: list[np.ndarray]        # per reading: T x 55, one row per tried turn
    embeddings: list[np.ndarray]           # per reading: T x D
    turns: list[tuple[int, ...]]
    colours: list[np.ndarray]              # per reading: its ink colours
    backs: list[np.ndarray]                # histograms of sure face-down cards


def read_photo(detector, frame: np.ndarray) -> PhotoReading:
    from companion.vision.detector import BACK_CLASS, INDEX_CLASS, best_rotation

    raw = detector.detect_boxes(frame)
    index_boxes = raw.boxes[raw.classes == INDEX_CLASS]
    index_scores = raw.scores[raw.classes == INDEX_CLASS]
    embedded = detector.embed_boxes(frame, index_boxes)
    colours = detector.ink_colours(frame, index_boxes)
    classes = detector.manifest.classifier.classes
    readings, probabilities, embeddings, turns = [], [], [], []
    for box, score, (wanted, probs, embeds) in zip(index_boxes, index_scores, embedded):
        full = np.zeros((len(ROTATIONS), len(classes)), np.float32)
        for row, turn in enumerate(wanted):
            full[ROTATIONS.index(turn)] = probs[row]
        code, confidence, rotation = best_rotation(full, classes)
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
    return PhotoReading(readings, probabilities, embeddings, turns, colours=colours, backs=backs)


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


def cards_of_photo(photo: int, reading: PhotoReading, split: set[tuple[int, ...]] = frozenset()
                    ) -> tuple[list[LearnedCard], list[np.ndarray], list[list[int]]]:
    """Group a photo's readings into cards; per card a 54-code cost vector and the turn row each reading is read at.

    A pair's turns are fixed by its geometry (each index faces the other), which tells a 6 from a 9
    where the classifier alone cannot; a lone reading may be read at any turn it allows.
    """
    # Learning keeps the rotation-checked pairs only: its assignment already weighs each reading's
    # probabilities, and a wrongly joined pair would take a card away from a whole-deck photo.
    same, different = choose_pairs(reading.readings, one_card_geometry=False)
    paired = {k for pair in same + different for k in pair}
    groups = [list(p) for p in same + different if tuple(p) not in split]
    groups += [[k] for pair in same + different if tuple(pair) in split for k in pair]
    groups += [[k] for k in range(len(reading.readings)) if k not in paired]
    cards, costs, rows = [], [], []
    for group in groups:
        cost = np.zeros(len(DECK_CODES), np.float64)
        group_rows = []
        for k in group:
            probs = reading.probabilities[k][:, :len(DECK_CODES)]
            if len(group) == 2:
                other = reading.readings[group[1] if k == group[0] else group[0]]
                row = facing_turn(reading.readings[k].center, other.center - reading.readings[k].center, reading.turns[k])
                per_code = probs[row]
                group_rows.append([row] * len(DECK_CODES))
            else:
                per_code = probs.max(0)
                group_rows.append(list(probs.argmax(0)))
            cost += -np.log(np.clip(per_code, 1e-6, 1.0))
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
    if detector.conf > LEARN_INDEX_CONF:
        detector = copy.copy(detector)
        detector.conf = LEARN_INDEX_CONF
    return [read_photo(detector, frame) for _, frame in photos]
