"""Live streams: what a watching phone is sent, and the asynchronous server side that sends it.

Each change reaches a phone as a server-sent event ``change`` whose ``id`` is the table's revision
(the change's sequence number) and whose data is the journal entry plus ``patch``, the JSON Patch
(RFC 6902) it made to the table's state, so a phone sends back nothing and receives a few hundred
bytes per change instead of the whole state. A stream that starts without a resume point, or resumes
from a revision whose patches are no longer kept (see ``PATCH_HISTORY``), gets one ``snapshot``.

The same messages are served two ways: by :class:`LiveStreams` (coroutines on the ASGI server's event
loop: a watcher costs a socket and a few kilobytes, never a thread; see :mod:`web_ui.server`) and by
the Flask routes in :mod:`web_ui.api` / :mod:`web_ui.camera` (Flask's test client, any WSGI server).
"""
from __future__ import annotations

import asyncio
import collections
import json
import re
import threading
import time
from typing import Any
from urllib.parse import parse_qs

from werkzeug.sansio.utils import host_is_trusted

from companion.session import StoreUnavailable, Table, TableNotFound

# Resume points arrive as text; more digits than this are no revision of any table.
MAX_REVISION_DIGITS = 12
# A phone that cannot take a message within this long (a full TCP window on a dead link) is dropped:
# its browser reconnects with Last-Event-ID and misses nothing, and it holds no buffer meanwhile.
SEND_TIMEOUT_SECONDS = 15.0
# Formatted change messages kept for the streams of all tables (each is sent to every watcher of its
# table: formatting it once saves 499 json.dumps calls with 500 watchers).
# 512 messages (a few hundred kilobytes) cover every table's recent changes; an older one is formatted again.
MESSAGE_CACHE_SIZE = 512
STREAM_PATH = re.compile(r"^/api/tables/(?P<table_id>[^/]{1,40})/(?P<what>stream|camera\.mjpeg)$")


class BadResumePoint(ValueError):
    """A ``Last-Event-ID`` / ``after`` that is no change number (``value``: what was sent, shown back)."""

    def __init__(self, text: str, value: str = "") -> None:
        super().__init__(text)
        self.value = value


def sse(event: str, seq: int, data: dict) -> bytes:
    return f"id: {seq}\nevent: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


_cache: collections.OrderedDict[tuple[str, int], bytes] = collections.OrderedDict()
_cache_lock = threading.Lock()


def change_message(table: Table, entry, ops: str) -> bytes:
    """The ``change`` event of one journal entry; ``ops`` is its JSON Patch as JSON text (as the table keeps it)."""
    key = (table.id, entry.seq)
    with _cache_lock:
        cached = _cache.get(key)
    if cached is not None:
        return cached
    fields = json.dumps({**entry.to_json(), "rev": entry.seq}, separators=(",", ":"))
    message = f"id: {entry.seq}\nevent: change\ndata: {fields[:-1]},\"patch\":{ops}}}\n\n".encode()
    with _cache_lock:
        _cache[key] = message
        while len(_cache) > MESSAGE_CACHE_SIZE:
            _cache.popitem(last=False)
    return message


def snapshot_message(table: Table) -> tuple[bytes, int]:
    state = table.snapshot()
    seq = state["session"]["seq"]
    return sse("snapshot", seq, {"state": state, "rev": seq}), seq


def catch_up(table: Table, after: int | None) -> tuple[list[bytes], int]:
    """The messages that bring a phone at revision ``after`` (None: it has nothing) up to date, and the
    revision it is at then: the missed changes' patches, or one snapshot when they are not all kept."""
    if after is not None:
        changes = table.patches_since(after)
        if changes is not None:
            return [change_message(table, entry, ops) for entry, ops in changes], (changes[-1][0].seq if changes else after)
    message, seq = snapshot_message(table)
    return [message], seq


def sync_quietly(table: Table) -> None:
    """The table with what other servers stored (a shared database); while the database cannot be reached
    the stream starts from what this server has, and the next change it hears brings the rest."""
    try:
        table.sync()
    except StoreUnavailable:
        pass


