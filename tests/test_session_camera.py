"""Camera feeds: pipeline readings become camera events in the session; the referee's word wins;
the pipeline follows the session after referee changes; phone frames flow through the web API."""
from __future__ import annotations

import time

import pytest
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.session.camera import CameraFeed
from companion.messages import english, from_json
from companion.table.sources import PushSource
from companion.vision.detections import Detections
from helpers.grid_engine import SETUP, GridEngine, grid_registry, place
from helpers.camera import KINGDOMS_SETUP, overlapping_detector
from helpers.web import make_app


@dataclass
class Result:
    engine_events: list = field(default_factory=list)
    questions: list = field(default_factory=list)


class Binding:
    def __init__(self, setup, events):
        self.engine = GridEngine()
        self.events = list(events)
        self.state = None


class ScriptedPipeline:
    """Stands in for the table pipeline: frame k yields the k-th scripted list of engine events."""

    def __init__(self, table, detector, script):
        self.binding = Binding(table.record.setup, table.active_events())
        self.detector = detector
        self.script = list(script)
        self.seen_events: list[list] = []

    def process(self, timestamp, frame):
        self.last_detections = self.detector(frame)   # as TablePipeline keeps it, for the feed's overlay
        self.seen_events.append(list(self.binding.events))
        return Result(self.script.pop(0) if self.script else [])


def one_card_detector(frame):
    return Detections(np.array([[10, 10, 40, 50]], np.float32), np.array([0.9], np.float32), ("10H",))


def feed_for(table, script, **kwargs):
    pipelines = []

    def factory(t, detector):
        pipelines.append(ScriptedPipeline(t, detector, script))
        return pipelines[-1]

    feed = CameraFeed(table, source=[], detector_loader=lambda: one_card_detector, pipeline_factory=factory, **kwargs)
    feed.load_detector()
    return feed, pipelines


FRAME = np.zeros((60, 80, 3), np.uint8)


def test_camera_readings_become_camera_events(tmp_path):
    table, _ = grid_registry(tmp_path).create("grid", SETUP)
    feed, _ = feed_for(table, [[place(0, 0, "AS")], [], [place(0, 1, "2S"), place(0, 0, "3S")]])
    for t in range(3):
        feed.process(t, FRAME)
    assert [(e.event, e.source) for e in table.journal] == [(place(0, 0, "AS"), "camera"), (place(0, 1, "2S"), "camera")]
    status = feed.status()
    assert status["camera_events"] == 2 and status["reading"]
    question = status["questions"][0]
    text = english(from_json(question["text"]))
    assert "refuses" in text and "taken" in text and question["status"] == "open"


def test_the_referee_correction_wins_over_the_camera(tmp_path):
    table, _ = grid_registry(tmp_path).create("grid", SETUP)
    feed, _ = feed_for(table, [[place(0, 0, "8S")], [place(0, 0, "8S")]])
    feed.process(0, FRAME)
    table.submit({"type": "clear", "cell": [0, 0]})
    table.submit(place(0, 0, "9S"))
    table.submit({"type": "clear", "cell": [0, 0]})
    feed.process(1, FRAME)
    assert feed.status()["overruled_by_referee"] == 1
    assert table.snapshot()["grid"][0][0] is None


def test_the_pipeline_follows_referee_changes(tmp_path):
    table, _ = grid_registry(tmp_path).create("grid", SETUP)
    feed, pipelines = feed_for(table, [[place(0, 0, "AS")], [], []])
    feed.process(0, FRAME)
    table.submit(place(1, 1, "KD"))
    feed.process(1, FRAME)
    table.undo()
    table.undo()
    feed.process(2, FRAME)
    assert pipelines[0].seen_events == [[], [place(0, 0, "AS"), place(1, 1, "KD")], []]


