"""Detections as a table's source (issue 23): a reader elsewhere posts the index readings and backs it
read in its own frames (POST /api/tables/<id>/detections); the table pipeline runs on them on the
server as it does on frames. Bad posts get a clear 4xx and change nothing: not the table, not its feed.

The readings are real: the Chosen demo recording read once by the shipped neural detector, as a table
computer reads it (``companion.table.remote.read_like_a_table_computer``)."""
from __future__ import annotations

import base64
import copy
import json
import time

import cv2
import numpy as np
import pytest
from helpers.web import comparable

from calibration.homography import detect_markers
from calibration.layouts import INDEX_MM, layout_for
from companion.synthetic.recording import replay_truth
from companion.table.demos import demo_dir, demo_truth
from companion.table.pipeline import build_pipeline
from companion.table.readings import readings_json
from companion.table.remote import read_like_a_table_computer
from companion.table.sources import open_source
from companion.vision.grouping import IndexReading, cards_from_readings
from companion.vision.models import models_fingerprint
from web_ui import create_app

GAME = "chosen"



@pytest.fixture(scope="module")
def recorded():
    """The Chosen demo's frames with what a table computer reads in each, and the markers in each."""
    from companion.vision import Detector

    truth = demo_truth(GAME)
    pipeline = build_pipeline(GAME, Detector.load(tile="auto"), truth["setup"], truth.get("setup_events", []))
    frames = open_source(str(demo_dir(GAME)))
    return [(stamp, frame, indices, backs, detect_markers(frame))
            for stamp, frame, indices, backs in read_like_a_table_computer(pipeline, frames)]


READER = {"kind": "table-computer", "backend": "onnxruntime", "ms": 40.0, "models": models_fingerprint(), "deck": None}


def make(tmp_path, **config):
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "CAMERA_DETECTION": False,
                      "MAX_DETECTIONS_PER_SECOND": 1000.0, "DETECTIONS_BURST": 1000, **config})
    client = app.test_client()
    truth = demo_truth(GAME)
    table = client.post("/api/tables", json={"game": GAME, **truth["setup"]}).get_json()
    return app, client, table


def post(client, table, body, raw: bytes | None = None, **headers):
    headers = {"X-Referee-Token": table["referee_token"], **headers}
    if raw is not None:
        return client.post(f"/api/tables/{table['id']}/detections", data=raw, headers=headers, content_type="application/json")
    return client.post(f"/api/tables/{table['id']}/detections", json=body, headers=headers)


def body_of(entry, seq, still=False, markers=False, feed="test-reader", reader=READER):
    stamp, frame, indices, backs, found = entry
    jpeg = cv2.imencode(".jpg", frame)[1].tobytes() if still else None
    return readings_json(indices, backs, frame.shape[:2], stamp, seq, reader, feed=feed, mat_frame=jpeg,
                         markers=found if markers else None)


def play(client, table, recorded, markers=False):
    """Every frame's readings posted in turn (``markers``: with the mat's markers found in it), a still
    when the server asks (the first one too without markers); then the last one held."""
    want, answers = not markers, []
    for seq, entry in enumerate(recorded):
        answer = post(client, table, body_of(entry, seq, still=want, markers=markers))
        assert answer.status_code == 200, answer.get_json()
        answers.append(answer.get_json())
        want = answers[-1]["want_frame"]
    last = body_of(recorded[-1], 0, markers=markers)
    for k in range(1, 14):
        held = copy.deepcopy(last)
        held["frame"].update(seq=len(recorded) + k, time=last["frame"]["time"] + 0.2 * k)
        assert post(client, table, held).status_code == 200
    return answers


