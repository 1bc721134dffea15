"""The "two copies of a card" check (vision_models.checks.deck_copies) counts what deck learning says.

The drawn deck dealt in overlapping rows, as the check deals the held-out decks: a normal spread is not
flagged, and one with a card replaced by a second copy of another names that copy (the other kinds are
read the same way; each photo costs a detector reading of a 1600x1200 spread, so two are read here)."""
import cv2
import numpy as np
import pytest

from companion.messages import Message
from companion.synthetic.deck import ArtDeck, card_mask, render_card
from companion.vision.decks.profile import DECK_CODES

pytestmark = pytest.mark.slow


def _drawn_deck(folder, size=(250, 350)):
    folder.mkdir(parents=True, exist_ok=True)
    alpha = card_mask(*size)
    for code in list(DECK_CODES) + ["BACK"]:
        name = "back" if code == "BACK" else code.lower()
        cv2.imwrite(str(folder / f"{name}.png"), np.dstack([render_card(code, *size, style_seed=1), alpha]))
    return ArtDeck(folder)


def test_the_copy_problem_is_told_by_its_message_not_its_wording():
    from vision_models.checks.deck_copies import copies_named

    problems = [Message("%(photo)s: two copies of %(code)s? (%(where)s) — photograph one deck, each card once "
                        "(or name the card that is not %(code)s with --set NUMBER=CODE)", photo="a.jpg", code="QS",
                        where=Message("card #%(number)s is two cards side by side", number=4)),
                Message("not found: %(not_found)s (photograph the whole deck, each card's corner index visible; or, with "
                        "several photos, take the cards it could not read in another one)", not_found="7H")]
    assert copies_named(problems) == {"QS"}
    assert copies_named(problems[1:]) == set()


def test_a_normal_spread_is_not_flagged_and_a_card_replaced_by_a_copy_is_named(tmp_path):
    from companion.vision import Detector
    from vision_models.checks import deck_copies

    detector = Detector.load(tile="auto")
    photos = deck_copies.spread_photos(detector, _drawn_deck(tmp_path / "cards"), "drawn", [1], kinds=("normal", "replaced"))
    assert [(p[2], p[3]) for p in photos] == [("normal", None), ("replaced", photos[1][3])] and photos[1][3]
    said = []
    counts = deck_copies.count(detector, photos, report=said.append)
    assert counts == {"flagged": 0, "blocked": 0, "wrong": 0, "saved": 0, "replaced": 1, "beside": 0, "below": 0, "extra": 0}, said
    assert said == []