def test_frames_are_annotated_with_the_detections(tmp_path):
    table, _ = grid_registry(tmp_path).create("grid", SETUP)
    shown = []
    feed, _ = feed_for(table, [[]], on_frame=shown.append)
    feed.process(0, FRAME)
    assert shown and shown[0].shape == FRAME.shape and shown[0][30, 10].any()  # a box edge is drawn
    assert not FRAME.any()  # on a copy


def test_without_a_detector_frames_still_show_and_nothing_is_read(tmp_path):
    table, _ = grid_registry(tmp_path).create("grid", SETUP)

    def missing():
        raise FileNotFoundError("no weights in vision_models/weights")

    source = PushSource()
    feed = CameraFeed(table, source, detector_loader=missing).start()
    source.push(FRAME)
    deadline = time.monotonic() + 5
    while feed.frames < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    feed.stop()
    assert feed.frames == 1 and not feed.reading and "no weights" in english(from_json(feed.status()["error"]))
    assert table.seq == 0


def test_phone_frames_through_the_api_feed_the_pipeline(tmp_path):
    scripts = [[place(2, 2, "QH")]]

    def factory(table, detector):
        return ScriptedPipeline(table, detector, scripts)

    app = make_app(tmp_path, CAMERA_DETECTOR_LOADER=lambda: one_card_detector, CAMERA_PIPELINE_FACTORY=factory)
    client = app.test_client()
    table = client.post("/api/tables", json={"game": "grid", "players": ["Ann"]}).get_json()
    jpeg = cv2.imencode(".jpg", np.full((60, 80, 3), 255, np.uint8))[1].tobytes()
    response = client.post(f"/api/tables/{table['id']}/frames", data=jpeg, content_type="image/jpeg", headers={"X-Referee-Pin": table["pin"]})
    assert response.status_code == 202
    deadline = time.monotonic() + 10
    while client.get(f"/api/tables/{table['id']}").get_json()["session"]["seq"] < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    journal = client.get(f"/api/tables/{table['id']}/journal").get_json()["journal"]
    assert journal[0]["source"] == "camera" and journal[0]["event"] == place(2, 2, "QH")
    while client.get(f"/api/tables/{table['id']}/frame.jpg").status_code != 200 and time.monotonic() < deadline:
        time.sleep(0.02)
    image = cv2.imdecode(np.frombuffer(client.get(f"/api/tables/{table['id']}/frame.jpg").data, np.uint8), cv2.IMREAD_COLOR)
    assert image[30, 10].max() - image[30, 10].min() > 60  # the box was drawn in colour on the white frame
    status = client.get(f"/api/tables/{table['id']}/camera").get_json()
    assert status["feed"]["camera_events"] == 1 and status["feed"]["source"] == "a phone's camera"
    client.post(f"/api/tables/{table['id']}/camera", json={"use": None}, headers={"X-Referee-Pin": table["pin"]})
    assert client.get(f"/api/tables/{table['id']}/camera").get_json()["feed"] is None


def test_the_server_camera_needs_one(tmp_path):
    client = make_app(tmp_path).test_client()
    table = client.post("/api/tables", json={"game": "grid", "players": ["Ann"]}).get_json()
    pin = {"X-Referee-Pin": table["pin"]}
    assert client.post(f"/api/tables/{table['id']}/camera", json={"use": "server"}).status_code == 403
    response = client.post(f"/api/tables/{table['id']}/camera", json={"use": "server"}, headers=pin)
    # the table page shows it to a player: what to do, no command line
    said = response.get_json()["error"]
    assert response.status_code == 409 and "no camera of its own" in said and "--" not in said and "companion serve" not in said
    assert client.post(f"/api/tables/{table['id']}/camera", json={"use": "usb"}, headers=pin).status_code == 400


