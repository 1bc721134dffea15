"""The phone's own reader reads with a table's learned deck as companion.vision does: a deck taught from a
real deck's card photos (../shared/datasets/real/decks/kentdoan/cards, as ``companion deck learn``), saved
in the server's data folder and chosen for a table, exported by GET /api/tables/<id>/deck/profile; the
browser (headless Chromium, onnxruntime-web) and ``Detector.with_deck(profile, closer=False)`` (what the
table pipeline reads a phone's frames with) read the deck's other photos (its play photos) to the same
index boxes (within 2 px), codes and turns, and the same face-down boxes."""
from __future__ import annotations

import cv2
import pytest

from conftest import SHARED
from helpers.reader import browser_reader, disagreements, python_reading
from helpers.web import request, running_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

KENTDOAN = SHARED / "datasets" / "real" / "decks" / "kentdoan"
# The play photos are 2048×1536: read at a phone camera's 1280 px (the same pixels to both readers).
FRAME_WIDTH = 1280


def play_frames() -> list[tuple[str, object]]:
    paths = sorted((KENTDOAN / "play").glob("*.jpg"))
    assert len(paths) >= 5, f"{KENTDOAN / 'play'} holds too few photos"
    frames = []
    for path in paths:
        image = cv2.imread(str(path))
        scale = FRAME_WIDTH / max(image.shape[:2])
        frames.append((path.name, cv2.resize(image, (round(image.shape[1] * scale), round(image.shape[0] * scale)),
                                              interpolation=cv2.INTER_AREA)))
    return frames


def test_the_browser_reads_with_a_learned_deck_what_the_server_reads(tmp_path):
    from companion.vision import Detector
    from companion.vision.decks.store import DeckStore
    from companion.vision.decks.teaching import teach

    detector = Detector.load(tile="auto")
    result = teach(detector, [str(KENTDOAN / "cards")], "kentdoan")
    assert result.complete, [str(p) for p in result.problems]
    DeckStore(tmp_path / "data").save(result.profile)
    deck = DeckStore(tmp_path / "data").load("kentdoan")
    reader_python = detector.with_deck(deck, closer=False)
    with running_server(tmp_path / "data", CAMERA_DETECTION=False) as (base, app):
        status, table = request(base, "POST", "/api/tables", {"game": "chosen", "players": ["Ann", "Bo"]})
        assert status == 201
        status, _ = request(base, "POST", f"/api/tables/{table['id']}/deck", {"deck": "kentdoan"},
                            {"X-Referee-Token": table["referee_token"]})
        assert status == 200
        with browser_reader(base, deck=f"/api/tables/{table['id']}/deck/profile") as reader:
            assert reader.ready["deck"] == "kentdoan" and reader.ready["embedding"]
            assert reader.ready["backend"] == "wasm"
            problems, read, general_differs = {}, 0, 0
            for name, frame in play_frames():
                python = python_reading(reader_python, frame)
                browser = reader.read(frame)
                read += len(python["indices"]) + len(python["backs"])
                general = python_reading(detector, frame)
                general_differs += [(r["code"], r["turn"]) for r in general["indices"]] != [(r["code"], r["turn"]) for r in python["indices"]]
                if differ := disagreements(python, browser):
                    problems[name] = differ
            assert reader.errors == []
    print(f"{read} boxes read by both; the general models read {general_differs} of the photos otherwise")
    assert read >= 30, "the photos hold cards enough to compare"
    assert general_differs >= 1, "the learned deck reads these photos otherwise than the general models (else this checks nothing of it)"
    assert problems == {}
