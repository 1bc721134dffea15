"""The evening (issue 30, web_ui/evening.py): the host's list of the tables with their winners, the players'
records, export (CSV and JSON) and import, deleting a table, and who may see what. Real engines, games
played to their end through the API (tests/helpers/finished_games.py), on SQLite and PostgreSQL."""
from __future__ import annotations

import csv
import io
import json

import pytest

from companion.games import get_engine, replay
from companion.session.summary import player_key
from web_ui import TestConfig, create_app

from helpers.finished_games import finished

HOST = "h" * 43
AS_HOST = {"X-Host-Token": HOST}


def app_for(data_dir, database=None, **more):
    config = {key: getattr(TestConfig, key) for key in dir(TestConfig) if key.isupper()}
    config.update(DATA_DIR=str(data_dir), HOST_TOKEN=HOST, DATABASE=database, PIN_ATTEMPTS=1000, **more)
    return create_app(config)


def play(client, game, **names):
    """A game of ``game`` played to its end through the API: the table's answer to its creation, and the
    engine's own final view of the same events (what the list and the export must agree with)."""
    game, setup, events = finished(game, **names)
    made = client.post("/api/tables", json={"game": game, **setup})
    assert made.status_code == 201, made.get_json()
    table = made.get_json()
    for event in events:
        answer = client.post(f"/api/tables/{table['id']}/events", json=event, headers={"X-Referee-Pin": table["pin"]})
        assert answer.status_code == 200, answer.get_json()
    engine = get_engine(game)
    return table, engine.view(replay(engine, setup, events))


def engine_scores(game, view):
    """The final scores in each game's own terms, read from the engine's view."""
    if game == "kingdoms":
        return {name: total for name, total in view["totals"].items()}
    if game == "dungeon":
        return {p["name"]: len(p["treasures"]) for p in view["players"]}
    return {p["name"]: p["score"] for p in view["players"]}


def engine_winners(game, view):
    return view["result"]["winner_names"] if game == "dungeon" else view["winners"]


def read_csv(response):
    assert response.status_code == 200
    assert response.data.startswith("\ufeff".encode()), "a spreadsheet needs the UTF-8 byte-order mark"
    return list(csv.DictReader(io.StringIO(response.data.decode("utf-8-sig"))))


@pytest.mark.parametrize("game", ["kingdoms", "dungeon", "chosen"])
def test_the_hosts_list_shows_a_finished_game_with_its_winner_and_the_csv_the_engines_scores(tmp_path, database, game):
    client = app_for(tmp_path, database).test_client()
    table, view = play(client, game)
    listed = client.get("/api/evening/tables", headers=AS_HOST).get_json()["tables"]
    assert [(t["id"], t["state"], t["winners"]) for t in listed] == [(table["id"], "finished", engine_winners(game, view))]
    assert engine_winners(game, view)   # the example games have a winner
    page = client.get("/evening", headers=AS_HOST).get_data(as_text=True)
    assert table["id"] in page and engine_winners(game, view)[0] in page
    assert f'href="/t/{table["id"]}/result"' in page   # a finished table opens read-only, on its result page
    rows = read_csv(client.get(f"/api/tables/{table['id']}/export.csv"))
    assert len(rows) == len(view["players"])
    assert {row["player"]: int(row["score"]) for row in rows} == engine_scores(game, view)
    assert {row["player"] for row in rows if row["winner"] == "yes"} == set(engine_winners(game, view))


