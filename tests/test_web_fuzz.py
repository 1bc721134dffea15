"""Fuzzing the API from its description (schemathesis over ``web_ui/openapi.yaml``) and a battery of
hostile inputs: no request may cause a server error, and every answer must match the description, on
both stores (the SQLite journal and PostgreSQL in a throw-away cluster).

The suite runs a short pass (``COMPANION_FUZZ_EXAMPLES``, default 8 per operation); a longer one:
``COMPANION_FUZZ_EXAMPLES=300 python -m pytest tests/test_web_fuzz.py -q`` (figures in docs/web.md)."""
from __future__ import annotations

import json
import os
import pathlib
import random
import tempfile

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance, status_code_conformance
from schemathesis.checks import not_a_server_error

from companion.vision.models import models_fingerprint
from web_ui import create_app

SPEC = pathlib.Path(__file__).resolve().parents[1] / "web_ui" / "openapi.yaml"
EXAMPLES = int(os.environ.get("COMPANION_FUZZ_EXAMPLES", "8"))
MODELS = models_fingerprint()

# No server error, and every answer as described (status, content type, body). Not "negative data
# rejection": the API ignores query parameters it does not know, as HTTP servers do, and this test
# points generated requests at real tables after they were generated.
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


class Fuzzed:
    """The app on one store (the SQLite journal, or PostgreSQL), its test client and three real tables."""

    def __init__(self, database: str | None) -> None:
        self.app = create_app({"TESTING": True, "DATA_DIR": tempfile.mkdtemp(prefix="companion-fuzz-"), "DATABASE": database,
                               "SSE_MAX_SECONDS": 0.05, "SSE_KEEPALIVE_SECONDS": 0.02, "MAX_FRAMES_PER_SECOND": 1000.0,
                               "CAMERA_DETECTION": False, "MAX_DETECTIONS_PER_SECOND": 1000.0, "DETECTIONS_BURST": 1000})
        self.client = self.app.test_client()
        self.tables = [self.client.post("/api/tables", json=setup).get_json() for setup in (
            {"game": "kingdoms", "players": [{"name": "Ann", "suits": ["H", "D"]}, {"name": "Bo", "suits": ["S", "C"]}]},
            {"game": "dungeon", "players": ["Ann", "Bo", "Cy"], "seed": 3},
            {"game": "chosen", "players": ["Ann", "Bo"], "seed": 5},
        )]


# Both stores answer the same fuzzed requests the same way (the PostgreSQL one in the session's cluster).
@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def fuzzed(request):
    database = None if request.param == "sqlite" else request.getfixturevalue("postgres_cluster").new_database()
    made = Fuzzed(database)
    yield made
    made.app.extensions["registry"].close()


schema = schemathesis.openapi.from_path(SPEC)   # its app: the store's, set by each test before it calls


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_the_api_answers_every_generated_request_as_described(case, fuzzed):
    case.operation.app = fuzzed.app
    # Half the requests go to a real table with its referee token, so the engines see fuzzed events too.
    chooser = random.Random(repr(case.path_parameters) + repr(case.body)[:200])
    if case.path_parameters and "table_id" in case.path_parameters and chooser.random() < 0.5:
        table = chooser.choice(fuzzed.tables)
        case.path_parameters["table_id"] = table["id"]
        case.headers = {**(case.headers or {}), "X-Referee-Token": table["referee_token"]}
        case.headers.pop("X-Referee-Pin", None)
        # and posted detections name the server's own models, so they reach the parser and the pipeline
        if isinstance(case.body, dict) and isinstance(case.body.get("reader"), dict):
            case.body["reader"]["models"] = MODELS
    case.call_and_validate(checks=CHECKS)


# -- a battery of hostile requests -------------------------------------------------------------------
DEEP = "[" * 1000 + "]" * 1000
BODIES = [
    b"", b"null", b"[]", b"1", b'"text"', b"{", b"\xff\xfe\xfd", b"{\"a\": NaN}", b'{"a": 1e400}', b'{"type": 1e400}',
    DEEP.encode(), ('{"type": "place", "x": ' + DEEP + "}").encode(), b'{"type": "place", "type": "fly"}',
    json.dumps({"type": "x" * 70_000}).encode(), json.dumps({"type": "place", "cell": [10**30, -10**30], "card": "10H"}).encode(),
    json.dumps({"type": "place", "cell": ["a", None], "card": {"rank": 10}}).encode(),
    json.dumps({"type": "place", "cell": [6.5, True], "card": "10H"}).encode(),
    json.dumps({"game": "kingdoms", "players": [{"name": {"n": 1}, "suits": "HD"}]}).encode(),
    json.dumps({"game": "kingdoms", "players": [{"name": "A", "suits": [None, 5]}, 7]}).encode(),
    json.dumps({"game": "dungeon", "players": ["A", "B"], "seed": [1, 2], "options": []}).encode(),
    json.dumps({"game": "chosen", "players": "AnnBo", "options": {"x": {"y": {"z": [1]}}}}).encode(),
    json.dumps({"use": {"server": 1}}).encode(), json.dumps({"undoes": -1}).encode(), json.dumps({"undoes": 10**40}).encode(),
]
HEADERS = [
    {}, {"X-Referee-Pin": "x" * 5000}, {"X-Referee-Token": "\u00e9" * 10}, {"X-Expected-Revision": "99999999999999999999"},
    {"Idempotency-Key": "k" * 500}, {"Last-Event-ID": "-5"}, {"Content-Type": "text/plain"}, {"Content-Type": "multipart/form-data; boundary=x"},
]


@pytest.mark.parametrize("body", BODIES, ids=lambda b: b[:20].decode("latin1"))
def test_hostile_bodies_and_headers_never_cause_a_server_error(body, fuzzed):
    client, TABLES = fuzzed.client, fuzzed.tables
    table = TABLES[0]
    posts = ("events", "undo", "redo", "camera", "pin", "frames", "detections")
    paths = ["/api/tables", *(f"/api/tables/{t['id']}/{what}" for t in TABLES for what in posts)]
    for path in paths:
        for headers in HEADERS:
            sent = {**headers, "X-Referee-Token": table["referee_token"]} if "X-Referee" not in "".join(headers) else headers
            response = client.post(path, data=body, headers=sent)
            assert response.status_code < 500, (path, headers, body[:40], response.get_data(as_text=True)[:200])
            if response.status_code >= 400:
                assert isinstance(response.get_json(silent=True), dict) and response.get_json()["error"], path


def test_hostile_paths_and_methods_never_cause_a_server_error(fuzzed):
    client, table_id = fuzzed.client, fuzzed.tables[0]["id"]
    for path in ("/api/tables/" + "A" * 5000, "/api/tables/%00%00%00", f"/api/tables/{table_id}/stream?after=" + "9" * 500,
                 f"/api/tables/{table_id}/qr.svg?referee=" + "x" * 3000, "/api/../../etc/passwd", "/t/%ff%fe", "/join?code=%00"):
        for method in ("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"):
            response = client.open(path, method=method)
            assert response.status_code < 500, (method, path, response.status_code)
