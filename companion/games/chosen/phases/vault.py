"""The end of a turn and the vault: the player's chosen move one zone in (``end_turn``); each one reaching
the vault is judged (radiation on it: shot; else its chips are turned, each radiated chip needs one carried
medicine); unseen chips wait for the referee's ``reveal``; the verdict that brings a player (a team) to the
target ends the game.
"""
from __future__ import annotations

from dataclasses import replace

from companion.games.base import IllegalEvent
from companion.games.chosen import operations as ops
from companion.games.chosen.game import _Table
from companion.games.chosen.operations import card_code
from companion.games.chosen.pieces import RADIATION, composition, role
from companion.games.chosen.state import VAULT, ZONE_WORDS, ZONES, Chosen, State, Verdict
from companion.messages import Message, N_, Plural


def _end_turn(state: State, event: ops.EndTurn) -> State:
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
    return _judge_pending(table)

def _judge_pending(table: _Table) -> State:
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
        _verdict(table, chosen)
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

def _verdict(table: _Table, chosen: Chosen) -> None:
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

def _reveal(state: State, event: ops.Reveal) -> State:
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
    return _judge_pending(table)


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

