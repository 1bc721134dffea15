"""No game: the table's settled cards and their changes only (``companion table run --game none``).

Any real clip can be checked this way: no engine, no mat, no zones (every card lies on "table").
The binding keeps the table events the tracker settles (placed, moved, turned, removed; questions
stay questions) and the cards lying on the table after each; its view is that list and the cards
that lie there now, in the shape the other bindings' views take in ``table run --json``.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from companion.table.bindings.base import Binding, Outcome
from companion.table.events import TableEvent
from companion.table.tracker import Track

#: The one zone without a game: the whole table.
TABLE_ZONE = "table"


class NoGameBinding(Binding):
    game = "none"
    needs_mat = False
    #: No shipped mat to look for: a mat is used only where a layout is named (positions in mm then).
    ships_a_mat = False
    #: One zone for the whole table: a card slid or carried across it is moved all the same.
    moves_within_zone = True
    without_mat_notice = ""

    def __init__(self, setup: Mapping[str, Any] | None = None, setup_events: list[dict] | None = None) -> None:
        if setup_events:
            raise ValueError("--game none has no engine: it takes no setup events")
        self.setup = dict(setup or {})
        self.engine = None
        self.state = None
        self.events: list[dict] = []          # engine events: never any
        self.changes: list[TableEvent] = []   # the settled table events, in order
        self._cards: dict[int, dict] = {}     # track id → the settled card lying there

    @classmethod
    def card_copies(cls, setup: Mapping[str, Any]) -> int:
        """Copies of one face the table may hold: ``decks`` in the setup (default one deck)."""
        decks = setup.get("decks", 1)
        if not isinstance(decks, int) or isinstance(decks, bool) or decks < 1:
            raise ValueError(f"decks must be a whole number of at least 1, got {decks!r}")
        return decks

    def zones(self, layout=None):
        return lambda position: TABLE_ZONE

    def handle(self, event: TableEvent) -> Outcome:
        if event.type != "question":
            self.changes.append(event)
        return Outcome(event)

    def observe_tracks(self, tracks: Iterable[Track]) -> None:
        self._cards = {t.id: {"card": t.code, "position": [round(v, 1) for v in t.position]} for t in tracks if t.settled}

    def view(self) -> dict:
        return {"game": "none",
                "cards": sorted(card["card"] for card in self._cards.values()),
                # no game, no hidden information: a card turned down is said to be the face it was
                "changes": [change.to_json(include_faces=True) for change in self.changes]}
