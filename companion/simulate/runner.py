"""Runs many self-play games of one game on all cores and aggregates one report.

Reproducibility: game number ``n`` of a run with seed ``s`` is always played from the same
derived seed (a hash of ``s`` and ``n``) and with the same seat assignment, and records are put
back in game order before aggregation, so the report does not depend on how many processes ran
it or how the games were chunked.
"""
from __future__ import annotations

import hashlib
import importlib
import math
import multiprocessing
import os
import statistics
from typing import Any, Mapping, Sequence

from companion.messages import Message, MessageError
from companion.simulate import SIMULATED_GAMES

# Used when a game module does not say its own DEFAULT_PLAYERS.
DEFAULT_PLAYERS = {"dungeon": 3, "chosen": 4}


class SimulationError(MessageError, ValueError):
    """Bad simulation parameters (unknown game or strategy, no games, bad process count)."""


def game_module(game: str):
    """The simulation module of a game; a clear error when it does not exist (yet)."""
    if game not in SIMULATED_GAMES:
        raise SimulationError(Message("unknown game %(game)s: choose one of %(games)s", game=repr(game), games=", ".join(SIMULATED_GAMES)))
    try:
        return importlib.import_module(f"companion.simulate.{game}")
    except ModuleNotFoundError as error:
        if error.name == f"companion.simulate.{game}":
            raise SimulationError(Message("the %(game)s simulator is not available yet", game=game)) from None
        raise


def available_cores() -> int:
    """The cores this process may run on (a container or taskset may allow fewer than the machine has)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def game_seed(seed: int, game_number: int) -> int:
    """A 63-bit seed for one game, derived from the run seed and the game's number only."""
    digest = hashlib.sha256(f"companion-simulate:{seed}:{game_number}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def seats_for_game(strategies: Sequence[str], players: int, game_number: int) -> list[str]:
    """Strategies by seat. They rotate one seat per game so no strategy keeps the first-player edge."""
    return [strategies[(seat + game_number) % len(strategies)] for seat in range(players)]


def _play_chunk(job: tuple) -> list[dict]:
    game, seed, players, options, strategies, numbers = job
    module = game_module(game)
    records = []
    for number in numbers:
        seats = seats_for_game(strategies, players, number)
        record = dict(module.play_one(game_seed(seed, number), players, dict(options), seats))
        record["game_number"] = number
        record["seats"] = seats
        records.append(record)
    return records


def _chunks(count: int, processes: int) -> list[range]:
    # A few chunks per process keeps cores busy when games differ in length.
    size = max(1, math.ceil(count / (processes * 4)))
    return [range(start, min(count, start + size)) for start in range(0, count, size)]


def play_games(game: str, games: int, seed: int, players: int, options: Mapping[str, Any],
               strategies: Sequence[str], processes: int) -> list[dict]:
    """Every game's record, in game order."""
    jobs = [(game, seed, players, dict(options), list(strategies), numbers)
            for numbers in _chunks(games, processes)]
    if processes == 1 or len(jobs) == 1:
        parts = [_play_chunk(job) for job in jobs]
    else:
        with multiprocessing.get_context().Pool(min(processes, len(jobs))) as pool:
            parts = pool.map(_play_chunk, jobs, chunksize=1)
    records = [record for part in parts for record in part]
    records.sort(key=lambda record: record["game_number"])
    return records


def _length(turns: list[int]) -> dict:
    ordered = sorted(turns)
    p90 = ordered[min(len(ordered) - 1, math.ceil(0.9 * len(ordered)) - 1)]
    return {"mean": round(statistics.fmean(ordered), 3), "median": statistics.median(ordered),
            "p90": p90, "max": ordered[-1]}


def aggregate(game: str, seed: int, players: int, options: Mapping[str, Any], strategies: Sequence[str],
              records: list[dict], details: dict) -> dict:
    """The common report. A seat or strategy wins a game when it is among the game's winners
    (a team win counts for every member); a draw is a game with no winner."""
    games = len(records)
    seat_wins = [0] * players
    strategy_wins = {name: 0 for name in strategies}
    strategy_seats = {name: 0 for name in strategies}
    end_reasons: dict[str, int] = {}
    draws = 0
    for record in records:
        winners = record["winners"]
        if not winners:
            draws += 1
        for seat, name in enumerate(record["seats"]):
            strategy_seats[name] += 1
            if seat in winners:
                seat_wins[seat] += 1
                strategy_wins[name] += 1
        end_reasons[record["end"]] = end_reasons.get(record["end"], 0) + 1
    return {
        "game": game,
        "games": games,
        "seed": seed,
        "players": players,
        "options": dict(options),
        "strategies": list(strategies),
        "win_rate_by_seat": [round(wins / games, 4) for wins in seat_wins],
        "win_rate_by_strategy": {name: round(strategy_wins[name] / strategy_seats[name], 4) if strategy_seats[name] else None
                                 for name in strategies},
        "draws": draws,
        "length": _length([record["turns"] for record in records]),
        "end_reasons": dict(sorted(end_reasons.items())),
        "details": details,
    }


def simulate(game: str, games: int, seed: int, players: int | None = None, options: Mapping[str, Any] | None = None,
             strategies: Sequence[str] | None = None, processes: int | None = None) -> dict:
    """Plays ``games`` self-play games and returns the report (see docs/simulator.md)."""
    module = game_module(game)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise SimulationError(Message("the number of games must be a whole number of at least 1, got %(value)s", value=repr(games)))
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise SimulationError(Message("the seed must be a whole number, got %(value)s", value=repr(seed)))
    if players is None:
        players = getattr(module, "DEFAULT_PLAYERS", DEFAULT_PLAYERS.get(game, 2))
    if isinstance(players, bool) or not isinstance(players, int):
        raise SimulationError(Message("the number of players must be a whole number, got %(value)s", value=repr(players)))
    options = dict(options or {})
    strategies = list(strategies) if strategies else list(module.STRATEGIES)
    unknown = [name for name in strategies if name not in module.STRATEGIES]
    if unknown:
        raise SimulationError(Message("unknown %(game)s strategy %(strategy)s: choose from %(strategies)s", game=game, strategy=repr(unknown[0]),
                                        strategies=", ".join(module.STRATEGIES)))
    if processes is None:
        processes = available_cores()
    if isinstance(processes, bool) or not isinstance(processes, int) or processes < 1:
        raise SimulationError(Message("the number of processes must be at least 1, got %(value)s", value=repr(processes)))
    check = getattr(module, "check_setup", None)
    if check is not None:
        check(players, options)  # bad players or options fail here, once, before any worker starts
    records = play_games(game, games, seed, players, options, strategies, processes)
    return aggregate(game, seed, players, options, strategies, records, module.summarize(records))
