"""Phase ``turn``: the current player's actions before ending the turn: a chip onto a player's area
(``chip``), a chosen sent to departure with the chips of their area (``send``), medicine or radiation
played onto a chosen (``play``). ``end_turn`` and the vault are in ``vault.py``.
"""
from __future__ import annotations

from dataclasses import replace

from companion.games.base import IllegalEvent
from companion.games.chosen import operations as ops
from companion.games.chosen.game import _player, _Table
from companion.games.chosen.operations import card_code
from companion.games.chosen.pieces import MEDICINE, role
from companion.games.chosen.state import Chip, Chosen, State
from companion.messages import Message, Plural


def _chip(state: State, event: ops.Chip) -> State:
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

def _send(state: State, event: ops.Send) -> State:
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

def _play(state: State, event: ops.Play) -> State:
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

