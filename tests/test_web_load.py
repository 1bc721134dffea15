"""The load, soak and crash tests of ``benchmarks/load_web.py`` in a short form, against a real
``companion serve`` process on 127.0.0.1: every watcher gets every change once and in order, the patches
rebuild the state exactly, and no acknowledged change is lost to kill -9. Timings and memory are the
benchmark's to report (docs/web.md), never asserted here."""
from __future__ import annotations

import argparse
import asyncio
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("load_web", ROOT / "benchmarks" / "load_web.py")
load_web = importlib.util.module_from_spec(spec)
spec.loader.exec_module(load_web)


def run_against_server(tmp_path, runner, database=None, **options):
    server = load_web.Server(tmp_path, None, database).start()
    try:
        return asyncio.run(runner(argparse.Namespace(**options), server))
    finally:
        server.stop()


# Each on both stores (the ``database`` fixture: SQLite, then a fresh PostgreSQL database in the session's cluster).
def test_forty_watchers_each_get_every_change_in_order(tmp_path, database):
    result = run_against_server(tmp_path, load_web.watchers_test, database, watchers=40, changes=12, rate=20.0)
    assert result["watchers_with_every_change_in_order"] == 40
    assert result["sampled_states_rebuilt_exactly"] is True


def test_a_short_soak_loses_nothing_and_keeps_the_order(tmp_path, database):
    result = run_against_server(tmp_path, load_web.soak_test, database, tables=3, phones=3, rate=4.0, minutes=0.1, warmup=0.0)
    assert result["changes"] >= 3 * 4 and result["failed_requests"] == 0
    assert result["phones_with_every_change_in_order"] == 9 and result["sampled_states_rebuilt_exactly"] is True


def test_kill_9_during_bursts_loses_no_acknowledged_change(database):
    result = asyncio.run(load_web.crash_test(argparse.Namespace(rounds=2, writers=2, cpu_list=None, database=database)))
    assert result["acknowledged_changes"] > 0
    assert result["lost"] == 0, result["examples"]
