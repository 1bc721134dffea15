"""Teaching real decks (../shared/datasets/real beside the checkout; its absence fails, as the data tests do)
and the real-deck check's own parts: a four-index deck's corners are one card, in a real scan and drawn."""
from __future__ import annotations

import collections
from pathlib import Path

import pytest
from helpers.decks import CARD_H, CARD_W, four_index_card, spread

from companion.vision.decks.profile import STANDARD_CODES
from vision_models.checks import real_deck_check

REAL = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


@pytest.fixture(scope="module")
def detector():
    from companion.vision import Detector

    return Detector.load(tile="auto")


def _placed_once(result) -> None:
    """Every card of the deck placed surely (a lone corner may hold its code's second place beside it)."""
    surely = collections.Counter(card.code for card in result.cards if card.sure)
    assert all(surely[code] >= 1 for code in STANDARD_CODES), [c for c in STANDARD_CODES if not surely[c]]
    assert sum(surely.values()) <= 56


def test_the_scan_grid_names_each_card_by_its_row_and_column():
    assert real_deck_check.grid_code((10, 10, 50, 60), (4000, 880)) == "AS"
    assert real_deck_check.grid_code((830, 3950, 870, 3990), (4000, 880)) == "KH"
    assert real_deck_check.grid_code((450, 320, 500, 380), (4000, 880)) == "2D"


def test_a_drawn_four_index_deck_is_learned_one_card_per_card(detector):
    from companion.vision.decks.photos import learn_from_photos

    image, truth = spread(list(STANDARD_CODES), render=four_index_card)
    result = learn_from_photos(detector, [("four.png", image)], "four")
    assert result.complete and not result.asked(), [str(p) for p in result.problems]
    _placed_once(result)
    for card in result.cards:
        if card.sure:
            x, y = (card.box[0] + card.box[2]) / 2, (card.box[1] + card.box[3]) / 2
            under = [code for code, left, top in truth if left <= x <= left + CARD_W and top <= y <= top + CARD_H]
            assert under == [card.code]
    # most cards show three or four of their corners, each card learned as one card
    assert sum(len(card.readings) >= 3 for card in result.cards if card.sure) >= 45


@pytest.mark.parametrize("render", ["two-index", "four-index"])
def test_a_whole_deck_photo_of_4000_by_3000_is_learned_with_nothing_asked_and_nothing_wrong(detector, render):
    from companion.synthetic.deck import render_card
    from companion.vision.decks.photos import learn_from_photos

    width, height = 300, 420       # indices ~80 px tall: a phone's 12 MP photo of a deck in rows
    image, truth = spread(list(STANDARD_CODES), render=render_card if render == "two-index" else four_index_card,
                          card=(width, height), columns=11, gap=30, canvas=(4000, 3000))
    result = learn_from_photos(detector, [("big.jpg", image)], "big")
    assert result.complete and not result.asked(), [str(p) for p in result.problems]
    _placed_once(result)
    for card in result.cards:
        if card.sure:       # nothing learned under a wrong code (a pip taken for a joker would be)
            x, y = (card.box[0] + card.box[2]) / 2, (card.box[1] + card.box[3]) / 2
            assert [code for code, left, top in truth if left <= x <= left + width and top <= y <= top + height] == [card.code]


def test_the_real_four_index_scan_is_learned_with_nothing_asked(detector):
    from companion.vision.decks.teaching import teach

    scan = REAL / "real" / "decks" / "feliksh" / "whole-deck-scan.jpg"
    result = teach(detector, [str(scan)], "feliksh")
    assert result.complete and not result.asked(), [str(p) for p in result.problems]
    _placed_once(result)
    for card in result.cards:
        if card.sure:
            assert card.code == real_deck_check.grid_code(card.box, (4000, 882))


def _asking_result(photo_path):
    """A learning result that asks about two cards of a photo (one unplaced), as learn_from_photos makes them."""
    from companion.messages import Message
    from companion.vision.decks.result import LearnedCard, LearnResult

    cards = [LearnedCard(0, (20, 20, 120, 160), [0, 1], "AS", True, 5.0, ["AS"]),
             LearnedCard(0, (134, 20, 234, 160), [2, 3], "2S", False, 0.3, ["2S", "2C"]),
             LearnedCard(0, (248, 20, 348, 160), [4], None, False, 0.0, ["3S"])]
    return LearnResult("asks", [str(photo_path)], cards, [Message("not sure of %(count)s cards: %(cards)s%(more)s (name them with "
                                                                   "--set NUMBER=CODE, or add another photo)", count=2, cards="", more="")],
                       None)


