"""Issue 28's training chain: face-down cards as players lay them, real photos' index labels, the
shipped detector recovered from its ONNX file, and the chain's own bookkeeping."""
from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

from companion.vision.evaluation import LabelledBox, TruthCard
from vision_models import chain
from vision_models.data import real_labels, synth


@pytest.fixture(scope="module")
def small_deck():
    return synth.procedural_deck(0, width=80)


# ----------------------------------------------------------------------------- backs as players lay them


def _column(deck, backs: int, step: float, width: float = 60.0, size: int = 320) -> list[synth.Placement]:
    height = width * deck.back.shape[0] / deck.back.shape[1]
    top = size / 2 - (backs - 1) * step * height / 2
    return [synth.Placement(deck.back, None, (size / 2, top + k * step * height), width, 0.0) for k in range(backs)]


def test_each_back_of_a_solitaire_column_is_labelled_by_its_strip(small_deck):
    placements = _column(small_deck, 5, 0.25)
    _image, labels = synth.render_scene(np.random.default_rng(1), [small_deck], [small_deck.back], size=320,
                                        placements=placements, tilt=np.eye(3), hands=0)
    backs = [label for label in labels if label[0] == synth.BACK_CLASS]
    assert len(backs) == 5
    heights = sorted(y2 - y1 for _cls, _x1, y1, _x2, y2 in backs)
    card_height = 60.0 * small_deck.back.shape[0] / small_deck.back.shape[1]
    # four strips of about a quarter card and the whole top card
    assert all(h < card_height * 0.4 for h in heights[:4]) and heights[4] > card_height * 0.9


def test_a_squared_up_pile_is_one_back(small_deck):
    placements = _column(small_deck, 6, 0.0)
    _image, labels = synth.render_scene(np.random.default_rng(2), [small_deck], [small_deck.back], size=320,
                                        placements=placements, tilt=np.eye(3), hands=0)
    assert [label[0] for label in labels] == [synth.BACK_CLASS]


def test_a_back_showing_less_than_its_threshold_is_not_labelled(small_deck):
    # two backs, the upper one showing a tenth of itself above the other
    placements = _column(small_deck, 2, 0.1)
    _image, labels = synth.render_scene(np.random.default_rng(3), [small_deck], [small_deck.back], size=320,
                                        placements=placements, tilt=np.eye(3), hands=0)
    assert len(labels) == 1 and synth.BACK_VISIBLE_FRACTION > 0.1


def test_a_strip_counts_only_where_other_cards_hide_the_rest(small_deck):
    # a column's strip of a quarter card is a back; the same quarter showing at the frame's edge is not
    # (nor one under a hand: a hand passes, a column stays)
    width = 60.0
    column = _column(small_deck, 2, 0.25, width)
    at_edge = [synth.Placement(small_deck.back, None, (-width / 2 + width * 0.25, 160.0), width, 0.0)]
    labelled = []
    for placements in (column, at_edge):
        _image, labels = synth.render_scene(np.random.default_rng(4), [small_deck], [small_deck.back], size=320,
                                            placements=placements, tilt=np.eye(3), hands=0)
        labelled.append(sum(label[0] == synth.BACK_CLASS for label in labels))
    assert labelled == [2, 0]


def test_every_back_layout_is_drawn_and_labels_backs(small_deck):
    seen, backs = set(), 0
    for i in range(40):
        rng = np.random.default_rng([9, i])
        placements, tilt, hands = synth.back_layout(rng, 256, [small_deck], [small_deck.back])
        assert placements and all(math.isfinite(p.width) and p.width > 0 for p in placements)
        _image, labels = synth.render_scene(rng, [small_deck], [small_deck.back], size=256, placements=placements,
                                            tilt=tilt, hands=hands)
        backs += sum(label[0] == synth.BACK_CLASS for label in labels)
        seen.add(sum(p.face is None for p in placements) > 0)
    assert seen == {True} and backs >= 40


def test_back_scenes_are_written_under_their_own_name_and_are_a_function_of_the_seed(small_deck, tmp_path):
    synth.write_scenes(tmp_path / "a", [small_deck], [small_deck.back], 3, 5, size=160, backs_only=True)
    synth.write_scenes(tmp_path / "b", [small_deck], [small_deck.back], 3, 5, size=160, backs_only=True)
    names = sorted(p.name for p in (tmp_path / "a" / "labels").iterdir())
    assert names == [f"backscene_5_{i:06d}.txt" for i in range(3)]
    for name in names:
        assert (tmp_path / "a" / "labels" / name).read_text() == (tmp_path / "b" / "labels" / name).read_text()


