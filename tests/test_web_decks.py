"""The phone's "teach your deck" flow (web_ui/decks.py): upload, see every card labelled, correct, save."""
from __future__ import annotations

import io
import re

import cv2
import numpy as np
import pytest

from companion.vision.decks.profile import DECK_CODES, build_profile

from companion.vision.decks.store import DeckStore
from helpers.text import words
from helpers.decks import CARD_H, CARD_W, corrupt_images, saved_decks, second_copy_spread, spread
from web_ui import create_app


def _jpeg(image) -> bytes:
    return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path_factory.mktemp("tables"))})


@pytest.fixture
def client(app):
    return app.test_client()


def test_the_page_ships_its_script_as_a_file_and_no_inline_code(client):
    page = client.get("/decks/teach").get_data(as_text=True)
    assert 'src="/static/teach_deck.js"' in page and 'id="deck-photos"' in page and 'capture="environment"' in page
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page) and "onclick" not in page
    assert client.get("/static/teach_deck.js").status_code == 200


def test_a_deck_photo_is_labelled_corrected_and_saved(client, app):
    image, truth = spread(list(DECK_CODES))
    response = client.post("/api/decks/drafts", data={"name": "kitchen", "photos": [(io.BytesIO(_jpeg(image)), "deal.jpg")]},
                           content_type="multipart/form-data")
    assert response.status_code == 200, response.get_json()
    result = response.get_json()
    assert result["photos"] == ["deal.jpg"] and result["photo_sizes"] == [[image.shape[1], image.shape[0]]]
    assert len(result["cards"]) >= 52
    # the player names each card it was unsure of (or could not place), as the page's tap does
    corrections = {}
    for number, card in enumerate(result["cards"]):
        if not card["sure"]:
            x1, y1, x2, y2 = card["box"]
            cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
            under = [code for code, x, y in truth if x <= cx <= x + CARD_W and y <= cy <= y + CARD_H]
            if under and under[0].lower() not in corrections.values():
                corrections[str(number)] = under[0].lower()
    placed = [card["code"] for card in result["cards"] if card["sure"]]
    assert len(set(placed)) >= 40          # a card may show two corners read apart: one code, two readings
    assert client.get(f"/api/decks/drafts/{result['draft']}/photo/0").mimetype == "image/jpeg"
    # how sure it is of the rest, and a picture of any card (those it asks about are shown so on the page)
    assert result["sureness"]["msg"].startswith("sure of %(sure)s of %(count)s cards")
    assert set(result["asked"]) <= set(range(len(result["cards"])))
    for number in set(result["asked"]) | {0}:
        picture = client.get(f"/api/decks/drafts/{result['draft']}/card/{number}")
        assert picture.mimetype == "image/jpeg"
        crop = cv2.imdecode(np.frombuffer(picture.data, np.uint8), cv2.IMREAD_COLOR)
        x1, y1, x2, y2 = result["cards"][number]["box"]
        assert x2 - x1 < crop.shape[1] < image.shape[1] and y2 - y1 < crop.shape[0] < image.shape[0]
    assert client.get(f"/api/decks/drafts/{result['draft']}/card/{len(result['cards'])}").status_code == 404
    assert client.get("/api/decks/drafts/nosuchdraft/card/0").status_code == 404
    saved = client.post(f"/api/decks/drafts/{result['draft']}/save", json={"corrections": corrections})
    assert saved.status_code == 200, saved.get_json()
    assert saved.get_json()["saved"] is True
    assert DeckStore(app.config["DATA_DIR"]).names() == ["kitchen"]
    assert {"name": "kitchen", "cards": 54} in client.get("/api/decks").get_json()["decks"]
    assert "kitchen" in client.get("/decks/teach").get_data(as_text=True)


def _home(app):
    """A deck saved before the bad input arrives (nothing may touch it)."""
    store = DeckStore(app.config["DATA_DIR"])
    if not store.exists("home"):
        vectors = np.random.default_rng(3).normal(size=(len(DECK_CODES), 16))
        store.save(build_profile("home", list(DECK_CODES), list(vectors), [], {"cards": 54}))
    return saved_decks(app.config["DATA_DIR"])


def _post(client, name, files):
    return client.post("/api/decks/drafts", content_type="multipart/form-data", data={"name": name, "photos": files})


def test_bad_uploads_names_and_removals_are_refused_clearly_and_nothing_changes(client, app):
    before = _home(app)
    image, _ = spread(["7H", "QS", "10D"])
    for file, (data, message) in corrupt_images().items():
        response = _post(client, "broken", [(io.BytesIO(_jpeg(image)), "fine.jpg"), (io.BytesIO(data), file)])
        assert response.status_code == 400 and response.get_json()["error"].startswith(f"{file}: ")
        assert message in response.get_json()["error"]
    for name in ("../up", "", "x" * 41, ".hidden"):
        response = _post(client, name, [(io.BytesIO(_jpeg(image)), "a.jpg")])
        assert response.status_code == 400 and "deck name" in response.get_json()["error"]
    response = _post(client, "home", [(io.BytesIO(_jpeg(image)), "a.jpg")])
    assert response.status_code == 409 and "a deck named 'home' already exists" in response.get_json()["error"]
    response = client.post("/api/decks/drafts", data={"name": "empty"}, content_type="multipart/form-data")
    assert response.status_code == 400 and "no photos" in response.get_json()["error"]
    response = client.delete("/api/decks/nosuch")
    assert response.status_code == 404 and "no deck named 'nosuch'" in response.get_json()["error"]
    assert "home" in response.get_json()["error"]          # the decks there are
    response = client.delete("/api/decks/" + "x" * 41)
    assert response.status_code == 400 and "deck name" in response.get_json()["error"]
    assert client.post("/api/decks/drafts/nosuch/save", json={}).status_code == 404
    assert saved_decks(app.config["DATA_DIR"]) == before


def test_photos_that_are_not_one_whole_deck_say_what_is_wrong_and_are_never_saved(client, app):
    before = _home(app)
    blank = np.full((600, 800, 3), (60, 110, 50), np.uint8)
    part, _ = spread(["7H", "QS", "10D"])
    copy, _ = second_copy_spread("7H", "QS")
    for label, image, expected in [("table.jpg", blank, "table.jpg: no cards found"),
                                   ("part.jpg", part, "not found: AS 2S 3S"),
                                   ("copy.jpg", copy, "copy.jpg: two copies of QS? (cards #")]:
        response = _post(client, "trial", [(io.BytesIO(_jpeg(image)), label)])
        assert response.status_code == 200, response.get_json()
        result = response.get_json()
        assert result["complete"] is False and any(expected in words(p) for p in result["problems"]), result["problems"]
        refused = client.post(f"/api/decks/drafts/{result['draft']}/save", json={})
        assert refused.status_code == 422 and refused.get_json()["saved"] is False
        assert any(expected in words(p) for p in refused.get_json()["problems"])
    refused = client.post(f"/api/decks/drafts/{result['draft']}/save", json={"corrections": {"0": "ZZ"}})
    assert refused.status_code == 400 and "not a card code" in refused.get_json()["error"]
    assert "trial" not in DeckStore(app.config["DATA_DIR"]).names()
    assert saved_decks(app.config["DATA_DIR"]) == before
