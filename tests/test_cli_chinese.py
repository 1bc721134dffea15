"""The command line in Chinese: every command's ``--help`` (argparse's own headings and errors included)
has no English sentence left, and its errors and card names follow the language.

What ``--help`` may keep in Latin letters is what a user types or a program is called: the command
and sub-command names, option flags, metavars and choices, file names and paths, ``$VARIABLES``,
`quoted` and {"json": …} examples, command lines in the examples, snake_case names, codes with digits
(int8, 10H), and the few names below. Everything else is a word to translate.
"""
from __future__ import annotations

import argparse
import json
import re

import pytest

from companion import i18n
from companion.cli import build_parser, main as companion_cli

# Programs, libraries and formats by their own names; the example players; the JSON keys of a scenario
# or score file, as the file must spell them.
PROPER_NAMES = {"companion", "onnxruntime", "openvino", "Detector", "load", "Markdown", "SQLite", "PostgreSQL", "ChArUco",
                "JSON", "PDF", "JPEG", "PNG", "YOLO", "Linux", "localhost", "mypc", "local", "stderr", "sigma", "Ann", "Bob", "Cy",
                "en", "zh", "Hans"}   # the language codes, as --language takes them
FILE_KEYS = {"players", "options", "deal", "events", "expect", "setup", "null", "board", "black", "red", "error", "work"}
# What a user types or a program reads, wherever it appears: quoted and {"json": …} text, flags, $VARIABLES,
# paths and file names, ALL-CAPS names and metavars, codes with digits.
TYPED_ANYWHERE = (r"`[^`]*`|\{[^}]*\}|'[^']*'|\"[^\"]*\"|--?[\w-]+|\$\w+|\S*[/\\]\S*|\b[\w-]+(?:\.\w+)+\b|\b[A-Z][A-Z0-9_|x.]*\b"
                  r"|\b\w*\d\w*\b")
# snake_case names: in --help, destinations and JSON keys a user types (a command's output is stricter:
# tests/test_cli_output_chinese.py counts a raw key there as English).
SNAKE_CASE = r"\b\w+(?:_\w+)+\b"
TYPED = re.compile(f"{TYPED_ANYWHERE}|{SNAKE_CASE}")


def every_parser(parser, path=("companion",)):
    yield " ".join(path), parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from every_parser(sub, path + (name,))


def typed_words(parser) -> set[str]:
    """The names a user types to this parser: its sub-commands, destinations and choices."""
    words = set()
    for action in parser._actions:
        words.add(action.dest)
        for choice in action.choices or ():
            words.update({str(choice), *str(choice).split("-")})   # calibrate-lens
    return words


def english_in_help(text: str, allowed: set[str]) -> list[str]:
    body = text.split("\n\n", 1)[1] if "\n\n" in text else ""   # the usage block is flags and metavars
    left = []
    for line in body.splitlines():
        if re.match(r"\s+companion ", line):   # an example command line; what follows its # is prose
            line = line.split("#", 1)[1] if "#" in line else ""
        words = [w for w in re.findall(r"[A-Za-z]{2,}", TYPED.sub(" ", line)) if w not in allowed]
        if words:
            left.append(f"{words}: {line.strip()[:100]}")
    return left


def test_every_commands_help_is_chinese(monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")   # no wrapping: a wrapped word is not split in two
    i18n.use("zh-Hans")
    parsers = list(every_parser(build_parser()))
    assert len(parsers) > 20
    allowed = PROPER_NAMES | FILE_KEYS | {word for _, parser in parsers for word in typed_words(parser)}
    problems = {}
    for path, parser in parsers:
        text = parser.format_help()
        assert text.startswith("用法："), (path, text[:40])
        assert re.search(r"^(选项|位置参数):$", text, re.M), path   # argparse adds the colon
        found = english_in_help(text, allowed)
        if found:
            problems[path] = found
    assert problems == {}, json.dumps(problems, indent=1, ensure_ascii=False)


def test_the_checker_sees_english_in_help(monkeypatch):
    i18n.use("en")
    parser = build_parser()
    found = english_in_help(parser.format_help(), PROPER_NAMES | FILE_KEYS | typed_words(parser))
    assert any("show this help message and exit" in line for line in found)
    assert any("language of messages" in line for line in found)


def test_argparse_errors_follow_the_language(capsys):
    with pytest.raises(SystemExit):
        companion_cli(["--language", "zh-Hans", "table", "run", "--game", "chess", "--source", "0"])
    error = capsys.readouterr().err
    assert "错误" in error and "无效的选择：'chess'" in error, error
    with pytest.raises(SystemExit):
        companion_cli(["--language", "en", "table", "run", "--game", "chess", "--source", "0"])
    assert "invalid choice: 'chess'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        companion_cli(["--language", "zh-Hans", "table", "run"])
    assert "缺少必填参数：--source" in capsys.readouterr().err


def test_a_source_error_reaches_the_command_line_in_its_language(tmp_path, capsys):
    missing = tmp_path / "nowhere"
    assert companion_cli(["--language", "zh-Hans", "table", "run", "--game", "kingdoms", "--source", str(missing)]) == 2
    assert f"没有这个摄像头、视频文件或文件夹：{missing}" in capsys.readouterr().err
    assert companion_cli(["--language", "en", "table", "run", "--game", "kingdoms", "--source", str(missing)]) == 2
    assert f"no such camera, video file or folder: {missing}" in capsys.readouterr().err
    (tmp_path / "one.png").write_bytes(b"")
    assert companion_cli(["--language", "zh-Hans", "table", "run", "--game", "kingdoms", "--source", str(tmp_path / "one.png")]) == 2
    assert "是一张单独的图片：请给出存放这些帧的文件夹" in capsys.readouterr().err


def test_card_names_follow_the_language():
    assert i18n.translator("zh-Hans").card_name("10H") == "红桃10"
    assert i18n.translator("en").card_name("10H") == "10♥"
    assert i18n.translator("zh-Hans").card_name("BJ") == "大王"
