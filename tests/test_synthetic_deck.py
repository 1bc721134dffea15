import cv2
import numpy as np
import pytest

from companion.cards import CLASS_NAMES, InvalidCardError
from companion.synthetic.deck import card_mask, index_boxes, render_card


@pytest.mark.parametrize("code", CLASS_NAMES)
def test_every_class_renders_a_card_shaped_image(code):
    image = render_card(code, 125, 175)
    assert image.shape == (175, 125, 3) and image.dtype == np.uint8
    mask = card_mask(125, 175)
    assert mask[0, 0] == 0 and mask[87, 62] == 255   # rounded corner outside, centre inside
    assert (image[mask == 0] == 0).all()
    assert image[mask > 0].std() > 5                  # something is drawn on the face


@pytest.mark.parametrize("code", [c for c in CLASS_NAMES if c != "BACK"])
def test_index_boxes_hold_ink_and_mirror_each_other(code):
    width, height = 250, 350
    image = render_card(code, width, height)
    boxes = index_boxes(code, width, height)
    assert len(boxes) == 2
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    crops = []
    for x1, y1, x2, y2 in boxes:
        assert 0 <= x1 < x2 <= width and 0 <= y1 < y2 <= height
        crop = gray[y1:y2, x1:x2]
        assert (crop < 150).mean() > 0.05, f"no ink in index box of {code}"
        crops.append(crop)
    # the bottom-right index is the top-left one turned 180°
    assert np.abs(crops[0].astype(int) - crops[1][::-1, ::-1].astype(int)).mean() < 8


def test_six_and_nine_differ_when_turned():
    boxes = index_boxes("6S")
    six = render_card("6S")
    nine = render_card("9S")
    x1, y1, x2, y2 = boxes[0]
    six_crop = six[y1:y2, x1:x2].astype(int)
    nine_turned = nine[::-1, ::-1][y1:y2, x1:x2].astype(int)   # a 9 seen upside down, read from the top-left
    assert np.abs(six_crop - nine_turned).mean() > 10


def test_big_joker_has_colour_small_joker_is_monochrome():
    big = render_card("BJ").astype(int)
    small = render_card("SJ").astype(int)
    def saturation(img):
        return (img.max(axis=2) - img.min(axis=2)).mean()

    assert saturation(big) > 3 * saturation(small)
    assert saturation(small) < 5


def test_back_has_no_index_and_style_seed_changes_look_not_geometry():
    assert index_boxes("BACK") == []
    assert not np.array_equal(render_card("KH", style_seed=0), render_card("KH", style_seed=5))
    assert np.array_equal(render_card("KH", style_seed=5), render_card("KH", style_seed=5))
    assert index_boxes("KH", 100, 140) == index_boxes("KH", 100, 140)


def test_bad_input_is_refused():
    with pytest.raises(InvalidCardError):
        render_card("11H")
    with pytest.raises(ValueError):
        render_card("AS", 10, 10)
    with pytest.raises(ValueError):
        index_boxes("AS", 0, 350)
