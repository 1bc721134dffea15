"""The whole game of Kingdoms as an explicit state machine (pokerkit style): every change is an event.

Cells in events are 1-based ``[row, col]`` positions on an 11 × 11 **canvas**. The 6 × 5 grid
floats on it: the first card may go anywhere (the centre ``[6, 6]`` leaves room in every
direction) and every later card must keep the occupied area within 6 wide × 5 tall or 5 wide ×
6 tall. Scores and explanations use the grid's own 1-based cells, counted from the top-left of
the occupied area; the view gives both for every card.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping

from companion.cards import Card, Kind, Suit
from companion.games.base import CATALOGUE_PLAYERS, IllegalEvent, InvalidSetup, event_type, parse_operation
from companion.games.kingdoms.board import copies_problem
from companion.games.kingdoms.grid import (CELLS_IN_GRID, Cell, bounding_box, describe_extent, dragon_reaching, extent,
                                           fits, fixed_orientation)
from companion.games.kingdoms.operations import (CANVAS, NOT_GIVEN, PARSERS, Operation, Place, Remove, Replace, ScoreRound,
                                                 SetTurn, TurnDown)
from companion.games.kingdoms.options import OPTION_HELP, Options, rulings_view
from companion.games.kingdoms.pieces import FACE_DOWN_PIECE, TERRITORY_PILE, Piece, PieceKind, Seating, piece_for
from companion.games.kingdoms.result import result as kingdoms_result
from companion.games.kingdoms.scoring import BoardScore, score
from companion.messages import CardName, Message

TERRITORY_CARDS = sum(TERRITORY_PILE.values())
# What the table turns face down in a dragon's lines: resources, and the gold mine the dragon cancels.
TURNABLE = (PieceKind.RESOURCE, PieceKind.GOLD_MINE)
EVENT_TYPES = ("place", "remove", "replace", "turn_down", "score_round", "set_turn")


@dataclass(frozen=True)
class Tile:
    """A card on the table. ``card`` is None when it was only ever seen face down."""

    card: Card | None
    face_down: bool = False
    placed_by: str | None = None

    @property
    def seen(self) -> str:
        return "BACK" if self.face_down or self.card is None else self.card.code


@dataclass(frozen=True)
class PlayerState:
    name: str
    suits: tuple[Suit, ...]
    supply: tuple[int, int, int, int]   # castles in hand, ranks 1-4

    def supply_json(self) -> dict[str, int]:
        return {str(rank): count for rank, count in enumerate(self.supply, start=1)}


@dataclass(frozen=True)
class RoundResult:
    number: int
    rows: tuple[tuple[str | None, ...], ...]   # the final grid as the table saw it
    score: BoardScore


@dataclass(frozen=True)
class KingdomsState:
    seating: Seating
    options: Options
    seed: Any
    players: tuple[PlayerState, ...]
    round: int
    board: tuple[tuple[Cell, Tile], ...]
    to_act: int
    starter: int
    results: tuple[RoundResult, ...] = ()
    log: tuple[str, ...] = ()

    @property
    def finished(self) -> bool:
        return self.round > self.options.rounds

    @property
    def tiles(self) -> dict[Cell, Tile]:
        return dict(self.board)

    def player_index(self, name: str) -> int:
        return self.seating.names.index(name)


def _freeze(tiles: Mapping[Cell, Tile]) -> tuple[tuple[Cell, Tile], ...]:
    return tuple(sorted(tiles.items()))


class KingdomsEngine:
    """``new_game(setup)``, ``apply(state, event)`` and ``view(state)`` for Kingdoms."""

    name = "kingdoms"
    event_types = EVENT_TYPES
    option_help = OPTION_HELP

    def __init__(self) -> None:
        # One handler per event type, taking the event's typed operation (``operations.py``).
        self._handlers: dict[str, Callable[[KingdomsState, Any], tuple[KingdomsState, dict[str, Any]]]] = {
            "place": self._place, "remove": self._remove, "replace": self._replace, "turn_down": self._turn_down,
            "score_round": self._score_round, "set_turn": self._set_turn}

    # ----------------------------------------------------------------- setup
    def new_game(self, setup: Mapping[str, Any]) -> KingdomsState:
        if not isinstance(setup, Mapping):
            raise InvalidSetup(Message('a setup must be a mapping with players, options and seed, got %(name)s', name=type(setup).__name__))
        unknown = set(setup) - {"players", "options", "seed"}
        if unknown:
            raise InvalidSetup(Message('unknown setup keys %(unknown)s: expected players, options, seed', unknown=str(sorted(unknown))))
        if "players" not in setup:
            raise InvalidSetup(Message("a setup needs players, e.g. [{\"name\": \"Ann\", \"suits\": [\"H\", \"D\"]}, …]"))
        seating = Seating.from_json(setup["players"])
        options = Options.from_json(setup.get("options"), seating)
        seed = setup.get("seed")
        if seed is not None and not isinstance(seed, (int, str)):
            raise InvalidSetup(Message('seed must be a number or text, got %(seed)s', seed=repr(seed)))
        players = tuple(PlayerState(name, suits, seating.castle_supply) for name, suits in seating.players)
        return KingdomsState(seating, options, seed, players, round=1, board=(), to_act=0, starter=0)

    # ----------------------------------------------------------------- events
    def apply(self, state: KingdomsState, event: Mapping[str, Any]) -> KingdomsState:
        kind = event_type(event, EVENT_TYPES)
        if state.finished:
            raise IllegalEvent(Message('the game is over after %(rounds)s rounds', rounds=state.options.rounds))
        operation: Operation = parse_operation(kind, event, PARSERS)
        new_state, logged = self._handlers[kind](state, operation)
        return replace(new_state, log=state.log + (json.dumps(logged, sort_keys=True),))

    def _place(self, state: KingdomsState, event: Place) -> tuple[KingdomsState, dict[str, Any]]:
        cell, card = event.cell, event.card
        tiles = state.tiles
        if cell in tiles:
            raise IllegalEvent(Message('cell %(cell)s already holds %(seen)s', cell=_show(cell), seen=tiles[cell].seen))
        if len(tiles) >= CELLS_IN_GRID:
            raise IllegalEvent(Message("the grid is full: score the round first"))
        piece = self._piece(state, card)
        placer = self._placer(state, event, piece)
        tile = self._checked_tile(state, tiles, cell, card, piece, placer)
        players = list(state.players)
        if piece.is_castle:
            players = _take_castle(state, players, piece)
        tiles[cell] = tile
        next_player = (state.player_index(placer) + 1) % len(state.players)
        new_state = replace(state, board=_freeze(self._settle(state, tiles)), players=tuple(players), to_act=next_player)
        logged = {"type": "place", "cell": list(cell), "card": card.code}
        if event.player is not NOT_GIVEN:
            logged["player"] = placer
        if state.options.auto_score and len(tiles) == CELLS_IN_GRID:
            new_state = self._finish_round(new_state)
        return new_state, logged

    def _remove(self, state: KingdomsState, event: Remove) -> tuple[KingdomsState, dict[str, Any]]:
        cell = event.cell
        tiles = state.tiles
        tile = _occupied(tiles, cell)
        players = list(state.players)
        if tile.card is not None:
            piece = self._piece(state, tile.card)
            if piece.is_castle:
                players = _return_castle(state, players, piece)
        del tiles[cell]
        return (replace(state, board=_freeze(self._settle(state, tiles)), players=tuple(players)),
                {"type": "remove", "cell": list(cell)})

    def _replace(self, state: KingdomsState, event: Replace) -> tuple[KingdomsState, dict[str, Any]]:
        cell, card = event.cell, event.card
        tiles = state.tiles
        old = _occupied(tiles, cell)
        if old.card == card or (old.card is None and card.kind is Kind.BACK):
            raise IllegalEvent(Message('cell %(cell)s already holds %(code)s', cell=_show(cell), code=card.code))
        players = list(state.players)
        if old.card is not None:
            old_piece = self._piece(state, old.card)
            if old_piece.is_castle:
                players = _return_castle(state, players, old_piece)
        del tiles[cell]
        piece = self._piece(state, card)
        trial = replace(state, players=tuple(players))
        placer = piece.owner if piece.is_castle else old.placed_by
        tile = self._checked_tile(trial, tiles, cell, card, piece, placer)
        if piece.is_castle:
            players = _take_castle(trial, players, piece)
        tiles[cell] = tile
        return (replace(state, board=_freeze(self._settle(state, tiles)), players=tuple(players)),
                {"type": "replace", "cell": list(cell), "card": card.code})

    def _turn_down(self, state: KingdomsState, event: TurnDown) -> tuple[KingdomsState, dict[str, Any]]:
        cell = event.cell
        tiles = state.tiles
        tile = _occupied(tiles, cell)
        logged = {"type": "turn_down", "cell": list(cell)}
        if tile.face_down or tile.card is None:
            # Already down (auto_turn_down did it, or it was placed face down): the table agrees with us.
            return state, logged
        piece = self._piece(state, tile.card)
        if piece.kind not in TURNABLE:
            raise IllegalEvent(Message("only resources (red A-6) and a cancelled gold mine are turned face down; %(code)s is the %(label)s",
                                       code=tile.card.code, label=piece.label))
        if dragon_reaching(self._pieces(state, tiles), cell) is None:
            raise IllegalEvent(Message("%(code)s at %(cell)s is in no dragon's lines: it stays face up", code=tile.card.code, cell=_show(cell)))
        tiles[cell] = replace(tile, face_down=True)
        return replace(state, board=_freeze(tiles)), logged

    def _score_round(self, state: KingdomsState, event: ScoreRound) -> tuple[KingdomsState, dict[str, Any]]:
        filled = len(state.board)
        if filled < CELLS_IN_GRID:
            raise IllegalEvent(Message("the round ends when the grid is full: %(filled)s of %(cells_in_grid)s cells hold a card",
                                       filled=filled, cells_in_grid=CELLS_IN_GRID))
        return self._finish_round(state), {"type": "score_round"}

    def _set_turn(self, state: KingdomsState, event: SetTurn) -> tuple[KingdomsState, dict[str, Any]]:
        name = event.player
        if name not in state.seating.names:
            raise IllegalEvent(Message('set_turn: unknown player %(name)s; players are %(names)s', name=repr(name), names=list(state.seating.names)))
        return replace(state, to_act=state.player_index(name)), {"type": "set_turn", "player": name}

    # ----------------------------------------------------------------- rules
    def _piece(self, state: KingdomsState, card: Card) -> Piece:
        return piece_for(card, state.seating, state.options.wizard_card)

    def _pieces(self, state: KingdomsState, tiles: Mapping[Cell, Tile]) -> dict[Cell, Piece]:
        """What each card is, remembering the identity of cards turned face down."""
        return {cell: self._piece(state, t.card) if t.card is not None else FACE_DOWN_PIECE for cell, t in tiles.items()}

    def _placer(self, state: KingdomsState, event: Place, piece: Piece) -> str:
        names = state.seating.names
        if event.player is not NOT_GIVEN:
            placer = event.player
            if not isinstance(placer, str) or placer not in names:
                raise IllegalEvent(Message('unknown player %(placer)s; players are %(player)s', placer=repr(placer), player=list(names)))
            if piece.is_castle and piece.owner != placer:
                raise IllegalEvent(Message("%(placer)s cannot place %(owner)s's castle", placer=placer, owner=piece.owner))
        else:
            placer = piece.owner if piece.is_castle else names[state.to_act]
        if state.options.strict_turns and placer != names[state.to_act]:
            raise IllegalEvent(Message("it is %(player)s's turn, not %(placer)s's (strict_turns is on)", player=names[state.to_act], placer=placer))
        return str(placer)

    def _checked_tile(self, state: KingdomsState, tiles: Mapping[Cell, Tile], cell: Cell, card: Card, piece: Piece,
                      placer: str | None) -> Tile:
        """The tile ``card`` makes at ``cell`` on ``tiles`` (which lacks ``cell``), or IllegalEvent."""
        pieces = self._pieces(state, tiles)
        pieces[cell] = piece
        height, width = extent(pieces)
        if not fits(height, width, state.options.orientation):
            raise IllegalEvent(Message("%(card)s at %(cell)s is outside the grid: %(why)s", card=card.code, cell=_show(cell),
                                       why=describe_extent(height, width, state.options.orientation)))
        problem = copies_problem([t.card for t in tiles.values() if t.card is not None] + [card], state.options)
        if problem:
            raise IllegalEvent(problem)
        if piece.is_castle:
            owner = state.players[state.player_index(piece.castle_owner)]
            if owner.supply[piece.rank - 1] < 1:
                gone = "used earlier this game" if piece.rank > 1 else "all on the grid this round"
                raise IllegalEvent(Message('%(owner)s has no rank-%(rank)s castle left (%(gone)s)', owner=piece.owner, rank=piece.rank, gone=gone))
        if card.kind is Kind.BACK:
            if dragon_reaching(pieces, cell) is None:
                raise IllegalEvent(Message("a face-down card is legal only inside the dragon's lines; %(cell)s is not", cell=_show(cell)))
            return Tile(None, True, placer)
        return Tile(card, False, placer)

    def _settle(self, state: KingdomsState, tiles: dict[Cell, Tile]) -> dict[Cell, Tile]:
        """Resources in a dragon's lines lie face down (with auto_turn_down); a known card no dragon reaches, face up."""
        pieces = self._pieces(state, tiles)
        for cell, tile in list(tiles.items()):
            if tile.card is None or pieces[cell].kind not in TURNABLE:
                continue
            in_lines = dragon_reaching(pieces, cell) is not None
            if tile.face_down and not in_lines:
                tiles[cell] = replace(tile, face_down=False)
            elif (not tile.face_down and in_lines and state.options.auto_turn_down
                  and pieces[cell].kind is PieceKind.RESOURCE):
                tiles[cell] = replace(tile, face_down=True)
        return tiles

    def _finish_round(self, state: KingdomsState) -> KingdomsState:
        result = self.score_board(state)
        tiles = state.tiles
        players = list(state.players)
        for tile in tiles.values():
            if tile.card is not None:
                piece = self._piece(state, tile.card)
                if piece.is_castle and piece.rank == 1:
                    players = _return_castle(state, players, piece)
        rows = _rows(tiles)
        starter = (state.starter + 1) % len(players)
        return replace(state, players=tuple(players), round=state.round + 1, board=(), starter=starter, to_act=starter,
                       results=state.results + (RoundResult(state.round, rows, result),))

    # ----------------------------------------------------------------- reading
    def score_board(self, state: KingdomsState) -> BoardScore:
        """The current grid scored now (provisional while the round runs), cells relative to its top-left."""
        tiles = state.tiles
        box = bounding_box(tiles)
        if box is None:
            return score({}, state.seating.names, state.options.rules)
        top, left = box[0], box[1]
        shift = {cell: (cell[0] - top + 1, cell[1] - left + 1) for cell in tiles}
        pieces = {shift[c]: p for c, p in self._pieces(state, tiles).items()}
        labels = {shift[c]: (Message("%(card)s face down", card=CardName(t.card.code)) if t.face_down else CardName(t.card.code))
                  if t.card else Message("face-down card")
                  for c, t in tiles.items()}
        warnings = []
        if len(tiles) < CELLS_IN_GRID:
            warnings.append(Message("the board is not full: %(count)s of %(cells)s cells hold a card; scored as it stands",
                                    count=len(tiles), cells=CELLS_IN_GRID))
        return score(pieces, state.seating.names, state.options.rules, labels).with_warnings(warnings)

    def view(self, state: KingdomsState) -> dict[str, Any]:
        tiles = state.tiles
        pieces = self._pieces(state, tiles)
        box = bounding_box(tiles)
        height, width = extent(tiles)
        top, left = (box[0], box[1]) if box else (1, 1)
        # Between rounds the grid is empty: show the round just scored until the next card lands.
        if not tiles and state.results:
            current = state.results[-1].score
            scores_of = {"round": state.results[-1].number, "final": True}
        else:
            current = self.score_board(state)
            scores_of = {"round": min(state.round, state.options.rounds), "final": False}
        round_scores = [r.score.totals for r in state.results]
        totals = {name: sum(scores[name] for scores in round_scores) for name in state.seating.names}
        winners = None
        if state.finished:
            best = max(totals.values())
            winners = [name for name, total in totals.items() if total == best]
        open_cells = [] if len(tiles) >= CELLS_IN_GRID else [
            [r, c] for r in range(1, CANVAS + 1) for c in range(1, CANVAS + 1)
            if (r, c) not in tiles and fits(*extent(list(tiles) + [(r, c)]), state.options.orientation)]
        return {
            "game": self.name,
            "options": state.options.to_json(),
            "seed": state.seed,
            "players": [{"name": p.name, "suits": [s.value for s in p.suits], "supply": p.supply_json(),
                         "round_scores": [scores[p.name] for scores in round_scores], "total": totals[p.name]}
                        for p in state.players],
            "supplies": {p.name: p.supply_json() for p in state.players},
            "round": min(state.round, state.options.rounds),
            "rounds": state.options.rounds,
            "finished": state.finished,
            "to_act": None if state.finished else state.seating.names[state.to_act],
            "board": {
                "canvas": [CANVAS, CANVAS],
                "origin": [top, left],
                "size": [height, width],
                "orientation": fixed_orientation(height, width, state.options.orientation),
                "filled": len(tiles),
                "full": len(tiles) == CELLS_IN_GRID,
                "cells": [{"cell": [r, c], "grid_cell": [r - top + 1, c - left + 1], "code": t.seen,
                           "card": t.card.code if t.card else None, "face_down": t.face_down or t.card is None,
                           "piece": pieces[(r, c)].to_json(), "placed_by": t.placed_by}
                          for (r, c), t in sorted(tiles.items())],
                "rows": [list(row) for row in _rows(tiles)],
                "open_cells": open_cells,
                # What is still in the territory pile and the players' hands this round.
                "territory_left": TERRITORY_CARDS + (1 if state.options.wizard else 0)
                - sum(1 for p in pieces.values() if not p.is_castle),
            },
            "scores": current.to_json(),
            "scores_of": scores_of,
            "explanations": current.explanations(),
            "round_scores": round_scores,
            "results": [{"round": r.number, "rows": [list(row) for row in r.rows], **r.score.to_json(),
                         "explanations": r.score.explanations()} for r in state.results],
            "totals": totals,
            "winners": winners,
            "rulings": rulings_view(state.options),
            "log": [json.loads(entry) for entry in state.log],
        }

    # ----------------------------------------------------------------- queries
    def referee_view(self, state: KingdomsState) -> dict[str, Any]:
        """Kingdoms hides nothing (castles and tiles lie face up or are known): the view itself."""
        return self.view(state)

    def option_defaults(self, players: int = CATALOGUE_PLAYERS) -> dict[str, Any]:
        return Options.defaults(players).to_json()

    def result(self, state: KingdomsState) -> dict[str, Any]:
        """The scores and how they came about (each round's castles, the supplies), and the totals by round."""
        return kingdoms_result(state, self.score_board(state) if state.board else None)

    def audit(self, state: KingdomsState) -> list[str]:
        """Kingdoms keeps no hidden cards to account for: the engine refuses any card a grid cannot hold."""
        return []

    def awaiting(self, state: KingdomsState) -> list[str]:
        """The player to act, while the round's grid still has open cells."""
        if state.finished or self.round_complete(state):
            return []
        return [state.seating.names[state.to_act]]

    def round_complete(self, state: KingdomsState) -> bool:
        """The grid is full and the round waits for ``score_round`` (``auto_score`` off)."""
        return not state.finished and len(state.board) >= CELLS_IN_GRID

    def automatic_events(self, state: KingdomsState) -> list[dict[str, Any]]:
        """None: ``auto_score`` scores inside ``apply``, as the 30th card lands."""
        return []


