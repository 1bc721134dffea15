"""Serving the app with uvicorn (ASGI), in the foreground (``companion serve``, HTTP or HTTPS) or in a
background thread (tests, benchmarks, embedding).

One event loop holds every connection. The live streams (server-sent events, MJPEG) are coroutines on
it (:class:`web_ui.live.LiveStreams`): a watching phone costs a socket and a few kilobytes, not a
thread, so 500 watchers do not keep the referee waiting. Every other request goes to the Flask app in
a small thread pool (:class:`WsgiInThreads`), after its body has been read on the loop, so a slow or half-sent upload
holds no thread either. CPU-heavy work (card detection) runs in the camera feeds' own threads, never on
the loop. Timeouts: a request head must arrive within ``REQUEST_HEAD_SECONDS``, a body within
``BODY_SECONDS``; an idle keep-alive connection closes after ``KEEP_ALIVE_SECONDS``; a stream that
cannot take a message for ``live.SEND_TIMEOUT_SECONDS`` is dropped; TCP keep-alive and
``TCP_USER_TIMEOUT`` let the kernel notice phones that vanished without hanging up.
"""
from __future__ import annotations

import asyncio
import contextvars
import io
import json
import re
import socket
import threading
from concurrent.futures import ThreadPoolExecutor

import uvicorn
from a2wsgi.wsgi import build_environ
from uvicorn.protocols.http.h11_impl import H11Protocol

from web_ui import live

# Flask requests run in this many threads: each takes a few milliseconds (rules, a SQLite commit), so
# 16 keep a busy evening's referees and camera posts moving while the streams need none.
WSGI_THREADS = 16
DEFAULT_THREADS = WSGI_THREADS  # the name `companion serve --threads` used before
# A connection that has not finished a request head within this long (between two checks) is closed:
# 130 half-sent requests once stopped new connections.
REQUEST_HEAD_SECONDS = 10.0
BODY_SECONDS = 30.0  # a 4 MiB camera frame over a poor phone link fits well within this
KEEP_ALIVE_SECONDS = 5
# Dead peers: keep-alive probes after 30 s idle, 3 probes 10 s apart; unacknowledged data (a heartbeat to
# a phone that left) aborts the connection after 45 s.
TCP_KEEPIDLE, TCP_KEEPINTVL, TCP_KEEPCNT, TCP_USER_TIMEOUT_MS = 30, 10, 3, 45_000
# More open connections than this answer 503 rather than running the process out of file descriptors.
MAX_CONNECTIONS = 4000
LISTEN_BACKLOG = 2048
# A Flask answer up to this size is made whole in its thread and handed to the loop once; a larger one (a
# model file) goes out in chunks as it is read, each waiting for the loop. Per post of detections the
# chunked hand-over (a2wsgi: the body, the head, each chunk and the end, one blocking round trip to the
# loop each) cost the server's one core about a sixth of a post (docs/table.md, Venue).
WHOLE_ANSWER_BYTES = 1024 * 1024
# The host's import of an export (web_ui/evening.py): its body may be up to MAX_IMPORT_BYTES, not MAX_CONTENT_LENGTH.
IMPORT_PATH = "/api/evening/import"


class TimedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, plus: a connection that sits between requests with a half-sent request
    head (or nothing) for a whole ``REQUEST_HEAD_SECONDS`` is closed. uvicorn itself closes idle keep-alive
    connections after ``KEEP_ALIVE_SECONDS`` but waits forever for a head once bytes have arrived."""

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._seen_cycle = object()
        self._head_timer = self.loop.call_later(REQUEST_HEAD_SECONDS, self._check_progress)

    def _check_progress(self) -> None:
        cycle = self.cycle
        between_requests = cycle is None or cycle.response_complete
        if between_requests and cycle is self._seen_cycle:
            if not self.transport.is_closing():
                self.transport.close()
            return
        self._seen_cycle = cycle
        self._head_timer = self.loop.call_later(REQUEST_HEAD_SECONDS, self._check_progress)

    def connection_lost(self, exc) -> None:
        self._head_timer.cancel()
        super().connection_lost(exc)


class WsgiInThreads:
    """The Flask app in a pool of threads, its request body read before (on the loop) and its answer
    handed back to the loop in one piece: one hop to a thread and one back per request."""

    def __init__(self, flask_app, threads: int = WSGI_THREADS) -> None:
        self.app = flask_app
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="wsgi")

    async def __call__(self, scope, body: bytes, send) -> None:
        loop = asyncio.get_running_loop()
        environ = build_environ(scope, io.BytesIO(body))
        context = contextvars.copy_context()
        answer = await loop.run_in_executor(self.executor, context.run, self._run, environ, loop, send)
        if answer is not None:
            start, whole = answer
            await send(start)
            await send({"type": "http.response.body", "body": whole, "more_body": False})

    def _run(self, environ: dict, loop, send):
        """In a thread: the app's answer as (head, body), or None when it was larger than
        ``WHOLE_ANSWER_BYTES`` and went out in chunks from here (each sent by the loop)."""
        head: dict = {}

        def start_response(status: str, headers, exc_info=None):
            head["message"] = {"type": "http.response.start", "status": int(status.split(" ", 1)[0]),
                               "headers": [(name.strip().encode("latin1").lower(), value.strip().encode("latin1"))
                                           for name, value in headers]}
            return lambda chunk: chunks.append(chunk)

        def hand_over(message) -> None:
            asyncio.run_coroutine_threadsafe(send(message), loop).result()

        chunks: list[bytes] = []
        iterable = self.app(environ, start_response)
        streaming, size = False, 0
        try:
            for chunk in iterable:
                if streaming:
                    hand_over({"type": "http.response.body", "body": chunk, "more_body": True})
                    continue
                chunks.append(chunk)
                size += len(chunk)
                if size > WHOLE_ANSWER_BYTES:
                    streaming = True
                    hand_over(head["message"])
                    hand_over({"type": "http.response.body", "body": b"".join(chunks), "more_body": True})
                    chunks.clear()
        finally:
            getattr(iterable, "close", lambda: None)()
        if streaming:
            hand_over({"type": "http.response.body", "body": b"", "more_body": False})
            return None
        return head["message"], b"".join(chunks)


# Posts of detections (a table's reader, 5-10 a second each) have threads of their own, DETECTIONS_AT_ONCE
# of them, and wait their turn in its queue; the referee's and the phones' requests keep the main pool. In
# the one pool, the posts beyond their turns each held a thread asleep on a semaphore, and every turn given
# back woke one (docs/table.md, Venue).
DETECTIONS_PATH = re.compile(r"^/api/tables/[^/]{1,40}/detections$")


class AsgiApp:
    """The Flask app as one ASGI application: live streams on the loop, everything else in threads."""

    def __init__(self, flask_app, threads: int = WSGI_THREADS) -> None:
        from web_ui import SECURITY_HEADERS

        self.flask_app = flask_app
        self.streams = live.LiveStreams(flask_app, SECURITY_HEADERS)
        self.wsgi = WsgiInThreads(flask_app, threads)
        self.detections = WsgiInThreads(flask_app, max(1, int(flask_app.config.get("DETECTIONS_AT_ONCE", 2))))
        self.security_headers = self.streams.security_headers
        self.max_body = int(flask_app.config.get("MAX_CONTENT_LENGTH") or 4 * 1024 * 1024)
        # An import is a whole export (web_ui/evening.py): the one body allowed to be larger.
        self.max_import = max(self.max_body, int(flask_app.config.get("MAX_IMPORT_BYTES") or 0))

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    self.streams.wakeups.loop = asyncio.get_running_loop()
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        match = live.STREAM_PATH.match(scope["path"])
        if match is not None:
            if scope["method"] == "GET":
                return await self.streams(scope, receive, send, match)
            # Not even HEAD goes to Flask: its stream route would hold a thread for the stream's lifetime.
            return await self._error(send, 405, "a live stream is read with GET", [(b"allow", b"GET")])
        await self._buffered(scope, receive, send)

    async def _error(self, send, status: int, message: str, extra: list | None = None) -> None:
        body = json.dumps({"error": message}).encode()
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), (b"connection", b"close")]
            + (extra or []) + self.security_headers})
        await send({"type": "http.response.body", "body": body})

    def _in_the_phones_language(self, scope, message) -> str:
        """An answer given before Flask sees the request, in the asking phone's language (its cookie or Accept-Language)."""
        from companion.i18n import translator
        from web_ui.i18n import headers_language

        language = headers_language(scope.get("headers", []), self.flask_app.config.get("LANGUAGE"))
        return translator(language).render(message)

    def _too_large(self, scope, limit: int) -> str:
        from web_ui.i18n import too_large

        return self._in_the_phones_language(scope, too_large(limit))

    async def _buffered(self, scope, receive, send) -> None:
        """Reads the whole body on the loop (bounded in size and time), then lets a thread run Flask on it."""
        loop = asyncio.get_running_loop()
        declared = next((v for k, v in scope.get("headers", []) if k == b"content-length"), None)
        limit = self.max_import if scope["method"] == "POST" and scope["path"] == IMPORT_PATH else self.max_body
        if declared is not None and declared.isdigit() and int(declared) > limit:
            return await self._error(send, 413, self._too_large(scope, limit))
        body, deadline = bytearray(), loop.time() + BODY_SECONDS
        while True:
            try:
                message = await asyncio.wait_for(receive(), max(deadline - loop.time(), 0.001))
            except TimeoutError:
                from web_ui.i18n import too_slow

                return await self._error(send, 408, self._in_the_phones_language(scope, too_slow(BODY_SECONDS)))
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > limit:
                return await self._error(send, 413, self._too_large(scope, limit))
            if not message.get("more_body"):
                break
        pool = self.detections if scope["method"] == "POST" and DETECTIONS_PATH.match(scope["path"]) else self.wsgi
        await pool(scope, bytes(body), send)


