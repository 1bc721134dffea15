"""Whole decks dealt face up in rows, drawn with the project's deck (the deck-learning tests)."""
from __future__ import annotations

import numpy as np

from companion.synthetic.deck import card_mask, render_card
from companion.vision.deckprofile import build_profile

COLUMNS, CARD_W, CARD_H, GAP = 11, 100, 140, 14


def spread(codes, style_seed=1):
    """The drawn deck's design 1 dealt face up in rows on a green table, every card whole."""
    rows = -(-len(codes) // COLUMNS)
    table = np.full((rows * (CARD_H + GAP) + 40, COLUMNS * (CARD_W + GAP) + 40, 3), (60, 110, 50), np.uint8)
    mask = card_mask(CARD_W, CARD_H) > 0
    truth = []
    for n, code in enumerate(codes):
        row, column = divmod(n, COLUMNS)
        x, y = 20 + column * (CARD_W + GAP), 20 + row * (CARD_H + GAP)
        table[y:y + CARD_H, x:x + CARD_W][mask] = render_card(code, CARD_W, CARD_H, style_seed=style_seed)[mask]
        truth.append((code, x, y))
    return table, truth


# The one corner index a stand-in detector shows, as the classifier's features would describe it.
INDEX = np.eye(8, dtype=np.float32)[0]


def deck_reading(name: str, code: str):
    """A learned deck, without learning: in it INDEX is the card ``code`` (two prototypes, as two photos give)."""
    jitter = np.eye(8, dtype=np.float32)[1] * 0.05
    return build_profile(name, [code, code], [INDEX + jitter, INDEX - jitter], [], {"cards": 1})
