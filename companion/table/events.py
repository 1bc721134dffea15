"""What the table pipeline says: observations in, table events out.

An :class:`Observation` is one detected card placed on the table plane (mat millimetres, or image
pixels without a mat). A :class:`TableEvent` is a settled change of the physical table:
``placed``, ``removed``, ``turned``, ``moved``, or a ``question`` the players must answer because
the pipeline is unsure and will not guess.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from companion.messages import CardName, Message, N_, english

EVENT_TYPES = ("placed", "removed", "turned", "moved", "question")


@dataclass(frozen=True)
class Observation:
    code: str
    confidence: float
    position: tuple[float, float]
    # where the card would be if the lone index it was read from faces the other way
    other_position: tuple[float, float] | None = None


@dataclass(frozen=True)
class TableEvent:
    type: str                     # one of EVENT_TYPES
    card: str                     # what lies there now; "BACK" for a face-down card
    zone: str | None              # where it lies now (for removed: where it was)
    time: float                   # seconds, the source's clock
    track: int                    # the physical card's id while the pipeline follows it
    position: tuple[float, float] = (0.0, 0.0)
    face: str | None = None       # the face the table remembers for a face-down card
    previous_zone: str | None = None   # moved: where it came from
    previous_card: str | None = None   # turned: what showed before
    question: Message | None = None    # question: what the table must answer (translated where it is shown)
    details: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.type not in EVENT_TYPES:
            raise ValueError(f"unknown table event {self.type!r}: one of {', '.join(EVENT_TYPES)}")

    @property
    def known_face(self) -> str | None:
        """The card's face if anyone saw it: the visible code, or the remembered one for a back."""
        return self.card if self.card != "BACK" else self.face

    def to_json(self, include_faces: bool = False) -> dict[str, Any]:
        """JSON for the table. A face-down card's remembered face is left out unless asked for: the
        companion never shows players what lies face down (The Chosen's ruling), it only uses it."""
        data = asdict(self)
        if self.question is not None:
            data["question"] = english(self.question) if isinstance(self.question, Message) else str(self.question)
        data["position"] = [round(float(v), 1) for v in self.position]
        data["time"] = round(float(self.time), 3)
        if not include_faces:
            data.pop("face")
            if self.card == "BACK":
                data.pop("previous_card")
        return {k: v for k, v in data.items() if v not in (None, {}) or k == "zone"}

    def describe(self) -> Message:
        """The event in a sentence (cards as the reader names them; zones by their mat names)."""
        card = CardName(self.card)
        if self.type == "moved" and self.zone == self.previous_zone:
            return Message("%(card)s moved", card=card)
        if self.type == "moved":
            return Message("%(card)s moved from %(zone)s to %(to)s", card=card, zone=self.previous_zone, to=self.zone)
        if self.type == "turned":
            before = CardName(self.previous_card) if self.previous_card else Message("a face-down card")
            if self.zone:
                return Message("%(before)s turned to %(card)s in %(zone)s", before=before, card=card, zone=self.zone)
            return Message("%(before)s turned to %(card)s", before=before, card=card)
        if self.type == "question":
            return Message("question: %(question)s", question=self.question or "")
        kinds = {"placed": N_("%(card)s placed"), "removed": N_("%(card)s removed")}
        kinds_in = {"placed": N_("%(card)s placed in %(zone)s"), "removed": N_("%(card)s removed from %(zone)s")}
        if self.zone:
            return Message(kinds_in.get(self.type, "%(card)s " + self.type + " in %(zone)s"), card=card, zone=self.zone)
        return Message(kinds.get(self.type, "%(card)s " + self.type), card=card)