def test_the_server_camera_reads_a_folder_of_frames(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    for index in range(60):  # a few seconds of "camera" at the folder source's 10 frames a second
        cv2.imwrite(str(folder / f"{index:03d}.jpg"), np.full((60, 80, 3), 4 * index, np.uint8))
    client = make_app(tmp_path / "data", CAMERA_SOURCE=str(folder)).test_client()
    table = client.post("/api/tables", json={"game": "grid", "players": ["Ann"]}).get_json()
    assert client.get(f"/api/tables/{table['id']}/camera").get_json()["feed"]["source"].startswith("server camera")  # adopted
    second = client.post("/api/tables", json={"game": "grid", "players": ["Bo"]}).get_json()
    assert client.get(f"/api/tables/{second['id']}/camera").get_json()["feed"] is None  # the camera stays with the first
    response = client.post(f"/api/tables/{table['id']}/camera", json={"use": "server"}, headers={"X-Referee-Pin": table["pin"]})
    assert response.status_code == 200, response.get_json()
    deadline = time.monotonic() + 10
    while (client.get(f"/api/tables/{table['id']}/camera").get_json()["feed"]["frames"] < 3) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert client.get(f"/api/tables/{table['id']}/camera").get_json()["feed"]["frames"] >= 3
    assert client.get(f"/api/tables/{table['id']}/frame.jpg").status_code == 200


def test_the_real_table_pipeline_feeds_a_kingdoms_table(tmp_path):
    from companion.session import TableRegistry

    table, _ = TableRegistry(tmp_path).create("kingdoms", {"players": [{"name": "Ann", "suits": ["H", "D"]}, {"name": "Bo", "suits": ["S", "C"]}]})

    def two_cards(frame):
        return Detections(np.array([[100, 100, 160, 190], [170, 100, 230, 190]], np.float32), np.array([0.9, 0.9], np.float32), ("10H", "5D"))

    feed = CameraFeed(table, source=[], detector_loader=lambda: two_cards)  # the default pipeline: companion.table
    feed.load_detector()
    frame = np.zeros((480, 640, 3), np.uint8)
    for index in range(30):
        feed.process(index * 0.2, frame)
    assert [(e.event["card"], e.source) for e in table.journal] == [("10H", "camera"), ("5D", "camera")]
    cell = table.journal[1].event["cell"]
    table.submit({"type": "replace", "cell": cell, "card": "4D"})  # the referee: it is the 4♦
    for index in range(30, 60):
        feed.process(index * 0.2, frame)
    assert table.snapshot()["board"]["rows"] == [["10H", "4D"]]
    status = feed.status()
    assert status["camera_events"] == 2
    assert sorted(card["card"] for card in status["cards"]) == ["10H", "5D"]  # what the camera sees, overruled or not
    shown = []
    feed.on_frame = shown.append
    feed.process(60 * 0.2, frame)
    from companion.vision.annotate import draw_cards

    assert (shown[0] != draw_cards(frame, feed.last_detections)).any()  # the pipeline's overlay is drawn on top


def test_every_feed_shares_one_detector_loaded_once(monkeypatch):
    import threading

    import companion.session.camera as camera
    from companion.vision import Detector, WeightsMissingError

    loads = []

    def fake_load(**kwargs):
        loads.append(kwargs)
        if len(loads) == 1:
            raise WeightsMissingError("not yet installed")
        return object()

    monkeypatch.setattr(camera, "_shared_detector", None)
    monkeypatch.setattr(Detector, "load", staticmethod(fake_load))
    with pytest.raises(WeightsMissingError):
        camera.load_detector()          # a failed load is not remembered: the next feed tries again
    got = []
    threads = [threading.Thread(target=lambda: got.append(camera.load_detector())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(got) == 4 and all(d is got[0] for d in got)
    assert loads == [{"tile": "auto"}, {"tile": "auto"}]


# -- questions on the board ---------------------------------------------------------------------------


def asking_kingdoms_app(tmp_path):
    """A web app whose camera (the real Kingdoms table pipeline) first settles a joker, then sees the
    same spot read as 3♠ too: the tracker asks which it is."""
    overlapping_detector.calls = 0
    app = make_app(tmp_path, GAMES=("kingdoms",), ENGINES=None, CAMERA_DETECTOR_LOADER=lambda: overlapping_detector)
    client = app.test_client()
    created = client.post("/api/tables", json={"game": "kingdoms", **KINGDOMS_SETUP}).get_json()
    table = app.extensions["registry"].get(created["id"])
    hub = app.extensions["camera"]
    feed = CameraFeed(table, source=[], detector_loader=lambda: overlapping_detector, questions=hub.book(table))
    feed.load_detector()
    for index in range(30):
        feed.process(index * 0.2, np.zeros((480, 640, 3), np.uint8))
    hub.feeds[table.id] = feed
    return app, client, created, table, feed


def test_a_camera_question_says_where_it_applies_and_what_was_considered(tmp_path):
    app, client, created, table, feed = asking_kingdoms_app(tmp_path)
    assert [e.event["card"] for e in table.journal] == ["SJ"]
    cell = table.journal[0].event["cell"]
    status = client.get(f"/api/tables/{created['id']}/camera").get_json()
    [question] = [q for q in status["questions"] if q["status"] == "open"]
    assert question["kind"] == "overlap" and question["where"] == {"cell": cell}
    assert question["choices"] == ["3S", "SJ"] and question["pixel"] == [131.0, 146.0]  # the second reading's centre
    states = {t["state"] for t in status["feed"]["tracks"]}
    assert "question" in states  # the asking reading is marked as a question in the camera view


def test_answering_a_question_is_the_referees_event_journaled_and_undoable(tmp_path):
    app, client, created, table, feed = asking_kingdoms_app(tmp_path)
    cell = table.journal[0].event["cell"]
    question = client.get(f"/api/tables/{created['id']}/camera").get_json()["questions"][-1]
    url = f"/api/tables/{created['id']}/questions/{question['id']}"
    assert client.post(url, json={"answer": "3S"}).status_code == 403  # only the referee answers
    pin = {"X-Referee-Pin": created["pin"]}
    assert client.post(url, json={"answer": "ZZ"}, headers=pin).status_code == 400
    response = client.post(url, json={"answer": "3S"}, headers=pin)
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["question"]["status"] == "answered" and body["question"]["answer"] == "3S"
    assert body["entry"]["source"] == "referee" and body["entry"]["event"] == {"type": "replace", "cell": cell, "card": "3S"}
    assert body["state"]["board"]["rows"] == [["3S"]]
    journal = client.get(f"/api/tables/{created['id']}/journal").get_json()["journal"]
    assert journal[-1]["event"]["type"] == "replace" and journal[-1]["source"] == "referee"
    assert client.post(url, json={"answer": "3S"}, headers=pin).status_code == 409  # once
    # The referee's word beats the camera's: the camera still reading a joker there changes nothing.
    for index in range(30, 40):
        feed.process(index * 0.2, np.zeros((480, 640, 3), np.uint8))
    assert table.snapshot()["board"]["rows"] == [["3S"]]
    assert client.post(f"/api/tables/{created['id']}/undo", headers=pin).status_code == 200
    assert table.snapshot()["board"]["rows"] == [["SJ"]]


def test_not_a_card_closes_the_question_and_changes_nothing(tmp_path):
    app, client, created, table, feed = asking_kingdoms_app(tmp_path)
    before = table.seq
    question = client.get(f"/api/tables/{created['id']}/camera").get_json()["questions"][-1]
    url = f"/api/tables/{created['id']}/questions/{question['id']}"
    body = client.post(url, json={"answer": "not a card"}, headers={"X-Referee-Pin": created["pin"]}).get_json()
    assert body["question"]["status"] == "answered" and body["entry"] is None and table.seq == before
    assert client.post(f"/api/tables/{created['id']}/questions/999", json={"answer": "3S"},
                       headers={"X-Referee-Pin": created["pin"]}).status_code == 404


def test_answers_become_each_games_own_events():
    from companion.session.questions import QuestionError, implied_event, where

    dungeon_view = {"players": [{"name": "Ann"}, {"name": "Bo"}], "battlefield": {"to_commit": ["Bo"], "commits": []}}
    assert where("dungeon", "battlefield:P2", dungeon_view) == {"player": "Bo"}
    assert implied_event("dungeon", {"player": "Bo"}, "7S", dungeon_view) == {"type": "commit", "player": "Bo", "card": "7S"}
    assert implied_event("dungeon", {"player": "Bo"}, "BACK", dungeon_view) == {"type": "commit", "player": "Bo"}
    assert implied_event("dungeon", {"zone": "battlefield"}, "9H", dungeon_view) == {"type": "reveal", "card": "9H"}
    chosen_view = {"players": [{"name": "Ann"}, {"name": "Bo"}]}
    assert where("chosen", "area:P1", chosen_view) == {"player": "Ann"}
    assert implied_event("chosen", {"player": "Ann"}, "5H", chosen_view) == {"type": "chip", "onto": "Ann", "card": "5H"}
    with pytest.raises(QuestionError):
        implied_event("chosen", {"zone": "step1"}, "5H", chosen_view)
    kingdoms_view = {"board": {"cells": [{"cell": [6, 6], "code": "SJ", "face_down": False}]}}
    assert implied_event("kingdoms", {"cell": [6, 7]}, "4D", kingdoms_view) == {"type": "place", "cell": [6, 7], "card": "4D"}
    assert implied_event("kingdoms", {"cell": [6, 6]}, "SJ", kingdoms_view) is None
    assert implied_event("kingdoms", {"cell": [6, 6]}, "BACK", kingdoms_view) == {"type": "turn_down", "cell": [6, 6]}


def test_a_question_about_a_card_the_camera_then_settles_is_closed():
    from companion.session.questions import Question, QuestionBook

    book = QuestionBook()
    unsure = book.add(Question(book.next_id(), "is the card at this spot 3S?", "unsure", "6,6", ["3S"], track=7))
    overlap = book.add(Question(book.next_id(), "reads as SJ and as 3S", "overlap", "6,6", ["3S", "SJ"], track=8))
    book.settle({7: "3S", 8: "3S"})
    assert unsure.status == "settled by the camera" and unsure.answer == "3S"
    assert overlap.status == "open"  # which of two readings is right stays the referee's call


def test_a_question_anywhere_on_the_chosen_mat_is_answered_with_its_event():
    """Every zone the Chosen pipeline asks about (a player's area, departure, step1, step2, the vault)
    has the event an answer implies, read off the engine's own view as the table stands."""
    from companion.games import get_engine
    from companion.session.questions import QuestionError, implied_event, where

    engine = get_engine("chosen")
    end = {"type": "end_turn"}

    def answer(state, zone, card):
        view = engine.view(state)
        return implied_event("chosen", where("chosen", zone, view), card, view)

    state = engine.new_game({"players": ["Ann", "Bob"], "seed": None})
    for event in ({"type": "chip", "onto": "Ann"}, end, end):
        state = engine.apply(state, event)
    assert answer(state, "area:P2", "BACK") == {"type": "chip", "onto": "Bob"}
    assert answer(state, "departure", "JD") == {"type": "send", "card": "JD", "medicine": [], "discard": []}
    with pytest.raises(QuestionError, match="not in The Chosen's deck"):
        answer(state, "departure", "KH")
    with pytest.raises(QuestionError, match="no chosen in departure"):
        answer(state, "departure", "5H")
    state = engine.apply(state, answer(state, "departure", "JD"))
    assert answer(state, "departure", "JD") is None and answer(state, "departure", "BACK") is None  # as the table says
    assert answer(state, "departure", "5H") == {"type": "play", "chosen": 1, "card": "5H"}
    assert answer(state, "step1", "JD") == end  # it steps in as Ann's turn ends
    with pytest.raises(QuestionError, match="no chosen JD in step 1"):
        answer(state, "step2", "JD")
    state = engine.apply(state, end)
    assert answer(state, "step1", "JD") is None and answer(state, "step1", "BACK") is None
    with pytest.raises(QuestionError, match="Ann's chosen: it steps in at the end of their turn, not Bob's"):
        answer(state, "step2", "JD")
    for _ in range(2):
        state = engine.apply(state, end)
    assert answer(state, "step2", "JD") is None and answer(state, "step2", "BACK") is None
    state = engine.apply(engine.apply(state, end), end)
    assert state.phase == "reveal"  # JD at the vault, its one chip face down
    assert answer(state, "vault", "JD") is None and answer(state, "vault", "BACK") is None
    assert answer(state, "vault", "4S") == {"type": "reveal", "faces": ["4S"]}
    state = engine.apply(state, answer(state, "vault", "4S"))
    assert answer(state, "vault", "4S") is None  # the judged chip, not yet cleared away
    with pytest.raises(QuestionError, match="no chosen waits at the vault"):
        answer(state, "vault", "9C")

    # With the house rule that a chosen sent this turn stays put, it cannot be stepping in yet.
    state = engine.new_game({"players": ["Ann", "Bob"], "seed": None, "options": {"move_sent_this_turn": False}})
    for event in ({"type": "chip", "onto": "Ann"}, end, end, {"type": "send", "card": "QS", "medicine": [], "discard": []}):
        state = engine.apply(state, event)
    with pytest.raises(QuestionError, match="sent this turn"):
        answer(state, "step1", "QS")


def test_a_chosen_question_at_departure_is_one_tap_journaled_and_undoable(tmp_path):
    from companion.session.questions import Question

    app = make_app(tmp_path, GAMES=("chosen",), ENGINES=None)
    client = app.test_client()
    created = client.post("/api/tables", json={"game": "chosen", "players": [{"name": "Ann"}, {"name": "Bo"}]}).get_json()
    pin = {"X-Referee-Pin": created["pin"]}
    table = app.extensions["registry"].get(created["id"])
    for event in ({"type": "chip", "onto": "Ann"}, {"type": "end_turn"}, {"type": "end_turn"}):
        table.submit(event, source="referee")
    book = app.extensions["camera"].book(table)
    asked = book.add(Question(book.next_id(), "reads as QD and as QH", "overlap", "departure", ["QD", "QH"], track=3))
    listed = client.get(f"/api/tables/{created['id']}/camera").get_json()["questions"]
    assert [q["where"] for q in listed if q["id"] == asked.id] == [{"zone": "departure"}]
    response = client.post(f"/api/tables/{created['id']}/questions/{asked.id}", json={"answer": "QD"}, headers=pin)
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["entry"]["event"] == {"type": "send", "card": "QD", "medicine": [], "discard": []}
    assert [(c["card"], c["zone"]) for c in table.snapshot()["mat"]] == [("QD", "departure")]
    assert client.post(f"/api/tables/{created['id']}/undo", headers=pin).status_code == 200
    assert table.snapshot()["mat"] == []


def test_the_pipeline_is_given_the_detector_itself(tmp_path):
    """Not a wrapper round it: the table pipeline recognises the neural detector by its type (to read it
    incrementally and tell it the mat's scale); behind a wrapper the server's camera read The Chosen
    demo to 11 of its 15 events where `table run` read all 15."""
    table, _ = grid_registry(tmp_path).create("grid", SETUP)
    feed, pipelines = feed_for(table, [[]])
    feed.process(0, FRAME)
    assert pipelines[0].detector is one_card_detector
    assert feed.last_detections is not None and feed.last_detections.codes == ("10H",)
