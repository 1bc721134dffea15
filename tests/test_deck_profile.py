"""Learned decks: the assignment under each-card-once, the profile store, the card-image folder, and the CLI end to end."""
from __future__ import annotations

import json
import re

import cv2
import numpy as np
import pytest
from helpers.decks import corrupt_images, second_copy_spread, spread
from helpers.decks import saved_decks as _saved

from companion.cli import main
from companion.synthetic.deck import card_mask, render_card
from companion.vision.deck_folder import card_images, code_from_filename
from companion.vision.decks.assignment import UNPLACED_COST, assign
from companion.vision.decks.profile import DECK_CODES, STANDARD_CODES, build_profile
from companion.vision.decks.store import DeckStore, default_data_dir


def test_the_assignment_places_each_code_once_and_leaves_a_stray_out():
    rng = np.random.default_rng(0)
    costs = rng.uniform(3, 5, (54, len(DECK_CODES)))
    truth = rng.permutation(len(DECK_CODES))[:53]
    for row, column in enumerate(truth):
        costs[row, column] = 0.2
    # two cards that could as well be each other
    costs[0, truth[1]] = costs[1, truth[0]] = 0.25
    costs[53] = UNPLACED_COST + 2          # a stray box that fits nothing
    placed, margins = assign(costs, {})
    assert placed[:53] == [int(c) for c in truth]
    assert placed[53] is None
    assert len({p for p in placed if p is not None}) == 53
    assert margins[0] == margins[1] == pytest.approx(0.1)    # swapping them costs little: not sure
    assert min(margins[2:53]) > 1


def test_a_named_card_is_placed_as_told_and_pushes_the_other_away():
    costs = np.full((2, len(DECK_CODES)), 5.0)
    costs[0, 0] = costs[1, 0] = 0.1
    costs[1, 1] = 0.5
    placed, margins = assign(costs, {1: DECK_CODES[0]})
    assert placed[1] == 0 and placed[0] != 0 and margins[1] == np.inf


def test_a_lone_card_is_surer_where_its_code_would_otherwise_go_to_no_card():
    """In a fan each card shows one index: a lone card could be another code's second corner, its own
    code then held by no card; in a photo of the whole deck that costs MISSING_CARD_COST (not for a joker)."""
    from companion.vision.decks.assignment import MISSING_CARD_COST, SECOND_CORNER_COST

    own, other = DECK_CODES.index("7H"), DECK_CODES.index("QS")
    costs = np.full((2, len(DECK_CODES)), 5.0)
    costs[0, own], costs[0, other] = 0.3, 0.0      # card 0 reads 7H, and QS at another turn
    costs[1, other] = 0.0                          # card 1 is the queen of spades
    _, margins = assign(costs, {}, [True, True])
    assert margins[0] == pytest.approx(SECOND_CORNER_COST - 0.3 + MISSING_CARD_COST)
    # jokers are optional in the photos: one with no card costs nothing
    joker = DECK_CODES.index("BJ")
    costs = np.full((2, len(DECK_CODES)), 5.0)
    costs[0, joker], costs[0, other], costs[1, other] = 0.3, 0.0, 0.0
    _, margins = assign(costs, {}, [True, True])
    assert margins[0] == pytest.approx(SECOND_CORNER_COST - 0.3)


def _profile(name="home"):
    rng = np.random.default_rng(1)
    centres = rng.normal(size=(len(DECK_CODES), 32))
    codes, embeddings = [], []
    for code, centre in zip(DECK_CODES, centres):
        for _ in range(2):
            codes.append(code)
            embeddings.append(centre + rng.normal(scale=0.05, size=32))
    hist = np.zeros((18, 8), np.float32)
    hist[3, 5] = 1
    return build_profile(name, codes, embeddings, [hist], {"cards": 54}), centres


def test_reading_with_a_profile_finds_the_nearest_code_and_refuses_what_is_like_none():
    profile, centres = _profile()
    code, confidence, row = profile.read(np.stack([-centres[7], centres[7] + 0.01]))
    assert (code, row) == (DECK_CODES[7], 1) and confidence > 0.9
    code, _, _ = profile.read(np.random.default_rng(5).normal(size=(2, 32)))
    assert code is None