def test_the_evenings_csv_has_one_row_per_game_and_player_with_the_engines_final_scores(tmp_path, database):
    """/api/evening/export.csv, every table of the server: each finished game's players in seat order with the score
    the engine's replay of the same events gives, its winners marked and ranked first; a game still being played
    is there too, marked playing, with no winner."""
    client = app_for(tmp_path, database).test_client()
    played = {}
    for game, names in (("kingdoms", ("Ann", "Bo")), ("dungeon", ("Cy", "李雷", "Di")), ("chosen", ("Ed", "韩梅梅", "=Fay"))):
        table, view = play(client, game, names=names)
        played[table["id"]] = (game, names, view)
    playing = client.post("/api/tables", json={"game": "chosen", "players": [{"name": "Gus"}, {"name": "Hui"}]}).get_json()
    assert client.get("/api/evening/export.csv").status_code == 403   # every table's scores: the host's
    rows = read_csv(client.get("/api/evening/export.csv", headers=AS_HOST))
    by_table: dict[str, list[dict]] = {}
    for row in rows:
        by_table.setdefault(row["table"], []).append(row)
    assert set(by_table) == {*played, playing["id"]}
    assert len(rows) == sum(len(names) for _, names, _ in played.values()) + 2
    for table_id, (game, names, view) in played.items():
        table_rows = by_table[table_id]
        seats = [(game, "finished", str(seat)) for seat in range(1, len(names) + 1)]
        assert [(row["game"], row["state"], row["seat"]) for row in table_rows] == seats
        # the seats as typed (a name that reads as a formula is written as text: "'=Fay")
        assert [row["player"].removeprefix("'") for row in table_rows] == list(names)
        scores = {row["player"].removeprefix("'"): int(row["score"]) for row in table_rows}
        assert scores == engine_scores(game, view)
        assert {row["player"].removeprefix("'") for row in table_rows if row["winner"] == "yes"} == set(engine_winners(game, view))
        best = max(scores.values())
        assert {row["rank"] for row in table_rows if int(row["score"]) == best} == {"1"}
    assert [(row["player"], row["state"], row["winner"]) for row in by_table[playing["id"]]] == [("Gus", "playing", "no"), ("Hui", "playing", "no")]


def test_a_players_record_counts_the_wins_across_two_finished_games_and_the_host_merges_two_names(tmp_path):
    client = app_for(tmp_path).test_client()
    _, kingdoms = play(client, "kingdoms", names=("Ann", "Bo"))
    _, dungeon = play(client, "dungeon", names=("Cy", "bo", "Anne"))   # the same Bo, typed otherwise
    assert kingdoms["winners"] == ["Bo"] and dungeon["result"]["winner_names"] == ["bo"]
    players = {p["key"]: p for p in client.get("/api/evening/players", headers=AS_HOST).get_json()["players"]}
    bo = players[player_key("Bo")]
    assert (bo["games"], bo["wins"]) == (2, 2) and sorted(bo["names"]) == ["Bo", "bo"]
    assert bo["by_game"]["kingdoms"] == {"games": 1, "wins": 1, "average": 53.0, "best": 53}
    assert (players["ann"]["games"], players["anne"]["games"]) == (1, 1)
    page = client.get("/players/Bo", headers=AS_HOST).get_data(as_text=True)
    assert "The same name is the same player" in page

    assert client.post("/api/evening/players/merge", json={"name": "Anne", "into": "Ann"}).status_code == 403
    assert client.post("/api/evening/players/merge", json={"name": "Anne", "into": "Ann"}, headers=AS_HOST).status_code == 200
    players = {p["key"]: p for p in client.get("/api/evening/players", headers=AS_HOST).get_json()["players"]}
    assert "anne" not in players and players["ann"]["games"] == 2 and sorted(players["ann"]["names"]) == ["Ann", "Anne"]
    assert client.post("/api/evening/players/merge", json={"name": "Ann", "into": "Anne"}, headers=AS_HOST).status_code == 400
    assert client.post("/api/evening/players/merge", json={"name": "Anne", "into": None}, headers=AS_HOST).status_code == 200
    players = {p["key"]: p for p in client.get("/api/evening/players", headers=AS_HOST).get_json()["players"]}
    assert players["ann"]["games"] == players["anne"]["games"] == 1


