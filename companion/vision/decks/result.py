"""What learning made of the photos: each card found, its code and sureness, and what the player is asked."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from companion.vision.decks.profile import JOKERS, DeckProfile
from companion.messages import N_, Message


@dataclass(frozen=True)
class Advice:
    """How a player is told to put right what learning could not place, where they teach the deck: the
    command line's flags, or the phone page's taps (a phone has no shell). Each a message id."""

    name_cards: str      # the cards it is not sure of
    add_missing: str     # the cards it did not find
    add_missing_together: str   # the same when the photos already together show the deck: not to ask for what was done
    name_copy: str       # a card it found twice (%(code)s)
    no_image_of: str     # one image per card: the cards with none (%(cards)s), read by the general models


COMMAND_LINE_ADVICE = Advice(
    N_("name them with --set NUMBER=CODE, or add another photo"),
    N_("photograph the whole deck, each card's corner index visible; or, with --parts, add a photo of the missing cards"),
    N_("add a photo of the missing cards, each card's corner index visible"),
    N_("or name the card that is not %(code)s with --set NUMBER=CODE"),
    N_("no image of %(cards)s in the folder: those cards are read by the general models"))
PHONE_ADVICE = Advice(
    N_("tap each to name it, or add another photo"),
    N_("photograph the whole deck, each card's corner index visible; or add a photo of the missing cards and choose "
       "“the photos together show the deck once”"),
    N_("add a photo of the missing cards, each card's corner index visible"),
    N_("or tap the card that is not %(code)s and name it"),
    N_("no photo of %(cards)s: those cards are read by the general models"))


@dataclass
class LearnedCard:
    """One card found in the learning photos, and what the assignment made of it."""

    photo: int
    box: tuple[float, float, float, float]
    readings: list[int]                    # rows of the photo's index readings
    code: str | None = None                # placed code, None when left unplaced
    sure: bool = False
    margin: float = 0.0
    guesses: list[str] = field(default_factory=list)   # the classifier's own top codes

    def to_json(self) -> dict:
        return {"photo": int(self.photo), "box": [round(float(v), 1) for v in self.box], "code": self.code,
                "sure": bool(self.sure), "margin": round(float(self.margin), 2), "guesses": list(self.guesses)}


# A card's crop shown to the player (CLI --crops, the phone's teach page): its readings' box grown by
# this share of its longer side on each side, so the card's corner and some of its face show.
CROP_MARGIN = 0.6


def card_crop(frame: np.ndarray, card: LearnedCard) -> np.ndarray:
    """The part of a learning photo that shows ``card``, for the player to say which card it is."""
    x1, y1, x2, y2 = card.box
    grow = CROP_MARGIN * max(x2 - x1, y2 - y1, 8.0)
    height, width = frame.shape[:2]
    left, top = int(max(0, x1 - grow)), int(max(0, y1 - grow))
    right, bottom = int(min(width, x2 + grow)), int(min(height, y2 + grow))
    return np.ascontiguousarray(frame[top:max(bottom, top + 1), left:max(right, left + 1)])


@dataclass
class LearnResult:
    name: str
    photos: list[str]
    cards: list[LearnedCard]
    problems: list[Message]                # why the deck cannot be saved as it stands (translated where shown)
    profile: DeckProfile | None
    seconds: float = 0.0
    more_notes: list[Message] = field(default_factory=list)   # other things to know, e.g. a partial folder's missing cards

    @property
    def notes(self) -> list[Message]:
        """What the player should know though the deck can be saved: the jokers it has not learned.

        Jokers are optional in the photos, so a joker not found does not block saving; but a game
        that uses them (Kingdoms, The Chosen) cannot read one the deck never learned: a joker whose
        index is a star or a picture may be found by no box at all, and this says so.
        """
        learned = set(self.profile.codes) if self.profile is not None else set()
        missing = [code for code in JOKERS if code not in learned]
        if not missing or self.profile is None:
            return list(self.more_notes)
        return list(self.more_notes) + [Message("jokers not learned: %(cards)s (not in the photos, or their index was not found; if your "
                        "games use them, add a photo of them, or learn the deck from its card images)", cards=" ".join(missing))]

    @property
    def complete(self) -> bool:
        return self.profile is not None and not self.problems

    @property
    def sureness(self) -> Message:
        """How sure learning is of the cards it placed: "sure of 50 of 52 cards (each placed at least 3.2 nats
        before its next-best code)" — the weakest sure margin, in the assignment's units."""
        placed = {c.code for c in self.cards if c.code}
        surely = {c.code for c in self.cards if c.code and c.sure}
        margins = [c.margin for c in self.cards if c.code and c.sure]
        return Message("sure of %(sure)s of %(count)s cards (the least sure by %(margin)s nats)", sure=len(surely), count=len(placed),
                       margin=format(min(margins), ".1f") if margins else "0")

    def unsure(self) -> list[tuple[int, LearnedCard]]:
        return [(k, c) for k, c in enumerate(self.cards) if not c.sure]

    def asked(self) -> list[tuple[int, LearnedCard]]:
        """The unsure cards that keep the deck from being saved: their code is placed surely nowhere
        (or they were not placed at all while some code is still missing)."""
        if not self.problems:
            return []
        surely = {c.code for c in self.cards if c.sure and c.code}
        return [(k, c) for k, c in self.unsure() if c.code not in surely]

    def to_json(self) -> dict:
        return {"name": self.name, "photos": self.photos, "complete": self.complete, "problems": [p.to_json() for p in self.problems],
                "notes": [note.to_json() for note in self.notes],
                "seconds": round(self.seconds, 2), "sureness": self.sureness.to_json(),
                "asked": [k for k, _ in self.asked()], "cards": [c.to_json() for c in self.cards]}