# ----------------------------------------------------------------------------- real photos' index labels


def _card(code: str, box) -> TruthCard:
    return TruthCard(code, (LabelledBox(code, box),), whole=True)


def test_an_index_is_kept_only_inside_a_card_of_its_code():
    truth = [_card("7C", (0, 0, 100, 150)), _card("3D", (200, 0, 300, 150))]
    boxes = np.array([[5, 5, 20, 30],        # 7C read 7C, inside the 7C: kept
                      [205, 5, 220, 30],     # read 7C inside the 3D: dropped
                      [80, 120, 95, 145],    # 7C read 7S (suit misread, rank right): kept at the rank's bar
                      [210, 100, 225, 125],  # 3D read 3D but unsure: dropped
                      [150, 50, 160, 70]], np.float32)  # inside no card: dropped
    readings = [("7C", 0.9, 0), ("7C", 0.95, 0), ("7S", real_labels.RANK_CONFIDENCE + 0.05, 0),
                ("3D", real_labels.RANK_CONFIDENCE - 0.05, 0), ("7C", 0.99, 0)]
    kept, found = real_labels.verified_indices(truth, boxes, readings, ranks_only=False)
    assert kept == [tuple(map(float, boxes[0])), tuple(map(float, boxes[2]))]
    assert found == {0}


def test_a_rank_only_label_keeps_an_index_of_that_rank():
    truth = [_card("Q", (0, 0, 100, 150)), _card("BACK", (200, 0, 300, 150))]
    boxes = np.array([[5, 5, 20, 30], [205, 5, 220, 30]], np.float32)
    kept, found = real_labels.verified_indices(truth, boxes, [("QH", 0.8, 0), ("QH", 0.9, 0)], ranks_only=True)
    assert kept == [tuple(map(float, boxes[0]))] and found == {0}


def test_boxes_found_on_the_turned_frame_come_back_to_the_frame():
    import cv2

    frame = np.zeros((60, 100, 3), np.uint8)
    frame[10:20, 70:90] = 255                      # x 70-90, y 10-20
    turned = cv2.rotate(frame, cv2.ROTATE_90_CLOCKWISE)
    ys, xs = np.nonzero(turned[:, :, 0])
    found = np.array([[xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]], np.float32)
    assert real_labels._unturn(found, frame.shape[0]).tolist() == [[70, 10, 90, 20]]


def test_labels_are_written_in_yolo_form_clipped_to_the_photo():
    lines = real_labels.yolo_lines({"shape": (100, 200), "indices": [(10, 10, 30, 50)], "backs": [(150, 50, 260, 120)]})
    assert lines[0] == f"{synth.INDEX_CLASS} 0.100000 0.300000 0.100000 0.400000"
    cls, cx, cy, w, h = lines[1].split()
    assert int(cls) == synth.BACK_CLASS and float(cx) + float(w) / 2 == pytest.approx(1.0)


def test_only_development_sources_are_labelled_for_training(tmp_path):
    with pytest.raises(SystemExit, match="only development sources"):
        real_labels.write_source("rf100-test", tmp_path)


# ----------------------------------------------------------------------------- the chain


def test_the_chain_lists_its_steps_in_order_and_says_where_it_stands(monkeypatch, tmp_path):
    names = [step[0] for step in chain.STEPS]
    assert names == ["recover", "artwork", "real-labels", "scenes", "dataset", "train", "export", "check",
                     "table-scenes", "table-tune", "table-export", "table-check",
                     "strip-scenes", "strip-tune", "strip-export", "strip-check",
                     "card-data", "card-tune", "card-export", "card-check"]
    # a machine where nothing was made yet: the first step is the one to do
    monkeypatch.setattr(chain, "RECOVERED", tmp_path / "none.pt")
    assert chain.status_line().startswith(f"chain: step 1/{len(names)} recover to do")
    (tmp_path / "none.pt").write_bytes(b"x")
    monkeypatch.setattr(chain, "artwork_done", lambda: False)
    monkeypatch.setattr(chain, "STEPS", tuple((n, chain.artwork_done if n == "artwork" else d, r, m)
                                              for n, d, r, m in chain.STEPS))
    assert chain.status_line().startswith(f"chain: step 2/{len(names)} artwork to do")


