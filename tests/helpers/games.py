"""Whole games to play through the API: a setup and every event of a game played to its end.

Guilds and Dungeon and The Chosen are the simulator's own bots (``companion.simulate``), their events
recorded as the engine applies them; Kingdoms has no simulator, so a small bot here fills each round's grid
with the first card the engine accepts, cell by cell.
"""
from __future__ import annotations

import random
from typing import Any

from companion.games import IllegalEvent, get_engine

KINGDOMS_PLAYERS = [{"name": "Ann", "suits": ["H", "D"]}, {"name": "Bo", "suits": ["S", "C"]}]
TERRITORY = [f"{rank}{suit}" for rank in ("A", "2", "3", "4", "5", "6") for suit in "HDSC"] + ["9S", "BJ", "SJ"]
CASTLES = [f"{rank}{suit}" for rank in ("10", "J", "Q", "K") for suit in "HDSC"]


def kingdoms_game(seed: int = 1, rounds: int = 3) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    engine = get_engine("kingdoms")
    setup = {"players": KINGDOMS_PLAYERS, "options": {"rounds": rounds}}
    state = engine.new_game(setup)
    rng = random.Random(seed)
    events: list[dict[str, Any]] = []
    while not state.finished:
        cells = engine.view(state)["board"]["open_cells"]
        cell = cells[len(cells) // 2] if not state.board else rng.choice(cells)
        cards = TERRITORY + CASTLES
        rng.shuffle(cards)
        for card in cards:
            event = {"type": "place", "cell": cell, "card": card}
            try:
                state = engine.apply(state, event)
            except IllegalEvent:
                continue
            events.append(event)
            break
        else:
            raise AssertionError(f"no card fits {cell}")
    return setup, events


def simulated_game(game: str, seed: int = 7, players: int = 3) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A game the simulator's bots play to its end: its setup and every event the engine applied."""
    import importlib

    module = importlib.import_module(f"companion.simulate.{game}")
    engine = get_engine(game)
    recorded: list[dict[str, Any]] = []

    class Recording:
        def __getattr__(self, name: str) -> Any:
            return getattr(engine, name)

        def new_game(self, setup: dict[str, Any]) -> Any:
            recorded.clear()
            recorded.append({"setup": dict(setup)})
            return engine.new_game(setup)

        def apply(self, state: Any, event: dict[str, Any]) -> Any:
            after = engine.apply(state, event)
            recorded.append(dict(event))
            return after

    original = module.ENGINE
    module.ENGINE = Recording()
    try:
        module.play_one(seed, players, {}, [next(iter(module.STRATEGIES))] * players)
    finally:
        module.ENGINE = original
    setup = recorded[0]["setup"]
    return setup, recorded[1:]


def play_through_api(client, game: str, setup: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """A new table of ``game`` with ``setup``, every event posted by the referee as a phone would. A Dungeon
    table is made with ``auto_resolve`` off: the simulator's bots send each ``resolve`` themselves (the same
    states: the option changes only who sends it). The table's creation answer."""
    if game == "dungeon":
        setup = {**setup, "options": {"auto_resolve": False, **(setup.get("options") or {})}}
    response = client.post("/api/tables", json={"game": game, **setup})
    assert response.status_code == 201, response.get_json()
    table = response.get_json()
    headers = {"X-Referee-Pin": table["pin"]}
    for event in events:
        answer = client.post(f"/api/tables/{table['id']}/events", json=event, headers=headers)
        assert answer.status_code == 200, (event, answer.get_json())
    return table
