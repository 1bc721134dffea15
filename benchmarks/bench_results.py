"""Result pages on a server holding many finished games (issue 30): how long one result page, one chart
and the picture take to answer, with 1,000 finished games on the server (``--quick``: 60).

The games are played to their end through the session (``Table.submit``: each change journaled in the
server's SQLite file, as a phone's would be), a third of each game; the figures are the Flask app's own
answer times (its test client: no network), medians and 95th percentiles over requests for random tables.
Wall-clock time: say the machine's load beside them.
"""
from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from helpers.games import kingdoms_game, simulated_game  # noqa: E402  (the tests' whole-game helpers)

from web_ui import TestConfig, create_app  # noqa: E402

GAMES = 1000
QUICK_GAMES = 60
REQUESTS = 300


def _server(games: int):
    folder = tempfile.mkdtemp(prefix="bench-results-", dir="/dev/shm" if pathlib.Path("/dev/shm").is_dir() else None)
    config = {key: getattr(TestConfig, key) for key in dir(TestConfig) if key.isupper()}
    config.update(DATA_DIR=folder)
    app = create_app(config)
    registry = app.extensions["registry"]
    made = {"kingdoms": [kingdoms_game(seed) for seed in range(3)],
            "dungeon": [simulated_game("dungeon", seed, 3) for seed in range(3)],
            "chosen": [simulated_game("chosen", seed, 3) for seed in range(3)]}
    tables = []
    for number in range(games):
        game = ("kingdoms", "dungeon", "chosen")[number % 3]
        setup, events = made[game][number // 3 % 3]
        if game == "dungeon":
            setup = {**setup, "options": {"auto_resolve": False}}
        table, _pin, _token = registry.create_with_token(game, setup)
        for event in events:
            table.submit(event)
        tables.append(table.id)
    return app, tables


def run(quick: bool) -> list[dict]:
    games = QUICK_GAMES if quick else GAMES
    started = time.perf_counter()
    app, tables = _server(games)
    built = time.perf_counter() - started
    client = app.test_client()
    rng = random.Random(1)
    rows = []
    for name, path in (("result page", "/t/{}/result"), ("chart.svg", "/t/{}/result/chart.svg"),
                       ("picture (result.svg)", "/t/{}/result.svg"), ("result JSON", "/api/tables/{}/result")):
        times = []
        for _ in range(REQUESTS // (4 if quick else 1)):
            table = rng.choice(tables)
            start = time.perf_counter()
            answer = client.get(path.format(table))
            times.append(time.perf_counter() - start)
            assert answer.status_code == 200, (path, answer.status_code)
        times.sort()
        p95 = times[int(len(times) * 0.95) - 1]
        rows.append({"name": f"{name}, {games} finished games", "median": statistics.median(times) * 1000, "unit": "ms",
                     "note": f"p95 {p95 * 1000:.1f} ms; {len(times)} requests"})
    rows.append({"name": f"{games} finished games played in", "median": built, "unit": "s", "note": "through Table.submit"})
    app.extensions["registry"].close()
    return rows
