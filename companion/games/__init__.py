"""Game engines: pure rules, no I/O. Each game maps cards to its own pieces in its own package."""
from __future__ import annotations

import importlib

from companion.games.base import Engine, GameError, IllegalEvent, InvalidSetup, UnknownOption, replay, undo

GAMES = ("kingdoms", "dungeon", "chosen")


def get_engine(name: str) -> Engine:
    """The engine object of a game by name (``kingdoms``, ``dungeon``, ``chosen``)."""
    if name not in GAMES:
        raise InvalidSetup(f"unknown game {name!r}: choose one of {', '.join(GAMES)}")
    engine: Engine = importlib.import_module(f"companion.games.{name}").ENGINE
    return engine


__all__ = ["Engine", "GameError", "IllegalEvent", "InvalidSetup", "UnknownOption", "GAMES", "get_engine", "replay", "undo"]
