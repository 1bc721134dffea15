"""Camera feeds: pipeline readings become camera events in the session; the referee's word wins;
the pipeline follows the session after referee changes; phone frames flow through the web API."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import cv2
import pytest
import numpy as np

from companion.session.camera import CameraFeed
from companion.table.sources import PushSource
from companion.vision.detections import Detections
from helpers.grid_engine import SETUP, GridEngine, grid_registry, place
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
        self.detector(frame)
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
    assert "refuses" in status["questions"][0] and "taken" in status["questions"][0]


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
    assert feed.frames == 1 and not feed.reading and "no weights" in feed.status()["error"]
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
    assert response.status_code == 409 and "--camera" in response.get_json()["error"]
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
