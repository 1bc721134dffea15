"""A venue on one server (issue 23): how many tables hold with every table posting detections at 5 frames/s.

``load_venue.py``'s load for the runner's table: the real ``companion serve`` as a child process, each
simulated table replaying its recorded detections (the three demo recordings read once by the shipped
neural detector, kept in ``var/venue-readings/``) at 5 posts a second with 2 phones watching it, a
referee in its own process timing its changes. The counts are tried in turn, a fresh server each,
until one does not hold (a table falls behind, the referee's p99 reaches 200 ms, or a post fails).
Both on one process (SQLite) and on ``serve --workers 2`` (two processes sharing the port, on a throw-
away PostgreSQL cluster on the same cores; each simulated table and phone posts from a loopback address
of its own, as a venue's machines each have one). Rows: the most tables that held, and per count tried
the referee's p99, the slowest table's share of posts sent on time and the server's CPU per post (the
figure other jobs on the machine inflate least). The load generator shares the server's cores. First, in
this process (no HTTP, no other process): the CPU of one post over 12 tables' 1,200 posts, split by
stage (what to make faster). For
tables that still send frames, beside it: ``python benchmarks/run.py venue batching`` (bench_batching.py).

    python benchmarks/run.py venue            # 5, 10, 15, 20, 30, … 70 tables, 30 s each after a 10 s warm-up,
                                              # on one process, then on serve --workers 2 (PostgreSQL)
    python benchmarks/load_venue.py --find 10,20,30,40,50,60,70 [--workers 2]   # the same, one JSON line per count
"""
from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import load_venue  # noqa: E402

COUNTS = (5, 10, 15, 20, 30, 40, 45, 50, 60, 70)
QUICK_COUNTS = (5, 10)


STAGES = (("companion.table.pipeline", "TablePipeline.process_readings", "the pipeline (all of the below but parsing and journal)"),
          ("companion.table.pipeline", "cards_from_readings", "grouping the readings into cards"),
          ("companion.table.tracker", "Tracker.update", "the tracker"),
          ("companion.table.pipeline", "TablePipeline.observations", "table positions (mat mm, bare backs, markers)"),
          ("calibration.homography", "detect_markers", "the mat's markers in stills"),
          ("web_ui.camera", "parse_readings", "parsing and checking a post"),
          ("companion.session.table", "Table.submit", "camera events into the journal (SQLite, synchronous=FULL)"))


