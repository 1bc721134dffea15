"""What the camera asks the table, where it applies, and the engine event an answer implies.

The table pipeline never guesses: a weak reading, two readings of one spot, a second copy of a
one-copy card or a reading the rules refuse becomes a question. A :class:`Question` keeps what the
screens need to mark it on the board (the cell, zone or player it is about) and to answer it with
one tap: the codes the pipeline considered, any other card ("something else"), or "not a card".

An answer is not a new kind of change: it is the engine event it implies (``place``/``replace`` in a
Kingdoms cell, ``reveal`` or ``commit`` in Guilds and Dungeon, ``chip``, ``send``, ``play``, ``end_turn``
or ``reveal`` in The Chosen's areas, rings and vault), submitted by
the referee, so it is journaled, undone and redone like any tap, and the referee's word on that place
beats the camera's from then on. "Not a card" implies no event: the question is closed, nothing
changes.
"""
from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from companion.cards import Card
from companion.games.chosen.pieces import table_role
from companion.messages import Message, MessageError, to_json as message_json

NOT_A_CARD = "not a card"
OPEN, ANSWERED, SETTLED = "open", "answered", "settled by the camera"
# Questions about a card still being read: once the camera settles that card after all, they are moot.
SETTLE_ANSWERS = ("unsure", "duplicate", "nozone")
# A question older than the last this many stays answerable but no longer listed (a long evening).
KEPT_QUESTIONS = 50


class QuestionError(MessageError, ValueError):
    """An answer that cannot be taken (not a card code, no event fits)."""


class QuestionNotFound(QuestionError):
    pass


class QuestionAnswered(QuestionError):
    pass


@dataclass
class Question:
    id: int
    text: Message | str                  # the question, translated where it is shown
    kind: str = "note"                   # unsure, overlap, duplicate, nozone, face, refused, note
    zone: str | None = None              # the pipeline's zone name ("6,7", "battlefield:P2", "area:P1", ...)
    choices: list[str] = field(default_factory=list)  # the codes the pipeline considered, likeliest first
    track: int | None = None             # the physical card the pipeline follows
    pixel: list[float] | None = None     # where in the camera picture
    at: float = 0.0
    status: str = OPEN
    answer: str | None = None
    answered_event: dict | None = None   # the engine event the answer became (None: nothing to change)

    def to_json(self, where: dict | None = None) -> dict[str, Any]:
        return {"id": self.id, "text": message_json(self.text), "kind": self.kind, "zone": self.zone, "where": where,
                "choices": list(self.choices), "track": self.track, "pixel": self.pixel, "at": self.at,
                "status": self.status, "answer": self.answer, "answered_event": self.answered_event}


def _choices(*codes: str | None) -> list[str]:
    return list(dict.fromkeys(c for c in codes if isinstance(c, str) and c))


def from_table_event(event: Any, next_id: Callable[[], int], pixel: list[float] | None = None) -> Question:
    """A question the tracker asked (a ``question`` table event)."""
    details = dict(getattr(event, "details", {}) or {})
    kind = str(details.get("kind", "question")).split(":", 1)[0]
    choices = _choices(details.get("guess"), details.get("settled"), details.get("remembered"), event.card)
    text = event.question if isinstance(event.question, Message) else Message(str(event.question))
    return Question(next_id(), text, kind, event.zone, choices, event.track, pixel, time.time())


def from_refusal(text: Message, event: Any, next_id: Callable[[], int], pixel: list[float] | None = None) -> Question:
    """A reading the rules refused: the binding's question, about the card the table event names."""
    choices = _choices(getattr(event, "card", None), getattr(event, "face", None))
    return Question(next_id(), text, "refused", getattr(event, "zone", None), choices,
                    getattr(event, "track", None), pixel, time.time())


# -- where a question applies and what an answer means, per game -------------------------------------
def _seat(zone: str | None, prefix: str) -> int | None:
    if zone and zone.startswith(prefix + ":P"):
        try:
            return int(zone.split("P", 1)[1]) - 1
        except ValueError:
            return None
    return None


def _player_names(view: dict) -> list[str]:
    return [p if isinstance(p, str) else p.get("name") for p in view.get("players") or []]


def where(game: str, zone: str | None, view: dict) -> dict | None:
    """The place on the board a question is about: ``{"cell": [r, c]}``, ``{"player": name}`` or ``{"zone": z}``."""
    if not zone:
        return None
    if game == "kingdoms":
        try:
            row, col = (int(v) for v in zone.split(","))
        except ValueError:
            return {"zone": zone}
        return {"cell": [row, col]}
    names = _player_names(view)
    for prefix in ("battlefield", "area"):
        seat = _seat(zone, prefix)
        if seat is not None:
            return {"player": names[seat]} if 0 <= seat < len(names) else {"zone": zone}
    return {"zone": zone}


