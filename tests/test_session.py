"""The session layer: journal, undo/redo, persistence and replay, PINs, camera vs referee.

The session is game-agnostic, so most of these tests drive it with ``GridEngine``, a tiny pure engine
obeying the engine protocol (place a card in an empty cell, clear a cell); the real engines are
exercised through the session in ``test_web_games.py``.
"""
from __future__ import annotations

import sqlite3
import threading

import pytest

from companion.games import IllegalEvent, InvalidSetup
from companion.session import SessionError, TableNotFound, TableRegistry, normalize_table_id

from helpers.grid_engine import SETUP, GridEngine, grid_registry, place


def test_create_gives_a_short_id_and_a_six_digit_pin(tmp_path):
    registry = grid_registry(tmp_path)
    table, pin = registry.create("grid", SETUP)
    assert normalize_table_id(table.id.lower()) == table.id
    assert len(pin) == 6 and pin.isdigit()
    assert table.pin_matches(pin)
    assert not table.pin_matches(str((int(pin) + 1) % 1_000_000).zfill(6))
    assert not table.pin_matches(None)
    assert registry.get(table.id.lower()) is table


@pytest.mark.parametrize("bad", ["", "abc", "../../etc/passwd", "AAAAA0", "AAAAAAA", None, 12])
def test_ids_that_cannot_be_tables_are_refused(tmp_path, bad):
    with pytest.raises(TableNotFound):
        grid_registry(tmp_path).get(bad)


def test_bad_setups_store_nothing(tmp_path):
    registry = grid_registry(tmp_path)
    with pytest.raises(InvalidSetup):
        registry.create("grid", {"players": []})
    with pytest.raises(InvalidSetup):
        registry.create("chess", SETUP)
    with pytest.raises(SessionError):
        registry.create("grid", {"players": [{"name": float("nan")}]})
    assert registry.list() == []
    assert grid_registry(tmp_path).list() == []


def test_events_are_journalled_with_sequence_numbers(tmp_path):
    table, _ = grid_registry(tmp_path).create("grid", SETUP)
    first = table.submit(place(0, 0, "10h"))
    second = table.submit(place(1, 1, "BJ"), source="camera")
    assert (first.seq, second.seq) == (1, 2)
    assert first.event["card"] == "10h" and second.source == "camera"
    view = table.snapshot()
    assert view["grid"][0][0] == "10H" and view["grid"][1][1] == "BJ"
    assert view["session"]["seq"] == 2 and view["session"]["can_undo"] and not view["session"]["can_redo"]


@pytest.mark.parametrize("bad", [None, [], "place", {"cell": [0, 0]}, {"type": ""}, {"type": 3}, {"type": "place", "x": float("inf")}])
def test_malformed_events_change_nothing(tmp_path, bad):
    table, _ = grid_registry(tmp_path).create("grid", SETUP)
    table.submit(place(0, 0, "AS"))
    before = table.snapshot()
    with pytest.raises(SessionError):
        table.submit(bad)
    assert table.snapshot() == before


def test_illegal_events_change_nothing_and_are_not_stored(tmp_path):
    registry = grid_registry(tmp_path)
    table, _ = registry.create("grid", SETUP)
    table.submit(place(0, 0, "AS"))
    before = table.snapshot()
    for bad in (place(0, 0, "2S"), place(5, 0, "2S"), place(0, 1, "ZZ"), {"type": "clear", "cell": [2, 2]}):
        with pytest.raises((IllegalEvent, ValueError)):
            table.submit(bad)
        assert table.snapshot() == before
    assert len(grid_registry(tmp_path).get(table.id).journal) == 1


def test_undo_and_redo(tmp_path):
    table, _ = grid_registry(tmp_path).create("grid", SETUP)
    with pytest.raises(IllegalEvent):
        table.undo()
    with pytest.raises(IllegalEvent):
        table.redo()
    table.submit(place(0, 0, "AS"))
    table.submit(place(0, 1, "2S"))
    assert table.undo().kind == "undo"
    assert table.snapshot()["grid"][0] == ["AS", None, None]
    assert table.snapshot()["session"]["redo_event"] == place(0, 1, "2S")
    table.undo()
    assert table.snapshot()["filled"] == 0
    table.redo()
    table.redo()
    assert table.snapshot()["grid"][0] == ["AS", "2S", None]
    assert [e.kind for e in table.journal] == ["event", "event", "undo", "undo", "redo", "redo"]
    assert [e.seq for e in table.journal] == [1, 2, 3, 4, 5, 6]


