"""The grouping weighs only pairs of readings close enough to be one card (``grouping._near_pairs``):
the same pairs (and groups) come out as when every pair is weighed, on random tables of readings."""
import random

import pytest

from companion.vision import grouping
from companion.vision.grouping import IndexReading


def every_pair(readings, index_px):
    return [(i, j) for i in range(len(readings)) for j in range(i + 1, len(readings))]


@pytest.mark.parametrize("seed", range(4))
def test_weighing_only_near_pairs_chooses_the_pairs_weighing_all_does(seed, monkeypatch):
    rng = random.Random(seed)
    codes = ["QS", "QH", "3H", "3S", "BJ", "SJ", "10D", None]
    near = grouping._near_pairs
    for _ in range(300):
        readings = []
        for _ in range(rng.randint(0, 16)):
            x, y, w, h = rng.uniform(0, 300), rng.uniform(0, 300), rng.uniform(5, 40), rng.uniform(5, 40)
            readings.append(IndexReading((x, y, x + w, y + h), rng.random(), rng.choice(codes), rng.random(), rng.choice([0, 90, 180, 270])))
        for index_px in (None, rng.uniform(8, 30)):
            for geometry in (None, True):
                monkeypatch.setattr(grouping, "_near_pairs", near)
                for choose in (grouping.choose_pairs, grouping.choose_groups):
                    monkeypatch.setattr(grouping, "_near_pairs", near)
                    weighed_near = choose(readings, index_px=index_px, one_card_geometry=geometry)
                    monkeypatch.setattr(grouping, "_near_pairs", every_pair)
                    weighed_all = choose(readings, index_px=index_px, one_card_geometry=geometry)
                    assert weighed_near == weighed_all
