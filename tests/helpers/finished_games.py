"""Finished games of each real engine, as (game, setup, events): what a table played to its end is given.

The Guilds and Dungeon and The Chosen games are the self-play simulators' own (companion.simulate), their
events recorded as the bots make them; Kingdoms is the golden board of the seed example (a one-round
game: the example's castles are spent in it). The players are renamed (the events name seats by number),
so a test reads real names."""
from __future__ import annotations

import contextlib
import importlib
import json
import pathlib

GOLDEN = pathlib.Path("/work/shared/golden/kingdoms_seed_example.json")


class _Recorder:
    """An engine that keeps the events applied through it (the simulators' ENGINE, for one game)."""

    def __init__(self, engine):
        self.engine, self.events = engine, []

    def apply(self, state, event):
        new_state = self.engine.apply(state, event)
        self.events.append(json.loads(json.dumps(event)))
        return new_state

    def __getattr__(self, name):
        return getattr(self.engine, name)


@contextlib.contextmanager
def _recording(module):
    recorder = _Recorder(module.ENGINE)
    module.ENGINE = recorder
    try:
        yield recorder
    finally:
        module.ENGINE = recorder.engine


def dungeon_game(names=("Ann", "Bo", "Cy"), seed=2):
    module = importlib.import_module("companion.simulate.dungeon")
    with _recording(module) as recorder:
        module.play_one(seed, len(names), {}, ["greedy"] * len(names))
    # the bots resolve each fight themselves: the table must not resolve it again on its own
    return "dungeon", {"players": list(names), "seed": seed, "options": {"auto_resolve": False}}, recorder.events


def chosen_game(names=("Ann", "Bo", "Cy"), seed=5):
    module = importlib.import_module("companion.simulate.chosen")
    strategy = next(iter(module.STRATEGIES))
    with _recording(module) as recorder:
        module.play_one(seed, len(names), {}, [strategy] * len(names))
    return "chosen", {"players": [{"name": name} for name in names], "options": {}, "seed": seed}, recorder.events


def kingdoms_game(names=("Ann", "Bo")):
    golden = json.loads(GOLDEN.read_text())
    suits = list(golden["players"].values())
    players = [{"name": name, "suits": suits[n]} for n, name in enumerate(names)]
    board = golden["board_face_up"]
    events = [{"type": "place", "cell": [r + 3, c + 3], "card": card} for r, row in enumerate(board) for c, card in enumerate(row)]
    return "kingdoms", {"players": players, "options": {"rounds": 1}}, events


def finished(game, **names):
    return {"kingdoms": kingdoms_game, "dungeon": dungeon_game, "chosen": chosen_game}[game](**names)
