"""A server full of history starts at once (issue 30, item 7): no journal is replayed at start or for the
evening's list (the summary rows, written with each change), a table is replayed when first asked for, the
summaries are never behind the journal after a kill -9, and a database from before summaries gets them.
On SQLite and PostgreSQL. (The 2-second target itself is measured in benchmarks/bench_history.py.)"""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

from companion.games import get_engine
from companion.session import TableRegistry

from helpers.finished_games import finished

GAMES = ("kingdoms", "dungeon", "chosen")


class CountingEngine:
    """A real engine that counts the events it applies (a replay is new_game plus an apply per event)."""

    def __init__(self, engine, counts):
        self.engine, self.counts = engine, counts

    def apply(self, state, event):
        self.counts["apply"] += 1
        return self.engine.apply(state, event)

    def new_game(self, setup):
        self.counts["new_game"] += 1
        return self.engine.new_game(setup)

    def __getattr__(self, name):
        return getattr(self.engine, name)


def counting_registry(data_dir, database):
    counts = {"apply": 0, "new_game": 0}
    registry = TableRegistry(data_dir, engines=lambda name: CountingEngine(get_engine(name), counts), database=database)
    return registry, counts


def play_all(registry):
    made = {}
    for game in GAMES:
        _, setup, events = finished(game)
        table, _pin = registry.create(game, setup)
        for event in events:
            table.submit(event)
        made[table.id] = (game, len(events), table.summary())
    return made


def test_a_server_replays_no_journal_to_start_or_to_list_and_loads_a_table_when_asked_for(tmp_path, database):
    first = TableRegistry(tmp_path, database=database)
    made = play_all(first)
    first.close()

    registry, counts = counting_registry(tmp_path, database)
    try:
        assert counts == {"apply": 0, "new_game": 0}
        listed = {s.table_id: s for s in registry.summaries()}
        assert counts == {"apply": 0, "new_game": 0}   # the list reads the summary rows
        assert set(listed) == set(made)
        for table_id, (_game, _events, summary) in made.items():
            assert (listed[table_id].state, listed[table_id].players, listed[table_id].winners) == \
                   ("finished", summary.players, summary.winners)
            assert listed[table_id].winners
        one = next(iter(made))
        table = registry.get(one)
        assert counts["apply"] == made[one][1]   # that table's journal only
        assert table.summary() == made[one][2]
        registry.get(one)
        assert counts["apply"] == made[one][1]   # loaded once
    finally:
        registry.close()


KILLED_SERVER = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, "tests")
    from helpers.finished_games import finished
    from companion.session import TableRegistry
    registry = TableRegistry(sys.argv[1], database=sys.argv[2] or None)
    for game in ("kingdoms", "dungeon", "chosen"):
        _, setup, events = finished(game)
        table, _ = registry.create(game, setup)
        for event in events:
            table.submit(event)
    _, setup, events = finished("dungeon")
    table, _ = registry.create("dungeon", setup)
    for event in events[:len(events) // 2]:
        table.submit(event)
    print(table.id, table.seq, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


def test_after_a_kill_9_every_summary_matches_its_journal_and_the_server_starts_without_replaying(tmp_path, database):
    killed = subprocess.run([sys.executable, "-c", KILLED_SERVER, str(tmp_path), database or ""], capture_output=True,
                            text=True, timeout=300, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    half_played, revision = killed.stdout.split()
    registry, counts = counting_registry(tmp_path, database)
    try:
        summaries = {s.table_id: s for s in registry.summaries()}
        assert counts["apply"] == 0 and len(summaries) == 4
        assert summaries[half_played].state == "playing" and summaries[half_played].seq == int(revision)
        assert sorted(s.state for s in summaries.values()) == ["finished", "finished", "finished", "playing"]
        for table_id, summary in summaries.items():
            table = registry.get(table_id)
            assert summary.seq == table.seq == registry.store.journal(table_id)[-1].seq
            assert summary == table.summary()
    finally:
        registry.close()


def test_a_database_from_before_summaries_gets_them_once(tmp_path):
    first = TableRegistry(tmp_path)
    made = play_all(first)
    first.close()
    with sqlite3.connect(tmp_path / "companion.sqlite3") as db:   # as a database made before summaries
        db.execute("DELETE FROM table_summaries")
    registry, counts = counting_registry(tmp_path, None)
    try:
        assert counts["apply"] == 0 and len(registry.store.unsummarized()) == 3
        listed = {s.table_id: (s.state, s.winners) for s in registry.summaries()}
        assert listed == {table_id: ("finished", summary.winners) for table_id, (_g, _n, summary) in made.items()}
        assert registry.store.unsummarized() == []
        replayed = counts["apply"]
        registry.summaries()
        assert counts["apply"] == replayed   # made once, then read
    finally:
        registry.close()
