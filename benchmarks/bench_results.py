"""Result pages on a server holding 1,000 finished games (issue 30), as a phone meets them: ``companion serve``
started as a process on the data folder ``bench_history.py`` fills (the same 1,000 whole games, stored as an
import stores them), then over HTTP:

- the **first** result page of a table after the server restarted (killed with SIGKILL, started again): a
  server replays no journal to start, so that request replays the table's journal through its engine before
  it answers; per game, each on tables nobody asked for since the restart, and the very first request the
  restarted server answers (its templates and the result code are loaded then) apart;
- the same pages asked again (the table in memory), the chart alone, the picture and the JSON, for random
  tables: the median and the 95th percentile.

Wall-clock times of a real server on this machine: say the load average beside them (the rows' note does).

    python benchmarks/run.py results          # 1,000 games (--quick: 150, fewer requests)
"""
from __future__ import annotations

import os
import pathlib
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_history as history  # noqa: E402  (its 1,000-game data folder and its server process, not a copy)

GAMES = history.GAMES
QUICK_GAMES = 150
# Tables of each game asked for the first time after the restart (each such request replays one journal).
FIRST_ASKED_PER_GAME = 20
WARM_REQUESTS = 200


def percentile(times: list[float], share: float) -> float:
    ordered = sorted(times)
    return ordered[max(0, int(len(ordered) * share) - 1)]


def timed_get(port: int, path: str) -> float:
    began = time.perf_counter()
    status, body = history.get(port, path)
    elapsed = time.perf_counter() - began
    assert status == 200, (path, status, body[:200])
    return elapsed


def stop(process: subprocess.Popen, hard: bool) -> None:
    process.send_signal(signal.SIGKILL if hard else signal.SIGINT)
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


def tables_by_game(port: int, host: dict) -> dict[str, list[str]]:
    status, body = history.get(port, "/api/evening/tables", host)
    assert status == 200, body[:200]
    import json

    found: dict[str, list[str]] = {}
    for table in json.loads(body)["tables"]:
        assert table["state"] == "finished", table
        found.setdefault(table["game"], []).append(table["id"])
    return found


def run(quick: bool) -> list[dict]:
    games = QUICK_GAMES if quick else GAMES
    first_per_game = 5 if quick else FIRST_ASKED_PER_GAME
    warm_requests = 40 if quick else WARM_REQUESTS
    rng = random.Random(30)
    rows = []
    with tempfile.TemporaryDirectory(prefix="companion-bench-results-") as folder:
        data = pathlib.Path(folder) / "sqlite"
        began = time.monotonic()
        history.fill(data, None, games)
        filled = time.monotonic() - began
        port = history.free_port()
        process, _ = history.start(data, None, port)
        try:
            host = {"X-Host-Token": (data / "host-token").read_text().strip()}
            tables = tables_by_game(port, host)
            assert sum(map(len, tables.values())) >= games
        finally:
            stop(process, hard=True)   # a kill -9: the restart below finds the folder as a crash leaves it
        load = os.getloadavg()[0]
        process, started = history.start(data, None, port)
        try:
            asked = {game: rng.sample(ids, first_per_game) for game, ids in tables.items()}
            # the restarted server's very first result page (its templates and the result code load with it), at a table not among those
            very_first = timed_get(port, f"/t/{next(t for t in tables['kingdoms'] if t not in asked['kingdoms'])}/result")
            for game in ("kingdoms", "dungeon", "chosen"):
                first = [timed_get(port, f"/t/{table}/result") for table in asked[game]]
                again = [timed_get(port, f"/t/{table}/result") for table in asked[game]]
                rows += [{"name": f"{game}: first result page of a table after the restart (its journal replayed)",
                          "median": statistics.median(first) * 1000, "unit": "ms",
                          "note": f"p95 {percentile(first, 0.95) * 1000:.0f} ms; {len(first)} tables; load {load:.1f}"},
                         {"name": f"{game}: the same page asked again (the table in memory)",
                          "median": statistics.median(again) * 1000, "unit": "ms",
                          "note": f"p95 {percentile(again, 0.95) * 1000:.0f} ms; {len(again)} tables"}]
            # the tables asked above are in memory now: what each address costs once a table is loaded
            loaded = [table for ids in asked.values() for table in ids]
            for name, path in (("result page", "/t/{}/result"), ("chart alone (chart.svg)", "/t/{}/result/chart.svg"),
                               ("picture (result.svg)", "/t/{}/result.svg"), ("result JSON", "/api/tables/{}/result")):
                times = [timed_get(port, path.format(rng.choice(loaded))) for _ in range(warm_requests)]
                rows.append({"name": f"{name}, a loaded table", "median": statistics.median(times) * 1000, "unit": "ms",
                             "note": f"p95 {percentile(times, 0.95) * 1000:.0f} ms; {len(times)} requests; load {os.getloadavg()[0]:.1f}"})
        finally:
            stop(process, hard=False)
    note = f"{games} finished games; load {load:.1f}"
    rows = [{"name": "the restarted server's very first result page", "median": very_first * 1000, "unit": "ms", "note": note},
            {"name": "start after kill -9 to first answer", "median": started, "unit": "s", "note": note},
            *rows,
            {"name": f"{games} finished games stored (bench_history.fill)", "median": filled, "unit": "s", "note": "once"}]
    return rows
