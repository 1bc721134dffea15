"""The command line in Chinese beyond ``--help``: every command's text output (what it prints when it works,
and its common errors) with ``--language zh-Hans`` has no English word left, as tests/test_cli_chinese.py
checks for help. What may stay in Latin letters: what a user types or a program reads (commands, flags,
choices such as game and strategy names, file names and paths, JSON keys and snippets, `quoted` text),
card codes, players' names, and the proper names tests/test_cli_chinese.py allows.

Each command runs for real on small inputs (a few of kentdoan's card photos, the shipped scenarios, a short
recording), so what is checked is what a player reads.
"""
from __future__ import annotations

import json
import re
import shutil

import pytest

from companion import i18n
from companion.cli import main as companion_cli
from conftest import GOLDEN_KINGDOMS, ROOT, SHARED
from test_cli_chinese import FILE_KEYS, PROPER_NAMES, TYPED_ANYWHERE

KENTDOAN = SHARED / "datasets" / "real" / "decks" / "kentdoan"
SCENARIOS = ROOT / "docs" / "scenarios"
# Typed words a command's output repeats: game names, strategies, rule sets, the players the examples use.
# Event types a referee types, where a message names them ("negotiate who takes it (assign), or contest it (commit)").
TYPED_WORDS = {"kingdoms", "dungeon", "chosen", "cautious", "greedy", "none", "Ann", "Bob", "Cid", "Cy", "Dee", "MB", "PDF",
               "assign", "commit",
               "poker", "knizia"}   # Kingdoms' rule sets, as --rules names them ("poker 规则")
# The games' event types, as a refused event is named ("第 5 个事件（chip）")
EVENT_TYPES = {"chip", "send", "play", "end_turn", "reveal", "set_hand_size", "place", "remove", "replace", "turn_down", "score_round",
               "set_turn", "choose_guild", "commit", "pass", "resolve", "trap_call", "trap_draw"}
# An example command line inside a message: what the user types
COMMAND_LINE = re.compile(r"\bcompanion(?: [a-z][a-z-]*)+")
CARD = re.compile(r"\b(?:10|[2-9AJQK])[SHDC]\b|\b(?:SJ|BJ|BACK)\b")
# In a command's output a snake_case word outside quotes or {…} is a raw key a reader should have been told in
# words ("fights_per_game: 11.05"): it is a word to check, whole, and passes only when allowed by name.
TYPED_IN_OUTPUT = re.compile(TYPED_ANYWHERE)
WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[A-Za-z]{2,}")


def english_in_output(text: str, allowed: set[str]) -> list[str]:
    """The lines of ``text`` that hold an English word beyond card codes and what a user types."""
    left = []
    for line in text.splitlines():
        # paths first: a card code inside one (…/7H.jpg) must not split it
        rest = CARD.sub(" ", TYPED_IN_OUTPUT.sub(" ", COMMAND_LINE.sub(" ", line)))
        words = [w for w in WORD.findall(rest) if w not in allowed]
        if words:
            left.append(f"{words}: {line.strip()[:140]}")
    return left


def output_of(capsys, *argv: str) -> str:
    """What ``companion --language zh-Hans ARGV`` prints (stdout and stderr)."""
    capsys.readouterr()
    try:
        companion_cli(["--language", "zh-Hans", *argv])
    except SystemExit:
        pass
    printed = capsys.readouterr()
    i18n.use("en")
    return printed.out + printed.err


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inputs")
    cards = folder / "cards"
    cards.mkdir()
    for code in ("4S", "7H", "QS"):
        shutil.copyfile(KENTDOAN / "cards" / f"{code}.jpg", cards / f"{code}.jpg")
    (folder / "broken.jpg").write_bytes(b"not a photo\n")
    with_a_broken_card = folder / "cards-one-broken"
    shutil.copytree(cards, with_a_broken_card)
    (with_a_broken_card / "7H.jpg").write_bytes(b"half a photo")
    # a board to score, as tests/test_kingdoms_cli.py writes it from the worked example
    example = json.loads((ROOT / "tests" / "kingdoms_boards" / "seed_example.json").read_text())
    (folder / "board.json").write_text(json.dumps({"players": example["players"], "board": example["board_face_up"]}))
    (folder / "cut.json").write_text('{"players": {"black": ["S", "C"], "red": ["H", "D"]}, "board": [["AH" "2H"]]}')
    return folder


