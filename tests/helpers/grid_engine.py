"""``GridEngine``: a tiny pure engine obeying the engine protocol, so session and web tests are about
their own layer alone (place a card in an empty cell of a 3×3 board, clear a full one)."""
from __future__ import annotations

from companion.cards import Card
from companion.games import IllegalEvent, InvalidSetup
from companion.session import TableRegistry


class GridEngine:
    """A 3×3 board: ``place`` a card in an empty cell, ``clear`` a full one. State: a tuple of rows."""

    name = "grid"

    def new_game(self, setup):
        players = setup.get("players")
        if not isinstance(players, list) or not players:
            raise InvalidSetup("at least one player is needed")
        if set(setup) - {"players", "options"}:
            raise InvalidSetup(f"unknown setup keys {sorted(set(setup) - {'players', 'options'})}")
        return ((None,) * 3,) * 3

    def _cell(self, event):
        cell = event.get("cell")
        if not (isinstance(cell, list) and len(cell) == 2 and all(isinstance(v, int) and 0 <= v < 3 for v in cell)):
            raise IllegalEvent(f"no cell {cell!r} on a 3x3 board")
        return cell

    def apply(self, state, event):
        row, col = self._cell(event)
        if event["type"] == "place":
            if state[row][col] is not None:
                raise IllegalEvent(f"cell {row},{col} is taken")
            value = Card.parse(event.get("card", "")).code
        elif event["type"] == "clear":
            if state[row][col] is None:
                raise IllegalEvent(f"cell {row},{col} is empty")
            value = None
        else:
            raise IllegalEvent(f"unknown event {event['type']!r}")
        rows = [list(r) for r in state]
        rows[row][col] = value
        return tuple(tuple(r) for r in rows)

    def view(self, state):
        return {"game": "grid", "grid": [list(r) for r in state], "filled": sum(v is not None for r in state for v in r)}

    # the rest of the Engine protocol: a grid has no options, no secrets and no rounds
    option_help: dict = {}

    def referee_view(self, state):
        return self.view(state)

    def option_defaults(self, players=3):
        return {}

    def audit(self, state):
        return []

    def awaiting(self, state):
        return []

    def round_complete(self, state):
        return all(v is not None for r in state for v in r)


def grid_registry(path, **kwargs):
    return TableRegistry(path, engines=lambda name: GridEngine(), games=("grid",), **kwargs)


SETUP = {"players": [{"name": "Ann"}, {"name": "Bo"}]}


def place(row, col, card):
    return {"type": "place", "cell": [row, col], "card": card}
