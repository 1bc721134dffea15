"""The end of a game (issue 30): each game played to its end through the API, then its result page, its
charts (drawn on the server as SVG), the picture to share and the JSON, all read from the engine's own
``result`` (never a second account of the rules)."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from companion.games import get_engine, replay
from companion.i18n import translator
from helpers.games import kingdoms_game, play_through_api, simulated_game
from web_ui import TestConfig, create_app

SVG = "{http://www.w3.org/2000/svg}"
#: Guilds and Dungeon with 3 bots, seed 21: the dungeon runs out with players level on treasures,
#: and the most cards in hand decides (a tie-break to show).
DUNGEON_TIE_SEED = 21


def english_card(code: str) -> str:
    return translator("en").card_name(code)


def chart_series(svg_text: str) -> dict[str, list[int]]:
    """Each player's points as the chart draws them (the data-value of each marker, in order)."""
    root = ET.fromstring(svg_text)
    series = {}
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "series":
            series[group.get("data-player")] = [int(p.get("data-value")) for p in group if p.get("class") == "point"]
    return series


def inline_charts(html: str) -> list[str]:
    return [m.group(0).replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1)
            for m in re.finditer(r"<svg viewBox[^>]*class=\"score-chart\".*?</svg>", html, re.S)]


def app_on(data_dir, database):
    config = {key: getattr(TestConfig, key) for key in dir(TestConfig) if key.isupper()}
    config.update(DATA_DIR=str(data_dir), DATABASE=database)
    return create_app(config)


@pytest.fixture()
def client(tmp_path, database):
    """A server on each store in turn (the SQLite journal, a fresh PostgreSQL database: conftest's ``database``)."""
    app = app_on(tmp_path, database)
    yield app.test_client()
    app.extensions["registry"].close()


def finished(client, game, setup, events):
    table = play_through_api(client, game, setup, events)
    state = client.get(f"/api/tables/{table['id']}").get_json()
    return table, state


def test_a_kingdoms_game_to_its_end_names_the_winner_and_charts_one_point_per_round(client):
    setup, events = kingdoms_game(seed=1)
    table, state = finished(client, "kingdoms", setup, events)
    assert state["finished"] and state["winners"]
    page = client.get(f"/t/{table['id']}/result")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    status = re.search(r'id="result-status">([^<]*)<', html).group(1)
    assert all(name in status for name in state["winners"])
    charts = inline_charts(html)
    assert len(charts) == 1
    drawn = chart_series(charts[0])
    # one point per round per player (and the start), each the running total the engine's view gives
    assert set(drawn) == {p["name"] for p in state["players"]}
    for player in state["players"]:
        running = [0]
        for score in player["round_scores"]:
            running.append(running[-1] + score)
        assert drawn[player["name"]] == running and len(running) == state["rounds"] + 1
        assert running[-1] == player["total"]
    # how each score came about: every castle of every round, with its row and column, and the supplies
    for scored in state["results"]:
        assert f'data-round="{scored["round"]}"' in html
        for castle in scored["castles"]:
            assert f"<td>{castle['row']}</td><td>{castle['column']}</td><td>{castle['rank']}</td><td><strong>{castle['total']}</strong>" in html
    assert 'id="supplies"' in html


def test_the_result_json_is_the_engines_result_of_the_replayed_game(client):
    setup, events = kingdoms_game(seed=3)
    table, _ = finished(client, "kingdoms", setup, events)
    answer = client.get(f"/api/tables/{table['id']}/result").get_json()
    engine = get_engine("kingdoms")
    assert answer["result"] == engine.result(replay(engine, setup, events))
    assert answer["table"]["page"] == f"/t/{table['id']}/result"
    # after a restart the table is replayed from its store when its result is first asked for: the same account
    page = client.get(f"/t/{table['id']}/result").get_data(as_text=True)
    client.application.extensions["registry"].close()
    restarted = app_on(client.application.config["DATA_DIR"], client.application.config["DATABASE"])
    try:
        again = restarted.test_client()
        assert again.get(f"/api/tables/{table['id']}/result").get_json()["result"] == answer["result"]
        assert again.get(f"/t/{table['id']}/result").get_data(as_text=True) == page
    finally:
        restarted.extensions["registry"].close()


def test_a_guilds_and_dungeon_game_to_its_end_charts_treasures_by_encounter_and_shows_the_tie_break(client):
    setup, events = simulated_game("dungeon", seed=DUNGEON_TIE_SEED, players=3)
    table, state = finished(client, "dungeon", setup, events)
    assert state["phase"] == "over" and state["result"]["reason"] == "dungeon_empty"
    html = client.get(f"/t/{table['id']}/result").get_data(as_text=True)
    winners = state["result"]["winner_names"]
    assert winners and all(name in re.search(r'id="result-status">([^<]*)<', html).group(1) for name in winners)
    assert 'id="result-tie-break"' in html and "most cards in hand" in html
    charts = [chart_series(svg) for svg in inline_charts(html)]
    treasures = charts[0]
    engine_charts = client.get(f"/api/tables/{table['id']}/result").get_json()["result"]["charts"]
    trophies = engine_charts[1]["scores"]
    # the high trophies' chart is drawn when somebody has one (else the page would show a flat line at 0)
    assert len(charts) == (2 if any(v for values in trophies.values() for v in values) else 1)
    if len(charts) == 2:
        assert charts[1] == trophies
    encounters = state["encounters"]
    for player in state["players"]:
        # one point per encounter per player (and the start), ending at the engine's own count
        assert len(treasures[player["name"]]) == encounters + 1
        assert treasures[player["name"]][-1] == len(player["treasures"])
        assert trophies[player["name"]][-1] == player["progress"]["high_trophies"]
        assert all(b >= a for a, b in zip(treasures[player["name"]], treasures[player["name"]][1:]))  # treasures only grow
        assert all(f"<span class=\"pc red\">{name}</span>" in html for name in map(english_card, player["treasures"]))  # ♥ treasures, red
    assert html.count("<li>") >= encounters   # every encounter's verdict is listed