def commands(inputs, tmp):
    """Each command's text output worth reading, as (what, argv)."""
    data = str(tmp / "data")
    play = str(KENTDOAN / "play" / "Cards_6.jpg")
    chosen = sorted((SCENARIOS / "chosen").glob("*.json"))
    dungeon = sorted((SCENARIOS / "dungeon").glob("*.json"))
    yield "deck list, none yet", ["deck", "list", "--data", data]
    yield "deck learn, a broken image in the folder", ["deck", "learn", "--name", "家里的牌", str(inputs / "cards-one-broken"),
                                                       "--data", data]
    yield "deck learn, a photo of part of a deck", ["deck", "learn", "--name", "桌上的牌", "--parts", play, "--data", data]
    yield "deck learn, a partial folder", ["deck", "learn", "--name", "家里的牌", str(inputs / "cards"), "--data", data]
    yield "deck learn, the name in use", ["deck", "learn", "--name", "家里的牌", str(inputs / "cards"), "--data", data]
    yield "deck list", ["deck", "list", "--data", data]
    yield "deck show", ["deck", "show", "家里的牌", "--data", data]
    yield "detect with the deck", ["detect", "--deck", "家里的牌", "--data", data, play]
    yield "detect, no such deck", ["detect", "--deck", "别的牌", "--data", data, play]
    yield "detect, no image", ["detect", str(inputs / "broken.jpg")]
    yield "detect, no such file", ["detect", str(inputs / "nowhere.jpg")]
    (profile,) = (tmp / "data" / "decks").glob("*/prototypes.npz")
    profile.write_bytes(b"damaged since it was saved")
    yield "deck show, damaged", ["deck", "show", "家里的牌", "--data", data]
    yield "deck list, damaged", ["deck", "list", "--data", data]
    yield "deck remove", ["deck", "remove", "家里的牌", "--data", data]
    yield "simulate dungeon", ["simulate", "dungeon", "--games", "20", "--processes", "1", "--format", "text"]
    yield "simulate chosen", ["simulate", "chosen", "--games", "4", "--processes", "1", "--format", "text"]
    yield "simulate, no games", ["simulate", "dungeon", "--games", "0", "--format", "text"]
    for path in chosen[:3]:
        yield f"chosen replay {path.name}", ["chosen", "replay", str(path), "--format", "text"]
    for path in dungeon[:3]:
        yield f"dungeon replay {path.name}", ["dungeon", "replay", str(path), "--format", "text"]
    yield "chosen replay, no such file", ["chosen", "replay", str(inputs / "nowhere.json")]
    yield "dungeon replay, not JSON", ["dungeon", "replay", str(inputs / "cut.json")]
    yield "kingdoms replay", ["kingdoms", "replay", str(GOLDEN_KINGDOMS), "--format", "text"]
    yield "kingdoms replay, no such file", ["kingdoms", "replay", str(inputs / "nowhere.json")]
    yield "kingdoms score", ["kingdoms", "score", str(inputs / "board.json"), "--format", "text"]
    yield "kingdoms score, bad files", ["kingdoms", "score", str(inputs / "cut.json"), str(inputs / "nowhere.json"), str(inputs),
                                        "--format", "text"]
    yield "evaluate, no such folder", ["evaluate", str(inputs / "nowhere")]
    yield "evaluate, not a labelled folder", ["evaluate", str(inputs / "cards")]
    yield "mat", ["mat", "--game", "dungeon", "--players", "3", "--out", str(tmp / "mat.pdf")]
    yield "demo render", ["demo", "render", "--game", "kingdoms", "--out", str(tmp / "demo"), "--size", "320x240", "--fps", "2",
                          "--card-truth"]
    yield "table run on the demo", ["table", "run", "--game", "kingdoms", "--source", str(tmp / "demo"), "--detector", "truth",
                                    "--players", "Ann,Bob", "--max-frames", "40"]
    yield "table run, no source", ["table", "run", "--game", "kingdoms", "--source", str(tmp / "nowhere")]
    yield "table run, a setup not JSON", ["table", "run", "--game", "kingdoms", "--source", str(tmp / "demo"), "--setup",
                                          str(inputs / "cut.json")]


