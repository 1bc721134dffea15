"""The Chosen (T.Y.R.O. 获选者): chosen carry water chips through two rings to the vault.

Rules: ../shared/rules/chosen.md; events and rulings: docs/chosen.md.
"""
from companion.games.chosen.engine import ENGINE, Chip, Chosen, ChosenEngine, State, Turn, Verdict
from companion.games.chosen.pieces import CHOSEN, MEDICINE, RADIATION, role
from companion.games.chosen.rules import Options, RULINGS

__all__ = ["ENGINE", "Chip", "Chosen", "ChosenEngine", "State", "Turn", "Verdict", "Options", "RULINGS",
           "CHOSEN", "MEDICINE", "RADIATION", "role"]
