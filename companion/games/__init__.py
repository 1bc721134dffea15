"""Game engines: pure rules, no I/O. Each game maps cards to its own pieces in its own package."""
from __future__ import annotations

import importlib

from companion.games.base import Engine, GameError, IllegalEvent, InvalidSetup, UnknownOption, replay, undo
from companion.messages import N_, Message

GAMES = ("kingdoms", "dungeon", "chosen")
#: Each game's title as its players know it (translated where shown: 《王国》, 《工会与地城》, 《获选者》).
GAME_TITLES = {"kingdoms": N_("Kingdoms"), "dungeon": N_("Guilds and Dungeon"), "chosen": N_("The Chosen")}


def get_engine(name: str) -> Engine:
    """The engine object of a game by name (``kingdoms``, ``dungeon``, ``chosen``)."""
    if name not in GAMES:
        raise InvalidSetup(Message("unknown game %(name)s: choose one of %(games)s", name=repr(name), games=list(GAMES)))
    engine: Engine = importlib.import_module(f"companion.games.{name}").ENGINE
    return engine


__all__ = ["Engine", "GameError", "IllegalEvent", "InvalidSetup", "UnknownOption", "GAMES", "GAME_TITLES", "get_engine", "replay", "undo"]
