"""Guilds and Dungeon (工会与地城) with one poker deck: the referee engine.

``ENGINE`` is the engine object (``new_game``, ``apply``, ``view``); see ``docs/dungeon.md``.
"""
from companion.games.dungeon.engine import ENGINE, EVENT_TYPES, DungeonEngine
from companion.games.dungeon.knowledge import audit
from companion.games.dungeon.rules import RULINGS, Options, parse_options
from companion.games.dungeon.state import DungeonState

__all__ = ["ENGINE", "EVENT_TYPES", "DungeonEngine", "DungeonState", "Options", "RULINGS", "audit", "parse_options"]
