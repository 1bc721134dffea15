"""Two copies of one card in a photo of "each card once": named, "two copies of QS?", and kept from saving."""
from __future__ import annotations

import collections

import numpy as np

from companion.vision.decks.assignment import UNPLACED_COST
from companion.vision.decks.photo_reading import PhotoReading, cards_of_photo
from companion.vision.decks.profile import DECK_CODES, JOKERS, STANDARD_CODES
from companion.vision.decks.result import LearnedCard
from companion.vision.grouping import DISAGREEING_BEARING_DEG, MIN_SPAN, OPPOSITE_CORNER_SIZE_RATIO, IndexReading

# Two copies of one card in a photo of "each card once" (``two_copies``). An index reads a code
# strongly when the classifier, at the turn it reads best, gives that code at least
# STRONG_READING_PROB and beats its second guess by CLEAR_READING_MARGIN nats. Strong readings of one
# code are one card when the grouping joined them as a card's two corners (``corners_of_one_card``)
# or they lie closer than ONE_CARD_SPAN index sizes (a second box on one corner); otherwise two
# cards. The copy must be of one size with the first (COPY_SIZE_RATIO, as grouping's one-card
# corners: a box in a court card's art is smaller) and the assignment must have had no likely place
# for it: left out or pushed UNLIKELY_PLACE_COST nats below its strong code (no likelier than leaving
# it out: the drawn deck's 8C, read 8S at 0.97 at both corners, rightly fills the 8C hole 3.25 nats
# below), or given the code's second-corner place although it is a whole card (both corners read),
# or while a code of the deck went unplaced (the card the copy replaced), or while neither card is
# sure. Measured with ``python -m vision_models.checks.deck_copies lattmann tigullio neoclassical_4_color
# plastic [--lossless]`` (EVALUATION.md, held-out decks, 12 spreads of each kind): normal photos
# flagged 0 (as JPEG) and 2 (as drawn), none saveable without the rule either; a card replaced by a
# copy named in 12 / 11 (a seeded card), 12 / 11 (its left neighbour's copy), 10 / 11 (the copy of
# the card above); a copy added to the deck 6 / 6. ONE_CARD_SPAN 4 named 8 and 0 of the neighbours'
# copies (one above the other they are 3.2 index sizes apart), the grouping's 6.5 none;
# UNLIKELY_PLACE_COST 3-6 the same.
STRONG_READING_PROB = 0.9
CLEAR_READING_MARGIN = 3.0
ONE_CARD_SPAN = MIN_SPAN
UNLIKELY_PLACE_COST = UNPLACED_COST
COPY_SIZE_RATIO = OPPOSITE_CORNER_SIZE_RATIO


def strong_code(reading: PhotoReading, k: int) -> int | None:
    """The code column index ``k`` reads strongly at the turn it reads best (see STRONG_READING_PROB), else None."""
    turns = reading.turns[k]
    rotation = reading.readings[k].rotation
    if rotation not in turns:
        return None
    probs = reading.probabilities[k][turns.index(rotation)]
    faces = probs[:len(DECK_CODES)]
    column = int(faces.argmax())
    others = np.delete(probs, column)
    second = float(others.max()) if len(others) else 0.0
    if faces[column] < STRONG_READING_PROB or np.log(faces[column] / max(second, 1e-6)) < CLEAR_READING_MARGIN:
        return None
    return column


def corners_of_one_card(a: IndexReading, b: IndexReading) -> bool:
    """Whether two readings the grouping joined can be one card's two corners, not two cards lying alike.

    Read the same way up, one of them is misread by half a turn; one card's other corner then lies
    along the card's diagonal from either (within ``DISAGREEING_BEARING_DEG``), while a copy dealt
    beside or below lies across it (53° or 37° off in a row or a column).
    """
    if a.rotation != b.rotation:
        return True
    between = b.center - a.center
    diagonal = a.toward_center
    cosine = abs(float(between @ diagonal)) / max(float(np.linalg.norm(between)) * float(np.linalg.norm(diagonal)), 1e-9)
    return bool(np.degrees(np.arccos(min(1.0, cosine))) <= DISAGREEING_BEARING_DEG)


def cards_by_code(reading: PhotoReading, groups: list[list[int]]) -> dict[int, list[list[int]]]:
    """Per code column, the physical cards that read it strongly, each as its readings' indices.

    ``groups`` are the grouping's cards (pairs and lone readings, before any split): readings it
    joined are one card; other strong readings of one code are one card when within
    ``ONE_CARD_SPAN`` index sizes of each other (one card's two corners the grouping did not pair,
    or a second box on one corner).
    """
    strong = {k: c for k in range(len(reading.readings)) if (c := strong_code(reading, k)) is not None}
    parent = {k: k for k in strong}

    def root(k: int) -> int:
        while parent[k] != k:
            k = parent[k]
        return k

    for group in groups:
        members = [k for k in group if k in strong]
        for k in members[1:]:
            # more than two readings: units the learner joined as one card's corners (a four-index deck)
            if strong[k] == strong[members[0]] and (len(group) > 2 or corners_of_one_card(reading.readings[members[0]], reading.readings[k])):
                parent[root(k)] = root(members[0])
    for a in strong:
        for b in strong:
            if a < b and strong[a] == strong[b]:
                ra, rb = reading.readings[a], reading.readings[b]
                if float(np.linalg.norm(ra.center - rb.center)) <= ONE_CARD_SPAN * (ra.scale + rb.scale) / 2:
                    parent[root(b)] = root(a)
    cards: dict[int, dict[int, list[int]]] = {}
    for k, column in strong.items():
        cards.setdefault(column, {}).setdefault(root(k), []).append(k)
    return {column: sorted(found.values()) for column, found in cards.items()}


