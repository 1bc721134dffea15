"""Kingdoms: a card landing in a grid cell is ``place``; a resource turned down is ``turn_down`` (if
the engine has not already turned it); a taken-away card is ``remove``; a moved card is ``remove`` +
``place``; a full grid is scored by the engine when ``auto_score`` is on, else it waits for the
referee's ``score_round`` (the camera and the phone behave alike).

Kingdoms needs no mat: its cells float on a lattice learnt from the cards themselves
(:class:`GridZones`), in mat millimetres when a mat is seen, else in camera pixels.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from calibration.layouts import CARD_MM
from companion.table.bindings.base import Binding, Outcome
from companion.table.events import TableEvent
from companion.table.tracker import Track
from companion.table.zones import GridZones, parse_cell

KINGDOMS_FIRST_CELL = (6, 6)   # the centre of the engine's 11 × 11 canvas: room in every direction


@dataclass(frozen=True)
class KingdomsGridConfig:
    """How the floating grid learns its cell spacing."""

    mat_gap_mm: float = 5.0            # on a mat: a poker card plus this gap, as the recordings lay them
    pixel_spacing: tuple[float, float] = (1.08, 1.06)   # without a mat: spacing = card size × these (x, y)
    sightings_before_use: int = 2      # an unsettled track counts for the lattice once seen more often


class KingdomsBinding(Binding):
    game = "kingdoms"

    needs_mat = False
    without_mat_notice = "no mat found: the Kingdoms grid is inferred from the cards in camera pixels"

    def __init__(self, setup, setup_events=None, spacing=None, grid: KingdomsGridConfig | None = None) -> None:
        super().__init__(setup, setup_events)
        self.grid_config = grid or KingdomsGridConfig()
        self.grid = GridZones(spacing=spacing, first_cell=KINGDOMS_FIRST_CELL)
        self.cells: dict[int, str] = {}          # track → cell it holds in the engine
        self.retired: set[int] = set()           # tracks of a scored round: their removal changes nothing
        self._round_seen = self.state.round

    @classmethod
    def card_copies(cls, setup: Mapping[str, Any]) -> int:
        """The decks in play: the ``decks`` option, else the engine's default for the player count."""
        return int((setup.get("options") or {}).get("decks", 3 if len(setup.get("players", [])) == 3 else 2))

    def zones(self, layout=None) -> GridZones:
        return self.grid

    def on_mat_found(self) -> None:
        if self.grid.spacing is None:
            gap = self.grid_config.mat_gap_mm
            self.grid.spacing = (CARD_MM[0] + gap, CARD_MM[1] + gap)

    def on_card_size(self, short: float, long: float) -> None:
        if self.grid.spacing is None:
            fx, fy = self.grid_config.pixel_spacing
            self.grid.spacing = (short * fx, long * fy)

    def observe_tracks(self, tracks: Iterable[Track]) -> None:
        seen = self.grid_config.sightings_before_use
        self.grid.observe([t.position for t in tracks if t.settled or len(t.sightings) > seen])

    @staticmethod
    def canvas_cell(zone: str) -> list[int]:
        return list(parse_cell(zone))

    def on_event(self, event: TableEvent, outcome: Outcome) -> None:
        self._retire_if_scored()   # the referee may have scored the round on a phone since the last event
        if event.track in self.retired:
            if event.type == "removed":
                self.retired.discard(event.track)
                if not self.retired:
                    self.grid.anchor = None  # the table is clear: the next round's grid floats anew
            return
        if event.zone is None:
            return
        cell = self.canvas_cell(event.zone)
        if event.type == "placed":
            if self.try_apply({"type": "place", "cell": cell, "card": event.card}, outcome):
                self.cells[event.track] = event.zone
                self._after_place(outcome)
        elif event.type == "removed":
            if self.cells.pop(event.track, None) is not None:
                self.try_apply({"type": "remove", "cell": cell}, outcome)
        elif event.type == "turned":
            if event.track not in self.cells:
                return
            tile = self.state.tiles.get(tuple(cell))
            if tile is None:
                return
            if event.card == "BACK" and not tile.face_down:
                self.try_apply({"type": "turn_down", "cell": cell}, outcome)
            elif event.card != "BACK" and (tile.face_down or tile.card is None):
                # turned up: the engine keeps face-down resources down while a dragon reaches them
                if tile.card is None:
                    self.try_apply({"type": "replace", "cell": cell, "card": event.card}, outcome)
        elif event.type == "moved":
            old = self.cells.pop(event.track, None)
            card = event.card if event.card != "BACK" else (event.face or "BACK")
            if old is not None:
                self.try_apply({"type": "remove", "cell": self.canvas_cell(old)}, outcome)
            if self.try_apply({"type": "place", "cell": cell, "card": card}, outcome):
                self.cells[event.track] = event.zone
                self._after_place(outcome)

    def _after_place(self, outcome: Outcome) -> None:
        # A full grid is scored by the engine itself when ``auto_score`` is on; with it off the round
        # waits (``engine.round_complete``) for the referee to score it, as on the phone.
        self._retire_if_scored()

    def _retire_if_scored(self) -> None:
        if self.state.round != self._round_seen or self.state.finished:
            # scored: the grid's cards now only wait to be cleared away
            self.retired |= set(self.cells)
            self.cells.clear()
            self._round_seen = self.state.round
