"""Serving the app with waitress, in the foreground (``companion serve``) or in a background thread
(tests, benchmarks, embedding), and the one knob that matters for live pages: threads.

Each phone watching a table holds one server-sent-events stream, i.e. one waitress thread.
"""
from __future__ import annotations

import threading

import waitress
import waitress.server
import waitress.wasyncore

DEFAULT_THREADS = 64


def serve_forever(app, host: str, port: int, threads: int = DEFAULT_THREADS) -> None:
    waitress.serve(app, host=host, port=port, threads=threads, ident="card-companion",
                   channel_timeout=120, connection_limit=max(100, threads * 2))


class BackgroundServer:
    """``with BackgroundServer(app) as base_url:`` serves on 127.0.0.1 and a free port until the block ends."""

    def __init__(self, app, host: str = "127.0.0.1", port: int = 0, threads: int = 16) -> None:
        self.app = app
        self.server = waitress.server.create_server(app, host=host, port=port, threads=threads)
        self.url = f"http://{host}:{self.server.effective_port}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="background-server", daemon=True)

    def _loop(self) -> None:
        # server.run() loops forever; stepping the loop lets close() end it cleanly.
        while not self._stop.is_set():
            waitress.wasyncore.loop(timeout=0.05, map=self.server._map, count=1)
        self.server.task_dispatcher.shutdown(timeout=2)
        self.server.close()

    def __enter__(self) -> str:
        self._thread.start()
        return self.url

    def __exit__(self, *exc) -> None:
        from web_ui import shutdown

        shutdown(self.app)  # live streams end first, so no worker writes to a closed server
        self._stop.set()
        self._thread.join(5)
