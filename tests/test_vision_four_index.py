"""One card is one card on decks printed with an index in all four corners (drawn and real).

The drawn deck's four-index option (``companion.synthetic.deck``) renders tables of cards in rows,
cascades and fans; a perfect index reader reports every index the cards above leave visible, turned as
the classifier turns it (quarter turns), and the grouping must make one card of each card's indices,
at any resolution, in its own index size and in the mat's, and never one of two real cards.
"""
from __future__ import annotations

import collections
import math

import numpy as np
import pytest

from calibration.layouts import INDEX_MM, layout_for
from companion.synthetic.deck import DrawnDeck, index_boxes
from companion.synthetic.rendering import CameraSettings, render_table
from companion.vision.grouping import IndexReading, choose_pairs, group_cards

KINGDOMS = layout_for("kingdoms")
CODES = ["7H", "QS", "10D", "AC", "3S", "KH", "9C", "2D", "JS", "5H", "8D", "4C"]


def readings_of(frame_cards, confidence=0.9):
    """What a perfect index reader reports for the drawn cards: each visible index, its code, and the
    clockwise turn (to the nearest quarter) that reads it upright."""
    readings = []
    for card in frame_cards:
        for index in card["indices"]:
            rotation = (360 - 90 * round(index["up_degrees"] / 90)) % 360
            readings.append(IndexReading(tuple(index["box"]), confidence, card["code"], 0.95, rotation))
    return readings


def scene(cards, width=1280, four_index=True, seed=0):
    height = width * 3 // 4
    camera = CameraSettings(width=width, height=height, deck=DrawnDeck(0, four_index=four_index), noise=0.0, blur=0.0)
    return render_table(KINGDOMS, cards, camera, seed)


def row(codes, x0=60.0, y=150.0, gap=3.0, angle=0.0):
    return [(code, (x0 + k * (63.0 + gap), y), angle, True) for k, code in enumerate(codes)]


def cascade(codes, x=150.0, y0=100.0, step=22.0):
    """Each card over the one before, lower down by ``step`` mm: the covered ones show their top strip only."""
    return [(code, (x, y0 + k * step), 0.0, True) for k, code in enumerate(codes)]


def fan(codes, centre=(300.0, 260.0), spread_deg=12.0):
    cards = []
    for k, code in enumerate(codes):
        angle = (k - (len(codes) - 1) / 2) * spread_deg
        a = math.radians(angle)
        cards.append((code, (centre[0] + 60 * math.sin(a), centre[1] - 60 * math.cos(a) + 60), angle, True))
    return cards


