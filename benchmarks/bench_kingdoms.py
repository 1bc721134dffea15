"""Kingdoms scoring speed: full random legal 2-player boards scored per second, poker and knizia rules.

Two figures per rule set: the scorer alone (pieces already mapped) and the whole path a score
file takes (codes parsed, board checked, scored). Each repeat scores every board once; the
figure is the median over repeats. Time is this process's CPU time, so other work on a shared
machine inflates the figures less than wall-clock time would.
"""
from __future__ import annotations

import random
import statistics
import time

from companion.games.kingdoms import Options, Seating, score, score_rows
from companion.games.kingdoms.board import check_board, parse_rows

PLAYERS = {"black": ["S", "C"], "red": ["H", "D"]}
TERRITORY = [f"{r}{s}" for s in "HDS" for r in ("A", "2", "3", "4", "5", "6")] + ["9S", "BJ", "SJ", "SJ"]
CASTLES = ["10S", "10S", "10C", "10C", "JS", "QC", "KS", "10H", "10H", "10D", "10D", "JD", "QH", "KH"]


def random_boards(count: int, seed: int = 1) -> list[list[list[str]]]:
    rng = random.Random(seed)
    boards = []
    for _ in range(count):
        castles = rng.sample(CASTLES, rng.randint(8, 14))
        cards = rng.sample(TERRITORY, 30 - len(castles)) + castles
        rng.shuffle(cards)
        boards.append([cards[r * 6:(r + 1) * 6] for r in range(5)])
    return boards


def _median_rate(work, items: int, repeats: int) -> float:
    rates = []
    for _ in range(repeats):
        start = time.process_time()
        work()
        rates.append(items / (time.process_time() - start))
    return statistics.median(rates)


def run(quick: bool) -> list[dict]:
    count, repeats = (50, 3) if quick else (300, 15)
    boards = random_boards(count)
    seating = Seating.from_json(PLAYERS)
    rows = []
    for rules in ("poker", "knizia"):
        options = Options.from_json({"rules": rules}, seating)
        pieces = [check_board(parse_rows(b, seating, options), seating, options) for b in boards]
        rate = _median_rate(lambda: [score(p, seating.names, rules) for p in pieces], count, repeats)
        rows.append({"name": f"score full board ({rules})", "median": rate, "unit": "boards/s",
                     "note": f"{count} random legal boards × {repeats} repeats, scorer only"})
        rate = _median_rate(lambda: [score_rows(b, PLAYERS, {"rules": rules}) for b in boards], count, repeats)
        rows.append({"name": f"parse+check+score ({rules})", "median": rate, "unit": "boards/s",
                     "note": "the score-file path: codes → pieces → checks → score"})
    return rows
