"""Game bindings: settled table events → the engines' own events, one module per game.

See :mod:`companion.table.bindings.base` for what every binding does and the hooks the pipeline
calls; each game's module says how its table maps onto its engine's events.
"""
from __future__ import annotations

from typing import Any, Mapping

from companion.table.bindings.base import Binding, Outcome
from companion.table.bindings.chosen import NEAR_MM, ChosenBinding
from companion.table.bindings.dungeon import DungeonBinding
from companion.table.bindings.kingdoms import KINGDOMS_FIRST_CELL, KingdomsBinding, KingdomsGridConfig
from companion.table.bindings.none import NoGameBinding

__all__ = ["BINDINGS", "KINGDOMS_FIRST_CELL", "NEAR_MM", "Binding", "ChosenBinding", "DungeonBinding",
           "KingdomsBinding", "KingdomsGridConfig", "NoGameBinding", "Outcome", "binding_for"]

# "none": no game, the settled cards and their changes only (any real clip can be checked)
BINDINGS = {"kingdoms": KingdomsBinding, "dungeon": DungeonBinding, "chosen": ChosenBinding, "none": NoGameBinding}


def binding_for(game: str, setup: Mapping[str, Any], setup_events: list[dict] | None = None, **kwargs) -> Binding:
    if game not in BINDINGS:
        raise ValueError(f"no table binding for {game!r}: choose one of {', '.join(BINDINGS)}")
    return BINDINGS[game](setup, setup_events, **kwargs)