def implied_event(game: str, place: dict | None, card: str, view: dict) -> dict | None:
    """The engine event that answering ``card`` at ``place`` means, given the table as it stands;
    None when the table already says so. Raises QuestionError when no event fits (the referee then
    uses the board's own controls)."""
    if place is None:
        raise QuestionError(Message("this question names no place on the board: correct the table with its own controls"))
    if game == "kingdoms" and "cell" in place:
        cell = list(place["cell"])
        tile = next((t for t in (view.get("board") or {}).get("cells", []) if list(t.get("cell", [])) == cell), None)
        if tile is None:
            return {"type": "place", "cell": cell, "card": card}
        if tile.get("code") == card or (card == "BACK" and tile.get("face_down")):
            return None
        if card == "BACK":
            return {"type": "turn_down", "cell": cell}
        return {"type": "replace", "cell": cell, "card": card}
    if game == "dungeon":
        if place.get("zone") == "battlefield":
            if card == "BACK":
                raise QuestionError(Message("the dungeon's card is revealed face up: pick its face"))
            return {"type": "reveal", "card": card}
        player = place.get("player")
        if player:
            battle = view.get("battlefield") or {}
            if player in (battle.get("to_commit") or []) or not battle:
                return {"type": "commit", "player": player, **({} if card == "BACK" else {"card": card})}
            committed = next((c for c in battle.get("commits") or [] if c.get("name") == player), None)
            if committed and committed.get("face_down") and card != "BACK":
                return {"type": "turn_up", "player": player, "card": card}
            if committed and (committed.get("card") == card or (card == "BACK" and committed.get("face_down"))):
                return None
            raise QuestionError(Message("%(player)s has committed already: correct it with the board's controls (or undo)", player=player))
    if game == "chosen" and place.get("player"):
        return {"type": "chip", "onto": place["player"], **({} if card == "BACK" else {"card": card})}
    if game == "chosen" and place.get("zone") in CHOSEN_RINGS:
        return _chosen_ring_event(CHOSEN_RINGS[place["zone"]], card, view)
    raise QuestionError(Message("no single event answers this here: correct the table with the board's own controls"))


# The Chosen's mat zones as the pipeline names them → as the engine's view names them.
CHOSEN_RINGS = {"departure": "departure", "step1": "step 1", "step2": "step 2", "vault": "vault",
                "step 1": "step 1", "step 2": "step 2"}


def _chosen_role(card: str) -> str:
    return "chip" if card == "BACK" else table_role(card)


def _chosen_ring_event(ring: str, card: str, view: dict) -> dict | None:
    """A card the camera asked about in one of The Chosen's rings (or the vault): what lies there means.

    A chosen already in that ring, a chip it carries or a card played on it: the table says so (None).
    A new chosen at departure is the current player's ``send``; a chosen one ring further in than the
    table has it is its owner's ``end_turn`` (every chosen of theirs steps in); medicine or radiation
    beside the only chosen in the ring is ``play`` onto it; a chip turned up in the vault is the
    ``reveal`` the waiting verdict needs."""
    role = _chosen_role(card)
    if role == "other":
        raise QuestionError(Message("%(card)s is not in The Chosen's deck (no Kings): pick the card again", card=card))
    here = [c for c in view.get("mat") or [] if c.get("zone") == ring]
    turn_player = (view.get("turn") or {}).get("player")
    if ring == "vault":
        waiting = list(view.get("vault") or [])
        awaiting = view.get("awaiting_reveal")
        if any(c.get("card") == card or card in c.get("medicine", []) + c.get("radiation", []) for c in waiting):
            return None
        if role == "chip" and (awaiting or any(c.get("chips") for c in waiting)):
            return None  # the waiting chosen's chips, face down until the referee turns them
        if awaiting and awaiting.get("unseen_chips") == 1:
            return {"type": "reveal", "faces": [card]}
        if awaiting:
            raise QuestionError(Message("%(unseen_chips)s chips of chosen #%(chosen)s wait to be turned: give all their faces with the "
                                        "vault's \"Reveal the chips\"",
                                        unseen_chips=awaiting['unseen_chips'], chosen=awaiting['chosen']))
        latest = (view.get("verdicts") or [])[-1:]
        if latest and (latest[0].get("card") == card or card in (latest[0].get("chips") or [])):
            return None  # the last judged chosen, not yet cleared from the vault
        raise QuestionError(Message("no chosen waits at the vault: correct the table with the board's own controls"))
    if role == "chip":
        if any(c.get("chips") for c in here):
            return None
        raise QuestionError(Message('no chosen in %(ring)s carries chips: a face-down card there is not in the game', ring=ring))
    if role == "chosen":
        if any(c.get("card") == card for c in here):
            return None
        if ring == "departure":
            return {"type": "send", "card": card, "medicine": [], "discard": []}
        inner = {"step 1": "departure", "step 2": "step 1"}[ring]
        stepping = next((c for c in view.get("mat") or [] if c.get("card") == card and c.get("zone") == inner), None)
        sent_now = stepping and stepping.get("sent_turn") == (view.get("turn") or {}).get("number") \
            and not (view.get("options") or {}).get("move_sent_this_turn")
        if stepping and stepping.get("owner") == turn_player and not sent_now:
            return {"type": "end_turn"}
        if sent_now:
            raise QuestionError(Message("%(card)s was sent this turn: it steps in at the end of %(turn_player)s's next turn",
                                        card=card, turn_player=turn_player))
        if stepping:
            raise QuestionError(Message("%(card)s is %(owner)s's chosen: it steps in at the end of their turn, not %(turn_player)s's",
                                        card=card, owner=stepping['owner'], turn_player=turn_player))
        raise QuestionError(Message("no chosen %(card)s in %(inner)s to step into %(ring)s: correct the table with the board's own controls",
                                    card=card, inner=inner, ring=ring))
    if any(card in c.get("medicine", []) + c.get("radiation", []) for c in here):
        return None
    if len(here) == 1:
        return {"type": "play", "chosen": here[0]["id"], "card": card}
    if not here and ring == "departure" and role == "medicine":
        raise QuestionError(Message("no chosen in departure to play %(card)s onto: medicine laid there goes with the next chosen sent (use "
                                    '"send with medicine / discards…")',
                                    card=card))
    if not here:
        raise QuestionError(Message('no chosen in %(ring)s to play %(card)s onto', ring=ring, card=card))
    ids = ", ".join(f"#{c['id']}" for c in here)
    raise QuestionError(Message("%(ring)s holds chosen %(ids)s: play %(card)s with that chosen's own \"play a card on it\"",
                                ring=ring, ids=ids, card=card))


