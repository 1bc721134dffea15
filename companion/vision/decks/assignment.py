"""Each card once: codes for the cards found in whole-deck photos (SciPy's ``linear_sum_assignment``), and how sure each is."""
from __future__ import annotations

import numpy as np

from companion.vision.decks.profile import DECK_CODES

# A card whose code the assignment would change for less than this much total cost (in nats of
# the classifier's probabilities) is not placed surely: the player is asked.
SURE_MARGIN = 1.0
# Extra cost for a lone index reading to be a second corner of a code another reading already holds:
# one card's two corners that the grouping did not pair (a fan, a cascade, a corner misread).
SECOND_CORNER_COST = 1.0
# Cost of leaving a card unplaced (a stray box, a second copy): a card whose best code is less
# likely than about e^-6 under the classifier is better left out than forced into a code.
UNPLACED_COST = 6.0


def assign(costs: np.ndarray, fixed: dict[int, str], lone: np.ndarray | None = None
            ) -> tuple[list[int | None], np.ndarray]:
    """Codes for cards (row → code column or None), each code once; plus each placed card's margin.

    A ``lone`` row (one index reading, its card's other corner not paired with it) may also take a
    code's second place at ``SECOND_CORNER_COST`` more: it can be the other corner of a card read
    elsewhere. A card's margin is how much the best assignment loses when that card may not have
    its code at all.
    """
    from scipy.optimize import linear_sum_assignment

    n, codes = len(costs), len(DECK_CODES)
    big = 1e6
    lone = np.zeros(n, bool) if lone is None else np.asarray(lone, bool)
    matrix = np.full((n, 2 * codes + n), big)
    matrix[:, :codes] = costs
    matrix[lone, codes:2 * codes] = costs[lone] + SECOND_CORNER_COST
    matrix[np.arange(n), 2 * codes + np.arange(n)] = UNPLACED_COST
    for row, code in fixed.items():
        column = DECK_CODES.index(code)
        matrix[row, :] = big
        matrix[:, column] = big
        matrix[row, column] = 0.0
    rows, columns = linear_sum_assignment(matrix)
    total = matrix[rows, columns].sum()
    placed: list[int | None] = [None] * n
    for r, c in zip(rows, columns):
        placed[r] = int(c) % codes if c < 2 * codes else None
    margins = np.zeros(n)
    for r, c in enumerate(placed):
        if c is None:
            continue
        if r in fixed:
            margins[r] = np.inf
            continue
        saved = matrix[r, [c, c + codes]].copy()
        matrix[r, [c, c + codes]] = big
        again_rows, again_columns = linear_sum_assignment(matrix)
        margins[r] = matrix[again_rows, again_columns].sum() - total
        matrix[r, [c, c + codes]] = saved
    return placed, margins