def test_the_store_saves_lists_loads_and_removes_and_never_overwrites_by_accident(tmp_path):
    store = DeckStore(tmp_path)
    profile, _ = _profile()
    store.save(profile)
    assert store.names() == ["home"]
    loaded = store.load("home")
    assert loaded.codes == profile.codes and np.allclose(loaded.prototypes, profile.prototypes)
    assert loaded.back is not None and loaded.none_floor == pytest.approx(profile.none_floor)
    before = (store.path("home") / "profile.json").read_text()
    other, _ = _profile()
    other.info["cards"] = 1
    with pytest.raises(ValueError, match="already exists"):
        store.save(other)
    assert (store.path("home") / "profile.json").read_text() == before
    with pytest.raises(ValueError, match="no deck named 'away'.*known: home"):
        store.load("away")
    with pytest.raises(ValueError, match="deck name"):
        store.path("../escape")
    store.remove("home")
    assert store.names() == []
    with pytest.raises(ValueError, match="no deck named"):
        store.remove("home")


def test_the_data_folder_is_the_option_else_the_environment_else_serves_default(monkeypatch, tmp_path):
    monkeypatch.setenv("COMPANION_DATA", str(tmp_path / "env"))
    assert default_data_dir(tmp_path / "given") == tmp_path / "given"
    assert default_data_dir() == tmp_path / "env"
    monkeypatch.delenv("COMPANION_DATA")
    assert str(default_data_dir()) == "companion-data"


def test_card_file_names_are_read_case_insensitively(tmp_path):
    assert [code_from_filename(tmp_path / n) for n in ("10c.jpg", "QH.png", "bj.png", "Back.PNG", "as.webp")] == \
        ["10C", "QH", "BJ", "BACK", "AS"]
    with pytest.raises(ValueError, match="not a card code"):
        code_from_filename(tmp_path / "joker.png")


def _write_deck(folder, codes, style_seed=1, size=(250, 350)):
    folder.mkdir(parents=True, exist_ok=True)
    alpha = card_mask(*size)
    for code in codes:
        name = "back" if code == "BACK" else code.lower()
        cv2.imwrite(str(folder / f"{name}.png"), np.dstack([render_card(code, *size, style_seed=style_seed), alpha]))
    return folder


def test_a_card_folder_with_unknown_names_duplicates_or_gaps_is_refused(tmp_path):
    folder = _write_deck(tmp_path / "deck", list(STANDARD_CODES) + ["BACK"])
    assert set(card_images(folder)) == set(STANDARD_CODES) | {"BACK"}
    (folder / "notes.txt").write_text("licence")          # not an image: ignored
    (folder / "joker.png").write_bytes((folder / "as.png").read_bytes())
    with pytest.raises(ValueError, match="not card codes: joker.png"):
        card_images(folder)
    (folder / "joker.png").unlink()
    (folder / "AS.jpg").write_bytes((folder / "as.png").read_bytes())
    with pytest.raises(ValueError, match="two images of one card"):
        card_images(folder)
    (folder / "AS.jpg").unlink()
    (folder / "kd.png").unlink()
    with pytest.raises(ValueError, match="no image for KD"):
        card_images(folder)
    assert "KD" not in card_images(folder, complete=False)      # a deck learned from it may lack cards


# ------------------------------------------------------------------- end to end, with the shipped models

@pytest.fixture(scope="module")
def learned(tmp_path_factory):
    """The drawn deck's design 1 learned from a folder of its card images."""
    root = tmp_path_factory.mktemp("decks")
    folder = _write_deck(root / "cards", list(DECK_CODES) + ["BACK"])
    data = root / "data"
    assert main(["deck", "learn", "--name", "drawn", str(folder), "--data", str(data)]) == 0
    return data


