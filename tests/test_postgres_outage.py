"""The database lost mid-evening (its own throw-away cluster, stopped and started again): every change
answers 503 with Retry-After and writes nothing, the tables stay readable, and the server recovers by
itself when the database is back; and an unreachable database at start is a clear message and exit 69."""
from __future__ import annotations

import subprocess
import sys
import time

import yaml

from helpers.grid_engine import place
from helpers.postgres import cluster
from helpers.web import make_app, post_event

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def test_a_database_lost_mid_evening_answers_503_writes_nothing_and_recovers(tmp_path):
    with cluster() as own:
        url = own.new_database()
        app = make_app(tmp_path, DATABASE=url, DATABASE_RETRY_SECONDS=3)
        client = app.test_client()
        table = client.post("/api/tables", json={"game": "grid", "players": ["Ann"]}).get_json()
        assert post_event(client, table, place(0, 0, "AS")).status_code == 200
        own.stop()
        try:
            lost = post_event(client, table, place(1, 1, "2S"))
            assert lost.status_code == 503 and lost.headers["Retry-After"] == "3"
            assert "cannot be reached" in lost.get_json()["error"]
            undo = client.post(f"/api/tables/{table['id']}/undo", headers={"X-Referee-Pin": table["pin"]})
            assert undo.status_code == 503
            assert client.post("/api/tables", json={"game": "grid", "players": ["Bo"]}).status_code == 503
            # each 503 as web_ui/openapi.yaml documents it: that operation's 503, Retry-After, an error body
            spec = yaml.safe_load((ROOT / "web_ui" / "openapi.yaml").read_text())
            referee = {"X-Referee-Pin": table["pin"]}
            for method, template, answer in (
                    ("post", "/api/tables/{table_id}/events", lost), ("post", "/api/tables/{table_id}/undo", undo),
                    ("post", "/api/tables/{table_id}/redo", client.post(f"/api/tables/{table['id']}/redo", headers=referee)),
                    ("post", "/api/tables/{table_id}/deck", client.post(f"/api/tables/{table['id']}/deck", json={"deck": None},
                                                                        headers=referee)),
                    ("get", "/api/tables/{table_id}/journal", client.get(f"/api/tables/{table['id']}/journal")),
                    ("get", "/api/tables/{table_id}", client.get("/api/tables/ZZZZZZ")),   # another server's? asked of the database
                    ("get", "/api/tables", client.get("/api/tables"))):
                assert answer.status_code == 503, (template, answer.status_code, answer.get_json())
                assert int(answer.headers["Retry-After"]) >= 1 and set(answer.get_json()) == {"error"}
                documented = spec["paths"][template][method]["responses"]["503"]["$ref"].rsplit("/", 1)[1]
                assert "Retry-After" in spec["components"]["responses"][documented]["headers"]
            # what the phones see stays as it was: the change that failed is nowhere
            view = client.get(f"/api/tables/{table['id']}").get_json()
            assert view["session"]["seq"] == 1 and view["filled"] == 1
        finally:
            own.start()
        deadline, answer = time.monotonic() + 30, None
        while time.monotonic() < deadline:
            answer = post_event(client, table, place(1, 1, "2S"))
            if answer.status_code != 503:
                break
            time.sleep(0.2)
        assert answer.status_code == 200 and answer.get_json()["revision"] == 2
        journal = client.get(f"/api/tables/{table['id']}/journal").get_json()["journal"]
        assert [(e["seq"], e["kind"]) for e in journal] == [(1, "event"), (2, "event")]
        app.extensions["registry"].close()


def test_an_unreachable_database_at_start_is_a_clear_message_and_exit_69(tmp_path):
    result = subprocess.run([sys.executable, "-m", "companion", "serve", "--port", "1", "--data", str(tmp_path),
                             "--database", "postgresql://nobody:secret@127.0.0.1:1/tables"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 69
    assert "cannot be reached" in result.stderr and "Start PostgreSQL" in result.stderr
    assert "secret" not in result.stderr and "nobody:***@127.0.0.1" in result.stderr


def test_the_database_may_be_named_in_the_environment(tmp_path):
    env = {"COMPANION_DATABASE": "postgresql://nobody@127.0.0.1:1/tables", "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-m", "companion", "serve", "--port", "1", "--data", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 69 and "127.0.0.1" in result.stderr
