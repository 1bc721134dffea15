"""A venue on one server (issue 23): many tables, each one a reader posting its detections at 5 frames/s.

    python benchmarks/load_venue.py [--tables 50] [--rate 5] [--seconds 60] [--phones 2] [--cpus 0,1]
    python benchmarks/load_venue.py --find 10,20,30,40,50,60,70   # the most tables that hold

The real ``companion serve`` runs as a child process on a free loopback port (pinned to ``--cpus``),
as in ``load_web.py``. Each simulated table replays RECORDED detections: the three demo recordings
read once by the shipped neural detector as a table computer reads them
(``companion.table.remote.read_like_a_table_computer``), kept in ``var/venue-readings/`` (made on the
first run, ~1 minute) with a JPEG still of every frame for when the server asks for one
(``want_frame``). Each table is a Kingdoms, Guilds and Dungeon or Chosen table set up as its
recording's, with ``--phones`` live streams watching it; it posts one frame's readings every
1/rate s over a keep-alive connection of its own, waiting for each answer (as a phone's reader does),
the recording looping on with its clock running on. A referee in its own process changes one more
table ``--referee-rate`` times a second (a card placed, then undone) and times each request. The first
``--warmup`` seconds (every table starting at once and asking for a still to find its mat) are not
counted.

A table **falls behind** when fewer than 95 % of its posts go out on time (within their slot of
1/rate s); the venue **holds** when none falls behind, the referee's p99 is under 200 ms and no post
fails. Prints one JSON line per count tried; the exit status is 0 when the last count held. The load
generator shares the machine with the server (on the 2-core build machine: the same two cores).
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import gzip
import json
import os
import pathlib
import random
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from load_web import HOST, Server, Watcher, http, percentile  # noqa: E402

GAMES = ("kingdoms", "dungeon", "chosen")
READINGS_DIR = ROOT / "var" / "venue-readings"
KEEPS_UP_SHARE = 0.95
STILL_QUALITY = 80


# -- the recorded detections ---------------------------------------------------------------------------
def record(game: str) -> dict:
    """The game's demo recording read by the neural detector as a table computer reads it (once)."""
    import cv2

    from companion.table.demos import demo_dir, demo_truth
    from companion.table.pipeline import build_pipeline
    from companion.table.remote import read_like_a_table_computer
    from companion.table.sources import open_source
    from companion.vision import Detector
    from companion.vision.models import models_fingerprint

    truth = demo_truth(game)
    pipeline = build_pipeline(game, Detector.load(tile="auto"), truth["setup"], truth.get("setup_events", []))
    frames = []
    for stamp, frame, indices, backs in read_like_a_table_computer(pipeline, open_source(str(demo_dir(game)))):
        still = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, STILL_QUALITY])[1].tobytes()
        frames.append({"time": stamp, "shape": list(frame.shape[:2]),
                       "indices": [[list(r.box), r.detection_confidence, r.code, r.class_confidence, r.rotation] for r in indices],
                       "backs": [[list(box), score] for box, score in backs], "still": base64.b64encode(still).decode()})
    return {"game": game, "models": models_fingerprint(), "setup": truth["setup"], "setup_events": truth.get("setup_events", []),
            "events": len(truth["events"]), "frames": frames}


def recorded(game: str) -> dict:
    """The recorded detections of ``game``'s demo, made and kept in var/ on first use (or when the models changed)."""
    from companion.vision.models import models_fingerprint

    path = READINGS_DIR / f"{game}.json.gz"
    if path.is_file():
        with gzip.open(path, "rt") as handle:
            data = json.load(handle)
        if data.get("models") == models_fingerprint():
            return data
    print(f"load_venue: recording the {game} demo's detections with the neural detector (once) …", file=sys.stderr, flush=True)
    data = record(game)
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt") as handle:
        json.dump(data, handle)
    return data


