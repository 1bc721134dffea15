"""Guilds and Dungeon: a card landing on the battlefield is ``reveal`` (the encounter starts and the
doubling counter follows in the engine); a card landing in a player's battlefield slot is that
player's ``commit`` (face down: committed unseen); turning it up is ``turn_up``; once nothing is
hidden and everybody committed the encounter is ``resolve``d when the engine's ``auto_resolve`` says so
(``engine.automatic_events``), else it waits for the referee, as on the phone. The resolve is the
engine's, not the camera's: it stays out of ``Outcome.engine_events`` (the session makes it itself).
"""
from __future__ import annotations

from companion.table.bindings.base import Binding, Outcome
from companion.table.events import TableEvent
from companion.table.zones import MatZones


class DungeonBinding(Binding):
    game = "dungeon"

    def __init__(self, setup, setup_events=None) -> None:
        super().__init__(setup, setup_events)
        self.names = [p["name"] for p in self.view()["players"]]
        self.commits: dict[int, str] = {}   # track → player name, for the current encounter
        self.held_turn_ups: list[dict] = []  # seen before the last commit settled, in the order seen

    def zones(self, layout) -> MatZones:
        return MatZones(layout)

    def _still_to_commit(self) -> list[str]:
        return self.engine.awaiting(self.state) if self.state.phase in ("prize", "fight") else []

    def _seat(self, zone: str | None) -> str | None:
        if zone and zone.startswith("battlefield:P"):
            seat = int(zone.split("P", 1)[1]) - 1
            return self.names[seat] if 0 <= seat < len(self.names) else None
        return None

    def on_event(self, event: TableEvent, outcome: Outcome) -> None:
        player = self._seat(event.zone)
        phase = self.state.phase
        if event.type in ("placed", "moved") and event.zone == "battlefield" and event.card != "BACK":
            if phase in ("reveal", "friend"):
                self.commits.clear()
                self.held_turn_ups.clear()
            # out of phase the engine refuses, and the refusal reaches the table as a question
            self.try_apply({"type": "reveal", "card": event.card}, outcome)
        elif event.type in ("placed", "moved") and player is not None:
            commit = {"type": "commit", "player": player}
            if event.card != "BACK":
                commit["card"] = event.card
            if self.try_apply(commit, outcome):
                self.commits[event.track] = player
        elif event.type == "turned" and event.card != "BACK" and event.track in self.commits:
            turn_up = {"type": "turn_up", "player": self.commits[event.track], "card": event.card}
            # All reveal at once (the rules): a card turned up while someone is still to commit means
            # the camera has not yet settled that commit, so the turn-up waits for it.
            if self._still_to_commit():
                self.held_turn_ups.append(turn_up)
            else:
                self.try_apply(turn_up, outcome)
        if self.held_turn_ups and not self._still_to_commit():
            held, self.held_turn_ups = self.held_turn_ups, []
            for turn_up in held:
                self.try_apply(turn_up, outcome)
        self._apply_automatic_events(outcome)

    def _apply_automatic_events(self, outcome: Outcome) -> None:
        # The engine decides (``auto_resolve``). The resolve goes into the binding's own copy and log (so
        # a replay of the log reaches the same state) but not to the session: the session makes it itself
        # after the last camera event, as it does after the phone's.
        if any(e["type"] == "resolve" for e in self.apply_automatic_events(outcome)):
            self.commits.clear()
            self.held_turn_ups.clear()
