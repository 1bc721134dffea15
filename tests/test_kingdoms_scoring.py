"""Kingdoms scoring: the seed's worked example castle by castle, and hand-made boards for every rule."""
from __future__ import annotations

import json
import pathlib

import pytest

from companion.cards import Card
from companion.messages import english, from_json
from companion.games import InvalidSetup, UnknownOption
from companion.games.kingdoms import IllegalCard, InvalidBoard, PieceKind, Seating, piece_for, score_rows

from conftest import GOLDEN_KINGDOMS

# The golden example from ../shared; the copy in kingdoms_boards/ only stands in where shared/ is absent.
GOLDEN = json.loads((GOLDEN_KINGDOMS if GOLDEN_KINGDOMS.is_file()
                     else pathlib.Path(__file__).parent / "kingdoms_boards" / "seed_example.json").read_text())
TWO_PLAYERS = {"black": ["S", "C"], "red": ["H", "D"]}
FOUR = [{"name": n, "suits": [s]} for n, s in zip("abcd", "SHDC")]


def rows(text: str) -> list[list[str | None]]:
    """A board from lines of codes separated by spaces; ``.`` is an empty cell."""
    return [[None if code == "." else code for code in line.split()] for line in text.strip().splitlines()]


def castles_by_cell(board):
    return {tuple(c["cell"]): c for c in board.to_json()["castles"]}


def castle(board, cell):
    return castles_by_cell(board)[cell]


@pytest.mark.parametrize("key", ["board_face_up", "board_as_the_camera_sees_it"])
def test_golden_example_castle_by_castle(key):
    result = score_rows(GOLDEN[key], GOLDEN["players"]).to_json()
    assert len(result["castles"]) == len(GOLDEN["castles"])
    for got, expected in zip(result["castles"], GOLDEN["castles"]):
        assert got == expected
    assert result["totals"] == GOLDEN["totals"]
    assert result["warnings"] == []


def test_golden_explanations_name_the_dragon_the_gold_mine_and_the_mountain():
    board = score_rows(GOLDEN["board_face_up"], GOLDEN["players"])
    king = next(c for c in board.score.castles if c.cell == (2, 4)).explain()
    assert "cancelled by the dragon at (2,3)" in king
    assert "doubled by the gold mine at (1,6)" in king
    assert "3♦ (5,4) is behind the mountain at (4,4)" in king
    last = next(c for c in board.score.castles if c.cell == (5, 1)).explain()
    assert "A♥ (1,1) +2" in last and "6♥ (2,1) 0" in last
    tiles = {t.cell: t.explain() for t in board.score.tiles}
    assert "mountain at (3,3)" in tiles[(4, 3)] and "dragon at (2,3)" in tiles[(4, 3)]
    assert "never doubled" in tiles[(5, 6)]
    assert len(board.score.tiles) == 30


def test_piece_mapping():
    seating = Seating.from_json(TWO_PLAYERS)
    def piece(code):
        return piece_for(Card.parse(code), seating)

    assert (piece("AH").kind, piece("AH").value) == (PieceKind.RESOURCE, 1)
    assert (piece("6D").kind, piece("6D").value) == (PieceKind.RESOURCE, 6)
    assert (piece("3S").kind, piece("3S").value) == (PieceKind.HAZARD, -3)
    assert piece("9S").kind is PieceKind.DRAGON
    assert piece("BJ").kind is PieceKind.GOLD_MINE
    assert piece("SJ").kind is PieceKind.MOUNTAIN
    assert piece("BACK").kind is PieceKind.FACE_DOWN
    for code, owner, rank in (("10S", "black", 1), ("JC", "black", 2), ("QH", "red", 3), ("KD", "red", 4)):
        assert (piece(code).kind, piece(code).owner, piece(code).rank) == (PieceKind.CASTLE, owner, rank)


@pytest.mark.parametrize("code", ["AC", "6C", "9C", "9H", "7S", "8D", "7H"])
def test_cards_that_are_not_kingdoms_cards(code):
    with pytest.raises(IllegalCard, match=code):
        piece_for(Card.parse(code), Seating.from_json(TWO_PLAYERS))