def _table_photo(codes, style_seed=1):
    """Cards of the drawn deck laid upright in a row on a green table, at the detector's favourite size."""
    table = np.full((420, 120 + 150 * len(codes), 3), (60, 110, 50), np.uint8)
    for n, code in enumerate(codes):
        card = render_card(code, 130, 182, style_seed=style_seed)
        mask = card_mask(130, 182) > 0
        region = table[100:282, 60 + 150 * n:190 + 150 * n]
        region[mask] = card[mask]
    return table


def test_a_learned_deck_is_listed_shown_and_read_with(learned, tmp_path, capsys):
    assert main(["deck", "list", "--data", str(learned)]) == 0
    assert "drawn: 54 cards" in capsys.readouterr().out
    assert main(["deck", "show", "drawn", "--data", str(learned)]) == 0
    shown = capsys.readouterr().out
    assert "back known" in shown and "not learned" not in shown
    # checked on its own card images when saved (each index held out), and the check kept with the profile
    check = DeckStore(learned).load("drawn").info["self_check"]
    assert check["readings"] > 0 and {"learned", "general", "arbitrated"} <= set(check)
    assert f"check on its own photos: {json.dumps(check)}" in shown
    codes = ["7H", "QS", "10D", "2C"]
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), _table_photo(codes))
    assert main(["detect", str(photo), "--json", "--deck", "drawn", "--data", str(learned)]) == 0
    read = json.loads(capsys.readouterr().out)["cards"]
    assert sorted(c["code"] for c in read) == sorted(codes)


def test_a_deck_learned_from_a_photo_without_its_jokers_is_saved_with_a_note_saying_so(tmp_path, capsys):
    photo = tmp_path / "deal.png"
    cv2.imwrite(str(photo), spread(list(STANDARD_CODES))[0])
    command = ["deck", "learn", "--name", "nojokers", str(photo), "--data", str(tmp_path / "data")]
    if main(command) != 0:        # a card it is unsure of: the player confirms it (here as it reads; the drawn deck reads right)
        asked = re.findall(r"#(\d+): .*?: read (\w+)\?", capsys.readouterr().out)
        assert asked
        command += [arg for number, code in asked for arg in ("--set", f"{number}={code}")]
        assert main(command) == 0
    out = capsys.readouterr().out
    assert "note: jokers not learned: BJ SJ (" in out and "learned deck 'nojokers': 52 cards" in out
    profile = DeckStore(tmp_path / "data").load("nojokers")      # checked on its own photo's indices when saved
    assert profile.info["self_check"]["readings"] > 0 and profile.trusted


def test_learning_refuses_a_corrupt_photo_and_changes_nothing(learned, tmp_path, capsys):
    saved = _saved(learned)
    for file, (data, message) in corrupt_images().items():
        path = tmp_path / file
        path.write_bytes(data)
        for name in ("drawn", "other"):      # into the saved deck (with --replace) and a new name
            assert main(["deck", "learn", "--name", name, "--replace", str(path), "--data", str(learned)]) == 2
            err = capsys.readouterr().err
            assert f"{path}: " in err and message in err
    assert _saved(learned) == saved and DeckStore(learned).names() == ["drawn"]


def test_learning_into_an_existing_name_needs_replace_and_a_failed_replace_keeps_the_deck(learned, tmp_path, capsys):
    saved = _saved(learned)
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), (60, 110, 50), np.uint8))
    assert main(["deck", "learn", "--name", "drawn", str(blank), "--data", str(learned)]) == 2
    err = capsys.readouterr().err
    assert "a deck named 'drawn' already exists" in err and "--replace" in err
    # a photo with no cards: nothing learned, the old deck stays as it was
    assert main(["deck", "learn", "--name", "drawn", "--replace", str(blank), "--data", str(learned)]) == 2
    err = capsys.readouterr().err
    assert "not saved" in err and "blank.png: no cards found" in err
    # part of a deck: it says which cards are missing
    part = tmp_path / "part.png"
    cv2.imwrite(str(part), _table_photo(["7H", "QS", "10D", "2C"]))
    assert main(["deck", "learn", "--name", "drawn", "--replace", str(part), "--data", str(learned)]) == 2
    missing = capsys.readouterr().err.split("not found:")[1].split("(")[0].split()
    assert "AS" in missing and "KD" in missing and not {"7H", "QS", "10D", "2C"} & set(missing)
    assert _saved(learned) == saved


