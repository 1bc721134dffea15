"""The JSON API through Flask's test client: every route and every error path, restart, SSE resume.

Driven by the session tests' tiny ``GridEngine`` so these tests are about the web layer alone;
``test_web_games.py`` runs the real engines through the same API.
"""
from __future__ import annotations

import json
import pathlib
import re
import time

import cv2
import numpy as np
import pytest

from companion.session.patch import apply
from helpers.grid_engine import GridEngine, place
from helpers.web import jpeg, make_app, post_event
from web_ui import TestConfig, create_app


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def table(client):
    response = client.post("/api/tables", json={"game": "grid", "players": [{"name": "Ann"}, {"name": "Bo"}]})
    assert response.status_code == 201
    return response.get_json()


def read_stream(client, path, headers=None):
    """All server-sent events of one stream (the test config ends each stream after a moment)."""
    response = client.get(path, headers=headers or {})
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    return parse_sse(response.get_data(as_text=True))


def parse_sse(text):
    events = []
    for block in text.split("\n\n"):
        fields = {}
        for line in block.splitlines():
            if line.startswith(":") or ":" not in line:
                continue
            key, _, value = line.partition(":")
            fields[key] = value[1:] if value.startswith(" ") else value
        if "data" in fields:
            events.append({"id": int(fields["id"]), "event": fields.get("event", "message"), "data": json.loads(fields["data"])})
    return events


# -- creating and reading --------------------------------------------------------------------------
def test_create_returns_id_pin_and_join_url(client, table):
    assert re.fullmatch(r"[A-Z2-9]{6}", table["id"])
    assert re.fullmatch(r"\d{6}", table["pin"])
    assert table["join_url"] == f"http://localhost/t/{table['id']}"
    state = client.get(f"/api/tables/{table['id']}").get_json()
    assert state["grid"] == [[None] * 3] * 3
    assert state["session"]["seq"] == 0 and state["session"]["game"] == "grid"
    assert "pin" not in json.dumps(state).lower().replace("pin_", "")


def test_public_url_sets_the_join_link(tmp_path):
    client = make_app(tmp_path, PUBLIC_URL="http://192.168.1.20:8000/").test_client()
    created = client.post("/api/tables", json={"game": "grid", "players": ["Ann"]}).get_json()
    assert created["join_url"] == f"http://192.168.1.20:8000/t/{created['id']}"
    assert created["join_url"] in client.get(f"/t/{created['id']}").get_data(as_text=True)  # the page's join dialog


@pytest.mark.parametrize("body, status, fragment", [
    ({"game": "chess", "players": [{"name": "Ann"}]}, 400, "unknown game"),
    ({"players": [{"name": "Ann"}]}, 400, "unknown game"),
    ({"game": "grid", "players": []}, 400, "player"),
    ({"game": "grid", "players": [{"name": "Ann"}], "colour": "red"}, 400, "unknown setup"),
    ([1, 2], 400, "JSON object"),
])
def test_create_rejects_bad_setups(client, body, status, fragment):
    response = client.post("/api/tables", json=body)
    assert response.status_code == status
    assert fragment in response.get_json()["error"]
    assert client.get("/api/tables").get_json()["count"] == 0


def test_create_rejects_bodies_that_are_not_json(client):
    for body, content_type in (("game=grid", "application/x-www-form-urlencoded"), ("{not json", "application/json"), (b"\xff\xfe", None)):
        response = client.post("/api/tables", data=body, content_type=content_type)
        assert response.status_code == 400 and "not valid JSON" in response.get_json()["error"]
    # JSON without a Content-Type (curl -d) is fine.
    assert client.post("/api/tables", data=json.dumps({"game": "grid", "players": ["Ann"]})).status_code == 201


def test_json_bodies_over_their_limit_are_refused(tmp_path):
    client = make_app(tmp_path, MAX_JSON_BYTES=500).test_client()
    response = client.post("/api/tables", json={"game": "grid", "players": ["x" * 600]})
    assert response.status_code == 413 and "JSON" in response.get_json()["error"]
    assert client.get("/api/tables").get_json()["count"] == 0


def test_requests_over_the_size_limit_are_refused(tmp_path):
    client = make_app(tmp_path, MAX_CONTENT_LENGTH=1000).test_client()
    response = client.post("/api/tables", json={"game": "grid", "players": ["x" * 2000]})
    assert response.status_code == 413
    assert client.get("/api/tables").get_json()["count"] == 0


@pytest.mark.parametrize("table_id", ["NOPE22", "nope", "..%2F..%2Fetc", "A" * 300])
def test_unknown_tables_are_404_everywhere(client, table_id):
    for path in ("", "/journal", "/stream", "/qr.svg", "/frame.jpg"):
        assert client.get(f"/api/tables/{table_id}{path}").status_code == 404, path
    for path in ("/events", "/undo", "/redo", "/pin", "/frames"):
        assert client.post(f"/api/tables/{table_id}{path}", json={}).status_code == 404, path
    assert client.get(f"/t/{table_id}").status_code == 404