def test_castle_of_an_unseated_suit_is_illegal():
    three = Seating.from_json({"a": ["S"], "b": ["H"], "c": ["D"]})
    with pytest.raises(IllegalCard, match="clubs"):
        piece_for(Card.parse("KC"), three)
    assert piece_for(Card.parse("KD"), three).owner == "c"


def test_dragon_behind_a_mountain_does_not_cancel():
    board = score_rows(rows("""
        10H 5H SJ 9S
        .   .  .  .
        3D  .  .  ."""), TWO_PLAYERS)
    assert castle(board, (1, 1)) == {"owner": "red", "cell": [1, 1], "rank": 1, "row": 5, "column": 3, "total": 8}
    without_mountain = score_rows(rows("""
        10H 5H 4S 9S
        .   .  .  .
        3D  .  .  ."""), TWO_PLAYERS)
    assert castle(without_mountain, (1, 1))["row"] == -4


def test_gold_mine_cancelled_by_the_dragon_doubles_nothing():
    text = """
        10H 3H BJ
        .   .  9S
        .   .  ."""
    board = score_rows(rows(text), TWO_PLAYERS)
    assert castle(board, (1, 1))["row"] == 3
    free = score_rows(rows(text.replace("9S", " .")), TWO_PLAYERS)
    assert castle(free, (1, 1))["row"] == 6
    mine = next(t for t in board.score.tiles if t.cell == (1, 3))
    assert "cancelled by the dragon at (2,3)" in mine.explain()


def test_gold_mine_doubles_a_tile_for_a_castle_outside_its_lines():
    board = score_rows(rows("""
        4H .  BJ
        .  .  .
        KD .  ."""), TWO_PLAYERS)
    assert castle(board, (3, 1)) == {"owner": "red", "cell": [3, 1], "rank": 4, "row": 0, "column": 8, "total": 32}


def test_hazards_are_never_doubled_and_totals_may_be_negative():
    board = score_rows(rows("""
        KS 6S 5S BJ
        4S .  .  .
        AH .  .  ."""), TWO_PLAYERS)
    assert castle(board, (1, 1)) == {"owner": "black", "cell": [1, 1], "rank": 4, "row": -11, "column": -3, "total": -56}
    assert board.to_json()["totals"] == {"black": -56, "red": 0}


def test_castles_dragon_gold_mine_and_face_down_cards_do_not_block():
    board = score_rows(rows("""
        10H KS 9S BACK 5D
        3H  .  .  .    .
        """), TWO_PLAYERS)
    # The dragon cancels 5D (its row) but castles, the dragon and the back do not cut the line for 3H's column.
    assert castle(board, (1, 1))["row"] == 0
    assert castle(board, (1, 1))["column"] == 3
    plain = score_rows(rows("10H KS BJ SJ 6H"), TWO_PLAYERS)
    assert castle(plain, (1, 1))["row"] == 0 and castle(plain, (1, 2))["row"] == 0
    open_line = score_rows(rows("10H KS BJ 6S 6H"), TWO_PLAYERS)
    assert castle(open_line, (1, 1))["row"] == 6 and castle(open_line, (1, 2))["total"] == 24


def test_face_down_cards_count_zero_inside_the_dragons_lines():
    board = score_rows(rows("""
        10D BACK 9S
        .   .    BACK
        .   .    KS"""), TWO_PLAYERS)
    assert castle(board, (1, 1))["row"] == 0
    assert castle(board, (3, 3))["column"] == 0
    with pytest.raises(InvalidBoard, match=r"\(1,4\).*dragon"):
        score_rows(rows("10D 9S SJ BACK"), TWO_PLAYERS)
    with pytest.raises(InvalidBoard, match="dragon"):
        score_rows(rows("10D BACK"), TWO_PLAYERS)


def test_castles_score_from_rank_four_down_per_player_in_seat_order():
    board = score_rows(rows("""
        10H KH 3D
        JS  .  .
        QD  KS ."""), TWO_PLAYERS)
    order = [(c["owner"], c["rank"], tuple(c["cell"])) for c in board.to_json()["castles"]]
    assert order == [("black", 4, (3, 2)), ("black", 2, (2, 1)), ("red", 4, (1, 2)), ("red", 3, (3, 1)), ("red", 1, (1, 1))]


