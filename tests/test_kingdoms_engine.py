"""The Kingdoms game engine: whole games, supplies, the floating grid, face-down memory, corrections, replay."""
from __future__ import annotations

import json
import pathlib
import random

import pytest

from companion.games import IllegalEvent, InvalidSetup, UnknownOption, get_engine, replay, undo
from companion.messages import english, from_json
from companion.games.kingdoms import score_rows

ENGINE = get_engine("kingdoms")
GOLDEN = json.loads((pathlib.Path(__file__).parent / "kingdoms_boards" / "seed_example.json").read_text())
TERRITORY = [f"{r}{s}" for s in "HDS" for r in ("A", "2", "3", "4", "5", "6")] + ["9S", "BJ", "SJ", "SJ"]
RANK_LETTER = {"1": "10", "2": "J", "3": "Q", "4": "K"}
TWO = [{"name": "red", "suits": ["H", "D"]}, {"name": "black", "suits": ["S", "C"]}]
THREE = [{"name": "a", "suits": ["S"]}, {"name": "b", "suits": ["H"]}, {"name": "c", "suits": ["D"]}]
FOUR = [{"name": n, "suits": [s]} for n, s in zip("abcd", "SHDC")]


def new(players=TWO, **options):
    return ENGINE.new_game({"players": players, "options": options, "seed": 7})


def place(state, cell, card, **extra):
    return ENGINE.apply(state, {"type": "place", "cell": list(cell), "card": card, **extra})


def cell_view(state, cell):
    return next(c for c in ENGINE.view(state)["board"]["cells"] if c["cell"] == list(cell))


def castle_cards(view, players):
    """Every castle each player still holds, as card codes, alternating the player's suits."""
    cards = []
    for player in players:
        suits = player["suits"]
        for rank, count in view["supplies"][player["name"]].items():
            cards += [f"{RANK_LETTER[rank]}{suits[i % len(suits)]}" for i in range(count)]
    return cards


def random_round(rng, view, players, tall=False):
    """A full legal grid from the castles still in the supplies and the territory pile."""
    castles = castle_cards(view, players)
    chosen = rng.sample(castles, rng.randint(8, min(len(castles), 14)))
    cards = rng.sample(TERRITORY, 30 - len(chosen)) + chosen
    rng.shuffle(cards)
    height, width = (6, 5) if tall else (5, 6)
    return [cards[r * width:(r + 1) * width] for r in range(height)]


def play_board(state, board, origin=(3, 3), rng=None):
    """Place every card of ``board`` on the canvas with its top-left at ``origin`` (in random order with rng)."""
    cells = [(r, c) for r in range(len(board)) for c in range(len(board[0]))]
    if rng is not None:
        rng.shuffle(cells)
    for r, c in cells:
        state = place(state, (origin[0] + r, origin[1] + c), board[r][c])
    return state


def events_of(state):
    return ENGINE.view(state)["log"]


