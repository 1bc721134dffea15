"""Teaching a deck from one photo of four fanned hands of 13 (issue 21): how many cards it asks, how many it places wrong.

    python -m vision_models.checks.fanned_teaching                       # 9, 11, 13, 16 degrees between cards, one photo each
    python -m vision_models.checks.fanned_teaching --angles 13 16 --seeds 0 1 --four-index

A bridge deal photographed from above: the drawn deck (``companion.synthetic.deck.DrawnDeck``, design
1, as the deck-learning tests draw it), shuffled and dealt in four hands of 13, each hand fanned
about a pivot below the cards (each card turned ``angle`` degrees from the one before and laid over
it, as a hand held in the left hand and fanned to the right), the four hands turned to the four
sides of the table, on a 2000×1500 photo saved as JPEG. In a fan only each card's top-left index
shows (the last card's two); the tighter the fan, the closer a card's index to its neighbour's
(``gap``: the distance between neighbours' top-left indices, in index widths).

The photo is taught as ``companion deck learn`` teaches it (:func:`companion.vision.decks.teaching.teach`).
"asked": the cards learning asks the player about (``LearnResult.asked``); "not found": codes no
card was placed on; "wrong": cards placed surely whose readings lie on no index in view of the
card of that code (grown by a quarter of an index).
"""
from __future__ import annotations

import argparse
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.synthetic.deck import DrawnDeck
from vision_models.data.deck_scenes import CARD_ASPECT, Table

PHOTO = (2000, 1500)
# 63 mm cards on a table seen 70 cm wide: about 180 px across in a 2000-px photo.
CARD_WIDTH = 180.0
# The pivot of a held fan lies below the card's centre by this share of its height (the thumb's
# grip, a little below the cards' lower edge; tests/test_vision_four_index.py fans 88 mm cards about 60 mm).
PIVOT_SHARE = 0.68
HAND = 13
ANGLES = (9.0, 11.0, 13.0, 16.0)


@dataclass
class Outcome:
    angle: float
    seed: int
    gap: float             # neighbours' top-left indices apart, in index widths
    cards: int             # cards learning found
    asked: int
    not_found: int
    wrong: int
    problems: list[str]


def fanned_hands(deck, angle: float, seed: int) -> tuple[np.ndarray, list[dict], float]:
    """The photo, per card its code and the boxes (4×2 corners) of its corner indices the cards over it leave in
    view, and the index gap in index widths."""
    rng = np.random.default_rng(seed)
    table = Table(*PHOTO, rng)
    codes = [c for c in deck_codes()]
    rng.shuffle(codes)
    width, height = CARD_WIDTH, CARD_WIDTH * CARD_ASPECT
    w, h = int(round(width)), int(round(height))
    pivots = [(520, 430), (1480, 430), (520, 1130), (1480, 1130)]
    # hands face the four sides of the table (a bridge deal seen from above): the fans open upwards,
    # to the right, to the left and downwards, each turned a little
    turns = [180.0, 90.0, 270.0, 0.0]
    truth = []
    radius = PIVOT_SHARE * height
    for hand, (pivot, turn) in enumerate(zip(pivots, turns)):
        turn += rng.uniform(-8, 8)
        pivot = np.asarray(pivot, np.float64) + rng.uniform(-15, 15, 2)
        # the fan's middle card's centre lies ``radius`` from the pivot, away from the player
        for k, code in enumerate(codes[hand * HAND:(hand + 1) * HAND]):
            card_angle = turn + (k - (HAND - 1) / 2) * angle
            a = math.radians(card_angle)
            centre = pivot + radius * np.array([math.sin(a), -math.cos(a)])
            card_map = table.paste(deck, code, centre, width, card_angle)
            boxes = []
            for x1, y1, x2, y2 in deck.index_boxes(code, w, h):
                corners = card_map @ np.array([[x1, y1, 1], [x2, y1, 1], [x2, y2, 1], [x1, y2, 1]], np.float64).T
                boxes.append(corners[:2].T)
            for earlier in truth:          # this card hides the indices of those under it
                earlier["indices"] = [quad for quad in earlier["indices"] if not _inside(quad.mean(0), card_map, w, h)]
            truth.append({"code": code, "indices": boxes})
    x1, y1, x2, y2 = deck.index_boxes(codes[0], w, h)[0]
    index_width = x2 - x1
    # a card's top-left index centre and the next card's, turned ``angle`` about the pivot
    local = np.array([(x1 + x2) / 2 - w / 2, (y1 + y2) / 2 - h / 2 - radius])
    gap = 2 * float(np.linalg.norm(local)) * math.sin(math.radians(angle) / 2) / index_width
    image = table.finish(blur=rng.uniform(0.4, 0.9), noise=rng.uniform(2, 4), gain=rng.uniform(0.9, 1.1))
    return image, truth, gap