def test_the_table_ending_trains_on_every_table_recording_and_twice_as_many_other_images(monkeypatch, tmp_path):
    data = tmp_path / "detect_chain"
    images = data / "table" / "train" / "images"
    images.mkdir(parents=True)
    seeds = [1000, 1001, 1002]
    for seed in [*seeds, 1003]:            # 1003: rendered once, not one of the ending's recordings
        for n in range(2):
            (images / f"table_{seed}_{n:03d}_full.jpg").write_bytes(b"")
    others = [str(tmp_path / "real_labels" / f"r{k}.jpg") for k in range(20)] + [str(tmp_path / "general" / f"g{k}.jpg") for k in range(20)]
    (data / "train.txt").write_text("\n".join(others + [str(images / "table_1000_000_full.jpg")]) + "\n")
    monkeypatch.setattr(chain, "DATA", data)
    monkeypatch.setattr(chain, "_table_seeds", lambda: seeds)
    chain.render_table_scenes()            # every recording is there: nothing is rendered
    listed = (data / "table-tune-train.txt").read_text().split()
    table = [line for line in listed if "/table/" in line]
    assert sorted(table) == sorted(str(images / f"table_{s}_{n:03d}_full.jpg") for s in seeds for n in range(2))
    assert len(listed) - len(table) == 2 * len(table) and set(listed) - set(table) <= set(others)
    assert f"train: {data / 'table-tune-train.txt'}" in (data / "data_table.yaml").read_text()
    assert json.loads((data / "table-tune.txt").read_text())["table_train"] == 6
    assert chain.table_scenes_done()


def test_the_strip_ending_trains_on_the_same_images_with_the_relabelled_scenes(monkeypatch, tmp_path):
    data = tmp_path / "detect_chain"

    def image(path: Path, backs: int) -> str:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
        label = Path(str(path).replace("/images/", "/labels/")).with_suffix(".txt")
        label.parent.mkdir(parents=True, exist_ok=True)
        label.write_text("0 0.5 0.5 0.1 0.1\n" + "1 0.5 0.5 0.2 0.3\n" * backs)
        return str(path)

    scene = image(data / "backs" / "train" / "images" / "backscene_29_000000.jpg", 3)
    image(data / "strips" / "backs" / "train" / "images" / "backscene_29_000000.jpg", 1)
    real = image(tmp_path / "real_labels" / "rf100" / "images" / "r.jpg", 0)
    table = image(data / "table" / "train" / "images" / "table_1000_000_full.jpg", 2)
    val = image(data / "general" / "val" / "images" / "scene_128_000000.jpg", 0)
    image(data / "strips" / "general" / "val" / "images" / "scene_128_000000.jpg", 0)
    (data / "train.txt").write_text("\n".join([scene, real, table]) + "\n")
    (data / "val.txt").write_text(val + "\n")
    monkeypatch.setattr(chain, "DATA", data)
    chain.write_strip_lists()
    assert (data / "strip-train.txt").read_text().split() == [scene.replace("/detect_chain/", "/detect_chain/strips/"), real, table]
    assert (data / "strip-val.txt").read_text().split() == [val.replace("/detect_chain/", "/detect_chain/strips/")]
    assert json.loads((data / "strip-tune.txt").read_text()) == {"train": 3, "relabelled_train": 1,
                                                                 "back_labels_before": 3, "back_labels_after": 1}
    # a relabelled scene missing is an error, not a list that trains on the old labels
    (data / "strips" / "backs" / "train" / "images" / "backscene_29_000000.jpg").unlink()
    with pytest.raises(SystemExit, match="not there"):
        chain.write_strip_lists()


def test_whole_face_up_cards_are_boxed_only_when_asked_and_the_image_is_the_same(small_deck):
    code = next(iter(small_deck.faces))
    face = small_deck.faces[code]
    placements = [synth.Placement(face.image, face, (100.0, 160.0), 60.0, 0.0),
                  synth.Placement(face.image, face, (220.0, 160.0), 60.0, 0.0),
                  synth.Placement(small_deck.back, None, (220.0 + 60.0 * 0.3, 160.0), 60.0, 0.0)]  # hides 70 % of the second
    plain, labels = synth.render_scene(np.random.default_rng(5), [small_deck], [small_deck.back], size=320,
                                       placements=placements, tilt=np.eye(3), hands=0)
    same, with_cards = synth.render_scene(np.random.default_rng(5), [small_deck], [small_deck.back], size=320,
                                          placements=placements, tilt=np.eye(3), hands=0, card_class=True)
    assert (plain == same).all() and synth.CARD_CLASS not in [label[0] for label in labels]
    cards = [label for label in with_cards if label[0] == synth.CARD_CLASS]
    assert len(cards) == 1 and 60 <= cards[0][1] <= 75          # the whole first card, not the covered one
    assert [label for label in with_cards if label[0] != synth.CARD_CLASS] == labels