@pytest.mark.slow
def test_posted_readings_of_the_demo_reach_its_truth_and_the_server_asks_for_few_stills(tmp_path, recorded):
    app, client, table = make(tmp_path)
    answers = play(client, table, recorded)
    state = client.get(f"/api/tables/{table['id']}").get_json()
    assert comparable(state) == comparable(replay_truth(demo_truth(GAME)))
    camera = client.get(f"/api/tables/{table['id']}/camera").get_json()
    assert camera["feed"]["camera_events"] == len(demo_truth(GAME)["events"])
    assert camera["feed"]["reader"]["kind"] == "table-computer" and camera["feed"]["feed"] == "test-reader"
    stills = sum(a["want_frame"] for a in answers)
    assert 0 < stills < len(answers) / 3      # at the start, on each 3 s refresh, for new backs: not every frame
    # the mat's scale: 18 mm over the mat's mm per pixel at its centre, as the frames pipeline tells its detector
    assert answers[-1]["index_px"] == pytest.approx(14.66, abs=0.5)
    view = client.get(f"/api/tables/{table['id']}/frame.jpg")   # the stills feed the live camera view, drawn when asked
    assert view.status_code == 200 and cv2.imdecode(np.frombuffer(view.data, np.uint8), cv2.IMREAD_COLOR).shape == (720, 960, 3)
    app.extensions["camera"].close()


@pytest.mark.slow
def test_markers_found_by_the_reader_place_the_mat_without_waiting_for_a_still(tmp_path, recorded):
    app, client, table = make(tmp_path)
    answers = play(client, table, recorded, markers=True)
    assert answers[0]["index_px"] == pytest.approx(14.66, abs=0.5)   # the first post placed the mat
    state = client.get(f"/api/tables/{table['id']}").get_json()
    assert comparable(state) == comparable(replay_truth(demo_truth(GAME)))
    app.extensions["camera"].close()


def _mat_markers(scale=2.0, offset=20.0):
    """The Chosen mat's markers as a camera looking straight down sees it, ``scale`` px per mm; the frame's (height, width)."""
    layout = layout_for(GAME, len(demo_truth(GAME)["setup"]["players"]))
    markers = {marker.id: marker.corners() * scale + offset for marker in layout.markers}
    return markers, (int(layout.height * scale + 2 * offset), int(layout.width * scale + 2 * offset))


def test_index_px_follows_the_mat_scale_from_the_markers(tmp_path):
    """Markers of the layout drawn at 2 px per mm: an index (18 mm) is 36 px."""
    app, client, table = make(tmp_path)
    markers, shape = _mat_markers()
    answer = post(client, table, readings_json([], [], shape, 0.0, 0, READER, feed="m", markers=markers))
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["index_px"] == pytest.approx(2.0 * INDEX_MM, rel=1e-3)
    app.extensions["camera"].close()


def test_the_server_groups_posted_readings_with_the_projects_grouping(tmp_path):
    """Two corners of one card (an upright QS and its opposite corner half a turn round, a card's span
    apart at the mat's scale) and a lone 3H: the answer's cards are the project's grouping of them at
    the mat's index size, the two corners one card."""
    app, client, table = make(tmp_path)
    markers, shape = _mat_markers()
    readings = [IndexReading((100.0, 100.0, 128.0, 136.0), 0.9, "QS", 0.97, 0),
                IndexReading((197.0, 230.0, 225.0, 266.0), 0.9, "QS", 0.97, 180),
                IndexReading((600.0, 300.0, 628.0, 336.0), 0.8, "3H", 0.9, 0)]
    backs = [((700.0, 500.0, 826.0, 676.0), 0.7)]
    answer = post(client, table, readings_json(readings, backs, shape, 0.0, 0, READER, feed="g", markers=markers)).get_json()
    expected = cards_from_readings(readings, backs, shape, index_px=answer["index_px"])
    assert answer["cards"] == expected.to_json()
    assert sorted(card["code"] for card in answer["cards"]) == ["3H", "BACK", "QS"]
    app.extensions["camera"].close()


# -- bad posts --------------------------------------------------------------------------------------
def _feed_state(app, client, table):
    feed = app.extensions["camera"].feeds.get(table["id"])
    pipeline = feed._pipeline if feed is not None else None
    return (json.dumps(client.get(f"/api/tables/{table['id']}").get_json(), sort_keys=True),
            feed, None if feed is None else feed.frames,
            None if pipeline is None else (pipeline.frames, json.dumps(pipeline.tracker.snapshot(), sort_keys=True, default=str)))


def _with(body, path, value):
    changed = copy.deepcopy(body)
    target = changed
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return changed


_DELETE = object()
SMALL_JPEG = base64.b64encode(cv2.imencode(".jpg", np.zeros((48, 64, 3), np.uint8))[1].tobytes()).decode()