def _inside(point: np.ndarray, card_map: np.ndarray, w: int, h: int) -> bool:
    x, y, _ = np.linalg.inv(card_map) @ np.array([point[0], point[1], 1.0])
    return bool(0 <= x <= w and 0 <= y <= h)


def deck_codes() -> list[str]:
    from companion.vision.decks.profile import STANDARD_CODES

    return list(STANDARD_CODES)


def on_its_card(result, readings, truth: list[dict], card) -> bool:
    """Whether a placed card's readings lie on an index of the card of its code (grown by a quarter of an index)."""
    (true,) = [t for t in truth if t["code"] == card.code] or [None]
    if true is None:
        return False
    for r in card.readings:
        centre = readings[card.photo].readings[r].center
        for quad in true["indices"]:
            lo, hi = quad.min(0), quad.max(0)
            grow = (hi - lo).max() / 4
            if np.all(centre >= lo - grow) and np.all(centre <= hi + grow):
                return True
    return False


def measure(detector, angle: float, seed: int = 0, four_index: bool = False) -> Outcome:
    """Teach one fanned-hands photo as ``companion deck learn`` does and score what it asked and placed."""
    from companion.vision.decks.photo_reading import read_photos
    from companion.vision.decks.photos import learn_from_photos
    from companion.vision.decks.teaching import teaching_frames

    deck = DrawnDeck(1, four_index=four_index)
    image, truth, gap = fanned_hands(deck, angle, seed)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"hands-{angle:g}.jpg"
        cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        _, frames = teaching_frames([str(path)])
    # teach() reads and learns in one; reading apart keeps the readings to score the cards' places
    readings = read_photos(detector, frames)
    result = learn_from_photos(detector, frames, "hands", readings=readings)
    placed = {c.code for c in result.cards if c.code}
    wrong = sum(1 for c in result.cards if c.code and c.sure and not on_its_card(result, readings, truth, c))
    return Outcome(angle, seed, gap, len(result.cards), len(result.asked()), len([c for c in deck_codes() if c not in placed]),
                   wrong, [str(p) for p in result.problems])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--angles", type=float, nargs="+", default=list(ANGLES), help="degrees between neighbouring cards")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--four-index", action="store_true", help="the drawn deck with an index in all four corners")
    parser.add_argument("--problems", action="store_true", help="print what learning said")
    args = parser.parse_args(argv)
    from companion.vision import Detector

    detector = Detector.load(tile="auto")      # as `companion deck learn` loads it
    print("| fan angle | seed | index gap (index widths) | cards found | cards asked | codes not placed | placed wrong |")
    print("|---|---|---|---|---|---|---|")
    for angle in args.angles:
        for seed in args.seeds:
            out = measure(detector, angle, seed, args.four_index)
            print(f"| {out.angle:g}° | {out.seed} | {out.gap:.1f} | {out.cards} | {out.asked} | {out.not_found} | {out.wrong} |", flush=True)
            if args.problems:
                for p in out.problems:
                    print("    " + p[:400])


if __name__ == "__main__":
    main()
