"""Each table names its own deck: at creation or later by its referee (journaled, kept across a restart); its
camera reads with it through a view of the server's one detector; a deck that left the data folder is said."""
from __future__ import annotations

import copy
import time

import numpy as np
import pytest
from markupsafe import escape

from helpers.text import words
from companion.session.camera import TableDecks
from companion.session.table import DeckChoice
from companion.vision.decks.store import DeckStore
from companion.vision.detections import Detections
from helpers.decks import INDEX
from helpers.decks import deck_reading as deck
from helpers.grid_engine import place
from helpers.web import jpeg, make_app

GENERAL_READING = "AS"   # what the stand-in detector reads without a learned deck


class StandInDetector:
    """The server's shared detector: one card per frame, read by the deck it was told (Detector.with_deck's
    contract: a cheap view over the same networks) or as GENERAL_READING by the general models."""

    def __init__(self) -> None:
        self.deck = None
        self.views: list[tuple[object, bool]] = []

    def with_deck(self, profile, closer: bool = True):
        view = copy.copy(self)
        view.deck = profile
        self.views.append((profile, closer))
        return view

    def __call__(self, frame):
        code = GENERAL_READING if self.deck is None else self.deck.read(INDEX[None])[0]
        return Detections(np.array([[10, 10, 40, 50]], np.float32), np.array([0.9], np.float32), (code,))


class Result:
    def __init__(self, events):
        self.engine_events = events
        self.questions: list = []


class Binding:
    def __init__(self, table):
        self.engine = table.engine
        self.events = table.active_events()
        self.state = None


class PlaceWhatIsRead:
    """Stands in for the table pipeline: each frame's card goes to the next free cell of the grid."""

    def __init__(self, table, detector):
        self.table, self.detector, self.binding = table, detector, Binding(table)

    def process(self, timestamp, frame):
        detections = self.detector(frame)
        return Result([place(0, len(self.table.active_events()), detections.codes[0])])


@pytest.fixture
def data(tmp_path):
    store = DeckStore(tmp_path)
    store.save(deck("kitchen", "KH"))
    store.save(deck("club night", "2C"))
    return tmp_path


def make(data, **config):
    loads: list[StandInDetector] = []

    def loader():
        loads.append(StandInDetector())
        return loads[-1]

    app = make_app(data, CAMERA_DETECTOR_LOADER=loader, CAMERA_PIPELINE_FACTORY=PlaceWhatIsRead, **config)
    return app, loads


def create(client, **extra):
    response = client.post("/api/tables", json={"game": "grid", "players": ["Ann"], **extra})
    return response


def choose(client, table, body, **headers):
    return client.post(f"/api/tables/{table['id']}/deck", json=body, headers={"X-Referee-Token": table["referee_token"], **headers})


def session(client, table):
    return client.get(f"/api/tables/{table['id']}").get_json()["session"]


def read_one_frame(client, table) -> str:
    """Sends one phone frame and returns the card the camera journaled for it."""
    before = session(client, table)["seq"]
    response = client.post(f"/api/tables/{table['id']}/frames", data=jpeg(), content_type="image/jpeg",
                           headers={"X-Referee-Token": table["referee_token"]})
    assert response.status_code == 202, response.get_json()
    deadline = time.monotonic() + 10
    while session(client, table)["seq"] == before and time.monotonic() < deadline:
        time.sleep(0.02)
    entry = client.get(f"/api/tables/{table['id']}/journal").get_json()["journal"][-1]
    assert entry["source"] == "camera" and entry["seq"] == before + 1, entry
    return entry["event"]["card"]


def test_a_table_names_its_deck_when_made_and_an_unknown_one_makes_nothing(data):
    app, _ = make(data)
    client = app.test_client()
    made = create(client, deck="kitchen")
    assert made.status_code == 201
    table = made.get_json()
    assert session(client, table)["deck"] == {"name": "kitchen", "server_default": False}
    assert session(client, create(client).get_json())["deck"] == {"name": None, "server_default": True}
    assert session(client, create(client, deck=None).get_json())["deck"] == {"name": None, "server_default": False}
    count = len(app.extensions["registry"].list())
    refused = create(client, deck="garage")
    assert refused.status_code == 422
    assert "no deck named 'garage'" in refused.get_json()["error"] and "kitchen" in refused.get_json()["error"]
    assert create(client, deck="../escape").status_code == 400
    assert create(client, deck=7).status_code == 400
    assert len(app.extensions["registry"].list()) == count
    page = client.get(f"/t/{table['id']}").get_data(as_text=True)
    assert "The camera reads with the deck “kitchen”." in page and 'src="/static/deck.js"' in page
    assert f'href="/decks/teach?table={table["id"]}"' in page


