"""Drawn things that are not cards (chips, coins, dice, phones, fanned strips): negatives for training and checks.

No torch, no rendered artwork: scenes use the project's procedural deck, in memory, at small sizes.
"""
from __future__ import annotations

import numpy as np
import pytest

import cv2

from companion.cards import CLASS_NAMES
from companion.synthetic.deck import ArtDeck, render_card
from companion.vision.detections import Detections
from companion.vision.evaluation import LabelledBox, TruthCard
from vision_models.data import deck_scenes, distractors, synth
from vision_models.checks.negatives_check import back_boxes_on_distractors, false_cards_at

FELT = (60, 110, 50)


@pytest.mark.parametrize("kind", distractors.KINDS)
def test_each_kind_is_drawn_inside_its_box(kind):
    for seed in range(3):
        canvas = np.full((240, 240, 3), FELT, np.uint8)
        drawn = distractors.draw_distractors(np.random.default_rng([seed]), canvas, np.zeros((240, 240), np.float32),
                                             card_width=60.0, count=1, kinds=(kind,))
        assert [d.kind for d in drawn] == [kind]
        x1, y1, x2, y2 = drawn[0].box
        changed = np.abs(canvas.astype(int) - FELT).max(axis=2) > 30
        ys, xs = np.nonzero(changed)
        assert len(xs) > 20, f"{kind}: nothing drawn"
        # the thing lies in its box (its soft shadow, a few pixels, may spill over the edge)
        assert xs.min() >= x1 - 4 and xs.max() <= x2 + 4 and ys.min() >= y1 - 4 and ys.max() <= y2 + 4


def test_what_cards_cover_is_never_painted_over():
    canvas = np.full((200, 200, 3), FELT, np.uint8)
    covered = np.zeros((200, 200), np.float32)
    covered[:, :100] = 1.0                        # a card hides the left half
    before = canvas.copy()
    drawn = distractors.draw_distractors(np.random.default_rng(4), canvas, covered, card_width=80.0, count=12)
    assert len(drawn) == 12
    assert np.array_equal(canvas[:, :100], before[:, :100])
    assert (canvas[:, 100:] != before[:, 100:]).any()


def test_unknown_kinds_and_mismatched_masks_are_refused():
    canvas = np.zeros((50, 50, 3), np.uint8)
    with pytest.raises(ValueError, match="unknown distractor kinds"):
        distractors.draw_distractors(np.random.default_rng(0), canvas, np.zeros((50, 50)), 20.0, kinds=("cat",))
    with pytest.raises(ValueError, match="must be H x W"):
        distractors.draw_distractors(np.random.default_rng(0), canvas, np.zeros((40, 50)), 20.0)
    with pytest.raises(ValueError, match="distractor_share"):
        synth.write_scenes(None, [], [], 1, 0, distractor_share=1.5)   # type: ignore[arg-type]


@pytest.fixture(scope="module")
def small_deck():
    return synth.procedural_deck(0, width=80)


def test_a_training_scene_keeps_its_labels_with_distractors(small_deck):
    changed = 0
    for i in range(6):
        plain, labels = synth.render_scene(np.random.default_rng([3, i]), [small_deck], [small_deck.back], size=200)
        busy, busy_labels = synth.render_scene(np.random.default_rng([3, i]), [small_deck], [small_deck.back], size=200,
                                               distractor_rng=np.random.default_rng([3, i, 7]))
        assert busy_labels == labels
        changed += int(not np.array_equal(plain, busy))
    assert changed == 6


def test_written_scenes_carry_distractors_in_their_share_and_the_same_labels(small_deck, tmp_path):
    synth.write_scenes(tmp_path / "plain", [small_deck], [small_deck.back], 8, seed=5, size=160)
    synth.write_scenes(tmp_path / "all", [small_deck], [small_deck.back], 8, seed=5, size=160, distractor_share=1.0)
    names = sorted(p.name for p in (tmp_path / "plain" / "labels").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "all" / "labels").iterdir()) and len(names) == 8
    for name in names:
        assert (tmp_path / "plain" / "labels" / name).read_text() == (tmp_path / "all" / "labels" / name).read_text()
    differ = [not np.array_equal(cv2.imread(str(tmp_path / "plain" / "images" / n.replace(".txt", ".jpg"))),
                                 cv2.imread(str(tmp_path / "all" / "images" / n.replace(".txt", ".jpg")))) for n in names]
    assert all(differ)


def test_a_deck_check_scene_keeps_its_labels_and_reports_one_of_each_kind(tmp_path):
    for code in [*CLASS_NAMES[:54], "BACK"]:
        cv2.imwrite(str(tmp_path / f"{code}.png"), render_card(code, 100, 140))
    deck = ArtDeck(tmp_path)
    for seed in (0, 1):
        plain, labels = deck_scenes.test_scene(deck, seed, {})
        busy, busy_labels, drawn = deck_scenes.scene_with_distractors(deck, seed, {}, np.random.default_rng(seed))
        assert busy_labels == labels and len(labels) > 3
        assert sorted(d.kind for d in drawn) == sorted(distractors.KINDS)
        assert not np.array_equal(plain, busy)


def test_a_false_card_is_put_down_to_the_distractor_it_lies_on():
    truth = [TruthCard("BACK", (LabelledBox("BACK", (0, 0, 70, 100)),))]
    chip = {"kind": "chips", "box": [100, 20, 160, 60]}        # beside the back: within the scorer's reach of it
    phone = {"kind": "phone", "box": [600, 0, 700, 200]}
    predicted = Detections(np.array([[2, 2, 68, 98], [105, 18, 162, 58], [620, 20, 680, 180], [900, 500, 960, 590]]),
                           np.array([0.9, 0.8, 0.7, 0.6]), ("BACK", "BACK", "7H", "BACK"))
    # the real back is no false card; a back on the chips and a 7H on the phone are; one on bare table is no distractor's
    assert false_cards_at(truth, predicted, [chip, phone]) == [("chips", "BACK"), ("phone", "7H")]
    # a box over a phone and the coin beside it is the phone's: the one it overlaps most
    coin = {"kind": "coin", "box": [610, 150, 630, 170]}
    wide = Detections(np.array([[590, 0, 710, 210]]), np.ones(1), ("BACK",))
    assert false_cards_at(truth, wide, [coin, phone]) == [("phone", "BACK")]
    # with the real back unseen, the surer back on the chips takes the card: the scorer's matching decides
    unseen = Detections(predicted.boxes[1:], predicted.confidences[1:], predicted.codes[1:])
    assert false_cards_at(truth, unseen, [chip, phone]) == [("phone", "7H")]
    # ... while the back boxes lying on a distractor and on no labelled back count it either way
    assert back_boxes_on_distractors(truth, predicted, [chip, phone]) == ["chips"]
    assert back_boxes_on_distractors(truth, unseen, [chip, phone]) == ["chips"]
