"""Reading with a learned deck: ink colours tell apart cards printed alike but for the colour, and the learned back judges face-down boxes."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision.decks.profile import back_histogram, build_profile

from companion.vision.decks.store import DeckStore
from companion.vision.decode import RawBoxes
from companion.vision.detector import BACK_CLASS, INDEX_CLASS, Detector
from companion.vision.ink import INK_HUE_BINS, ink_colours


def _index(ink_bgr) -> np.ndarray:
    """A 64 px crop of white paper with an 'index' stroke in the given colour."""
    crop = np.full((64, 64, 3), 235, np.uint8)
    crop[12:50, 20:30] = ink_bgr
    crop[40:50, 20:44] = ink_bgr
    return crop


def test_red_ink_and_black_ink_fall_in_different_bins_and_paper_alone_is_no_ink():
    red, black = ink_colours(_index((40, 40, 200))), ink_colours(_index((30, 30, 30)))
    assert red.sum() == pytest.approx(1) and black.sum() == pytest.approx(1)
    assert red[:INK_HUE_BINS].sum() > 0.9 and black[INK_HUE_BINS] > 0.9
    assert np.minimum(red, black).sum() < 0.1
    assert not ink_colours(np.full((64, 64, 3), 235, np.uint8)).any()


def _jokers(with_colours: bool):
    """A deck whose two jokers' prototypes have the same shape features and differ only in ink colour."""
    rng = np.random.default_rng(3)
    shape = rng.normal(size=32)
    codes = ["BJ", "SJ", "AS"]
    embeddings = [shape, shape + rng.normal(scale=0.01, size=32), rng.normal(size=32)]
    colours = [ink_colours(_index((40, 40, 200))), ink_colours(_index((30, 30, 30))), ink_colours(_index((30, 30, 30)))]
    return build_profile("jokers", codes, embeddings, [], {}, colours if with_colours else None), shape


def test_a_learned_decks_ink_colours_tell_its_two_jokers_apart():
    profile, shape = _jokers(with_colours=True)
    reading = np.stack([shape + 0.005])
    assert profile.read(reading, ink_colours(_index((40, 40, 200))))[0] == "BJ"
    assert profile.read(reading, ink_colours(_index((30, 30, 30))))[0] == "SJ"
    # a blank crop (no ink) says nothing either way: the shapes alone decide, as without colours
    without, _ = _jokers(with_colours=False)
    blank = ink_colours(np.full((64, 64, 3), 235, np.uint8))
    assert profile.read(reading, blank)[0] == without.read(reading)[0]


def test_ink_colours_are_saved_with_the_profile_and_a_profile_without_them_still_loads(tmp_path):
    store = DeckStore(tmp_path)
    profile, _ = _jokers(with_colours=True)
    store.save(profile)
    loaded = store.load("jokers")
    assert loaded.colours is not None and np.allclose(loaded.colours, profile.colours)
    old, _ = _jokers(with_colours=False)
    old.name = "old"
    store.save(old)
    assert store.load("old").colours is None


def test_colours_of_the_wrong_shape_are_refused():
    profile, _ = _jokers(with_colours=True)
    with pytest.raises(ValueError, match="ink colours"):
        build_profile("bad", list(profile.codes), list(profile.prototypes), [], {}, [np.zeros((3, 5))] * 3)


