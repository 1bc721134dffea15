"""A table's camera feed has one owner at a time when several servers share the tables (a lease in the
database, web_ui/camera.py): posted detections reach the server holding it; another server answers 503
with Retry-After meanwhile; when the owner dies (stops renewing, gives nothing back) the other takes the
feed over at the first post after the lease ran out, with every change the first server acknowledged
still in the journal. The readings are the Chosen demo's, read
once by the shipped detector (tests/test_web_detections.py)."""
from __future__ import annotations

import copy
import time

import pytest

from companion.table.demos import demo_truth
from test_web_detections import GAME, body_of, post, recorded  # noqa: F401 - recorded is a fixture
from web_ui import create_app


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
    # Not asserted: that the game then reaches the recording's truth. It does not yet: the new owner's
    # pipeline starts without the old one's tracker, and a card on the mat at the takeover (the Black
    # Joker in step 2) is never seen leaving it (docs/web.md, *Several servers*, what is not done).
    assert second.get(f"/api/tables/{table['id']}/camera").get_json()["feed"]["feed"] == "test-reader"
    for app in (one, two):
        app.extensions["camera"].close()
        app.extensions["registry"].close()
