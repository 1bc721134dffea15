"""The whole pipeline on rendered recordings.

Two detectors: ``TruthDetector`` reports exactly the cards the renderer drew (hands hide them), which
tests mat finding, zones, stability and the game bindings on realistic sequences; the shipped neural
detector is tested the same way with its shipped weights (a missing weights file fails).
"""
import numpy as np
import pytest

from companion.synthetic.recording import CameraSettings, TruthDetector, build_scenario, render_frames
from companion.table.pipeline import PipelineError, PipelineNotResumable, TablePipeline, build_pipeline, skin_fraction

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
@pytest.mark.neural_extra
@pytest.mark.parametrize("game,seed,actions", [("chosen", 11, 4), ("dungeon", 12, 5), ("kingdoms", 13, 6)])
def test_the_neural_detector_reads_a_rendered_table(game, seed, actions):
    """The real eyes on a short rendered clip: the settled table (card, zone) must be what was laid.

    Short on purpose: the neural detector costs a quarter second per frame on two cores. The whole
    demos (test_table_demo.py) cover each game in the default run; these run in CI (scripts/test.sh).
    """
    from companion.vision import Detector
    from vision_models.checks.evaluate_table import score_clip

    detector = Detector.load(tile="auto")  # as the table runs it: whole-table frames need the closer look
    result = score_clip(detector, game, seed, actions)
    assert (result["missing"], result["extra"]) == ([], []) and result["right"] == result["laid"] > 0


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
    # read from one lone "index", a card's centre is estimated off the marker, but its box holds it
    lone = np.concatenate([pixels[0] - 12, pixels[0] + 60])[None]
    seen = pipeline.observations(Detections(lone, [0.9], ("SJ",), (pixels[0] + 40)[None]))
    assert seen == []
    beside_box = np.concatenate([pixels[1] - 30, pixels[1] + 30])[None]
    assert [o.code for o in pipeline.observations(Detections(beside_box, [0.9], ("QC",), pixels[1][None]))] == ["QC"]


def test_on_a_mat_the_detector_is_told_how_large_the_indices_are():
    from calibration.layouts import INDEX_MM
    from companion.vision import Detections

    class ToldDetector:
        def __init__(self, scale=None):
            self.index_px = None if scale is None else scale.centre_px   # the middle's size, as the protocol says
            self.told = []

        def expecting_index_px(self, px):
            self.told.append(px)
            return ToldDetector(px)

        def __call__(self, frame):
            return Detections.empty()

    scenario, frames, _, _ = run_truth("dungeon", 2)
    detector = ToldDetector()
    pipeline = build_pipeline("dungeon", detector, scenario.setup, scenario.setup_events)
    for frame in frames[:4]:
        pipeline.process(frame.time, frame.image)
    assert pipeline.units == "mm" and detector.told
    centre = pipeline.locator.to_image(np.array([[pipeline.layout.width / 2, pipeline.layout.height / 2]], np.float32))[0]
    px_per_mm = 1 / pipeline.locator.mm_per_pixel((float(centre[0]), float(centre[1])))
    told = detector.told[-1]
    assert told.centre_px == pytest.approx(INDEX_MM * px_per_mm, rel=0.1)
    # and where each card lies: the camera films the mat at a slant, its far edge smaller
    far, near = pipeline.locator.to_image(np.array([[pipeline.layout.width / 2, 0.0],
                                                    [pipeline.layout.width / 2, pipeline.layout.height]], np.float32))
    for point in (far, near):
        expected = INDEX_MM / pipeline.locator.mm_per_pixel((float(point[0]), float(point[1])))
        assert told.at(point) == pytest.approx(expected, rel=0.03)
    assert told.at(far) < 0.97 * told.at(near)
    assert len(detector.told) == 1, "told again only when the camera's scale changes"