def test_bad_posts_get_a_clear_4xx_and_change_neither_the_table_nor_its_feed(tmp_path, recorded):
    app, client, table = make(tmp_path)
    want, upto = True, next(n for n in range(40, len(recorded)) if recorded[n][2])
    for seq, entry in enumerate(recorded[:upto]):   # the mat found, cards on their way
        answer = post(client, table, body_of(entry, seq, still=want))
        assert answer.status_code == 200
        want = answer.get_json()["want_frame"]
    good = body_of(recorded[upto], upto)
    stamp = good["frame"]["time"]
    one_index = good["indices"][0]
    cases = [
        ("unknown code", _with(good, ["indices", 0, "code"], "ZZ"), 400, "no card code"),
        ("BACK as an index code", _with(good, ["indices", 0, "code"], "BACK"), 400, "no card code"),
        ("box outside the frame", _with(good, ["indices", 0, "box"], [900, 10, 990, 40]), 400, "inside the 960×720 frame"),
        ("box upside down", _with(good, ["indices", 0, "box"], [50, 40, 40, 60]), 400, "x1 < x2"),
        ("box of three numbers", _with(good, ["indices", 0, "box"], [1, 2, 3]), 400, "[x1, y1, x2, y2]"),
        ("score above 1", _with(good, ["indices", 0, "score"], 1.5), 400, "between 0 and 1"),
        ("turn of 45", _with(good, ["indices", 0, "turn"], 45), 400, "quarter turn"),
        ("too many indices", _with(good, ["indices"], [one_index] * 301), 400, "at most 300"),
        ("too many backs", _with(good, ["backs"], [{"box": [1, 1, 60, 90], "score": 0.5}] * 101), 400, "at most 100"),
        ("width out of range", _with(good, ["frame", "width"], 5000), 400, "frame.width"),
        ("no frame", _with(good, ["frame"], _DELETE), 400, '"frame"'),
        ("time as text", _with(good, ["frame", "time"], "soon"), 400, "frame.time"),
        ("frame size changed", _with(_with(good, ["frame", "width"], 1280), ["frame", "height"], 960), 409, "frame size changed"),
        ("time backwards", _with(good, ["frame", "time"], stamp - 5), 409, "went back"),
        ("seq not increasing", _with(good, ["frame", "seq"], 3), 409, "does not follow"),
        ("seq repeated", _with(good, ["frame", "seq"], upto - 1), 409, "does not follow"),
        ("unknown models", _with(good, ["reader", "models"], "0" * 64), 409, "models this server does not know"),
        ("models not a hash", _with(good, ["reader", "models"], "latest"), 400, "sha256"),
        ("another deck", _with(good, ["reader", "deck"], "kitchen"), 409, "reads with the general models"),
        ("unknown reader kind", _with(good, ["reader", "kind"], "robot"), 400, "reader.kind"),
        ("mat_frame not base64", _with(good, ["mat_frame"], "%%%"), 400, "base64"),
        ("mat_frame not an image", _with(good, ["mat_frame"], base64.b64encode(b"not a jpeg").decode()), 400, "image"),
        ("mat_frame of another size", _with(good, ["mat_frame"], SMALL_JPEG), 400, "mat_frame is 64×48"),
        ("markers not points", _with(good, ["markers"], [{"id": 1, "corners": [[1, 2]]}]), 400, "four [x, y] points"),
        ("occluded as text", _with(good, ["occluded"], "yes"), 400, "occluded"),
        ("a list body", [], 400, "JSON object"),
    ]
    score = f'"score": {json.dumps(good["indices"][0]["score"])}'
    raw_cases = [
        ("NaN", json.dumps(good).replace(score, '"score": NaN', 1).encode(), 400, "NaN"),
        ("Infinity", json.dumps(good).replace(score, '"score": Infinity', 1).encode(), 400, "Infinity"),
        ("1e400", json.dumps(good).replace(score, '"score": 1e400', 1).encode(), 400, "finite"),
        ("not JSON", b"{\"frame\": ", 400, "not valid JSON"),
        ("deep nesting", b"[" * 100000 + b"]" * 100000, 400, ""),
    ]
    for name, body, status, words in cases + raw_cases:
        before = _feed_state(app, client, table)
        answer = post(client, table, None if isinstance(body, bytes) else body, raw=body if isinstance(body, bytes) else None)
        assert answer.status_code == status, (name, answer.status_code, answer.get_json())
        message = answer.get_json()["error"]
        assert words in message, (name, message)
        assert _feed_state(app, client, table) == before, name   # the table, its feed and its pipeline as they were
    chinese = post(client, table, _with(good, ["indices", 0, "code"], "ZZ"), **{"Accept-Language": "zh-Hans"})
    assert chinese.status_code == 400 and "不是模型能读出的牌码" in chinese.get_json()["error"]   # in the phone's language
    wrong_pin = client.post(f"/api/tables/{table['id']}/detections", json=good, headers={"X-Referee-Pin": "000000"})
    assert wrong_pin.status_code == 403
    assert post(client, table, good).status_code == 200        # the feed was kept: the next good post goes on
    app.extensions["camera"].close()


