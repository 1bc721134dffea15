"""A table's camera feed has one owner at a time when several servers share the tables (a lease in the
database, web_ui/camera.py): posted detections reach the server holding it; another server answers 503
with Retry-After meanwhile; when the owner dies (stops renewing, gives nothing back) the other takes the
feed over at the first post after the lease ran out, with every change the first server acknowledged
still in the journal, and goes on from what the table had settled (the owner's pipeline, kept in the
database after each post that changed it): the game reaches the recording's truth, each camera event
once. The readings are the Chosen demo's, read once by the shipped detector (tests/test_web_detections.py)."""
from __future__ import annotations

import copy
import importlib.util
import pathlib
import time

import pytest

from companion.synthetic.recording import replay_truth
from companion.table.demos import demo_truth
from helpers.web import request
from test_web_detections import GAME, body_of, comparable, post, recorded  # noqa: F401 - recorded is a fixture
from web_ui import create_app

ROOT = pathlib.Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("load_web", ROOT / "benchmarks" / "load_web.py")
load_web = importlib.util.module_from_spec(spec)
spec.loader.exec_module(load_web)


def server(tmp_path, name, url):
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path / name), "DATABASE": url, "CAMERA_DETECTION": False,
                       "MAX_DETECTIONS_PER_SECOND": 1000.0, "DETECTIONS_BURST": 1000, "FEED_LEASE_SECONDS": 2.0})


@pytest.mark.slow
def test_the_feed_has_one_owner_and_another_server_takes_it_over_when_the_owner_dies(tmp_path, postgres_url, recorded):  # noqa: F811
    one, two = server(tmp_path, "one", postgres_url), server(tmp_path, "two", postgres_url)
    first, second = one.test_client(), two.test_client()
    table = first.post("/api/tables", json={"game": GAME, **demo_truth(GAME)["setup"]}).get_json()
    half, want = len(recorded) // 2, True
    for seq, entry in enumerate(recorded[:half]):
        answer = post(first, table, body_of(entry, seq, still=want))
        assert answer.status_code == 200, answer.get_json()
        want = answer.get_json()["want_frame"]
    refused = post(second, table, body_of(recorded[half], half, still=True))
    assert refused.status_code == 503 and int(refused.headers["Retry-After"]) >= 1
    assert "another server" in refused.get_json()["error"]
    acknowledged = first.get(f"/api/tables/{table['id']}/journal").get_json()["journal"]
    assert any(entry["source"] == "camera" for entry in acknowledged)

    one.extensions["camera"]._closed.set()   # the first server dies: it renews nothing and gives nothing back
    deadline, want = time.monotonic() + 15, True
    for seq, entry in enumerate(recorded[half:], start=half):
        while True:
            answer = post(second, table, body_of(entry, seq, still=want))
            if answer.status_code != 503 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert answer.status_code == 200, answer.get_json()
        want = answer.get_json()["want_frame"]
    last = body_of(recorded[-1], 0)
    for k in range(1, 14):   # the last frame held, as a table computer keeps posting
        held = copy.deepcopy(last)
        held["frame"].update(seq=len(recorded) + k, time=last["frame"]["time"] + 0.2 * k)
        assert post(second, table, held).status_code == 200
    journal = second.get(f"/api/tables/{table['id']}/journal").get_json()["journal"]
    assert journal[:len(acknowledged)] == acknowledged               # nothing the first server acknowledged is lost
    assert any(entry["source"] == "camera" for entry in journal[len(acknowledged):])   # the second one reads on
    # ... from what the first had settled: the Black Joker lying in step 2 at the takeover is seen leaving it
    assert comparable(second.get(f"/api/tables/{table['id']}").get_json()) == comparable(replay_truth(demo_truth(GAME)))
    assert sum(entry["source"] == "camera" for entry in journal) == len(demo_truth(GAME)["events"])
    assert second.get(f"/api/tables/{table['id']}/camera").get_json()["feed"]["feed"] == "test-reader"
    for app in (one, two):
        app.extensions["camera"].close()
        app.extensions["registry"].close()


def _post_paced(base, table, body, deadline):
    """One post of readings at a real server, at most 8 a second (its limit is 10), waiting out a 503
    (another server's lease still running) or a 429 as a table computer does."""
    path = f"/api/tables/{table['id']}/detections"
    while True:
        time.sleep(0.125)
        status, answer = request(base, "POST", path, body, {"X-Referee-Token": table["referee_token"]})
        if status not in (429, 503) or time.monotonic() > deadline:
            return status, answer
        time.sleep(0.5)


@pytest.mark.slow
def test_a_feed_taken_over_from_a_killed_server_goes_on_from_what_the_table_had_settled(tmp_path, postgres_url, recorded):  # noqa: F811
    """Two real ``companion serve`` processes; the feed's owner is killed (-9) half-way through the Chosen
    demo, with the Black Joker lying in step 2; the reader posts on to the other server. Without what the
    owner had settled the new pipeline took that joker for a card it had never seen arrive, and never saw
    it leave (the game stopped short of the truth)."""
    servers = [load_web.Server(tmp_path / name, None, postgres_url).start() for name in ("one", "two")]
    one, two = (f"http://{load_web.HOST}:{server.port}" for server in servers)
    try:
        status, table = request(one, "POST", "/api/tables", {"game": GAME, **demo_truth(GAME)["setup"]})
        assert status == 201, table
        half, want, deadline = len(recorded) // 2, True, time.monotonic() + 120
        for seq, entry in enumerate(recorded[:half]):
            status, answer = _post_paced(one, table, body_of(entry, seq, still=want), deadline)
            assert status == 200, answer
            want = answer["want_frame"]
        _, acknowledged = request(one, "GET", f"/api/tables/{table['id']}/journal")
        _, before = request(one, "GET", f"/api/tables/{table['id']}")
        assert "BJ" in str(before)   # the joker is on the table as the owner dies
        servers[0].kill()
        want = True
        for seq, entry in enumerate(recorded[half:], start=half):
            status, answer = _post_paced(two, table, body_of(entry, seq, still=want), deadline)
            assert status == 200, answer
            want = answer["want_frame"]
        last = body_of(recorded[-1], 0)
        for k in range(1, 14):   # the last frame held, as a table computer keeps posting
            held = copy.deepcopy(last)
            held["frame"].update(seq=len(recorded) + k, time=last["frame"]["time"] + 0.2 * k)
            assert _post_paced(two, table, held, deadline)[0] == 200
        _, journal = request(two, "GET", f"/api/tables/{table['id']}/journal")
        assert journal["journal"][:len(acknowledged["journal"])] == acknowledged["journal"]   # nothing acknowledged lost
        _, state = request(two, "GET", f"/api/tables/{table['id']}")
        assert comparable(state) == comparable(replay_truth(demo_truth(GAME)))
        camera = [entry for entry in journal["journal"] if entry["source"] == "camera"]
        assert len(camera) == len(demo_truth(GAME)["events"])   # each camera event once: nothing seen arriving twice
    finally:
        for server in servers:
            server.stop()
