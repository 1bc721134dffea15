"""Self-play throughput: games per second of the simulator, one process and all cores.

Each row is the median over repeats of (games / wall seconds) for a whole ``simulate`` call, so the
all-cores row includes starting the worker pool. The machine's other load shows up here: compare
rows of one run, not runs on different days.
"""
from __future__ import annotations

import importlib.util
import statistics
import time

from companion.simulate.runner import available_cores, simulate


def _games_per_second(game: str, games: int, processes: int, repeats: int) -> float:
    rates = []
    for repeat in range(repeats):
        start = time.perf_counter()
        simulate(game, games=games, seed=repeat, processes=processes)
        rates.append(games / (time.perf_counter() - start))
    return statistics.median(rates)


def run(quick: bool) -> list[dict]:
    games_by_game = {"chosen": 20 if quick else 100, "dungeon": 20 if quick else 100}
    repeats = 1 if quick else 3
    cores = available_cores()
    rows = []
    for game, games in games_by_game.items():
        if importlib.util.find_spec(f"companion.simulate.{game}") is None:
            continue
        for processes in sorted({1, cores}):
            rate = _games_per_second(game, games, processes, repeats)
            rows.append({"name": f"{game} self-play, {processes} process{'es' if processes > 1 else ''}",
                         "median": rate, "unit": "games/s",
                         "note": f"{games} games x {repeats} repeats, default players and strategies"})
    return rows
