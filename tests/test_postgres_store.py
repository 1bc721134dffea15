"""The PostgreSQL store (companion/session/postgres.py) against a real, throw-away cluster: two servers on
one database (here two registries, each with its own pool and listener, as two processes would have):
one revision per change decided in the database, Idempotency-Keys kept there, undo across servers, the
other server hearing every change in order; the schema's own guards; both stores agreeing on one history;
and the database lost and back."""
from __future__ import annotations

import random
import threading
import time

import psycopg
import pytest

from companion.games import IllegalEvent
from companion.session import StoreUnavailable
from companion.session.postgres import SCHEMA_DIR, PostgresStore
from companion.session.table import Conflict

from helpers.grid_engine import SETUP, grid_registry, place


def wait_until(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


@pytest.fixture
def two_servers(tmp_path, postgres_url):
    one = grid_registry(tmp_path / "one", database=postgres_url)
    two = grid_registry(tmp_path / "two", database=postgres_url)
    yield one, two
    one.close()
    two.close()


def test_a_table_made_on_one_server_is_refereed_on_the_other(two_servers):
    one, two = two_servers
    table, pin = one.create("grid", SETUP)
    table.submit(place(0, 0, "AS"))
    there = two.get(table.id)
    assert there.pin_matches(pin) and there.seq == 1 and there.snapshot() == table.snapshot()
    there.submit(place(0, 1, "2S"))
    there.undo()              # undo through the other server takes back its own last event
    there.undo()              # and then the first server's
    assert wait_until(lambda: table.seq == 4)
    assert table.snapshot() == there.snapshot() and table.snapshot()["filled"] == 0
    table.redo()
    assert [e.kind for e in two.get(table.id).journal] == ["event", "event", "undo", "undo", "redo"]
    assert [t.id for t in two.list()] == [table.id]


def test_a_change_through_each_server_at_the_same_revision_one_wins_the_other_is_409(two_servers):
    one, two = two_servers
    table, _ = one.create("grid", SETUP)
    there = two.get(table.id)
    for round_number in range(20):
        revision = table.sync()
        there.sync()
        start, outcomes = threading.Barrier(2), []

        def change(where, cell, start=start, outcomes=outcomes, revision=revision):
            start.wait()
            try:
                outcomes.append(where.submit(place(*cell, "AS"), expected=revision).seq)
            except Conflict:
                outcomes.append("409")

        threads = [threading.Thread(target=change, args=(where, (round_number % 3, column)))
                   for where, column in ((table, 0), (there, 1))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert sorted(outcomes, key=str) == sorted([revision + 1, "409"], key=str), outcomes
        (table if round_number % 2 else there).undo()   # either server takes the winner back
    journal = table.journal
    assert [e.seq for e in journal] == list(range(1, len(journal) + 1))


def test_changes_without_an_expected_revision_all_apply_whichever_server_they_reach(two_servers):
    one, two = two_servers
    table, _ = one.create("grid", SETUP)
    there = two.get(table.id)
    cells = [(row, column) for row in range(3) for column in range(3)]

    def writer(where, mine):   # each server's referee places and clears its own cells, twice over
        for _ in range(2):
            for cell in mine:
                where.submit(place(*cell, "AS"))
            for cell in mine:
                where.submit({"type": "clear", "cell": list(cell)})

    threads = [threading.Thread(target=writer, args=(where, cells[half::2])) for half, where in enumerate((table, there))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert table.sync() == there.sync() == 36
    assert table.snapshot() == there.snapshot()


def test_an_idempotency_key_applies_once_across_servers(two_servers):
    one, two = two_servers
    table, _ = one.create("grid", SETUP)
    there = two.get(table.id)
    first = table.submit(place(1, 1, "KH"), key="tap-1")
    again = there.submit(place(1, 1, "KH"), key="tap-1")   # the retry reached the other server
    assert again.replayed and again.seq == first.seq == 1 and len(there.journal) == 1
    undone = there.undo(key="tap-2")
    assert table.undo(key="tap-2").replayed and table.sync() == undone.seq == 2


def test_the_other_server_hears_every_change_in_order(two_servers):
    one, two = two_servers
    table, _ = one.create("grid", SETUP)
    there = two.get(table.id)
    heard = []
    two.listeners.append(lambda t, entry: entry is not None and heard.append(entry.seq))
    for n in range(30):
        table.undo() if n % 2 else table.submit(place(n % 3, 1, "AS"))
    assert wait_until(lambda: there.seq == 30)
    assert heard == list(range(1, 31))
    assert there.snapshot() == table.snapshot()
    # and the patches it made from them let a phone on it resume from any recent revision
    assert [entry.seq for entry, _ops in there.patches_since(10)] == list(range(11, 31))


def test_the_database_decides_the_revision_and_keeps_the_journal_append_only(two_servers, postgres_url):
    one, _two = two_servers
    table, _ = one.create("grid", SETUP)
    table.submit(place(0, 0, "AS"))
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        for statement in ("UPDATE journal SET kind = 'undo'", "DELETE FROM journal", "DELETE FROM tables",
                          f"INSERT INTO journal (table_id, seq, kind, source, at) VALUES ('{table.id}', 1, 'undo', 'referee', 0)",
                          f"INSERT INTO journal (table_id, seq, kind, source, at) VALUES ('{table.id}', 3, 'undo', 'referee', 0)"):
            with pytest.raises(psycopg.Error):
                connection.execute(statement)
        assert connection.execute("SELECT seq, kind FROM journal").fetchall() == [(1, "event")]
        assert [row[0] for row in connection.execute("SELECT version FROM companion_schema ORDER BY version")] == [
            "0001_journal", "0002_feed_leases", "0003_feed_states", "0004_table_summaries"]
        rows = connection.execute("SELECT * FROM tables").fetchall()
        assert rows and "pin" not in repr(rows[0][3:5])


def test_servers_starting_together_apply_the_schema_once(postgres_url):
    stores, errors = [], []

    def start():
        try:
            stores.append(PostgresStore(postgres_url, pool_min=1, pool_max=1))
        except Exception as error:   # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors and len(stores) == 4
    with psycopg.connect(postgres_url) as connection:
        assert connection.execute("SELECT count(*) FROM companion_schema").fetchone()[0] == len(list(SCHEMA_DIR.glob("*.sql"))) == 4
    for store in stores:
        store.close()


def test_both_stores_agree_on_one_history(tmp_path, postgres_url):
    """The same requests, in the same order, into SQLite and into PostgreSQL: the same answers, journals and states."""
    stores = {"sqlite": grid_registry(tmp_path / "sqlite"), "postgres": grid_registry(tmp_path / "pg", database=postgres_url)}
    tables = {name: registry.create("grid", SETUP)[0] for name, registry in stores.items()}
    chooser = random.Random(7)
    answers = {name: [] for name in stores}
    for step in range(150):
        action = chooser.choice(["place", "place", "place", "undo", "redo", "stale"])
        cell = (chooser.randrange(3), chooser.randrange(3))
        for name, table in tables.items():
            try:
                if action == "place":
                    entry = table.submit(place(*cell, "QS"), key=f"k{step}")
                elif action == "undo":
                    entry = table.undo()
                elif action == "redo":
                    entry = table.redo()
                else:
                    entry = table.submit(place(*cell, "QS"), expected=max(table.seq - 1, 0))
                answers[name].append((entry.seq, entry.kind))
            except (IllegalEvent, Conflict) as error:
                answers[name].append(type(error).__name__)
    assert answers["sqlite"] == answers["postgres"]
    journals = {name: [(e.seq, e.kind, e.event, e.source, e.key) for e in table.journal] for name, table in tables.items()}
    assert journals["sqlite"] == journals["postgres"] and len(journals["sqlite"]) >= 40
    views = {name: {k: v for k, v in table.snapshot().items() if k != "session"} for name, table in tables.items()}
    assert views["sqlite"] == views["postgres"]
    for registry in stores.values():
        registry.close()


def test_an_unreachable_database_at_start_is_a_clear_error():
    with pytest.raises(StoreUnavailable, match="cannot be reached"):
        PostgresStore("postgresql://nobody@127.0.0.1:1/none")