def test_a_flood_is_refused_with_retry_after_and_the_feed_goes_on(tmp_path, recorded):
    app, client, table = make(tmp_path, MAX_DETECTIONS_PER_SECOND=2.0, DETECTIONS_BURST=3)
    statuses = [post(client, table, body_of(recorded[n], n)) for n in range(6)]
    assert [s.status_code for s in statuses[:3]] == [200, 200, 200]
    flooded = [s for s in statuses[3:] if s.status_code == 429]
    assert flooded and all(int(s.headers["Retry-After"]) >= 1 and "too fast" in s.get_json()["error"] for s in flooded)
    feed = app.extensions["camera"].feeds[table["id"]]
    time.sleep(0.6)
    assert post(client, table, body_of(recorded[10], 10)).status_code == 200
    assert app.extensions["camera"].feeds[table["id"]] is feed and feed.frames == 4
    app.extensions["camera"].close()


def test_a_new_reader_takes_the_table_over_and_the_old_one_is_told(tmp_path, recorded):
    app, client, table = make(tmp_path)
    assert post(client, table, body_of(recorded[0], 0, feed="phone-a")).status_code == 200
    first = app.extensions["camera"].feeds[table["id"]]
    # a second reader (seq and clock of its own, from zero) takes over; the first is then refused
    assert post(client, table, body_of(recorded[0], 0, feed="laptop-b")).status_code == 200
    second = app.extensions["camera"].feeds[table["id"]]
    assert second is not first and second.feed_id == "laptop-b" and not first.running
    refused = post(client, table, body_of(recorded[1], 1, feed="phone-a"))
    assert refused.status_code == 409 and "took over" in refused.get_json()["error"]
    assert app.extensions["camera"].feeds[table["id"]] is second
    assert post(client, table, body_of(recorded[1], 1, feed="laptop-b")).status_code == 200
    app.extensions["camera"].close()


def test_an_idle_detections_feed_is_stopped_and_the_next_post_starts_one(tmp_path, recorded):
    app, client, table = make(tmp_path, CAMERA_IDLE_SECONDS=0.3)
    hub = app.extensions["camera"]
    assert post(client, table, body_of(recorded[0], 0)).status_code == 200
    deadline = time.monotonic() + 5
    while table["id"] in hub.feeds and time.monotonic() < deadline:
        time.sleep(0.05)
    assert table["id"] not in hub.feeds
    # the same reader again (a phone whose page slept): a new feed, not "taken over"
    assert post(client, table, body_of(recorded[1], 1)).status_code == 200
    assert hub.feeds[table["id"]].running
    hub.close()


def test_a_table_reading_with_a_learned_deck_refuses_readings_without_it(tmp_path, recorded, monkeypatch):
    app, client, table = make(tmp_path)
    hub = app.extensions["camera"]
    monkeypatch.setattr(hub.decks, "resolve", lambda choice: (None, type("Use", (), {"name": "kitchen"})()))
    refused = post(client, table, body_of(recorded[0], 0))
    assert refused.status_code == 409 and "the deck 'kitchen'" in refused.get_json()["error"]
    assert table["id"] not in hub.feeds     # refused before it replaced anything
    hub.close()
