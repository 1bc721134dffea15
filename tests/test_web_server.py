"""The real server (uvicorn, as ``companion serve`` runs it) under strangers and crowds: a watcher costs no
thread, half-sent requests and slow bodies time out without blocking anyone, oversized bodies are refused
before they are read, stream errors answer JSON, and a stream resuming from too far back gets a snapshot."""
from __future__ import annotations

import json
import socket
import threading
import time

import pytest

import companion.session.table as session_table
import web_ui.server as server_module
from helpers.web import KINGDOMS, StreamReader, request, running_server


def raw_connection(base):
    host, port = base.split("//")[1].split(":")
    return socket.create_connection((host, int(port)), timeout=5)


def read_all(connection):
    chunks = []
    while chunk := connection.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def test_a_hundred_watchers_hold_no_thread_and_the_referee_is_answered(tmp_path):
    with running_server(tmp_path, SSE_KEEPALIVE_SECONDS=5.0) as (base, _):
        _, table = request(base, "POST", "/api/tables", KINGDOMS)
        threads_before = threading.active_count()
        watchers = [StreamReader(base, f"/api/tables/{table['id']}/stream") for _ in range(100)]
        for watcher in watchers:
            watcher.wait_for(1)
        # The readers are this test's threads; the server added none for them (it had 64 in all before).
        assert threading.active_count() - threads_before <= 100 + 2
        status, changed = request(base, "POST", f"/api/tables/{table['id']}/events", {"type": "place", "cell": [6, 6], "card": "10H"},
                                  {"X-Referee-Token": table["referee_token"]})
        assert status == 200
        for watcher in watchers:
            assert [e["id"] for e in watcher.wait_for(2)] == [0, 1]
        assert all(w.state == changed["state"] for w in watchers)
        for watcher in watchers:
            watcher.close()