# ------------------------------------------------------------------ whole games
def test_two_player_game_with_the_golden_round_supplies_and_a_reused_king():
    state = new()
    state = play_board(state, GOLDEN["board_face_up"])
    view = ENGINE.view(state)
    assert view["round"] == 2 and view["round_scores"] == [{"red": 53, "black": 50}]
    first = view["results"][0]
    assert first["castles"] == [c for c in GOLDEN["castles"] if c["owner"] == "red"] + \
        [c for c in GOLDEN["castles"] if c["owner"] == "black"]
    assert first["rows"] == GOLDEN["board_as_the_camera_sees_it"]
    assert view["supplies"] == {"red": {"1": 4, "2": 1, "3": 0, "4": 1}, "black": {"1": 4, "2": 1, "3": 1, "4": 0}}
    assert view["board"]["cells"] == [] and view["to_act"] == "black"
    # Until the next round's first card, the view shows the round just scored.
    assert view["scores"] == {"totals": {"red": 53, "black": 50}, "castles": first["castles"], "warnings": []}
    assert view["scores_of"] == {"round": 1, "final": True}
    assert view["explanations"] == first["explanations"]
    next_round = ENGINE.view(place(state, (6, 6), "AH"))
    assert next_round["scores_of"] == {"round": 2, "final": False} and next_round["scores"]["castles"] == []

    for king in ("KS", "KC"):       # black's rank-4 castle scored in round 1 and left the game
        with pytest.raises(IllegalEvent, match="no rank-4 castle left"):
            place(state, (6, 6), king)
    assert ENGINE.view(place(state, (6, 6), "KH"))["supplies"]["red"]["4"] == 0
    rng = random.Random(2)
    board = random_round(rng, view, TWO)
    state = play_board(state, board, origin=(5, 2), rng=rng)
    view = ENGINE.view(state)
    assert view["round_scores"][1] == score_rows(board, {p["name"]: p["suits"] for p in TWO}).score.totals
    state = play_board(state, random_round(rng, view, TWO, tall=True), origin=(1, 6), rng=rng)
    view = ENGINE.view(state)
    assert view["finished"] and view["to_act"] is None and len(view["round_scores"]) == 3
    assert view["totals"] == {n: sum(r[n] for r in view["round_scores"]) for n in ("red", "black")}
    best = max(view["totals"].values())
    assert view["winners"] == [n for n, t in view["totals"].items() if t == best]
    with pytest.raises(IllegalEvent, match="game is over"):
        place(state, (6, 6), "AH")
    assert replay(ENGINE, {"players": TWO, "options": {}, "seed": 7}, events_of(state)) == state


@pytest.mark.parametrize("players, supply", [(THREE, {"1": 3, "2": 1, "3": 1, "4": 1}), (FOUR, {"1": 2, "2": 1, "3": 1, "4": 1})])
def test_three_and_four_player_games_run_three_rounds_and_spend_supplies(players, supply):
    state = new(players)
    view = ENGINE.view(state)
    assert all(v == supply for v in view["supplies"].values())
    rng = random.Random(len(players))
    expected_supply = {p["name"]: dict(supply) for p in players}
    for number in range(3):
        board = random_round(rng, view, players, tall=number == 1)
        state = play_board(state, board, rng=rng)
        view = ENGINE.view(state)
        assert view["round_scores"][number] == score_rows(board, {p["name"]: p["suits"] for p in players}).score.totals
        for row in board:
            for code in row:
                if code[0] in "JQK":
                    owner = next(p["name"] for p in players if code[-1] in p["suits"])
                    expected_supply[owner][str("JQK".index(code[0]) + 2)] -= 1
        assert view["supplies"] == expected_supply
    assert view["finished"] and view["winners"]


def test_supply_exhaustion_within_a_round():
    state = new(decks=3, territory_limit="decks")
    for col, card in enumerate(["10S", "10S", "10S", "10C"], start=1):
        state = place(state, (1, col), card)
    with pytest.raises(IllegalEvent, match="no rank-1 castle left"):
        place(state, (1, 5), "10C")
    state = place(state, (2, 1), "JS")
    with pytest.raises(IllegalEvent, match="no rank-2 castle left"):
        place(state, (2, 2), "JC")
    assert ENGINE.view(state)["supplies"]["black"] == {"1": 0, "2": 0, "3": 1, "4": 1}


def test_equal_totals_share_the_win():
    rng = random.Random(11)
    players = {p["name"]: p["suits"] for p in TWO}
    for _ in range(2000):
        board = random_round(rng, ENGINE.view(new()), TWO)
        totals = score_rows(board, players).score.totals
        if totals["red"] == totals["black"]:
            break
    else:
        pytest.fail("no tied board found")
    view = ENGINE.view(play_board(new(rounds=1), board))
    assert view["finished"] and view["winners"] == ["red", "black"]


# ------------------------------------------------------------------ turns
def test_turns_are_tracked_and_out_of_turn_corrections_allowed():
    state = new()
    assert ENGINE.view(state)["to_act"] == "red"
    state = place(state, (6, 6), "AH")
    assert ENGINE.view(state)["to_act"] == "black"
    state = place(state, (6, 7), "10H")        # red's castle out of turn: accepted, attributed to red
    assert cell_view(state, (6, 7))["placed_by"] == "red" and ENGINE.view(state)["to_act"] == "black"
    state = ENGINE.apply(state, {"type": "set_turn", "player": "red"})
    assert ENGINE.view(state)["to_act"] == "red"
    with pytest.raises(IllegalEvent, match="cannot place black's castle"):
        place(state, (6, 8), "KS", player="red")
    with pytest.raises(IllegalEvent, match="unknown player"):
        place(state, (6, 8), "2H", player="zed")