@pytest.mark.parametrize("name", ["../escape", "", "x" * 41, "a/b", ".hidden"])
def test_a_bad_deck_name_is_refused_by_every_deck_command(learned, tmp_path, capsys, name):
    saved = _saved(learned)
    photo = tmp_path / "part.png"
    cv2.imwrite(str(photo), _table_photo(["7H"]))
    for argv in (["deck", "learn", "--name", name, str(photo)], ["deck", "show", name], ["deck", "remove", name]):
        assert main(argv + ["--data", str(learned)]) == 2
        assert f"deck name {name!r}: use 1-40 letters" in capsys.readouterr().err
    assert _saved(learned) == saved and sorted(p.name for p in learned.iterdir()) == ["decks"]


def test_show_and_remove_of_a_deck_that_does_not_exist_say_which_exist(learned, capsys):
    saved = _saved(learned)
    for command in ("show", "remove"):
        assert main(["deck", command, "nosuch", "--data", str(learned)]) == 2
        err = capsys.readouterr().err
        assert "no deck named 'nosuch'" in err and "(known: drawn)" in err
    assert _saved(learned) == saved


def test_a_card_folder_with_unknown_names_or_no_image_is_refused_by_name_and_a_partial_one_learned(learned, tmp_path, capsys):
    from companion.vision.decks.store import DeckStore

    saved = _saved(learned)
    folder = _write_deck(tmp_path / "cards", [c for c in STANDARD_CODES if c not in ("KD", "3H")])
    (folder / "joker.png").write_bytes((folder / "as.png").read_bytes())
    (folder / "IMG_2041.jpg").write_bytes((folder / "as.png").read_bytes())
    assert main(["deck", "learn", "--name", "drawn", "--replace", str(folder), "--data", str(learned)]) == 2
    assert "not card codes: IMG_2041.jpg, joker.png" in capsys.readouterr().err
    (folder / "joker.png").unlink()
    (folder / "IMG_2041.jpg").unlink()
    (folder / "as.png").write_bytes(b"")           # a card image that is no image
    assert main(["deck", "learn", "--name", "drawn", "--replace", str(folder), "--data", str(learned)]) == 2
    assert "as.png" in capsys.readouterr().err
    assert _saved(learned) == saved
    # a partial folder (no 3H, KD) teaches the cards it shows and says which the general models read
    _write_deck(folder, ["AS"])
    assert main(["deck", "learn", "--name", "partial", str(folder), "--data", str(learned)]) == 0
    assert "no image of 3H KD in the folder" in capsys.readouterr().out
    partial = DeckStore(learned).load("partial")
    assert {"3H", "KD"}.isdisjoint(partial.codes) and len(partial.learned_codes) == 50
    assert main(["deck", "remove", "partial", "--data", str(learned)]) == 0
    assert _saved(learned) == saved
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("no cards here")
    assert main(["deck", "learn", "--name", "nothing", str(empty), "--data", str(learned)]) == 2
    assert "no card images in it" in capsys.readouterr().err
    assert _saved(learned) == saved


