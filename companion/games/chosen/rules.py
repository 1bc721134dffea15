"""Rule options of The Chosen: every **Ruling** is a default, each plausible alternative a named value."""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Mapping

from companion.games.base import UnknownOption
from companion.messages import Message, N_


@dataclass(frozen=True)
class Options:
    # More than 4 players plays with a second deck's cards (same proportions): "auto"; or always 1 / 2 decks.
    second_deck: str = "auto"
    # Steps 2-4 of a turn (chip, send, play cards) in any order, or strictly in the printed order.
    step_order: str = "free"
    # How many chosen a player may send in one turn.
    sends_per_turn: int = 1
    # A chosen must carry at least one chip (discarding every chip is refused).
    must_carry_chip: bool = True
    # A chosen sent this turn also moves one zone at the end of this turn.
    move_sent_this_turn: bool = True
    # "At most one card on each other player's chosen": per chosen, or per other player.
    other_chosen_limit: str = "per_chosen"
    # Chips brought home stay with the player as their score ("kept") or go to the discard pile.
    scored_chips: str = "kept"
    # Chips a player (or each team member) must bring home to win.
    target_chips: int = 4


# One line per option, shown beside it on the phone (the ruling it selects, from docs/chosen.md).
OPTION_HELP: dict[str, str] = {
    "second_deck": N_("auto (default): a second deck joins with more than 4 players; always or never"),
    "step_order": N_("free (default): steps 2-4 in any order (no chip on yourself after sending); strict: the printed order"),
    "sends_per_turn": N_("chosen a player may send in one turn (default 1; any whole number)"),
    "must_carry_chip": N_("true (default): a sent chosen carries at least one chip; false: it may carry none"),
    "move_sent_this_turn": N_("true (default): a chosen sent this turn moves at this turn's end too; false: it waits"),
    "other_chosen_limit": N_("per_chosen (default): one card per turn on each other player's chosen; per_player: per other player"),
    "scored_chips": N_("kept (default): chips brought home stay with the player as their score; discard: to the discard pile"),
    "target_chips": N_("chips a player (or each team member) brings home to win (default 4; any whole number)"),
}

CHOICES: dict[str, tuple[Any, ...]] = {
    "second_deck": ("auto", "always", "never"),
    "step_order": ("free", "strict"),
    "other_chosen_limit": ("per_chosen", "per_player"),
    "scored_chips": ("kept", "discard"),
    "must_carry_chip": (True, False),
    "move_sent_this_turn": (True, False),
}
WHOLE_NUMBERS = {"sends_per_turn": 1, "target_chips": 1}  # name -> smallest value


def parse_options(raw: Mapping[str, Any] | None) -> Options:
    raw = dict(raw or {})
    known = {f.name for f in fields(Options)}
    for name, value in raw.items():
        if name not in known:
            raise UnknownOption(Message('unknown option %(name)s for The Chosen: options are %(known)s', name=repr(name), known=list(sorted(known))))
        if name in CHOICES:
            if value not in CHOICES[name] or type(value) is not type(CHOICES[name][0]):
                raise UnknownOption(Message("option %(name)s must be one of %(map)s, got %(value)s",
                                            name=name, map=list(map(repr, CHOICES[name])), value=repr(value)))
        elif isinstance(value, bool) or not isinstance(value, int) or value < WHOLE_NUMBERS[name]:
            raise UnknownOption(Message("option %(name)s must be a whole number of at least %(whole_numbers)s, got %(value)s",
                                        name=name, whole_numbers=WHOLE_NUMBERS[name], value=repr(value)))
    return Options(**raw)


def options_dict(options: Options) -> dict[str, Any]:
    return {f.name: getattr(options, f.name) for f in fields(Options)}


# The referee's rulings where the seed is silent or loose: (id, what the companion does, option or None).
RULINGS: tuple[tuple[str, str, str | None], ...] = (
    ("hidden-faces", N_("The companion never reveals a face-down card's identity to players before the vault; "
                     "the referee view may remember it to check the verdict."), None),
    ("second-deck", N_("With more than 4 players a second deck's 50 cards join (same proportions)."), "second_deck"),
    ("automatic-draw", N_("Each turn starts by drawing up to players + 1 cards, the first turn included; "
                       "the initial deal is players cards each."), None),
    ("step-order", N_("Steps 2-4 (put a chip, send a chosen, play cards onto chosen) may come in any order; "
                   "only a chip on yourself after sending is forbidden."), "step_order"),
    ("one-chip", N_("At most one chip per turn, onto one player's area (yours included)."), None),
    ("one-send", N_("At most one chosen is sent per turn."), "sends_per_turn"),
    ("carry-one", N_("A sent chosen must carry at least one chip."), "must_carry_chip"),
    ("send-stack", N_("Only medicine may be stacked on a chosen when it is sent; any number of them."), None),
    ("carried-fixed", N_("Carried chips cannot be added, removed or looked at until the vault."), None),
    ("other-limit", N_("At most one card per turn on each other player's chosen (counted per chosen); "
                    "any number on your own."), "other_chosen_limit"),
    ("number-cards-only", N_("Only medicine and radiation can be played onto a chosen; they cancel one for one "
                          "into the discard pile."), None),
    ("move-new", N_("A chosen sent this turn also moves one zone at the end of the turn."), "move_sent_this_turn"),
    ("shot-unturned", N_("A chosen shot for carrying radiation is discarded with its chips unturned."), None),
    ("score-chips", N_("A chosen that passes scores one point per carried chip, radiated ones included; "
                    "the scored chips stay with the player, the chosen and medicine go to the discard pile."),
     "scored_chips"),
    ("win-immediately", N_("The game ends at the verdict that brings a player (team) to the target."), "target_chips"),
    ("empty-piles", N_("An empty draw pile is refilled from the shuffled discard pile; when both are empty the "
                    "player draws what there is."), None),
    ("hand-correction", N_("A referee hand-size correction moves cards between the top of the draw pile and the hand."), None),
)


def rulings_view(options: Options) -> list[dict[str, Any]]:
    values = options_dict(options)
    return [{"id": key, "ruling": text, "option": option, "value": values.get(option) if option else None}
            for key, text, option in RULINGS]