def test_strict_turns_refuse_out_of_turn_placements():
    state = place(new(strict_turns=True), (6, 6), "AH")
    with pytest.raises(IllegalEvent, match="black's turn"):
        place(state, (6, 7), "2H", player="red")
    with pytest.raises(IllegalEvent, match="black's turn"):
        place(state, (6, 7), "10H")
    state = place(state, (6, 7), "10S")
    assert ENGINE.view(state)["to_act"] == "red"


# ------------------------------------------------------------------ the floating grid
def test_the_grid_floats_and_fixes_its_orientation_once_six_long():
    state = new()
    for col in range(1, 7):
        state = place(state, (6, col), TERRITORY[col - 1])
    assert ENGINE.view(state)["board"]["orientation"] == "wide"
    with pytest.raises(IllegalEvent, match="outside the grid"):
        place(state, (1, 1), "AD")
    with pytest.raises(IllegalEvent, match="outside the grid"):
        place(state, (6, 7), "AD")
    state = place(state, (2, 1), "AD")
    assert ENGINE.view(state)["board"]["size"] == [5, 6]


def test_a_five_by_five_area_may_still_grow_either_way_but_not_both():
    state = new()
    for i, card in enumerate(["AH", "2H", "3H", "4H", "5H"]):
        state = place(state, (1 + i, 1 + i), card)
    assert ENGINE.view(state)["board"]["orientation"] is None
    tall = place(state, (6, 1), "AD")
    wide = place(state, (1, 6), "AD")
    assert ENGINE.view(tall)["board"]["orientation"] == "tall" and ENGINE.view(wide)["board"]["orientation"] == "wide"
    with pytest.raises(IllegalEvent, match="outside the grid"):
        place(tall, (1, 6), "2D")
    with pytest.raises(IllegalEvent, match="5 wide × 6 tall"):
        place(place(new(orientation="tall"), (1, 1), "AH"), (1, 6), "2H")
    assert ENGINE.view(place(place(new(orientation="tall"), (1, 1), "AH"), (6, 1), "2H"))["board"]["orientation"] == "tall"


def test_open_cells_show_where_a_card_may_go():
    state = place(new(orientation="wide"), (6, 6), "AH")
    cells = {tuple(c) for c in ENGINE.view(state)["board"]["open_cells"]}
    assert (6, 1) in cells and (6, 11) in cells and (2, 6) in cells and (10, 6) in cells
    assert (1, 6) not in cells and (6, 6) not in cells


@pytest.mark.parametrize("cell", [[0, 3], [12, 1], [3, 12], ["a", 1], [1], [True, 1], "A1", None])
def test_cells_off_the_canvas_or_malformed_are_refused(cell):
    with pytest.raises(IllegalEvent, match="cell"):
        ENGINE.apply(new(), {"type": "place", "cell": cell, "card": "AH"})


# ------------------------------------------------------------------ cards and copies
@pytest.mark.parametrize("card, message", [("3C", "not a Kingdoms card"), ("7H", "9♠"), ("XX", "unknown"), (5, "text")])
def test_illegal_cards_are_refused(card, message):
    with pytest.raises(IllegalEvent, match=message):
        place(new(), (6, 6), card)


def test_castle_of_an_unseated_suit_is_refused():
    with pytest.raises(IllegalEvent, match="clubs"):
        place(new(THREE), (6, 6), "KC")


def test_copies_are_limited_by_the_pile_or_the_decks():
    state = place(place(place(new(), (6, 6), "SJ"), (6, 7), "SJ"), (6, 8), "BJ")
    with pytest.raises(IllegalEvent, match="3 copies of SJ"):
        place(state, (6, 9), "SJ")
    with pytest.raises(IllegalEvent, match="2 copies of BJ"):
        place(state, (6, 9), "BJ")
    with pytest.raises(IllegalEvent, match="territory pile"):
        place(place(new(), (6, 6), "5H"), (6, 7), "5H")
    state = place(place(new(territory_limit="decks"), (6, 6), "5H"), (6, 7), "5H")
    with pytest.raises(IllegalEvent, match="2 deck"):
        place(state, (6, 8), "5H")