def test_the_referee_changes_the_deck_as_a_journaled_change(data):
    app, _ = make(data)
    client = app.test_client()
    table = create(client).get_json()
    assert client.post(f"/api/tables/{table['id']}/deck", json={"deck": "kitchen"}).status_code == 403
    assert client.post(f"/api/tables/{table['id']}/deck", json={"deck": "kitchen"},
                       headers={"X-Referee-Pin": "000000" if table["pin"] != "000000" else "111111"}).status_code == 403
    changed = choose(client, table, {"deck": "club night"}, **{"Idempotency-Key": "pick-1"})
    assert changed.status_code == 200, changed.get_json()
    body = changed.get_json()
    assert body["entry"]["kind"] == "deck" and body["entry"]["event"] == {"deck": "club night"} and body["revision"] == 1
    assert body["state"]["session"]["deck"] == {"name": "club night", "server_default": False}
    assert body["deck"]["reading_with"] == "club night"
    again = choose(client, table, {"deck": "club night"}, **{"Idempotency-Key": "pick-1"})
    assert again.headers.get("Idempotent-Replayed") == "true" and session(client, table)["seq"] == 1
    # an unknown deck, a stale revision, a malformed body: refused, and the table is as it was
    for body, headers, status in (({"deck": "garage"}, {}, 422), ({"deck": "kitchen"}, {"X-Expected-Revision": "0"}, 409),
                                  ({}, {}, 400), ({"deck": ["kitchen"]}, {}, 400), ({"server_default": False}, {}, 400)):
        refused = choose(client, table, body, **headers)
        assert refused.status_code == status, (body, refused.get_json())
    assert session(client, table)["seq"] == 1 and session(client, table)["deck"]["name"] == "club night"
    assert words(choose(client, table, {"deck": None}).get_json()["deck"]["says"]) == \
        "The camera reads with the general models (no learned deck)."
    assert choose(client, table, {"server_default": True}).get_json()["state"]["session"]["deck"] == \
        {"name": None, "server_default": True}
    kinds = [entry["kind"] for entry in client.get(f"/api/tables/{table['id']}/journal").get_json()["journal"]]
    assert kinds == ["deck", "deck", "deck"]
    # a deck change is no game event: undo takes back the last event, and nothing else
    client.post(f"/api/tables/{table['id']}/events", json=place(0, 0, "QH"), headers={"X-Referee-Token": table["referee_token"]})
    choose(client, table, {"deck": "kitchen"})
    assert client.post(f"/api/tables/{table['id']}/undo", headers={"X-Referee-Token": table["referee_token"]}).status_code == 200
    assert session(client, table)["events"] == 0 and session(client, table)["deck"]["name"] == "kitchen"


def test_the_choice_outlives_a_restart(data):
    app, _ = make(data)
    client = app.test_client()
    named = create(client, deck="kitchen").get_json()
    changed = create(client, deck="kitchen").get_json()
    choose(client, changed, {"deck": None})
    app.extensions["registry"].close()
    again, _ = make(data)
    client = again.test_client()
    assert session(client, named)["deck"] == {"name": "kitchen", "server_default": False}
    assert session(client, changed)["deck"] == {"name": None, "server_default": False}
    assert session(client, changed)["seq"] == 1


def test_two_tables_read_at_once_each_with_its_own_deck_through_one_detector(data):
    app, loads = make(data, DEFAULT_DECK="club night")
    client = app.test_client()
    kitchen = create(client, deck="kitchen").get_json()
    club = create(client).get_json()                 # names none: the server's default
    general = create(client, deck=None).get_json()
    assert [read_one_frame(client, t) for t in (kitchen, club, general)] == ["KH", "2C", GENERAL_READING]
    assert len(loads) == 1                            # one detector for the server; each table a view of it
    assert {(p.name if p else None, closer) for p, closer in loads[0].views} == {("kitchen", False), ("club night", False)}
    # the referee changes a running feed's deck: the next frame reads with the new one
    choose(client, kitchen, {"deck": "club night"})
    assert read_one_frame(client, kitchen) == "2C"
    assert client.get(f"/api/tables/{kitchen['id']}/camera").get_json()["deck"]["reading_with"] == "club night"
    app.extensions["camera"].close()


def test_a_removed_deck_is_said_and_read_without(data):
    app, _ = make(data)
    client = app.test_client()
    table = create(client, deck="kitchen").get_json()
    assert read_one_frame(client, table) == "KH"
    assert client.delete("/api/decks/kitchen").status_code == 200
    assert read_one_frame(client, table) == GENERAL_READING
    status = client.get(f"/api/tables/{table['id']}/camera").get_json()
    assert status["deck"]["reading_with"] is None and "no longer in the data folder" in words(status["deck"]["problem"])
    assert status["feed"]["deck"]["problem"] == status["deck"]["problem"] and status["feed"]["error"] is None
    page = client.get(f"/t/{table['id']}").get_data(as_text=True)
    assert "The deck &#39;kitchen&#39; is no longer in the data folder: reading with the general models" in page
    assert "kitchen (removed)" in page
    # the table still names it (nothing the referee chose is lost): taught again, it reads with it again
    assert session(client, table)["deck"]["name"] == "kitchen"
    DeckStore(data).save(deck("kitchen", "9S"))
    assert read_one_frame(client, table) == "9S"
    app.extensions["camera"].close()


