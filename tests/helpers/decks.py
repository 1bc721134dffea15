"""Whole decks dealt face up in rows, drawn with the project's deck (the deck-learning tests)."""
from __future__ import annotations

import numpy as np

from companion.synthetic.deck import card_mask, render_card
from companion.vision.decks.profile import build_profile

COLUMNS, CARD_W, CARD_H, GAP = 11, 100, 140, 14


def four_index_card(code, width=CARD_W, height=CARD_H, style_seed=1):
    """The drawn card with an index in all four corners, as many real decks print them: the top two
    facing the same way (one card width apart less an index), the bottom two turned half a turn."""
    from companion.cards import Card
    from companion.synthetic.deck import _index_layer, _style

    image = render_card(code, width, height, style_seed=style_seed)
    layer, ink = _index_layer(Card.parse(code), width, height, _style(style_seed))
    columns = np.nonzero(ink.any(0))[0]
    shift = width - 1 - columns.max() - columns.min()
    for lay, msk in ((np.roll(layer, shift, 1), np.roll(ink, shift, 1)),
                     (np.roll(layer[::-1, ::-1], -shift, 1), np.roll(ink[::-1, ::-1], -shift, 1))):
        alpha = (msk.astype(np.float32) / 255)[..., None]
        image[:] = (image * (1 - alpha) + lay * alpha).astype(np.uint8)
    return image


def spread(codes, style_seed=1, render=render_card, card=(CARD_W, CARD_H), columns=COLUMNS, gap=GAP, canvas=None):
    """The drawn deck's design 1 dealt face up in rows on a green table, every card whole: (image, [(code, x, y)]).

    ``card``: each card's (width, height) in pixels; ``canvas``: the photo's (width, height) (default: just large enough)."""
    width, height = card
    rows = -(-len(codes) // columns)
    size = canvas or (columns * (width + gap) + 40, rows * (height + gap) + 40)
    table = np.full((size[1], size[0], 3), (60, 110, 50), np.uint8)
    mask = card_mask(width, height) > 0
    truth = []
    for n, code in enumerate(codes):
        row, column = divmod(n, columns)
        x, y = 20 + column * (width + gap), 20 + row * (height + gap)
        table[y:y + height, x:x + width][mask] = render(code, width, height, style_seed=style_seed)[mask]
        truth.append((code, x, y))
    return table, truth


# The one corner index a stand-in detector shows, as the classifier's features would describe it.
INDEX = np.eye(8, dtype=np.float32)[0]


def deck_reading(name: str, code: str):
    """A learned deck, without learning: in it INDEX is the card ``code`` (two prototypes, as two photos give)."""
    jitter = np.eye(8, dtype=np.float32)[1] * 0.05
    return build_profile(name, [code, code], [INDEX + jitter, INDEX - jitter], [], {"cards": 1})


def second_copy_spread(gone="7H", copied="QS"):
    """A whole deck (with jokers) dealt face up with one card replaced by a second copy of another."""
    from companion.vision.decks.profile import DECK_CODES

    codes = list(DECK_CODES)
    codes[codes.index(gone)] = copied
    return spread(codes)


def corrupt_images() -> dict[str, tuple[bytes, str]]:
    """Bad image files by name: their bytes and what the refusal says. A truncated JPEG, a text file
    named .jpg, a zero-byte file, and a tiny JPEG whose header claims 30000×30000 pixels (2.7 GB decoded)."""
    import cv2

    jpeg = cv2.imencode(".jpg", np.full((120, 160, 3), 90, np.uint8))[1].tobytes()
    huge = bytearray(jpeg)
    start = huge.index(b"\xff\xc0")          # the frame header: height and width at bytes 5-8
    huge[start + 5:start + 9] = (30000).to_bytes(2, "big") * 2
    return {"truncated.jpg": (jpeg[:len(jpeg) // 2], "not a readable image"),
            "notes.jpg": (b"my deck, bought in 2019\n", "not a readable image"),
            "empty.jpg": (b"", "empty file"),
            "huge.jpg": (bytes(huge), "more pixels than any camera takes")}


def saved_decks(data) -> dict[str, bytes]:
    """Every file of a data folder's learned decks, byte for byte: what a refused request must leave alone."""
    from pathlib import Path

    root = Path(data) / "decks"
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