def test_without_the_host_link_the_list_and_the_records_are_refused(tmp_path):
    client = app_for(tmp_path).test_client()
    table, _ = play(client, "kingdoms")
    other = client.post("/api/tables", json={"game": "kingdoms", "players": [{"name": "Di", "suits": ["H", "D"]},
                                                                             {"name": "Ed", "suits": ["S", "C"]}]}).get_json()
    for path in ("/api/evening/tables", "/api/evening/players", "/api/evening/players/Bo", "/api/evening/export.csv",
                 "/api/evening/export.json", "/players", "/players/Bo", "/evening/import"):
        assert client.get(path).status_code == 403, path
        assert client.get(path, headers={"X-Host-Token": "x" * 43}).status_code == 403, path
    assert client.get("/api/tables").get_json()["tables"] == []
    assert table["id"] not in client.get("/evening").get_data(as_text=True)
    # a player sees the tables whose link they have (the phone's own list), and no other
    mine = client.get(f"/api/evening/tables?mine={table['id']}").get_json()["tables"]
    assert [t["id"] for t in mine] == [table["id"]]
    page = client.get(f"/evening?mine={table['id']}").get_data(as_text=True)
    assert table["id"] in page and other["id"] not in page
    # the JSON of one table (its seed) is its referee's or the host's
    assert client.get(f"/api/tables/{table['id']}/export.json").status_code == 403
    assert client.get(f"/api/tables/{table['id']}/export.json", headers={"X-Referee-Pin": table["pin"]}).status_code == 200
    # the host's link trades its token for a cookie on the phone
    assert client.post("/api/host/session", headers={"X-Host-Token": "x" * 43}).status_code == 403
    assert client.post("/api/host/session", headers=AS_HOST).status_code == 200
    assert {t["id"] for t in client.get("/api/evening/tables").get_json()["tables"]} == {table["id"], other["id"]}
    assert client.get("/players").status_code == 200

    listing = app_for(tmp_path / "listed", LIST_TABLES=True).test_client()
    play(listing, "kingdoms")
    assert listing.get("/api/evening/players").status_code == 200   # --list-tables: everyone reads the list
    assert listing.post("/api/evening/players/merge", json={"name": "Ann", "into": "Bo"}).status_code == 403
    assert listing.get("/api/evening/export.json").status_code == 403   # the seeds: the host only


@pytest.mark.parametrize("game", ["kingdoms", "dungeon", "chosen"])
def test_an_exported_game_imported_into_a_fresh_server_has_the_same_final_state(tmp_path, database, game):
    laptop = app_for(tmp_path / "laptop").test_client()
    table, _ = play(laptop, game)
    laptop.post(f"/api/tables/{table['id']}/undo", headers={"X-Referee-Pin": table["pin"]})   # its undo and redo travel too
    laptop.post(f"/api/tables/{table['id']}/redo", headers={"X-Referee-Pin": table["pin"]})
    exported = laptop.get("/api/evening/export.json", headers=AS_HOST)
    venue = app_for(tmp_path / "venue", database).test_client()
    answer = venue.post("/api/evening/import", data=exported.data, headers=AS_HOST)
    assert answer.status_code == 201, answer.get_json()
    (made,) = answer.get_json()["tables"]
    assert made["id"] == made["former_id"] == table["id"]
    before = laptop.get(f"/api/tables/{table['id']}").get_json()
    after = venue.get(f"/api/tables/{table['id']}").get_json()
    assert after == before
    assert venue.get(f"/api/tables/{table['id']}/journal").get_json() == laptop.get(f"/api/tables/{table['id']}/journal").get_json()
    listed = {t["id"]: t for t in venue.get("/api/evening/tables", headers=AS_HOST).get_json()["tables"]}[table["id"]]
    original = laptop.get("/api/evening/tables", headers=AS_HOST).get_json()["tables"][0]
    assert (listed["state"], listed["players"], listed["winners"]) == (original["state"], original["players"], original["winners"])
    # the old PIN does not change the imported table; the one the import gave does
    assert venue.post(f"/api/tables/{table['id']}/undo", headers={"X-Referee-Pin": table["pin"]}).status_code == 403
    assert venue.post(f"/api/tables/{table['id']}/pin", headers={"X-Referee-Pin": made["pin"]}).status_code == 200
    # imported again: the id is taken now, so the copy gets a new one
    again = venue.post("/api/evening/import", data=exported.data, headers=AS_HOST).get_json()["tables"][0]
    assert again["id"] != table["id"] and again["former_id"] == table["id"]
    venue.application.extensions["registry"].close()
    restarted = app_for(tmp_path / "venue", database).test_client()
    assert restarted.get(f"/api/tables/{table['id']}").get_json() == before


def finished_note(page: str) -> str:
    """The table page's "this game is finished" section, as served (its ``hidden`` attribute included)."""
    start = page.index('<section id="finished-note"')
    return page[start:page.index("</section>", start)]


