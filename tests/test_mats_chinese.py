"""The printed mats in Chinese: the PDF opens, holds the seeds' zone names and shows them where the zones are.

Rendered to PNG by poppler's ``pdftoppm`` (``scripts/setup.sh --dev`` installs it with a Chinese font;
a missing one fails here rather than skipping). Each zone's label is looked for as ink around the zone's
centre, against the same mat drawn with every label blank: the difference is the label and nothing else
(the outlines, markers and alignment crosses are the same in both).
"""
import dataclasses
import pathlib
import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

from calibration.layouts import layout_for, layout_from_dict
from calibration.mats import sheet_plan, write_mat_pdf, zone_label
from companion.cli import main
from companion.i18n import translator
from companion.messages import Message

DPI = 100
PAPER = "A3"
# Around a zone's centre: the label's extent (a 9 pt label of up to ~9 Chinese characters is ~30 mm
# long and ~3 mm tall), along the way it reads.
HALF_ALONG_MM, HALF_ACROSS_MM = 16.0, 5.0
# Dark pixels a label adds at 100 dpi: the shortest (地城, two 9 pt characters) adds 324, the others
# 450-1300 (measured with this test's boxes); half the shortest is a label, an outline's stray pixel is not.
MIN_LABEL_INK = 160


def tool(name):
    found = shutil.which(name)
    if not found:
        raise RuntimeError(f"no {name}: the mat tests need poppler-utils (bash scripts/setup.sh --dev installs it)")
    return found


def pages_as_arrays(pdf: pathlib.Path, out: pathlib.Path) -> list[np.ndarray]:
    subprocess.run([tool("pdftoppm"), "-r", str(DPI), "-gray", "-png", str(pdf), str(out / pdf.stem)], check=True)
    return [np.asarray(Image.open(path)) for path in sorted(out.glob(f"{pdf.stem}-*.png"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))]


def blank_labels(layout):
    """The same mat with no zone label and no title: what every label's box holds without its words."""
    return dataclasses.replace(layout, title="", zones=tuple(dataclasses.replace(z, label=" ") for z in layout.zones))


def label_box(layout, zone, page, offset):
    """The pixel box of a zone's label on one sheet, or None when the sheet does not show all of it."""
    cx, cy = zone.centroid()
    along_x = round(zone.facing / 90.0) % 2 == 0
    hx, hy = (HALF_ALONG_MM, HALF_ACROSS_MM) if along_x else (HALF_ACROSS_MM, HALF_ALONG_MM)
    x1, y1, x2, y2 = cx - hx - offset[0], cy - hy - offset[1], cx + hx - offset[0], cy + hy - offset[1]
    if x1 < 0 or y1 < 0 or x2 > page[0] or y2 > page[1]:
        return None
    scale = DPI / 25.4
    return int(x1 * scale), int(y1 * scale), int(x2 * scale), int(y2 * scale)


def ink(image, box):
    x1, y1, x2, y2 = box
    return int((image[y1:y2, x1:x2] < 128).sum())


@pytest.mark.parametrize("game, players", [("dungeon", 3), ("chosen", 4), ("kingdoms", None)])
def test_the_chinese_mat_shows_each_zone_name_where_the_zone_is(tmp_path, game, players, capsys):
    layout = layout_for(game, players)
    chinese = tmp_path / "chinese.pdf"
    argv = ["--language", "zh-Hans", "mat", "--game", game, "--paper", PAPER, "--out", str(chinese)]
    assert main(argv + (["--players", str(players)] if players else [])) == 0
    assert "原尺寸" in capsys.readouterr().out    # the command line answers in Chinese too
    blank = tmp_path / "blank.pdf"
    write_mat_pdf(blank_labels(layout), blank, PAPER, language="zh-Hans")
    drawn, empty = pages_as_arrays(chinese, tmp_path), pages_as_arrays(blank, tmp_path)
    page, offsets = sheet_plan(layout, PAPER)
    assert len(drawn) == len(empty) == len(offsets)

    words = translator("zh-Hans")
    for zone in layout.zones:
        label = zone_label(zone)
        assert isinstance(label, Message), f"{zone.name}: the shipped label {zone.label!r} is not a catalogue message"
        assert words.render(label) != zone.label, f"{zone.name}: {zone.label!r} has no Chinese"
        seen = [ink(drawn[i], box) - ink(empty[i], box) for i, offset in enumerate(offsets)
                if (box := label_box(layout, zone, page, offset))]
        assert seen, f"{zone.name}: no sheet shows the whole label"
        assert max(seen) >= MIN_LABEL_INK, f"{zone.name}: no ink where its label {words.render(label)!r} should be ({seen})"

    # the words themselves are the seeds' terms, in a Chinese font the PDF names
    text = subprocess.run([tool("pdftotext"), str(chinese), "-"], capture_output=True, text=True, check=True).stdout
    fonts = subprocess.run([tool("pdffonts"), str(chinese)], capture_output=True, text=True, check=True).stdout
    assert "STSong-Light" in fonts
    expected = {"dungeon": ["地城", "放逐区", "战场", "P1 休息区", "P3 仓库：战利品", "P2 派出的牌", "倍化标记", "工会与地城"],
                "chosen": ["避难所", "第一步区", "第二步区", "出发区", "P4 净水芯片", "获选者"],
                "kingdoms": ["王国", "桌面"]}[game]
    for term in expected:
        assert term in text.replace("\n", " "), f"{term!r} is not in the Chinese {game} mat"
    assert "rest area" not in text and "VAULT" not in text


def test_the_english_mat_keeps_its_english_words_and_a_layouts_own_labels_are_drawn_as_written(tmp_path):
    english = tmp_path / "english.pdf"
    write_mat_pdf(layout_for("chosen", 3), english, PAPER)
    text = subprocess.run([tool("pdftotext"), str(english), "-"], capture_output=True, text=True, check=True).stdout
    assert "VAULT" in text and "P1 chips" in text and "避难所" not in text
    # a table's own layout: its labels are its own words in either language, Chinese ones included
    own = layout_from_dict({"name": "mine", "game": "dungeon", "players": 2, "size_mm": [300, 200], "title": "我们的桌子",
                            "markers": {"size_mm": 30, "items": [{"id": 1, "x": 5, "y": 5}]},
                            "zones": [{"name": "pile", "label": "牌堆", "rect": [100, 50, 180, 150], "role": "dungeon"},
                                      {"name": "coin", "label": "coin", "shape": "circle", "center": [240, 60], "radius": 20}]})
    for language in ("en", "zh-Hans"):
        out = tmp_path / f"own-{language}.pdf"
        write_mat_pdf(own, out, "A4", language=language)
        text = subprocess.run([tool("pdftotext"), str(out), "-"], capture_output=True, text=True, check=True).stdout
        assert "牌堆" in text and "coin" in text and "我们的桌子" in text
        image = pages_as_arrays(out, tmp_path)[0]
        page, offsets = sheet_plan(own, "A4")
        box = label_box(own, own.zone("pile"), page, offsets[0])
        blank = tmp_path / f"blank-{language}.pdf"
        write_mat_pdf(blank_labels(own), blank, "A4", language=language)
        assert ink(image, box) - ink(pages_as_arrays(blank, tmp_path)[0], box) >= MIN_LABEL_INK