def test_partial_board_warns_and_full_board_does_not():
    partial = score_rows(rows("10H 3H"), TWO_PLAYERS)
    assert [english(from_json(w)) for w in partial.to_json()["warnings"]] == ["the board is not full: 2 of 30 cells hold a card; scored as it stands"]
    assert partial.to_json()["totals"] == {"black": 0, "red": 3}
    empty = score_rows([[None, None]], TWO_PLAYERS)
    assert empty.to_json() == {"totals": {"black": 0, "red": 0}, "castles": [], "warnings": [{"msg": "the board is empty", "args": {}}]}


def test_tall_board_scores_like_its_transpose():
    transposed = [list(col) for col in zip(*GOLDEN["board_face_up"])]
    result = score_rows(transposed, GOLDEN["players"]).to_json()
    assert result["totals"] == GOLDEN["totals"]
    expected = {(c["cell"][1], c["cell"][0]): (c["column"], c["row"], c["total"]) for c in GOLDEN["castles"]}
    assert {tuple(c["cell"]): (c["row"], c["column"], c["total"]) for c in result["castles"]} == expected


# ---------------------------------------------------------------- knizia
def test_knizia_scores_lines_a_resource_in_the_dragons_row_counts_in_its_column():
    text = """
        5H .  9S
        .  .  .
        10H . ."""
    assert castle(score_rows(rows(text), TWO_PLAYERS), (3, 1))["column"] == 0
    assert castle(score_rows(rows(text), TWO_PLAYERS, {"rules": "knizia"}), (3, 1))["column"] == 5


def test_knizia_gold_mine_doubles_hazards_and_only_in_its_own_lines():
    text = """
        10S 3S BJ 2H
        4H  .  .  .
        10D . .  ."""
    poker = score_rows(rows(text), TWO_PLAYERS)
    knizia = score_rows(rows(text), TWO_PLAYERS, {"rules": "knizia"})
    assert castle(poker, (1, 1))["row"] == -3 + 4
    assert castle(knizia, (1, 1))["row"] == 2 * (-3 + 2)
    # 2H is doubled as a tile in poker rules, for the castle in its column too; in knizia only in its row.
    text2 = """
        BJ 2H
        .  10D"""
    assert castle(score_rows(rows(text2), TWO_PLAYERS), (2, 2))["column"] == 4
    assert castle(score_rows(rows(text2), TWO_PLAYERS, {"rules": "knizia"}), (2, 2))["column"] == 2


def test_knizia_dragon_and_gold_mine_in_one_segment():
    text = "10S 4H 2S 9S BJ"
    assert castle(score_rows(rows(text), TWO_PLAYERS, {"rules": "knizia"}), (1, 1))["row"] == -4
    assert castle(score_rows(rows(text), TWO_PLAYERS), (1, 1))["row"] == -2


def test_knizia_wizard_raises_adjacent_castles():
    text = """
        10H 7C 4H
        .   KS .
        .   .  ."""
    options = {"rules": "knizia", "wizard": "7C"}
    board = score_rows(rows(text), TWO_PLAYERS, options)
    assert castle(board, (1, 1)) == {"owner": "red", "cell": [1, 1], "rank": 2, "row": 4, "column": 0, "total": 8}
    assert castle(board, (2, 2))["rank"] == 5
    assert "wizard at (1,2)" in next(c for c in board.score.castles if c.cell == (1, 1)).explain()
    with pytest.raises(InvalidBoard, match="7C"):
        score_rows(rows(text), TWO_PLAYERS, {"rules": "knizia"})


def test_wizard_options_are_checked():
    with pytest.raises(UnknownOption, match="knizia"):
        score_rows(rows("10H"), TWO_PLAYERS, {"wizard": "7C"})
    with pytest.raises(InvalidSetup, match="already"):
        score_rows(rows("10H"), TWO_PLAYERS, {"rules": "knizia", "wizard": "5H"})
    with pytest.raises(UnknownOption, match="rules"):
        score_rows(rows("10H"), TWO_PLAYERS, {"rules": "chess"})


