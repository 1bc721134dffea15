"""The web app for tests: with the tiny ``GridEngine`` behind Flask's test client (``make_app``), or served
by uvicorn on a free port (``running_server``) and spoken to over real HTTP (``request``)."""
from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time

import cv2
import numpy as np

from companion.session.patch import apply

from helpers.grid_engine import GridEngine
from web_ui import TestConfig, create_app
from web_ui.server import BackgroundServer


def make_app(data_dir, **overrides):
    config = {key: getattr(TestConfig, key) for key in dir(TestConfig) if key.isupper()}
    config.update(DATA_DIR=str(data_dir), ENGINES=lambda name: GridEngine(), GAMES=("grid",), SSE_MAX_SECONDS=0.6,
                  SSE_KEEPALIVE_SECONDS=0.1, PIN_ATTEMPTS=1000, MAX_FRAMES_PER_SECOND=1000)
    config.update(overrides)
    return create_app(config)


@contextlib.contextmanager
def running_server(data_dir, **config):
    """The app served by uvicorn on 127.0.0.1 and a free port, in a thread; yields the base URL and the app."""
    settings = {"DATA_DIR": str(data_dir), "SSE_KEEPALIVE_SECONDS": 0.5, "SSE_MAX_SECONDS": 30.0}
    settings.update(config)
    app = create_app(settings)
    with BackgroundServer(app) as base:  # closes the app's tables on the way out
        yield base, app


def request(base, method, path, body=None, headers=None):
    host = base.split("//")[1]
    connection = http.client.HTTPConnection(host, timeout=10)
    payload = None if body is None else json.dumps(body)
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    connection.request(method, path, body=payload, headers=all_headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, json.loads(data) if data else None


def post_event(client, table, event, pin=None):
    return client.post(f"/api/tables/{table['id']}/events", json=event,
                       headers={"X-Referee-Pin": table["pin"] if pin is None else pin})



def jpeg(width=64, height=48):
    image = np.zeros((height, width, 3), np.uint8)
    image[:, : width // 2] = (0, 0, 255)
    return cv2.imencode(".jpg", image)[1].tobytes()


class StreamReader:
    """Reads server-sent events from a live connection in a background thread."""

    def __init__(self, base, path, headers=None, state=None):
        self.connection = http.client.HTTPConnection(base.split("//")[1], timeout=10)
        self.connection.connect()
        self.socket = self.connection.sock  # the response takes it over; kept to cut the line like a sleeping phone
        self.connection.request("GET", path, headers=headers or {})
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        self.events: list[dict] = []
        self.arrived: list[float] = []
        self.state = state  # the table as this phone sees it: the snapshot, each change's patch applied
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        fields = {}
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\n")
                if not line:
                    if "data" in fields:
                        event = {"id": int(fields["id"]), "event": fields["event"], "data": json.loads(fields["data"])}
                        if event["event"] == "snapshot":
                            self.state = event["data"]["state"]
                        elif self.state is not None:  # a phone that resumes without a state only counts changes
                            assert self.state["session"]["seq"] == event["id"] - 1, "a change out of order"
                            self.state = apply(self.state, event["data"]["patch"])
                        self.events.append(event)
                        self.arrived.append(time.monotonic())
                    fields = {}
                elif not line.startswith(":"):
                    key, _, value = line.partition(": ")
                    fields[key] = value
        except (OSError, ValueError, http.client.HTTPException):
            pass  # closed by the test

    def wait_for(self, count, timeout=5.0):
        deadline = time.monotonic() + timeout
        while len(self.events) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.events

    def close(self):
        with contextlib.suppress(OSError):
            self.socket.shutdown(socket.SHUT_RDWR)
        self.socket.close()
        self.thread.join(5)


KINGDOMS = {"game": "kingdoms", "players": [{"name": "Ann", "suits": ["H", "D"]}, {"name": "Bo", "suits": ["S", "C"]}]}


def comparable(view: dict) -> dict:
    """A table's view as a game's state: without the session's own bookkeeping, and without the log, whose
    wording the engines' own tests compare."""
    return {key: value for key, value in view.items() if key not in ("session", "log")}
