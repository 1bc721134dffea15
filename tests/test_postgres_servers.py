"""Two real ``companion serve`` processes on one PostgreSQL database (the session's throw-away cluster):
a table made through one is refereed through the other; 8 phones watching, spread over both, receive
every change in order (their patches rebuild the table exactly); a change through each at the same
revision: one 200, one 409; a phone that reconnects to the other server with Last-Event-ID misses
nothing."""
from __future__ import annotations

import importlib.util
import pathlib
import threading

import pytest

from helpers.web import StreamReader, request

ROOT = pathlib.Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("load_web", ROOT / "benchmarks" / "load_web.py")
load_web = importlib.util.module_from_spec(spec)
spec.loader.exec_module(load_web)

PLACE = load_web.PLACE


@pytest.fixture
def two_servers(tmp_path, postgres_url):
    servers = [load_web.Server(tmp_path / name, None, postgres_url).start() for name in ("one", "two")]
    yield [f"http://{load_web.HOST}:{server.port}" for server in servers]
    for server in servers:
        server.stop()


def change(base, table, n, expected=None):
    """The n-th change: a card placed (even n), then undone (odd n)."""
    headers = {"X-Referee-Token": table["referee_token"]}
    if expected is not None:
        headers["X-Expected-Revision"] = str(expected)
    if n % 2 == 0:
        return request(base, "POST", f"/api/tables/{table['id']}/events", PLACE, headers)
    return request(base, "POST", f"/api/tables/{table['id']}/undo", {}, headers)


def test_two_servers_share_a_table_its_watchers_and_its_revisions(two_servers):
    one, two = two_servers
    status, table = request(one, "POST", "/api/tables", load_web.KINGDOMS)
    assert status == 201
    stream = f"/api/tables/{table['id']}/stream"
    phones = [StreamReader(base, stream) for base in (one, two) * 4]   # 4 phones on each server
    try:
        for phone in phones:
            phone.wait_for(1)
        for n in range(20):   # the referee's changes alternate between the servers
            status, answer = change(one if n % 2 else two, table, n)
            assert status == 200 and answer["revision"] == n + 1, answer
        for phone in phones:
            events = phone.wait_for(21, timeout=15)
            assert [e["id"] for e in events] == list(range(0, 21)) and events[0]["event"] == "snapshot"
        for base in (one, two):
            _, state = request(base, "GET", f"/api/tables/{table['id']}")
            assert all(phone.state == state for phone in phones)

        # one revision, a change through each server: exactly one 200, the other 409
        for round_number in range(5):
            revision = 20 + round_number
            answers = [None, None]

            def send(index, base, answers=answers, revision=revision):
                answers[index] = change(base, table, revision, expected=revision)[0]

            threads = [threading.Thread(target=send, args=(index, base)) for index, base in enumerate((one, two))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(15)
            assert sorted(answers) == [200, 409], answers

        # a phone on the first server reconnects to the second with Last-Event-ID and misses nothing
        moved = phones[0]
        moved.close()
        at = moved.events[-1]["id"]
        for n in range(25, 29):
            assert change(one, table, n)[0] == 200
        again = StreamReader(two, stream, headers={"Last-Event-ID": str(at)}, state=moved.state)
        try:
            events = again.wait_for(29 - at, timeout=15)
            assert [e["id"] for e in events] == list(range(at + 1, 30)) and all(e["event"] == "change" for e in events)
            _, state = request(one, "GET", f"/api/tables/{table['id']}")
            assert again.state == state
        finally:
            again.close()
    finally:
        for phone in phones:
            phone.close()


def test_kill_9_of_either_server_during_bursts_loses_nothing_and_its_phones_resume_on_the_other(postgres_url):
    """Ten rounds (the victim alternates; bursts of 0.3-1 s): 0 acknowledged changes lost, every phone of the
    killed server resumes on the survivor with every change, in order."""
    import argparse
    import asyncio

    result = asyncio.run(load_web.failover_test(argparse.Namespace(rounds=10, writers=2, cpu_list=None, database=postgres_url)))
    assert result["acknowledged_changes"] > 0
    assert result["lost"] == 0 and result["phones_that_missed_a_change"] == 0, result["examples"]
