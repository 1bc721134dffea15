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
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

from companion.cards import InvalidCardError
from companion.games.base import CATALOGUE_PLAYERS, IllegalEvent, InvalidSetup, event_type, parse_operation
from companion.games.chosen import operations as ops
from companion.games.chosen.operations import PARSERS, card_code
from companion.games.chosen.pieces import MEDICINE, RADIATION, composition, deck_for, normalise, role
from companion.games.chosen.rules import OPTION_HELP, Options, options_dict, parse_options, rulings_view
from companion.messages import Message, N_, Plural

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


class _Table:
    """A mutable working copy of a state: an event is applied to a copy and frozen only if legal."""

    def __init__(self, state: State):
        self.state = state
        self.draw = list(state.draw)
        self.hands = [list(h) for h in state.hands]
        self.areas = [list(a) for a in state.areas]
        self.mat = list(state.mat)
        self.discard = list(state.discard)
        self.scored = [list(s) for s in state.scored]
        self.score = list(state.score)
        self.turn = state.turn
        self.phase = state.phase
        self.pending = list(state.pending)
        self.verdicts = list(state.verdicts)
        self.winners = state.winners
        self.next_id = state.next_id
        self.reshuffles = state.reshuffles
        self.log = list(state.log)
        # Cards taken from hands by the event being applied, not yet placed: they still count as known.
        self.taken: Counter[str] = Counter()

    def freeze(self) -> State:
        return replace(self.state, draw=tuple(self.draw), hands=tuple(tuple(h) for h in self.hands),
                       areas=tuple(tuple(a) for a in self.areas), mat=tuple(self.mat), discard=tuple(self.discard),
                       scored=tuple(tuple(s) for s in self.scored), score=tuple(self.score), turn=self.turn,
                       phase=self.phase, pending=tuple(self.pending), verdicts=tuple(self.verdicts),
                       winners=self.winners, next_id=self.next_id, reshuffles=self.reshuffles, log=tuple(self.log))

    # --- what the companion knows -------------------------------------------------------------
    def known_counts(self) -> Counter[str]:
        counts = Counter(c for c in self.draw if c)
        counts.update(c for h in self.hands for c in h if c)
        counts.update(chip.face for a in self.areas for chip in a if chip.face)
        for chosen in self.mat + self.pending:
            counts[chosen.card] += 1
            counts.update(chip.face for chip in chosen.chips if chip.face)
            counts.update(chosen.medicine)
            counts.update(chosen.radiation)
        counts.update(c for c in self.discard if c)
        counts.update(c for s in self.scored for c in s)
        return counts

    def name(self, player: int) -> str:
        return self.state.names[player]

    # --- moving cards -------------------------------------------------------------------------
    def take_from_hand(self, player: int, code: str) -> None:
        hand = self.hands[player]
        if code in hand:
            hand.remove(code)
            self.taken[code] += 1
            return
        if None in hand and self.known_counts()[code] + self.taken[code] < composition(self.state.decks)[code]:
            hand.remove(None)
            self.taken[code] += 1
            return
        raise IllegalEvent(Message('%(player)s does not hold %(code)s', player=self.name(player), code=code))

    def draw_cards(self, player: int, count: int) -> int:
        drawn = 0
        for _ in range(count):
            if not self.draw and not self.reshuffle():
                break
            self.hands[player].append(self.draw.pop(0))
            drawn += 1
        return drawn

    def reshuffle(self) -> bool:
        if not self.discard:
            return False
        cards = self.discard
        self.discard = []
        self.reshuffles += 1
        if self.state.seed is None:
            # A live table: the new order is unknown, so the companion forgets the faces.
            self.draw = [None] * len(cards)
        else:
            random.Random(f"chosen:{self.state.seed or 0}:reshuffle:{self.reshuffles}").shuffle(cards)
            self.draw = cards
        self.log.append(Message("The draw pile ran out: the discard pile (%(count)s cards) is shuffled into a new draw pile.",
                                count=len(cards)))
        return True

    def start_turn(self, number: int, player: int) -> None:
        self.turn = Turn(number=number, player=player)
        self.phase = "turn"
        need = max(0, self.state.hand_target - len(self.hands[player]))
        drawn = self.draw_cards(player, need)
        short = Message(" (only %(drawn)s left)", drawn=drawn) if drawn < need else ""
        self.log.append(Message("Turn %(number)s: %(player)s draws %(drawn)s%(short)s, holding %(count)s.", number=number,
                                player=self.name(player), drawn=drawn, short=short, count=len(self.hands[player])))