def test_the_cards_it_asks_about_are_written_as_pictures_cut_from_their_photo(tmp_path):
    import cv2

    from companion.commands.deck import _write_crops

    image, _truth = spread(["AS", "2S", "3S"])
    photo = tmp_path / "deal.png"
    cv2.imwrite(str(photo), image)
    result = _asking_result(photo)
    assert [k for k, _ in result.asked()] == [1, 2]
    written = _write_crops(result, str(tmp_path / "asked"))
    assert sorted(written) == [1, 2]
    for number, path in written.items():
        crop = cv2.imread(str(path))
        x1, y1, x2, y2 = result.cards[number].box
        # the card's box and a margin round it, never more than the photo
        assert crop.shape[0] > y2 - y1 and crop.shape[1] > x2 - x1
        assert crop.shape[0] <= image.shape[0] and crop.shape[1] <= image.shape[1]
    sureness = result.sureness
    assert str(sureness).startswith("sure of 1 of 2 cards")


def test_a_crops_folder_that_cannot_be_made_is_a_clear_error(tmp_path):
    import cv2

    from companion.commands import CommandError
    from companion.commands.deck import _write_crops

    image, _truth = spread(["AS", "2S", "3S"])
    photo = tmp_path / "deal.png"
    cv2.imwrite(str(photo), image)
    blocker = tmp_path / "taken"
    blocker.write_text("a file where the folder would go")
    with pytest.raises(CommandError, match="--crops .*taken: cannot make that folder"):
        _write_crops(_asking_result(photo), str(blocker))
    assert blocker.read_text() == "a file where the folder would go"


def test_a_profile_keeps_its_check_on_its_own_photos_and_reads_with_the_surer_answer():
    import numpy as np

    from companion.vision.decks.profile import ABSTAIN_CONFIDENCE, DeckProfile, arbitrate, build_profile, self_check

    rng = np.random.default_rng(0)
    centres = {code: rng.normal(size=16) for code in ("AS", "2S", "3S")}
    codes = [code for code in centres for _ in range(2)]
    embeddings = [centres[code] + rng.normal(scale=0.05, size=16) for code in codes]
    profile = build_profile("home", codes, embeddings, [], {})
    # the general classifier right on all but the two 3S readings, which it takes for 8S
    general = [(code if code != "3S" else "8S", 0.6, 0) for code in codes]
    check = self_check(profile, general)
    assert check == {"readings": 6, "learned": 1.0, "general": round(4 / 6, 4), "arbitrated": 1.0}
    profile.info["self_check"] = check
    assert profile.trusted
    # where the deck recognises the index, its answer; where it does not, the general one if sure enough
    assert arbitrate(("8S", 0.6, 0), ("3S", 0.9, 180)) == ("3S", 0.9, 180)
    assert arbitrate(("8S", 1.0, 0), ("3S", 0.7, 180)) == ("3S", 0.7, 180)
    assert arbitrate(("8S", (1 + ABSTAIN_CONFIDENCE) / 2, 0), (None, 0.0, 0))[0] == "8S"
    assert arbitrate(("8S", ABSTAIN_CONFIDENCE - 0.1, 0), (None, 0.0, 0))[0] is None
    # a profile whose learned answers read worse than the general ones on its own photos reads with the general ones
    profile.info["self_check"] = {"readings": 6, "learned": 0.5, "general": 1.0, "arbitrated": 0.8}
    assert DeckProfile("x", ("AS",), np.ones((1, 4)), info={"self_check": {"general": 1.0, "arbitrated": 0.96}}).trusted   # one reading in 30
    assert not profile.trusted
    assert profile.arbitrate(("8S", 0.95, 0), ("3S", 0.99, 0)) == ("8S", 0.95, 0)
    assert profile.arbitrate(("8S", 0.6, 0), ("3S", 0.99, 0))[0] is None


def test_teaching_refuses_bad_input_before_any_model_loads(tmp_path):
    import cv2
    from helpers.decks import corrupt_images

    from companion.vision.decks.profile import DeckError
    from companion.vision.decks.teaching import teaching_frames

    with pytest.raises(DeckError, match="no photos given"):
        teaching_frames([])
    folder = tmp_path / "cards"
    folder.mkdir()
    cv2.imwrite(str(folder / "as.png"), spread(["AS"])[0])
    photo = tmp_path / "deal.png"
    cv2.imwrite(str(photo), spread(["AS", "2S"])[0])
    with pytest.raises(DeckError, match="either one folder of card images or photos"):
        teaching_frames([str(folder), str(photo)])
    assert teaching_frames([str(folder)]) == (str(folder), [])      # a partial folder is taught
    assert [label for label, _ in teaching_frames([str(photo)])[1]] == [str(photo)]
    for name, (data, message) in corrupt_images().items():
        bad = tmp_path / name
        bad.write_bytes(data)
        with pytest.raises(ValueError, match=message):
            teaching_frames([str(photo), str(bad)])
    with pytest.raises(ValueError, match="no such image file"):
        teaching_frames([str(tmp_path / "nowhere.jpg")])
