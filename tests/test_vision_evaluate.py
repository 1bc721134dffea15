"""The threshold sweep of vision_models.checks.evaluate: every operating point scored on the same real
validation photos (../shared beside the checkout; its absence fails, as the data tests do), best first."""
import pytest

pytestmark = pytest.mark.slow


def test_the_sweep_scores_every_point_on_the_same_cards_and_puts_the_best_first():
    from companion.vision.models import ModelsManifest
    from vision_models.checks import evaluate

    rows = evaluate.sweep(None, limit=2)
    points = {(r["conf"], r["back_conf"], r["iou"]) for r in rows}
    assert len(rows) == len(points) == len(evaluate.SWEEP) * len(evaluate.BACK_SWEEP) * len(evaluate.IOU_SWEEP)
    # every point is scored against the same labelled cards: what it found and what it missed add up alike
    assert len({r["tp"] + r["fn"] for r in rows}) == 1 and rows[0]["tp"] + rows[0]["fn"] > 0
    assert [r["f1"] for r in rows] == sorted((r["f1"] for r in rows), reverse=True)
    # a threshold above every detection finds fewer cards than the lowest one
    lowest = next(r for r in rows if (r["conf"], r["back_conf"], r["iou"]) == (min(evaluate.SWEEP), 0.4, 0.5))
    highest = next(r for r in rows if (r["conf"], r["back_conf"], r["iou"]) == (max(evaluate.SWEEP), 0.4, 0.5))
    assert highest["tp"] + highest["fp"] < lowest["tp"] + lowest["fp"]
    # ties keep the thresholds in force: among the best F1, the in-force back threshold comes first
    now = ModelsManifest.load().thresholds
    best = [r for r in rows if r["f1"] == rows[0]["f1"]]
    assert min(abs(r["back_conf"] - now["back_conf"]) for r in best) == abs(rows[0]["back_conf"] - now["back_conf"])