def _player(state: State, value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise IllegalEvent(Message('%(what)s must be a player name or seat number, got %(value)s', what=what, value=repr(value)))
    if isinstance(value, int) and 0 <= value < state.players:
        return value
    if isinstance(value, str) and value in state.names:
        return state.names.index(value)
    raise IllegalEvent(Message("%(what)s %(value)s is not a player: players are %(players)s (seats 0-%(number)s)",
                               what=what, value=repr(value), players=list(state.names), number=state.players - 1))


class ChosenEngine:
    """The Chosen (T.Y.R.O.) referee. See docs/chosen.md for events and rulings."""

    name = "chosen"
    EVENT_TYPES = ("chip", "send", "play", "end_turn", "reveal", "set_hand_size")
    TURN_EVENTS = ("chip", "send", "play", "end_turn")   # the current player's; refused while the vault waits
    option_help = OPTION_HELP

    def __init__(self) -> None:
        # One handler per event type, taking the event's typed operation (``operations.py``).
        self._handlers: dict[str, Callable[[State, Any], State]] = {
            "chip": self._chip, "send": self._send, "play": self._play, "end_turn": self._end_turn,
            "reveal": self._reveal, "set_hand_size": self._set_hand_size}

    # --- setup --------------------------------------------------------------------------------
    def new_game(self, setup: Mapping[str, Any]) -> State:
        if not isinstance(setup, Mapping):
            raise InvalidSetup(Message("a setup must be a mapping with 'players'"))
        unknown = set(setup) - {"players", "options", "seed", "deal"}
        if unknown:
            raise InvalidSetup(Message('unknown setup field(s): %(unknown)s', unknown=list(sorted(unknown))))
        players = setup.get("players")
        if not isinstance(players, (list, tuple)) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            got = f"{len(players)} players" if isinstance(players, (list, tuple)) else repr(players)
            raise InvalidSetup(Message("The Chosen needs %(min_players)s-%(max_players)s players, got %(got)s",
                                       min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, got=got))
        names, teams = [], []
        for seat, player in enumerate(players):
            if isinstance(player, str):
                player = {"name": player}
            if not isinstance(player, Mapping) or not isinstance(player.get("name"), str) or not player["name"].strip():
                raise InvalidSetup(Message("player %(seat)s needs a non-empty 'name'", seat=seat))
            team = player.get("team")
            if team is not None and (not isinstance(team, str) or not team.strip()):
                raise InvalidSetup(Message('player %(name)s: a team must be a non-empty name', name=repr(player['name'])))
            names.append(player["name"].strip())
            teams.append(team.strip() if team else f"player:{player['name'].strip()}")
        if len(set(names)) != len(names):
            raise InvalidSetup(Message("player names must be different"))
        options = parse_options(setup.get("options"))
        decks = 2 if options.second_deck == "always" or (options.second_deck == "auto" and len(names) > 4) else 1
        seed = setup.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise InvalidSetup(Message('seed must be a whole number or null, got %(seed)s', seed=repr(seed)))
        count = len(names)
        if count * count > len(deck_for(decks)):
            raise InvalidSetup(Message("%(count)s players are dealt %(number)s cards but %(decks)s deck(s) hold %(count2)s: use option "
                                       "second_deck='auto' or 'always'",
                                       count=count, number=count * count, decks=decks, count2=len(deck_for(decks))))
        hands, draw = self._deal(setup.get("deal"), seed, decks, count)
        state = State(names=tuple(names), teams=tuple(teams), options=options, decks=decks,
                      seed=seed if seed is not None or setup.get("deal") is None else 0,
                      draw=tuple(draw), hands=tuple(tuple(h) for h in hands),
                      areas=tuple(() for _ in names), mat=(), discard=(), scored=tuple(() for _ in names),
                      score=tuple(0 for _ in names), turn=Turn(number=0, player=0), phase="turn")
        table = _Table(state)
        table.log.append(Message("The Chosen: %(count)s players (%(player)s), %(count2)s cards; each is dealt %(count)s, hands refill to "
                                 "%(number)s.",
                                 count=count, player=list(names), count2=len(deck_for(decks)), number=count + 1))
        table.start_turn(1, 0)
        return table.freeze()

    @staticmethod
    def _deal(deal: Any, seed: int | None, decks: int, count: int) -> tuple[list[list[Any]], list[Any]]:
        cards: list[str | None] = list(deck_for(decks))
        if deal is None:
            if seed is None:  # a live table: nobody knows the order
                cards = [None] * len(cards)
            else:
                random.Random(seed).shuffle(cards)
            hands: list[list[str | None]] = [[] for _ in range(count)]
            for _ in range(count):
                for seat in range(count):
                    hands[seat].append(cards.pop(0))
            return hands, cards
        if not isinstance(deal, Mapping) or set(deal) - {"hands", "draw"}:
            raise InvalidSetup(Message("deal must be a mapping with 'hands' (one list of cards per player) and optional 'draw' (top first)"))
        try:
            dealt = [[normalise(c) for c in hand] for hand in deal.get("hands", [])]
            top = [normalise(c) for c in deal.get("draw", [])]
        except (InvalidCardError, TypeError) as error:
            raise InvalidSetup(Message('bad card in deal: %(error)s', error=error)) from None
        if len(dealt) != count or any(len(h) != count for h in dealt):
            raise InvalidSetup(Message('deal needs %(count)s hands of %(count)s cards each', count=count))
        rest = composition(decks)
        rest.subtract(Counter(c for h in dealt for c in h) + Counter(top))
        over = sorted(code for code, n in rest.items() if n < 0)
        if over:
            raise InvalidSetup(Message('deal uses more copies than the deck has of: %(over)s', over=list(over)))
        remaining = [code for code, copies in sorted(rest.items()) for _ in range(copies)]
        random.Random(seed or 0).shuffle(remaining)
        return dealt, top + remaining

    # --- events -------------------------------------------------------------------------------
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
        return self._handlers[kind](state, operation)

    def _chip(self, state: State, event: ops.Chip) -> State:
        turn, me = state.turn, state.turn.player
        onto = _player(state, event.onto, "onto")
        if turn.chip_onto is not None:
            raise IllegalEvent(Message('%(player)s already put a chip this turn', player=state.names[me]))
        if state.options.step_order == "strict" and turn.step > 0:
            raise IllegalEvent(Message("with step_order=strict the chip comes before sending a chosen or playing cards"))
        if onto == me and turn.sends:
            raise IllegalEvent(Message("having sent a chosen, you may not put a chip on yourself this turn"))
        face = event.card
        face = None if face is None or (isinstance(face, str) and face.strip().upper() == "BACK") else card_code(face)
        if not state.hands[me]:
            raise IllegalEvent(Message('%(player)s has no card to put down', player=state.names[me]))
        table = _Table(state)
        if face is not None:
            table.take_from_hand(me, face)
        else:
            # The camera did not see which card went down: any known card of the hand may be the one,
            # so the companion forgets the hand rather than guess.
            table.hands[me] = [None] * (len(table.hands[me]) - 1)
        table.areas[onto].append(Chip(face=face, placed_by=me, turn=turn.number))
        table.turn = replace(turn, chip_onto=onto, step=max(turn.step, 1))
        where = Message("their own area") if onto == me else Message("%(player)s's area", player=state.names[onto])
        table.log.append(Plural("%(player)s puts a chip face down on %(where)s (%(n)s chip there).",
                                "%(player)s puts a chip face down on %(where)s (%(n)s chips there).", n=len(table.areas[onto]),
                                player=state.names[me], where=where))
        return table.freeze()

    def _send(self, state: State, event: ops.Send) -> State:
        turn, me, options = state.turn, state.turn.player, state.options
        card = event.card   # a chosen: Send.parse checked it
        if turn.sends >= options.sends_per_turn:
            raise IllegalEvent(Message("%(player)s already sent %(sends)s chosen this turn (limit %(sends_per_turn)s)",
                                       player=state.names[me], sends=turn.sends, sends_per_turn=options.sends_per_turn))
        if options.step_order == "strict" and turn.step > 2:
            raise IllegalEvent(Message("with step_order=strict a chosen is sent before playing cards onto chosen"))
        if turn.chip_onto == me:
            raise IllegalEvent(Message("you put a chip on yourself this turn, so you may not send a chosen"))
        chips = state.areas[me]
        if not chips:
            raise IllegalEvent(Message('%(player)s has no chips to carry', player=state.names[me]))
        medicine, discard = event.medicine, event.discard
        if not isinstance(medicine, (list, tuple)) or not isinstance(discard, (list, tuple)):
            raise IllegalEvent(Message("'medicine' and 'discard' must be lists"))
        medicine = [card_code(m, "medicine") for m in medicine]
        for code in medicine:
            if role(code) != MEDICINE:
                raise IllegalEvent(Message('only medicine (red A-10) may be stacked on a chosen, not %(code)s', code=code))
        if any(isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(chips) for i in discard) \
                or len(set(discard)) != len(discard):
            raise IllegalEvent(Message("'discard' must list different chip positions 0-%(number)s", number=len(chips) - 1))
        if options.must_carry_chip and len(discard) == len(chips):
            raise IllegalEvent(Message("a chosen must carry at least one chip: do not discard them all"))
        table = _Table(state)
        table.take_from_hand(me, card)
        for code in medicine:
            table.take_from_hand(me, code)
        carried = tuple(chip for i, chip in enumerate(chips) if i not in discard)
        table.discard.extend(chips[i].face for i in sorted(discard))
        table.areas[me] = []
        chosen = Chosen(id=state.next_id, owner=me, card=card, zone=0, sent_turn=turn.number,
                        chips=carried, medicine=tuple(medicine))
        table.mat.append(chosen)
        table.next_id += 1
        table.turn = replace(turn, sends=turn.sends + 1, step=max(turn.step, 2))
        stack = Message(" with %(count)s medicine (%(cards)s)", count=len(medicine), cards=list(medicine)) if medicine else ""
        table.log.append(Plural("%(player)s sends chosen #%(id)s (%(card)s)%(stack)s to departure, discarding %(n)s chip unseen; "
                                "it carries %(carried)s.",
                                "%(player)s sends chosen #%(id)s (%(card)s)%(stack)s to departure, discarding %(n)s chips unseen; "
                                "it carries %(carried)s.", n=len(discard),
                                player=state.names[me], id=chosen.id, card=card, stack=stack, carried=len(carried)))
        return table.freeze()

    def _play(self, state: State, event: ops.Play) -> State:
        turn, me, options = state.turn, state.turn.player, state.options
        card = event.card   # medicine or radiation: Play.parse checked it
        kind = role(card)
        target_id = event.chosen
        target = next((c for c in state.mat if c.id == target_id and not isinstance(target_id, bool)), None)
        if target is None:
            ids = ", ".join(f"#{c.id}" for c in state.mat) or "none"
            raise IllegalEvent(Message('no chosen #%(target_id)s on the mat (on the mat: %(ids)s)', target_id=target_id, ids=ids))
        others = target.owner != me
        if others:
            if options.other_chosen_limit == "per_chosen" and target.id in turn.played_on:
                raise IllegalEvent(Message('%(player)s already played a card onto chosen #%(id)s this turn', player=state.names[me], id=target.id))
            if options.other_chosen_limit == "per_player" and target.owner in turn.played_on_players:
                raise IllegalEvent(Message("%(player)s already played a card onto %(names2)s's chosen this turn",
                                           player=state.names[me], names2=state.names[target.owner]))
        table = _Table(state)
        table.take_from_hand(me, card)
        medicine, radiation = list(target.medicine), list(target.radiation)
        opposite = radiation if kind == MEDICINE else medicine
        if opposite:
            cancelled = opposite.pop(0)
            table.discard.extend([cancelled, card])
            effect = Message("cancels %(card)s; both go to the discard pile", card=cancelled)
        else:
            (medicine if kind == MEDICINE else radiation).append(card)
            effect = Message("stays with it")
        index = state.mat.index(target)
        table.mat[index] = replace(target, medicine=tuple(medicine), radiation=tuple(radiation))
        if others:
            table.turn = replace(turn, played_on=turn.played_on + (target.id,),
                                 played_on_players=turn.played_on_players + (target.owner,), step=3)
        else:
            table.turn = replace(turn, step=3)
        what = Message("medicine") if kind == MEDICINE else Message("radiation")
        args = dict(player=state.names[me], kind=what, card=card, id=target.id, effect=effect, medicine=len(medicine), radiation=len(radiation))
        if others:
            table.log.append(Message("%(player)s plays %(kind)s %(card)s onto %(owner)s's chosen #%(id)s: %(effect)s "
                                     "(now %(medicine)s medicine, %(radiation)s radiation).", owner=state.names[target.owner], **args))
        else:
            table.log.append(Message("%(player)s plays %(kind)s %(card)s onto their own chosen #%(id)s: %(effect)s "
                                     "(now %(medicine)s medicine, %(radiation)s radiation).", **args))
        return table.freeze()

    def _end_turn(self, state: State, event: ops.EndTurn) -> State:
        turn, me = state.turn, state.turn.player
        table = _Table(state)
        table.log.append(Message('%(player)s ends turn %(number)s.', player=state.names[me], number=turn.number))
        arrivals = []
        for index, chosen in enumerate(state.mat):
            if chosen.owner != me:
                continue
            if chosen.sent_turn == turn.number and not state.options.move_sent_this_turn:
                continue
            moved = replace(chosen, zone=chosen.zone + 1)
            if moved.zone == VAULT:
                arrivals.append(moved)
                table.log.append(Message("%(player)s's chosen #%(id)s enters the vault.", player=state.names[me], id=chosen.id))
            else:
                table.mat[index] = moved
                table.log.append(Message("%(player)s's chosen #%(id)s moves to %(zone)s.",
                                         player=state.names[me], id=chosen.id, zone=Message(ZONE_WORDS[ZONES[moved.zone]])))
        arrived = {c.id for c in arrivals}
        table.mat = [c for c in table.mat if c.id not in arrived]
        table.pending = arrivals
        return self._judge_pending(table)

    def _judge_pending(self, table: _Table) -> State:
        state = table.state
        while table.pending:
            chosen = table.pending[0]
            if not chosen.radiation and any(chip.face is None for chip in chosen.chips):
                table.phase = "reveal"
                unseen = sum(chip.face is None for chip in chosen.chips)
                table.log.append(Message("Chosen #%(id)s turns its chips: the companion did not see %(unseen)s of them; the referee must "
                                         "reveal them.",
                                         id=chosen.id, unseen=unseen))
                return table.freeze()
            table.pending.pop(0)
            self._verdict(table, chosen)
        team = state.teams[state.turn.player]
        members = [p for p in range(state.players) if state.teams[p] == team]
        if sum(table.score[p] for p in members) >= state.options.target_chips * len(members):
            table.winners = tuple(members)
            table.phase = "over"
            home = sum(table.score[p] for p in members)
            if len(members) > 1:
                table.log.append(Message("%(players)s win with %(count)s chips brought home.",
                                         players=_together([state.names[p] for p in members]), count=home))
            else:
                table.log.append(Message("%(player)s wins with %(count)s chips brought home.", player=state.names[members[0]], count=home))
            return table.freeze()
        table.start_turn(state.turn.number + 1, (state.turn.player + 1) % state.players)
        return table.freeze()

    def _verdict(self, table: _Table, chosen: Chosen) -> None:
        state = table.state
        name = state.names[chosen.owner]
        faces = tuple(chip.face for chip in chosen.chips)
        everything = [chosen.card, *faces, *chosen.medicine, *chosen.radiation]
        if chosen.radiation:
            verdict = Verdict(state.turn.number, chosen.owner, chosen.id, chosen.card, (None,) * len(faces),
                              len(chosen.medicine), len(chosen.radiation), 0, False, 0, N_("radiation on the chosen"))
            table.discard.extend(everything)
            table.log.append(Plural("Vault: %(player)s's chosen #%(id)s carries %(radiation)s radiation: shot; it and its %(n)s chip "
                                    "are discarded unturned.",
                                    "Vault: %(player)s's chosen #%(id)s carries %(radiation)s radiation: shot; it and its %(n)s chips "
                                    "are discarded unturned.", n=len(faces), player=name, id=chosen.id, radiation=len(chosen.radiation)))
        else:
            shown = _turned(faces)   # the vault turned every chip before this verdict
            radiated = sum(role(face) == RADIATION for face in shown)
            passed = radiated <= len(chosen.medicine)
            points = len(faces) if passed else 0
            reason = N_("all radiation cancelled") if passed else N_("not enough medicine")
            verdict = Verdict(state.turn.number, chosen.owner, chosen.id, chosen.card, faces, len(chosen.medicine),
                              0, radiated, passed, points, reason)
            if passed:
                table.score[chosen.owner] += points
                if state.options.scored_chips == "kept":
                    table.scored[chosen.owner].extend(shown)
                    table.discard.extend([chosen.card, *chosen.medicine])
                else:
                    table.discard.extend(everything)
                outcome = Message("passes: %(player)s scores %(points)s (total %(total)s)", player=name, points=points,
                                  total=table.score[chosen.owner])
            else:
                table.discard.extend(everything)
                outcome = Message("shot: nothing scores, all its cards are discarded")
            table.log.append(Message("Vault: %(player)s's chosen #%(id)s turns its chips %(shown)s: %(radiated)s radiated, "
                                     "%(medicine)s medicine carried; %(outcome)s.", player=name, id=chosen.id, shown=list(shown),
                                     radiated=radiated, medicine=len(chosen.medicine), outcome=outcome))
        table.verdicts.append(verdict)

    def _reveal(self, state: State, event: ops.Reveal) -> State:
        if state.phase != "reveal":
            raise IllegalEvent(Message("no chosen at the vault is waiting for its chips to be revealed"))
        chosen = state.pending[0]
        faces = event.faces
        unseen = [i for i, chip in enumerate(chosen.chips) if chip.face is None]
        if not isinstance(faces, (list, tuple)) or len(faces) != len(unseen):
            raise IllegalEvent(Message("reveal needs 'faces': %(count)s card(s), the unseen chips of chosen #%(id)s in order",
                                       count=len(unseen), id=chosen.id))
        faces = [card_code(f, "face") for f in faces]
        table = _Table(state)
        available = composition(state.decks)
        available.subtract(table.known_counts())
        for code in faces:
            if available[code] <= 0:
                raise IllegalEvent(Message('%(code)s cannot be a hidden chip: every %(code)s is already accounted for elsewhere', code=code))
            available[code] -= 1
        chips = list(chosen.chips)
        for i, code in zip(unseen, faces):
            chips[i] = replace(chips[i], face=code)
        table.pending[0] = replace(chosen, chips=tuple(chips))
        table.phase = "turn"
        table.log.append(Message('Referee reveals the unseen chips of chosen #%(id)s: %(faces)s.', id=chosen.id, faces=list(faces)))
        return self._judge_pending(table)

    def _set_hand_size(self, state: State, event: ops.SetHandSize) -> State:
        player = _player(state, event.player, "player")
        size = event.size
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise IllegalEvent(Message('size must be a whole number of at least 0, got %(size)s', size=repr(size)))
        table = _Table(state)
        hand = table.hands[player]
        before = len(hand)
        if size > before:
            if table.draw_cards(player, size - before) < size - before:
                raise IllegalEvent(Message('there are not enough cards left to give %(player)s %(size)s', player=state.names[player], size=size))
        elif size < before:
            # The extra cards go back on top of the draw pile; which ones is unknown unless the hand is.
            back: list[str | None] = hand[size:] if None not in hand else [None] * (before - size)
            kept: list[str | None] = hand[:size] if None not in hand else [None] * size
            table.hands[player] = kept
            table.draw = back + table.draw
        table.log.append(Message("Referee corrects %(player)s's hand from %(before)s to %(size)s cards.",
                                 player=state.names[player], before=before, size=size))
        return table.freeze()

    # --- views --------------------------------------------------------------------------------
    def view(self, state: State) -> dict[str, Any]:
        """What every player may see: no hand contents, no chip faces before the vault."""
        return self._view(state, referee=False)

    def referee_view(self, state: State) -> dict[str, Any]:
        """Everything the companion knows, hidden faces included (never show it to players)."""
        return self._view(state, referee=True)

    def _view(self, state: State, referee: bool) -> dict[str, Any]:
        names = state.names

        def chips(chips_: tuple[Chip, ...]) -> list[dict[str, Any]]:
            return [{"placed_by": names[c.placed_by], "turn": c.turn, **({"face": c.face} if referee else {})} for c in chips_]

        def chosen_view(c: Chosen) -> dict[str, Any]:
            return {"id": c.id, "owner": names[c.owner], "card": c.card,
                    "zone": ZONES[c.zone] if c.zone < VAULT else "vault", "sent_turn": c.sent_turn,
                    "chips": chips(c.chips), "medicine": list(c.medicine), "radiation": list(c.radiation)}

        teams: dict[str, list[int]] = {}
        for seat, team in enumerate(state.teams):
            teams.setdefault(team, []).append(seat)
        team_view = [{"team": t, "members": [names[p] for p in m], "score": sum(state.score[p] for p in m),
                      "target": state.options.target_chips * len(m)}
                     for t, m in teams.items() if not t.startswith("player:")]
        result = {
            "game": "chosen",
            "phase": state.phase,
            "players": [{"name": names[p], "team": None if state.teams[p].startswith("player:") else state.teams[p],
                         "hand_size": len(state.hands[p]), "chips": chips(state.areas[p]), "score": state.score[p],
                         **({"hand": list(state.hands[p])} if referee else {})} for p in range(state.players)],
            "teams": team_view,
            "turn": {"number": state.turn.number, "player": names[state.turn.player],
                     "chip_placed_on": None if state.turn.chip_onto is None else names[state.turn.chip_onto],
                     "chosen_sent": state.turn.sends, "played_on": list(state.turn.played_on)},
            "hand_target": state.hand_target,
            "decks": state.decks,
            "draw_pile": len(state.draw),
            "discard_pile": len(state.discard),
            "mat": [chosen_view(c) for c in state.mat],
            # what lies at the vault door now: chosen waiting for a verdict (chip faces hidden as on the mat)
            "vault": [chosen_view(c) for c in state.pending],
            "awaiting_reveal": None if state.phase != "reveal" else {
                "chosen": state.pending[0].id, "owner": names[state.pending[0].owner],
                "unseen_chips": sum(ch.face is None for ch in state.pending[0].chips)},
            "verdicts": [{"turn": v.turn, "owner": names[v.owner], "chosen": v.chosen, "card": v.card,
                          "chips": list(v.faces), "medicine": v.medicine, "radiation_on_chosen": v.radiation_on_chosen,
                          "radiated_chips": v.radiated_chips, "passed": v.passed, "points": v.points, "reason": v.reason}
                         for v in state.verdicts],
            "winners": [names[p] for p in state.winners],
            "options": options_dict(state.options),
            "rulings": rulings_view(state.options),
            "log": [line.to_json() for line in state.log],
        }
        if referee:
            result["draw"] = list(state.draw)
            result["discard"] = list(state.discard)
            result["pending"] = [chosen_view(c) for c in state.pending]
            result["seed"] = state.seed
        return result

    # --- checks -------------------------------------------------------------------------------
    def card_slots(self, state: State) -> tuple[int, Counter[str]]:
        """How many card slots the state holds and how many of each face it knows (for the invariant)."""
        table = _Table(state)
        slots = len(table.draw) + sum(map(len, table.hands)) + sum(map(len, table.areas)) + len(table.discard) \
            + sum(map(len, table.scored))
        for chosen in table.mat + table.pending:
            slots += 1 + len(chosen.chips) + len(chosen.medicine) + len(chosen.radiation)
        return slots, table.known_counts()

    def check_conservation(self, state: State) -> None:
        """Raises AssertionError unless every card of the deck is in exactly one place."""
        slots, known = self.card_slots(state)
        deck = composition(state.decks)
        assert slots == sum(deck.values()), f"{slots} card slots for a {sum(deck.values())}-card deck"
        extra = known - deck
        assert not extra, f"more copies known than the deck has: {dict(extra)}"

    # --- queries ------------------------------------------------------------------------------
    def option_defaults(self, players: int = CATALOGUE_PLAYERS) -> dict[str, Any]:
        return options_dict(parse_options(None))

    def audit(self, state: State) -> list[str]:
        """Conservation problems: empty when every card of the deck is in exactly one place."""
        try:
            self.check_conservation(state)
        except AssertionError as problem:
            return [str(problem)]
        return []

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


def _together(names: list[str]) -> Message:
    """Team members in a sentence: "Ann and Cid", "Ann, Bo and Cid" (ids the catalogue translates)."""
    if len(names) == 2:
        return Message("%(first)s and %(second)s", first=names[0], second=names[1])
    return Message("%(others)s and %(last)s", others=names[:-1], last=names[-1])


def _turned(faces: tuple[str | None, ...]) -> tuple[str, ...]:
    """Chip faces that must all be known (turned in the vault); a None here is a bug of the engine."""
    shown = tuple(face for face in faces if face is not None)
    if len(shown) != len(faces):
        raise ValueError("a chip reached its verdict unturned")
    return shown


ENGINE = ChosenEngine()
