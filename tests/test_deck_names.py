"""Deck names as players type them, in any language (companion/vision/decks/store.py): a name in Chinese is
saved under a safe folder of its own and found, listed and loaded by the name as typed; a deck saved under
a plain name (every name before names in other languages were allowed) keeps its folder; names with path
or control characters, too long, or not starting with a letter or digit are refused and change nothing."""
from __future__ import annotations

import json
import unicodedata

import numpy as np
import pytest

from companion.cli import main as companion_cli
from companion.vision.decks.profile import DECK_CODES, DeckError, build_profile
from companion.vision.decks.store import DeckStore, folder_name


def profile(name: str, seed: int = 3):
    vectors = np.random.default_rng(seed).normal(size=(len(DECK_CODES), 16))
    return build_profile(name, list(DECK_CODES), list(vectors), [], {"cards": 54, "source": "card photos"})


@pytest.mark.parametrize("name", ["家里的牌", "Kitchen 2", "牌（新）", "Club 家", "家" * 40, "Ünïcode deck", "home-deck"])
def test_a_name_in_any_language_is_saved_listed_and_loaded_as_typed(tmp_path, name):
    store = DeckStore(tmp_path)
    folder = store.save(profile(name))
    assert folder.parent == store.root and folder.name == folder_name(name)
    assert folder.name.isascii() and "/" not in folder.name and len(folder.name) <= 40
    assert store.names() == [name] and store.exists(name)
    assert store.load(name).name == name
    assert json.loads((folder / "profile.json").read_text(encoding="utf-8"))["name"] == name
    store.remove(name)
    assert store.names() == [] and not folder.exists()


def test_plain_names_keep_their_folder_and_a_deck_saved_before_is_found(tmp_path):
    store = DeckStore(tmp_path)
    assert folder_name("club night") == "club night" and folder_name("home-deck") == "home-deck"
    store.save(profile("kitchen"))
    (store.root / "kitchen").rename(store.root / "old kitchen")     # a deck moved by hand, as before: found by its folder
    store.save(profile("家里的牌"))
    assert store.names() == ["old kitchen", "家里的牌"]
    assert store.load("old kitchen").codes == profile("kitchen").codes


def test_the_same_name_typed_two_ways_is_one_deck(tmp_path):
    store = DeckStore(tmp_path)
    composed = "Café 牌"
    decomposed = unicodedata.normalize("NFD", composed)
    assert composed != decomposed
    store.save(profile(DeckStore.check_name(composed)))
    assert store.exists(decomposed) and store.load(decomposed).name == composed
    with pytest.raises(DeckError, match="already exists"):
        store.save(profile(DeckStore.check_name(decomposed)))


@pytest.mark.parametrize("name", ["../up", "a/b", "a\\b", "a:b", "a*b", 'a"b', "a<b", "a|b", "a?b", ".hidden", " lead", "trail ",
                                  "tab\there", "line\nbreak", "x" * 41, "", "-dash", "\u200bzero width", "bell\x07"])
def test_names_with_path_or_control_characters_are_refused(tmp_path, name):
    store = DeckStore(tmp_path)
    store.save(profile("家里的牌"))
    before = sorted(p.name for p in store.root.iterdir())
    with pytest.raises(DeckError, match="deck name"):
        store.save(profile(name))
    with pytest.raises(DeckError, match="deck name"):
        store.load(name)
    assert sorted(p.name for p in store.root.iterdir()) == before


def test_a_folder_whose_profile_names_another_deck_is_not_listed(tmp_path):
    store = DeckStore(tmp_path)
    store.save(profile("家里的牌"))
    other = store.root / folder_name("别的牌")
    (store.root / folder_name("家里的牌")).rename(other)        # a folder copied under another's hash
    assert store.names() == []


def test_the_command_line_learns_lists_and_removes_a_chinese_deck_by_name(tmp_path, capsys):
    store = DeckStore(tmp_path)
    store.save(profile("家里的牌"))
    assert companion_cli(["--language", "zh-Hans", "deck", "list", "--data", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("家里的牌：54 张牌")
    assert companion_cli(["--language", "zh-Hans", "deck", "show", "家里的牌", "--data", str(tmp_path)]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("家里的牌：") and "学自：单张牌的照片" in shown
    assert companion_cli(["--language", "en", "deck", "remove", "家里的牌", "--data", str(tmp_path)]) == 0
    assert "removed deck '家里的牌'" in capsys.readouterr().out and store.names() == []
    assert companion_cli(["--language", "zh-Hans", "deck", "show", "家里的牌", "--data", str(tmp_path)]) == 2
    assert "里没有叫 '家里的牌' 的牌" in capsys.readouterr().err


def test_a_deck_named_in_chinese_whose_profile_is_damaged_is_still_listed_as_damaged(tmp_path, capsys):
    """Its folder is a hash of the name: the name is kept beside profile.json too, so the deck stays in the
    lists (to be seen and removed) when profile.json cannot be read."""
    store = DeckStore(tmp_path)
    damaged = store.save(profile("家里的牌")) / "profile.json"
    damaged.write_text("{ not json", encoding="utf-8")
    assert store.names() == ["家里的牌"]
    assert companion_cli(["--language", "zh-Hans", "deck", "list", "--data", str(tmp_path)]) == 1
    assert capsys.readouterr().out.splitlines() == [f"家里的牌：已损坏，读不了 {damaged}（请重新教它，或用 `companion deck remove` 删掉它）"]
    assert companion_cli(["--language", "en", "deck", "remove", "家里的牌", "--data", str(tmp_path)]) == 0
    assert store.names() == [] and not damaged.parent.exists()
    # a name file that does not match its folder names no deck (a folder copied by hand under another hash)
    moved = store.save(profile("厨房")).rename(store.root / folder_name("客厅"))
    (moved / "profile.json").write_text("", encoding="utf-8")
    assert store.names() == []


def test_deck_list_marks_a_damaged_deck_and_still_lists_the_others(tmp_path, capsys):
    """As the phones' deck menu (tests/test_web_table_decks.py): one damaged deck hides none of the others."""
    store = DeckStore(tmp_path)
    store.save(profile("家里的牌"))
    damaged = store.save(profile("kitchen")) / "prototypes.npz"
    damaged.write_bytes(b"damaged since it was saved")
    assert companion_cli(["--language", "en", "deck", "list", "--data", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"kitchen: damaged, {damaged} cannot be read (teach it again, or `companion deck remove` it)",
        "家里的牌: 54 cards, learned ? from photos of single cards"]
    assert companion_cli(["--language", "zh-Hans", "deck", "list", "--data", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"kitchen：已损坏，读不了 {damaged}（请重新教它，或用 `companion deck remove` 删掉它）",
        "家里的牌：54 张牌，? 从 单张牌的照片 学会"]
    # every deck damaged: each still listed, and the exit status says none can be used
    (store.path("家里的牌") / "prototypes.npz").write_bytes(b"")
    assert companion_cli(["--language", "en", "deck", "list", "--data", str(tmp_path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"kitchen: damaged, {damaged} cannot be read (teach it again, or `companion deck remove` it)",
        f"家里的牌: damaged, {store.path('家里的牌') / 'prototypes.npz'} cannot be read (teach it again, or `companion deck remove` it)"]