# Several worker processes on one port (companion serve --workers): each binds it with SO_REUSEPORT and
# the kernel gives each new connection to the worker the client's address picks (a classic BPF program:
# the source IPv4 address modulo the workers), so a table computer or a phone that reconnects reaches the
# same worker again, as nginx's ip_hash keeps it on one server (a feed's lease stays where it is).
SO_ATTACH_REUSEPORT_CBPF = 51     # linux/asm-generic/socket.h
SKF_NET_OFF = -0x100000           # linux/filter.h: loads relative to the network (IP) header
BPF_LD_W_ABS, BPF_ALU_MOD_K, BPF_RET_A = 0x20, 0x94, 0x16
IPV4_SOURCE_OFFSET = 12


def source_address_program(workers: int) -> list[tuple[int, int, int, int]]:
    """The reuseport group's choice: the connecting client's IPv4 source address modulo ``workers``."""
    return [(BPF_LD_W_ABS, 0, 0, (SKF_NET_OFF + IPV4_SOURCE_OFFSET) & 0xFFFFFFFF),
            (BPF_ALU_MOD_K, 0, 0, workers),
            (BPF_RET_A, 0, 0, 0)]


def attach_program(sock: socket.socket, program: list[tuple[int, int, int, int]]) -> None:
    import ctypes
    import struct

    code = b"".join(struct.pack("HBBI", *instruction) for instruction in program)
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = struct.pack("HL", len(program), ctypes.addressof(buffer))   # struct sock_fprog
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, fprog)


def listening_socket(host: str, port: int, workers: int = 1) -> socket.socket:
    """The server's socket; ``workers`` > 1: one of that many processes listening on the port (Linux,
    IPv4), each connection given to the one its client's address picks."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if workers > 1:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    # Accepted connections inherit these (Linux): the kernel probes idle peers and gives up on unacked data.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in (("TCP_KEEPIDLE", TCP_KEEPIDLE), ("TCP_KEEPINTVL", TCP_KEEPINTVL), ("TCP_KEEPCNT", TCP_KEEPCNT),
                        ("TCP_USER_TIMEOUT", TCP_USER_TIMEOUT_MS)):
        if hasattr(socket, name):
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)
    sock.bind((host, port))
    sock.listen(LISTEN_BACKLOG)
    if workers > 1 and family == socket.AF_INET:
        attach_program(sock, source_address_program(workers))
    sock.setblocking(False)
    return sock


def raise_file_limit(wanted: int = MAX_CONNECTIONS + 256) -> None:
    """Each connection is a file descriptor; the usual soft limit of 1024 is below a busy evening."""
    try:
        import resource
    except ImportError:  # Windows: no such limit to raise
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def make_server(app, threads: int = WSGI_THREADS, certfile: str | None = None, keyfile: str | None = None) -> uvicorn.Server:
    config = uvicorn.Config(AsgiApp(app, threads), http=TimedH11Protocol, lifespan="on", loop="asyncio", interface="asgi3",
                            access_log=False, log_level="warning", timeout_keep_alive=KEEP_ALIVE_SECONDS,
                            timeout_graceful_shutdown=2, limit_concurrency=MAX_CONNECTIONS,
                            ssl_certfile=certfile, ssl_keyfile=keyfile, server_header=False)
    return uvicorn.Server(config)


def serve_forever(app, host: str, port: int, threads: int = WSGI_THREADS, certfile: str | None = None,
                  keyfile: str | None = None, workers: int = 1, socket_fd: int | None = None) -> None:
    """Serves until Ctrl-C (uvicorn handles the signal), then ends the live streams and closes the tables.
    ``workers``: the number of processes sharing the port (this one of them); ``socket_fd``: the listening
    socket made for this worker by the process that started it (``companion serve --workers``)."""
    from web_ui import shutdown

    raise_file_limit()
    server = make_server(app, threads, certfile, keyfile)
    sock = socket.socket(fileno=socket_fd) if socket_fd is not None else listening_socket(host, port, workers)
    try:
        server.run(sockets=[sock])
    finally:
        shutdown(app)


class BackgroundServer:
    """``with BackgroundServer(app) as base_url:`` serves on 127.0.0.1 and a free port until the block ends."""

    def __init__(self, app, host: str = "127.0.0.1", port: int = 0, threads: int = WSGI_THREADS,
                 certfile: str | None = None, keyfile: str | None = None) -> None:
        self.app = app
        raise_file_limit()
        self.socket = listening_socket(host, port)
        self.server = make_server(app, threads, certfile, keyfile)
        self.url = f"{'https' if certfile else 'http'}://{host}:{self.socket.getsockname()[1]}"
        self._thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]},
                                        name="background-server", daemon=True)

    def __enter__(self) -> str:
        self._thread.start()
        for _ in range(500):
            if self.server.started:
                break
            threading.Event().wait(0.01)
        return self.url

    def __exit__(self, *exc) -> None:
        from web_ui import shutdown

        shutdown(self.app)  # live streams end first (their tables close), then the server stops
        self.server.should_exit = True
        self._thread.join(10)
        self.server.config.app.wsgi.executor.shutdown(wait=False)
        self.server.config.app.detections.executor.shutdown(wait=False)
        self.socket.close()
