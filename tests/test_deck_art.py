"""Recordings drawn with other decks' art (``companion demo render --deck-art DIR``)."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.cards import CLASS_NAMES
from companion.cli import main
from companion.synthetic.deck import ArtDeck, DrawnDeck, load_deck_art
from companion.synthetic.recording import CameraSettings, build_scenario, render_frames

TINY = dict(width=320, height=240, fps=4.0, noise=0.0, blur=0.0)
FACE_BGR, BACK_BGR = (0, 0, 255), (255, 0, 0)


def _solid_deck(folder, back=True, extra=()):
    """Every face pure red, the back pure blue: which art was drawn shows in the frame's colours."""
    folder.mkdir(parents=True, exist_ok=True)
    for code in CLASS_NAMES[:54]:
        cv2.imwrite(str(folder / f"{code.lower()}.jpg"), np.full((140, 100, 3), FACE_BGR, np.uint8))
    if back:
        cv2.imwrite(str(folder / "BACK.png"), np.full((140, 100, 3), BACK_BGR, np.uint8))
    for name in extra:
        cv2.imwrite(str(folder / name), np.zeros((10, 10, 3), np.uint8))
    return folder


def _share_near(image, colour, tolerance=40):
    return float((np.abs(image.astype(int) - colour).max(axis=2) < tolerance).mean())


def test_a_recording_is_drawn_with_the_art_of_the_folder(tmp_path):
    scenario = build_scenario("chosen", 1)
    art = list(render_frames(scenario, CameraSettings(**TINY, deck=ArtDeck(_solid_deck(tmp_path / "art")))))
    drawn = list(render_frames(scenario, CameraSettings(**TINY)))
    assert len(art) == len(drawn)
    # the Chosen ends with cards face up and chips face down: both colours of the art are on the table
    assert _share_near(art[-1].image, FACE_BGR) > 0.01 and _share_near(art[-1].image, BACK_BGR) > 0.002
    assert _share_near(drawn[-1].image, FACE_BGR) < 0.001 and _share_near(drawn[-1].image, BACK_BGR) < 0.001
    # the truth does not depend on the art
    assert [f.cards and [c["code"] for c in f.cards] for f in art] == [f.cards and [c["code"] for c in f.cards] for f in drawn]


def test_the_default_deck_is_the_drawn_one(tmp_path):
    assert isinstance(load_deck_art(None, 2), DrawnDeck) and load_deck_art(None, 2).style_seed == 2
    assert isinstance(load_deck_art(_solid_deck(tmp_path / "art")), ArtDeck)


def test_demo_render_takes_deck_art(tmp_path, capsys):
    art = _solid_deck(tmp_path / "art")
    out = tmp_path / "rec"
    assert main(["demo", "render", "--game", "chosen", "--seed", "1", "--size", "320x240", "--fps", "4",
                 "--deck-art", str(art), "--out", str(out)]) == 0
    assert "with the deck art" in capsys.readouterr().out
    truth = json.loads((out / "truth.json").read_text())
    frame = cv2.imread(str(sorted((out / "frames").glob("*.jpg"))[-1]))
    assert truth["game"] == "chosen" and _share_near(frame, FACE_BGR, 60) > 0.01


@pytest.mark.parametrize("back, extra, message", [
    (False, (), "no back.png"),
    (True, ("queen.png",), "not card codes: queen.png"),
    (True, ("qh.PNG",), "two images of one card"),
])
def test_demo_render_refuses_a_deck_folder_it_cannot_draw_and_writes_nothing(tmp_path, capsys, back, extra, message):
    art = _solid_deck(tmp_path / "art", back=back, extra=extra)
    out = tmp_path / "rec"
    assert main(["demo", "render", "--game", "chosen", "--deck-art", str(art), "--out", str(out)]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()