# ---------------------------------------------------------------- bad boards
@pytest.mark.parametrize("board, players, message", [
    ("not a list", TWO_PLAYERS, "list of rows"),
    ([], TWO_PLAYERS, "list of rows"),
    ([["AH", "2H"], ["3H"]], TWO_PLAYERS, "same length"),
    ([["AH", 5]], TWO_PLAYERS, r"\(1,2\)"),
    ([["ZZ"]], TWO_PLAYERS, "unknown"),
    ([["3C"]], TWO_PLAYERS, "not a Kingdoms card"),
    ([["7H"]], TWO_PLAYERS, "9♠"),
    ([["10C"]], {"a": ["S"], "b": ["H"], "c": ["D"]}, "clubs"),
    ([["AH", None, None, None, None, None, "2H"]], TWO_PLAYERS, "7 column"),
    ([["AH"], [None], [None], [None], [None], ["2H"], ["3H"]], TWO_PLAYERS, "7 row"),
    ([["AH", None, None, None, None, "2H"], [None] * 6, [None] * 6, [None] * 6, [None] * 6, ["3H"] + [None] * 5],
     TWO_PLAYERS, "6 column.*6 row"),
    ([["10H", "10H", "10H"]], TWO_PLAYERS, "3 copies of 10H"),
    ([["5H", "5H"]], TWO_PLAYERS, "territory pile"),
    ([["KS", "KC"]], TWO_PLAYERS, "black has 2 rank-4"),
    ([["10H", "10H", "10D", "10D", "10H"]], TWO_PLAYERS, "copies|rank-1"),
    ([["10H", "10H", "10H"]], [{"name": "a", "suits": ["H"]}, {"name": "b", "suits": ["S"]}, {"name": "c", "suits": ["D"]},
                               {"name": "d", "suits": ["C"]}], "3 copies"),
])
def test_bad_boards_are_refused_with_a_clear_error(board, players, message):
    with pytest.raises(ValueError, match=message):
        score_rows(board, players)


def test_deck_count_and_territory_limit_are_options():
    assert score_rows([["5H", "5H", "10H"]], TWO_PLAYERS, {"territory_limit": "decks"}).to_json()["castles"][0]["row"] == 10
    with pytest.raises(InvalidBoard, match="3 copies"):
        score_rows([["5H", "5H", "5H"]], TWO_PLAYERS, {"territory_limit": "decks"})
    assert score_rows([["5H", "5H", "5H"]], TWO_PLAYERS, {"territory_limit": "decks", "decks": 3}).to_json()["warnings"]
    three = {"a": ["S"], "b": ["H"], "c": ["D"]}
    assert score_rows([["10H", "10H", "10H"]], three).to_json()["totals"] == {"a": 0, "b": 0, "c": 0}


@pytest.mark.parametrize("players, message", [
    ({"solo": ["H", "D"]}, "2 to 4"),
    ({n: [s] for n, s in zip("abcde", "SHDCS")}, "2 to 4"),
    ({"black": ["S", "H"], "red": ["C", "D"]}, "one colour"),
    ({"a": ["S", "C"], "b": ["S", "C"]}, "only one player"),
    ({"a": ["S", "C"], "b": ["X", "D"]}, "unknown suit"),
    ({"a": ["S"], "b": ["H", "D"], "c": ["C"]}, "one suit"),
    ("black", "list or a mapping"),
    ({"": ["S", "C"], "red": ["H", "D"]}, "name"),
])
def test_bad_seatings_are_refused(players, message):
    with pytest.raises(InvalidSetup, match=message):
        score_rows([["AH"]], players)


def test_four_players_each_own_one_suit():
    board = score_rows(rows("""
        10S 3H 10H
        4D  .  .
        10D 10C ."""), {p["name"]: p["suits"] for p in FOUR})
    assert board.to_json()["totals"] == {"a": 7, "b": 3, "c": 4, "d": 3}