def stages(tables: int = 12, posts: int = 1200) -> list[dict]:
    """CPU milliseconds a post, in this process through the Flask app (no HTTP), and per stage."""
    import collections
    import importlib
    import random
    import time

    from web_ui import create_app

    spent: collections.Counter = collections.Counter()
    undo = []
    for module_name, attribute, _ in STAGES:
        module = importlib.import_module(module_name)
        owner_name, _, name = attribute.rpartition(".")
        owner = getattr(module, owner_name) if owner_name else module
        original = getattr(owner, name)

        def timed(*args, __original=original, __key=attribute, **kwargs):
            began = time.process_time()
            try:
                return __original(*args, **kwargs)
            finally:
                spent[__key] += time.process_time() - began

        setattr(owner, name, timed)
        undo.append((owner, name, original))
    try:
        recordings = {game: load_venue.recorded(game) for game in load_venue.GAMES}
        frames = {game: load_venue.bodies(data) for game, data in recordings.items()}
        with tempfile.TemporaryDirectory(prefix="companion-venue-") as folder:
            app = create_app({"DATA_DIR": folder, "CAMERA_DETECTION": False, "MAX_DETECTIONS_PER_SECOND": 1000.0,
                              "DETECTIONS_BURST": 1000})
            client = app.test_client()
            readers = []
            for n in range(tables):
                game = load_venue.GAMES[n % len(load_venue.GAMES)]
                table = client.post("/api/tables", json={"game": game, **recordings[game]["setup"]}).get_json()
                for event in recordings[game]["setup_events"]:
                    client.post(f"/api/tables/{table['id']}/events", json=event, headers={"X-Referee-Token": table["referee_token"]})
                readers.append({"table": table, "frames": frames[game], "offset": random.Random(n).randrange(len(frames[game])),
                                "seq": 0, "want": True})

            def post(reader):
                table, recording = reader["table"], reader["frames"]
                k = reader["offset"] + reader["seq"]
                stamp, body, still = recording[k % len(recording)]
                stamp += (recording[-1][0] + 1 / 6) * (k // len(recording))
                payload = body.replace(b'"time":0.0,"seq":0,"feed":"FEED"',
                                       f'"time":{stamp:.4f},"seq":{reader["seq"]},"feed":"bench"'.encode(), 1)
                if reader["want"]:
                    payload = payload[:-1] + b',"mat_frame":"' + still + b'"}'
                answer = client.post(f"/api/tables/{table['id']}/detections", data=payload, content_type="application/json",
                                     headers={"X-Referee-Token": table["referee_token"]})
                assert answer.status_code == 200, answer.get_json()
                reader["want"] = answer.get_json()["want_frame"]
                reader["seq"] += 1

            for _ in range(50):   # every table finds its mat first
                for reader in readers:
                    post(reader)
            rounds, per_post, per_stage = 3, [], []
            for _ in range(rounds):   # the median of three rounds' means: a load that comes and goes weighs on one
                spent.clear()
                began = time.process_time()
                for _ in range(posts // tables // rounds):
                    for reader in readers:
                        post(reader)
                count = posts // tables // rounds * tables
                per_post.append((time.process_time() - began) * 1000 / count)
                per_stage.append({key: value * 1000 / count for key, value in spent.items()})
            app.extensions["camera"].close()
            app.extensions["registry"].close()
    finally:
        for owner, name, original in undo:
            setattr(owner, name, original)
    rows = [{"name": "server CPU a post of detections, in one process", "median": statistics.median(per_post), "unit": "ms",
             "note": f"3 rounds of {count} posts of {tables} tables through the Flask app (no HTTP); stages below"}]
    for _, attribute, what in STAGES:
        rows.append({"name": f"  of which {what}", "median": statistics.median(r.get(attribute, 0.0) for r in per_stage),
                     "unit": "ms", "note": attribute})
    return rows


def series(args, cpus, recordings: dict, frames: dict, workers: int, counts: tuple[int, ...]) -> list[dict]:
    """The counts in turn on ``workers`` processes (more than one: ``serve --workers`` on a throw-away PostgreSQL
    cluster on the same cores) until one does not hold; the most that held first."""
    args.workers = workers
    label = "one process (SQLite)" if workers == 1 else f"serve --workers {workers} (PostgreSQL on the same cores)"
    held, rows = 0, []
    for count in counts:
        result = load_venue.run_venue(args, cpus, count, recordings, frames)
        print(f"bench_venue: {label}, {count} tables: {'held' if result['held'] else 'did not hold'} "
              f"(referee p99 {result['referee_ms_p99']} ms, slowest table on time {result['slowest_table_on_time']:.0%}, "
              f"server {result['server_cpu_ms_per_post']} ms CPU a post, load average {result['load_average_1min_before']})",
              file=sys.stderr, flush=True)
        database = "" if result["database_cpu_s_per_s"] is None else f", PostgreSQL {result['database_cpu_s_per_s']} cores"
        note = (f"{'held' if result['held'] else 'did NOT hold'}: slowest table sent {result['slowest_table_on_time']:.0%} of its posts on time, "
                f"{result['tables_behind']} behind, {result['failed_posts']} failed; post p50 {result['post_ms_p50']} ms; "
                f"server {result['server_cpu_ms_per_post']} ms CPU a post, {result['server_cpu_s_per_s']} cores{database}; "
                f"load average {result['load_average_1min_before']}")
        rows.append({"name": f"{label}, {count} tables posting detections at 5/s: referee p99", "median": result["referee_ms_p99"],
                     "unit": "ms", "note": note})
        if not result["held"]:
            break
        held = count
    rows.insert(0, {"name": f"tables {label} holds, every table posting detections at 5/s", "median": held, "unit": "tables",
                    "note": f"none behind (>= {load_venue.KEEPS_UP_SHARE:.0%} of posts on time), referee p99 < 200 ms, "
                            f"2 phones per table; counts tried: {', '.join(r['name'].split(', ')[-1].split()[0] for r in rows)}"})
    return rows


def run(quick: bool) -> list[dict]:
    import os

    args = argparse.Namespace(rate=5.0, seconds=8.0 if quick else 30.0, warmup=4.0 if quick else 10.0, phones=2, referee_rate=2.0)
    available = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    cpus = [c for c in (0, 1) if c in available] or None
    recordings = {game: load_venue.recorded(game) for game in load_venue.GAMES}
    frames = {game: load_venue.bodies(data) for game, data in recordings.items()}
    staged = stages(6 if quick else 12, 300 if quick else 1200)
    counts = QUICK_COUNTS if quick else COUNTS
    return staged + series(args, cpus, recordings, frames, 1, counts) + series(args, cpus, recordings, frames, 2, counts)