class QuestionBook:
    """A table's camera questions, open and answered, shared by the feed (asks) and the API (answers)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._answering = threading.Lock()  # one answer at a time: two phones tapping at once apply one event
        self._ids = itertools.count(1)
        self.questions: list[Question] = []

    def next_id(self) -> int:
        return next(self._ids)

    def add(self, question: Question) -> Question:
        with self._lock:
            self.questions.append(question)
            del self.questions[:-KEPT_QUESTIONS]
        return question

    def get(self, question_id: int) -> Question:
        with self._lock:
            for question in self.questions:
                if question.id == question_id:
                    return question
        raise QuestionNotFound(Message('no camera question %(question_id)s at this table', question_id=question_id))

    def open_for_track(self, track: int | None) -> bool:
        with self._lock:
            return track is not None and any(q.track == track and q.status == OPEN for q in self.questions)

    def settle(self, settled_tracks: dict[int, str]) -> None:
        """Closes the open questions about cards the camera has since settled (track → the code it settled on)."""
        with self._lock:
            for question in self.questions:
                if question.status == OPEN and question.kind in SETTLE_ANSWERS and question.track in settled_tracks:
                    question.status, question.answer = SETTLED, settled_tracks[question.track]

    def listing(self) -> list[Question]:
        with self._lock:
            return list(self.questions)

    def answer(self, table: Any, question_id: int, answer: Any, where_of: Callable[[Question, dict], dict | None]):
        """Takes the referee's answer: the engine event it implies goes into the table as the referee's.
        Returns ``(question, journal entry or None)``; raises QuestionError, or the engine's refusal
        (the table and the question unchanged)."""
        with self._answering:
            return self._answer(table, question_id, answer, where_of)

    def _answer(self, table: Any, question_id: int, answer: Any, where_of: Callable[[Question, dict], dict | None]):
        question = self.get(question_id)
        if question.status != OPEN:
            raise QuestionAnswered(Message("question %(question_id)s is answered already (%(answer)s)",
                                           question_id=question_id, answer=question.answer))
        if not isinstance(answer, str) or not answer.strip():
            raise QuestionError(Message('answer with a card code ("10H", "SJ", "BACK") or "not a card"'))
        answer = answer.strip()
        entry, event = None, None
        if answer.lower() != NOT_A_CARD:
            try:
                card = Card.parse(answer).code
            except (ValueError, KeyError) as error:
                raise QuestionError(Message('%(answer)s is not a card code: %(error)s', answer=repr(answer[:20]), error=error)) from None
            view = table.snapshot()
            event = implied_event(table.game, where_of(question, view), card, view)
            if event is not None:
                entry = table.submit(event, source="referee")
            answer = card
        else:
            answer = NOT_A_CARD
        with self._lock:
            question.status, question.answer, question.answered_event = ANSWERED, answer, event
        return question, entry
