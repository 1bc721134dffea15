"""The real engines through the web API: what a phone shows is each engine's own view, replayed exactly."""
from __future__ import annotations

import json


from companion.cli import main as companion_cli
from web_ui import TestConfig, create_app

from conftest import GOLDEN_KINGDOMS

GOLDEN = str(GOLDEN_KINGDOMS)


def app_for(data_dir):
    config = {key: getattr(TestConfig, key) for key in dir(TestConfig) if key.isupper()}
    config.update(DATA_DIR=str(data_dir), SSE_MAX_SECONDS=0.3)
    return create_app(config)


def create(client, body):
    response = client.post("/api/tables", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def send(client, table, event, expect=200):
    response = client.post(f"/api/tables/{table['id']}/events", json=event, headers={"X-Referee-Pin": table["pin"]})
    assert response.status_code == expect, response.get_json()
    return response.get_json()


def test_kingdoms_seed_example_scores_exactly_as_the_cli(tmp_path, capsys):
    with open(GOLDEN) as handle:
        golden = json.load(handle)
    board = golden["board_face_up"]
    client = app_for(tmp_path).test_client()
    players = [{"name": name, "suits": suits} for name, suits in golden["players"].items()]
    table = create(client, {"game": "kingdoms", "players": players, "options": {"auto_score": False}})
    for r, row in enumerate(board):
        for c, card in enumerate(row):
            send(client, table, {"type": "place", "cell": [r + 3, c + 3], "card": card})
    state = client.get(f"/api/tables/{table['id']}").get_json()

    board_file = tmp_path / "board.json"
    board_file.write_text(json.dumps({"players": golden["players"], "board": board}))
    capsys.readouterr()
    assert companion_cli(["kingdoms", "score", str(board_file)]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert state["scores"]["castles"] == cli["castles"]
    assert state["scores"]["totals"] == cli["totals"] == {"black": 50, "red": 53}
    assert sorted(map(json.dumps, state["scores"]["castles"])) == sorted(map(json.dumps, golden["castles"]))

    scored = send(client, table, {"type": "score_round"})["state"]
    assert scored["round_scores"] == [{"black": 50, "red": 53}]
    assert [p["total"] for p in scored["players"]] == [50, 53]
    # A restarted server shows the same game, scored round included.
    client.application.extensions["registry"].close()
    again = app_for(tmp_path).test_client().get(f"/api/tables/{table['id']}").get_json()
    assert again["round_scores"] == [{"black": 50, "red": 53}] and again["round"] == 2
    assert again["session"]["seq"] == 31


def test_kingdoms_illegal_cards_are_422_and_change_nothing(tmp_path):
    client = app_for(tmp_path).test_client()
    table = create(client, {"game": "kingdoms", "players": [{"name": "Ann", "suits": ["H", "D"]}, {"name": "Bo", "suits": ["S", "C"]}]})
    send(client, table, {"type": "place", "cell": [6, 6], "card": "10H"})
    before = client.get(f"/api/tables/{table['id']}").get_json()
    problem = send(client, table, {"type": "place", "cell": [6, 7], "card": "6C"}, expect=422)
    assert "6C" in problem["error"]
    send(client, table, {"type": "place", "cell": [6, 6], "card": "2H"}, expect=422)
    send(client, table, {"type": "place", "cell": [6, 12], "card": "2H"}, expect=422)
    assert client.get(f"/api/tables/{table['id']}").get_json() == before


def test_kingdoms_rejects_a_bad_setup_with_the_engines_reason(tmp_path):
    client = app_for(tmp_path).test_client()
    players = [{"name": "Ann", "suits": ["H", "S"]}, {"name": "Bo", "suits": ["D", "C"]}]
    response = client.post("/api/tables", json={"game": "kingdoms", "players": players})
    assert response.status_code == 400 and "colour" in response.get_json()["error"]
    response = client.post("/api/tables", json={"game": "kingdoms", "players": ["Ann", "Bo"], "options": {"dragons": 2}})
    assert response.status_code == 400 and "dragons" in response.get_json()["error"]


def test_the_chosen_through_the_api(tmp_path):
    client = app_for(tmp_path).test_client()
    table = create(client, {"game": "chosen", "players": [{"name": "Ann", "colour": "#ff0000"}, {"name": "Bo"}, {"name": "Cy"}]})
    send(client, table, {"type": "chip", "onto": "Bo"})
    state = send(client, table, {"type": "end_turn"})["state"]
    assert state["turn"]["player"] == "Bo" and state["players"][1]["chips"] and state["session"]["colours"] == {"Ann": "#ff0000"}
    assert "hand" not in state["players"][0]  # the public view: no hand contents
    assert "Nobody" in send(client, table, {"type": "chip", "onto": "Nobody"}, expect=422)["error"]
    client.application.extensions["registry"].close()
    assert app_for(tmp_path).test_client().get(f"/api/tables/{table['id']}").get_json()["turn"]["player"] == "Bo"


def test_guilds_and_dungeon_through_the_api(tmp_path):
    client = app_for(tmp_path).test_client()
    table = create(client, {"game": "dungeon", "players": ["Ann", "Bo", "Cy"], "seed": 7})
    state = client.get(f"/api/tables/{table['id']}").get_json()
    assert state["phase"] == "guilds" and state["dungeon_count"] == 29
    send(client, table, {"type": "reveal"}, expect=422)  # guilds come first
    first = client.get(f"/api/tables/{table['id']}").get_json()
    client.application.extensions["registry"].close()
    assert app_for(tmp_path).test_client().get(f"/api/tables/{table['id']}").get_json() == first


def test_the_game_catalogue_lists_each_games_options(tmp_path):
    catalogue = {g["name"]: g for g in app_for(tmp_path).test_client().get("/api/games").get_json()["catalogue"]}
    assert set(catalogue) == {"kingdoms", "dungeon", "chosen"}
    assert catalogue["kingdoms"]["options"]["rules"] == "poker" and "knizia" in catalogue["kingdoms"]["help"]["rules"]
    assert catalogue["dungeon"]["options"]["ties_go_to_enemy"] is False
    assert "second_deck" in catalogue["chosen"]["options"]