def index_px_of(width):
    """The mat's index size in frame pixels near the middle of the frame (as the table pipeline knows it)."""
    from companion.synthetic.rendering import Renderer

    camera = CameraSettings(width=width, height=width * 3 // 4)
    renderer = Renderer(KINGDOMS, camera, 0)
    middle = np.array([KINGDOMS.width / 2, KINGDOMS.height / 2])
    a, b = renderer.mat_to_frame([middle, middle + (INDEX_MM, 0)])
    return float(np.linalg.norm(b - a))


def assert_one_card_per_card(frame, cards, **grouping):
    readings = readings_of(frame.cards)
    detections = group_cards(readings, frame_shape=frame.image.shape[:2], **grouping)
    shown = [c for c in frame.cards if c["indices"]]
    assert collections.Counter(detections.codes) == collections.Counter(c["code"] for c in shown)
    for card in shown:
        (centre,) = [detections.centers[k] for k, code in enumerate(detections.codes) if code == card["code"]]
        x1, y1, x2, y2 = card["box"]
        assert x1 <= centre[0] <= x2 and y1 <= centre[1] <= y2, (card["code"], centre, card["box"])
    return readings, detections


def test_the_drawn_deck_prints_four_indices_where_its_boxes_say():
    from companion.synthetic.deck import render_card

    two, four = render_card("7H", 250, 350), render_card("7H", 250, 350, four_index=True)
    boxes = index_boxes("7H", 250, 350, four_index=True)
    assert boxes[:2] == index_boxes("7H", 250, 350) and len(boxes) == 4
    x1, y1, x2, y2 = boxes[2]                   # top-right: ink only on the four-index card
    assert (four[y1:y2, x1:x2] < 128).any() and not (two[y1:y2, x1:x2] < 128).any()
    # the top-right reads as the top-left does (same facing), the bottom-left as the bottom-right
    tl, tr = boxes[0], boxes[2]
    assert np.array_equal(four[tl[1]:tl[3], tl[0]:tl[2]], four[tr[1]:tr[3], tr[0]:tr[2]])
    br, bl = boxes[1], boxes[3]
    assert np.array_equal(four[br[1]:br[3], br[0]:br[2]], four[bl[1]:bl[3], bl[0]:bl[2]])


def test_a_rendered_four_index_card_shows_four_indices_turned_as_printed():
    frame = scene([("7H", (200.0, 200.0), 0.0, True)])
    (card,) = frame.cards
    ups = sorted(round(i["up_degrees"] / 90) % 4 for i in card["indices"])
    assert ups == [0, 0, 2, 2]


@pytest.mark.parametrize("width", [640, 1280, 2560])
def test_cards_in_a_row_are_one_card_each_at_any_resolution(width):
    cards = row(CODES[:6]) + row(CODES[6:12], y=260.0, gap=1.0)
    frame = scene(cards, width)
    readings, _ = assert_one_card_per_card(frame, cards)
    assert len(readings) == 4 * len(cards)          # every corner seen: four readings a card
    # what pairs alone made of them: two cards for each card
    same, _ = choose_pairs(readings)
    assert len(same) == 2 * len(cards)
    assert_one_card_per_card(frame, cards, index_px=index_px_of(width))


@pytest.mark.parametrize("width", [640, 1600])
def test_a_cascade_shows_each_covered_card_s_top_strip_as_one_card(width):
    cards = cascade(CODES[:5]) + cascade(CODES[5:9], x=260.0, step=28.0)
    frame = scene(cards, width)
    covered = [c for c in frame.cards if len(c["indices"]) == 2]
    assert len(covered) == 7                        # the two upper indices of every card but the last
    assert_one_card_per_card(frame, cards)
    assert_one_card_per_card(frame, cards, index_px=index_px_of(width))


def test_cards_turned_sideways_and_fanned_are_one_card_each():
    cards = row(CODES[:4], y=150.0, angle=90.0, gap=30.0) + fan(CODES[4:9])
    frame = scene(cards, 1600)
    assert_one_card_per_card(frame, cards)


def test_two_index_decks_are_unchanged():
    cards = row(CODES[:6]) + cascade(CODES[6:10], x=200.0, y0=260.0)
    frame = scene(cards, 1280, four_index=False)
    readings, _ = assert_one_card_per_card(frame, cards)
    assert len(readings) == 2 * 6 + 3 + 2      # the row: two a card; the cascade: the top-left of the covered three, both of the last


@pytest.mark.parametrize("layout", ["row", "cascade"])
def test_two_copies_of_a_code_from_two_decks_stay_two_cards(layout):
    """Two decks (rotation trusted): two 7H side by side in a row, or one over the other in a cascade,
    are two cards, each one card."""
    cards = row(["7H", "7H", "QS", "QS"], gap=1.0) if layout == "row" else cascade(["7H", "7H", "7H"], step=20.0)
    frame = scene(cards, 1280)
    assert_one_card_per_card_by_place(frame, trust_rotation=True)
    assert_one_card_per_card_by_place(frame, trust_rotation=True, index_px=index_px_of(1280))


def assert_one_card_per_card_by_place(frame, **grouping):
    """Where codes repeat: every drawn card has exactly one detection of its code whose centre lies in it."""
    detections = group_cards(readings_of(frame.cards), frame_shape=frame.image.shape[:2], **grouping)
    shown = [c for c in frame.cards if c["indices"]]
    assert len(detections) == len(shown)
    for code in set(c["code"] for c in shown):
        centres = [detections.centers[k] for k, c in enumerate(detections.codes) if c == code]
        boxes = [c["box"] for c in shown if c["code"] == code]
        assert len(centres) == len(boxes)
        # each centre is nearest its own card: the centres sorted as the cards are
        true = sorted(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes)
        found = sorted(map(tuple, centres))
        for (tx, ty), (fx, fy) in zip(true, found):
            assert math.hypot(tx - fx, ty - fy) < min(b[2] - b[0] for b in boxes) / 2


def test_three_corners_of_a_card_whatever_their_facing_are_one_card():
    """Real classifiers misjudge facings (half the same-card pairs on the rf100 photos): three
    corners of one card with the facing of one or two of them wrong are still one card."""
    frame = scene([("9C", (200.0, 200.0), 17.0, True)])
    readings = readings_of(frame.cards)
    for wrong in range(len(readings)):
        turned = [IndexReading(r.box, r.detection_confidence, r.code, r.class_confidence,
                               (r.rotation + (180 if k == wrong else 0)) % 360) for k, r in enumerate(readings)]
        for dropped in range(len(turned)):
            three = [r for k, r in enumerate(turned) if k != dropped]
            assert group_cards(three).codes == ("9C",)


def test_a_neighbour_s_misread_corner_never_makes_one_card_of_five():
    """A fifth reading of the code (a neighbour's corner misread) joins no card of four: the four
    corners stay one card and the stray reading a card of its own."""
    frame = scene(row(["7H", "7C"], gap=2.0))
    readings = readings_of(frame.cards)
    misread = [IndexReading(r.box, r.detection_confidence, "7H" if r.code == "7C" else r.code, r.class_confidence, r.rotation)
               for r in readings]
    stray = next(r for r, original in zip(misread, readings) if original.code == "7C")
    cards = group_cards([r for r, original in zip(misread, readings) if original.code == "7H"] + [stray],
                        one_card_per_code=False)   # the joining alone: a photo of one deck then keeps the four-corner card
    assert sorted(cards.codes) == ["7H", "7H"]
    # by default a photo of one deck reads no code as two cards: the four joined corners are the card
    one_deck = group_cards([r for r, original in zip(misread, readings) if original.code == "7H"] + [stray])
    assert one_deck.codes == ("7H",)
    assert np.isnan(one_deck.other_centers).all()


def test_a_lone_index_beside_a_four_index_card_must_be_surer_on_a_photo():
    from companion.vision.grouping import FOUR_INDEX_LONE_CARD_MIN_CONFIDENCE, LONE_CARD_MIN_CONFIDENCE

    between = (LONE_CARD_MIN_CONFIDENCE + FOUR_INDEX_LONE_CARD_MIN_CONFIDENCE) / 2 / 0.95   # a card this sure: between the floors
    lone_frame = scene(row(["KH"], x0=400.0, y=300.0), four_index=False)
    lone = readings_of(lone_frame.cards, confidence=between)[0]
    for four_index in (True, False):
        frame = scene(row(["7H", "QS"]), four_index=four_index)
        shape = frame.image.shape[:2]
        readings = readings_of(frame.cards)
        assert max(collections.Counter(r.code for r in readings).values()) == (4 if four_index else 2)
        codes = collections.Counter(group_cards([*readings, lone], frame_shape=shape).codes)
        # a four-index deck shows a card in plain view by several corners: a lone index among them is a misread
        # more often than a card, while a two-index deck's lone index (a fanned card) stays a card
        assert codes == collections.Counter(["7H", "QS"] if four_index else ["7H", "QS", "KH"])
        # on a mat, where the tracker weighs readings over frames, and when the caller sets the floor, nothing is dropped
        assert "KH" in group_cards([*readings, lone], frame_shape=shape, index_px=index_px_of(1280)).codes
        assert "KH" in group_cards([*readings, lone], frame_shape=shape, min_lone_confidence=0.0).codes
        assert "KH" in group_cards([*readings, lone], frame_shape=shape, four_index_lone_confidence=0.0).codes