def test_an_empty_printed_slot_is_not_a_card_back():
    import cv2

    from companion.table.pipeline import looks_like_its_surroundings

    paper = np.full((300, 400, 3), (228, 232, 235), np.uint8)
    paper += np.random.default_rng(0).integers(0, 6, paper.shape, dtype=np.uint8)  # camera noise
    slot = (60, 60, 140, 175)
    cv2.rectangle(paper, slot[:2], slot[2:], (70, 70, 70), 2)
    cv2.putText(paper, "REST", (82, 120), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (90, 90, 90), 1)
    assert looks_like_its_surroundings(paper, slot)
    back = (220, 60, 300, 175)
    paper[62:173, 222:298] = (140, 40, 30)   # a blue back with a lighter pattern
    paper[70:165:8, 222:298] = (200, 120, 100)
    assert not looks_like_its_surroundings(paper, back)
    assert not looks_like_its_surroundings(paper, (0, 0, 400, 300)), "a box filling the frame has no surroundings"


@pytest.mark.parametrize("deck,expected", [(None, "question"), ("a learned deck", "placed")])
def test_a_card_read_as_surely_as_a_learned_decks_detector_asks_is_no_question(deck, expected):
    """A learned deck lowers the detector's thresholds (Detector.with_deck); the tigullio deck's
    star-indexed joker read at 0.57 was asked about on every frame instead of entering the game."""
    from companion.vision import Detections

    class Reader:
        conf, back_conf = (0.6, 0.4) if deck is None else (0.25, 0.25)

        def __init__(self):
            self.deck = deck

        def __call__(self, frame):
            box = np.array([[300, 200, 360, 290]], np.float32)
            return Detections(box, [0.57], ("BJ",), np.array([[330, 245]], np.float32))

    pipeline = build_pipeline("kingdoms", Reader(), {"players": ["Red", "Black"]}, mat="none")
    frame = np.full((480, 640, 3), 90, np.uint8)
    events = [e for k in range(40) for e in pipeline.process(k * 0.1, frame).table_events]
    assert [e.type for e in events] == [expected]
    # a settled face read as another still needs the general models' sureness
    assert pipeline.tracker.config.sure_for_change("BJ", "SJ") == 0.6


class _Harmful:
    def __reduce__(self):
        import os

        return (os.system, ("echo this ran",))


@pytest.mark.slow
@pytest.mark.parametrize("game,seed", [("kingdoms", 2), ("dungeon", 5), ("chosen", 7)])
def test_a_pipeline_saved_half_way_and_resumed_elsewhere_reaches_the_true_final_state(game, seed):
    """What a server taking a feed over does (web_ui/camera.py): the pipeline saved as bytes half-way, read
    back into a new one, which reads the rest: the same final state and the same engine events as the
    pipeline that read everything, each once."""
    scenario = build_scenario(game, seed)
    frames = list(render_frames(scenario, SMALL))
    detector = TruthDetector([f.cards for f in frames])
    first = build_pipeline(game, detector, scenario.setup, scenario.setup_events)
    half = len(frames) // 2
    for frame in frames[:half]:
        first.process(frame.time, frame.image)
    assert first.tracker.cards   # cards lie on the table as it is handed over
    second = TablePipeline.resumed(first.saved(), detector)
    assert second.tracker.snapshot() == first.tracker.snapshot() and second.binding.view() == first.binding.view()
    summary = second.run(((f.time, f.image) for f in frames[half:]), flush_seconds=3.0)
    assert summary["engine_events"][len(scenario.setup_events):] == scenario.events
    assert summary["state"] == scenario.final_view()


def test_bytes_that_are_no_saved_pipeline_are_refused_and_run_nothing():
    import pickle
    import zlib

    for data in (b"not a pipeline", zlib.compress(pickle.dumps(_Harmful())), zlib.compress(pickle.dumps({"tracker": 1}))):
        with pytest.raises(PipelineNotResumable):
            TablePipeline.resumed(data, lambda frame: None)
