"""The Guilds and Dungeon referee: an explicit state machine over immutable states.

Phases: ``guilds`` (choose guilds, redeal a tied suit) → [``redeal_four``] → ``reveal`` → one encounter
(``prize`` for a treasure or scroll, ``friend`` while a caller's friend is still face down, ``fight``
for an enemy, ``trap`` for a revealed trap) → ``reveal`` … → ``over``.

Hidden information is normal. The referee knows a card's place only when the table saw it: a hand is a
count plus the cards known to be in it, the dungeon's order is known only in seeded or dealt games, and
every card whose place is unknown is in ``unseen``. Naming a card (a reveal, a turn-up, a drawn card)
takes it out of ``unseen``, so a card can never be in two places and none is ever created or lost.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Any, Callable, Mapping

from companion.cards import InvalidCardError
from companion.games.base import CATALOGUE_PLAYERS, IllegalEvent, InvalidSetup, event_type, parse_operation
from companion.games.dungeon import rules
from companion.games.dungeon.rules import OPTION_HELP, PLAY_DECK, options_dict, parse_options
from companion.games.dungeon.result import result as dungeon_result
from companion.games.dungeon.queries import encounter_ready, still_to_commit
from companion.games.dungeon.state import DungeonState, freeze, thaw
from companion.games.dungeon.game import _Game
from companion.games.dungeon.operations import PARSERS
from companion.games.dungeon.knowledge import _check_facedown_cards, audit
from companion.games.dungeon.phases.commits import _assign, _commit, _mage_switch, _pass, _play_scroll, _thief_swap, _turn_up
from companion.games.dungeon.phases.corrections import _correct_hand_size, _trade
from companion.games.dungeon.phases.guilds import _choose_guild, _redeal_four, _redeal_suit
from companion.games.dungeon.phases.reveal import _reveal
from companion.games.dungeon.phases.traps import _play_trap, _trap_call, _trap_card, _trap_draw, _trap_reveal
from companion.games.dungeon.phases.verdict import _resolve
from companion.games.dungeon.view import battlefield as _battlefield
from companion.games.dungeon.view import view as _view
from companion.messages import Message

PHASES = ("guilds", "redeal_four", "reveal", "friend", "prize", "fight", "trap", "over")

# One handler per event type (``_Game, operation -> None``, changing the working copy; ``operations.py``
# has the typed operation each takes, parsed once in ``apply``); the modules under
# ``phases/`` hold them, ``game.py`` the working copy, ``knowledge.py`` the checks on unseen cards,
# ``queries.py`` the questions the view and the callers ask.
_HANDLERS: dict[str, Callable[[_Game, Any], None]] = {
    "choose_guild": _choose_guild, "redeal_suit": _redeal_suit, "redeal_four": _redeal_four,
    "trade": _trade, "correct_hand_size": _correct_hand_size,
    "reveal": _reveal, "assign": _assign, "commit": _commit, "turn_up": _turn_up, "pass": _pass,
    "play_scroll": _play_scroll, "play_trap": _play_trap, "trap_card": _trap_card, "trap_reveal": _trap_reveal,
    "trap_call": _trap_call, "trap_draw": _trap_draw, "mage_switch": _mage_switch, "thief_swap": _thief_swap,
    "resolve": _resolve,
}
EVENT_TYPES = tuple(_HANDLERS)


class DungeonEngine:
    """The Guilds and Dungeon referee (see ``docs/dungeon.md``)."""

    name = "dungeon"
    option_help = OPTION_HELP

    def new_game(self, setup: Mapping[str, Any]) -> DungeonState:
        if not isinstance(setup, Mapping):
            raise InvalidSetup(Message("the setup must be a mapping with 'players'"))
        names = _player_names(setup.get("players"))
        options = parse_options(setup.get("options"))
        n, size = len(names), options.hand_size
        if n * size >= len(PLAY_DECK):
            raise InvalidSetup(Message('%(n)s hands of %(size)s leave no dungeon', n=n, size=size))
        seed = setup.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise InvalidSetup(Message('seed must be a whole number or null, got %(seed)s', seed=repr(seed)))
        hands, dungeon = _deal(setup.get("deal"), seed, n, size)
        placed = [c for hand in (hands or []) for c in hand] + list(dungeon or [])
        unseen = set(PLAY_DECK) - set(placed)
        players = [{"name": name, "guild": None, "hand_count": size, "known": list(hands[i]) if hands else [],
                    "rest": [], "treasures": [], "trophies": [], "out": False} for i, name in enumerate(names)]
        work = {
            "setup": thaw(freeze(dict(setup))), "options": options_dict(options), "phase": "guilds", "turn": 0,
            "players": players, "dungeon": list(dungeon) if dungeon is not None else None,
            "dungeon_count": len(PLAY_DECK) - n * size, "unseen": unseen, "marker": None, "encounter": None,
            "exile": [], "encounters": 0, "guild_round": {"redealt": []}, "result": None, "log": (), "history": (), "new_history": [],
            "new_log": [Message("New game for %(players)s: %(size)s cards each, %(left)s in the dungeon. Each player joins "
                                "the guild of the suit they hold most of.", players=list(names), size=size, left=len(PLAY_DECK) - n * size)],
        }
        return DungeonState.frozen(work)

    def apply(self, state: DungeonState, event: Mapping[str, Any]) -> DungeonState:
        kind = event_type(event, EVENT_TYPES)
        if state.phase == "over":
            raise IllegalEvent(Message("the game is over"))
        operation = parse_operation(kind, event, PARSERS)
        game = _Game(state)
        try:
            _HANDLERS[kind](game, operation)
        except InvalidCardError as error:  # a card code in the event the card model cannot read
            raise IllegalEvent(Message('bad %(get)s event: %(error)s', get=event.get('type'), error=error)) from None
        # Anything else a handler raises (KeyError, TypeError, ...) is a bug of the engine, not a
        # refusal: it reaches the caller as itself. Every field an event brings is checked where it
        # is read (``_Game.card``, ``_Game.player``, ``_named_list``), which refuses bad input.
        _check_facedown_cards(game)
        return DungeonState.frozen(game.work)

    def view(self, state: DungeonState) -> dict[str, Any]:
        return _view(state)

    def referee_view(self, state: DungeonState) -> dict[str, Any]:
        """The view plus what the companion knows of each secret hand: never shown to players."""
        return _view(state, referee=True)

    # --- queries ------------------------------------------------------------------------------
    def option_defaults(self, players: int = CATALOGUE_PLAYERS) -> dict[str, Any]:
        return options_dict(parse_options(None))

    def audit(self, state: DungeonState) -> list[str]:
        return audit(state)

    def result(self, state: DungeonState) -> dict[str, Any]:
        """The scores and how they came about (treasures, spoils, the end and its tie-break), by encounter."""
        return dungeon_result(state)

    def awaiting(self, state: DungeonState) -> list[str]:
        """Choosing guilds: who has none yet; a contest or fight: who still commits or passes."""
        names = [p.name for p in state.players]
        if state.phase == "guilds":
            return [p.name for p in state.players if p.guild is None and not p.out]
        if state.phase in ("prize", "fight") and state.encounter is not None:
            return [names[q] for q in still_to_commit(state.phase, state.encounter.thawed(), [p.out for p in state.players])]
        return []

    def round_complete(self, state: DungeonState) -> bool:
        """The encounter can be resolved: everybody committed, every card is turned up, no open hand trap."""
        enc = state.encounter.thawed() if state.encounter is not None else None
        return encounter_ready(state.phase, enc, [p.out for p in state.players])

    def automatic_events(self, state: DungeonState) -> list[dict[str, Any]]:
        """``auto_resolve``: a complete encounter's ``resolve``, for the caller to apply and log."""
        return [{"type": "resolve"}] if state.options["auto_resolve"] and self.round_complete(state) else []

    def battlefield(self, state: DungeonState) -> dict[str, Any] | None:
        """The view's ``battlefield`` alone (the simulator's bots read it every turn; the whole view grows)."""
        return _battlefield(state)