def resume_point(table: Table, *candidates: str | None) -> int | None:
    """Where a stream resumes: the first of Last-Event-ID and ``?after=`` that is given; None: from a
    snapshot (also for a number from the future, e.g. a table restored from an older copy)."""
    given = [raw.strip() for raw in candidates if raw is not None and raw != ""]
    for text in given:  # each one given must be a number, even one the first makes moot
        if not text.isdigit() or len(text) > MAX_REVISION_DIGITS:
            raise BadResumePoint(f"Last-Event-ID / after must be a change number (0 or more), got {text[:20]!r}", repr(text[:20]))
    if not given:
        return None
    seq = int(given[0])
    return seq if seq <= table.seq else None


# -- the asynchronous side ------------------------------------------------------------------------
class Wakeups:
    """Per key (a table's changes, a table's camera frames) the streams waiting for it; ``notify`` from any
    thread sets each one's own asyncio.Event on the loop. No task per wait, no thread per stream."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self._waiting: dict[Any, set[asyncio.Event]] = collections.defaultdict(set)

    def notify(self, key: Any) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._wake, key)
            except RuntimeError:  # the loop closed meanwhile (server stopping)
                pass

    def _wake(self, key: Any) -> None:
        for event in self._waiting.get(key, ()):
            event.set()

    def subscribe(self, key: Any, event: asyncio.Event) -> None:
        self._waiting[key].add(event)

    def unsubscribe(self, key: Any, event: asyncio.Event) -> None:
        waiting = self._waiting.get(key)
        if waiting is not None:
            waiting.discard(event)
            if not waiting:
                del self._waiting[key]


class Disconnected(Exception):
    pass


class _Stream:
    """One open stream: its wake-up event (set by a change, or by the phone hanging up) and whether it left."""

    def __init__(self, receive) -> None:
        self.wake = asyncio.Event()
        self.gone = False
        self._watch = asyncio.ensure_future(self._until_disconnect(receive))

    async def _until_disconnect(self, receive) -> None:
        try:
            while (await receive())["type"] != "http.disconnect":
                pass
        finally:
            self.gone = True
            self.wake.set()

    async def wait(self, timeout: float) -> bool:
        """True when woken (a change, or the phone left: see ``gone``), False after ``timeout`` seconds."""
        if not self.wake.is_set():
            try:
                async with asyncio.timeout(max(timeout, 0.0)):
                    await self.wake.wait()
            except TimeoutError:
                return False
        self.wake.clear()
        if self.gone:
            raise Disconnected("the phone hung up")
        return True

    def close(self) -> None:
        self._watch.cancel()


class LiveStreams:
    """Serves ``GET /api/tables/<id>/stream`` and ``/camera.mjpeg`` as coroutines (ASGI)."""

    def __init__(self, flask_app, security_headers: dict[str, str]) -> None:
        self.config = flask_app.config
        self.registry = flask_app.extensions["registry"]
        self.camera = flask_app.extensions["camera"]
        self.security_headers = [(k.lower().encode(), v.encode()) for k, v in security_headers.items()]
        self.wakeups = Wakeups()
        self.registry.listeners.append(lambda table, entry: self.wakeups.notify(("table", table.id)))
        self.camera.listeners.append(lambda table_id: self.wakeups.notify(("frame", table_id)))
        self.open_streams = 0
        # Per table, what brings a phone from one revision to the current one, computed once for all the
        # phones at that revision (after a change, all of a table's watchers are): one entry per table.
        self._batches: dict[str, tuple[int | None, int, bytes, int]] = {}

    async def __call__(self, scope, receive, send, match) -> None:
        self.wakeups.loop = asyncio.get_running_loop()
        headers = {k.decode("latin1").lower(): v.decode("latin1") for k, v in scope.get("headers", [])}
        if not host_is_trusted(headers.get("host"), self.config.get("TRUSTED_HOSTS")):
            return await self._error(send, 400, "The host name is not one this server answers to.")
        try:
            if self.registry.shared:   # a table made through another server is read from the database, off the loop
                table = await asyncio.to_thread(self.registry.get, match["table_id"])
            else:
                table = self.registry.get(match["table_id"])
        except TableNotFound as error:
            return await self._error(send, 404, str(error))
        except StoreUnavailable as error:
            return await self._error(send, 503, str(error), [(b"retry-after", str(int(self.config.get("DATABASE_RETRY_SECONDS", 2))).encode())])
        if match["what"] == "camera.mjpeg":
            return await self._mjpeg(table, receive, send)
        if self.registry.shared:
            await asyncio.to_thread(sync_quietly, table)   # a phone that comes from another server may be ahead of this one
        query = parse_qs(scope.get("query_string", b"").decode("latin1"))
        try:
            after = resume_point(table, headers.get("last-event-id"), (query.get("after") or [None])[0])
        except BadResumePoint as error:
            return await self._error(send, 400, str(error))
        await self._events(table, after, receive, send)

    async def _error(self, send, status: int, message: str, extra: list | None = None) -> None:
        body = json.dumps({"error": message}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
                    + (extra or []) + self.security_headers})
        await send({"type": "http.response.body", "body": body})

    async def _send(self, send, data: bytes) -> None:
        try:
            async with asyncio.timeout(SEND_TIMEOUT_SECONDS):
                await send({"type": "http.response.body", "body": data, "more_body": True})
        except (TimeoutError, OSError) as error:
            raise Disconnected("the phone stopped reading") from error

    async def _start(self, send, content_type: bytes) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", content_type), (b"cache-control", b"no-store"), (b"x-accel-buffering", b"no")] + self.security_headers})

    def _catch_up(self, table: Table, after: int | None) -> tuple[bytes, int]:
        cached = self._batches.get(table.id)
        if cached is not None and after is not None and cached[0] == after and cached[1] == table.seq:
            return cached[2], cached[3]
        seq = table.seq
        messages, last = catch_up(table, after)
        data = b"".join(messages)
        if after is not None:  # a snapshot for a new phone is not worth keeping
            self._batches[table.id] = (after, seq, data, last)
        return data, last

    async def _events(self, table: Table, after: int | None, receive, send) -> None:
        config = self.config
        keepalive, lifetime = float(config["SSE_KEEPALIVE_SECONDS"]), float(config["SSE_MAX_SECONDS"])
        key = ("table", table.id)
        stream = _Stream(receive)
        self.wakeups.subscribe(key, stream.wake)  # before the first read: no change slips between
        self.open_streams += 1
        try:
            await self._start(send, b"text/event-stream; charset=utf-8")
            await self._send(send, f"retry: {int(config['SSE_RETRY_MS'])}\n\n".encode())
            deadline = time.monotonic() + lifetime
            data, last = self._catch_up(table, after)
            while True:
                if data:
                    await self._send(send, data)
                if time.monotonic() >= deadline or table.closed:
                    break
                if await stream.wait(min(keepalive, deadline - time.monotonic())):
                    data, last = self._catch_up(table, last)
                else:
                    data = b": keep-alive\n\n"
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except Disconnected:
            pass
        finally:
            self.open_streams -= 1
            self.wakeups.unsubscribe(key, stream.wake)
            stream.close()

    async def _mjpeg(self, table: Table, receive, send) -> None:
        lifetime = float(self.config["SSE_MAX_SECONDS"])
        key = ("frame", table.id)
        stream = _Stream(receive)
        self.wakeups.subscribe(key, stream.wake)
        try:
            await self._start(send, b"multipart/x-mixed-replace; boundary=frame")
            deadline, last = time.monotonic() + lifetime, 0
            while time.monotonic() < deadline and not table.closed:
                frame = self.camera.latest(table.id)
                if frame is not None and frame.seq > last:
                    last = frame.seq
                    await self._send(send, b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " + str(len(frame.jpeg)).encode()
                                     + b"\r\n\r\n" + frame.jpeg + b"\r\n")
                    continue
                await stream.wait(min(5.0, deadline - time.monotonic()))
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except Disconnected:
            pass
        finally:
            self.wakeups.unsubscribe(key, stream.wake)
            stream.close()