def test_table_ids_are_case_insensitive(client, table):
    assert client.get(f"/api/tables/{table['id'].lower()}").status_code == 200
    page = client.get(f"/t/{table['id'].lower()}")
    assert page.status_code == 302 and page.headers["Location"].endswith(f"/t/{table['id']}")


# -- changing -----------------------------------------------------------------------------------
def test_referee_events_change_the_table(client, table):
    response = post_event(client, table, place(1, 2, "10H"))
    assert response.status_code == 200
    body = response.get_json()
    assert body["entry"]["seq"] == 1 and body["entry"]["source"] == "referee"
    assert body["state"]["grid"][1][2] == "10H"
    assert client.get(f"/api/tables/{table['id']}").get_json()["grid"][1][2] == "10H"


@pytest.mark.parametrize("pin", ["", "000000x", "12345", "wrong"])
def test_a_wrong_or_missing_pin_is_403_and_changes_nothing(client, table, pin):
    before = client.get(f"/api/tables/{table['id']}").get_json()
    wrong = pin if pin != table["pin"] else pin + "1"
    for path in ("/events", "/undo", "/redo", "/pin"):
        response = client.post(f"/api/tables/{table['id']}{path}", json=place(0, 0, "AS"), headers={"X-Referee-Pin": wrong})
        assert response.status_code == 403, path
        assert "PIN" in response.get_json()["error"]
    no_header = client.post(f"/api/tables/{table['id']}/events", json=place(0, 0, "AS"))
    assert no_header.status_code == 403
    assert client.get(f"/api/tables/{table['id']}").get_json() == before


def test_the_pin_of_another_table_does_not_work(client, table):
    other = client.post("/api/tables", json={"game": "grid", "players": ["Cy"]}).get_json()
    assert post_event(client, table, place(0, 0, "AS"), pin=other["pin"]).status_code == 403


def test_pin_check(client, table):
    assert client.post(f"/api/tables/{table['id']}/pin", headers={"X-Referee-Pin": table["pin"]}).get_json()["ok"] is True


def test_guessing_pins_is_throttled(tmp_path):
    client = make_app(tmp_path, PIN_ATTEMPTS=3).test_client()
    table = client.post("/api/tables", json={"game": "grid", "players": ["Ann"]}).get_json()
    wrong = "000000" if table["pin"] != "000000" else "111111"
    assert [client.post(f"/api/tables/{table['id']}/pin").status_code for _ in range(5)] == [403] * 5  # no PIN: no guess
    codes = [client.post(f"/api/tables/{table['id']}/pin", headers={"X-Referee-Pin": wrong}).status_code for _ in range(4)]
    assert codes == [403, 403, 403, 429]
    # Even the right PIN waits out the window: a guesser cannot tell it found it.
    assert client.post(f"/api/tables/{table['id']}/pin", headers={"X-Referee-Pin": table["pin"]}).status_code == 429


@pytest.mark.parametrize("body, status, fragment", [
    (place(1, 1, "ZZ"), 400, "unknown"),
    (place(7, 0, "AS"), 422, "no cell"),
    ({"type": "fly"}, 422, ""),
    ({"cell": [0, 0]}, 400, "type"),
    ([], 400, "JSON object"),
])
def test_bad_events_are_refused_with_a_message_and_change_nothing(client, table, body, status, fragment):
    post_event(client, table, place(0, 0, "AS"))
    before = client.get(f"/api/tables/{table['id']}").get_json()
    response = post_event(client, table, body)
    assert response.status_code == status
    assert fragment in response.get_json()["error"]
    assert client.get(f"/api/tables/{table['id']}").get_json() == before


def test_events_that_are_not_json_are_refused(client, table):
    response = client.post(f"/api/tables/{table['id']}/events", data="{", content_type="application/json",
                           headers={"X-Referee-Pin": table["pin"]})
    assert response.status_code == 400


def test_an_occupied_cell_is_422(client, table):
    post_event(client, table, place(0, 0, "AS"))
    response = post_event(client, table, place(0, 0, "2S"))
    assert response.status_code == 422 and "taken" in response.get_json()["error"]