def test_half_sent_requests_are_closed_and_block_no_one(tmp_path, monkeypatch):
    monkeypatch.setattr(server_module, "REQUEST_HEAD_SECONDS", 0.3)
    with running_server(tmp_path) as (base, _):
        stalled = []
        for _ in range(150):
            connection = raw_connection(base)
            connection.sendall(b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-")  # never finished
            stalled.append(connection)
        assert request(base, "GET", "/api/games")[0] == 200  # a new phone is served meanwhile
        time.sleep(1.0)
        closed = 0
        for connection in stalled:
            try:
                closed += connection.recv(1) == b""
            except OSError:
                closed += 1
            connection.close()
        assert closed == len(stalled)


def test_a_slow_body_times_out_and_an_oversized_one_is_refused_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(server_module, "BODY_SECONDS", 0.3)
    with running_server(tmp_path) as (base, _):
        # the phone is told in its own language, and that sending again may work (a weak link dropped it)
        for language, expected in (("zh-CN,zh;q=0.9", "发送的内容 0.3 秒内没有送达（网络不好？）：请再发一次"),
                                   ("en", "what was sent did not arrive within 0.3 s (a weak connection?): send it again")):
            slow = raw_connection(base)
            slow.sendall(b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Language: " + language.encode()
                         + b"\r\nContent-Length: 100\r\n\r\n{\"game\"")
            answer = read_all(slow)
            assert answer.startswith(b"HTTP/1.1 408")
            assert json.loads(answer.split(b"\r\n\r\n", 1)[1]) == {"error": expected}
            slow.close()
        big = raw_connection(base)
        big.sendall(b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 999999999\r\n\r\n")
        answer = read_all(big)
        assert answer.startswith(b"HTTP/1.1 413") and b"at most" in answer
        big.close()


def test_stream_errors_answer_json_with_the_security_headers(tmp_path):
    with running_server(tmp_path) as (base, _):
        _, table = request(base, "POST", "/api/tables", KINGDOMS)
        for method in ("HEAD", "POST"):  # neither may hold one of the few request threads for a stream's life
            connection = raw_connection(base)
            connection.sendall(f"{method} /api/tables/{table['id']}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                               "Content-Length: 0\r\nConnection: close\r\n\r\n".encode())
            answer = read_all(connection)
            assert answer.startswith(b"HTTP/1.1 405") and b"allow: GET" in answer.lower().replace(b"allow: get", b"allow: GET")
            connection.close()
        assert request(base, "GET", "/api/tables/NOPE22/stream")[0] == 404
        status, body = request(base, "GET", f"/api/tables/{table['id']}/stream", headers={"Last-Event-ID": "x"})
        assert status == 400 and "change number" in body["error"]
        connection = raw_connection(base)
        connection.sendall(f"GET /api/tables/{table['id']}/stream HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n".encode())
        answer = read_all(connection)
        assert answer.startswith(b"HTTP/1.1 400") and b"content-security-policy" in answer.lower()
        connection.close()


def test_a_stream_resuming_from_further_back_than_the_kept_patches_gets_a_snapshot(tmp_path, monkeypatch):
    monkeypatch.setattr(session_table, "PATCH_HISTORY", 3)
    with running_server(tmp_path) as (base, _):
        _, table = request(base, "POST", "/api/tables", KINGDOMS)
        token = {"X-Referee-Token": table["referee_token"]}
        for column, card in enumerate(["10H", "5D", "KS", "4H", "9S"]):
            status, _ = request(base, "POST", f"/api/tables/{table['id']}/events", {"type": "place", "cell": [6, 6 + column], "card": card}, token)
            assert status == 200
        recent = StreamReader(base, f"/api/tables/{table['id']}/stream", {"Last-Event-ID": "3"})
        assert [(e["event"], e["id"]) for e in recent.wait_for(2)] == [("change", 4), ("change", 5)]
        old = StreamReader(base, f"/api/tables/{table['id']}/stream", {"Last-Event-ID": "1"})
        assert [(e["event"], e["id"]) for e in old.wait_for(1)] == [("snapshot", 5)]
        _, state = request(base, "GET", f"/api/tables/{table['id']}")
        assert old.state == state
        recent.close()
        old.close()


@pytest.mark.parametrize("scheme", ["https"])
def test_the_streams_work_over_https(tmp_path, scheme):
    import shutil
    import ssl
    import http.client

    if shutil.which("openssl") is None:
        pytest.skip("no openssl command to make a certificate")
    from companion.commands.serve import ensure_certificate
    from web_ui import create_app
    from web_ui.server import BackgroundServer

    cert, key = ensure_certificate(tmp_path / "tls", "127.0.0.1")
    app = create_app({"DATA_DIR": str(tmp_path), "SSE_KEEPALIVE_SECONDS": 0.2, "SSE_MAX_SECONDS": 1.0})
    with BackgroundServer(app, certfile=str(cert), keyfile=str(key)) as base:
        assert base.startswith("https://")
        context = ssl.create_default_context(cafile=str(cert))
        connection = http.client.HTTPSConnection(base.split("//")[1], timeout=5, context=context)
        connection.request("POST", "/api/tables", body='{"game": "chosen", "players": ["Ann", "Bo"]}')
        created = connection.getresponse()
        table_id = __import__("json").loads(created.read())["id"]
        connection.request("GET", f"/api/tables/{table_id}/stream")
        text = connection.getresponse().read().decode()
        assert "event: snapshot" in text and ": keep-alive" in text
        connection.close()


def test_sixty_four_camera_viewers_hanging_up_at_once_leave_the_server_answering(tmp_path):
    import struct

    with running_server(tmp_path) as (base, app):
        _, table = request(base, "POST", "/api/tables", KINGDOMS)
        viewers = []
        for _ in range(64):
            connection = raw_connection(base)
            connection.sendall(f"GET /api/tables/{table['id']}/camera.mjpeg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            viewers.append(connection)
        for connection in viewers:
            assert connection.recv(12).startswith(b"HTTP/1.1 200")
        for connection in viewers:  # hang up hard (RST), as phones dropping off the network at once
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            connection.close()
        # Answered (within the client's 10 s timeout): the hang-ups freeze nothing.
        assert request(base, "GET", "/api/games")[0] == 200
        assert request(base, "GET", f"/api/tables/{table['id']}")[0] == 200


def test_answers_small_and_larger_than_one_hand_over_arrive_whole_on_one_connection(tmp_path):
    """A Flask answer is handed to the loop in one piece up to WHOLE_ANSWER_BYTES and in chunks above it
    (a model file): both arrive byte for byte, one after the other on one keep-alive connection."""
    import hashlib
    import http.client
    import json

    assert server_module.WHOLE_ANSWER_BYTES < 3_000_000   # the int8 detector below is streamed in chunks
    with running_server(tmp_path, CAMERA_DETECTION=False) as (base, _):
        connection = http.client.HTTPConnection(base.split("//")[1], timeout=10)
        connection.request("GET", "/api/models")
        response = connection.getresponse()
        models = json.loads(response.read())
        assert response.status == 200
        large = models["detector"]["int8"]
        connection.request("GET", large["url"])
        response = connection.getresponse()
        data = response.read()
        assert response.status == 200 and len(data) == large["bytes"] > server_module.WHOLE_ANSWER_BYTES
        assert hashlib.sha256(data).hexdigest() == large["sha256"]
        connection.request("GET", "/api/games")   # the same connection goes on after a streamed answer
        response = connection.getresponse()
        assert response.status == 200 and "kingdoms" in response.read().decode()
        connection.close()


def test_posts_of_detections_waiting_their_turn_leave_the_referee_answered(tmp_path):
    """24 tables' posts of detections at once, each held in its pipeline until the test lets go: they wait in
    their own DETECTIONS_AT_ONCE threads, and the referee's request is answered meanwhile. (In one pool of 16
    threads, the 14 posts beyond their turns held the other threads asleep and the referee waited with them.)"""
    import json

    from companion.session.camera import default_pipeline
    from companion.table.readings import readings_json
    from companion.vision.models import models_fingerprint

    gate, inside = threading.Event(), threading.Semaphore(0)

    def held_pipeline(table, reader):
        pipeline = default_pipeline(table, reader)
        process_readings = pipeline.process_readings

        def held(*args, **kwargs):
            inside.release()
            gate.wait(30)
            return process_readings(*args, **kwargs)

        pipeline.process_readings = held
        return pipeline

    reader = {"kind": "table-computer", "backend": "onnxruntime", "ms": 40.0, "models": models_fingerprint(), "deck": None}
    body = json.loads(json.dumps(readings_json([], [], (720, 960), 0.0, 0, reader, feed="held")))
    with running_server(tmp_path, CAMERA_DETECTION=False, CAMERA_PIPELINE_FACTORY=held_pipeline, DETECTIONS_AT_ONCE=2) as (base, _):
        tables = [request(base, "POST", "/api/tables", KINGDOMS)[1] for _ in range(24)]
        answers: list[int] = []

        def send(table):
            answers.append(request(base, "POST", f"/api/tables/{table['id']}/detections", body,
                                   {"X-Referee-Token": table["referee_token"]})[0])

        senders = [threading.Thread(target=send, args=(table,)) for table in tables]
        try:
            for sender in senders:
                sender.start()
            assert inside.acquire(timeout=10) and inside.acquire(timeout=10)   # two posts in their pipelines
            time.sleep(0.5)   # the other 22 reach the server meanwhile (if one came after the referee, this could not fail)
            status, view = request(base, "GET", f"/api/tables/{tables[0]['id']}")
            assert status == 200 and view["game"] == "kingdoms"
            assert answers == []   # answered while every post still waited
        finally:
            gate.set()
        for sender in senders:
            sender.join(30)
        assert answers == [200] * 24