@pytest.mark.slow
def test_every_commands_text_output_is_chinese(inputs, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    allowed = PROPER_NAMES | FILE_KEYS | TYPED_WORDS | EVENT_TYPES
    problems = {}
    printed = {}
    for what, argv in commands(inputs, tmp_path):
        text = output_of(capsys, *argv)
        printed[what] = text
        assert text.strip(), f"{what}: printed nothing"
        found = english_in_output(text, allowed)
        if found:
            problems[what] = found
    assert problems == {}, json.dumps(problems, indent=1, ensure_ascii=False)
    assert printed["deck list"].startswith("家里的牌：3 张牌"), printed["deck list"]
    assert "没有 " in printed["deck learn, a partial folder"]
    assert "请补拍缺的牌" in printed["deck learn, a photo of part of a deck"]       # given --parts, not told to add it
    assert "--parts" not in printed["deck learn, a photo of part of a deck"]
    assert "错误" in printed["detect, no image"] and "无法读取的图片" in printed["detect, no image"]
    assert "战斗：" in printed["simulate dungeon"] and "全桌赢不了的战斗：" in printed["simulate dungeon"]
    assert "7H.jpg：无法读取的图片" in printed["deck learn, a broken image in the folder"]
    assert printed["deck show, damaged"].startswith("companion：错误：牌 '家里的牌' 已损坏：读不了 ")
    assert printed["deck list, damaged"].startswith(f"家里的牌：已损坏，读不了 {tmp_path / 'data' / 'decks'}")
    assert printed["kingdoms score, bad files"].splitlines() == [
        f"companion：错误：{inputs / 'cut.json'}：不是合法的 JSON（第 1 行第 71 个字符处缺少逗号）",
        f"companion：错误：{inputs / 'nowhere.json'}：没有这个文件",
        f"companion：错误：{inputs}：这是文件夹，不是文件"]
    assert printed["chosen replay, no such file"].strip() == f"companion：错误：{inputs / 'nowhere.json'}：没有这个文件"
    not_json = f"companion：错误：{inputs / 'cut.json'}：不是合法的 JSON（第 1 行第 71 个字符处缺少逗号）"
    assert printed["dungeon replay, not JSON"].strip() == not_json
    assert printed["table run, a setup not JSON"].strip() == not_json
    assert printed["evaluate, no such folder"].strip() == f"companion：错误：{inputs / 'nowhere'}：没有这个文件夹"
    assert printed["evaluate, not a labelled folder"].startswith(f"companion：错误：{inputs / 'cards' / 'data.yaml'}：没有这个文件（")


def test_the_output_checker_sees_english():
    allowed = PROPER_NAMES | FILE_KEYS | TYPED_WORDS
    assert english_in_output("fights_per_game: 11.05", allowed) == ["['fights_per_game']: fights_per_game: 11.05"]
    assert english_in_output('{"fights_per_game": 11.05}', allowed) == []     # JSON, as a program reads it
    assert english_in_output("第 5 个事件（end_turn）被拒绝", allowed | EVENT_TYPES) == []     # allowed by name
    assert english_in_output("end reasons: all_out 1", allowed) != []
    assert english_in_output("错误：a.jpg：not a readable image", allowed) != []
    assert english_in_output("家里的牌：52 张牌，从 card photos 学会", allowed) != []
    assert english_in_output("黑桃4 (4S) 在 a/b.jpg，`companion deck learn`", allowed) == []