def test_a_new_event_after_undo_drops_the_redo(tmp_path):
    table, _ = grid_registry(tmp_path).create("grid", SETUP)
    table.submit(place(0, 0, "AS"))
    table.undo()
    table.submit(place(2, 2, "KD"))
    assert not table.snapshot()["session"]["can_redo"]
    with pytest.raises(IllegalEvent):
        table.redo()


def test_a_camera_reading_after_undo_drops_the_redo_too(tmp_path):
    table, _ = grid_registry(tmp_path).create("grid", SETUP)
    table.submit(place(0, 0, "AS"))
    table.undo()
    table.submit(place(0, 0, "3H"), source="camera")
    assert not table.snapshot()["session"]["can_redo"]


def test_restart_replays_every_table_exactly(tmp_path, database):
    # on both stores (the ``database`` fixture: SQLite, then a fresh PostgreSQL database)
    registry = grid_registry(tmp_path, database=database)
    one, pin_one = registry.create("grid", SETUP)
    two, _ = registry.create("grid", {"players": [{"name": "Cy"}], "options": {"fast": True}})
    for event in (place(0, 0, "AS"), place(0, 1, "2S"), place(1, 1, "QH")):
        one.submit(event)
    one.undo()
    one.undo()
    one.redo()
    two.submit(place(2, 2, "SJ"), source="camera")
    before = {t.id: t.snapshot() for t in registry.list()}
    journals = {t.id: t.journal for t in registry.list()}
    registry.close()

    again = grid_registry(tmp_path, database=database)
    assert {t.id: t.snapshot() for t in again.list()} == before
    assert {t.id: t.journal for t in again.list()} == journals
    assert again.get(one.id).pin_matches(pin_one)
    # The redo stack survives too: the undone event can still be redone after the restart.
    again.get(one.id).redo()
    assert again.get(one.id).snapshot()["grid"][1][1] == "QH"


def test_the_database_is_in_wal_mode_and_holds_no_pin(tmp_path):
    registry = grid_registry(tmp_path)
    table, pin = registry.create("grid", SETUP)
    table.submit(place(0, 0, "AS"))
    db = sqlite3.connect(registry.store.path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    rows = db.execute("SELECT * FROM tables").fetchall()
    assert rows and pin not in repr(rows)
    assert db.execute("SELECT seq, kind FROM journal").fetchall() == [(1, "event")]


def test_a_failed_write_changes_nothing(tmp_path):
    registry = grid_registry(tmp_path)
    table, _ = registry.create("grid", SETUP)
    registry.store.close()
    with pytest.raises(sqlite3.ProgrammingError):
        table.submit(place(0, 0, "AS"))
    assert table.seq == 0 and table.snapshot()["filled"] == 0


def test_the_referee_overrules_the_camera_on_the_same_place(tmp_path):
    table, _ = grid_registry(tmp_path).create("grid", SETUP)
    table.submit(place(0, 0, "8S"), source="camera")
    table.submit({"type": "clear", "cell": [0, 0]})
    table.submit(place(0, 0, "9S"))  # the referee: it is the dragon, not an 8
    table.submit({"type": "clear", "cell": [0, 0]}, source="referee")
    assert table.submit(place(0, 0, "8S"), source="camera") is None  # the camera's misreading is ignored
    assert table.snapshot()["grid"][0][0] is None
    # Elsewhere the camera still counts.
    assert table.submit(place(1, 0, "8S"), source="camera").seq == 5


def test_waiters_wake_on_a_change(tmp_path):
    table, _ = grid_registry(tmp_path).create("grid", SETUP)
    woke = []
    waiter = threading.Thread(target=lambda: woke.append(table.wait_for_change(0, timeout=5)))
    waiter.start()
    table.submit(place(0, 0, "AS"))
    waiter.join(5)
    assert woke == [True]
    assert table.wait_for_change(1, timeout=0.01) is False
    entries, state = table.changes_since(0)
    assert [e.seq for e in entries] == [1] and state["session"]["seq"] == 1


def test_player_colours_are_kept_for_the_screens_not_given_to_the_engine(tmp_path):
    registry = grid_registry(tmp_path)
    table, _ = registry.create("grid", {"players": [{"name": "Ann", "colour": "#DC2626"}, {"name": "Bo"}]})
    assert table.record.setup == {"players": [{"name": "Ann"}, {"name": "Bo"}]}
    assert table.snapshot()["session"]["colours"] == {"Ann": "#dc2626"}
    assert grid_registry(tmp_path).get(table.id).snapshot()["session"]["colours"] == {"Ann": "#dc2626"}
    with pytest.raises(SessionError):
        registry.create("grid", {"players": [{"name": "Ann", "colour": "red; background: url(x)"}]})


from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

operations = st.lists(st.one_of(
    st.tuples(st.just("place"), st.integers(0, 2), st.integers(0, 2), st.sampled_from(["AS", "10H", "BJ", "KD"]),
              st.sampled_from(["referee", "camera"])),
    st.tuples(st.just("clear"), st.integers(0, 2), st.integers(0, 2), st.just(None), st.sampled_from(["referee", "camera"])),
    st.tuples(st.just("undo"), st.just(0), st.just(0), st.just(None), st.just("referee")),
    st.tuples(st.just("redo"), st.just(0), st.just(0), st.just(None), st.just("referee")),
), max_size=25)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations)
def test_any_history_replays_to_the_same_table(tmp_path_factory, ops):
    from companion.games import replay

    folder = tmp_path_factory.mktemp("history")
    registry = grid_registry(folder)
    table, _ = registry.create("grid", SETUP)
    for kind, row, col, card, source in ops:
        before = table.snapshot()
        try:
            if kind == "place":
                table.submit(place(row, col, card), source=source)
            elif kind == "clear":
                table.submit({"type": "clear", "cell": [row, col]}, source=source)
            elif kind == "undo":
                table.undo()
            else:
                table.redo()
        except IllegalEvent:
            assert table.snapshot() == before  # a refusal changes nothing
    # The state is always the replay of the active events, and a restart rebuilds all of it.
    assert table.engine.view(table.state) == GridEngine().view(replay(GridEngine(), SETUP, table.active_events()))
    assert [e.seq for e in table.journal] == list(range(1, len(table.journal) + 1))
    again = grid_registry(folder).get(table.id)
    assert again.snapshot() == table.snapshot()
    assert again.journal == table.journal


