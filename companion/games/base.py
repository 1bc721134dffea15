"""What every game engine shares: errors, the engine protocol, replay and undo.

Engines are pure (python-chess and pokerkit style): a state is an immutable value, an event is a
JSON-like mapping with a ``"type"``, and ``apply(state, event)`` returns the next state or raises
:class:`IllegalEvent` leaving the given state untouched. A game is therefore fully described by its
setup and its event log; undo is a replay without the last event.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Protocol, Sequence


class GameError(ValueError):
    """Base class of every rule error; ValueError so callers can treat it as bad input."""


class IllegalEvent(GameError):
    """An event the rules do not allow in this state. The state is unchanged."""


class InvalidSetup(GameError):
    """A game setup (players, options) the rules do not allow."""


class UnknownOption(InvalidSetup):
    """A rule option name or value the engine does not know."""


class Engine(Protocol):
    """The interface the session, the table pipeline and the CLI rely on."""

    name: str

    def new_game(self, setup: Mapping[str, Any]) -> Any:
        """The initial state from a JSON-like setup (players, options, seed); raises InvalidSetup."""

    def apply(self, state: Any, event: Mapping[str, Any]) -> Any:
        """The next state; raises IllegalEvent and changes nothing when the event is not allowed."""

    def view(self, state: Any) -> dict:
        """The whole public state as JSON-ready data, including the active rule options and the log."""


def replay(engine: Engine, setup: Mapping[str, Any], events: Iterable[Mapping[str, Any]]) -> Any:
    state = engine.new_game(setup)
    for index, event in enumerate(events):
        try:
            state = engine.apply(state, event)
        except IllegalEvent as error:
            raise IllegalEvent(f"event {index + 1} ({event.get('type', '?')}): {error}") from error
    return state


def undo(engine: Engine, setup: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> tuple[Any, list]:
    """The state and log without the last event."""
    if not events:
        raise IllegalEvent("nothing to undo")
    kept = list(events[:-1])
    return replay(engine, setup, kept), kept
