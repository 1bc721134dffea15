"""Properties of Kingdoms scoring that must hold on every legal board (hypothesis, modest example counts)."""
from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings, strategies as st

from companion.games.kingdoms import score_rows

TWO_PLAYERS = {"black": ["S", "C"], "red": ["H", "D"]}
TERRITORY = [f"{r}{s}" for s in "HDS" for r in ("A", "2", "3", "4", "5", "6")] + ["9S", "BJ", "SJ", "SJ"]
CASTLES = ["10S", "10S", "10C", "10C", "JS", "QC", "KS", "10H", "10H", "10D", "10D", "JD", "QH", "KH"]
RULES = st.sampled_from(["poker", "knizia"])
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def boards(draw, full: bool = True, without: tuple[str, ...] = ()):
    """A legal 2-player board of 5 rows × 6 columns; partly filled unless ``full``."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    castles = rng.sample(CASTLES, rng.randint(8, 14))
    territory = [c for c in TERRITORY if c not in without]
    territory = rng.sample(territory, min(len(territory), 30 - len(castles)))
    cards = territory + castles
    cards += [None] * (30 - len(cards))
    rng.shuffle(cards)
    if not full:
        cards = [None if rng.random() < 0.35 else c for c in cards]
    return [cards[r * 6:(r + 1) * 6] for r in range(5)]


def per_castle(board, rules="poker"):
    return {tuple(c["cell"]): c for c in score_rows(board, TWO_PLAYERS, {"rules": rules}).to_json()["castles"]}


@FAST
@given(boards(), RULES)
def test_transposing_keeps_each_castles_total_and_swaps_row_and_column(board, rules):
    before = per_castle(board, rules)
    after = per_castle([list(col) for col in zip(*board)], rules)
    assert {(c[1], c[0]): (v["column"], v["row"], v["total"]) for c, v in before.items()} == \
        {c: (v["row"], v["column"], v["total"]) for c, v in after.items()}


@FAST
@given(boards(full=False), RULES)
def test_rotating_180_degrees_keeps_totals(board, rules):
    rotated = [list(reversed(row)) for row in reversed(board)]
    before, after = per_castle(board, rules), per_castle(rotated, rules)
    height, width = len(board), len(board[0])
    assert {(height + 1 - r, width + 1 - c): v["total"] for (r, c), v in before.items()} == \
        {cell: v["total"] for cell, v in after.items()}
    assert score_rows(board, TWO_PLAYERS, {"rules": rules}).score.totals == \
        score_rows(rotated, TWO_PLAYERS, {"rules": rules}).score.totals


@FAST
@given(boards(full=False, without=("SJ",)), st.integers(0, 4), st.integers(0, 5), RULES)
def test_a_mountain_in_an_otherwise_empty_row_and_column_changes_nothing(board, row, col, rules):
    for c in range(6):
        board[row][c] = None
    for r in range(5):
        board[r][col] = None
    with_mountain = [list(line) for line in board]
    with_mountain[row][col] = "SJ"
    assert per_castle(with_mountain, rules) == per_castle(board, rules)


@FAST
@given(boards(full=False, without=("9S",)), st.data())
def test_adding_a_dragon_never_raises_a_castles_score_in_poker_rules(board, data):
    empty = [(r, c) for r in range(5) for c in range(6) if board[r][c] is None]
    if not empty:
        return
    r, c = data.draw(st.sampled_from(empty))
    with_dragon = [list(line) for line in board]
    with_dragon[r][c] = "9S"
    before, after = per_castle(board), per_castle(with_dragon)
    assert before.keys() == after.keys()
    for cell in before:
        assert after[cell]["total"] <= before[cell]["total"]


@FAST
@given(boards(), st.randoms(use_true_random=False), RULES)
def test_scoring_is_independent_of_castle_order(board, rng, rules):
    from companion.games.kingdoms import Seating, score
    from companion.games.kingdoms.board import check_board, parse_rows
    from companion.games.kingdoms.options import Options

    seating = Seating.from_json(TWO_PLAYERS)
    options = Options.from_json({"rules": rules}, seating)
    pieces = check_board(parse_rows(board, seating, options), seating, options)
    items = list(pieces.items())
    rng.shuffle(items)
    reference = score(pieces, seating.names, rules).to_json()
    assert score(dict(items), seating.names, rules).to_json() == reference
    totals = {name: sum(c["total"] for c in reference["castles"] if c["owner"] == name) for name in seating.names}
    assert reference["totals"] == totals


@FAST
@given(boards(full=False))
def test_every_castle_total_is_row_plus_column_times_rank(board):
    for rules in ("poker", "knizia"):
        for castle in per_castle(board, rules).values():
            assert castle["total"] == (castle["row"] + castle["column"]) * castle["rank"]


@FAST
@given(boards(full=False, without=("SJ",)), st.sampled_from([0, 4]), st.integers(0, 5), RULES)
def test_a_mountain_in_an_empty_edge_row_changes_nothing(board, row, col, rules):
    # Its column's cards all lie on one side of it, so it splits no segment.
    board[row] = [None] * 6
    with_mountain = [list(line) for line in board]
    with_mountain[row][col] = "SJ"
    assert per_castle(with_mountain, rules) == per_castle(board, rules)
