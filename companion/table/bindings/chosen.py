"""The Chosen: a card laid in a player's area becomes a chip (its face if the camera saw it before it
was turned down); a chosen laid in departure is ``send`` with the medicine laid beside it and the
chips that left the area unseen as its discards; a medicine or radiation card laid next to a chosen
is ``play``; the current player's chosen stepping inwards, or an action only the next player could
take, is ``end_turn``; chips turned up in the vault are the ``reveal`` the verdict needs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from companion.games.chosen.pieces import table_role
from companion.table.bindings.base import Binding, Outcome
from companion.table.events import TableEvent
from companion.table.zones import MatZones

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
        role = table_role(card)
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
                    if ring == "departure" and table_role(c) == "medicine" and math.dist(pos, event.position) <= NEAR_MM]
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


