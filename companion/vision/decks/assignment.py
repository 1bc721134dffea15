"""Each card once: codes for the cards found in whole-deck photos (SciPy's ``linear_sum_assignment``), and how sure each is."""
from __future__ import annotations

import numpy as np

from companion.vision.decks.profile import DECK_CODES, JOKERS

# A card whose code the assignment would change for less than this much total cost (in nats of
# the classifier's probabilities) is not placed surely: the player is asked.
SURE_MARGIN = 1.0
# Extra cost for a lone index reading to be a second corner of a code another reading already holds:
# one card's two corners that the grouping did not pair (a fan, a cascade, a corner misread).
SECOND_CORNER_COST = 1.0
# Cost of leaving a card unplaced (a stray box, a second copy): a card whose best code is less
# likely than about e^-6 under the classifier is better left out than forced into a code.
UNPLACED_COST = 6.0
# A photo of the whole deck shows every card: an alternative that leaves one of the 52 codes with no
# card at all (not another card's code) is that much less likely, and a card's margin counts it. In
# a fan each card shows one index, read at any turn, and without it a lone card's margin was at most
# its second-best code at another turn plus SECOND_CORNER_COST (it could "be the other corner" of
# that code, its own code left empty): over 12 drawn photos of four fanned hands of 13
# (``python -m vision_models.checks.fanned_teaching --angles 9 11 13 16 --seeds 0 1 2``) cards asked went
# 94 -> 78, none placed wrong that was not before; 1, 2 and 3 gave the same. Placement is unchanged:
# only how sure the assignment is of it.
MISSING_CARD_COST = 1.0


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
        # the code may go to another card, or to none at MISSING_CARD_COST (jokers are optional):
        # its column costs that much less, and the alternative pays it back either way
        missing = 0.0 if DECK_CODES[c] in JOKERS else MISSING_CARD_COST
        matrix[:, c] -= missing
        again_rows, again_columns = linear_sum_assignment(matrix)
        margins[r] = matrix[again_rows, again_columns].sum() + missing - total
        matrix[:, c] += missing
        matrix[r, [c, c + codes]] = saved
    return placed, margins

