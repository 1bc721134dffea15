"""Issue 28's live path on recordings no part of the project had seen: rendered from new seeds (the
defaults of ``companion demo render``: 960 x 720, 8 frames/s), read by the shipped networks as a camera
delivers them on the simulated 2-core laptop (``--live --frame-cost work``), to the truth's final state.

The seeds were first read with ``scripts/settle_check.py --seeds 61,62,63`` (docs/table.md, *Unseen
seeds*); one per game that reaches its truth is kept here, so a change that loses it shows. Kingdoms
seed 81 (two small jokers in one column at the mat's far edge, read at the wrong half-turn) reached its
truth only once the grouping weighed a joker's facing both ways (tests/test_vision_grouping_slant.py).
"""
import pytest

from companion.cli import main

pytestmark = [pytest.mark.slow, pytest.mark.neural_extra]


@pytest.mark.parametrize("game,seed", [("kingdoms", 81), ("dungeon", 62), ("chosen", 61)])
def test_a_recording_from_a_new_seed_is_read_to_its_truth_live(tmp_path, game, seed, capsys):
    out = tmp_path / f"{game}-{seed}"
    assert main(["demo", "render", "--game", game, "--seed", str(seed), "--out", str(out)]) == 0
    code = main(["table", "run", "--game", game, "--source", str(out), "--live", "--frame-cost", "work", "--check-truth"])
    printed = capsys.readouterr().out
    assert "the final state matches truth.json" in printed, printed[-2000:]
    assert code == 0
