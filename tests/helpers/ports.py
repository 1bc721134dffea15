"""A port for a server a test starts as another process (``companion serve --port N``), held until that
server listens on it.

A port found free (bound to port 0, then closed) is anyone's until the child binds it, a second or more
later (Python's start): under ``pytest -n`` the other test processes bind ports of their own all the while
(every ``running_server``), and the kernel may hand one of them the same port; the child then fails to
start. So the probe stays bound, with SO_REUSEADDR and not listening, until the child listens: Linux hands
the port to no bind(0) and no connect() meanwhile, yet lets the server (whose socket has SO_REUSEADDR too,
web_ui/server.py) bind and listen on it (socket(7)). ``benchmarks/load_web.py`` holds its servers' ports
the same way."""
from __future__ import annotations

import socket
import subprocess
import time

HOST = "127.0.0.1"


def held_port() -> socket.socket:
    """A socket bound to a free loopback port (``.getsockname()[1]``), holding it; close it once the server listens."""
    probe = socket.socket()
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    probe.bind((HOST, 0))
    return probe


def release_when_listening(probe: socket.socket, process: subprocess.Popen, timeout: float = 60.0) -> None:
    """Waits until the port takes a connection (the server listens: the probe itself never does), then closes
    the probe; closes it too when ``process`` ends first or ``timeout`` passes (the test then fails on its own)."""
    port = probe.getsockname()[1]
    deadline = time.monotonic() + timeout
    try:
        while process.poll() is None and time.monotonic() < deadline:
            try:
                socket.create_connection((HOST, port), timeout=2).close()
                return
            except OSError:
                time.sleep(0.1)
    finally:
        probe.close()
