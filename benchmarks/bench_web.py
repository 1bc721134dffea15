"""The phone referee: how long a referee's change takes to reach a watching phone, and API speed.

Runs the real app behind uvicorn on 127.0.0.1 (as ``companion serve`` does) with one SSE watcher.
"""
from __future__ import annotations

import http.client
import json
import statistics
import tempfile
import threading
import time

from web_ui import create_app
from web_ui.server import BackgroundServer

KINGDOMS = {"game": "kingdoms", "players": [{"name": "Ann", "suits": ["H", "D"]}, {"name": "Bo", "suits": ["S", "C"]}]}
# 30 legal cards for one Kingdoms grid (the rules page's worked example), placed on canvas rows 3-7, columns 3-8.
BOARD = [["AH", "10S", "10H", "2H", "6S", "BJ"], ["6H", "4H", "9S", "KS", "4D", "QH"], ["2S", "3S", "SJ", "3H", "5H", "10C"],
         ["4S", "5S", "2D", "SJ", "10D", "6D"], ["10H", "AD", "10S", "3D", "5D", "AS"]]


def _call(host, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection(host, timeout=10)
    connection.request(method, path, body=None if body is None else json.dumps(body),
                       headers={"Content-Type": "application/json", **(headers or {})})
    response = connection.getresponse()
    data = json.loads(response.read() or b"null")
    connection.close()
    return response.status, data


def run(quick: bool) -> list[dict]:
    rounds = 1 if quick else 4
    latencies, posts, gets = [], [], []
    with tempfile.TemporaryDirectory() as data:
        app = create_app({"DATA_DIR": data, "SSE_KEEPALIVE_SECONDS": 5.0, "SSE_MAX_SECONDS": 600.0})
        with BackgroundServer(app) as base:
            host = base.split("//")[1]
            for _ in range(rounds):
                _, table = _call(host, "POST", "/api/tables", {**KINGDOMS, "players": KINGDOMS["players"], "options": {"auto_score": False}})
                arrived: dict[int, float] = {}
                stream = http.client.HTTPConnection(host, timeout=30)
                stream.request("GET", f"/api/tables/{table['id']}/stream?after=0")
                response = stream.getresponse()

                def read():
                    for raw in response:
                        line = raw.decode()
                        if line.startswith("id: "):
                            arrived[int(line[4:])] = time.perf_counter()
                        if len(arrived) >= 30:
                            return

                reader = threading.Thread(target=read, daemon=True)
                reader.start()
                sent = {}
                for r, row in enumerate(BOARD):
                    for c, card in enumerate(row):
                        start = time.perf_counter()
                        status, body = _call(host, "POST", f"/api/tables/{table['id']}/events",
                                             {"type": "place", "cell": [r + 3, c + 3], "card": card}, {"X-Referee-Pin": table["pin"]})
                        posts.append(time.perf_counter() - start)
                        sent[body["entry"]["seq"]] = start
                        while body["entry"]["seq"] not in arrived and time.perf_counter() - start < 5:
                            time.sleep(0.0005)
                start = time.perf_counter()
                _call(host, "GET", f"/api/tables/{table['id']}")
                gets.append(time.perf_counter() - start)
                reader.join(5)
                stream.close()
                latencies += [arrived[seq] - sent[seq] for seq in sent if seq in arrived]
    note = f"{len(latencies)} changes, one SSE watcher, uvicorn on 127.0.0.1"
    return [
        {"name": "change reaches watching phone (POST sent → SSE event read)", "median": statistics.median(latencies) * 1000,
         "unit": "ms", "note": note},
        {"name": "POST event (Kingdoms place, SQLite commit, full state back)", "median": statistics.median(posts) * 1000,
         "unit": "ms", "note": note},
        {"name": "GET full Kingdoms state (30 cards, scored)", "median": statistics.median(gets) * 1000, "unit": "ms", "note": f"{len(gets)} reads"},
    ]
