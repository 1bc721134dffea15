"""The phone's "teach your deck" flow (web_ui/decks.py): upload, see every card labelled, correct, save."""
from __future__ import annotations

import io
import json
import re

import cv2
import numpy as np
import pytest

from companion.vision.decks.profile import DECK_CODES, build_profile

from companion.vision.decks.store import DeckStore
from conftest import SHARED
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
    assert app.config["DATA_DIR"] not in response.get_json()["error"]     # a phone is not told the server's folders
    response = client.delete("/api/decks/nosuch", headers={"Accept-Language": "zh-CN"})
    assert response.get_json()["error"].startswith("服务器上没有叫 'nosuch' 的牌（已有：")
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


# -- one photo per card, sent one at a time -----------------------------------------------------------------
KENTDOAN_CARDS = SHARED / "datasets" / "real" / "decks" / "kentdoan" / "cards"


def _card_photo(code: str) -> bytes:
    return (KENTDOAN_CARDS / f"{code}.jpg").read_bytes()


def _send(client, draft, at, name, data, language="en"):
    return client.post(f"/api/decks/drafts/{draft}/photos", data={"at": str(at), "photos": [(io.BytesIO(data), name)]},
                       content_type="multipart/form-data", headers={"Accept-Language": language})


def test_card_photos_sent_one_at_a_time_make_one_draft_and_a_broken_one_says_why(client, app):
    before = _home(app)
    started = client.post("/api/decks/drafts", data={"name": "家里的牌", "kind": "cards", "expect": "5"},
                          content_type="multipart/form-data")
    assert started.status_code == 201, started.get_json()
    draft = started.get_json()["draft"]
    assert _send(client, draft, 0, "4S.jpg", _card_photo("4S")).get_json()["added"] == [{"at": 0, "name": "4S.jpg", "card": "4S"}]
    # a camera's name: the classifier names the card
    assert _send(client, draft, 1, "IMG_0002.jpg", _card_photo("7H")).get_json()["added"] == [{"at": 1, "name": "IMG_0002.jpg"}]
    broken = _send(client, draft, 2, "IMG_0003.jpg", b"half a photo", language="zh-CN").get_json()
    assert broken["added"] == [] and broken["failed"][0]["error"].startswith("IMG_0003.jpg：无法读取的图片")
    # the link dropped and the page sent photo 4 again: it replaces itself
    for _ in range(2):
        answer = _send(client, draft, 3, "IMG_0004.jpg", _card_photo("QS")).get_json()
    assert answer["received"] == 3 and answer["expect"] == 5
    assert _send(client, draft, 5, "IMG_0006.jpg", _card_photo("KC")).get_json()["failed"][0]["error"].startswith("IMG_0006.jpg: more photos")
    read = client.post(f"/api/decks/drafts/{draft}/read", headers={"Accept-Language": "zh-CN"})
    assert read.status_code == 200, read.get_json()
    result = read.get_json()
    assert result["kind"] == "cards" and result["photos"] == ["4S.jpg", "IMG_0002.jpg", "IMG_0004.jpg"]
    assert [card["code"] for card in result["cards"]] == ["4S", "7H", "QS"] and all(card["sure"] for card in result["cards"])
    assert result["complete"], result["problems"]
    assert client.get(f"/api/decks/drafts/{draft}/card/1").mimetype == "image/jpeg"
    saved = client.post(f"/api/decks/drafts/{draft}/save", json={})
    assert saved.status_code == 200 and saved.get_json()["name"] == "家里的牌"
    assert "家里的牌" in [deck["name"] for deck in client.get("/api/decks").get_json()["decks"]]
    assert "家里的牌" in client.get("/decks/teach").get_data(as_text=True)
    # the name in use: refused with the way out the page offers, then replaced when the player asks
    again = client.post("/api/decks/drafts", data={"name": "家里的牌", "kind": "cards", "expect": "1"},
                        content_type="multipart/form-data", headers={"Accept-Language": "zh-CN"})
    assert again.status_code == 409 and again.get_json()["exists"] == "家里的牌"
    assert again.get_json()["error"] == "已经有一副叫 '家里的牌' 的牌：可以替换它，或者换个名字"
    replacing = client.post("/api/decks/drafts", data={"name": "家里的牌", "kind": "cards", "expect": "1", "replace": "1"},
                            content_type="multipart/form-data").get_json()["draft"]
    _send(client, replacing, 0, "AD.jpg", _card_photo("AD"))
    client.post(f"/api/decks/drafts/{replacing}/read")
    assert client.post(f"/api/decks/drafts/{replacing}/save", json={}).get_json()["saved"] is True
    assert DeckStore(app.config["DATA_DIR"]).load("家里的牌").learned_codes == ["AD"]
    DeckStore(app.config["DATA_DIR"]).remove("家里的牌")
    assert saved_decks(app.config["DATA_DIR"]) == before


