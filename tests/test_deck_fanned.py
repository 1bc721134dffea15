"""Teaching a deck from a photo of four fanned hands (issue 21: "fanned hands ... it asks only about the cards it truly cannot place").

Four hands of 13 of the drawn deck, fanned 9° between cards (12 × 9° = 108° a hand, each card's
top-left index 1.6 index widths from its neighbour's), turned to the four sides of the table, in one
2000×1500 JPEG, taught as ``companion deck learn`` teaches it (:mod:`vision_models.checks.fanned_teaching`).
Measured (EVALUATION.md, "Teaching from fanned hands"): on seeds 0, 1, 2 it asks 1, 3 and 1 cards
(2, 5 and 3 before a card's margin counted leaving a code of the deck with no card), and places none wrong.
"""
from __future__ import annotations

import pytest

from vision_models.checks.fanned_teaching import measure

# What the measurement shows is achievable at a fan a player makes (see the module docstring);
# wider fans (13-16° between cards) still ask up to 15 and place 1-2 wrong: not asserted, written down.
FAN_DEG = 9.0
SEEDS = (0, 1, 2)
MOST_ASKED_IN_ONE_PHOTO = 3
MOST_ASKED_IN_ALL = 5


@pytest.fixture(scope="module")
def outcomes():
    from companion.vision import Detector

    detector = Detector.load(tile="auto")       # as `companion deck learn` loads it
    return [measure(detector, FAN_DEG, seed) for seed in SEEDS]


def test_a_photo_of_fanned_hands_asks_about_few_cards(outcomes):
    asked = [out.asked for out in outcomes]
    assert all(n <= MOST_ASKED_IN_ONE_PHOTO for n in asked), asked
    assert sum(asked) <= MOST_ASKED_IN_ALL, asked
    # each photo found about one card per card (one index each), not twice as many
    assert all(48 <= out.cards <= 56 for out in outcomes), [out.cards for out in outcomes]


def test_every_card_placed_surely_from_fanned_hands_is_the_right_card(outcomes):
    assert [out.wrong for out in outcomes] == [0] * len(SEEDS)
    # and no more than one code of the 52 is left unplaced in any photo
    assert all(out.not_found <= 1 for out in outcomes), [out.not_found for out in outcomes]