def test_two_copies_of_a_card_are_named_and_nothing_is_saved_until_the_player_settles_it(learned, tmp_path, capsys):
    from companion.vision import Detector
    from companion.vision.decks.photo_reading import read_photos
    from companion.vision.decks.photos import learn_from_photos

    saved = _saved(learned)
    image, _ = second_copy_spread("7H", "QS")        # the 7 of hearts replaced by a second queen of spades
    photo = tmp_path / "deal.png"
    cv2.imwrite(str(photo), image)
    assert main(["deck", "learn", "--name", "drawn", "--replace", str(photo), "--data", str(learned)]) == 2
    err = capsys.readouterr().err
    copies = re.search(r"deal.png: two copies of QS\? \(cards #(\d+) and #(\d+)\) — photograph one deck, each card once", err)
    assert copies, err
    assert "not found: 7H" in err and err.count("two copies of") == 1
    assert _saved(learned) == saved
    # the player names the second queen (here, as the card it stands for): the copy is settled
    detector = Detector.load(tile="auto")
    readings = read_photos(detector, [("deal.png", image)])
    settled = learn_from_photos(detector, [("deal.png", image)], "drawn", corrections={int(copies[2]): "7H"},
                                readings=readings)
    assert not any("two copies" in p for p in map(str, settled.problems))
    # the second queen right beside the first (in KS's place) and right below it (10H's): a copy
    # closer than one card's corners span, read the same way up, is not the first card's other corner
    for gone in ("KS", "10H"):
        near, _ = second_copy_spread(gone, "QS")
        result = learn_from_photos(detector, [("near.png", near)], "drawn")
        assert any(p.startswith("near.png: two copies of QS? (cards #") for p in map(str, result.problems)), (gone, result.problems)
    # a whole deck and a second queen of spades dealt after it: nothing is missing, still two queens
    codes = list(DECK_CODES) + ["QS"]
    extra, _ = spread(codes)
    result = learn_from_photos(detector, [("plus.png", extra)], "drawn")
    assert any(p.startswith("plus.png: two copies of QS? (cards #") for p in map(str, result.problems)), result.problems


def test_a_copy_dealt_beside_or_below_its_card_in_overlapping_rows_is_named_and_a_normal_deal_is_not(tmp_path):
    """Dealt in overlapping rows (most cards show one index), two copies a row or a column apart are
    closer than one card's corners: the grouping joins them as one card, read the same way up."""
    from companion.synthetic.deck import ArtDeck
    from companion.vision import Detector
    from companion.vision.decks.photos import learn_from_photos
    from vision_models.data.deck_scenes import spread_photo

    art = ArtDeck(_write_deck(tmp_path / "cards", list(DECK_CODES) + ["BACK"]))
    detector = Detector.load(tile="auto")
    normal, truth = spread_photo(art, 1)
    order = [t["code"] for t in truth]          # 11 to a row
    # (found as 62 cards, corners left unpaired: not "more than one deck" either)
    assert not any("two copies" in p or "more than one deck" in p
                   for p in map(str, learn_from_photos(detector, [("deal.jpg", normal)], "rows").problems))
    for gone in (order[14], order[24]):          # the card right of the 14th dealt, and the one below it
        image, _ = spread_photo(art, 1, second_copy=(gone, order[13]))
        problems = learn_from_photos(detector, [("deal.jpg", image)], "rows").problems
        assert any(p.startswith(f"deal.jpg: two copies of {order[13]}? (card") for p in map(str, problems)), (gone, problems)


def test_two_whole_decks_in_one_photo_are_refused_as_more_than_one_deck_and_one_deck_is_not(tmp_path):
    from companion.vision import Detector
    from companion.vision.decks.photos import learn_from_photos

    detector = Detector.load(tile="auto")
    both, _ = spread(list(DECK_CODES) * 2)
    problems = learn_from_photos(detector, [("both.png", both)], "two").problems
    assert any(p.startswith("both.png: ") and "more than one deck holds" in p for p in map(str, problems)), problems
    one, _ = spread(list(DECK_CODES))
    assert not any("more than one deck" in p for p in map(str, learn_from_photos(detector, [("one.png", one)], "one").problems))