def test_undo_and_redo_endpoints(client, table):
    headers = {"X-Referee-Pin": table["pin"]}
    assert client.post(f"/api/tables/{table['id']}/undo", headers=headers).status_code == 422
    post_event(client, table, place(0, 0, "AS"))
    post_event(client, table, place(0, 1, "2S"))
    undone = client.post(f"/api/tables/{table['id']}/undo", headers=headers)
    assert undone.status_code == 200 and undone.get_json()["state"]["grid"][0] == ["AS", None, None]
    redone = client.post(f"/api/tables/{table['id']}/redo", headers=headers).get_json()
    assert redone["state"]["grid"][0] == ["AS", "2S", None] and redone["entry"]["kind"] == "redo"
    refused = client.post(f"/api/tables/{table['id']}/redo", headers=headers)
    assert refused.status_code == 422 and "nothing to redo" in refused.get_json()["error"]
    journal = client.get(f"/api/tables/{table['id']}/journal").get_json()["journal"]
    assert [e["kind"] for e in journal] == ["event", "event", "undo", "redo"]


def test_a_restarted_server_has_every_table_as_it_was(tmp_path):
    first = make_app(tmp_path).test_client()
    table = first.post("/api/tables", json={"game": "grid", "players": ["Ann", "Bo"]}).get_json()
    for event in (place(0, 0, "AS"), place(1, 1, "BJ"), place(2, 2, "10C")):
        post_event(first, table, event)
    first.post(f"/api/tables/{table['id']}/undo", headers={"X-Referee-Pin": table["pin"]})
    before = first.get(f"/api/tables/{table['id']}").get_json()
    first.application.extensions["registry"].close()

    second = make_app(tmp_path).test_client()
    assert second.get(f"/api/tables/{table['id']}").get_json() == before
    assert post_event(second, table, place(0, 2, "KD")).status_code == 200  # the PIN still works
    assert second.post(f"/api/tables/{table['id']}/redo", headers={"X-Referee-Pin": table["pin"]}).status_code == 422


# -- live stream ---------------------------------------------------------------------------------
def test_stream_starts_with_a_snapshot(client, table):
    post_event(client, table, place(0, 0, "AS"))
    events = read_stream(client, f"/api/tables/{table['id']}/stream")
    assert events[0]["event"] == "snapshot" and events[0]["id"] == 1
    assert events[0]["data"]["state"]["grid"][0][0] == "AS"
    assert len(events) == 1


