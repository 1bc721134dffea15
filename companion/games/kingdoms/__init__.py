"""Kingdoms with poker cards: pieces, the floating grid, scoring (poker and knizia rules) and the game engine."""
from companion.games.kingdoms.board import InvalidBoard, ScoredBoard, render_text, score_rows
from companion.games.kingdoms.engine import ENGINE, KingdomsEngine, KingdomsState
from companion.games.kingdoms.options import RULINGS, Options
from companion.games.kingdoms.pieces import IllegalCard, Piece, PieceKind, Seating, piece_for
from companion.games.kingdoms.scoring import BoardScore, score

__all__ = ["ENGINE", "KingdomsEngine", "KingdomsState", "BoardScore", "IllegalCard", "InvalidBoard", "Options", "Piece", "PieceKind", "RULINGS",
           "ScoredBoard", "Seating", "piece_for", "render_text", "score", "score_rows"]