def index_size(read: list[PhotoReading], cards: list[LearnedCard], numbers: list[int]) -> float:
    return float(np.median([read[cards[k].photo].readings[r].scale for k in numbers for r in cards[k].readings]))


def index_shape(read: list[PhotoReading], cards: list[LearnedCard], numbers: list[int]) -> float:
    """The boxes' width over their height (median): an index's shape and which way it lies (under 1: upright)."""
    def shape(box) -> float:
        return (box[2] - box[0]) / max(box[3] - box[1], 1e-6)

    return float(np.median([shape(read[cards[k].photo].readings[r].box) for k in numbers for r in cards[k].readings]))


def two_copies(read: list[PhotoReading], cards: list[LearnedCard], costs: list[np.ndarray], group: list[int],
                corrections: dict[int, str]) -> list[tuple[str, list[int]]]:
    """Codes that two physical cards of ``group`` read strongly where one deck holds one: (code, card numbers).

    The classifier is sometimes sure and wrong on a deck it never saw, so a strong reading alone
    proves nothing: a card of a code read strongly elsewhere that the assignment placed on a likely
    other code is a misread. It is a second copy when, of one size and shape with the first (a second
    copy lies on the table like the first: a box in a court card's art is smaller, and sideways boxes
    over pips lie the other way: a drawn 4000×3000 spread's 9♥ pips read as 10♦ in boxes 1.6 times
    wider than tall, its indices 0.49), it was left
    unplaced or pushed onto an unlikely code (``UNLIKELY_PLACE_COST``), or it took the code's
    second-corner place far from the first card while some code of the deck went unplaced (the
    card the copy replaced). Jokers are left out: many decks print two alike. A card the player
    named settles its code.
    """
    number = {(cards[k].photo, r): k for k in group for r in cards[k].readings}
    claims: dict[int, list[list[int]]] = {}
    whole: set[tuple[int, ...]] = set()     # two corners read strongly: a whole card, no other card's second corner
    for photo in sorted({cards[k].photo for k in group}):
        unsplit, _, _ = cards_of_photo(photo, read[photo])
        # the learner's cards of more than two readings are one card's corners too (a four-index deck)
        joined = [cards[k].readings for k in group if cards[k].photo == photo and len(cards[k].readings) > 2]
        for column, found in cards_by_code(read[photo], [c.readings for c in unsplit] + joined).items():
            for readings in found:
                numbers = sorted({number[(photo, r)] for r in readings if (photo, r) in number})
                if numbers:
                    claims.setdefault(column, []).append(numbers)
                    if len(readings) >= 2:
                        whole.add(tuple(numbers))
    holders = collections.Counter(cards[k].code for k in group)
    something_missing = any(c not in holders for c in STANDARD_CODES)
    out = []
    for column, found in sorted(claims.items()):
        code = DECK_CODES[column]
        if code in JOKERS or len(found) < 2 or any(k in corrections for numbers in found for k in numbers):
            continue
        holding = [numbers for numbers in found if any(cards[k].code == code for k in numbers)]
        if not holding:
            continue
        size = index_size(read, cards, holding[0])
        sizes = {tuple(numbers): index_size(read, cards, numbers) for numbers in found}
        shape = index_shape(read, cards, holding[0])
        shapes = {tuple(numbers): index_shape(read, cards, numbers) for numbers in found}
        alike = {key for key, other in sizes.items() if max(other, size) <= COPY_SIZE_RATIO * min(other, size)
                 and max(shapes[key], shape) <= COPY_SIZE_RATIO * max(min(shapes[key], shape), 1e-6)}
        pushed = [numbers for numbers in found if numbers not in holding and tuple(numbers) in alike and all(
            cards[k].code is None
            or costs[k][DECK_CODES.index(cards[k].code)] - costs[k][column] >= UNLIKELY_PLACE_COST
            or (tuple(numbers) in whole and holders[cards[k].code] > 1) for k in numbers)]
        twice = [numbers for numbers in holding[1:]
                 if tuple(numbers) in alike and (something_missing or tuple(numbers) in whole or not any(
                     cards[k].sure for k in numbers + holding[0]))]
        if pushed or twice:
            out.append((code, sorted({numbers[0] for numbers in holding[:1] + twice + pushed})))
    return out