def test_a_chosen_game_to_its_end_charts_chips_home_by_turn(client):
    setup, events = simulated_game("chosen", seed=7, players=3)
    table, state = finished(client, "chosen", setup, events)
    assert state["phase"] == "over" and state["winners"]
    html = client.get(f"/t/{table['id']}/result").get_data(as_text=True)
    assert all(name in re.search(r'id="result-status">([^<]*)<', html).group(1) for name in state["winners"])
    (drawn,) = (chart_series(svg) for svg in inline_charts(html))
    turns = state["turn"]["number"]
    for player in state["players"]:
        points = drawn[player["name"]]
        assert len(points) == turns + 1 and points[0] == 0 and points[-1] == player["score"]
        # each rise is a verdict of that turn, as the engine gave it
        for turn in range(1, turns + 1):
            gained = sum(v["points"] for v in state["verdicts"] if v["owner"] == player["name"] and v["turn"] == turn)
            assert points[turn] - points[turn - 1] == gained
    assert html.count('class="verdict-line"') == len(state["verdicts"])


def test_the_chart_alone_and_the_picture_to_share_are_svg_files(client):
    setup, events = kingdoms_game(seed=2)
    table, state = finished(client, "kingdoms", setup, events)
    chart = client.get(f"/t/{table['id']}/result/chart.svg")
    assert chart.status_code == 200 and chart.mimetype == "image/svg+xml"
    assert set(chart_series(chart.get_data(as_text=True))) == {p["name"] for p in state["players"]}
    again = client.get(f"/t/{table['id']}/result/chart.svg", headers={"If-None-Match": chart.headers["ETag"]})
    assert again.status_code == 304
    picture = client.get(f"/t/{table['id']}/result.svg?download=1")
    assert picture.status_code == 200 and "attachment" in picture.headers["Content-Disposition"]
    root = ET.fromstring(picture.get_data(as_text=True))
    texts = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert all(p["name"] in texts and f"{p['total']} point" in texts for p in state["players"])
    assert client.get(f"/t/{table['id']}/result/chart.svg?chart=5").status_code == 404
    assert client.get(f"/t/{table['id']}/result/chart.svg?chart=x").status_code == 400


def test_a_result_is_read_with_the_tables_link_only(client):
    setup, events = kingdoms_game(seed=1)
    table, _ = finished(client, "kingdoms", setup, events)
    other = "ABCDEF" if table["id"] != "ABCDEF" else "ABCDEG"
    for path in ("/t/{}/result", "/t/{}/result/chart.svg", "/t/{}/result.svg", "/api/tables/{}/result"):
        assert client.get(path.format(other)).status_code == 404
        assert client.get(path.format(table["id"])).status_code == 200
    # the code typed in small letters is the same table (as /t/<code> is)
    assert client.get(f"/t/{table['id'].lower()}/result").status_code == 302
    # nothing secret: the seed or deal of a setup never reaches the result
    setup, events = simulated_game("chosen", seed=7, players=3)
    chosen = play_through_api(client, "chosen", setup, events[:10])
    text = client.get(f"/api/tables/{chosen['id']}/result").get_data(as_text=True)
    assert '"seed"' not in text and '"hand"' not in text and '"draw"' not in text


def test_an_unfinished_game_shows_the_standings_so_far(client):
    setup, events = kingdoms_game(seed=1)
    table = play_through_api(client, "kingdoms", setup, events[:45])   # round 2 half played
    html = client.get(f"/t/{table['id']}/result").get_data(as_text=True)
    assert "Not finished yet" in html and 'id="provisional"' in html
    drawn = chart_series(inline_charts(html)[0])
    assert all(len(points) == 2 for points in drawn.values())   # the start and round 1


def test_the_result_page_speaks_chinese(client):
    setup, events = simulated_game("chosen", seed=7, players=3)
    table, _ = finished(client, "chosen", setup, events)
    html = client.get(f"/t/{table['id']}/result", headers={"Accept-Language": "zh-CN"}).get_data(as_text=True)
    words = re.sub(r"<[^>]+>", " ", html)   # what a reader sees, without tags and their class names
    for english in ("How the scores came about", "Chips home by turn", "Finished", "Share", "winner", "chips"):
        assert english not in words
    assert "各回合运回的芯片" in html and "得分是怎么来的" in html
    picture = client.get(f"/t/{table['id']}/result.svg", headers={"Accept-Language": "zh-CN"}).get_data(as_text=True)
    assert "获选者" in picture and "chips" not in picture
