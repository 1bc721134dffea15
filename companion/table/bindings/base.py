"""What every game binding shares: the engine and its state, the log of applied engine events, safe
application (a refusal becomes a question for the table), and the hooks the table pipeline calls.

A binding owns the game state for the pipeline: it starts the engine from a setup, turns each
:class:`TableEvent` into zero or more engine events (through a small, per-game rule table), applies
them, and turns every engine refusal into a ``question`` for the table, so a wrong reading never
corrupts the game. Table events that only tidy up after the engine already moved the pieces
(the winner taking a trophy, chosen cards cleared from the vault) are consistent and produce nothing.

The pipeline itself knows no game: whatever differs between games (whether a mat is needed, how
cells are found, how many copies of a card a table can hold) is asked of the binding here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from companion.games import get_engine
from companion.games.base import GameError
from companion.table.events import TableEvent
from companion.table.tracker import Track
from companion.messages import Message


@dataclass
class Outcome:
    """What one table event did to the game."""

    table_event: TableEvent
    engine_events: list[dict] = field(default_factory=list)
    questions: list[Message] = field(default_factory=list)
    #: Events the engine's automation options made (``engine.automatic_events``), applied to the binding's
    #: copy of the game and in its log, but not in ``engine_events``: a session makes them itself after the
    #: camera's events, so the camera never sends them.
    automatic_events: list[dict] = field(default_factory=list)


class Binding:
    """Common part: engine, state, the log of applied engine events, and safe application."""

    game = ""
    #: Whether zones come from a printed mat (its markers). A game that can do without one infers
    #: its zones from the cards in camera pixels when no mat is found.
    needs_mat = True
    #: Whether the game has a shipped mat to look for when no layout is named (``--game none`` has none).
    ships_a_mat = True
    #: Whether a card come to rest elsewhere in its own zone is a move (TrackerConfig.moves_within_zone).
    moves_within_zone = False
    #: Said once when a game that can do without a mat goes on without one.
    without_mat_notice = ""

    def __init__(self, setup: Mapping[str, Any], setup_events: list[dict] | None = None) -> None:
        self.engine = get_engine(self.game)
        self.setup = dict(setup)
        self.state = self.engine.new_game(self.setup)
        self.events: list[dict] = []
        for event in setup_events or []:
            self.state = self.engine.apply(self.state, event)  # a bad setup event is the caller's error
            self.events.append(dict(event))

    def __getstate__(self) -> dict:
        """Everything but the engine, which holds no game (its rules only) and is made again from the game's
        name: a table's pipeline is saved for the server that takes its feed over (TablePipeline.saved)."""
        return {key: value for key, value in self.__dict__.items() if key != "engine"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.engine = get_engine(self.game)

    @classmethod
    def card_copies(cls, setup: Mapping[str, Any]) -> int:
        """How many copies of one card the table can hold at once (decks in play): the tracker's limit."""
        return 1

    def view(self) -> dict:
        return self.engine.view(self.state)

    def try_apply(self, event: dict, outcome: Outcome) -> bool:
        try:
            self.state = self.engine.apply(self.state, event)
        except GameError as error:
            outcome.questions.append(Message("the table shows %(seen)s, but the rules refuse %(event)s: %(error)s",
                                             seen=outcome.table_event.describe(), event=event["type"], error=error))
            return False
        self.events.append(event)
        outcome.engine_events.append(event)
        return True

    def apply_automatic_events(self, outcome: Outcome) -> list[dict]:
        """Applies what the engine's automation makes now (as a session does after each event), looping
        until nothing more is due; returns the events applied."""
        applied: list[dict] = []
        while automatic := self.engine.automatic_events(self.state):
            event = automatic[0]
            try:
                self.state = self.engine.apply(self.state, event)
            except GameError as error:   # the engine refusing its own event: say so, stop
                outcome.questions.append(Message("the rules refuse the automatic %(event)s: %(error)s", event=event["type"], error=error))
                break
            self.events.append(event)
            outcome.automatic_events.append(event)
            applied.append(event)
        return applied

    def handle(self, event: TableEvent) -> Outcome:
        outcome = Outcome(event)
        if event.type != "question":
            self.on_event(event, outcome)
        return outcome

    def on_event(self, event: TableEvent, outcome: Outcome) -> None:  # pragma: no cover - per game
        raise NotImplementedError

    def zones(self, layout) -> Callable:
        """The zone finder the tracker uses: ``layout`` is the mat's (None without a mat)."""
        raise NotImplementedError

    # ---------------------------------------------------------------- hooks of the table pipeline

    def on_mat_found(self) -> None:
        """The mat's markers were found: positions are mat millimetres from now on."""

    def on_card_size(self, short: float, long: float) -> None:
        """Without a mat: the detected cards' median short and long side, in camera pixels."""

    def observe_tracks(self, tracks: Iterable[Track]) -> None:
        """Every frame: the tracker's tracks after the update (settled or not)."""
