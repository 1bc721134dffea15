"""The web app for tests: with the tiny ``GridEngine`` behind Flask's test client (``make_app``), or served
by uvicorn on a free port (``running_server``) and spoken to over real HTTP (``request``)."""
from __future__ import annotations

import contextlib
import http.client
import json

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