@pytest.mark.parametrize("game", ["kingdoms", "dungeon", "chosen"])
def test_a_finished_table_takes_no_new_event_and_its_referees_undo_reopens_it(tmp_path, database, game):
    """What a referee expects at the end of a game: the table is read-only (a new event answers 409 in the phone's
    language and changes nothing, its page shows the game finished with the result one tap away), a retried last
    tap still gets its answer, and Undo corrects the last change by reopening the game."""
    client = app_for(tmp_path, database).test_client()
    game, setup, events = finished(game)
    table = client.post("/api/tables", json={"game": game, **setup}).get_json()
    referee = {"X-Referee-Pin": table["pin"]}
    path = f"/api/tables/{table['id']}"
    for event in events[:-1]:
        assert client.post(f"{path}/events", json=event, headers=referee).status_code == 200
    assert client.get(path).get_json()["session"]["finished"] is False
    assert "hidden" in finished_note(client.get(f"/t/{table['id']}").get_data(as_text=True))
    last = client.post(f"{path}/events", json=events[-1], headers={**referee, "Idempotency-Key": "the-last-tap"})
    assert last.status_code == 200 and last.get_json()["state"]["session"]["finished"] is True
    # the last tap's answer was lost and the phone sends it again: the change it made, not a refusal
    again = client.post(f"{path}/events", json=events[-1], headers={**referee, "Idempotency-Key": "the-last-tap"})
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"

    state, journal = client.get(path).get_json(), client.get(f"{path}/journal").get_json()
    for language, words in (("en", "is finished: it takes no new event"), ("zh-CN,zh;q=0.9", "的游戏已结束：不再接受新的事件")):
        for event in (events[-1], events[0]):   # the same move again, and one from the start of the game
            refused = client.post(f"{path}/events", json=event, headers={**referee, "Accept-Language": language})
            assert refused.status_code == 409, refused.get_json()
            assert table["id"] in refused.get_json()["error"] and words in refused.get_json()["error"], refused.get_json()
    assert client.get(path).get_json() == state and client.get(f"{path}/journal").get_json() == journal
    note = finished_note(client.get(f"/t/{table['id']}").get_data(as_text=True))
    assert "hidden" not in note.split(">")[0] and f'href="/t/{table["id"]}/result"' in note
    assert "这局游戏已结束" in client.get(f"/t/{table['id']}", headers={"Accept-Language": "zh-CN"}).get_data(as_text=True)
    listed = client.get("/api/evening/tables", headers=AS_HOST).get_json()["tables"][0]
    assert listed["state"] == "finished"

    # the referee corrects the last move: Undo reopens the game, and the move is taken again
    undone = client.post(f"{path}/undo", json={"undoes": state["session"]["undo_seq"]}, headers=referee)
    assert undone.status_code == 200 and undone.get_json()["state"]["session"]["finished"] is False
    assert client.get("/api/evening/tables", headers=AS_HOST).get_json()["tables"][0]["state"] == "playing"
    assert "hidden" in finished_note(client.get(f"/t/{table['id']}").get_data(as_text=True)).split(">")[0]
    redone = client.post(f"{path}/events", json=events[-1], headers=referee)
    assert redone.status_code == 200 and redone.get_json()["state"]["session"]["finished"] is True
    assert client.get("/api/evening/tables", headers=AS_HOST).get_json()["tables"][0]["winners"] == listed["winners"]


def test_a_camera_reading_at_a_finished_table_is_refused_as_the_referees_move_is(tmp_path):
    """The camera keeps reading while the players gather the cards: none of it changes a finished game (the camera
    turns a refused reading into a question for the referee: companion/session/camera.py)."""
    from companion.session import GameFinished

    client = app_for(tmp_path).test_client()
    made, _ = play(client, "chosen")
    table = client.application.extensions["registry"].get(made["id"])
    _, _, events = finished("chosen")
    revision, journal = table.seq, client.get(f"/api/tables/{made['id']}/journal").get_json()
    with pytest.raises(GameFinished):
        table.submit(events[-1], source="camera")
    assert table.seq == revision and client.get(f"/api/tables/{made['id']}/journal").get_json() == journal


