"""Game bindings: settled table events → the engines' own events.

A binding owns the game state for the pipeline: it starts the engine from a setup, turns each
:class:`TableEvent` into zero or more engine events (through a small, per-game rule table), applies
them, and turns every engine refusal into a ``question`` for the table, so a wrong reading never
corrupts the game. Table events that only tidy up after the engine already moved the pieces
(the winner taking a trophy, chosen cards cleared from the vault) are consistent and produce nothing.

* Kingdoms: a card landing in a grid cell is ``place``; a resource turned down is ``turn_down`` (if
  the engine has not already turned it); a taken-away card is ``remove``; a moved card is ``remove`` +
  ``place``; a full grid scores the round (``score_round`` unless ``auto_score`` did it).
* Guilds and Dungeon: a card landing on the battlefield is ``reveal`` (the encounter starts and the
  doubling counter follows in the engine); a card landing in a player's battlefield slot is that
  player's ``commit`` (face down: committed unseen); turning it up is ``turn_up``; once nothing is
  hidden and everybody committed the encounter is ``resolve``d.
* The Chosen: a card laid in a player's area becomes a chip (its face if the camera saw it before it
  was turned down); a chosen laid in departure is ``send`` with the medicine laid beside it and the
  chips that left the area unseen as its discards; a medicine or radiation card laid next to a
  chosen is ``play``; the current player's chosen stepping inwards, or an action only the next player
  could take, is ``end_turn``; chips turned up in the vault are the ``reveal`` the verdict needs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from companion.cards import Card
from companion.games import get_engine
from companion.games.base import GameError, IllegalEvent
from companion.table.events import TableEvent
from companion.table.zones import GridZones, MatZones, parse_cell

KINGDOMS_FIRST_CELL = (6, 6)   # the centre of the engine's 11 × 11 canvas: room in every direction


@dataclass
class Outcome:
    """What one table event did to the game."""

    table_event: TableEvent
    engine_events: list[dict] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)


class Binding:
    """Common part: engine, state, the log of applied engine events, and safe application."""

    game = ""

    def __init__(self, setup: Mapping[str, Any], setup_events: list[dict] | None = None) -> None:
        self.engine = get_engine(self.game)
        self.setup = dict(setup)
        self.state = self.engine.new_game(self.setup)
        self.events: list[dict] = []
        for event in setup_events or []:
            self.state = self.engine.apply(self.state, event)  # a bad setup event is the caller's error
            self.events.append(dict(event))

    def view(self) -> dict:
        return self.engine.view(self.state)

    def try_apply(self, event: dict, outcome: Outcome) -> bool:
        try:
            self.state = self.engine.apply(self.state, event)
        except GameError as error:
            outcome.questions.append(f"the table shows {outcome.table_event.describe()}, but the rules refuse "
                                     f"{event['type']}: {error}")
            return False
        self.events.append(event)
        outcome.engine_events.append(event)
        return True

    def handle(self, event: TableEvent) -> Outcome:
        outcome = Outcome(event)
        if event.type != "question":
            self.on_event(event, outcome)
        return outcome

    def on_event(self, event: TableEvent, outcome: Outcome) -> None:  # pragma: no cover - per game
        raise NotImplementedError

    def zones(self, layout) -> Callable:
        raise NotImplementedError


# ---------------------------------------------------------------------------------------- Kingdoms

class KingdomsBinding(Binding):
    game = "kingdoms"

    def __init__(self, setup, setup_events=None, spacing=None) -> None:
        super().__init__(setup, setup_events)
        self.grid = GridZones(spacing=spacing, first_cell=KINGDOMS_FIRST_CELL)
        self.cells: dict[int, str] = {}          # track → cell it holds in the engine
        self.retired: set[int] = set()           # tracks of a scored round: their removal changes nothing
        self._round_seen = self.state.round

    def zones(self, layout=None) -> GridZones:
        return self.grid

    @staticmethod
    def canvas_cell(zone: str) -> list[int]:
        return list(parse_cell(zone))

    def on_event(self, event: TableEvent, outcome: Outcome) -> None:
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
        if len(self.state.tiles) == 30:
            self.try_apply({"type": "score_round"}, outcome)
        if self.state.round != self._round_seen or self.state.finished:
            # scored: the grid's cards now only wait to be cleared away
            self.retired |= set(self.cells)
            self.cells.clear()
            self._round_seen = self.state.round


# ---------------------------------------------------------------------------------------- Dungeon

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
        return (self.view().get("battlefield") or {}).get("to_commit") or []

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
        self._maybe_resolve(outcome)

    def _maybe_resolve(self, outcome: Outcome) -> None:
        if self.state.phase not in ("prize", "fight"):
            return
        try:
            state = self.engine.apply(self.state, {"type": "resolve"})
        except GameError:
            return  # somebody still has to commit or turn up: the table will show it
        self.state = state
        self.events.append({"type": "resolve"})
        outcome.engine_events.append({"type": "resolve"})
        self.commits.clear()
        self.held_turn_ups.clear()


# ---------------------------------------------------------------------------------------- The Chosen

NEAR_MM = 130.0


@dataclass
class _ChosenOnMat:
    id: int
    owner: int
    track: int
    position: tuple[float, float]
    chips: list[int] = field(default_factory=list)   # the carried chips' tracks, in the engine's order


class ChosenBinding(Binding):
    game = "chosen"
    RING_ORDER = ("departure", "step1", "step2", "vault")

    def __init__(self, setup, setup_events=None) -> None:
        super().__init__(setup, setup_events)
        self.names = [p["name"] for p in self.view()["players"]]
        self.area_chips: dict[int, list[int]] = {p: [] for p in range(len(self.names))}  # seat → chip tracks, engine order
        self.left_area: dict[int, list[int]] = {p: [] for p in range(len(self.names))}   # indices removed this turn
        self.pending_faces: dict[int, str] = {}      # track → face seen in an area before it was turned down
        self.loose: dict[int, tuple[str, tuple[float, float], str]] = {}  # track → (card, position, ring): medicine
        self.on_mat: dict[int, _ChosenOnMat] = {}    # chosen track → engine chosen
        self.carried: set[int] = set()               # chip / medicine tracks travelling with a chosen
        self.moved_this_turn: set[int] = set()
        self.mat_zones: MatZones | None = None
        self.chip_faces: dict[int, str | None] = {}   # chip track → its face if the camera saw it
        self.vault_faces: dict[int, str] = {}         # unseen chip track → the face turned up in the vault

    def zones(self, layout) -> MatZones:
        self.mat_zones = MatZones(layout)
        return self.mat_zones

    @staticmethod
    def _seat(zone: str | None) -> int | None:
        if zone and zone.startswith("area:P"):
            return int(zone.split("P", 1)[1]) - 1
        return None

    def _turn_player(self) -> int:
        return self.state.turn.player

    def _chip(self, seat: int, face: str | None, track: int, outcome: Outcome) -> None:
        turn = self.state.turn
        if turn.chip_onto is not None:
            self._end_turn(outcome)  # a second chip: the previous player's turn is over
        event = {"type": "chip", "onto": self.names[seat]}
        if face:
            event["card"] = face
        if self.try_apply(event, outcome):
            self.area_chips[seat].append(track)
            self.chip_faces[track] = face

    def _end_turn(self, outcome: Outcome) -> None:
        if self.try_apply({"type": "end_turn"}, outcome):
            self.moved_this_turn.clear()
            for seat in self.left_area:
                self.left_area[seat] = []
            self._after_end_turn()

    def _after_end_turn(self) -> None:
        live = {c.id for c in self.state.mat} | {c.id for c in self.state.pending}
        for track, chosen in list(self.on_mat.items()):
            if chosen.id not in live:
                self.on_mat.pop(track)

    def on_event(self, event: TableEvent, outcome: Outcome) -> None:
        if self.state.phase == "over":
            return
        seat = self._seat(event.zone)
        card = event.card
        if event.type == "placed" and seat is not None:
            if card == "BACK":
                self._chip(seat, None, event.track, outcome)
            else:
                self.pending_faces[event.track] = card  # a chip shown, about to be turned down
            return
        if event.type == "turned" and seat is not None and card == "BACK" and event.track in self.pending_faces:
            self._chip(seat, self.pending_faces.pop(event.track), event.track, outcome)
            return
        if event.type in ("removed", "moved") and event.track in self.pending_faces:
            self.pending_faces.pop(event.track)
        if event.type in ("removed", "moved"):
            for owner, tracks in self.area_chips.items():
                if event.track in tracks:
                    index = tracks.index(event.track)
                    if event.type == "removed":
                        self.left_area[owner].append(index)
                    else:
                        self.carried.add(event.track)
                    if event.type == "moved" and self._seat(event.zone) is not None:
                        return
                    break
        ring = event.zone if event.zone in self.RING_ORDER else None
        if ring is None:
            return
        if event.type == "turned" and ring == "vault" and card != "BACK":
            self._vault_face(event.track, card, outcome)
            return
        if event.track in self.on_mat:
            if event.type == "moved":
                self._chosen_moved(event, outcome)
            return
        if event.track in self.carried:
            return
        if event.type not in ("placed", "moved") or card == "BACK":
            return
        role = _chosen_role(card)
        if role == "chosen" and ring == "departure":
            self._send(event, outcome)
        elif role in ("medicine", "radiation"):
            target = self._nearest_chosen(event.position)
            if target is not None and math.dist(target.position, event.position) <= NEAR_MM:
                if self.try_apply({"type": "play", "card": card, "chosen": target.id}, outcome):
                    self.carried.add(event.track)
            else:
                self.loose[event.track] = (card, event.position, ring)

    def _send(self, event: TableEvent, outcome: Outcome) -> None:
        me = self._turn_player()
        # whose chosen: the seat the departure spot faces (on a mat), else the player whose turn it is
        facing = self.mat_zones.player_facing(event.position) if self.mat_zones else None
        sender = me if facing is None or facing >= len(self.names) else facing - 1
        if sender != me or self.state.turn.sends >= self.state.options.sends_per_turn:
            self._end_turn(outcome)  # only the next player can do this now: the turn before is over
            me = self._turn_player()
        medicine = [t for t, (c, pos, ring) in self.loose.items()
                    if ring == "departure" and _chosen_role(c) == "medicine" and math.dist(pos, event.position) <= NEAR_MM]
        chosen_id = self.state.next_id
        discard = sorted(self.left_area[me])
        send = {"type": "send", "card": event.card, "medicine": [self.loose[t][0] for t in medicine], "discard": discard}
        if self.try_apply(send, outcome):
            for t in medicine:
                self.loose.pop(t)
                self.carried.add(t)
            kept = [t for i, t in enumerate(self.area_chips[me]) if i not in discard]
            self.carried.update(self.area_chips[me])
            self.area_chips[me] = []
            self.left_area[me] = []
            self.on_mat[event.track] = _ChosenOnMat(chosen_id, me, event.track, event.position, kept)

    def _chosen_moved(self, event: TableEvent, outcome: Outcome) -> None:
        chosen = self.on_mat[event.track]
        chosen.position = event.position
        if event.zone not in self.RING_ORDER:
            return
        if chosen.owner != self._turn_player():
            self._end_turn(outcome)  # only its owner moves a chosen: the turn before theirs is over
            if chosen.owner != self._turn_player():
                return
        self.moved_this_turn.add(event.track)
        mine = {t for t, c in self.on_mat.items() if c.owner == chosen.owner}
        if mine <= self.moved_this_turn:
            self._end_turn(outcome)

    def _vault_face(self, track: int, face: str, outcome: Outcome) -> None:
        if self.state.phase != "reveal" or self.chip_faces.get(track) is not None:
            return  # a face the companion already knew, or no verdict waiting for it
        self.vault_faces[track] = face
        waiting = self.state.pending[0].id
        chosen = next((c for c in self.on_mat.values() if c.id == waiting), None)
        if chosen is None:
            return
        unseen = [t for t in chosen.chips if self.chip_faces.get(t) is None]
        if all(t in self.vault_faces for t in unseen):
            faces = [self.vault_faces.pop(t) for t in unseen]
            if self.try_apply({"type": "reveal", "faces": faces}, outcome):
                self._after_end_turn()

    def _nearest_chosen(self, position) -> _ChosenOnMat | None:
        if not self.on_mat:
            return None
        return min(self.on_mat.values(), key=lambda c: math.dist(c.position, position))


def _chosen_role(code: str) -> str:
    card = Card.parse(code)
    if card.is_joker or card.rank in (11, 12):
        return "chosen"
    if card.rank is not None and card.rank <= 10:
        return "medicine" if card.is_red else "radiation"
    return "other"


BINDINGS = {"kingdoms": KingdomsBinding, "dungeon": DungeonBinding, "chosen": ChosenBinding}


def binding_for(game: str, setup: Mapping[str, Any], setup_events: list[dict] | None = None, **kwargs) -> Binding:
    if game not in BINDINGS:
        raise ValueError(f"no table binding for {game!r}: choose one of {', '.join(BINDINGS)}")
    return BINDINGS[game](setup, setup_events, **kwargs)
