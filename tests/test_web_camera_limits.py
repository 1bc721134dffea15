"""Camera frames: bounded in bytes, in pixels (read from the header, before decoding), and in rate per
table; a phone feed that stops sending is stopped; one detector for the whole server."""
from __future__ import annotations

import io
import time

import cv2
import PIL.Image

from helpers.web import jpeg, make_app


def huge_png(width=12000, height=12000):
    """A 12000×12000 PNG of a few KB: decoding it would take 800 MB (an issue-15 finding)."""
    image = PIL.Image.new("1", (width, height))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def new_table(client):
    return client.post("/api/tables", json={"game": "grid", "players": ["Ann"]}).get_json()


def post_frame(client, table, data):
    return client.post(f"/api/tables/{table['id']}/frames", data=data, content_type="image/png",
                       headers={"X-Referee-Pin": table["pin"]})


def test_a_frame_with_too_many_pixels_is_refused_before_decoding(tmp_path, monkeypatch):
    client = make_app(tmp_path).test_client()
    table = new_table(client)
    decoded = []
    monkeypatch.setattr(cv2, "imdecode", lambda *a: decoded.append(a) or None)
    data = huge_png()
    assert len(data) < 100_000
    response = post_frame(client, table, data)
    assert response.status_code == 413 and "12000×12000" in response.get_json()["error"]
    assert decoded == []  # refused from the header: never decoded
    assert post_frame(client, table, b"\x89PNG\r\n\x1a\n broken").status_code == 400


def test_frames_are_rate_limited_per_table(tmp_path):
    client = make_app(tmp_path, MAX_FRAMES_PER_SECOND=2.0).test_client()
    first, second = new_table(client), new_table(client)
    assert post_frame(client, first, jpeg()).status_code == 202
    too_soon = post_frame(client, first, jpeg())
    assert too_soon.status_code == 429 and "too fast" in too_soon.get_json()["error"]
    assert post_frame(client, second, jpeg()).status_code == 202  # another table has its own allowance
    time.sleep(0.55)
    assert post_frame(client, first, jpeg()).status_code == 202


def test_an_idle_phone_feed_is_stopped_and_restarts_with_the_next_frame(tmp_path):
    app = make_app(tmp_path, CAMERA_IDLE_SECONDS=0.3)
    client, hub = app.test_client(), app.extensions["camera"]
    table = new_table(client)
    assert post_frame(client, table, jpeg()).status_code == 202
    feed = hub.feeds[table["id"]]
    assert feed.running
    deadline = time.monotonic() + 5
    while table["id"] in hub.feeds and time.monotonic() < deadline:
        time.sleep(0.05)
    assert table["id"] not in hub.feeds and not feed.running and not feed._thread.is_alive()
    assert post_frame(client, table, jpeg()).status_code == 202
    assert hub.feeds[table["id"]].running
    hub.close()


def test_every_feed_shares_one_detector(tmp_path):
    loads = []

    def loader():
        loads.append(1)
        return lambda frame: []

    app = make_app(tmp_path, CAMERA_DETECTOR_LOADER=loader, CAMERA_PIPELINE_FACTORY=lambda table, detect: None)
    client = app.test_client()
    for _ in range(3):
        post_frame(client, new_table(client), jpeg())
    hub = app.extensions["camera"]
    deadline = time.monotonic() + 5
    while not all(feed.reading for feed in hub.feeds.values()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(hub.feeds) == 3 and all(feed.reading for feed in hub.feeds.values())
    assert loads == [1]
    hub.close()