def test_the_card_ending_leaves_out_images_that_box_no_whole_card(monkeypatch, tmp_path):
    from vision_models.data import real_labels

    data, real = tmp_path / "detect_chain", tmp_path / "real_labels"

    def image(path: Path) -> str:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
        label = Path(str(path).replace("/images/", "/labels/")).with_suffix(".txt")
        label.parent.mkdir(parents=True, exist_ok=True)
        label.write_text("2 0.5 0.5 0.2 0.3\n")
        return str(path)

    scene = image(data / "general" / "train" / "images" / "scene_28_000000.jpg")
    image(data / "cards" / "general" / "train" / "images" / "scene_28_000000.jpg")
    photo = str(real / "rf100-train" / "images" / "real_rf100-train_a.jpg")
    image(data / "cards" / "real" / "rf100-train" / "images" / "real_rf100-train_a.jpg")
    counter = str(data / "cardcounterml" / "train" / "images" / "real_x.jpg")
    table = str(data / "table" / "train" / "images" / "table_1000_000_full.jpg")
    (data / "train.txt").write_text("\n".join([scene, photo, counter, table]) + "\n")
    (data / "val.txt").write_text("")
    monkeypatch.setattr(chain, "DATA", data)
    monkeypatch.setattr(real_labels, "OUT", real)
    chain.write_card_lists()
    assert (data / "card-train.txt").read_text().split() == [
        str(data / "cards" / "general" / "train" / "images" / "scene_28_000000.jpg"),
        str(data / "cards" / "real" / "rf100-train" / "images" / "real_rf100-train_a.jpg")]
    assert "2: card" in (data / "data_cards.yaml").read_text()
    assert json.loads((data / "card-tune.txt").read_text())["card_labels"] == 2


def test_var_is_linked_outside_the_work_tree_when_the_checkout_has_none(monkeypatch, tmp_path):
    checkout_var = tmp_path / "checkout" / "var"
    checkout_var.parent.mkdir()
    monkeypatch.setattr(chain, "VAR", checkout_var)
    monkeypatch.setenv("CARD_COMPANION_VAR", str(tmp_path / "kept"))
    chain.ensure_var()
    assert checkout_var.is_symlink() and checkout_var.resolve() == (tmp_path / "kept").resolve()
    chain.ensure_var()  # a second call leaves it as it is
    assert checkout_var.resolve() == (tmp_path / "kept").resolve()


# ----------------------------------------------------------------------------- the recovered detector