def test_occupied_cells_are_refused():
    state = place(new(), (6, 6), "AH")
    with pytest.raises(IllegalEvent, match="already holds AH"):
        place(state, (6, 6), "2H")


# ------------------------------------------------------------------ the dragon and face-down cards
def test_the_dragon_turns_resources_face_down_and_they_keep_their_memory():
    state = place(place(new(), (6, 4), "5H"), (6, 8), "6S")
    state = place(state, (6, 6), "9S")
    five = cell_view(state, (6, 4))
    assert (five["code"], five["card"], five["face_down"]) == ("BACK", "5H", True)
    assert cell_view(state, (6, 8))["face_down"] is False          # hazards stay up
    later = place(state, (3, 6), "4D")
    assert cell_view(later, (3, 6))["code"] == "BACK"
    blocked = place(state, (6, 5), "SJ")                            # a mountain now shields the 5H
    assert cell_view(blocked, (6, 4))["face_down"] is False
    removed = ENGINE.apply(state, {"type": "remove", "cell": [6, 6]})
    assert cell_view(removed, (6, 4))["code"] == "5H"


def test_face_down_cards_are_legal_only_in_the_dragons_lines():
    with pytest.raises(IllegalEvent, match="dragon"):
        place(new(), (6, 6), "BACK")
    state = place(new(), (6, 6), "9S")
    state = place(state, (6, 3), "BACK")
    assert cell_view(state, (6, 3)) ["card"] is None and cell_view(state, (6, 3))["piece"] == {"kind": "face_down"}
    with pytest.raises(IllegalEvent, match="dragon"):
        place(state, (5, 5), "BACK")
    shielded = place(state, (3, 6), "SJ")
    with pytest.raises(IllegalEvent, match="dragon"):
        place(shielded, (2, 6), "BACK")


def test_turn_down_events_without_auto_turn_down():
    state = place(place(new(auto_turn_down=False), (6, 6), "9S"), (6, 5), "5H")
    assert cell_view(state, (6, 5))["face_down"] is False
    state = place(place(state, (6, 7), "3S"), (4, 4), "4H")
    with pytest.raises(IllegalEvent, match="only resources"):
        ENGINE.apply(state, {"type": "turn_down", "cell": [6, 7]})
    with pytest.raises(IllegalEvent, match="no dragon's lines"):
        ENGINE.apply(state, {"type": "turn_down", "cell": [4, 4]})
    with pytest.raises(IllegalEvent, match="empty"):
        ENGINE.apply(state, {"type": "turn_down", "cell": [1, 1]})
    down = ENGINE.apply(state, {"type": "turn_down", "cell": [6, 5]})
    assert cell_view(down, (6, 5))["code"] == "BACK"
    again = ENGINE.apply(down, {"type": "turn_down", "cell": [6, 5]})   # already down: the table agrees
    assert again.board == down.board and len(again.log) == len(down.log) + 1
    mine = place(down, (5, 6), "BJ")
    assert cell_view(mine, (5, 6))["face_down"] is False              # only resources turn by themselves
    mine = ENGINE.apply(mine, {"type": "turn_down", "cell": [5, 6]})
    assert cell_view(mine, (5, 6))["code"] == "BACK" and cell_view(mine, (5, 6))["card"] == "BJ"
    freed = ENGINE.apply(mine, {"type": "remove", "cell": [6, 6]})
    assert cell_view(freed, (5, 6))["code"] == "BJ" and cell_view(freed, (6, 5))["code"] == "5H"


def test_turn_down_confirms_what_auto_turn_down_did():
    state = place(place(new(), (6, 6), "9S"), (6, 5), "5H")
    assert cell_view(state, (6, 5))["face_down"] is True
    confirmed = ENGINE.apply(state, {"type": "turn_down", "cell": [6, 5]})
    assert confirmed.board == state.board


