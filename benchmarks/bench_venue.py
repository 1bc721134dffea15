"""A venue on one server (issue 23): how many tables hold with every table posting detections at 5 frames/s.

``load_venue.py``'s load for the runner's table: the real ``companion serve`` as a child process, each
simulated table replaying its recorded detections (the three demo recordings read once by the shipped
neural detector, kept in ``var/venue-readings/``) at 5 posts a second with 2 phones watching it, a
referee in its own process timing its changes. The counts are tried in turn, a fresh server each,
until one does not hold (a table falls behind, the referee's p99 reaches 200 ms, or a post fails).
Rows: the most tables that held, and per count tried the referee's p99, the slowest table's share
of posts sent on time and the server's CPU per post (the figure other jobs on the machine inflate
least). The load generator shares the server's cores. For tables that still send frames, beside
it: ``python benchmarks/run.py venue batching`` (bench_batching.py).

    python benchmarks/run.py venue            # 10, 20, … 70 tables, 30 s each after a 10 s warm-up
    python benchmarks/load_venue.py --find 10,20,30,40,50,60,70   # the same, one JSON line per count
"""
from __future__ import annotations

import argparse
import asyncio
import pathlib
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import load_venue  # noqa: E402

COUNTS = (10, 20, 30, 40, 50, 60, 70)
QUICK_COUNTS = (5, 10)


def run(quick: bool) -> list[dict]:
    import os

    args = argparse.Namespace(rate=5.0, seconds=8.0 if quick else 30.0, warmup=4.0 if quick else 10.0, phones=2, referee_rate=2.0)
    available = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    cpus = [c for c in (0, 1) if c in available] or None
    recordings = {game: load_venue.recorded(game) for game in load_venue.GAMES}
    frames = {game: load_venue.bodies(data) for game, data in recordings.items()}
    held, rows = 0, []
    for count in QUICK_COUNTS if quick else COUNTS:
        with tempfile.TemporaryDirectory(prefix="companion-venue-") as folder:
            server = load_venue.Server(pathlib.Path(folder), cpus).start()
            try:
                result = asyncio.run(load_venue.venue(args, server, count, recordings, frames))
            finally:
                server.stop()
        print(f"bench_venue: {count} tables: {'held' if result['held'] else 'did not hold'} "
              f"(referee p99 {result['referee_ms_p99']} ms, slowest table on time {result['slowest_table_on_time']:.0%}, "
              f"server {result['server_cpu_ms_per_post']} ms CPU a post, load average {result['load_average_1min_before']})",
              file=sys.stderr, flush=True)
        note = (f"{'held' if result['held'] else 'did NOT hold'}: slowest table sent {result['slowest_table_on_time']:.0%} of its posts on time, "
                f"{result['tables_behind']} behind, {result['failed_posts']} failed; post p50 {result['post_ms_p50']} ms; "
                f"server {result['server_cpu_ms_per_post']} ms CPU a post, {result['server_cpu_s_per_s']} cores; "
                f"load average {result['load_average_1min_before']}")
        rows.append({"name": f"{count} tables posting detections at 5/s: referee p99", "median": result["referee_ms_p99"],
                     "unit": "ms", "note": note})
        if not result["held"]:
            break
        held = count
    rows.insert(0, {"name": "tables one server holds, every table posting detections at 5/s", "median": held, "unit": "tables",
                    "note": f"none behind (>= {load_venue.KEEPS_UP_SHARE:.0%} of posts on time), referee p99 < 200 ms, "
                            f"2 phones per table; counts tried: {', '.join(str(r['name'].split()[0]) for r in rows)}"})
    return rows
