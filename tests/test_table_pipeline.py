"""The whole pipeline on rendered recordings.

Two detectors: ``TruthDetector`` reports exactly the cards the renderer drew (hands hide them), which
tests mat finding, zones, stability and the game bindings on realistic sequences; the shipped neural
detector is tested the same way when its weights are installed (skipped, with the reason, if not).
"""
import pytest

from companion.synthetic.recording import CameraSettings, TruthDetector, build_scenario, render_frames
from companion.table.pipeline import PipelineError, build_pipeline, skin_fraction

SMALL = CameraSettings(width=512, height=384, fps=6.0)   # small and slow: the suite runs on two busy cores


def run_truth(game, seed, camera=SMALL, mat="auto"):
    scenario = build_scenario(game, seed)
    frames = list(render_frames(scenario, camera))
    detector = TruthDetector([f.cards for f in frames])
    pipeline = build_pipeline(game, detector, scenario.setup, scenario.setup_events, mat=mat)
    summary = pipeline.run(((f.time, f.image) for f in frames), flush_seconds=3.0)
    return scenario, frames, pipeline, summary


@pytest.mark.slow
@pytest.mark.parametrize("game,seed", [("kingdoms", 2), ("dungeon", 5), ("chosen", 7)])
def test_a_rendered_game_reaches_its_true_final_state(game, seed):
    scenario, frames, pipeline, summary = run_truth(game, seed)
    assert summary["units"] == "mm" and summary["mat"]["error_mm"] < 3
    assert summary["engine_events"][len(scenario.setup_events):] == scenario.events
    assert summary["state"] == scenario.final_view()
    assert summary["questions"] == []
    # hands passed over every card many times: only the cards really taken away were removed
    removed = [e for r in pipeline.history for e in r.table_events if e.type == "removed"]
    assert len(removed) == sum(len(a.ids) for a in scenario.actions if a.kind == "remove")
    assert any(r.occluded for r in pipeline.history) and not all(r.occluded for r in pipeline.history)


@pytest.mark.slow
def test_kingdoms_without_the_mat_infers_the_grid_from_the_cards():
    scenario, frames, pipeline, summary = run_truth("kingdoms", 3, CameraSettings(width=640, height=480, fps=6.0,
                                                                                   tilt=0.0, roll_degrees=0.0), mat="none")
    assert summary["units"] == "px" and summary["mat"] is None
    assert summary["state"] == scenario.final_view()


def test_games_with_zones_refuse_to_run_without_their_mat():
    scenario = build_scenario("chosen", 1)
    with pytest.raises(PipelineError, match="needs its mat"):
        build_pipeline("chosen", TruthDetector([]), scenario.setup, mat="none")


def test_the_skin_detector_sees_the_hand_and_not_the_table():
    scenario = build_scenario("chosen", 1)
    frames = render_frames(scenario, SMALL)
    first = next(frames)
    assert skin_fraction(first.image) == 0.0
    with_hand = next(f for f in frames if f.time > 0.3)
    assert skin_fraction(with_hand.image) > 0.008


@pytest.mark.slow
# A known, measured gap (issue 4): at imgsz 640 the shipped detector misses most of the small corner
# indices of a whole-table view (see vision_models/EVALUATION.md). strict=True: the day it reads these
# clips, this fails as XPASS and the marker must go.
@pytest.mark.xfail(strict=True, reason="the shipped detector does not yet read whole-table views (issue 4)")
@pytest.mark.parametrize("game,seed,actions", [("chosen", 11, 4), ("dungeon", 12, 5), ("kingdoms", 13, 6)])
def test_the_neural_detector_reads_a_rendered_table(game, seed, actions):
    """The real eyes on a short rendered clip: the settled table (card, zone) must be what was laid.

    Short on purpose: the neural detector costs seconds per frame on two cores.
    """
    import dataclasses
    from collections import Counter

    from companion.synthetic.recording import Action
    from companion.table.zones import MatZones
    from companion.vision import Detector, WeightsMissingError

    try:
        detector = Detector.load(tile="auto")  # as the table runs it: whole-table frames need the closer look
    except WeightsMissingError as error:
        pytest.skip(f"detector weights are not installed: {error}")
    scenario = build_scenario(game, seed)
    clip = dataclasses.replace(scenario, actions=scenario.actions[:actions] + [Action("pause", seconds=1.5)])
    frames = list(render_frames(clip, CameraSettings(width=1280, height=960, fps=4.0)))
    pipeline = build_pipeline(game, detector, scenario.setup, scenario.setup_events)
    pipeline.run(((f.time, f.image) for f in frames), flush_seconds=2.0)
    if game == "kingdoms":
        expected = Counter(c["code"] for c in frames[-1].cards)
        seen = Counter(t.code for t in pipeline.tracker.cards)
    else:
        zones = MatZones(scenario.layout)
        expected = Counter((c["code"], zones(c["mat_mm"])) for c in frames[-1].cards)
        seen = Counter((t.code, t.zone) for t in pipeline.tracker.cards)
    assert seen == expected, f"questions: {[q for r in pipeline.history for q in r.questions][:6]}"


def test_a_printed_marker_read_as_a_card_is_not_a_card():
    import numpy as np

    from companion.vision import Detections

    scenario, frames, pipeline, _ = run_truth("kingdoms", 2)
    assert pipeline.units == "mm"
    marker = pipeline.layout.markers[0]
    on_marker = marker.corners().mean(0)
    beside = on_marker + [marker.size * 3, marker.size * 3]
    pixels = pipeline.locator.to_image(np.array([on_marker, beside], np.float32))
    boxes = np.concatenate([pixels - 10, pixels + 10], axis=1)
    seen = pipeline.observations(Detections(boxes, [0.9, 0.9], ("8C", "QC"), pixels))
    assert [o.code for o in seen] == ["QC"]
