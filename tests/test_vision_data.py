"""The recognition model's training data: real split, index-box measurement, scenes, crops, class order.

Everything here runs without torch and without the rendered gnome artwork: scenes are drawn from the
project's own procedural deck, in memory, at small sizes.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

import cv2

from companion.cards import CLASS_NAMES
from vision_models.data import artwork, datasets, real_split, synth


# ----------------------------------------------------------------------------- real split

ROBOFLOW_NAMES = [
    "000534301_jpg.rf.320b706779db79dfcba99b9918aee459.jpg",
    "000534301_jpg.rf.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.jpg",
    "IMG_20230101_jpg.rf.0f7683195ef049ede7c85a564d98aa66.jpg",
    "photo-17_jpg.rf.1234.jpg",
]


def test_holdout_follows_the_published_formula():
    for name in ROBOFLOW_NAMES:
        stem = name.split("_jpg")[0]
        expected = int(hashlib.sha1(stem.encode()).hexdigest(), 16) % 4 == 0
        assert real_split.is_holdout(name) is expected


def test_copies_of_one_source_photo_fall_on_the_same_side():
    a, b = ROBOFLOW_NAMES[0], ROBOFLOW_NAMES[1]
    assert real_split.source_stem(a) == real_split.source_stem(b) == "000534301"
    assert real_split.is_holdout(a) == real_split.is_holdout(b)
    assert real_split.is_holdout("/some/folder/" + a) == real_split.is_holdout(a)


def test_holdout_is_about_a_quarter_of_many_names():
    names = [f"{i:09d}_jpg.rf.x.jpg" for i in range(2000)]
    share = sum(real_split.is_holdout(n) for n in names) / len(names)
    assert 0.21 < share < 0.29


@pytest.mark.skipif(not real_split.REAL_DATASET.is_dir(), reason="the cardcounterml dataset is not on this machine")
def test_real_split_is_disjoint_and_complete():
    train, held = real_split.split()
    assert set(train).isdisjoint(held)
    assert len(train) + len(held) == len(real_split.real_images())
    assert {real_split.source_stem(p.name) for p in train}.isdisjoint({real_split.source_stem(p.name) for p in held})
    assert not any(datasets.is_real_val(p.name) for p in held)


def test_polygon_labels_become_their_bounding_box(tmp_path):
    label = tmp_path / "x.txt"
    # class 54 is 'RED JOKER' in cardcounterml's order: our big (colour) joker
    label.write_text("54 0.1 0.2 0.3 0.2 0.3 0.6 0.1 0.6\n40 0.5 0.5 0.2 0.4\n")
    rows = real_split.read_labels(label)
    assert rows[0][0] == "BJ"
    assert rows[0][1:] == pytest.approx((0.2, 0.4, 0.2, 0.4))
    assert rows[1] == ("BACK", 0.5, 0.5, 0.2, 0.4)
    assert real_split.REAL_CODES[real_split.REAL_NAMES.index("BLACK JOKER")] == "SJ"


# ----------------------------------------------------------------------------- index boxes on artwork


def _drawn_card(width=240, height=336, with_index=True):
    card = np.zeros((height, width, 4), np.uint8)
    cv2.rectangle(card, (0, 0), (width - 1, height - 1), (255, 255, 255, 255), -1)
    cv2.rectangle(card, (0, 0), (width - 1, height - 1), (0, 0, 0, 255), 1)  # the outline must be ignored
    if with_index:
        cv2.putText(card, "K", (14, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0, 255), 3)
        cv2.circle(card, (27, 60), 9, (0, 0, 200, 255), -1)  # the suit under the rank
    cv2.circle(card, (120, 168), 40, (0, 0, 200, 255), -1)  # a big centre pip: not part of the index
    return card


def test_corner_index_box_covers_rank_and_suit_only():
    card = _drawn_card()
    index_ink = np.any(card[:, :, :3] != _drawn_card(with_index=False)[:, :, :3], axis=2)
    ys, xs = np.nonzero(index_ink)
    expected = (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)
    box = artwork.corner_index_box(card)
    assert box is not None
    assert np.abs(np.array(box) - np.array(expected)).max() <= 1


def test_corner_index_box_is_none_on_a_blank_card():
    card = _drawn_card()
    card[2:-2, 2:-2, :3] = 255
    assert artwork.corner_index_box(card) is None


# ----------------------------------------------------------------------------- scenes


@pytest.fixture(scope="module")
def small_deck():
    return synth.procedural_deck(0, width=80)


def test_scene_is_a_pure_function_of_the_seed(small_deck):
    first = synth.render_scene(np.random.default_rng([7, 3]), [small_deck], [small_deck.back], size=160)
    again = synth.render_scene(np.random.default_rng([7, 3]), [small_deck], [small_deck.back], size=160)
    other = synth.render_scene(np.random.default_rng([7, 4]), [small_deck], [small_deck.back], size=160)
    assert np.array_equal(first[0], again[0]) and first[1] == again[1]
    assert not np.array_equal(first[0], other[0])


def test_scene_labels_lie_inside_the_image(small_deck):
    size, seen_classes, total = 160, set(), 0
    for i in range(12):
        image, labels = synth.render_scene(np.random.default_rng([1, i]), [small_deck], [small_deck.back], size=size)
        assert image.shape == (size, size, 3) and image.dtype == np.uint8
        for cls, x1, y1, x2, y2 in labels:
            assert cls in (synth.INDEX_CLASS, synth.BACK_CLASS)
            assert 0 <= x1 < x2 <= size and 0 <= y1 < y2 <= size
            seen_classes.add(cls)
            total += 1
        for line in synth.yolo_lines(labels, size, size):
            cls, *values = line.split()
            assert all(0.0 <= float(v) <= 1.0 for v in values)
    assert total > 0 and synth.INDEX_CLASS in seen_classes


def test_a_fully_covered_index_gets_no_label(small_deck):
    face = small_deck.faces["7H"]
    size = 200
    base = synth.Placement(face.image, face, (100, 100), 80, 0.0)
    cover = synth.Placement(small_deck.back, None, (100, 100), 110, 0.0)  # a bigger card right on top
    labels = _labels_for([base, cover], size)
    assert [c for c, *_ in labels] == [synth.BACK_CLASS]
    labels = _labels_for([base], size)
    assert [c for c, *_ in labels] == [synth.INDEX_CLASS, synth.INDEX_CLASS]


def _labels_for(placements, size):
    return synth.render_scene(np.random.default_rng(0), [], [], size, placements=placements, tilt=np.eye(3), hands=0)[1]


def test_cards_are_rotated_never_mirrored():
    rng = np.random.default_rng(5)
    for _ in range(200):
        matrix = synth.camera_tilt(rng, 416, 0.12) @ synth.card_homography(100, 140, (200, 200), rng.uniform(20, 200), rng.uniform(0, 360), rng)
        quad = synth.apply_homography(matrix, np.array([[0, 0], [100, 0], [100, 140], [0, 140]], np.float32))
        x, y = quad[:, 0], quad[:, 1]
        signed_area = 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
        assert signed_area > 0  # same winding as the card: a mirror would flip the sign


# ----------------------------------------------------------------------------- crops and classes


def test_crop_box_expands_by_ten_percent_and_stretches():
    image = np.zeros((200, 300, 3), np.uint8)
    image[50:150, 100:140] = 255  # a tall 40x100 box
    crop = synth.crop_box(image, (100, 50, 140, 150))
    assert crop.shape == (synth.CROP_SIZE, synth.CROP_SIZE, 3)
    margin = synth.CROP_SIZE * synth.CROP_EXPAND / (1 + 2 * synth.CROP_EXPAND)  # about 5.3 px each side
    inner = int(np.ceil(margin)) + 1
    assert crop[inner:-inner, inner:-inner].min() > 200
    assert crop[: int(margin) - 1].max() < 50 and crop[:, : int(margin) - 1].max() < 50


def test_index_crops_are_deterministic_and_sized(small_deck):
    face = small_deck.faces["QS"]
    crops = []
    for _ in range(2):
        rng = np.random.default_rng([3, 1])
        crops.append(synth.render_index_crop(rng, face, 1, synth.table_texture(rng, 160, 160)))
    assert crops[0].shape == (synth.CROP_SIZE, synth.CROP_SIZE, 3)
    assert np.array_equal(crops[0], crops[1])
    rng = np.random.default_rng(9)
    none = synth.render_none_crop(rng, [small_deck], synth.table_texture(rng, 160, 160))
    assert none.shape == (synth.CROP_SIZE, synth.CROP_SIZE, 3)


def test_classifier_class_order_survives_alphabetical_folder_sorting():
    assert datasets.CLASSIFIER_CLASSES == tuple(CLASS_NAMES[:54]) + ("NONE",)
    folders = [datasets.class_folder(i) for i in range(len(datasets.CLASSIFIER_CLASSES))]
    assert sorted(folders) == folders  # ultralytics (ImageFolder) sorts class folders by name
    assert [f.split("_", 1)[1] for f in folders] == list(datasets.CLASSIFIER_CLASSES)


def test_holdout_decks_are_rendered_decks_and_disjoint_from_training():
    deck_dirs = [Path(name) for name in ("anglo", "lattmann", "plastic", "tango")]
    train, held = datasets.deck_split(deck_dirs)
    assert {d.name for d in held} == {"lattmann", "plastic"}
    assert set(train).isdisjoint(held)


MODELS_JSON = Path(__file__).resolve().parent.parent / "vision_models" / "weights" / "models.json"


def test_models_json_follows_the_contract():
    models = json.loads(MODELS_JSON.read_text())
    assert models["detector"]["classes"] == ["index", "back"]
    # run at the scale it learned: 640 on a 416-trained detector lost half the real cards
    assert models["detector"]["imgsz"] == models["detector"]["train_imgsz"] == 416
    assert models["classifier"]["classes"] == list(CLASS_NAMES[:54]) + ["NONE"]
    assert models["classifier"]["imgsz"] == 64 and models["classifier"]["crop_expand"] == 0.10
    assert models["classifier"]["normalize"] == "rgb/255"
    for stage in ("detector", "classifier"):
        assert (MODELS_JSON.parent / models[stage]["file"]).is_file()
    assert isinstance(models["training"]["seed"], int) and models["training"]["command"]


def test_the_one_reproduction_command_chains_steps_the_parsers_accept():
    from vision_models.train import continue_detector, finetune_classifier, gpu_continue, first_run as train
    from vision_models import reproduce
    from vision_models.data import table_scenes

    parsers = {"vision_models.train.first_run": train.build_parser(), "vision_models.train.continue_detector": continue_detector.build_parser(),
               "vision_models.train.gpu_continue": gpu_continue.build_parser(),
               "vision_models.train.finetune_classifier": finetune_classifier.build_parser(),
               "vision_models.data.table_scenes": table_scenes.build_parser()}
    runs, latest, classifier = {"detector_main", "classifier_main"}, None, None
    for module, *argv in reproduce.STEPS:
        args = parsers[module].parse_args(argv)
        if module == "vision_models.train.continue_detector":
            assert args.source in runs, f"{args.name} continues {args.source}, which no earlier step made"
            assert args.epochs > 0, "reproduction steps are bounded by epochs, not hours"
            runs.add(args.name)
            latest = args.name
        elif module == "vision_models.train.gpu_continue" and args.verb == "pack":
            assert args.source in runs, f"the GPU pack starts from {args.source}, which no earlier step made"
        elif module == "vision_models.train.gpu_continue":
            assert args.epochs > 0, "reproduction steps are bounded by epochs, not hours"
            assert Path(args.out).parent.as_posix() == "var/runs", "the GPU run lands where the export looks for runs"
            latest = Path(args.out).name
            runs.add(latest)
        elif module == "vision_models.data.table_scenes":
            assert not args.crops, "the classifier's crops are finetune_classifier's own step"
        elif module == "vision_models.train.finetune_classifier":
            assert args.source in runs and args.epochs > 0
            classifier = args.name
            runs.add(classifier)
        else:
            assert args.seed == 0 and args.epochs_detector > 0 and args.epochs_classifier > 0
    first, last = reproduce.STEPS[0], reproduce.STEPS[-1]
    assert "--no-export" in first and last[last.index("--export-from") + 1] == latest
    assert last[last.index("--export-classifier-from") + 1] == classifier


def test_the_reproduction_ships_the_detector_run_that_models_json_names():
    from vision_models import reproduce

    models = json.loads(MODELS_JSON.read_text())
    last = reproduce.STEPS[-1]
    assert last[last.index("--export-from") + 1] == models["training"]["detector_run"]
    assert last[last.index("--export-classifier-from") + 1] == models["training"]["classifier_run"]


# ----------------------------------------------------------------------------- the borrowed-GPU run


def test_the_gpu_run_repeats_real_photos_under_new_names_with_their_labels(tmp_path):
    from vision_models.train import gpu_continue

    real = tmp_path / "real"
    for folder in ("images", "labels"):
        (real / folder).mkdir(parents=True)
    for stem in ("real_a", "real_b"):
        (real / "images" / f"{stem}.webp").write_bytes(b"image " + stem.encode())
        (real / "labels" / f"{stem}.txt").write_text(f"0 0.5 0.5 0.1 0.1  # {stem}\n")
    dirs = gpu_continue._repeated_real(real, tmp_path / "work", 3)
    assert len(dirs) == 3
    images = [image for d in dirs for image in sorted(d.iterdir())]
    assert len({image.name for image in images}) == 6, "ultralytics keys its cache by path: every copy needs its own name"
    for image in images:  # ultralytics finds a label by swapping /images/ for /labels/ and the suffix for .txt
        label = image.parent.parent / "labels" / (image.stem + ".txt")
        assert label.read_text().endswith(image.stem.split("_", 1)[1] + "\n") and image.read_bytes().startswith(b"image")


def test_a_turned_repeat_turns_each_photo_and_its_boxes_half_a_turn(tmp_path):
    import cv2

    from vision_models.train import gpu_continue

    real = tmp_path / "real"
    for folder in ("images", "labels"):
        (real / folder).mkdir(parents=True)
    photo = np.zeros((40, 60, 3), np.uint8)
    photo[2:10, 5:20] = 255                                   # a bright box near the top left
    cv2.imwrite(str(real / "images" / "real_a.png"), photo)
    (real / "labels" / "real_a.txt").write_text("1 0.208333 0.150000 0.250000 0.200000\n")
    plain, turned = gpu_continue._repeated_real(real, tmp_path / "work", 2, turned=True)
    [image] = list(turned.iterdir())
    seen = cv2.imread(str(image))
    assert np.array_equal(seen, cv2.rotate(photo, cv2.ROTATE_180))
    cls, x, y, w, h = (image.parent.parent / "labels" / f"{image.stem}.txt").read_text().split()
    assert cls == "1" and (float(w), float(h)) == (0.25, 0.2)
    # the box now lies near the bottom right, where the bright pixels went
    x1, y1 = round((float(x) - float(w) / 2) * 60), round((float(y) - float(h) / 2) * 40)
    assert (x1, y1) == (40, 30) and seen[y1 + 1, x1 + 1].max() == 255 and seen[y1 - 2, x1 - 2].max() == 0


def test_the_gpu_runs_results_reader_matches_ultralytics_own(tmp_path):
    pytest.importorskip("polars")
    trainer_module = pytest.importorskip("ultralytics.engine.trainer")
    from vision_models.train import gpu_continue

    csv_path = tmp_path / "results.csv"
    csv_path.write_text("epoch,time,metrics/mAP50(B),lr/pg0\n1,22.3,0.778,0.001\n2,31.3,0.839,0.00094\n")

    class Trainer:
        csv = csv_path

    ours = gpu_continue._results_without_polars(Trainer())
    assert ours == trainer_module.BaseTrainer.read_results_csv(Trainer())
    assert ours["metrics/mAP50(B)"] == [0.778, 0.839]
    Trainer.csv = tmp_path / "missing.csv"
    assert gpu_continue._results_without_polars(Trainer()) == {}


def test_a_mined_crop_takes_the_label_of_the_index_it_overlaps():
    from vision_models.train.finetune_classifier import label_for

    labelled = [("QS", (100, 100, 120, 140)), ("BACK", (300, 300, 360, 390)), ("7H", (10, 10, 30, 50))]
    assert label_for((101, 102, 121, 141), labelled) == "QS"
    assert label_for((12, 8, 31, 47), labelled) == "7H"
    assert label_for((110, 120, 130, 160), labelled) is None, "a box half off its index teaches nothing sure"
    assert label_for((302, 301, 358, 388), labelled) is None, "a back is no index"
    assert label_for((0, 0, 5, 5), []) is None
