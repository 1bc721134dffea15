"""The recognition runtime's pure parts: letterbox maths, YOLO decoding, grouping, frames, scoring.

None of these need a model; the model-backed checks are in test_vision_runtime_models.py.
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards import Card
from companion.vision import Detections, IndexReading, check_frame, decode_image, group_cards, load_image
from companion.vision.decode import decode_yolo, nms
from companion.vision.detector import best_rotation, classifier_crop, crops_to_batch, rotations_of
from companion.vision.evaluation import (
    LabelledBox, TruthCard, _parse_names, evaluate_folder, group_truth, holdout_rule, read_labels, score_image, summarise,
)
from companion.vision.grouping import CORNER_SPAN, rotate_clockwise
from companion.vision.letterbox import Letterbox, to_model_input
from companion.vision.models import CLASSIFIER_CLASSES

# ---------------------------------------------------------------- letterbox


def test_letterbox_of_a_720p_frame_into_640_pads_top_and_bottom_equally():
    box = Letterbox.fit((720, 1280), 640)
    assert box.resized_shape == (360, 640)
    assert (box.top, box.bottom, box.left, box.right) == (140, 140, 0, 0)
    assert box.gain_x == box.gain_y == 0.5
    frame = np.full((720, 1280, 3), 7, np.uint8)
    out = box.apply(frame)
    assert out.shape == (640, 640, 3)
    assert (out[:140] == 114).all() and (out[500:] == 114).all() and (out[140:500] == 7).all()


def test_letterbox_puts_the_odd_padding_pixel_at_the_bottom_and_right():
    tall = Letterbox.fit((97, 230), 64)  # 97 × 64/230 = 26.99 → 27 rows; 37 rows of padding
    assert tall.resized_shape == (27, 64)
    assert (tall.top, tall.bottom, tall.left, tall.right) == (18, 19, 0, 0)
    wide = Letterbox.fit((230, 97), 64)
    assert (wide.top, wide.bottom, wide.left, wide.right) == (0, 0, 18, 19)


@settings(max_examples=40, deadline=None)
@given(height=st.integers(8, 2000), width=st.integers(8, 2000), target=st.sampled_from([64, 320, 416, 640]))
def test_letterbox_boxes_round_trip(height, width, target):
    box = Letterbox.fit((height, width), target)
    assert box.top + box.bottom + box.resized_shape[0] == target
    assert box.left + box.right + box.resized_shape[1] == target
    boxes = np.array([[0, 0, width, height], [width * 0.25, height * 0.5, width * 0.75, height * 0.9]], np.float32)
    back = box.boxes_to_source(box.boxes_to_input(boxes))
    assert np.allclose(back, boxes, atol=1e-2 * max(width, height) / target + 1e-3)


@settings(max_examples=25, deadline=None)
@given(height=st.integers(8, 900), width=st.integers(8, 900), target=st.sampled_from([64, 320, 640]))
def test_letterbox_matches_ultralytics_pixel_for_pixel(height, width, target):
    augment = pytest.importorskip("ultralytics.data.augment")
    rng = np.random.default_rng(height * 1000 + width)
    frame = rng.integers(0, 255, (height, width, 3), dtype=np.uint8)
    theirs = augment.LetterBox((target, target), auto=False, stride=32)(image=frame)
    ours = Letterbox.fit(frame.shape[:2], target).apply(frame)
    assert ours.shape == theirs.shape
    assert np.array_equal(ours, theirs)


def test_boxes_map_back_to_the_source_frame_and_are_clipped():
    box = Letterbox.fit((720, 1280), 640)
    # A box in the top padding band maps above the frame and is clipped to its top edge.
    mapped = box.boxes_to_source([[100, 150, 200, 250], [10, 0, 20, 130]])
    assert np.allclose(mapped[0], [200, 20, 400, 220])
    assert mapped[1][1] == 0 and mapped[1][3] == 0


def test_model_input_is_rgb_chw_scaled_to_one():
    image = np.zeros((2, 3, 3), np.uint8)
    image[..., 0] = 255  # blue in BGR
    tensor = to_model_input(image)
    assert tensor.shape == (1, 3, 2, 3) and tensor.dtype == np.float32
    assert (tensor[0, 2] == 1).all() and (tensor[0, :2] == 0).all()

# ---------------------------------------------------------------- decoding


def _head_output(rows):
    """rows of (cx, cy, w, h, score_class0, score_class1) → [1, 6, N]."""
    return np.asarray(rows, np.float32).T[None]


def test_decode_keeps_the_best_of_overlapping_boxes_of_one_class():
    out = _head_output([(100, 100, 40, 40, 0.9, 0.1), (102, 101, 40, 40, 0.8, 0.0), (300, 300, 20, 20, 0.6, 0.0)])
    raw = decode_yolo(out, conf=0.25, iou=0.7)
    assert raw.classes.tolist() == [0, 0]
    assert np.allclose(raw.scores, [0.9, 0.6])
    assert np.allclose(raw.boxes[0], [80, 80, 120, 120])


def test_decode_never_lets_one_class_suppress_another():
    out = _head_output([(100, 100, 40, 40, 0.9, 0.0), (100, 100, 40, 40, 0.0, 0.8)])
    raw = decode_yolo(out, conf=0.25, iou=0.5)
    assert sorted(raw.classes.tolist()) == [0, 1]


def test_decode_drops_boxes_at_or_below_the_threshold_and_caps_the_count():
    out = _head_output([(10, 10, 4, 4, 0.25, 0.0), (50, 50, 4, 4, 0.3, 0.0), (90, 90, 4, 4, 0.0, 0.31)])
    assert len(decode_yolo(out, conf=0.25)) == 2
    assert len(decode_yolo(out, conf=0.25, max_det=1)) == 1
    assert len(decode_yolo(out, conf=0.5)) == 0


def test_decode_rejects_a_malformed_output():
    with pytest.raises(ValueError, match="YOLO detect output"):
        decode_yolo(np.zeros((6, 100), np.float32))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 200), st.floats(0, 200), st.floats(1, 60), st.floats(1, 60), st.floats(0, 1)),
                min_size=1, max_size=25))
def test_nms_leaves_no_two_kept_boxes_overlapping_beyond_the_threshold(rows):
    boxes = np.array([(x, y, x + w, y + h) for x, y, w, h, _ in rows], np.float32)
    scores = np.array([s for *_, s in rows], np.float32)
    keep = nms(boxes, scores, 0.5)
    assert len(set(keep.tolist())) == len(keep)
    assert scores[keep[0]] == scores.max()
    for a in range(len(keep)):
        for b in range(a + 1, len(keep)):
            i, j = boxes[keep[a]], boxes[keep[b]]
            inter = max(0, min(i[2], j[2]) - max(i[0], j[0])) * max(0, min(i[3], j[3]) - max(i[1], j[1]))
            union = (i[2] - i[0]) * (i[3] - i[1]) + (j[2] - j[0]) * (j[3] - j[1]) - inter
            assert inter / union <= 0.5 + 1e-6
    # Every dropped box overlaps some kept, higher-scoring box beyond the threshold.
    for d in set(range(len(boxes))) - set(keep.tolist()):
        assert any(scores[k] >= scores[d] for k in keep)


def _greedy_nms(boxes, scores, threshold):
    """The definition, one box at a time in plain Python: the best left is kept, every box over the threshold with it dropped."""
    def iou(i, j):
        inter = max(0.0, min(i[2], j[2]) - max(i[0], j[0])) * max(0.0, min(i[3], j[3]) - max(i[1], j[1]))
        return inter / max((i[2] - i[0]) * (i[3] - i[1]) + (j[2] - j[0]) * (j[3] - j[1]) - inter, 1e-9)
    left = sorted(range(len(scores)), key=lambda k: -scores[k])
    keep = []
    while left:
        best = left.pop(0)
        keep.append(best)
        left = [k for k in left if iou(boxes[best], boxes[k]) <= threshold]
    return keep


@pytest.mark.parametrize("block", [1, 7, 512])
def test_nms_weighing_boxes_in_blocks_keeps_what_one_box_at_a_time_keeps(block, monkeypatch):
    from companion.vision import decode
    monkeypatch.setattr(decode, "NMS_BLOCK", block)
    rng = np.random.default_rng(block)
    for _ in range(40):
        n = int(rng.integers(0, 60))
        corner = np.round(rng.uniform(0, 120, (n, 2)) / 4) * 4   # on a grid: equal boxes and ties happen
        boxes = np.concatenate([corner, corner + np.round(rng.uniform(4, 40, (n, 2)))], 1).astype(np.float32)
        scores = (rng.integers(1, 20, n) / 20).astype(np.float32)   # on a coarse grid: tied scores
        keep = nms(boxes, scores, 0.5)
        assert keep.tolist() == _greedy_nms(boxes.astype(float).tolist(), scores.tolist(), 0.5)

# ---------------------------------------------------------------- grouping

CARD_W, CARD_H = 63.0, 88.0
INDEX_W, INDEX_H = 9.0, 20.0
INDEX_AT = (6.0, 13.0)  # index centre from the card's top-left corner, in mm


def card_corners(code, centre, quarter_turns=0, angle_deg=None, px_per_mm=2.0, confidence=0.9):
    """The two index readings a correct recogniser would produce for one card lying on the table.

    ``quarter_turns`` turns the card clockwise on screen in 90° steps (or ``angle_deg`` any angle);
    readings report the clockwise crop turn that reads them upright, binned to 90°, as the
    classifier does.
    """
    angle = 90.0 * quarter_turns if angle_deg is None else angle_deg
    theta = math.radians(angle)
    readings = []
    for corner_angle, local in ((0.0, (INDEX_AT[0] - CARD_W / 2, INDEX_AT[1] - CARD_H / 2)),
                                (180.0, (CARD_W / 2 - INDEX_AT[0], CARD_H / 2 - INDEX_AT[1]))):
        # Rotate the local offset clockwise on screen (y down): (x, y) → (x cos − y sin, x sin + y cos).
        x = local[0] * math.cos(theta) - local[1] * math.sin(theta)
        y = local[0] * math.sin(theta) + local[1] * math.cos(theta)
        cx, cy = centre[0] + x * px_per_mm, centre[1] + y * px_per_mm
        # Axis-aligned box of the turned index.
        c, s = abs(math.cos(theta)), abs(math.sin(theta))
        w = (INDEX_W * c + INDEX_H * s) * px_per_mm
        h = (INDEX_W * s + INDEX_H * c) * px_per_mm
        # The index is turned by angle + corner_angle clockwise; reading it needs the opposite turn.
        turned = (angle + corner_angle) % 360
        rotation = (360 - 90 * round(turned / 90)) % 360
        readings.append(IndexReading((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), confidence, code, 0.95, rotation))
    return readings


@pytest.mark.parametrize("quarter_turns", [0, 1, 2, 3])
def test_the_two_corners_of_one_card_make_one_card_at_their_midpoint(quarter_turns):
    a, b = card_corners("QH", (400, 300), quarter_turns)
    cards = group_cards([a, b])
    assert cards.codes == ("QH",)
    assert np.allclose(cards.centers[0], [400, 300], atol=1e-3)
    assert np.allclose(cards.boxes[0], [min(a.box[0], b.box[0]), min(a.box[1], b.box[1]),
                                        max(a.box[2], b.box[2]), max(a.box[3], b.box[3])])
    assert cards.confidences[0] == pytest.approx(0.9 * 0.95)


@pytest.mark.parametrize("angle", [-40, -20, 15, 30, 44, 100, 170, 220, 310])
def test_corners_pair_at_any_angle(angle):
    cards = group_cards(card_corners("6S", (500, 400), angle_deg=angle))
    assert cards.codes == ("6S",)
    assert np.allclose(cards.centers[0], [500, 400], atol=1e-3)


@pytest.mark.parametrize("quarter_turns", [0, 1, 2, 3])
def test_a_lone_corner_estimates_its_card_centre_on_the_right_side(quarter_turns):
    a, _ = card_corners("9C", (400, 300), quarter_turns)
    cards = group_cards([a])
    assert len(cards) == 1
    estimated = cards.centers[0]
    # Within about a third of the card's half-diagonal of the true centre.
    assert np.linalg.norm(estimated - np.array([400, 300])) < 0.35 * math.hypot(CARD_W, CARD_H) / 2 * 2.0
    box = cards.boxes[0]
    assert box[0] <= a.center[0] <= box[2] and box[1] <= a.center[1] <= box[3]
    assert box[0] <= estimated[0] <= box[2] and box[1] <= estimated[1] <= box[3]


@pytest.mark.parametrize("quarter_turns", [0, 1, 2, 3])
def test_a_lone_tall_joker_index_is_placed_by_the_table_scale_when_known(quarter_turns):
    """A joker's tall index would push its own-size estimate far past the card's centre; told the
    size of an ordinary index (a mat's scale), the estimate comes back to the card."""
    px_per_mm = 2.0
    a, _ = card_corners("BJ", (400, 300), quarter_turns, px_per_mm=px_per_mm)
    x1, y1, x2, y2 = a.box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    stretch = 2.0                             # a joker strip twice as long as an ordinary index
    tall = IndexReading((cx - (cx - x1) * (stretch if quarter_turns % 2 else 1), cy - (cy - y1) * (1 if quarter_turns % 2 else stretch),
                         cx + (x2 - cx) * (stretch if quarter_turns % 2 else 1), cy + (y2 - cy) * (1 if quarter_turns % 2 else stretch)),
                        a.detection_confidence, "BJ", a.class_confidence, a.rotation)
    true_centre = np.array([400, 300])
    own = np.linalg.norm(group_cards([tall]).centers[0] - true_centre)
    told = np.linalg.norm(group_cards([tall], index_px=INDEX_H * px_per_mm).centers[0] - true_centre)
    assert told < 0.25 * own and told < 8 * px_per_mm


@pytest.mark.parametrize("quarter_turns", [0, 1, 2, 3])
def test_two_adjacent_cards_with_the_same_code_stay_two(quarter_turns):
    step = (CARD_W + 4) * 2.0
    offset = rotate_clockwise((step, 0.0), 90 * quarter_turns)
    left = card_corners("7D", (300, 300), quarter_turns)
    right = card_corners("7D", (300 + offset[0], 300 + offset[1]), quarter_turns)
    # the joining alone (a photo of one deck then keeps one: test_one_deck_reads_no_code_as_two_cards_on_a_photo)
    cards = group_cards(left + right, one_card_per_code=False)
    assert cards.codes == ("7D", "7D")
    assert sorted(map(tuple, np.round(cards.centers, 3).tolist())) == sorted(
        [(300.0, 300.0), (round(300 + offset[0], 3), round(300 + offset[1], 3))])


def test_two_same_code_cards_showing_one_corner_each_the_same_way_up_stay_two_when_rotation_is_trusted():
    first, _ = card_corners("AS", (300, 300))
    _, second_far = card_corners("AS", (300 + 2 * 60, 300))
    same_way = IndexReading(second_far.box, 0.9, "AS", 0.9, first.rotation)
    assert len(group_cards([first, same_way], trust_rotation=True)) == 2
    # One deck (the default): the same code twice at a card's corner span is one card.
    assert len(group_cards([first, same_way])) == 1


@pytest.mark.parametrize("wrong_turn", [0, 90, 270])
def test_a_misjudged_rotation_does_not_split_one_card_in_two(wrong_turn):
    a, b = card_corners("8C", (400, 300), quarter_turns=1)
    misread = IndexReading(b.box, b.detection_confidence, b.code, b.class_confidence, (a.rotation + wrong_turn) % 360)
    cards = group_cards([a, misread])
    assert cards.codes == ("8C",) and np.allclose(cards.centers[0], [400, 300], atol=1e-3)
    assert len(group_cards([a, misread], trust_rotation=True)) == 2


def test_pairs_whose_rotations_agree_are_chosen_before_those_that_do_not():
    # Three readings of one code: the agreeing pair wins, the third stays a card of its own.
    a, b = card_corners("4H", (300, 300))
    stray = IndexReading(tuple(np.array(b.box) + [30, 0, 30, 0]), 0.9, "4H", 0.9, a.rotation)
    cards = group_cards([stray, a, b], one_card_per_code=False)
    assert len(cards) == 2
    assert any(np.allclose(centre, [300, 300], atol=1e-3) for centre in cards.centers)


def test_different_codes_pair_only_facing_each_other_and_unreadable_boxes_are_dropped():
    a, b = card_corners("6H", (300, 300))
    # read the same way up, the two indices do not face each other: two cards, not one
    b = IndexReading(b.box, b.detection_confidence, "9H", b.class_confidence, a.rotation)
    none = IndexReading((10, 10, 30, 50), 0.9, None, 0.8, 0)
    cards = group_cards([a, b, none], one_card_geometry=False)
    assert sorted(cards.codes) == ["6H", "9H"]


def _read_as(reading, code, confidence=0.9, rotation=None):
    return IndexReading(reading.box, confidence, code, 0.95, reading.rotation if rotation is None else rotation)


@pytest.mark.parametrize("quarter_turns", [0, 1, 2, 3])
def test_one_cards_two_corners_read_as_two_codes_are_one_card_with_the_better_supported_code(quarter_turns):
    # Both corners read "upright" (the rotation cue fails on real photos), one as a 10 of spades.
    a, b = card_corners("10C", (400, 300), quarter_turns)
    misread = _read_as(b, "10S", confidence=0.6, rotation=a.rotation)
    cards = group_cards([a, misread])
    assert cards.codes == ("10C",)
    assert np.allclose(cards.centers[0], [400, 300], atol=1e-3)
    # the better-supported reading wins, whichever corner it is
    cards = group_cards([_read_as(a, "10C", confidence=0.5), _read_as(b, "10S", confidence=0.9, rotation=a.rotation)])
    assert cards.codes == ("10S",)
    # off, the two readings stay two cards (the lone floor off too: the misread is 0.57 sure)
    assert len(group_cards([a, misread], one_card_geometry=False, min_lone_confidence=0.0)) == 2


@pytest.mark.parametrize("quarter_turns", [0, 1, 2, 3])
def test_one_corner_read_and_the_other_not_is_one_card(quarter_turns):
    a, b = card_corners("QH", (400, 300), quarter_turns)
    cards = group_cards([a, IndexReading(b.box, 0.9, None, 0.7, a.rotation)])
    assert cards.codes == ("QH",)


@pytest.mark.parametrize("quarter_turns", [0, 1, 2, 3])
@pytest.mark.parametrize("step_mm", [(CARD_W + 4, 0.0), (0.0, CARD_H + 4), (CARD_W + 4, CARD_H + 4)],
                         ids=["side by side", "in a column", "diagonal neighbours"])
def test_two_real_cards_showing_one_index_each_stay_two_cards(quarter_turns, step_mm):
    # Each card shows only its top-left index (the other covered), both read upright: a row, a column or a grid's diagonal.
    offset = rotate_clockwise((step_mm[0] * 2.0, step_mm[1] * 2.0), 90 * quarter_turns)
    first, _ = card_corners("7D", (300, 300), quarter_turns)
    second, _ = card_corners("8D", (300 + offset[0], 300 + offset[1]), quarter_turns)
    assert sorted(group_cards([first, second]).codes) == ["7D", "8D"]


def test_two_codes_sharing_neither_rank_nor_suit_are_not_joined_by_geometry_alone():
    a, b = card_corners("7D", (400, 300))
    assert sorted(group_cards([a, _read_as(b, "KS", rotation=a.rotation)]).codes) == ["7D", "KS"]


def test_a_back_is_a_face_down_card_with_its_own_box():
    cards = group_cards([], backs=[((10, 20, 110, 160), 0.8)])
    assert cards.codes == ("BACK",)
    assert np.allclose(cards.boxes[0], [10, 20, 110, 160]) and np.allclose(cards.centers[0], [60, 90])
    assert Card.parse(cards.codes[0]).is_face_down


def test_many_cards_of_a_full_table_each_come_out_once():
    codes = ["AS", "10H", "KD", "2C", "BJ", "SJ", "QS", "9D"]
    readings, centres = [], {}
    for n, code in enumerate(codes):
        centre = (150 + (n % 4) * 170, 200 + (n // 4) * 250)
        centres[code] = centre
        readings += card_corners(code, centre, quarter_turns=n % 4)
    rng = np.random.default_rng(3)
    order = rng.permutation(len(readings))
    cards = group_cards([readings[i] for i in order], backs=[((900, 100, 1030, 280), 0.7)], frame_shape=(720, 1280))
    assert sorted(cards.codes) == sorted(codes + ["BACK"])
    for code, centre in zip(cards.codes, cards.centers):
        if code != "BACK":
            assert np.allclose(centre, centres[code], atol=1e-3)
    assert (cards.confidences[:-1] >= cards.confidences[1:]).all()


def test_rotate_clockwise_turns_right_into_down():
    assert rotate_clockwise((1, 0), 90) == (0, 1)
    assert rotate_clockwise((1, 0), 180) == (-1, 0)
    assert rotate_clockwise((1, 0), 270) == (0, -1)
    assert rotate_clockwise((3, 4), 360) == (3, 4)


def test_corner_span_constant_matches_the_card_layout_used_here_roughly():
    a, b = card_corners("2S", (0, 0))
    assert 4 <= np.linalg.norm(a.center - b.center) / a.scale <= 8
    assert 4 <= CORNER_SPAN <= 8

# ---------------------------------------------------------------- classifier plumbing


def test_classifier_crop_grows_the_box_and_repeats_edges_off_the_frame():
    frame = np.zeros((100, 100, 3), np.uint8)
    frame[40:60, 40:60] = 200
    # The box is the bright square; with 10 % growth each side the square fills the middle 20/24 of the crop.
    crop = classifier_crop(frame, (40, 40, 60, 60), 24, 0.10)
    assert crop[4:20, 4:20].min() == 200 and crop[0, 0].max() == 0
    frame[:, :5] = 90  # a stripe along the left edge: a box at the edge must repeat it, not shift the crop
    edge = classifier_crop(frame, (0, 10, 20, 30), 24, 0.10)
    assert edge[:, 0].min() == 90 and edge[:, -1].max() == 0
    with pytest.raises(ValueError, match="empty box"):
        classifier_crop(frame, (5, 5, 5, 9), 24, 0.1)


def test_classifier_crop_is_the_training_crop():
    synth = pytest.importorskip("vision_models.data.synth")
    rng = np.random.default_rng(8)
    frame = rng.integers(0, 255, (300, 400, 3), dtype=np.uint8)
    for box in [(10.3, 20.7, 60.2, 90.9), (350.5, 250.1, 399.0, 299.5), (-5.0, -3.0, 30.0, 44.0), (100, 100, 300, 290)]:
        assert np.array_equal(classifier_crop(frame, box, 64, 0.10), synth.crop_box(frame, box, 0.10, 64))


def test_classifier_crop_is_square_and_rotations_turn_clockwise():
    frame = np.zeros((100, 100, 3), np.uint8)
    frame[10:20, 10:15] = 255  # a bright block at the crop's top-left
    crop = classifier_crop(frame, (10, 10, 60, 60), 64, 0.0)
    assert crop.shape == (64, 64, 3)
    turned = rotations_of(crop)
    assert [t.shape for t in turned] == [(64, 64, 3)] * 4

    def brightest_quadrant(image):
        quadrants = {"top-left": image[:32, :32], "top-right": image[:32, 32:],
                     "bottom-left": image[32:, :32], "bottom-right": image[32:, 32:]}
        return max(quadrants, key=lambda q: quadrants[q].mean())
    assert [brightest_quadrant(t) for t in turned] == ["top-left", "top-right", "bottom-right", "bottom-left"]
    batch = crops_to_batch(turned)
    assert batch.shape == (4, 3, 64, 64) and batch.dtype == np.float32 and batch.max() <= 1


def test_only_turns_that_can_stand_an_index_upright_are_tried():
    from companion.vision.detector import plausible_turns

    assert plausible_turns((10, 10, 30, 60)) == (0, 180), "taller than wide: upright or upside down"
    assert plausible_turns((10, 10, 60, 30)) == (90, 270), "wider than tall: on its side"
    assert plausible_turns((10, 10, 40, 44)) == (0, 90, 180, 270), "squarish (near 45 degrees): all four"
    crop = np.arange(64 * 64 * 3, dtype=np.uint8).reshape(64, 64, 3)
    assert [t.tobytes() for t in rotations_of(crop, (90, 270))] == [t.tobytes() for t in rotations_of(crop)[1::2]]


def test_the_most_confident_rotation_wins_and_none_means_no_index():
    classes = CLASSIFIER_CLASSES
    probabilities = np.full((4, len(classes)), 0.001, np.float32)
    probabilities[0, classes.index("6S")] = 0.5
    probabilities[2, classes.index("9S")] = 0.8
    assert best_rotation(probabilities, classes) == ("9S", pytest.approx(0.8), 180)
    probabilities[2, classes.index("NONE")] = 0.9
    code, _, _ = best_rotation(probabilities, classes)
    assert code is None

# ---------------------------------------------------------------- frames


@pytest.mark.parametrize("bad, message", [
    ("not an array", "numpy array"),
    (np.zeros((64, 64, 3), np.float32), "uint8"),
    (np.zeros((64, 64), np.uint8), "H×W×3"),
    (np.zeros((64, 64, 4), np.uint8), "H×W×3"),
    (np.zeros((0, 0, 3), np.uint8), "at least"),
    (np.zeros((4, 640, 3), np.uint8), "at least"),
])
def test_bad_frames_are_refused_clearly(bad, message):
    with pytest.raises(ValueError, match=message):
        check_frame(bad)


def test_bad_image_files_are_refused_clearly(tmp_path):
    with pytest.raises(ValueError, match="no such image"):
        load_image(tmp_path / "missing.jpg")
    (tmp_path / "empty.jpg").write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        load_image(tmp_path / "empty.jpg")
    (tmp_path / "text.jpg").write_text("hello, I am not a picture")
    with pytest.raises(ValueError, match="not a readable image"):
        load_image(tmp_path / "text.jpg")
    ok, png = cv2.imencode(".png", np.full((40, 40, 3), 9, np.uint8))
    with pytest.raises(ValueError, match="not a readable image"):
        decode_image(png.tobytes()[:30], "cut.png")
    grey = cv2.imencode(".png", np.full((40, 40), 200, np.uint8))[1].tobytes()
    assert decode_image(grey).shape == (40, 40, 3)  # grey files are read as colour

# ---------------------------------------------------------------- evaluation


def test_holdout_rule_splits_by_source_photo():
    assert holdout_rule("abc_jpg.rf.1.jpg") == holdout_rule("abc_jpg.rf.2.jpg")
    names = [f"{n:06d}_jpg.rf.x.jpg" for n in range(400)]
    share = sum(map(holdout_rule, names)) / len(names)
    assert 0.18 < share < 0.32


def test_data_yaml_names_in_every_layout():
    assert _parse_names("nc: 3\nnames: ['10C', 'RED JOKER', BACK]\n") == ["10C", "RED JOKER", "BACK"]
    assert _parse_names("names:\n  - AS\n  - 2S\n") == ["AS", "2S"]
    assert _parse_names("names:\n  0: AS\n  1: BLACK JOKER\n") == {0: "AS", 1: "BLACK JOKER"}


def test_labels_read_boxes_and_polygons_in_pixels(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("0 0.5 0.5 0.1 0.2\n1 0.1 0.1 0.3 0.1 0.3 0.4 0.1 0.4\n")
    boxes = read_labels(path, ["AS", "BJ"], 200, 100)
    assert boxes[0] == LabelledBox("AS", pytest.approx((90, 40, 110, 60)))
    assert boxes[1].code == "BJ" and boxes[1].box == pytest.approx((20, 10, 60, 40))
    path.write_text("7 0.5 0.5 0.1 0.1\n")
    with pytest.raises(ValueError, match="class 7"):
        read_labels(path, ["AS", "BJ"], 200, 100)
    path.write_text("0 0.5 0.5\n")
    with pytest.raises(ValueError, match="expected 4"):
        read_labels(path, ["AS", "BJ"], 200, 100)


def _labelled_card(code, centre, span=120.0, scale=20.0):
    half = scale / 2
    a = LabelledBox(code, (centre[0] - span / 2 - half, centre[1] - half, centre[0] - span / 2 + half, centre[1] + half))
    b = LabelledBox(code, (centre[0] + span / 2 - half, centre[1] - half, centre[0] + span / 2 + half, centre[1] + half))
    return a, b


def test_ground_truth_pairs_corners_of_one_card_and_keeps_distant_twins_apart():
    a, b = _labelled_card("KS", (300, 300))
    far = LabelledBox("KS", (900, 900, 920, 920))
    back = LabelledBox("BACK", (0, 0, 50, 80))
    cards = group_truth([a, b, far, back])
    assert sorted((c.code, len(c.parts)) for c in cards) == [("BACK", 1), ("KS", 1), ("KS", 2)]


def test_scoring_counts_hits_confusions_misses_and_false_positives():
    truth = [TruthCard("6S", _labelled_card("6S", (200, 200))), TruthCard("QH", _labelled_card("QH", (600, 200))),
             TruthCard("AD", _labelled_card("AD", (200, 600)))]
    predicted = Detections(
        boxes=[[130, 190, 270, 210], [530, 190, 670, 210], [1000, 1000, 1040, 1040]],
        confidences=[0.9, 0.8, 0.7], codes=("6S", "9H", "2C"))
    score = score_image("x.jpg", truth, predicted)
    assert score.true_positives == ["6S"]
    assert score.confusions == [("QH", "9H")]
    assert score.misses == ["AD"]
    assert score.false_positives == ["2C"]
    summary = summarise([score])
    assert summary["overall"]["tp"] == 1 and summary["overall"]["fp"] == 2 and summary["overall"]["fn"] == 2
    assert summary["overall"]["precision"] == pytest.approx(1 / 3, abs=1e-4)
    assert summary["confusions"] == [{"truth": "QH", "predicted": "9H", "count": 1}]
    assert summary["per_class"]["QH"]["fn"] == 1 and summary["per_class"]["9H"]["fp"] == 1


def test_a_lone_corner_prediction_near_a_labelled_corner_matches_it():
    truth = [TruthCard("5C", (LabelledBox("5C", (100, 100, 120, 120)),))]
    # Centre estimated 2.65 index sizes away, box spanning both corners: a correct single-corner reading.
    predicted = Detections(boxes=[[100, 100, 160, 160]], confidences=[0.9], codes=("5C",), centers=[[140, 145]])
    assert score_image("x", truth, predicted).true_positives == ["5C"]
    duplicate = Detections.merge([predicted, predicted])
    twice = score_image("x", truth, duplicate)
    assert twice.true_positives == ["5C"] and twice.false_positives == ["5C"]


def test_evaluating_a_folder_with_a_perfect_reader_scores_one(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    (tmp_path / "data.yaml").write_text("names: ['AS', 'RED JOKER', 'BACK']\n")
    labels = {"p1": "0 0.2 0.2 0.05 0.08\n0 0.4 0.5 0.05 0.08\n1 0.8 0.8 0.05 0.08\n", "p2": "2 0.5 0.5 0.2 0.3\n"}
    for stem, text in labels.items():
        cv2.imwrite(str(tmp_path / "images" / f"{stem}.png"), np.zeros((200, 300, 3), np.uint8))
        (tmp_path / "labels" / f"{stem}.txt").write_text(text)

    def oracle(frame):  # reads the labels back: what a perfect recogniser would say
        stem = "p1" if oracle.calls == 0 else "p2"
        oracle.calls += 1
        truth = group_truth(read_labels(tmp_path / "labels" / f"{stem}.txt", ["AS", "BJ", "BACK"], 300, 200))
        boxes = [[min(p.box[0] for p in c.parts), min(p.box[1] for p in c.parts),
                  max(p.box[2] for p in c.parts), max(p.box[3] for p in c.parts)] for c in truth]
        return Detections(boxes, [0.9] * len(truth), tuple(c.code for c in truth))
    oracle.calls = 0
    summary = evaluate_folder(oracle, tmp_path, split="all")
    assert summary["images"] == 2 and summary["truth_cards"] == 3
    assert summary["overall"]["f1"] == 1.0
    with pytest.raises(ValueError, match="split"):
        evaluate_folder(oracle, tmp_path, split="train")


def test_a_mosaic_scene_shows_each_photo_in_its_cell_with_its_labels_moved_along(tmp_path):
    from companion.vision.evaluation import load_scene

    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    paths = []
    for n in range(4):
        image = np.full((100, 150, 3), 60 * n, np.uint8)
        path = tmp_path / "images" / f"p{n}.png"
        cv2.imwrite(str(path), image)
        (tmp_path / "labels" / f"p{n}.txt").write_text("0 0.5 0.5 0.1 0.1\n")
        paths.append(path)
    frame, truth = load_scene(tmp_path, ["AS"], paths)
    assert frame.shape == (200, 300, 3)
    assert frame[150, 225].tolist() == [180, 180, 180]  # the fourth photo, bottom right
    centres = sorted(tuple(card.parts[0].center.round(1)) for card in truth)
    assert centres == [(75.0, 50.0), (75.0, 150.0), (225.0, 50.0), (225.0, 150.0)]
    with pytest.raises(ValueError, match="square"):
        load_scene(tmp_path, ["AS"], paths[:3])


@pytest.mark.parametrize("quarter_turns", [0, 1, 2, 3])
def test_corners_read_differently_are_still_one_card_read_as_the_surer(quarter_turns):
    a, b = card_corners("5H", (400, 300), quarter_turns)
    b = IndexReading(b.box, b.detection_confidence, "6H", 0.5, b.rotation)
    cards = group_cards([a, b])
    assert cards.codes == ("5H",)
    assert np.allclose(cards.centers[0], [400, 300], atol=1e-3)
    assert cards.confidences[0] < a.confidence          # the other corner's reading makes it less sure


def test_different_codes_side_by_side_stay_two_cards():
    left = card_corners("5H", (300, 300))
    right = card_corners("6H", (300 + (CARD_W + 4) * 2.0, 300))
    assert sorted(group_cards([left[1], right[0]]).codes) == ["5H", "6H"]
    assert sorted(group_cards(left + right).codes) == ["5H", "6H"]


def test_a_joker_s_tall_corners_pair_when_the_table_scale_is_known():
    """A joker strip twice an ordinary index makes its two corners look less than two of its own
    sizes apart, nearer than any diagonal; measured in the table's index size they are one card. In
    its own size it is as near as a four-index card's edge, and one deck has one big joker: one card too."""
    px_per_mm = 2.0
    a, b = card_corners("BJ", (400, 300), px_per_mm=px_per_mm)

    def stretched(reading):
        x1, y1, x2, y2 = reading.box
        cy, half = (y1 + y2) / 2, (y2 - y1)
        return IndexReading((x1, cy - half * 1.2, x2, cy + half * 1.2), reading.detection_confidence, "BJ",
                            reading.class_confidence, reading.rotation)

    tall = [stretched(a), stretched(b)]
    own = group_cards(tall)
    assert own.codes == ("BJ",) and np.allclose(own.centers[0], [400, 300], atol=1e-3)
    assert len(group_cards(tall, trust_rotation=True)) == 2     # two decks: the facing must say one card
    told = group_cards(tall, index_px=INDEX_H * px_per_mm)
    assert told.codes == ("BJ",) and np.allclose(told.centers[0], [400, 300], atol=1e-3)


def test_on_a_mat_a_diagonal_neighbour_s_corner_never_pairs():
    """A misread JC corner (read as SJ) up and left of the real SJ, as in a Kingdoms grid: the loose
    span of a photo lets them pair across the cells; the mat's index size does not."""
    px_per_mm = 2.0
    sj = card_corners("SJ", (400, 400), px_per_mm=px_per_mm)
    jc = card_corners("SJ", (400 + 68 * px_per_mm, 400 + 93 * px_per_mm), px_per_mm=px_per_mm)
    lone_pair = [sj[0], jc[0]]            # the two top-left corners, 115 mm apart, both upright
    assert len(group_cards(lone_pair)) == 1
    told = group_cards(lone_pair, index_px=INDEX_H * px_per_mm)
    assert len(told) == 2
    assert len(group_cards(sj, index_px=INDEX_H * px_per_mm)) == 1    # one card's own corners still pair


def test_a_lone_index_also_says_where_its_card_is_if_it_faces_the_other_way():
    a, b = card_corners("9C", (400, 300))
    lone = group_cards([a])
    assert np.allclose(lone.other_centers[0], 2 * a.center - lone.centers[0])
    paired = group_cards([a, b], backs=[((10, 20, 110, 160), 0.8)])
    assert np.isnan(paired.other_centers).all()
    assert np.allclose(paired[[0]].other_centers, paired.other_centers[:1], equal_nan=True)


def test_a_lone_index_must_be_sure_where_the_scale_is_unknown_and_two_corners_confirm_a_card():
    from companion.vision.grouping import LONE_CARD_MIN_CONFIDENCE

    unsure = (LONE_CARD_MIN_CONFIDENCE - 0.05) / 0.95        # detection confidence: card confidence below the floor
    a, b = card_corners("7D", (300, 300), confidence=unsure)
    sure_a, _ = card_corners("KS", (700, 300), confidence=0.9)
    # a photo: the unsure lone index is dropped, the same index with its second corner is a card
    assert group_cards([a, sure_a]).codes == ("KS",)
    assert sorted(group_cards([a, b, sure_a]).codes) == ["7D", "KS"]
    # on a mat (the scale known: the tracker weighs readings over frames) and when told, nothing is dropped
    assert sorted(group_cards([a, sure_a], index_px=a.scale).codes) == ["7D", "KS"]
    assert sorted(group_cards([a, sure_a], min_lone_confidence=0.0).codes) == ["7D", "KS"]


def test_one_deck_reads_no_code_as_two_cards_on_a_photo():
    a, b = card_corners("QH", (300, 300))
    far, _ = card_corners("QH", (800, 300), confidence=0.95)        # a lone QH elsewhere: a misread or an unjoined corner
    cards = group_cards([a, b, far])
    assert cards.codes == ("QH",)
    assert np.allclose(cards.centers[0], [300, 300], atol=1e-3)     # the card of joined corners wins over a surer lone one
    lone_a, lone_b = card_corners("2C", (300, 700))[0], card_corners("2C", (800, 700))[0]
    weaker = IndexReading(lone_b.box, 0.7, "2C", 0.95, lone_b.rotation)
    assert len(group_cards([lone_a, weaker])) == 1                   # two lone ones: the surer
    assert group_cards([lone_a, weaker]).confidences[0] == pytest.approx(lone_a.confidence)
    # two decks (trust_rotation), a mat (the tracker's business) or asked: both stay
    assert len(group_cards([a, b, far], trust_rotation=True)) == 2
    assert len(group_cards([a, b, far], index_px=a.scale)) == 2
    assert len(group_cards([a, b, far], one_card_per_code=False)) == 2


def test_a_face_up_card_boxed_as_a_back_is_not_a_face_down_card():
    a, b = card_corners("9S", (300, 300))                             # a card 126 x 176 px, its two corners read
    on_it = (300 - 63, 300 - 88, 300 + 63, 300 + 88)                   # the back detector boxed the same card
    beside = (600 - 63, 300 - 88, 600 + 63, 300 + 88)                  # a real back beside it
    cards = group_cards([a, b], backs=[(on_it, 0.8), (beside, 0.8)])
    assert sorted(cards.codes) == ["9S", "BACK"]
    assert [tuple(np.round(box).tolist()) for box, c in zip(cards.boxes, cards.codes) if c == "BACK"] == [beside]
    # a face-down card the face-up one lies on, showing beside it (both corners inside its box, the
    # centres two index sizes apart), stays a back
    under = (300 - 70, 300 - 95, 300 + 63 + 90, 300 + 88 + 60)
    assert sorted(group_cards([a, b], backs=[(under, 0.8)]).codes) == ["9S", "BACK"]


def test_only_card_shaped_backs_are_face_down_cards():
    card = (100, 100, 100 + 63 * 2, 100 + 88 * 2)                      # a back lying square, 2 px/mm
    tilted = (400, 100, 400 + 107 * 2, 100 + 107 * 2)                  # the same card at 45°: a square box
    strip = (100, 400, 100 + 88 * 2, 400 + 12 * 2)                     # the edge of a fanned card
    chip = (400, 400, 400 + 40 * 2, 400 + 40 * 2)                      # a 40 mm poker chip
    backs = [(box, 0.8) for box in (card, tilted, strip, chip)]
    corners = card_corners("5C", (800, 300))                           # indices 20 mm long at the same scale
    kept = group_cards(corners, backs)
    assert sorted(tuple(np.round(b).tolist()) for b, c in zip(kept.boxes, kept.codes) if c == "BACK") == sorted([card, tilted])
    # without indices the size is unknown: only the strip is refused
    assert sum(c == "BACK" for c in group_cards([], backs).codes) == 3
    assert sum(c == "BACK" for c in group_cards(corners, backs, check_back_shape=False).codes) == 4
