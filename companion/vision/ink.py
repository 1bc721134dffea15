"""The colours of a corner index's ink: what tells two cards apart that differ only in colour.

Most decks print their two jokers alike but for the colour, and a four-colour deck tells its suits
by colour first; the classifier's features, trained on two-colour decks, weigh shape over colour.
A learned deck (:mod:`companion.vision.decks.profile`) keeps these colours per prototype.
"""
from __future__ import annotations

import cv2
import numpy as np

# Ink colours of an index crop: hue-angle histogram (CIE Lab a*/b*) of its coloured ink, plus one
# bin for black/grey ink.
INK_HUE_BINS = 12
# A pixel is ink when it is this much darker (Lab L, 0-255) than the crop's paper (its 90th
# percentile of lightness) or more coloured than INK_MIN_CHROMA (Lab a*/b* distance from grey),
# and coloured ink when the latter. Checked on the rendered scenes of three held-out decks
# (EVALUATION.md, "Ink colours", measured by a one-off probe since removed): a crop's colours are nearer its own code's mean than the
# other's for BJ/SJ 30 of 30 and J♠/J♥ 75 of 75, a four-colour deck's J♣/J♠ 16 of 16; HSV
# saturation, tried first, took light red and yellow ink for paper.
INK_DARKER_THAN_PAPER = 25
INK_MIN_CHROMA = 18


def ink_colours(crop: np.ndarray) -> np.ndarray:
    """An index crop's ink colours: INK_HUE_BINS shares of its coloured ink by hue and the share of black ink (sum 1).

    Ink is what is clearly darker or more coloured than the crop's paper; a crop with no ink (a
    blank box) gives all zeros, which agrees with nothing and disagrees with nothing (see
    :meth:`companion.vision.decks.profile.DeckProfile.similarities`).
    """
    lab = cv2.cvtColor(np.ascontiguousarray(crop[..., :3]), cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    lightness, a, b = lab[:, 0], lab[:, 1] - 128, lab[:, 2] - 128
    chroma = np.hypot(a, b)
    paper = float(np.percentile(lightness, 90))
    coloured = chroma > INK_MIN_CHROMA
    ink = coloured | (lightness < paper - INK_DARKER_THAN_PAPER)
    out = np.zeros(INK_HUE_BINS + 1, np.float32)
    total = int(ink.sum())
    if total == 0:
        return out
    hue = np.degrees(np.arctan2(b[coloured], a[coloured])) % 360
    np.add.at(out, (hue * INK_HUE_BINS // 360).astype(int).clip(0, INK_HUE_BINS - 1), 1.0)
    out[INK_HUE_BINS] = total - int(coloured.sum())
    return out / total
