"""What every game engine shares: errors, the engine protocol, replay and undo.

Engines are pure (python-chess and pokerkit style): a state is an immutable value, an event is a
JSON-like mapping with a ``"type"``, and ``apply(state, event)`` returns the next state or raises
:class:`IllegalEvent` leaving the given state untouched. A game is therefore fully described by its
setup and its event log; undo is a replay without the last event.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence, TypeVar

from companion.messages import Message, MessageError


class GameError(MessageError, ValueError):
    """Base class of every rule error; ValueError so callers can treat it as bad input.

    Raised with a :class:`~companion.messages.Message` (an English id with parameters), which the web UI
    and the command line translate; ``str(error)`` is the English sentence.
    """


class IllegalEvent(GameError):
    """An event the rules do not allow in this state. The state is unchanged."""


class InvalidSetup(GameError):
    """A game setup (players, options) the rules do not allow."""


class UnknownOption(InvalidSetup):
    """A rule option name or value the engine does not know."""


#: The catalogue of options is shown for a table of this many players: the size every game seats.
CATALOGUE_PLAYERS = 3


class Engine(Protocol):
    """The interface the session, the table pipeline, the simulator, the web API and the CLI rely on.

    Changes go through :meth:`apply` alone; everything else is a query that reads a state and never
    changes it, so callers need not guess from view JSON or try an event to see if it is refused.
    """

    name: str

    @property
    def option_help(self) -> Mapping[str, str]:
        """What each rule option means, by name (shown beside the options on the phone)."""

    def new_game(self, setup: Mapping[str, Any]) -> Any:
        """The initial state from a JSON-like setup (players, options, seed); raises InvalidSetup."""

    def apply(self, state: Any, event: Mapping[str, Any]) -> Any:
        """The next state; raises IllegalEvent and changes nothing when the event is not allowed."""

    def view(self, state: Any) -> dict[str, Any]:
        """The whole public state as JSON-ready data, including the active rule options and the log."""

    def referee_view(self, state: Any) -> dict[str, Any]:
        """The view plus what only the referee may see (hidden hands and faces); never shown to players."""

    def option_defaults(self, players: int = CATALOGUE_PLAYERS) -> dict[str, Any]:
        """The rule options a table of ``players`` starts with when the setup names none."""

    def audit(self, state: Any) -> list[str]:
        """Bookkeeping problems (a card in two places, a negative hand): empty when the state is sound."""

    def result(self, state: Any) -> dict[str, Any]:
        """The game's account of its scores, finished or not (JSON-ready; texts are message JSON).

        ``game``, ``finished``, ``winners`` (names; empty for a draw or an unfinished game), ``unit``
        (``points``, ``treasures``, ``chips``), ``ranking`` (:func:`ranking`), ``ended`` (what ended the
        game, or None), ``tie_break`` (how a tie was broken or shared, or None), ``charts`` (each
        ``{"measure", "axis", "at", "scores": {name: [value at each point of at]}}``, the first the
        score's; ``axis`` is ``round``, ``encounter`` or ``turn`` and ``at[0]`` is 0, the start) and
        ``details`` (the game's own terms: rounds and castles, treasures and spoils, vault verdicts).
        The web's result page reads this and nothing else, so the rules are told once, here.
        """

    def awaiting(self, state: Any) -> list[str]:
        """The players whose move the game waits for now (empty when anyone may act, or nobody)."""

    def round_complete(self, state: Any) -> bool:
        """Whether the current round is complete and waits only to be closed (scored or resolved)."""

    def automatic_events(self, state: Any) -> list[dict[str, Any]]:
        """The events the game's automation options make now (Dungeon's ``auto_resolve``: ``resolve``).

        An automation that is an event of its own is not applied inside ``apply``: the caller that
        follows the table applies and logs it, so a log replays to the same state whatever the options
        (and logs written with an explicit ``resolve`` stay valid). One done inside ``apply`` (Kingdoms'
        ``auto_score``) is not listed here.
        """


def event_type(event: object, known: Sequence[str]) -> str:
    """The first check of every engine's ``apply``: the event is a mapping whose ``"type"`` the game knows.

    All three engines then dispatch the same way: ``EVENT_TYPES`` names the events, a table of one
    handler per type (taking the state and the typed operation) changes the state, and queries never do. Each engine
    first turns the event into its typed operation with :func:`parse_operation`.
    """
    if not isinstance(event, Mapping):
        raise IllegalEvent(Message("an event must be a mapping with a 'type', got %(name)s", name=type(event).__name__))
    kind = event.get("type")
    if not isinstance(kind, str) or kind not in known:
        raise IllegalEvent(Message("unknown event type %(kind)s: an event's 'type' is one of %(known)s", kind=repr(kind), known=list(known)))
    return kind


OperationT = TypeVar("OperationT")


def parse_operation(kind: str, event: Mapping[str, Any],
                    parsers: Mapping[str, Callable[[Mapping[str, Any]], OperationT]]) -> OperationT:
    """The second step after :func:`event_type`: the event parsed once into its typed operation.

    Each engine (``kingdoms/operations.py``, ``chosen/operations.py``, ``dungeon/operations.py``) has one small frozen
    dataclass per event type, each with a ``parse(event)`` that checks and reads the fields that do not
    depend on the state (raising :class:`IllegalEvent`); its handlers take that value, never the dict.
    """
    return parsers[kind](event)


def ranking(scores: Mapping[str, int], winners: Sequence[str], teams: Mapping[str, str | None] | None = None
            ) -> list[dict[str, Any]]:
    """The final ranking every engine's ``result`` gives: the winners first (place 1), then the others by
    score, highest first; equal scores share a place (1, 2, 2, 4), and seating order breaks nothing but
    the order of the lines."""
    order = list(scores)
    first = [name for name in order if name in winners]
    rest = sorted((name for name in order if name not in winners), key=lambda name: -scores[name])
    rows: list[dict[str, Any]] = []
    for index, name in enumerate(first + rest):
        if name in winners:
            place = 1
        elif rows and rows[-1]["score"] == scores[name] and rows[-1]["player"] not in winners:
            place = rows[-1]["place"]
        else:
            place = index + 1
        rows.append({"place": place, "player": name, "score": scores[name], "winner": name in winners,
                     **({"team": teams.get(name)} if teams else {})})
    return rows


def replay(engine: Engine, setup: Mapping[str, Any], events: Iterable[Mapping[str, Any]]) -> Any:
    state = engine.new_game(setup)
    for index, event in enumerate(events):
        try:
            state = engine.apply(state, event)
        except IllegalEvent as error:
            raise IllegalEvent(Message('event %(number)s (%(get)s): %(error)s', number=index + 1, get=event.get('type', '?'), error=error)) from error
    return state


def undo(engine: Engine, setup: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> tuple[Any, list[Any]]:
    """The state and log without the last event."""
    if not events:
        raise IllegalEvent(Message("nothing to undo"))
    kept = list(events[:-1])
    return replay(engine, setup, kept), kept
