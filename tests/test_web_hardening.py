"""Strangers and bad input: every malformed request is a 4xx with a message (never a 500), changes
nothing, and a page of another site cannot change a table; the security headers are on every answer."""
from __future__ import annotations

import json

import pytest

from helpers.grid_engine import place
from helpers.web import make_app, post_event

DEEP = "[" * 1000 + "]" * 1000  # 2 KB that once answered 500 on table creation, events and camera


@pytest.fixture
def client(tmp_path):
    return make_app(tmp_path).test_client()


@pytest.fixture
def table(client):
    return client.post("/api/tables", json={"game": "grid", "players": ["Ann", "Bo"]}).get_json()


def test_deeply_nested_json_is_400_everywhere(client, table):
    pin = {"X-Referee-Pin": table["pin"]}
    bodies = [DEEP, '{"game": "grid", "players": ' + DEEP + "}", '{"type": "place", "cell": ' + DEEP + "}",
              "[" * 60_000, '{"a":' * 50 + "1" + "}" * 50]
    for body in bodies:
        for path, headers in (("/api/tables", {}), (f"/api/tables/{table['id']}/events", pin),
                              (f"/api/tables/{table['id']}/camera", pin)):
            response = client.post(path, data=body, content_type="application/json", headers=headers)
            assert response.status_code == 400, (path, body[:20], response.get_data(as_text=True)[:200])
            assert response.get_json()["error"]
    assert client.get(f"/api/tables/{table['id']}").get_json()["session"]["seq"] == 0


@pytest.mark.parametrize("body, fragment", [
    ({"game": "grid", "players": ["x" * 60_000]}, "at most"),
    ({"game": "grid", "players": [{"name": "N" * 41}]}, "at most 40"),
    ({"game": "grid", "players": ["Ann"], "options": {"k" * 300: 1}}, "at most 200"),
])
def test_long_texts_are_refused(tmp_path, body, fragment):
    client = make_app(tmp_path, MAX_JSON_BYTES=100_000).test_client()
    response = client.post("/api/tables", json=body)
    assert response.status_code in (400, 413) and fragment in response.get_json()["error"]
    assert client.get("/api/tables").get_json()["count"] == 0


def test_an_event_of_the_wrong_shape_is_400_not_500(client, table):
    for event in ({"type": "place", "cell": 5, "card": "AS"}, {"type": "place", "cell": [0], "card": "AS"},
                  {"type": "place", "cell": [0, 0], "card": ["AS"]}, {"type": "place"}):
        response = post_event(client, table, event)
        assert 400 <= response.status_code < 500, (event, response.get_data(as_text=True))
    assert client.get(f"/api/tables/{table['id']}").get_json()["session"]["seq"] == 0


def test_wrong_methods_are_405_with_allow(client, table):
    response = client.put(f"/api/tables/{table['id']}/events", json={})
    assert response.status_code == 405
    assert "POST" in response.headers["Allow"] and response.get_json()["error"]
    assert "GET" in client.patch(f"/api/tables/{table['id']}").headers["Allow"]


def test_security_headers_on_pages_and_api(client, table):
    for path in ("/", f"/t/{table['id']}", f"/api/tables/{table['id']}", "/api/tables/NOPE22"):
        headers = client.get(path).headers
        assert "default-src 'self'" in headers["Content-Security-Policy"] and "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert headers["X-Content-Type-Options"] == "nosniff" and headers["X-Frame-Options"] == "DENY"


def test_an_unknown_host_name_is_refused(client):
    # A page on another name that resolves to this server (DNS rebinding) reaches no table.
    response = client.get("/api/games", headers={"Host": "evil.example:8000"})
    assert response.status_code == 400
    assert client.get("/api/games", headers={"Host": "127.0.0.1:8000"}).status_code == 200


def test_a_page_of_another_site_cannot_change_a_table(client, table):
    # A form or fetch on another site posts text/plain without preflight; the browser names its origin.
    setup = json.dumps({"game": "grid", "players": ["Ann"]})
    for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"},
                    {"Origin": "https://localhost"}):
        response = client.post("/api/tables", data=setup, content_type="text/plain", headers=headers)
        assert response.status_code == 403 and response.get_json()["error"]
        refused = client.post(
            f"/api/tables/{table['id']}/events", data=json.dumps(place(0, 0, "AS")), content_type="text/plain",
            headers={**headers, "X-Referee-Pin": table["pin"]})
        assert refused.status_code == 403
    assert client.get("/api/tables").get_json()["count"] == 1
    # The table's own page (same origin) and curl (no Origin) may.
    same = client.post("/api/tables", data=setup, headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"})
    assert same.status_code == 201
    assert client.post("/api/tables", data=setup).status_code == 201


def test_the_table_list_shows_no_join_codes_unless_asked(tmp_path):
    client = make_app(tmp_path).test_client()
    created = client.post("/api/tables", json={"game": "grid", "players": ["Ann"]}).get_json()
    listing = client.get("/api/tables").get_json()
    assert listing["count"] == 1 and listing["tables"] == [] and created["id"] not in json.dumps(listing)
    assert created["id"] not in client.get("/").get_data(as_text=True)
    listed = make_app(tmp_path / "x", LIST_TABLES=True).test_client()
    other = listed.post("/api/tables", json={"game": "grid", "players": ["Ann"]}).get_json()
    assert [t["id"] for t in listed.get("/api/tables").get_json()["tables"]] == [other["id"]]