def test_a_camera_watching_a_finished_table_being_cleared_asks_nothing_and_changes_nothing(tmp_path):
    """The players gather the cards after the last move: every card leaving is a reading the finished game
    refuses; the camera counts them (``after_finish``) and puts none of them to the referee as a question."""
    from types import SimpleNamespace

    import numpy as np

    from companion.games import get_engine
    from companion.session.camera import CameraFeed
    from companion.vision.detections import Detections

    client = app_for(tmp_path).test_client()
    made, _ = play(client, "chosen")
    table = client.application.extensions["registry"].get(made["id"])
    _, _, events = finished("chosen")
    revision, journal = table.seq, client.get(f"/api/tables/{made['id']}/journal").get_json()

    class ClearingPipeline:
        """The table pipeline as the cards are gathered: a removal read each frame, and a question about a card in hand."""

        def __init__(self, table, detector):
            engine = get_engine(table.game)
            self.binding = SimpleNamespace(engine=engine, events=table.active_events(), state=None)

        def process(self, timestamp, frame):
            self.last_detections = Detections.empty()
            return SimpleNamespace(engine_events=[events[-1]], questions=["is the card at this spot 8♦?"], table_events=[])

    feed = CameraFeed(table, source=[], detector_loader=lambda: (lambda frame: Detections.empty()),
                      pipeline_factory=ClearingPipeline)
    feed.load_detector()
    for moment in range(3):
        feed.process(float(moment), np.zeros((60, 80, 3), np.uint8))
    status = feed.status()
    assert status["after_finish"] == 3 and status["camera_events"] == 0
    assert status["questions"] == []
    assert table.seq == revision and client.get(f"/api/tables/{made['id']}/journal").get_json() == journal


def exported_kingdoms(client):
    table, _ = play(client, "kingdoms")
    return json.loads(client.get(f"/api/tables/{table['id']}/export.json", headers=AS_HOST).data)


def test_a_malformed_or_hostile_import_is_refused_with_its_reason_and_changes_nothing(tmp_path):
    good = exported_kingdoms(app_for(tmp_path / "laptop").test_client())
    venue = app_for(tmp_path / "venue").test_client()
    store = venue.application.extensions["registry"].store

    def changed(change):
        document = json.loads(json.dumps(good))
        change(document)
        return json.dumps(document).encode()

    cases = {
        b"not json": "not valid JSON",
        b"[1, 2]": "not a Card Companion export",
        changed(lambda d: d.update(format="other")): "not a Card Companion export",
        changed(lambda d: d.update(version=2)): "version",
        changed(lambda d: d.update(tables=[])): "holds no tables",
        changed(lambda d: d["tables"][0].update(game="poker")): "is not played on this server",
        changed(lambda d: d["tables"][0].update(setup="players")): "setup must be a JSON object",
        changed(lambda d: d["tables"][0]["setup"].update(players=[{"name": "x" * 500}])): "characters",
        changed(lambda d: d["tables"][0]["setup"].update(players=[])): "refused here",
        changed(lambda d: d["tables"][0].update(created_at="yesterday")): "created_at",
        changed(lambda d: d["tables"][0]["journal"].pop(3)): "without gaps",
        changed(lambda d: d["tables"][0]["journal"][0].update(kind="delete")): "deleted",
        changed(lambda d: d["tables"][0]["journal"][0].update(kind="erase")): "unknown kind",
        changed(lambda d: d["tables"][0]["journal"][0].update(source="wizard")): "unknown source",
        changed(lambda d: d["tables"][0]["journal"][0].update(at=None)): "time must be a number",
        changed(lambda d: d["tables"][0]["journal"][0].update(event={"type": "place", "cell": [6, 6], "card": "ZZ"})): "no longer applies",
        changed(lambda d: d["tables"][0]["journal"][0].update(kind="undo", event=None)): "no longer applies",
        changed(lambda d: d["tables"][0]["journal"][1].update(event=[1])): "event must be a JSON object",
        changed(lambda d: d["tables"][0]["meta"].update(colours={"Ann": "red"})): "#rrggbb",
        # one good table and one bad: neither is stored
        changed(lambda d: d["tables"].append({**d["tables"][0], "id": "ZZZZZZ", "journal": [{"seq": 1}]})): "table 2",
    }
    for body, reason in cases.items():
        answer = venue.post("/api/evening/import", data=body, headers=AS_HOST)
        assert answer.status_code == 400, (body[:80], answer.get_json())
        assert reason in answer.get_json()["error"], (reason, answer.get_json())
        assert store.count_tables() == 0
    assert venue.post("/api/evening/import", data=json.dumps(good)).status_code == 403   # the host only
    assert store.count_tables() == 0
    assert venue.post("/api/evening/import", data=json.dumps(good), headers=AS_HOST).status_code == 201
    assert store.count_tables() == 1