def bodies(data: dict) -> list[tuple[float, bytes, bytes]]:
    """Per frame: its time, the JSON of its readings (seq, time and the still filled in per post), its still."""
    from companion.table.readings import readings_json
    from companion.vision.grouping import IndexReading

    reader = {"kind": "browser", "backend": "wasm", "ms": 80.0, "models": data["models"], "deck": None}
    out = []
    for frame in data["frames"]:
        indices = [IndexReading(tuple(box), score, code, code_score, turn) for box, score, code, code_score, turn in frame["indices"]]
        backs = [(tuple(box), score) for box, score in frame["backs"]]
        body = readings_json(indices, backs, tuple(frame["shape"]), 0.0, 0, reader, feed="FEED")
        out.append((frame["time"], json.dumps(body, separators=(",", ":")).encode(), frame["still"].encode()))
    return out


# -- one table's reader ---------------------------------------------------------------------------------
class Connection:
    """One keep-alive HTTP/1.1 connection, as a phone's page keeps one to its server."""

    def __init__(self, port: int, source: str | None = None) -> None:
        self.port, self.source = port, source
        self.reader = self.writer = None

    async def post(self, path: str, body: bytes, headers: dict[str, str], timeout: float = 30.0) -> tuple[int, dict]:
        for attempt in (0, 1):   # a connection the server closed meanwhile (its keep-alive ran out) is opened again
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(HOST, self.port, limit=1 << 22,
                                                                         local_addr=(self.source, 0) if self.source else None)
            try:
                head = [f"POST {path} HTTP/1.1", f"Host: {HOST}:{self.port}", f"Content-Length: {len(body)}",
                        "Content-Type: application/json"] + [f"{k}: {v}" for k, v in headers.items()]
                self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
                await self.writer.drain()
                return await asyncio.wait_for(self._answer(), timeout)
            except (ConnectionError, asyncio.IncompleteReadError, OSError):
                self.close()
                if attempt:
                    raise
        raise ConnectionError("unreachable")

    async def _answer(self) -> tuple[int, dict]:
        status_line = await self.reader.readuntil(b"\r\n")
        status = int(status_line.split(b" ", 2)[1])
        length, chunked, closing = 0, False, False
        while (line := await self.reader.readuntil(b"\r\n")) != b"\r\n":
            name, _, value = line.decode("latin1").partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value:
                chunked = True
            elif name == "connection" and "close" in value.lower():
                closing = True
        if chunked:
            data = bytearray()
            while (size := int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)):
                data += await self.reader.readexactly(size + 2)
                del data[-2:]
            await self.reader.readuntil(b"\r\n")
        else:
            data = await self.reader.readexactly(length)
        if closing:
            self.close()
        return status, json.loads(data) if data else {}

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class SimulatedTable:
    """A table whose reader posts its recording's detections ``rate`` times a second, one at a time."""

    def __init__(self, port: int, table: dict, frames: list, rate: float, seconds: float, warmup: float = 0.0,
                 source: str | None = None) -> None:
        self.port, self.table, self.frames, self.rate, self.seconds, self.warmup = port, table, frames, rate, seconds, warmup
        self.connection = Connection(port, source)
        self.feed = f"venue-{table['id']}"
        self.latencies: list[float] = []
        self.slots = 0
        self.on_time = 0
        self.stills = 0
        self.failures: list[str] = []
        self.events = 0

    async def run(self, start: float) -> None:
        path = f"/api/tables/{self.table['id']}/detections"
        headers = {"X-Referee-Token": self.table["referee_token"]}
        want = True
        offset = random.randrange(len(self.frames))   # the tables are at different moments of their games
        period = 1.0 / self.rate
        span = self.frames[-1][0] + 1.0 / 6
        seq = 0
        while True:
            slot = start + seq * period
            now = time.monotonic()
            if now - start >= self.warmup + self.seconds:
                break
            if slot > now:
                await asyncio.sleep(slot - now)
            counted = slot - start >= self.warmup   # the warm-up's posts (every table finding its mat at once) are not counted
            if counted:
                self.slots += 1
                if time.monotonic() - slot <= period:
                    self.on_time += 1
            k = (offset + seq) % len(self.frames)
            stamp, body, still = self.frames[k]
            stamp += span * ((offset + seq) // len(self.frames))   # the clock runs on when the recording loops
            payload = body.replace(b'"time":0.0,"seq":0,"feed":"FEED"',
                                   f'"time":{stamp:.4f},"seq":{seq},"feed":"{self.feed}"'.encode(), 1)
            if want:
                payload = payload[:-1] + b',"mat_frame":"' + still + b'"}'
                self.stills += 1
            began = time.perf_counter()
            try:
                status, answer = await self.connection.post(path, payload, headers)
            except (OSError, TimeoutError, ValueError) as error:
                self.failures.append(repr(error))
                seq += 1
                continue
            if counted:
                self.latencies.append(time.perf_counter() - began)
            if status != 200:
                self.failures.append(f"{status} {answer}")
            else:
                want = answer["want_frame"]
                self.events += len(answer["events"])
            seq += 1
        self.connection.close()


# -- the venue --------------------------------------------------------------------------------------------
def machine_address(kind: int, n: int) -> str:
    """The n-th table computer's (kind 1) or phone's (kind 2) own address on loopback (127.0.0.0/8 is all this
    machine's): a venue's machines each have one, and ``serve --workers`` gives each address to one worker."""
    return f"127.{kind * 10 + n // 250}.0.{n % 250 + 1}"


async def setup_table(port: int, data: dict) -> dict:
    status, table = await http(port, "POST", "/api/tables", {"game": data["game"], **data["setup"]})
    assert status == 201, (status, table)
    for event in data["setup_events"]:
        status, answer = await http(port, "POST", f"/api/tables/{table['id']}/events", event, {"X-Referee-Token": table["referee_token"]})
        assert status == 200, (status, answer)
    return table


async def venue(args, server: Server, count: int, recordings: dict[str, dict], frames: dict[str, list]) -> dict:
    from load_web import KINGDOMS

    port = server.port
    tables = []
    for n in range(count):
        game = GAMES[n % len(GAMES)]
        tables.append(SimulatedTable(port, await setup_table(port, recordings[game]), frames[game], args.rate, args.seconds, args.warmup,
                                     source=machine_address(1, n)))
    watchers = [Watcher(port, t.table["id"], source=machine_address(2, n * args.phones + k))
                for n, t in enumerate(tables) for k in range(args.phones)]
    for watcher in watchers:
        watcher.task = asyncio.ensure_future(watcher.run())
    if watchers:
        await asyncio.wait_for(asyncio.gather(*(w.connected.wait() for w in watchers)), 60)
    status, referee_table = await http(port, "POST", "/api/tables", KINGDOMS)
    assert status == 201
    start = time.monotonic() + 1.0
    running = asyncio.gather(*(t.run(start + random.random() / args.rate) for t in tables))
    await asyncio.sleep(max(0.0, start + args.warmup - time.monotonic()))
    cpu_before = server.cpu_seconds()
    database_before = database_cpu_seconds(args)
    own_before = time.process_time()
    load_before = os.getloadavg()[0]
    referee = await asyncio.create_subprocess_exec(
        sys.executable, str(ROOT / "benchmarks" / "load_web.py"), "referee", str(port), json.dumps(referee_table),
        str(int(args.seconds * args.referee_rate)), str(args.referee_rate), stdout=asyncio.subprocess.PIPE)
    await running
    output, _ = await referee.communicate()
    cpu = server.cpu_seconds() - cpu_before
    database_cpu = database_cpu_seconds(args) - database_before
    own = time.process_time() - own_before
    times = json.loads(output) if output.strip() else []
    for watcher in watchers:
        watcher.task.cancel()
    latencies = [x for t in tables for x in t.latencies]
    shares = [t.on_time / max(1, t.slots) for t in tables]
    failures = [f for t in tables for f in t.failures]
    behind = sum(share < KEEPS_UP_SHARE for share in shares)
    p99 = percentile(times, 0.99) * 1000 if times else float("inf")
    return {"test": "venue", "tables": count, "rate_per_table": args.rate, "seconds": args.seconds, "warmup_s": args.warmup,
            "phones_per_table": args.phones,
            "posts": len(latencies), "posts_per_s": round(len(latencies) / args.seconds, 1),
            "post_ms_p50": round(statistics.median(latencies) * 1000, 1) if latencies else None,
            "post_ms_p99": round(percentile(latencies, 0.99) * 1000, 1) if latencies else None,
            "stills": sum(t.stills for t in tables), "table_events": sum(t.events for t in tables),
            "slowest_table_on_time": round(min(shares), 3), "tables_behind": behind, "failed_posts": len(failures),
            "failures": failures[:3], "referee_ms_p50": round(statistics.median(times) * 1000, 1) if times else None,
            "referee_ms_p99": round(p99, 1), "server_cpu_s_per_s": round(cpu / args.seconds, 2),
            "server_cpu_ms_per_post": round(cpu / max(1, len(latencies)) * 1000, 2), "server_rss_mb": round(server.rss_mb(), 1),
            "load_generator_cpu_s_per_s": round(own / args.seconds, 2), "workers": getattr(args, "workers", 1),
            "database_cpu_s_per_s": round(database_cpu / args.seconds, 2) if getattr(args, "cluster", None) else None,
            "load_average_1min_before": round(load_before, 2), "load_average_1min_after": round(os.getloadavg()[0], 2),
            "held": behind == 0 and p99 < 200 and not failures}


def database_cpu_seconds(args) -> float:
    """CPU time of the PostgreSQL cluster the workers share (its postmaster and every backend), 0 without one."""
    from load_web import process_children, process_cpu_seconds

    cluster = getattr(args, "cluster", None)
    if cluster is None:
        return 0.0
    postmaster = int((cluster.data / "postmaster.pid").read_text().split()[0])
    return sum(process_cpu_seconds(pid) for pid in [postmaster, *process_children(postmaster)])


def shared_database(workers: int):
    """``--workers`` > 1: a throw-away PostgreSQL cluster (the tests' own, fsync and synchronous commits on, as a
    venue's would be) on these same cores; else nothing (the one server's SQLite journal)."""
    import contextlib

    if workers <= 1:
        return contextlib.nullcontext(None)
    sys.path.insert(0, str(ROOT / "tests"))
    from helpers.postgres import cluster

    return cluster(fsync=True)


def run_venue(args, cpus: list[int] | None, count: int, recordings: dict, frames: dict) -> dict:
    """One count of tables on a fresh server (``args.workers`` processes; on a fresh database when more than one)."""
    workers = getattr(args, "workers", 1)
    with shared_database(workers) as cluster, tempfile.TemporaryDirectory(prefix="companion-venue-") as folder:
        args.cluster = cluster
        server = Server(pathlib.Path(folder), cpus, cluster.url() if cluster else None, workers).start()
        try:
            result = asyncio.run(venue(args, server, count, recordings, frames))
        finally:
            server.stop()
            args.cluster = None
    result["server_cpus"] = cpus
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--find", default=None, metavar="N,N,…", help="try these counts in turn (a fresh server each); stop at the first that fails")
    parser.add_argument("--rate", type=float, default=5.0, help="posts a second per table")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long it is measured, after the warm-up")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds the tables run first, not counted (every table finds its mat)")
    parser.add_argument("--phones", type=int, default=2, help="live streams watching each table")
    parser.add_argument("--referee-rate", type=float, default=2.0, help="the referee's changes a second")
    parser.add_argument("--cpus", default="0,1", help="cores for the server (comma-separated; empty: any)")
    parser.add_argument("--workers", type=int, default=1,
                        help="companion serve --workers N (N > 1: on a throw-away PostgreSQL cluster on the same cores)")
    args = parser.parse_args(argv)
    available = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    cpus = [int(c) for c in args.cpus.split(",") if c.strip() and int(c) in available] or None
    recordings = {game: recorded(game) for game in GAMES}
    frames = {game: bodies(data) for game, data in recordings.items()}
    counts = [int(c) for c in args.find.split(",")] if args.find else [args.tables]
    held = False
    for count in counts:
        result = run_venue(args, cpus, count, recordings, frames)
        print(json.dumps(result), flush=True)
        held = result["held"]
        if not held:
            break
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main())