# --------------------------------------------------------------------- helpers
def _show(cell: Cell) -> str:
    return f"[{cell[0]}, {cell[1]}]"


def _occupied(tiles: Mapping[Cell, Tile], cell: Cell) -> Tile:
    if cell not in tiles:
        raise IllegalEvent(Message('cell %(cell)s is empty', cell=_show(cell)))
    return tiles[cell]


def _with_supply(players: list[PlayerState], index: int, rank: int, change: int) -> list[PlayerState]:
    player = players[index]
    supply = list(player.supply)
    supply[rank - 1] += change
    players = list(players)
    players[index] = replace(player, supply=(supply[0], supply[1], supply[2], supply[3]))
    return players


def _take_castle(state: KingdomsState, players: list[PlayerState], piece: Piece) -> list[PlayerState]:
    return _with_supply(players, state.player_index(piece.castle_owner), piece.rank, -1)


def _return_castle(state: KingdomsState, players: list[PlayerState], piece: Piece) -> list[PlayerState]:
    return _with_supply(players, state.player_index(piece.castle_owner), piece.rank, +1)


def _rows(tiles: Mapping[Cell, Tile]) -> tuple[tuple[str | None, ...], ...]:
    box = bounding_box(tiles)
    if box is None:
        return ()
    top, left, bottom, right = box
    return tuple(tuple(tiles[(r, c)].seen if (r, c) in tiles else None for c in range(left, right + 1))
                 for r in range(top, bottom + 1))


ENGINE = KingdomsEngine()