@pytest.mark.neural_extra
def test_the_shipped_detector_recovered_from_onnx_gives_the_same_outputs(tmp_path, monkeypatch):
    pytest.importorskip("ultralytics", reason="the train extra (CI installs it)")
    import torch
    from ultralytics import YOLO

    from companion.synthetic.recording import build_scenario, render_frames
    from vision_models.train import first_run, recover

    # ultralytics' config in this test's folder, not the checkout's var/ (where a training run beside the
    # tests keeps its own), and the environment as it was for the tests after this one in this process
    monkeypatch.setattr(first_run, "VAR", tmp_path / "var")
    for name in ("YOLO_OFFLINE", "YOLO_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    first_run.offline_environment()
    frames = [f.image for _, f in zip(range(4), render_frames(build_scenario("dungeon", 77)))]
    images = []
    for k, frame in enumerate(frames):
        import cv2

        path = tmp_path / f"frame{k}.jpg"
        cv2.imwrite(str(path), frame)
        images.append(path)
    out = tmp_path / "recovered.pt"
    report = recover.recover(recover.WEIGHTS / "detector.onnx", out, images)
    assert report["max_output_difference"] <= recover.MAX_OUTPUT_DIFFERENCE
    # ultralytics loads it as a detection model with the shipped classes, and it trains from it:
    # its batch norms carry real statistics, not the identity
    model = YOLO(str(out)).model
    assert model.names == {0: "index", 1: "back"}
    bn = model.model[0].bn
    assert not torch.allclose(bn.weight.float(), torch.ones_like(bn.weight.float()))
    batch = recover.calibration_batches(images[:2], 416)[0]
    assert recover.output_difference(model.float(), recover.WEIGHTS / "detector.onnx", [batch]) <= recover.MAX_OUTPUT_DIFFERENCE


def test_the_report_sets_each_source_shipped_beside_candidate(tmp_path):
    def figures(f1: float, missed: int) -> dict:
        return {"photos": 2, "cards": {"precision": 0.9, "recall": 0.8, "f1": f1},
                "backs": {"tp": 1, "fp": 0, "fn": 1, "precision": 1.0, "recall": 0.5},
                "errors": {"cards": 10, "missed_faces": missed, "phantom_faces": 1, "phantom_backs": 0}}

    path = tmp_path / "check.json"
    path.write_text(json.dumps({"shipped": {"kentdoan-play": figures(0.5, 4), "rf100-test": figures(0.6, 3)},
                                "candidate": {"kentdoan-play": figures(0.75, 1), "rf100-test": figures(0.7, 2)}}))
    rows = chain.report(path).splitlines()
    assert rows[0].startswith("| source | deck trained on |") and len(rows) == 4
    assert rows[2].startswith("| kentdoan-play | no | 10 | 0.500 | **0.750** |") and "4 → 1" in rows[2]
    assert rows[3].startswith("| rf100-test | yes |")


def test_a_resumed_chain_finds_its_dataset_from_another_checkout(monkeypatch, tmp_path):
    import torch

    data, run = tmp_path / "here" / "var" / "data" / "detect_chain", tmp_path / "here" / "var" / "runs" / "detector_chain"
    data.mkdir(parents=True)
    (run / "weights").mkdir(parents=True)
    gone = "/work/gone-checkout/var/data/detect_chain"
    (data / "data.yaml").write_text(f"path: {gone}\ntrain: {gone}/train.txt\nval: {gone}/val.txt\nnames:\n  0: index\n  1: back\n")
    (data / "train.txt").write_text(f"{gone}/general/train/images/a.jpg\n{gone}/backs/train/images/b.jpg\n")
    checkpoint = run / "weights" / "last.pt"
    torch.save({"train_args": {"data": f"{gone}/data.yaml", "project": "/work/gone-checkout/var/runs"}, "epoch": 7}, checkpoint)
    monkeypatch.setattr(chain, "DATA", data)
    monkeypatch.setattr(chain, "RUN", run)
    chain.rebase(checkpoint)
    assert f"train: {data}/train.txt" in (data / "data.yaml").read_text()
    assert (data / "train.txt").read_text().splitlines() == [f"{data}/general/train/images/a.jpg", f"{data}/backs/train/images/b.jpg"]
    saved = torch.load(checkpoint, weights_only=False)
    assert saved["train_args"]["data"] == str(data / "data.yaml") and saved["epoch"] == 7
    chain.rebase(checkpoint)   # a second time changes nothing
    assert (data / "train.txt").read_text().splitlines()[0] == f"{data}/general/train/images/a.jpg"


def test_ship_refuses_a_candidate_the_chain_has_not_checked(monkeypatch):
    monkeypatch.setattr(chain, "table_check_done", lambda: False)
    with pytest.raises(SystemExit, match="not checked candidate-table"):
        chain.ship(chain.TABLE_CANDIDATE)
    with pytest.raises(SystemExit):
        chain.main(["ship", "--candidate", "somewhere-else"])


def test_the_live_check_counts_a_recording_reached_by_the_exit_status_of_table_run(monkeypatch, tmp_path):
    """`companion table run --check-truth` exits 0 only when the final state matches; its printed verdict
    is translated (a Chinese locale prints it in Chinese), so the count must not read it."""
    calls = []

    def run(command, **options):
        calls.append((command, options.get("env", {}).get("COMPANION_WEIGHTS")))
        if command[3:5] == ["demo", "render"]:
            out = Path(command[command.index("--out") + 1])
            out.mkdir(parents=True)
            (out / "truth.json").write_text("{}")
        reached = options.get("env", {}).get("COMPANION_WEIGHTS") == "good" or "chosen-41" not in " ".join(command)
        return subprocess.CompletedProcess(command, 0 if reached else 1, stdout=b"\xe7\x9c\x9f", stderr=b"")

    monkeypatch.setattr(chain, "CHAIN", tmp_path)
    monkeypatch.setattr(chain, "LIVE_CHECK_SEEDS", {"dungeon": (41,), "chosen": (41,)})
    monkeypatch.setattr(chain.subprocess, "run", run)
    result = chain.live_check({"good": Path("good"), "poor": Path("poor")}, tmp_path / "live.json")
    assert result == {"good": {"reached": 2, "of": 2, "failed": []}, "poor": {"reached": 1, "of": 2, "failed": ["chosen-41"]}}
    assert json.loads((tmp_path / "live.json").read_text()) == result
    assert sum(1 for command, _ in calls if command[3:5] == ["demo", "render"]) == 2   # each recording rendered once