def test_a_damaged_deck_is_said_in_a_players_terms_and_read_without(data):
    """The table's phones are told the deck is damaged and what to do, in their language: never the server's
    folder nor numpy's or the OS's words (those go to the server's log)."""
    app, _ = make(data)
    client = app.test_client()
    table = create(client, deck="kitchen").get_json()
    (data / "decks" / "kitchen" / "prototypes.npz").write_bytes(b"damaged")
    assert read_one_frame(client, table) == GENERAL_READING
    said = {"zh-CN": ("服务器上的牌 'kitchen' 已损坏：改用通用模型认牌（请另选一副牌，或重新教它）。",
                      "服务器上的牌 'kitchen' 已损坏：请重新教它，或删掉它"),
            "en": ("The deck 'kitchen' is damaged on the server: reading with the general models (choose another deck, or teach it again).",
                   "the deck 'kitchen' is damaged on the server: teach it again, or remove it")}
    for language, (on_the_page, listing_decks) in said.items():
        page = client.get(f"/t/{table['id']}", headers={"Accept-Language": language}).get_data(as_text=True)
        assert str(escape(on_the_page)) in page
        listed = client.get("/api/decks", headers={"Accept-Language": language})
        assert listed.get_json()["decks"] == [{"name": "club night", "cards": 1},
                                              {"name": "kitchen", "cards": None, "problem": listing_decks}]
        for answer in (page, listed.get_data(as_text=True)):
            assert str(data) not in answer and "prototypes.npz" not in answer and "pickle" not in answer
    app.extensions["camera"].close()


def test_table_decks_load_a_profile_once_and_again_when_it_is_replaced(data):
    decks = TableDecks(data, default="kitchen")
    first, use = decks.resolve(DeckChoice())
    assert use.name == "kitchen" and "server's default" in words(use.says())
    assert decks.resolve(DeckChoice())[0] is first
    DeckStore(data).save(deck("kitchen", "9S"), replace=True)
    assert decks.resolve(DeckChoice())[0].codes == ("9S", "9S")
    (data / "decks" / "kitchen" / "prototypes.npz").write_bytes(b"damaged")
    DeckStore(data).path("kitchen").joinpath("profile.json").touch()
    profile, use = decks.resolve(DeckChoice("kitchen", server_default=False))
    assert profile is None and "damaged" in words(use.problem) and use.name is None


def test_the_teach_page_offers_the_new_deck_to_the_table_it_came_from(data):
    app, _ = make(data)
    client = app.test_client()
    table = create(client).get_json()
    page = client.get(f"/decks/teach?table={table['id']}").get_data(as_text=True)
    assert f'data-table="{table["id"]}"' in page and f"Use this deck for table {table['id']}" in page
    assert f'data-deck-url="/api/tables/{table["id"]}/deck"' in page
    assert "Use this deck for table" not in client.get("/decks/teach").get_data(as_text=True)
    assert client.get("/decks/teach?table=ZZZZZZ").status_code == 404


def test_the_session_keeps_the_choice_without_the_web_layer(data):
    from companion.session import UnknownDeck
    from helpers.grid_engine import SETUP, grid_registry

    registry = grid_registry(data)
    table, _ = registry.create("grid", SETUP, deck=DeckChoice("kitchen", server_default=False))
    with pytest.raises(UnknownDeck, match="no deck named 'garage'"):
        registry.choose_deck(table, DeckChoice("garage", server_default=False))
    with pytest.raises(UnknownDeck):
        registry.create("grid", SETUP, deck=DeckChoice("garage", server_default=False))
    assert table.seq == 0 and table.deck.name == "kitchen" and len(registry.list()) == 1
    registry.choose_deck(table, DeckChoice(None, server_default=False), key="k1")
    registry.close()
    again = grid_registry(data).get(table.id)
    assert again.deck == DeckChoice(None, server_default=False) and again.seq == 1
    assert again.choose_deck(DeckChoice(None, server_default=False), key="k1").replayed


def test_a_detector_that_reads_no_learned_deck_says_so_and_reads_as_it_can(data):
    from companion.session.camera import CameraFeed
    from helpers.grid_engine import SETUP, grid_registry

    table, _ = grid_registry(data).create("grid", SETUP, deck=DeckChoice("kitchen", server_default=False))

    def cards_only(frame):   # e.g. the demo's recorded card list: no with_deck
        return Detections(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), ())

    feed = CameraFeed(table, [], detector_loader=lambda: cards_only, pipeline_factory=PlaceWhatIsRead,
                      decks=TableDecks(data))
    feed.load_detector()
    assert feed._reading_detector() is cards_only
    assert words(feed.status()["deck"]["problem"]) == "this camera's detector reads no learned deck: reading with the general models"