def test_stream_resumes_after_last_event_id_without_loss_or_doubling(client, table):
    for index, card in enumerate(["AS", "2S", "3S", "4S"]):
        post_event(client, table, place(index // 3, index % 3, card))
        if index == 1:
            at_two = client.get(f"/api/tables/{table['id']}").get_json()
    client.post(f"/api/tables/{table['id']}/undo", headers={"X-Referee-Pin": table["pin"]})
    events = read_stream(client, f"/api/tables/{table['id']}/stream", headers={"Last-Event-ID": "2"})
    assert [e["id"] for e in events] == [3, 4, 5]
    assert [e["event"] for e in events] == ["change"] * 3
    assert [e["data"]["kind"] for e in events] == ["event", "event", "undo"]
    assert events[0]["data"]["event"] == place(0, 2, "3S")
    # Each change carries its revision and the patch it made; applied in order they give the table now.
    assert [e["data"]["rev"] for e in events] == [3, 4, 5] and all("state" not in e["data"] for e in events)
    state = at_two
    for event in events:
        state = apply(state, event["data"]["patch"])
    assert state == client.get(f"/api/tables/{table['id']}").get_json()
    assert state["grid"][1] == [None, None, None] and state["session"]["seq"] == 5
    # ?after= works the same for a first connection that already has a state.
    assert [e["id"] for e in read_stream(client, f"/api/tables/{table['id']}/stream?after=4")] == [5]
    # Up to date: nothing is sent again.
    assert read_stream(client, f"/api/tables/{table['id']}/stream", headers={"Last-Event-ID": "5"}) == []


def test_stream_from_an_unknown_future_id_starts_over_with_a_snapshot(client, table):
    post_event(client, table, place(0, 0, "AS"))
    events = read_stream(client, f"/api/tables/{table['id']}/stream", headers={"Last-Event-ID": "99"})
    assert [(e["event"], e["id"]) for e in events] == [("snapshot", 1)]


@pytest.mark.parametrize("bad", ["x", "-1", "1.5"])
def test_stream_rejects_bad_resume_points(client, table, bad):
    assert client.get(f"/api/tables/{table['id']}/stream", headers={"Last-Event-ID": bad}).status_code == 400


def test_stream_sends_keepalives_and_a_retry_hint(client, table):
    text = client.get(f"/api/tables/{table['id']}/stream?after=0").get_data(as_text=True)
    assert text.startswith("retry: 1000\n\n")
    assert ": keep-alive" in text


# -- QR code, pages ---------------------------------------------------------------------------------
def test_qr_code_is_an_svg(client, table):
    response = client.get(f"/api/tables/{table['id']}/qr.svg")
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    assert response.get_data(as_text=True).lstrip().startswith("<?xml") and "<path" in response.get_data(as_text=True)


def test_pages_render_and_ship_their_assets(tmp_path):
    client = make_app(tmp_path, LIST_TABLES=True).test_client()
    table = client.post("/api/tables", json={"game": "grid", "players": ["Ann"]}).get_json()
    home = client.get("/")
    assert home.status_code == 200 and table["id"] in home.get_data(as_text=True)
    page = client.get(f"/t/{table['id']}").get_data(as_text=True)
    assert f'data-table="{table["id"]}"' in page
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', page):
        assert client.get(asset).status_code == 200, asset
    assert "http://" not in page.replace("http://localhost", "") and "https://" not in page  # no CDN


def test_join_by_code(client, table):
    response = client.get(f"/join?code={table['id'].lower()}")
    assert response.status_code == 302 and response.headers["Location"].endswith(f"/t/{table['id']}")
    missing = client.get("/join?code=ZZZZZZ")
    assert missing.status_code == 404 and "no table" in missing.get_data(as_text=True)


# -- camera frames ---------------------------------------------------------------------------------


def test_frames_need_the_pin_and_must_be_images(client, table):
    url = f"/api/tables/{table['id']}/frames"
    pin = {"X-Referee-Pin": table["pin"]}
    assert client.post(url, data=jpeg(), content_type="image/jpeg").status_code == 403
    assert client.post(url, data=b"", content_type="image/jpeg", headers=pin).status_code == 400
    assert client.post(url, data=b"GIF89a not really", content_type="image/jpeg", headers=pin).status_code == 400
    assert client.get(f"/api/tables/{table['id']}/frame.jpg").status_code == 404
    accepted = client.post(url, data=jpeg(), content_type="image/jpeg", headers=pin)
    assert accepted.status_code == 202 and accepted.get_json()["width"] == 64
    latest = wait_for_frame(client, table)
    assert latest.status_code == 200 and latest.mimetype == "image/jpeg"
    decoded = cv2.imdecode(np.frombuffer(latest.data, np.uint8), cv2.IMREAD_COLOR)
    assert decoded.shape == (48, 64, 3) and decoded[24, 5, 2] > 200 and decoded[24, 60, 2] < 50


def wait_for_frame(client, table, timeout=10.0):
    """The camera feed shows a posted frame from its own thread: wait for it to appear."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        latest = client.get(f"/api/tables/{table['id']}/frame.jpg")
        if latest.status_code == 200:
            return latest
        time.sleep(0.02)
    return latest


def test_frames_over_the_limit_are_413(tmp_path):
    client = make_app(tmp_path, MAX_FRAME_BYTES=500).test_client()
    table = client.post("/api/tables", json={"game": "grid", "players": ["Ann"]}).get_json()
    big = jpeg(400, 300)
    assert len(big) > 500
    response = client.post(f"/api/tables/{table['id']}/frames", data=big, content_type="image/jpeg", headers={"X-Referee-Pin": table["pin"]})
    assert response.status_code == 413


def test_mjpeg_stream_sends_the_latest_frame(client, table):
    client.post(f"/api/tables/{table['id']}/frames", data=jpeg(), content_type="image/jpeg", headers={"X-Referee-Pin": table["pin"]})
    wait_for_frame(client, table)
    response = client.get(f"/api/tables/{table['id']}/camera.mjpeg")
    assert response.mimetype == "multipart/x-mixed-replace"
    body = response.get_data()
    assert body.startswith(b"--frame\r\nContent-Type: image/jpeg") and b"\xff\xd8" in body


def test_openapi_documents_every_api_route(app):
    yaml = pytest.importorskip("yaml")
    with open(pathlib.Path(__file__).parent.parent / "web_ui" / "openapi.yaml") as handle:
        spec = yaml.safe_load(handle)
    documented = {(path, method.upper()) for path, item in spec["paths"].items() for method in item if method != "parameters"}
    served = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/"):
            path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
            served |= {(path, method) for method in rule.methods - {"HEAD", "OPTIONS"}}
    assert documented == served


def test_the_test_config_keeps_its_tables_in_a_temporary_directory():
    app = create_app(TestConfig)
    assert app.testing and pathlib.Path(app.config["DATA_DIR"]).is_dir()
    assert "companion-tables-" in app.config["DATA_DIR"]
    created = app.test_client().post("/api/tables", json={"game": "kingdoms", "players": ["Ann", "Bo"]})
    assert created.status_code == 201


def test_a_testing_app_ends_its_streams_quickly(tmp_path):
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "ENGINES": lambda name: GridEngine(), "GAMES": ("grid",)})
    client = app.test_client()
    table = client.post("/api/tables", json={"game": "grid", "players": ["Ann"]}).get_json()
    started = time.monotonic()
    events = read_stream(client, f"/api/tables/{table['id']}/stream")
    assert [e["event"] for e in events] == ["snapshot"] and time.monotonic() - started < 30