def test_closing_the_registry_wakes_waiting_streams(tmp_path):
    registry = grid_registry(tmp_path)
    table, _ = registry.create("grid", SETUP)
    woke = []
    waiter = threading.Thread(target=lambda: woke.append(table.wait_for_change(0, timeout=30)))
    waiter.start()
    registry.close()
    waiter.join(5)
    assert woke == [False] and table.closed


def test_a_table_its_engine_no_longer_accepts_does_not_stop_the_others(tmp_path):
    registry = grid_registry(tmp_path)
    kept, _ = registry.create("grid", SETUP)
    broken, _ = registry.create("grid", {"players": [{"name": "Old"}]})
    registry.close()

    class StricterEngine(GridEngine):
        def new_game(self, setup):
            if setup["players"][0]["name"] == "Old":
                raise InvalidSetup("players named Old are no longer allowed")
            return super().new_game(setup)

    again = TableRegistry(tmp_path, engines=lambda name: StricterEngine(), games=("grid",))
    assert again.get(kept.id).id == kept.id
    with pytest.raises(TableNotFound, match="no longer allowed"):
        again.get(broken.id)
    assert broken.id in again.unavailable
    # Nothing was deleted: with the old rules it loads again.
    assert grid_registry(tmp_path).get(broken.id).id == broken.id


def test_the_public_setup_hides_the_seed_and_the_deal(tmp_path):
    class DealtGrid(GridEngine):
        def new_game(self, setup):
            return super().new_game({k: v for k, v in setup.items() if k not in ("seed", "deal")})

    registry = TableRegistry(tmp_path, engines=lambda name: DealtGrid(), games=("grid",))
    table, _ = registry.create("grid", {**SETUP, "seed": 42, "deal": {"hands": [["AS"]]}})
    assert table.snapshot()["session"]["setup"] == SETUP
    assert table.record.setup["seed"] == 42  # kept for the replay


def test_a_referee_event_about_a_player_does_not_silence_the_camera_for_that_player(tmp_path):
    from companion.session import TableRegistry

    registry = TableRegistry(tmp_path)
    table, _ = registry.create("dungeon", {"players": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}]})
    for player, guild in (("Ann", "S"), ("Bob", "D"), ("Cy", "C")):
        table.submit({"type": "choose_guild", "player": player, "guild": guild}, source="referee")
    table.submit({"type": "reveal", "card": "3C"}, source="camera")
    assert table.submit({"type": "commit", "player": "Ann"}, source="camera") is not None
    assert table.active_events()[-1] == {"type": "commit", "player": "Ann"}
    registry.close()