def test_knizia_scoring_remembers_a_face_down_card():
    state = place(new(rules="knizia"), (6, 6), "9S")
    state = place(place(state, (6, 5), "5H"), (8, 5), "10D")
    state = ENGINE.apply(state, {"type": "turn_down", "cell": [6, 5]})
    assert cell_view(state, (6, 5))["code"] == "BACK"
    castle = ENGINE.view(state)["scores"]["castles"][0]
    assert (castle["cell"], castle["column"], castle["total"]) == ([3, 1], 5, 5)


# ------------------------------------------------------------------ corrections
def test_remove_and_replace_keep_the_supply_right():
    state = place(new(), (6, 6), "KS")
    assert ENGINE.view(state)["supplies"]["black"]["4"] == 0
    replaced = ENGINE.apply(state, {"type": "replace", "cell": [6, 6], "card": "QC"})
    assert ENGINE.view(replaced)["supplies"]["black"] == {"1": 4, "2": 1, "3": 0, "4": 1}
    assert cell_view(replaced, (6, 6))["placed_by"] == "black"
    removed = ENGINE.apply(replaced, {"type": "remove", "cell": [6, 6]})
    assert ENGINE.view(removed)["supplies"]["black"] == {"1": 4, "2": 1, "3": 1, "4": 1}
    assert ENGINE.view(removed)["board"]["cells"] == []
    with pytest.raises(IllegalEvent, match="empty"):
        ENGINE.apply(removed, {"type": "remove", "cell": [6, 6]})
    to_red = ENGINE.apply(state, {"type": "replace", "cell": [6, 6], "card": "KH"})
    assert cell_view(to_red, (6, 6))["placed_by"] == "red"
    assert ENGINE.view(to_red)["supplies"] == {"red": {"1": 4, "2": 1, "3": 1, "4": 0}, "black": {"1": 4, "2": 1, "3": 1, "4": 1}}
    with pytest.raises(IllegalEvent, match="already holds KS"):
        ENGINE.apply(state, {"type": "replace", "cell": [6, 6], "card": "KS"})
    with pytest.raises(IllegalEvent, match="empty"):
        ENGINE.apply(state, {"type": "replace", "cell": [6, 7], "card": "KS"})


def test_a_refused_event_changes_nothing():
    state = place(place(new(), (6, 6), "KS"), (6, 7), "5H")
    before_view = ENGINE.view(state)
    for event in ({"type": "replace", "cell": [6, 6], "card": "3C"}, {"type": "replace", "cell": [6, 7], "card": "5H"},
                  {"type": "place", "cell": [6, 6], "card": "AH"}, {"type": "score_round"},
                  {"type": "replace", "cell": [6, 7], "card": "BACK"}):
        with pytest.raises(IllegalEvent):
            ENGINE.apply(state, event)
        assert ENGINE.view(state) == before_view


def test_score_round_needs_a_full_grid_and_auto_score_can_be_off():
    state = new(auto_score=False)
    with pytest.raises(IllegalEvent, match="0 of 30"):
        ENGINE.apply(state, {"type": "score_round"})
    state = play_board(state, GOLDEN["board_face_up"])
    view = ENGINE.view(state)
    assert view["board"]["full"] and view["round_scores"] == [] and view["scores"]["totals"] == {"red": 53, "black": 50}
    with pytest.raises(IllegalEvent, match="full"):
        place(state, (9, 9), "AH")
    scored = ENGINE.apply(state, {"type": "score_round"})
    assert ENGINE.view(scored)["round_scores"] == [{"red": 53, "black": 50}]


# ------------------------------------------------------------------ bad events and setups
@pytest.mark.parametrize("event, message", [
    ({"type": "fly"}, "unknown event type"), ({}, "unknown event type"), ("place", "mapping"),
    ({"type": "place", "cell": [6, 6]}, "card code is needed"),
    ({"type": "place", "cell": [6, 6], "card": "AH", "colour": "red"}, "unknown field"),
    ({"type": "set_turn", "player": "nobody"}, "unknown player"),
])
def test_bad_events_are_refused(event, message):
    with pytest.raises(IllegalEvent, match=message):
        ENGINE.apply(new(), event)


