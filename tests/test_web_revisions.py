"""Conflicts and retries: expected revisions (stale: 409), idempotency keys (a retry applies once, across
a restart too), Undo naming what it undoes; referee access by token, PIN lockout per table."""
from __future__ import annotations

import pytest

from helpers.grid_engine import place
from helpers.web import make_app, post_event


@pytest.fixture
def client(tmp_path):
    return make_app(tmp_path, PIN_ATTEMPTS=5).test_client()


@pytest.fixture
def table(client):
    return client.post("/api/tables", json={"game": "grid", "players": ["Ann", "Bo"]}).get_json()


def referee(table, **extra):
    return {"X-Referee-Pin": table["pin"], **extra}


def state(client, table):
    return client.get(f"/api/tables/{table['id']}").get_json()


def test_every_change_carries_its_revision_and_a_stale_one_is_409(client, table):
    first = post_event(client, table, place(0, 0, "AS"))
    assert first.get_json()["entry"]["seq"] == 1 and first.get_json()["revision"] == 1
    url = f"/api/tables/{table['id']}/events"
    stale = client.post(url, json=place(0, 1, "2S"), headers=referee(table, **{"X-Expected-Revision": "0"}))
    assert stale.status_code == 409 and "revision 1" in stale.get_json()["error"]
    assert state(client, table)["session"]["seq"] == 1
    fresh = client.post(url, json=place(0, 1, "2S"), headers=referee(table, **{"X-Expected-Revision": "1"}))
    assert fresh.status_code == 200 and fresh.get_json()["revision"] == 2
    for bad in ("x", "-1", "1.5", "9" * 20):
        assert client.post(url, json=place(2, 2, "3S"), headers=referee(table, **{"X-Expected-Revision": bad})).status_code == 400


def test_a_retried_request_applies_once_even_after_a_restart(tmp_path, database):
    client = make_app(tmp_path, DATABASE=database).test_client()
    table = client.post("/api/tables", json={"game": "grid", "players": ["Ann"]}).get_json()
    url = f"/api/tables/{table['id']}/events"
    headers = referee(table, **{"Idempotency-Key": "tap-7f3a"})
    first = client.post(url, json=place(0, 0, "AS"), headers=headers)
    again = client.post(url, json=place(0, 0, "AS"), headers=headers)  # the phone never saw the first answer
    assert first.status_code == again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first.headers
    assert again.get_json()["entry"] == first.get_json()["entry"]
    client.application.extensions["registry"].close()

    restarted = make_app(tmp_path, DATABASE=database).test_client()
    later = restarted.post(url, json=place(0, 0, "AS"), headers=headers)
    assert later.status_code == 200 and later.get_json()["entry"]["seq"] == 1
    assert len(restarted.get(f"/api/tables/{table['id']}/journal").get_json()["journal"]) == 1
    # The same key for another change is a client bug: refused, nothing applied.
    reused = restarted.post(url, json=place(1, 1, "2S"), headers=headers)
    assert reused.status_code == 422 and "Idempotency-Key" in reused.get_json()["error"]
    undo_reused = restarted.post(f"/api/tables/{table['id']}/undo", headers=headers)
    assert undo_reused.status_code == 422
    assert restarted.post(url, json=place(1, 1, "2S"), headers=referee(table, **{"Idempotency-Key": "bad key!"})).status_code == 400


def test_two_referees_pressing_undo_together_undo_one_event(client, table):
    post_event(client, table, place(0, 0, "AS"))
    post_event(client, table, place(0, 1, "2S"))
    seen = state(client, table)["session"]["undo_seq"]
    assert seen == 2
    url = f"/api/tables/{table['id']}/undo"
    assert client.post(url, json={"undoes": seen}, headers=referee(table)).status_code == 200
    second = client.post(url, json={"undoes": seen}, headers=referee(table))
    assert second.status_code == 409 and "no longer the last" in second.get_json()["error"]
    assert state(client, table)["grid"][0] == ["AS", None, None]
    # A redo makes the event active again under the redo's number.
    redone = client.post(f"/api/tables/{table['id']}/redo", headers=referee(table)).get_json()
    assert state(client, table)["session"]["undo_seq"] == redone["entry"]["seq"] == 4
    assert client.post(url, json={"undoes": "2"}, headers=referee(table)).status_code == 400
    assert client.post(url, data="", headers=referee(table)).status_code == 200  # curl -X POST, no body


def test_the_referee_token_changes_the_table_and_its_qr_code_carries_the_link(client, table):
    token = table["referee_token"]
    assert len(token) >= 40 and table["referee_url"].endswith(f"/t/{table['id']}#ref={token}")
    assert post_event(client, table, place(0, 0, "AS"), pin="").status_code == 403
    by_token = client.post(f"/api/tables/{table['id']}/events", json=place(0, 0, "AS"), headers={"X-Referee-Token": token})
    assert by_token.status_code == 200
    # The phone keeps the token where it kept the PIN (the camera sends that header).
    assert post_event(client, table, place(0, 1, "2S"), pin=token).status_code == 200
    assert client.post(f"/api/tables/{table['id']}/events", json=place(0, 2, "3S"),
                       headers={"X-Referee-Token": token[:-1] + "x"}).status_code == 403
    qr = client.get(table["referee_qr_url"])
    assert qr.status_code == 200 and qr.mimetype == "image/svg+xml"
    assert client.get(f"/api/tables/{table['id']}/qr.svg?referee=wrong").status_code == 403


def test_wrong_pins_lock_the_table_out_longer_each_time_but_not_the_token(tmp_path):
    client = make_app(tmp_path, PIN_ATTEMPTS=3, PIN_LOCKOUT_SECONDS=0.3).test_client()
    table = client.post("/api/tables", json={"game": "grid", "players": ["Ann"]}).get_json()
    lockout = client.application.extensions["pin_lockout"]
    wrong = "000000" if table["pin"] != "000000" else "111111"
    url = f"/api/tables/{table['id']}/pin"
    # From any address: the lockout is the table's, not the guesser's.
    codes = [client.post(url, headers={"X-Referee-Pin": wrong}, environ_base={"REMOTE_ADDR": f"10.0.0.{n}"}).status_code
             for n in range(4)]
    assert codes == [403, 403, 403, 429]
    assert client.post(url, headers={"X-Referee-Pin": table["pin"]}).status_code == 429
    assert client.post(url, headers={"X-Referee-Token": table["referee_token"]}).status_code == 200
    first_wait = lockout.wait(table["id"])
    assert 0 < first_wait <= 0.3
    lockout._until[table["id"]] = 0  # the first lockout is over
    assert client.post(url, headers={"X-Referee-Pin": wrong}).status_code == 403
    assert lockout.wait(table["id"]) > 0.3  # the fourth wrong PIN locks it twice as long
    lockout._until[table["id"]] = 0
    assert client.post(url, headers={"X-Referee-Pin": table["pin"]}).status_code == 200
    assert lockout.wait(table["id"]) == 0 and client.post(url, headers={"X-Referee-Pin": wrong}).status_code == 403