def test_with_a_learned_back_a_strip_of_that_back_is_a_face_down_card_and_without_one_it_is_not(monkeypatch):
    """A face-down card under another shows a strip of its back: the learned back's colours, not the
    strip's shape, decide; without a learned back the card-shape check drops strips (photos, no mat)."""
    frame = np.full((400, 600, 3), (60, 110, 50), np.uint8)
    frame[100:130, 100:300] = (160, 40, 30)          # a blue strip: 200 x 30, far longer than a card
    strip = (100.0, 100.0, 300.0, 130.0)
    index = (400.0, 100.0, 412.0, 118.0)
    detector = Detector.load(tile=None)
    monkeypatch.setattr(Detector, "detect_boxes", lambda self, f: RawBoxes(
        np.array([strip, index], np.float32), np.array([0.9, 0.9], np.float32), np.array([BACK_CLASS, INDEX_CLASS])))
    monkeypatch.setattr(Detector, "classify_boxes", lambda self, f, boxes: [("AS", 0.99, 0)] * len(boxes))
    back = back_histogram(frame, strip)
    assert back is not None
    with_back = build_profile("blue", ["AS", "AS"], [np.eye(4)[0], np.eye(4)[0] + 0.01], [back], {})
    without_back = build_profile("plain", ["AS", "AS"], [np.eye(4)[0], np.eye(4)[0] + 0.01], [], {})

    def backs(reader):
        return [code for code in reader.read(frame).cards.codes if code == "BACK"]

    assert backs(detector) == []
    assert backs(detector.with_deck(without_back)) == []
    assert backs(detector.with_deck(with_back)) == ["BACK"]
    # a strip of another colour (a fanned face's white edge) is no back of this deck
    frame[100:130, 100:300] = (235, 235, 235)
    assert backs(detector.with_deck(with_back)) == []


def _patterned_back() -> np.ndarray:
    """A back scan: fine red and white diamonds inside a white border (colours a camera blends)."""
    back = np.full((350, 250, 3), 245, np.uint8)
    yy, xx = np.mgrid[0:310, 0:210]
    diamonds = ((xx // 6 + yy // 6) % 2 == 0)
    inner = back[20:330, 20:230]
    inner[diamonds] = (40, 30, 190)
    inner[~diamonds] = (235, 235, 245)
    return back


def test_a_back_learned_from_a_clean_scan_knows_the_back_as_a_table_camera_sees_it():
    """Small (a card 60 px wide), dimmer and noisy: the scan's pattern blends into one pinkish red
    (one histogram of the clean scan put this view just beyond BACK_MAX_DISTANCE)."""
    from companion.vision.decks.folder import back_scan_histograms
    from companion.vision.decks.profile import DeckProfile

    scan = _patterned_back()
    profile = DeckProfile("scan", ("AS",), np.eye(1, 4, dtype=np.float32), np.mean(back_scan_histograms(scan), 0))
    table = np.full((300, 300, 3), (60, 110, 50), np.uint8)
    small = cv2.resize(scan, (60, 84), interpolation=cv2.INTER_AREA)
    seen = np.clip(small.astype(np.float32) * 0.75 + np.random.default_rng(1).normal(0, 6, small.shape), 0, 255)
    table[100:184, 100:160] = seen.astype(np.uint8)
    assert profile.is_back(table, (100, 100, 160, 184))
    table[100:184, 100:160] = (200, 120, 30)        # a blue chip stack or phone case the same size
    assert not profile.is_back(table, (100, 100, 160, 184))


def test_a_deck_learned_without_a_joker_says_so_and_one_with_both_does_not():
    """Jokers are optional in the photos, so a missing one does not block saving, but the player is told:
    a joker whose index is a star may be found by no box at all (held-out tigullio's BJ)."""
    from companion.vision.decks.result import LearnResult

    codes = ["AS", "SJ"]
    profile = build_profile("home", codes, [np.eye(4)[0], np.eye(4)[1]], [], {})
    result = LearnResult("home", ["deal.jpg"], [], [], profile)
    assert result.complete and len(result.notes) == 1
    assert str(result.notes[0]).startswith("jokers not learned: BJ (")
    assert result.to_json()["notes"] == [note.to_json() for note in result.notes]
    both = build_profile("home", codes + ["BJ"], [np.eye(4)[0], np.eye(4)[1], np.eye(4)[2]], [], {})
    assert LearnResult("home", ["deal.jpg"], [], [], both).notes == []
    assert LearnResult("home", ["deal.jpg"], [], ["not found: 7H"], None).notes == []