@pytest.mark.parametrize("setup, error, message", [
    ("two players", InvalidSetup, "mapping"),
    ({"players": TWO, "colour": "x"}, InvalidSetup, "unknown setup keys"),
    ({"options": {}}, InvalidSetup, "needs players"),
    ({"players": TWO[:1]}, InvalidSetup, "2 to 4"),
    ({"players": [{"name": "a", "suits": ["H", "S"]}, {"name": "b", "suits": ["D", "C"]}]}, InvalidSetup, "one colour"),
    ({"players": TWO, "options": {"speed": 1}}, UnknownOption, "speed"),
    ({"players": TWO, "options": {"rules": "chess"}}, UnknownOption, "rules"),
    ({"players": TWO, "options": {"decks": 0}}, UnknownOption, "decks"),
    ({"players": TWO, "options": {"auto_score": "yes"}}, UnknownOption, "auto_score"),
    ({"players": TWO, "options": {"wizard": "7C"}}, UnknownOption, "knizia"),
    ({"players": TWO, "seed": [1]}, InvalidSetup, "seed"),
])
def test_bad_setups_are_refused(setup, error, message):
    with pytest.raises(error, match=message):
        ENGINE.new_game(setup)


def test_setup_defaults_suits_and_reports_options():
    view = ENGINE.view(ENGINE.new_game({"players": ["Ann", "Bob"]}))
    assert [p["suits"] for p in view["players"]] == [["H", "D"], ["S", "C"]]
    assert view["options"]["rules"] == "poker" and view["options"]["decks"] == 2 and view["options"]["auto_score"]
    three = ENGINE.view(ENGINE.new_game({"players": ["a", "b", "c"], "options": {"rules": "knizia", "wizard": "8H"}}))
    assert three["options"]["decks"] == 3 and three["options"]["auto_turn_down"] is False
    json.dumps(three)


# ------------------------------------------------------------------ replay and undo
def test_replay_and_undo_give_the_same_states():
    setup = {"players": TWO, "options": {}, "seed": 3}
    rng = random.Random(5)
    state = ENGINE.new_game(setup)
    states = [state]
    board = random_round(rng, ENGINE.view(state), TWO)
    events = []
    for r, row in enumerate(board):
        for c, code in enumerate(row):
            events.append({"type": "place", "cell": [2 + r, 4 + c], "card": code})
    events[5:5] = [{"type": "remove", "cell": [2, 4]}, {"type": "place", "cell": [2, 4], "card": board[0][0]},
                   {"type": "set_turn", "player": "black"}]
    for event in events:
        state = ENGINE.apply(state, event)
        states.append(state)
    assert replay(ENGINE, setup, events) == state
    assert replay(ENGINE, setup, ENGINE.view(state)["log"]) == state
    assert ENGINE.view(replay(ENGINE, setup, events)) == ENGINE.view(state)
    previous, kept = undo(ENGINE, setup, events)
    assert previous == states[-2] and kept == events[:-1]
    assert ENGINE.view(previous)["round"] == 1 and ENGINE.view(state)["round"] == 2


def test_view_is_json_and_explains_the_current_board():
    state = play_board(new(auto_score=False), GOLDEN["board_face_up"])
    view = json.loads(json.dumps(ENGINE.view(state)))
    assert view["scores"]["castles"][0] == {"owner": "red", "cell": [2, 6], "rank": 3, "row": 0, "column": 11, "total": 33}
    assert any("gold mine at (1,6)" in "; ".join(english(from_json(line)) for line in lines) for lines in view["explanations"]["castles"])
    assert len(view["explanations"]["tiles"]) == 30
    assert view["board"]["rows"] == GOLDEN["board_as_the_camera_sees_it"]
    assert view["board"]["origin"] == [3, 3] and view["board"]["cells"][0]["grid_cell"] == [1, 1]
    assert view["board"]["territory_left"] == 0 and ENGINE.view(new())["board"]["territory_left"] == 22


