"""Several servers on PostgreSQL beside one server on SQLite: changes a second and the referee's p99.

Side by side in one run: one ``companion serve`` on its SQLite journal, and two on one PostgreSQL database
(a throw-away cluster made here, ``initdb`` + ``pg_ctl``, with durable commits: fsync and
synchronous_commit on, as a venue would run it). For 1 table and for 20 tables, writers change the tables
as fast as the servers answer for a few seconds (through both servers in turn on PostgreSQL): a card
placed, or the last one undone when the cell is taken (another writer of the same table came first).
Reported: changes acknowledged (200) a second, and the p99 of those requests' times. Everything (the
servers, PostgreSQL, this load generator) shares the machine's cores.

    python benchmarks/run.py postgres
"""
from __future__ import annotations

import asyncio
import importlib.util
import pathlib
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent


def _load(name: str, path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


load_web = _load("load_web", HERE / "load_web.py")
sys.path.insert(0, str(ROOT / "tests"))
from helpers.postgres import cluster  # noqa: E402  (the tests' throw-away cluster, fsync on here)

WRITERS_ONE_TABLE = 8   # referees' phones and camera posts on one busy table
TABLES_MANY = 20        # a venue's evening (one writer each)


async def drive(ports: list[int], tables: int, writers: int, seconds: float) -> tuple[float, float, int, int]:
    """Changes/s acknowledged, p99 ms, acknowledged and refused (422) counts."""
    made = [await load_web.new_table(ports[n % len(ports)]) for n in range(tables)]
    times: list[float] = []
    refused = 0
    stop = time.monotonic() + seconds

    async def writer(index: int) -> None:
        nonlocal refused
        table, port, n = made[index % tables], ports[index % len(ports)], index
        while time.monotonic() < stop:
            began = time.monotonic()
            status, body = await load_web.change(port, table, n)
            if status == 200:
                times.append(time.monotonic() - began)
            elif status == 422:
                refused += 1   # the cell was taken (or nothing to undo): the other kind of change next
            else:
                raise RuntimeError(f"status {status}: {body}")
            n += 1

    began = time.monotonic()
    await asyncio.gather(*(writer(index) for index in range(writers)))
    elapsed = time.monotonic() - began
    return len(times) / elapsed, load_web.percentile(times, 0.99) * 1000, len(times), refused


def run(quick: bool) -> list[dict]:
    seconds = 3.0 if quick else 12.0
    rows = []
    with tempfile.TemporaryDirectory(prefix="companion-bench-pg-") as folder, cluster(fsync=True) as pg:
        folder = pathlib.Path(folder)
        shared = pg.new_database()
        setups = [("sqlite, 1 server", [load_web.Server(folder / "sqlite", None).start()]),
                  ("postgres, 2 servers", [load_web.Server(folder / name, None, shared).start() for name in ("a", "b")])]
        try:
            for label, servers in setups:
                ports = [server.port for server in servers]
                for tables, writers in ((1, WRITERS_ONE_TABLE), (TABLES_MANY, TABLES_MANY)):
                    rate, p99, done, refused = asyncio.run(drive(ports, tables, writers, seconds))
                    what = f"{label}, {tables} table{'s' if tables > 1 else ''} ({writers} writers)"
                    note = f"{done} changes in {seconds:.0f} s, {refused} refused as taken"
                    rows.append({"name": f"{what}: changes/s", "median": rate, "unit": "changes/s", "note": note})
                    rows.append({"name": f"{what}: referee p99", "median": p99, "unit": "ms"})
        finally:
            for _label, servers in setups:
                for server in servers:
                    server.stop()
    return rows