def test_the_referee_deletes_a_table_after_confirming_and_nothing_else_is_lost(tmp_path, database):
    client = app_for(tmp_path, database).test_client()
    table, _ = play(client, "kingdoms")
    kept, _ = play(client, "kingdoms", names=("Di", "Ed"))
    kept_state = client.get(f"/api/tables/{kept['id']}").get_json()
    path = f"/api/tables/{table['id']}"
    assert client.delete(path, json={"confirm": table["id"]}).status_code == 403   # no PIN
    assert client.delete(path, json={"confirm": table["id"]}, headers={"X-Referee-Pin": kept["pin"]}).status_code == 403
    assert client.delete(path, json={}, headers={"X-Referee-Pin": table["pin"]}).status_code == 400   # not confirmed
    assert client.delete(path, json={"confirm": kept["id"]}, headers={"X-Referee-Pin": table["pin"]}).status_code == 400
    assert client.get(path).status_code == 200
    assert client.delete(path, json={"confirm": table["id"].lower()}, headers={"X-Referee-Pin": table["pin"]}).status_code == 200
    gone = client.get(path)
    assert gone.status_code == 404 and "deleted" in gone.get_json()["error"]
    assert client.post(f"{path}/undo", headers={"X-Referee-Pin": table["pin"]}).status_code == 404
    assert [t["id"] for t in client.get("/api/evening/tables", headers=AS_HOST).get_json()["tables"]] == [kept["id"]]
    assert {p["name"] for p in client.get("/api/evening/players", headers=AS_HOST).get_json()["players"]} == {"Di", "Ed"}
    assert client.get(f"/api/tables/{kept['id']}").get_json() == kept_state
    store = client.application.extensions["registry"].store
    assert [e.kind for e in store.journal(table["id"])][-1] == "delete" and len(store.journal(table["id"])) > 1   # kept
    client.application.extensions["registry"].close()
    again = app_for(tmp_path, database).test_client()
    assert again.get(path).status_code == 404
    assert again.get(f"/api/tables/{kept['id']}").get_json() == kept_state
    assert [t["id"] for t in again.get("/api/evening/tables", headers=AS_HOST).get_json()["tables"]] == [kept["id"]]


def test_the_evening_page_shows_the_newest_tables_first_a_page_at_a_time(tmp_path, monkeypatch):
    from web_ui import evening

    monkeypatch.setattr(evening, "PAGE_TABLES", 2)
    client = app_for(tmp_path).test_client()
    made = [client.post("/api/tables", json={"game": "chosen", "players": [{"name": "Ann"}, {"name": "Bo"}]}).get_json()["id"]
            for _ in range(3)]
    first = client.get("/evening", headers=AS_HOST).get_data(as_text=True)
    second = client.get("/evening?page=2", headers=AS_HOST).get_data(as_text=True)
    assert all(table in first for table in made[1:]) and made[0] not in first and "Older tables" in first
    assert made[0] in second and not any(table in second for table in made[1:]) and "Newer tables" in second
    assert client.get("/evening?page=x", headers=AS_HOST).status_code == 200


def test_an_export_larger_than_other_bodies_imports_through_the_real_server(tmp_path):
    """An export of a season is bigger than any other body (4 MiB): the server takes up to MAX_IMPORT_BYTES for
    the import alone, and refuses more (413) before reading it."""
    import http.client

    from helpers.web import running_server

    document = json.dumps(exported_kingdoms(app_for(tmp_path / "laptop").test_client()))
    padded = (document[:-1] + " " * (5 * 1024 * 1024) + "}").encode()   # valid JSON, over 4 MiB
    with running_server(tmp_path / "venue", HOST_TOKEN=HOST, MAX_IMPORT_BYTES=6 * 1024 * 1024) as (base, app):
        def post(body, path="/api/evening/import"):
            connection = http.client.HTTPConnection(base.split("//")[1], timeout=60)
            connection.request("POST", path, body=body, headers={"Content-Type": "application/json", **AS_HOST})
            response = connection.getresponse()
            status = response.status
            response.read()
            connection.close()
            return status

        def declared(length, path="/api/evening/import"):
            """Only the head, naming a body of ``length`` bytes: the server answers before reading any of it."""
            import socket

            host, port = base.split("//")[1].split(":")
            with socket.create_connection((host, int(port)), timeout=30) as connection:
                connection.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                                   f"X-Host-Token: {HOST}\r\nContent-Length: {length}\r\n\r\n".encode())
                return int(connection.recv(200).split(b" ")[1])

        assert post(padded) == 201
        assert declared(len(padded) + 2 * 1024 * 1024) == 413
        assert declared(len(padded), "/api/tables") == 413   # every other body keeps its 4 MiB
        assert app.extensions["registry"].store.count_tables() == 1
