"""The Chosen referee: an explicit, immutable state machine driven by card events.

Knowledge model. The physical cards are tracked as slots; a slot holds a card code when the
companion knows it and ``None`` when it does not (a live table's hands and draw pile, a chip put
down without the camera seeing its face). A game set up with a ``seed`` (or an explicit ``deal``)
is a virtual deck whose every card is known: the simulator and the tests use it. Knowledge may be
forgotten but is never contradicted: a card played from a hand must be either known to be in it or
still unaccounted for somewhere, so every card is in exactly one place at every step.

Phases: ``turn`` (the current player acts: ``chip``, ``send``, ``play``, ``end_turn``),
``reveal`` (a chosen at the vault carries chips whose faces the companion never saw: the referee
reports them with ``reveal``) and ``over``. ``set_hand_size`` corrects a miscounted hand at any
time before the end.

The rules live by phase, as the Dungeon's do: ``phases/setup.py`` (the deal), ``phases/turn.py`` (chip, send,
play), ``phases/vault.py`` (end of turn, the vault's verdicts, reveal), ``phases/corrections.py``; ``state.py``
the immutable state, ``game.py`` the working copy an event changes, ``view.py`` the JSON view,
``knowledge.py`` the card conservation check, ``result.py`` the account of the scores the result page reads.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Mapping

from companion.games.base import CATALOGUE_PLAYERS, IllegalEvent, event_type, parse_operation
from companion.games.chosen import knowledge
from companion.games.chosen import operations as ops
from companion.games.chosen import result as results
from companion.games.chosen.game import _player
from companion.games.chosen.operations import PARSERS
from companion.games.chosen.phases.corrections import _set_hand_size
from companion.games.chosen.phases.setup import new_game
from companion.games.chosen.phases.turn import _chip, _play, _send
from companion.games.chosen.phases.vault import _end_turn, _reveal
from companion.games.chosen.rules import OPTION_HELP, options_dict, parse_options
from companion.games.chosen.state import MAX_PLAYERS, MIN_PLAYERS, VAULT, ZONE_WORDS, ZONES, Chip, Chosen, State, Turn, Verdict
from companion.games.chosen.view import view as _view
from companion.messages import Message

__all__ = ["ENGINE", "ChosenEngine", "Chip", "Chosen", "State", "Turn", "Verdict", "ZONES", "ZONE_WORDS", "VAULT",
           "MIN_PLAYERS", "MAX_PLAYERS"]

# One handler per event type (``State, operation -> State``; ``operations.py`` has the typed operation each
# takes, parsed once in ``apply``); the modules under ``phases/`` hold them.
_HANDLERS: dict[str, Callable[[State, Any], State]] = {
    "chip": _chip, "send": _send, "play": _play, "end_turn": _end_turn, "reveal": _reveal, "set_hand_size": _set_hand_size}


class ChosenEngine:
    """The Chosen (T.Y.R.O.) referee. See docs/chosen.md for events and rulings."""

    name = "chosen"
    EVENT_TYPES = tuple(_HANDLERS)
    TURN_EVENTS = ("chip", "send", "play", "end_turn")   # the current player's; refused while the vault waits
    option_help = OPTION_HELP

    def new_game(self, setup: Mapping[str, Any]) -> State:
        return new_game(setup)

    def apply(self, state: State, event: Mapping[str, Any]) -> State:
        kind = event_type(event, self.EVENT_TYPES)
        if state.phase == "over":
            raise IllegalEvent(Message("the game is over"))
        if kind in self.TURN_EVENTS:
            if state.phase == "reveal":
                chosen = state.pending[0]
                raise IllegalEvent(Message("%(player)s's chosen #%(id)s is at the vault: reveal its unseen chips first",
                                           player=state.names[chosen.owner], id=chosen.id))
            if "player" in event and _player(state, event["player"], "player") != state.turn.player:
                raise IllegalEvent(Message("it is %(player)s's turn, not %(other)s's", player=state.names[state.turn.player], other=event['player']))
        operation: ops.Operation = parse_operation(kind, event, PARSERS)
        return _HANDLERS[kind](state, operation)

    # --- views --------------------------------------------------------------------------------
    def view(self, state: State) -> dict[str, Any]:
        """What every player may see: no hand contents, no chip faces before the vault."""
        return _view(state, referee=False)

    def referee_view(self, state: State) -> dict[str, Any]:
        """Everything the companion knows, hidden faces included (never show it to players)."""
        return _view(state, referee=True)

    def result(self, state: State) -> dict[str, Any]:
        """The scores and how they came about (each chosen's vault verdict), and the chips home by turn."""
        return results.result(state)

    # --- checks -------------------------------------------------------------------------------
    def card_slots(self, state: State) -> tuple[int, Counter[str]]:
        """How many card slots the state holds and how many of each face it knows (for the invariant)."""
        return knowledge.card_slots(state)

    def check_conservation(self, state: State) -> None:
        """Raises AssertionError unless every card of the deck is in exactly one place."""
        knowledge.check_conservation(state)

    # --- queries ------------------------------------------------------------------------------
    def option_defaults(self, players: int = CATALOGUE_PLAYERS) -> dict[str, Any]:
        return options_dict(parse_options(None))

    def audit(self, state: State) -> list[str]:
        """Conservation problems: empty when every card of the deck is in exactly one place."""
        return knowledge.audit(state)

    def awaiting(self, state: State) -> list[str]:
        """The owner of the chosen whose unseen chips the vault waits for, else the player whose turn it is."""
        if state.phase == "over":
            return []
        if state.phase == "reveal":
            return [state.names[state.pending[0].owner]]
        return [state.names[state.turn.player]]

    def round_complete(self, state: State) -> bool:
        """The Chosen plays turn after turn: no round waits to be closed (a turn ends by ``end_turn``)."""
        return False

    def automatic_events(self, state: State) -> list[dict[str, Any]]:
        """None: The Chosen has no automation option."""
        return []


ENGINE = ChosenEngine()
