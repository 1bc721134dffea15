"""``companion serve --workers 2`` (a venue's server on both cores): two worker processes on one port and one
PostgreSQL database. The kernel gives each client address's connections to one worker (web_ui.server's
reuseport program), so a table computer that opens a new connection for every post keeps reaching the worker
that holds its feed's lease (with the kernel's usual hash, half its posts would reach the other, which
answers 503); a phone on the other worker sees the table's changes; Ctrl-C stops every worker; and it
refuses to start without a database."""
from __future__ import annotations

import http.client
import importlib.util
import json
import os
import pathlib
import signal
import subprocess
import sys

from companion.table.readings import readings_json
from companion.vision.models import models_fingerprint
from helpers.web import KINGDOMS, StreamReader, request

ROOT = pathlib.Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("load_web", ROOT / "benchmarks" / "load_web.py")
load_web = importlib.util.module_from_spec(spec)
spec.loader.exec_module(load_web)

READER = {"kind": "table-computer", "backend": "onnxruntime", "ms": 40.0, "models": models_fingerprint(), "deck": None}
# Two client addresses the workers' program gives to different workers (their last bits differ).
FIRST_MACHINE, SECOND_MACHINE = "127.0.0.2", "127.0.0.3"


def post_from(source: str, port: int, table: dict, seq: int) -> int:
    """One post of (empty) readings on a connection of its own, from ``source``, as a reader that reconnects."""
    body = json.dumps(readings_json([], [], (720, 960), 0.2 * seq, seq, READER, feed=f"reader-{source}"))
    connection = http.client.HTTPConnection(load_web.HOST, port, timeout=10, source_address=(source, 0))
    try:
        connection.request("POST", f"/api/tables/{table['id']}/detections", body=body,
                           headers={"Content-Type": "application/json", "X-Referee-Token": table["referee_token"],
                                    "Connection": "close"})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_two_workers_keep_each_reader_on_its_worker_share_the_tables_and_stop_together(tmp_path, postgres_url):
    server = load_web.Server(tmp_path / "data", None, postgres_url, workers=2).start()
    try:
        base = f"http://{load_web.HOST}:{server.port}"
        assert len(server.pids()) == 3   # the command and its two workers
        _, first = request(base, "POST", "/api/tables", KINGDOMS)
        _, second = request(base, "POST", "/api/tables", KINGDOMS)
        # each table's reader, on its own machine, opens a new connection for each of 8 posts (its rate: at most 10 a second): none refused
        for seq in range(8):
            assert post_from(FIRST_MACHINE, server.port, first, seq) == 200
            assert post_from(SECOND_MACHINE, server.port, second, seq) == 200
        # a phone (whichever worker it reached) sees a change made through the other address
        watcher = StreamReader(base, f"/api/tables/{first['id']}/stream")
        watcher.wait_for(1)
        body = json.dumps({"type": "place", "cell": [6, 6], "card": "10H"})
        connection = http.client.HTTPConnection(load_web.HOST, server.port, timeout=10, source_address=(SECOND_MACHINE, 0))
        connection.request("POST", f"/api/tables/{first['id']}/events", body=body,
                           headers={"Content-Type": "application/json", "X-Referee-Token": first["referee_token"]})
        assert connection.getresponse().status == 200
        connection.close()
        assert [event["id"] for event in watcher.wait_for(2)][-1] == 1
        watcher.close()
        workers = server.pids()[1:]
    finally:
        server.process.send_signal(signal.SIGINT)
        code = server.process.wait(30)
    assert code == 0
    for pid in workers:   # none left running
        assert not pathlib.Path(f"/proc/{pid}").exists() or "zombie" in pathlib.Path(f"/proc/{pid}/status").read_text()


def test_workers_started_with_interrupts_ignored_still_stop_on_sigint(tmp_path, postgres_url):
    # a shell script's `companion serve --workers 2 &` starts it with SIGINT ignored: Python then raises no
    # KeyboardInterrupt, and the command (and its workers) went on serving after a SIGINT until killed
    server = load_web.Server(tmp_path / "data", None, postgres_url, workers=2).start(interrupt_ignored=True)
    workers = server.pids()[1:]
    try:
        assert len(workers) == 2
        server.process.send_signal(signal.SIGINT)
        assert server.process.wait(30) == 0
        for pid in workers:   # none left running
            assert not pathlib.Path(f"/proc/{pid}").exists() or "zombie" in pathlib.Path(f"/proc/{pid}/status").read_text()
    finally:
        for pid in [*workers, server.process.pid]:
            if pathlib.Path(f"/proc/{pid}").exists():
                os.kill(pid, signal.SIGKILL)
        server.process.wait(10)


def test_workers_without_a_database_are_refused_with_the_reason(tmp_path):
    result = subprocess.run([sys.executable, "-m", "companion", "serve", "--workers", "2", "--data", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=60,
                            env={**os.environ, "COMPANION_DATABASE": "", "PYTHONPATH": str(ROOT)})
    assert result.returncode == 2 and "--workers needs --database" in result.stderr