def test_knizia_game_with_a_wizard():
    state = new(rules="knizia", wizard="8H")
    state = place(place(place(state, (6, 6), "10H"), (6, 7), "8H"), (6, 8), "4D")
    castle = ENGINE.view(state)["scores"]["castles"][0]
    assert (castle["rank"], castle["row"], castle["total"]) == (2, 4, 8)
    with pytest.raises(IllegalEvent, match="copies of 8H"):
        place(state, (7, 6), "8H")
    assert ENGINE.view(state)["board"]["cells"][1]["piece"] == {"kind": "wizard"}


from hypothesis import given, settings, strategies as st  # noqa: E402

EVENT_CARDS = TERRITORY + ["10H", "10D", "JH", "QD", "KH", "10S", "10C", "JC", "QS", "KC", "BACK", "3C", "7D"]
events_strategy = st.lists(st.one_of(
    st.fixed_dictionaries({"type": st.just("place"), "cell": st.tuples(st.integers(3, 9), st.integers(3, 9)).map(list),
                           "card": st.sampled_from(EVENT_CARDS)}),
    st.fixed_dictionaries({"type": st.sampled_from(["remove", "turn_down"]),
                           "cell": st.tuples(st.integers(3, 9), st.integers(3, 9)).map(list)}),
    st.fixed_dictionaries({"type": st.just("replace"), "cell": st.tuples(st.integers(3, 9), st.integers(3, 9)).map(list),
                           "card": st.sampled_from(EVENT_CARDS)}),
    st.fixed_dictionaries({"type": st.just("set_turn"), "player": st.sampled_from(["red", "black"])}),
), min_size=1, max_size=40)


@settings(max_examples=30, deadline=None)
@given(events_strategy, st.sampled_from(["poker", "knizia"]))
def test_random_event_streams_replay_and_undo_to_the_same_states(events, rules):
    setup = {"players": TWO, "options": {"rules": rules}}
    state = ENGINE.new_game(setup)
    states, accepted = [state], []
    for event in events:
        before = ENGINE.view(state)
        try:
            state = ENGINE.apply(state, event)
        except IllegalEvent:
            assert ENGINE.view(state) == before
            continue
        accepted.append(event)
        states.append(state)
        view = ENGINE.view(state)
        cells = view["board"]["cells"]
        assert len({tuple(c["cell"]) for c in cells}) == len(cells)
        height, width = view["board"]["size"]
        assert (height <= 5 and width <= 6) or (height <= 6 and width <= 5)
        supply = {name: sum(s.values()) for name, s in view["supplies"].items()}
        on_grid = {name: sum(1 for c in cells if c["piece"].get("owner") == name) for name in supply}
        if not view["results"]:                                     # castles are conserved within round 1
            assert all(supply[n] + on_grid[n] == 7 for n in supply)
    assert replay(ENGINE, setup, accepted) == state
    assert replay(ENGINE, setup, ENGINE.view(state)["log"]) == state
    if accepted:
        previous, _ = undo(ENGINE, setup, accepted)
        assert previous == states[-2]


def test_events_are_parsed_once_into_typed_frozen_operations():
    import dataclasses as dc

    from companion.cards import Card

    from companion.games.kingdoms.engine import EVENT_TYPES
    from companion.games.kingdoms.operations import NOT_GIVEN, PARSERS, Place, SetTurn

    assert set(PARSERS) == set(EVENT_TYPES)   # one operation per event type
    place = PARSERS["place"]({"type": "place", "cell": [6, 6], "card": " 5h "})
    assert place == Place((6, 6), Card.parse("5H")) and place.player is NOT_GIVEN
    with pytest.raises(dc.FrozenInstanceError):
        place.cell = (1, 1)  # type: ignore[misc]
    assert PARSERS["place"]({"type": "place", "cell": [6, 6], "card": "5H", "player": None}).player is None
    assert PARSERS["set_turn"]({"type": "set_turn"}) == SetTurn(None)
    with pytest.raises(IllegalEvent, match=r"cell must be \[row, col\]"):
        PARSERS["remove"]({"type": "remove", "cell": [6, True]})
    with pytest.raises(IllegalEvent, match="unknown field"):   # checked before the cell, as always
        PARSERS["turn_down"]({"type": "turn_down", "cell": "nowhere", "colour": "red"})
