"""Synthetic recordings: seeded scenarios the engines accept, frames, and the truth written beside them."""
import json

import numpy as np
import pytest

from companion.games import get_engine
from companion.synthetic.recording import (CameraSettings, TruthDetector, build_scenario, load_truth, render_frames,
                                           write_recording)

TINY = CameraSettings(width=320, height=240, fps=4.0, noise=2.0)


@pytest.mark.parametrize("game", ["kingdoms", "dungeon", "chosen"])
@pytest.mark.parametrize("seed", [0, 1, 9])
def test_every_scenario_is_a_legal_game_that_the_engine_replays(game, seed):
    scenario = build_scenario(game, seed)
    engine = get_engine(game)
    state = engine.new_game(scenario.setup)
    for event in scenario.setup_events + scenario.events:
        state = engine.apply(state, event)            # raises if the script implied an illegal move
    assert engine.view(state) == scenario.final_view()
    assert scenario.actions and scenario.events
    placed = [a for a in scenario.actions if a.kind == "place"]
    assert len({a.ids[0] for a in placed}) == len(placed)


def test_scenarios_are_reproducible_and_seeds_differ():
    a, b, c = build_scenario("kingdoms", 5), build_scenario("kingdoms", 5), build_scenario("kingdoms", 6)
    assert a.events == b.events and a.events != c.events
    with pytest.raises(ValueError, match="no recording scenario"):
        build_scenario("poker", 1)


def test_kingdoms_scenario_fills_the_grid_and_scores_it():
    view = build_scenario("kingdoms", 3).final_view()
    assert view["round"] == 2
    assert all(len(p["round_scores"]) == 1 for p in view["players"])


def test_chosen_scenario_ends_with_a_verdict_from_a_revealed_chip():
    scenario = build_scenario("chosen", 2)
    assert scenario.events[-1]["type"] == "reveal"
    assert len(scenario.final_view()["verdicts"]) == 1


def test_frames_show_the_cards_and_the_hand_hides_some(tmp_path):
    scenario = build_scenario("chosen", 1)
    frames = list(render_frames(scenario, TINY))
    assert all(f.image.shape == (240, 320, 3) for f in frames)
    times = [f.time for f in frames]
    assert times == sorted(times) and times[1] - times[0] == pytest.approx(0.25)
    counts = [len(f.cards) for f in frames]
    assert counts[0] <= 1 and max(counts) >= 6
    # a card carried in the hand is reported where it is, and the last frame shows the vault's faces
    final = frames[-1].cards
    assert {c["code"] for c in final} >= {scenario.events[-1]["faces"][0]}
    for card in final:
        x1, y1, x2, y2 = card["box"]
        assert 0 <= x1 < card["center"][0] < x2 <= 320 and 0 <= y1 < card["center"][1] < y2 <= 240
    assert not np.array_equal(frames[0].image, frames[-1].image)


def test_a_recording_on_disk_has_frames_truth_and_card_truth(tmp_path):
    scenario = build_scenario("dungeon", 1)
    truth = write_recording(scenario, tmp_path / "rec", TINY, card_truth=True)
    frames = sorted((tmp_path / "rec" / "frames").glob("*.jpg"))
    assert len(frames) == truth["frames"] > 50
    saved = load_truth(tmp_path / "rec")
    assert saved["final_state"] == json.loads(json.dumps(scenario.final_view()))
    assert saved["setup_events"] == scenario.setup_events and saved["fps"] == 4.0
    assert [a["kind"] for a in saved["actions"]] == [a.kind for a in scenario.actions if a.kind != "pause"]
    detector = TruthDetector.from_jsonl(tmp_path / "rec" / "cards.jsonl.gz")
    assert len(detector.frames_cards) == truth["frames"]
    last = None
    for _ in range(truth["frames"]):
        last = detector(None)
    assert len(last) > 0 and set(last.codes) <= {c for c in last.codes}
    with pytest.raises(ValueError, match="no truth.json"):
        load_truth(tmp_path)
    with pytest.raises(ValueError, match="--card-truth"):
        TruthDetector.from_jsonl(tmp_path)


def test_a_recording_can_be_a_small_video(tmp_path):
    truth = write_recording(build_scenario("chosen", 1), tmp_path / "v", TINY, video=True)
    video = tmp_path / "v" / "recording.mp4"
    assert video.is_file() and truth["source"] == "recording.mp4"
    from companion.table.sources import open_source

    frames = list(open_source(str(tmp_path / "v")))
    assert len(frames) == truth["frames"]


def test_card_truth_names_the_indices_a_camera_could_read():
    from companion.synthetic.recording import Renderer, _Card

    scenario = build_scenario("kingdoms", 2)
    renderer = Renderer(scenario.layout, CameraSettings(width=960, height=720), scenario.seed)
    upright = _Card("7D", (200.0, 250.0), 0.0, True)
    truth = renderer.card_truth(upright, None)
    assert len(truth["indices"]) == 2
    (ax1, ay1, ax2, ay2), (bx1, by1, bx2, by2) = (index["box"] for index in truth["indices"])
    # the top-left index reads upright, the bottom-right one upside down (up to the camera's roll)
    ups = [index["up_degrees"] for index in truth["indices"]]
    assert min(ups[0], 360 - ups[0]) < 10 and abs(ups[1] - 180) < 10
    x1, y1, x2, y2 = truth["box"]
    # the first index in the top-left corner, the second in the bottom-right, both inside the card
    assert x1 <= ax1 < ax2 < (x1 + x2) / 2 < bx1 < bx2 <= x2 + 1
    assert y1 <= ay1 < ay2 < (y1 + y2) / 2 < by1 < by2 <= y2 + 1
    assert (ay2 - ay1) > (ax2 - ax1)           # an upright index is taller than wide
    sideways = renderer.card_truth(_Card("7D", (200.0, 250.0), 90.0, True), None)
    (sx1, sy1, sx2, sy2) = sideways["indices"][0]["box"]
    assert (sx2 - sx1) > (sy2 - sy1)
    assert abs(sideways["indices"][0]["up_degrees"] - 90) < 10    # turned a quarter clockwise
    assert renderer.card_truth(_Card("7D", (200.0, 250.0), 0.0, False), None)["indices"] == []
    # a card laid over the top-left corner hides that index, and only that one
    over = _Card("2S", (200.0 - 40.0, 250.0 - 60.0), 0.0, True)
    covered = renderer.card_truth(upright, None, [over])
    assert covered["indices"] == truth["indices"][1:]


def test_recorded_frames_carry_index_boxes_for_face_up_cards_only():
    frames = list(render_frames(build_scenario("chosen", 1), TINY))
    cards = [c for f in frames for c in f.cards]
    assert any(c["indices"] for c in cards)
    assert all(c["indices"] == [] for c in cards if c["code"] == "BACK")
