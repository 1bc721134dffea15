"""A server full of history (issue 30, item 7): 1,000 finished games, on SQLite and on PostgreSQL.

For each store, a data folder (or a throw-away PostgreSQL cluster, durable commits on, as bench_postgres.py)
is filled with 1,000 finished games (Kingdoms, Guilds and Dungeon and The Chosen in turn, each a whole game
played by the engines: tests/helpers/finished_games.py; stored as an import stores them, journal and summary
together). Then, side by side in one run:

- ``companion serve`` started as a process: seconds from its start to its first answer (GET /api/tables, which
  reads the tables' summaries), then killed with SIGKILL and started again: the same after the kill -9; each
  the median of STARTS starts, with the fastest and the slowest in the note;
- what a start cost before summaries: every journal replayed (``TableRegistry.list()``, in this process);
- the host's list (GET /api/evening/tables), the evening page and the players' records, served by that
  server: the median time of a request.

    python benchmarks/run.py history
"""
from __future__ import annotations

import http.client
import os
import pathlib
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))
from helpers.finished_games import finished  # noqa: E402  (whole games the engines play)
from helpers.postgres import cluster  # noqa: E402  (the tests' throw-away cluster, fsync on here)

GAMES = 1000
NAMES = ["Ann", "Bo", "Cy", "Di", "Ed", "Fay", "Gus", "Hui", "李雷", "韩梅梅", "王芳", "张伟"]
HOST = "127.0.0.1"
# The target (issue 30): a server of 1,000 finished games answers within this many seconds of its start.
TARGET_SECONDS = 2.0
# How many times each kind of start (clean, after kill -9) is timed: the figure is their median.
STARTS = 5


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def fill(data: pathlib.Path, database: str | None, games: int) -> None:
    """``games`` finished games stored whole (record, journal, summary), as an import stores them."""
    from companion.games import get_engine
    from companion.session.registry import TableRegistry
    from companion.session.store import ImportedTable, JournalEntry, TableRecord
    from companion.session.table import Table, hash_pin

    registry = TableRegistry(data, database=database)
    try:
        batch = []
        made = {game: finished(game) for game in ("kingdoms", "dungeon", "chosen")}
        for number in range(games):
            game, setup, events = made[("kingdoms", "dungeon", "chosen")[number % 3]]
            seats = len(setup["players"])
            names = [NAMES[(number + seat) % len(NAMES)] for seat in range(seats)]
            players = [({**p, "name": name} if isinstance(p, dict) else name) for p, name in zip(setup["players"], names)]
            at = time.time() - (games - number) * 600.0
            entries = [JournalEntry(seq, "event", event, "referee", at + seq) for seq, event in enumerate(events, 1)]
            salt = secrets.token_hex(8)
            record = TableRecord(registry.new_id(), game, {**setup, "players": players}, salt, hash_pin("000000", salt), at, {},
                                 hash_pin(secrets.token_urlsafe(32), salt))
            table = Table(record, registry.store, get_engine(game))
            table.load(entries)
            assert not table.warnings and table.summary().state == "finished"
            batch.append(ImportedTable(record, entries, table.summary()))
            if len(batch) == 100:
                registry.store.import_tables(batch)
                batch = []
        if batch:
            registry.store.import_tables(batch)
    finally:
        registry.close()


def start(data: pathlib.Path, database: str | None, port: int) -> tuple[subprocess.Popen, float]:
    """``companion serve`` started; seconds from the start to its first answer."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("COMPANION_DATABASE", None)
    store = ["--database", database] if database else []
    began = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--host", HOST, "--port", str(port),
                                "--data", str(data), *store], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = began + 120
    while time.monotonic() < deadline:
        try:
            status, _ = get(port, "/api/tables", timeout=1.0)
            if status == 200:
                return process, time.monotonic() - began
        except OSError:
            pass
        time.sleep(0.02)
    process.kill()
    raise RuntimeError("the server did not answer within 120 s")


def get(port: int, path: str, headers: dict | None = None, timeout: float = 30.0) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def median_ms(port: int, path: str, headers: dict, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        status, body = get(port, path, headers)
        times.append(time.perf_counter() - began)
        assert status == 200, (path, status, body[:200])
    return statistics.median(times) * 1000


def replay_everything(data: pathlib.Path, database: str | None, games: int) -> float:
    """Seconds to replay every journal: what every start cost before the summaries (issue 30 measured 16-19 s for 83 tables)."""
    from companion.session.registry import TableRegistry

    began = time.monotonic()
    registry = TableRegistry(data, database=database)
    try:
        count = len(registry.list())
    finally:
        registry.close()
    assert count >= games
    return time.monotonic() - began


def run(quick: bool) -> list[dict]:
    games = 150 if quick else GAMES
    repeats = 5 if quick else 20
    starts = 2 if quick else STARTS
    load = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory(prefix="companion-bench-history-") as folder, cluster(fsync=True) as pg:
        folder = pathlib.Path(folder)
        for label, database in (("sqlite", None), ("postgres", pg.new_database())):
            data = folder / label
            fill(data, database, games)
            port = free_port()
            # One start is one sample of a loaded machine (two runs minutes apart gave 0.97 s and 1.56 s): each kind
            # of start is timed STARTS times, each round a clean start, a kill -9, a start after it and a clean stop.
            firsts, after_kills = [], []
            for round_number in range(starts):
                process, first = start(data, database, port)
                firsts.append(first)
                try:
                    if round_number == 0:
                        host = {"X-Host-Token": (data / "host-token").read_text().strip()}
                        status, body = get(port, "/api/evening/tables", host)
                        assert status == 200 and body.count(b'"finished"') >= games, body[:200]
                        listed = median_ms(port, "/api/evening/tables", host, repeats)
                        page = median_ms(port, "/evening", host, repeats)
                        records = median_ms(port, "/api/evening/players", host, repeats)
                finally:
                    process.send_signal(signal.SIGKILL)
                    process.wait(10)
                process, after_kill = start(data, database, port)
                after_kills.append(after_kill)
                process.send_signal(signal.SIGINT)
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(10)
            replayed = replay_everything(data, database, games) if not quick or label == "sqlite" else float("nan")
            note = f"{games} finished games; load {load:.1f}; target {TARGET_SECONDS:.0f} s"

            def spread(times: list[float]) -> str:
                return f"{len(times)} starts, {min(times):.2f}-{max(times):.2f} s; {note}"

            rows += [
                {"name": f"{label}: start to first answer", "median": statistics.median(firsts), "unit": "s", "note": spread(firsts)},
                {"name": f"{label}: start after kill -9 to first answer", "median": statistics.median(after_kills), "unit": "s",
                 "note": spread(after_kills)},
                {"name": f"{label}: every journal replayed (a start before summaries)", "median": replayed, "unit": "s",
                 "note": f"{games} games, in-process"},
                {"name": f"{label}: the host's list (GET /api/evening/tables)", "median": listed, "unit": "ms", "note": f"{games} tables"},
                {"name": f"{label}: the evening page (GET /evening)", "median": page, "unit": "ms", "note": f"{games} tables"},
                {"name": f"{label}: the players' records (GET /api/evening/players)", "median": records, "unit": "ms",
                 "note": f"{len(NAMES)} players"},
            ]
    return rows