def _player_names(raw: Any) -> list[str]:
    if not isinstance(raw, (list, tuple)) or not 2 <= len(raw) <= 4:
        raise InvalidSetup(Message("Guilds and Dungeon needs 'players': a list of 2 to 4 players"))
    names = []
    for index, entry in enumerate(raw):
        name = entry.get("name") if isinstance(entry, Mapping) else entry
        if not isinstance(name, str) or not name.strip():
            raise InvalidSetup(Message('player %(index)s needs a name', index=index))
        names.append(name.strip())
    if len(set(names)) != len(names):
        raise InvalidSetup(Message("player names must differ"))
    return names


def _cards(raw: Any, what: str) -> list[str]:
    if not isinstance(raw, (list, tuple)):
        raise InvalidSetup(Message('%(what)s must be a list of card codes', what=what))
    try:
        return [rules.normalise(c) for c in raw]
    except InvalidCardError as error:
        raise InvalidSetup(Message('%(what)s: %(error)s', what=what, error=error)) from None


def _deal(deal: Any, seed: int | None, n: int, size: int) -> tuple[list[list[str]] | None, list[str] | None]:
    """Known hands and dungeon order: from an explicit deal, else a seeded shuffle, else unknown."""
    dungeon_size = len(PLAY_DECK) - n * size
    if deal is None:
        if seed is None:
            return None, None
        deck = list(PLAY_DECK)
        random.Random(seed).shuffle(deck)
        # Players take turns drawing one card at a time, as the seed describes.
        seeded = [[deck[k * n + i] for k in range(size)] for i in range(n)]
        return seeded, deck[n * size:]
    if not isinstance(deal, Mapping):
        raise InvalidSetup(Message("deal must be a mapping with 'hands' and/or 'dungeon'"))
    hands: list[list[str]] | None = None
    dungeon: list[str] | None = None
    if deal.get("hands") is not None:
        raw = deal["hands"]
        if not isinstance(raw, (list, tuple)) or len(raw) != n:
            raise InvalidSetup(Message('deal.hands must list one hand per player (%(n)s)', n=n))
        hands = [_cards(h, f"deal.hands[{i}]") for i, h in enumerate(raw)]
        for i, hand in enumerate(hands):
            if len(hand) > size:  # fewer: the cards known to be in that hand
                raise InvalidSetup(Message('deal.hands[%(i)s] has %(count)s cards, more than the %(size)s dealt', i=i, count=len(hand), size=size))
    if deal.get("dungeon") is not None:
        dungeon = _cards(deal["dungeon"], "deal.dungeon")
        if len(dungeon) > dungeon_size:  # fewer: the known top of the dungeon
            raise InvalidSetup(Message("deal.dungeon has %(count)s cards, more than the %(dungeon_size)s in the dungeon",
                                       count=len(dungeon), dungeon_size=dungeon_size))
    placed = [c for hand in (hands or []) for c in hand] + (dungeon or [])
    repeated = [c for c, k in Counter(placed).items() if k > 1]
    if repeated:
        raise InvalidSetup(Message('deal names %(repeated)s more than once', repeated=list(repeated)))
    if hands is not None and dungeon is None and seed is not None and all(len(h) == size for h in hands):
        rest = [c for c in PLAY_DECK if c not in set(placed)]
        random.Random(seed).shuffle(rest)
        dungeon = rest
    return hands, dungeon


ENGINE = DungeonEngine()


