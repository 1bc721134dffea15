"""Each engine's ``result(state)``: the account of the scores the result page reads, checked against the
engine's own views along whole games (pure: no web, no session)."""
from __future__ import annotations

from companion.games import get_engine, replay
from companion.games.base import ranking
from helpers.games import kingdoms_game, simulated_game


def test_ranking_puts_the_winners_first_and_shares_places_on_equal_scores():
    rows = ranking({"Ann": 5, "Bo": 9, "Cy": 5, "Di": 2}, ["Bo"])
    assert [(r["place"], r["player"]) for r in rows] == [(1, "Bo"), (2, "Ann"), (2, "Cy"), (4, "Di")]
    # a winner by another measure (the Dungeon's trophies) still comes first, whatever the scores say
    rows = ranking({"Ann": 3, "Bo": 0}, ["Bo"])
    assert [(r["place"], r["player"], r["winner"]) for r in rows] == [(1, "Bo", True), (2, "Ann", False)]
    assert [r["place"] for r in ranking({"Ann": 4, "Bo": 4}, ["Ann", "Bo"])] == [1, 1]


def test_kingdoms_totals_by_round_are_the_views_round_scores_added_up():
    engine = get_engine("kingdoms")
    setup, events = kingdoms_game(seed=4)
    state = engine.new_game(setup)
    for event in events:
        state = engine.apply(state, event)
        view, result = engine.view(state), engine.result(state)
        chart = result["charts"][0]
        assert chart["at"] == list(range(len(view["round_scores"]) + 1))
        for player in view["players"]:
            assert chart["scores"][player["name"]][-1] == player["total"]
    assert result["finished"] and result["winners"] == view["winners"]
    assert [r["player"] for r in result["ranking"]][: len(view["winners"])] == view["winners"]
    assert result["details"]["supplies"] == view["supplies"]


def test_the_dungeons_standing_after_each_encounter_is_the_view_at_that_moment():
    engine = get_engine("dungeon")
    setup, events = simulated_game("dungeon", seed=21, players=3)
    state = engine.new_game(setup)
    seen = 0
    for event in events:
        state = engine.apply(state, event)
        if state.encounters > seen:   # an encounter just ended: its standing is the table now
            seen = state.encounters
            view = engine.view(state)
            standing = state.history[-1]["standing"]
            assert [s["treasures"] for s in standing] == [len(p["treasures"]) for p in view["players"]]
            assert [s["high_trophies"] for s in standing] == [p["progress"]["high_trophies"] for p in view["players"]]
            assert [s["hand_count"] for s in standing] == [p["hand_count"] for p in view["players"]]
    result = engine.result(state)
    assert result["details"]["reason"] == "dungeon_empty" and result["tie_break"]["msg"].endswith("decides.")
    assert result["winners"] == [state.players[i].name for i in state.result["winners"]]
    assert len(result["details"]["encounters"]) == state.encounters


def test_the_chosens_chips_by_turn_add_up_the_vaults_verdicts():
    engine = get_engine("chosen")
    setup, events = simulated_game("chosen", seed=7, players=3)
    state = replay(engine, setup, events)
    result = engine.result(state)
    chart = result["charts"][0]
    assert chart["axis"] == "turn" and chart["at"][-1] == state.turn.number
    for seat, name in enumerate(state.names):
        assert chart["scores"][name][-1] == state.score[seat]
        assert sum(v["points"] for v in result["details"]["verdicts"] if v["owner"] == name) == state.score[seat]
    assert result["winners"] == [state.names[p] for p in state.winners] and result["tie_break"] is None
    # half-way the chart ends at the turn being played, and nothing after
    early = replay(engine, setup, events[:40])
    assert engine.result(early)["charts"][0]["at"] == list(range(early.turn.number + 1))
    assert not engine.result(early)["finished"] and engine.result(early)["ended"] is None