def test_table_run_and_serve_take_a_learned_deck_and_refuse_an_unknown_one(learned, tmp_path, capsys):
    import argparse

    from companion.commands import serve, table

    args = argparse.Namespace(detector="auto", tile="auto", source=str(tmp_path), deck="drawn", data=str(learned))
    detector = table._detector(args)
    assert detector.deck is not None and detector.deck.name == "drawn"
    assert main(["table", "run", "--game", "chosen", "--source", str(tmp_path), "--deck", "nosuch",
                 "--data", str(learned)]) == 2
    assert "no deck named 'nosuch'" in capsys.readouterr().err
    assert main(["table", "run", "--game", "chosen", "--source", str(tmp_path), "--detector", "truth",
                 "--deck", "drawn", "--data", str(learned)]) == 2
    assert "does not go with --detector truth" in capsys.readouterr().err
    assert serve.check_default_deck("drawn", learned) == "drawn"     # the tables that name no deck read with it
    assert main(["serve", "--deck", "nosuch", "--data", str(learned), "--port", "1"]) == 2
    assert "--deck: no deck named 'nosuch'" in capsys.readouterr().err


def test_a_learned_back_keeps_boxes_of_its_colours_and_drops_others():
    from companion.vision.decks.profile import back_histogram

    blue = np.zeros((200, 300, 3), np.uint8)
    blue[:, :150] = (200, 60, 20)          # the deck's back: blue
    blue[:, 150:] = (30, 120, 230)         # a chip: orange
    profile, _ = _profile()
    profile.back = back_histogram(blue, (0, 0, 150, 200))
    assert profile.is_back(blue, (10, 10, 140, 190))
    assert not profile.is_back(blue, (160, 10, 290, 190))
    profile.back = None
    assert profile.is_back(blue, (160, 10, 290, 190))      # no back learned: every face-down box stays


def test_with_parts_two_photos_of_half_a_deck_make_a_deck_and_without_they_do_not():
    from helpers.decks import CARD_H, CARD_W

    from companion.vision import Detector
    from companion.messages import Message
    from companion.vision.decks.photos import learn_from_photos, read_photos
    from companion.vision.decks.result import PHONE_ADVICE

    halves = [list(DECK_CODES[:27]), list(DECK_CODES[27:])]
    photos, truths = zip(*(spread(half) for half in halves))
    labelled = [(f"half{n}.png", image) for n, image in enumerate(photos)]
    detector = Detector.load(tile="auto")
    readings = read_photos(detector, labelled)
    alone = learn_from_photos(detector, labelled, "halves", readings=readings)
    assert not alone.complete
    (not_found,) = [p for p in map(str, alone.problems) if p.startswith("not found")]
    assert not_found.endswith("(photograph the whole deck, each card's corner index visible; or, with --parts, add a photo of the "
                              "missing cards)")
    # with --parts given, the cards still missing ask only for their photo, not for the --parts the player gave
    one_half = learn_from_photos(detector, labelled[:1], "halves", parts=True, readings=readings[:1])
    (not_found,) = [p for p in map(str, one_half.problems) if p.startswith("not found")]
    assert all(code in not_found.split() for code in halves[1] if code not in ("BJ", "SJ"))
    assert not_found.endswith("(add a photo of the missing cards, each card's corner index visible)")
    on_the_phone = learn_from_photos(detector, labelled[:1], "halves", parts=True, readings=readings[:1], advice=PHONE_ADVICE)
    assert [p for p in on_the_phone.problems if str(p).startswith("not found")] == [Message(
        "not found: %(not_found)s (%(advice)s)", not_found=not_found.split(": ")[1].split(" (")[0],
        advice=Message("add a photo of the missing cards, each card's corner index visible"))]     # not "choose “… together …”"
    together = learn_from_photos(detector, labelled, "halves", parts=True, readings=readings)
    named = {}
    for number, card in together.asked():        # what the player names on the phone or with --set
        x1, y1, x2, y2 = card.box
        under = [code for code, x, y in truths[card.photo]
                 if x <= (x1 + x2) / 2 <= x + CARD_W and y <= (y1 + y2) / 2 <= y + CARD_H]
        if under and under[0] not in named.values():
            named[number] = under[0]
    if named:
        together = learn_from_photos(detector, labelled, "halves", parts=True, corrections=named)
    assert together.complete, together.problems
    assert set(together.profile.learned_codes) >= set(STANDARD_CODES)
    assert len(named) <= 8