def test_a_photo_too_small_to_read_is_refused_in_the_phones_language(client):
    """A thumbnail sent by mistake: the phone is told which photo and why, in its own words (not a programmer's "frame")."""
    draft = client.post("/api/decks/drafts", data={"name": "trial", "kind": "cards", "expect": "1"},
                        content_type="multipart/form-data").get_json()["draft"]
    thumbnail = _jpeg(np.full((4, 6, 3), 200, np.uint8))
    for language, expected in (("zh-CN", "IMG_1.jpg：这张图片只有 6×4 像素：太小，认不出牌（至少要 8×8）"),
                               ("en", "IMG_1.jpg: the image is 6×4 pixels: too small to read cards from (it takes at least 8×8)")):
        answer = _send(client, draft, 0, "IMG_1.jpg", thumbnail, language=language).get_json()
        assert answer["added"] == [] and [failure["error"] for failure in answer["failed"]] == [expected]


def test_a_card_draft_asks_what_it_cannot_place_in_the_phones_terms(client):
    """A photo of no card it can read (the green table) is asked about, with the page's advice, not the command line's."""
    draft = client.post("/api/decks/drafts", data={"name": "trial", "kind": "cards", "expect": "2"},
                        content_type="multipart/form-data").get_json()["draft"]
    _send(client, draft, 0, "IMG_1.jpg", _card_photo("9H"))
    _send(client, draft, 1, "IMG_2.jpg", _jpeg(np.full((600, 800, 3), (60, 110, 50), np.uint8)))
    result = client.post(f"/api/decks/drafts/{draft}/read", headers={"Accept-Language": "zh-CN"}).get_json()
    assert result["complete"] is False and result["asked"] == [1]
    said = " ".join(words(problem) for problem in result["problems"])
    assert "tap each to name it" in said and "--set" not in said and "companion" not in said
    assert client.post(f"/api/decks/drafts/{draft}/save", json={}).status_code == 422
    assert client.post(f"/api/decks/drafts/{draft}/save", json={"corrections": {"1": "2C"}}).get_json()["saved"] is True
    DeckStore(client.application.config["DATA_DIR"]).remove("trial")


def test_a_body_over_the_limit_is_answered_in_the_phones_language_in_mb(tmp_path):
    import http.client

    from helpers.web import running_server

    with running_server(tmp_path) as (base, _app):
        for language, expected in (("zh-CN,zh;q=0.9", "一次发的内容太多：服务器每次最多收 4 MB"),
                                   ("en", "that is too much to send at once: the server takes at most 4 MB a request")):
            connection = http.client.HTTPConnection(base.split("//")[1], timeout=30)
            connection.putrequest("POST", "/api/decks/drafts")    # a phone's 5 MB photo, refused by its length before it is read
            for header, value in (("Content-Type", "multipart/form-data; boundary=x"), ("Accept-Language", language),
                                  ("Content-Length", str(5 * 1024 * 1024))):
                connection.putheader(header, value)
            connection.endheaders()
            answer = connection.getresponse()
            assert answer.status == 413 and json.loads(answer.read())["error"] == expected
            connection.close()
    # the same words where Flask's own limit answers (a server that is not ours in front of the app)
    flask_app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "flask")})
    answer = flask_app.test_client().post("/api/decks/drafts", data=b"x" * (4 * 1024 * 1024 + 1), content_type="multipart/form-data; boundary=x",
                                          headers={"Accept-Language": "zh-CN"})
    assert answer.status_code == 413 and answer.get_json()["error"] == "一次发的内容太多：服务器每次最多收 4 MB"
