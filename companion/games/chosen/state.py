"""The immutable state of The Chosen: the cards as slots (a code when known, ``None`` when not), the chosen
on the mat, the turn, and the verdicts the vault gave. ``game.py`` holds the working copy an event changes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from companion.games.chosen.rules import Options
from companion.messages import Message, N_

ZONES = ("departure", "step 1", "step 2")
#: The zones in a sentence (translated where shown: 出发区, 第一步区, 第二步区).
ZONE_WORDS = {"departure": N_("departure"), "step 1": N_("step 1"), "step 2": N_("step 2")}
VAULT = len(ZONES)
MIN_PLAYERS, MAX_PLAYERS = 2, 8


@dataclass(frozen=True)
class Chip:
    face: str | None      # None: the companion never saw it
    placed_by: int
    turn: int


@dataclass(frozen=True)
class Chosen:
    id: int
    owner: int
    card: str
    zone: int
    sent_turn: int
    chips: tuple[Chip, ...]
    medicine: tuple[str, ...] = ()
    radiation: tuple[str, ...] = ()


@dataclass(frozen=True)
class Turn:
    number: int
    player: int
    chip_onto: int | None = None
    sends: int = 0
    played_on: tuple[int, ...] = ()          # chosen ids of other players' chosen played onto
    played_on_players: tuple[int, ...] = ()  # their owners, for other_chosen_limit="per_player"
    step: int = 0                            # 0 nothing yet, 1 chip, 2 sent, 3 played (step_order="strict")


@dataclass(frozen=True)
class Verdict:
    turn: int
    owner: int
    chosen: int
    card: str
    faces: tuple[str | None, ...]   # the carried chips; None when shot unturned
    medicine: int
    radiation_on_chosen: int
    radiated_chips: int
    passed: bool
    points: int
    reason: str


@dataclass(frozen=True)
class State:
    names: tuple[str, ...]
    teams: tuple[str, ...]          # team of each player; a player without one is their own team
    options: Options
    decks: int
    seed: int | None
    draw: tuple[str | None, ...]    # top first
    hands: tuple[tuple[str | None, ...], ...]
    areas: tuple[tuple[Chip, ...], ...]
    mat: tuple[Chosen, ...]
    discard: tuple[str | None, ...]
    scored: tuple[tuple[str, ...], ...]
    score: tuple[int, ...]
    turn: Turn
    phase: str                      # "turn" | "reveal" | "over"
    pending: tuple[Chosen, ...] = ()  # chosen at the vault still to judge (the first awaits a reveal)
    verdicts: tuple[Verdict, ...] = ()
    winners: tuple[int, ...] = ()
    next_id: int = 1
    reshuffles: int = 0
    log: tuple[Message, ...] = field(default=(), compare=True)

    @property
    def players(self) -> int:
        return len(self.names)

    @property
    def hand_target(self) -> int:
        return self.players + 1

