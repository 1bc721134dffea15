"""Detector training images of whole tables, labelled from the recording renderer."""

from vision_models.data import table_scenes


def test_yolo_lines_keep_boxes_mostly_inside_the_window_and_normalise_them():
    boxes = [(0, [10.0, 10.0, 20.0, 30.0]), (1, [90.0, 0.0, 130.0, 40.0]), (0, [95.0, 50.0, 105.0, 70.0])]
    lines = table_scenes.yolo_lines(boxes, 0, 0, 100, 100)
    # the back is 25 % inside (left out); the last index is half inside: under KEEP_FRACTION, left out
    assert lines == ["0 0.150000 0.200000 0.100000 0.200000"]
    shifted = table_scenes.yolo_lines(boxes, 50, 0, 100, 100)
    assert [line.split()[0] for line in shifted] == ["1", "0"]


def test_frame_boxes_label_indices_of_face_up_cards_and_whole_backs():
    cards = [{"code": "7D", "box": [0, 0, 10, 14], "indices": [{"box": [0, 0, 2, 3], "up_degrees": 0.0},
                                                              {"box": [8, 11, 10, 14], "up_degrees": 180.0}]},
             {"code": "BACK", "box": [20, 0, 30, 14], "indices": []}]
    assert table_scenes.frame_boxes(cards) == [(0, [0, 0, 2, 3]), (0, [8, 11, 10, 14]), (1, [20, 0, 30, 14])]


def test_a_rendered_scene_writes_images_with_matching_labels(tmp_path, monkeypatch):
    monkeypatch.setattr(table_scenes, "TABLE_DIR", tmp_path / "not_here")
    monkeypatch.setattr(table_scenes, "FRAME_SIZES", ((480, 360),))
    monkeypatch.setattr(table_scenes, "WINDOW", 200)
    monkeypatch.setattr(table_scenes, "FRAMES_PER_SCENE", 3)
    # a root named in the job (the GPU run renders into its own work folder) makes its own folders
    assert table_scenes.render_scene((1001, "train", str(tmp_path))) == 6      # each frame: whole + one window
    assert not (tmp_path / "not_here").exists()
    images = sorted(p.stem for p in (tmp_path / "train" / "images").glob("*.jpg"))
    labels = sorted(p.stem for p in (tmp_path / "train" / "labels").glob("*.txt"))
    assert images == labels and sum("window" in s for s in images) == 3
    rows = [line.split() for p in (tmp_path / "train" / "labels").glob("*full.txt") for line in p.read_text().split("\n") if line]
    assert rows and all(r[0] in ("0", "1") and all(0 <= float(v) <= 1 for v in r[1:]) for r in rows)


def test_index_crops_turn_every_index_upright():
    import random

    import numpy as np

    from companion.synthetic.deck import index_boxes, render_card

    card = render_card("5H", 250, 350)
    frame = np.full((450, 350, 3), 90, np.uint8)
    frame[50:400, 50:300] = card
    top_left, bottom_right = ([v + 50 for v in box] for box in index_boxes("5H", 250, 350))
    upright = {"code": "5H", "indices": [{"box": top_left, "up_degrees": 2.0}, {"box": bottom_right, "up_degrees": 178.0}]}
    read = list(table_scenes.index_crops(frame, [upright], random.Random(0), jitter=0.0))
    assert [code for code, _ in read] == ["5H", "5H"]
    crops = [crop for _, crop in read]
    # the bottom-right index, turned half a turn, reads like the top-left one; unturned it would not
    same = np.abs(crops[0].astype(int) - crops[1].astype(int)).mean()
    unturned = np.abs(crops[0].astype(int) - np.rot90(crops[1], 2).astype(int)).mean()
    assert same < unturned / 4
