"""Guilds and Dungeon referee: every ruling and its alternative, the guild abilities, the end conditions."""
from __future__ import annotations

import json
import pytest

from companion.games import get_engine, replay, undo
from companion.games.base import IllegalEvent, InvalidSetup, UnknownOption
from companion.games.dungeon import ENGINE, RULINGS, audit
from companion.games.dungeon.rules import PLAY_DECK, Options, kind, level
from companion.messages import english, from_json

E = ENGINE
NAMES = ["Ann", "Bob", "Cid"]


def start(names=NAMES, options=None, guilds=("S", "D", "C"), **setup):
    """A camera-path game (no seed, no deal) with guilds chosen; Ann reveals first."""
    state = E.new_game({"players": list(names), "options": options or {}, **setup})
    for seat, guild in enumerate(guilds):
        state = E.apply(state, {"type": "choose_guild", "player": seat, "guild": guild})
    return state


def play(state, *events):
    for event in events:
        state = E.apply(state, event)
        assert audit(state) == [], (event, audit(state))
    return state


def reveal(card):
    return {"type": "reveal", "card": card}


def fight(state, *cards):
    """Every seat in order commits the given card (None: passes), then the verdict."""
    for seat, card in enumerate(cards):
        event = {"type": "commit", "player": seat, "card": card} if card else {"type": "pass", "player": seat}
        state = play(state, event)
    return play(state, {"type": "resolve"})


def dealt(hands, names=NAMES, options=None, top=()):
    """A game with known hands and a known dungeon: ``top`` first, then the rest in the card model's order."""
    used = {c for hand in hands for c in hand} | set(top)
    dungeon = list(top) + [c for c in PLAY_DECK if c not in used]
    return E.new_game({"players": list(names), "options": options or {}, "deal": {"hands": hands, "dungeon": dungeon}})


def refused(state, event, message):
    before = E.view(state)
    with pytest.raises(IllegalEvent, match=message):
        E.apply(state, event)
    assert E.view(state) == before


# --- card mapping and set-up ------------------------------------------------------------------------

def test_card_mapping_follows_the_rules_page():
    assert kind("KS") == "guild" and kind("QH") == "scroll" and kind("BJ") == "trap" and kind("SJ") == "trap"
    assert kind("AH") == "treasure" and kind("JH") == "treasure" and level("JH") == 11
    assert kind("AS") == "mercenary" and level("10D") == 10 and level("QS") is None
    assert len(PLAY_DECK) == 50
    assert sum(kind(c) == "treasure" for c in PLAY_DECK) == 11
    assert sum(kind(c) == "mercenary" for c in PLAY_DECK) == 33
    assert sum(kind(c) == "scroll" for c in PLAY_DECK) == 4


@pytest.mark.parametrize("players,dungeon", [(2, 36), (3, 29), (4, 22)])
def test_deal_sizes(players, dungeon):
    state = E.new_game({"players": NAMES[:2] + ["Dee", "Eve"][:players - 2] if players > 2 else NAMES[:2], "seed": 7})
    view = E.view(state)
    assert view["dungeon_count"] == dungeon and all(p["hand_count"] == 7 for p in view["players"])
    assert audit(state) == []


def test_seeded_deal_is_reproducible_and_hands_differ_by_seed():
    a = E.new_game({"players": NAMES, "seed": 3})
    b = E.new_game({"players": NAMES, "seed": 3})
    c = E.new_game({"players": NAMES, "seed": 4})
    assert a == b and a.players != c.players


@pytest.mark.parametrize("setup,message", [
    ({"players": ["Ann"]}, "2 to 4"),
    ({"players": NAMES + ["Dee", "Eve"]}, "2 to 4"),
    ({"players": ["Ann", "Ann"]}, "differ"),
    ({"players": NAMES, "options": {"no_such_rule": True}}, "unknown option"),
    ({"players": NAMES, "options": {"ties_go_to_enemy": "yes"}}, "true or false"),
    ({"players": NAMES, "options": {"thief_swap_card": "burn"}}, "must be one of"),
    ({"players": NAMES, "deal": {"hands": [["AS"] * 7] * 3}}, "more than once"),
    ({"players": NAMES, "deal": {"hands": [["KS", "AS", "2S", "3S", "4S", "5S", "6S"]] * 3}}, "King"),
    ({"players": NAMES, "seed": "x"}, "seed"),
])
def test_bad_setups_are_refused(setup, message):
    with pytest.raises(InvalidSetup, match=message):
        E.new_game(setup)


def test_unknown_option_is_an_invalid_setup():
    with pytest.raises(UnknownOption):
        E.new_game({"players": NAMES, "options": {"friend_multiplied": 1}})


# --- guild choice -----------------------------------------------------------------------------------------

HANDS = [["AS", "2S", "3S", "AD", "2D", "AH", "BJ"],
         ["3D", "4D", "5D", "4S", "5S", "6S", "2H"],
         ["AC", "2C", "3C", "4C", "6D", "7D", "3H"]]


def test_guild_is_the_most_held_suit():
    state = dealt(HANDS)
    refused(state, {"type": "choose_guild", "player": 0, "guild": "D"}, "holds most S")
    state = play(state, {"type": "choose_guild", "player": 0, "guild": "swordsmen"})
    assert E.view(state)["players"][0]["guild"] == "S"


def test_tied_suits_choose_either_or_redeal_one():
    state = dealt(HANDS)
    # Bob holds three ♦ and three ♠: either guild is allowed.
    assert E.view(play(state, {"type": "choose_guild", "player": 1, "guild": "D"}))["players"][1]["guild"] == "D"
    refused(state, {"type": "redeal_suit", "player": 0, "suit": "S"}, "tied for most")
    top = list(state.dungeon[:3])
    after = play(state, {"type": "redeal_suit", "player": 1, "suit": "S"})
    view = E.referee_view(after)
    assert view["players"][1]["hand_count"] == 7
    assert sorted(view["players"][1]["hand_known"]) == sorted(["3D", "4D", "5D", "2H"] + top)
    assert list(after.dungeon[-3:]) == ["4S", "5S", "6S"]
    assert after.phase == "guilds" and view["players"][1]["guild"] is None


def test_every_player_forced_into_one_guild_redeals_four():
    hands = [["AS", "2S", "3S", "AD", "AC", "AH", "BJ"],
             ["4S", "5S", "6S", "2D", "2C", "2H", "SJ"],
             ["7S", "8S", "9S", "3D", "3C", "3H", "QH"]]
    state = dealt(hands)
    refused(state, {"type": "choose_guild", "player": 0, "guild": "S"}, "redeal_four")
    for seat in range(3):
        state = play(state, {"type": "redeal_four", "player": seat, "cards": hands[seat][:4]})
        assert state.phase == ("guilds" if seat == 2 else "redeal_four")
    assert all(p["hand_count"] == 7 for p in E.view(state)["players"])
    assert list(state.dungeon[-12:]) == hands[0][:4] + hands[1][:4] + hands[2][:4]


def test_redeal_four_only_when_forced():
    refused(dealt(HANDS), {"type": "redeal_four", "player": 0, "cards": HANDS[0][:4]}, "only when every player")


def test_exclusive_guilds_option():
    state = E.new_game({"players": NAMES})
    state = play(state, {"type": "choose_guild", "player": 0, "guild": "S"})
    assert play(state, {"type": "choose_guild", "player": 1, "guild": "S"}).players[1].guild == "S"
    exclusive = play(E.new_game({"players": NAMES, "options": {"exclusive_guilds": True}}),
                     {"type": "choose_guild", "player": 0, "guild": "S"})
    refused(exclusive, {"type": "choose_guild", "player": 1, "guild": "S"}, "already have a member")


# --- fights, the verdict and the trophies ---------------------------------------------------------------

def test_tie_goes_to_the_players_by_default():
    state = fight(play(start(), reveal("10C")), "5S", "3D", "2C")
    last = E.view(state)["history"][-1]
    assert last["won"] and last["enemy_power"] == 10 and last["players_total"] == 10
    assert E.view(state)["players"][0]["trophies"] == ["10C"]


def test_ties_go_to_enemy_option():
    state = fight(play(start(options={"ties_go_to_enemy": True}), reveal("10C")), "5S", "3D", "2C")
    view = E.view(state)
    assert not view["history"][-1]["won"]
    assert view["exile"] == ["10C", "5S", "3D", "2C"]
    assert all(p["rest_area"] == [] and p["trophies"] == [] for p in view["players"])


def test_lost_fight_exiles_every_face_up_card():
    state = fight(play(start(), reveal("JS")), "2S", "3D", "AC")
    view = E.view(state)
    assert view["exile"] == ["JS", "2S", "3D", "AC"] and [p["hand_count"] for p in view["players"]] == [6, 6, 6]


def test_top_contributor_tie_goes_clockwise_from_the_revealer():
    state = fight(play(start(), reveal("JC")), "2S", "5D", "5C")
    assert E.view(state)["history"][-1]["winner"] == 1
    # Cid reveals the third card: the tie between Ann and Bob is broken from Cid clockwise: Cid, Ann, Bob.
    state = play(start(), reveal("5H"), {"type": "assign", "player": 0}, reveal("6H"), {"type": "assign", "player": 0})
    state = fight(play(state, reveal("JD")), "6S", "6D", "AC")
    assert state.history[-1]["revealer"] == 2 and state.history[-1]["winner"] == 0


def test_swordsman_with_black_mercenary_wins_contribution_tie():
    state = fight(play(start(), reveal("JC")), "5S", "5D", "2C")
    assert E.view(state)["history"][-1]["winner"] == 0
    # A Swordsman without a black mercenary has no edge: clockwise from the revealer (Ann) still gives Ann,
    # so let Bob be the Swordsman sitting after Ann.
    state = fight(play(start(guilds=("D", "S", "C")), reveal("JC")), "5D", "5S", "2C")
    assert E.view(state)["history"][-1]["winner"] == 1


def test_fight_needs_exactly_one_mercenary_each():
    state = play(start(), reveal("JC"), {"type": "commit", "player": 0, "card": "5S"})
    refused(state, {"type": "commit", "player": 0, "card": "6S"}, "already committed")
    refused(state, {"type": "commit", "player": 1, "card": "QD"}, "not a mercenary")
    refused(state, {"type": "commit", "player": 1, "card": "5H"}, "not a mercenary")
    refused(state, {"type": "resolve"}, "still to commit")


# --- the doubling marker -------------------------------------------------------------------------------------

def low_marker(options=None, card="3D"):
    return fight(play(start(options=options), reveal(card)), "5S", "4D", "2C")


def test_low_enemy_becomes_marker_not_trophy():
    view = E.view(low_marker())
    assert view["marker"]["card"] == "3D" and view["marker"]["multiplier"] == 3
    assert "multiplied by 3" in english(from_json(view["marker"]["text"]))   # the text is a message, English here
    assert all(p["trophies"] == [] for p in view["players"])


def test_marker_is_trophy_option():
    view = E.view(low_marker({"marker_is_trophy": True}))
    assert view["marker"] is None and view["players"][0]["trophies"] == ["3D"]


def test_marker_waits_through_treasures_scrolls_and_traps():
    state = play(low_marker(), reveal("5H"), {"type": "assign", "player": 0})
    assert state.marker == "3D"
    state = play(state, reveal("10S"))
    view = E.view(state)
    assert view["battlefield"]["enemy_power"] == 30
    assert english(from_json(view["battlefield"]["multiplier"]["text"])) == "the 10♠ fights at 30: it was multiplied by the 3♦ marker"
    assert view["marker"] is None and "3D" in view["exile"]


def test_marker_cleared_by_non_enemy_option():
    state = play(low_marker({"marker_cleared_by_non_enemy": True}), reveal("5H"))
    assert state.marker is None and "3D" in state.exile
    state = play(state, {"type": "assign", "player": 0}, reveal("10S"))
    assert E.view(state)["battlefield"]["enemy_power"] == 10


def test_low_enemy_is_multiplied_then_becomes_the_new_marker():
    state = play(low_marker(), reveal("3S"))
    assert E.view(state)["battlefield"]["enemy_power"] == 9
    state = fight(state, "JS", "5D", "4C")
    assert state.marker == "3S" and "3D" in state.exile


def test_low_enemy_multiplied_off():
    state = play(low_marker({"low_enemy_multiplied": False}), reveal("3S"))
    assert E.view(state)["battlefield"]["enemy_power"] == 3 and "3D" in state.exile
    assert fight(state, "JS", "5D", "4C").marker == "3S"


def test_low_enemy_marks_after_a_lost_fight_too():
    two = ["Ann", "Bob"]
    state = fight(play(start(two, guilds=("S", "D")), reveal("3C")), "AS", "AD")
    assert state.marker == "3C" and state.exile == ("AS", "AD")
    state = fight(play(start(two, {"low_enemy_marks_after_loss": False}, ("S", "D")), reveal("3C")), "AS", "AD")
    assert state.marker is None and state.exile == ("3C", "AS", "AD")


# --- calling a friend ------------------------------------------------------------------------------------------

def test_friend_enemy_adds_and_is_not_multiplied():
    state = play(low_marker(card="2D"), reveal("6S"))
    assert state.phase == "friend"
    state = play(state, reveal("4C"))
    assert state.phase == "fight" and E.view(state)["battlefield"]["enemy_power"] == 6 * 2 + 4


def test_friend_multiplied_option():
    state = play(low_marker({"friend_multiplied": True}, card="2D"), reveal("6S"), reveal("4C"))
    assert E.view(state)["battlefield"]["enemy_power"] == 6 * 2 + 4 * 2


def test_friend_does_not_call_another_friend():
    state = play(start(), reveal("6S"), reveal("5D"))
    assert state.phase == "fight"
    chained = play(start(options={"friend_calls_friend": True}), reveal("6S"), reveal("5D"))
    assert chained.phase == "friend"
    chained = play(chained, reveal("10C"))
    assert chained.phase == "fight" and E.view(chained)["battlefield"]["enemy_power"] == 21


def test_beaten_friends_are_trophies_and_a_low_friend_becomes_the_marker():
    state = fight(play(start(), reveal("6S"), reveal("2D")), "5S", "4D", "3C")
    assert state.marker == "2D" and E.view(state)["players"][0]["trophies"] == ["6S"]
    state = fight(play(start(options={"low_friend_becomes_marker": False}), reveal("6S"), reveal("2D")), "5S", "4D", "3C")
    assert state.marker is None and E.view(state)["players"][0]["trophies"] == ["6S", "2D"]


def test_friend_treasure_is_the_extra_prize_and_is_lost_with_the_fight():
    won = fight(play(start(), reveal("7C"), reveal("9H")), "2S", "4D", "3C")
    assert E.view(won)["players"][1]["treasures"] == ["9H"] and E.view(won)["players"][1]["trophies"] == ["7C"]
    lost = fight(play(start(), reveal("7C"), reveal("9H")), "2S", "AD", "3C")
    assert lost.exile == ("7C", "9H", "2S", "AD", "3C")


def test_trap_friend_is_resolved_at_once_then_the_caller_fights_alone():
    state = play(start(), reveal("6S"), reveal("BJ"))
    assert state.phase == "trap"
    state = play(state, *[{"type": "trap_call", "player": p, "call": c} for p, c in enumerate(["odd", "even", "odd"])],
                 {"type": "trap_draw", "player": 0, "card": "3D"},    # from Bob: odd as called: exiled
                 {"type": "trap_draw", "player": 1, "card": "5C"},    # from Cid: not even: back
                 {"type": "trap_draw", "player": 2, "card": "8S"})    # from Ann: not odd: back
    view = E.referee_view(state)
    assert state.phase == "fight" and view["battlefield"]["enemy_power"] == 6
    assert view["exile"] == ["3D", "BJ"]
    assert [p["hand_count"] for p in view["players"]] == [7, 6, 7]
    assert view["players"][2]["hand_known"] == ["5C"] and view["players"][0]["hand_known"] == ["8S"]


def test_friend_call_with_empty_dungeon_goes_straight_to_the_fight():
    state = E.new_game({"players": NAMES, "options": {"hand_size": 12}, "seed": None})
    state = play(state, *[{"type": "choose_guild", "player": p, "guild": g} for p, g in enumerate("SDC")])
    # 50 - 36 = 14 cards: burn 13 of them on agreed treasures and scrolls, then a caller with nothing behind it.
    prizes = ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "QS"]
    for card in prizes:
        state = play(state, reveal(card), {"type": "assign", "player": 0})
    state = play(state, reveal("6S"))
    assert state.phase == "fight" and state.dungeon_count == 0


# --- traps -----------------------------------------------------------------------------------------------------

def trap_state(options=None):
    state = play(start(options=options), reveal("SJ"))
    return play(state, *[{"type": "trap_call", "player": p, "call": "odd"} for p in range(3)])


def test_trap_calls_come_before_draws_and_draw_from_the_left_neighbour():
    state = play(start(), reveal("SJ"), {"type": "trap_call", "player": 0, "call": "odd"})
    refused(state, {"type": "trap_draw", "player": 0, "card": "3D"}, "everyone calls before")
    refused(state, {"type": "trap_call", "player": 0, "call": "even"}, "already called")
    state = trap_state()
    state = play(state, {"type": "trap_draw", "player": 0, "card": "3D"})
    assert state.players[1].hand_count == 6 and state.exile == ("3D",)


@pytest.mark.parametrize("card", ["4D", "QD", "BJ"])
def test_trap_miss_goes_back_by_default(card):
    state = play(trap_state(), {"type": "trap_draw", "player": 0, "card": card})
    assert state.players[1].hand_count == 7 and state.players[1].known == (card,)


def test_trap_miss_card_exiled_option():
    state = play(trap_state({"trap_miss_card_exiled": True}), {"type": "trap_draw", "player": 0, "card": "4D"})
    assert state.players[1].hand_count == 6 and state.exile == ("4D",)


def test_trap_encounter_ends_after_every_draw():
    state = play(trap_state(), *[{"type": "trap_draw", "player": p, "card": c} for p, c in enumerate(["3D", "5C", "7S"])])
    assert state.phase == "reveal" and state.turn == 1 and state.exile == ("3D", "5C", "7S", "SJ")


# --- treasures and scrolls: negotiation and contest -------------------------------------------------------------

def test_negotiated_treasure_and_scroll():
    state = play(start(), reveal("8H"), {"type": "assign", "player": "Cid"})
    assert E.view(state)["players"][2]["treasures"] == ["8H"]
    state = play(state, reveal("QC"), {"type": "assign", "player": 0})
    view = E.referee_view(state)
    assert view["players"][0]["hand_known"] == ["QC"] and view["players"][0]["hand_count"] == 8


def test_no_assignment_once_the_contest_started():
    state = play(start(), reveal("8H"), {"type": "commit", "player": 0, "card": "5S"})
    refused(state, {"type": "assign", "player": 1}, "negotiation is over")


def test_contest_highest_wins_and_entries_rest():
    state = play(start(), reveal("8H"), {"type": "commit", "player": 0, "card": "QS"},
                 {"type": "commit", "player": 1, "card": "5D"}, {"type": "commit", "player": 2, "card": "4C"})
    refused(state, {"type": "commit", "player": 0, "card": "9H"}, "already committed")
    state = play(state, {"type": "resolve"})
    view = E.view(state)
    assert view["players"][1]["treasures"] == ["8H"]
    assert [p["rest_area"] for p in view["players"]] == [["QS"], ["5D"], ["4C"]]


def test_contest_entry_is_never_a_treasure():
    refused(play(start(), reveal("8H")), {"type": "commit", "player": 0, "card": "9H"}, "is a treasure")


def test_contest_ties_add_up_and_a_player_who_cannot_add_drops_out():
    state = play(start(), reveal("8H"), *[{"type": "commit", "player": p, "card": c} for p, c in
                                          enumerate(["2S", "5D", "5C"])], {"type": "resolve"})
    assert state.phase == "prize" and E.view(state)["battlefield"]["contenders"] == [1, 2]
    refused(state, {"type": "commit", "player": 0, "card": "JS"}, "not in this contest")
    refused(state, {"type": "commit", "player": 1, "card": "QS"}, "not a mercenary")
    sums = play(state, {"type": "commit", "player": 1, "card": "3D"}, {"type": "commit", "player": 2, "card": "2C"},
                {"type": "resolve"})
    assert E.view(sums)["players"][1]["treasures"] == ["8H"]
    assert E.view(sums)["history"][-1]["powers"] == {"1": 8, "2": 7}
    dropped = play(state, {"type": "commit", "player": 1, "card": "AD"}, {"type": "pass", "player": 2},
                   {"type": "resolve"})
    assert E.view(dropped)["players"][1]["treasures"] == ["8H"]


def test_swordsman_wins_a_contest_tie_with_a_black_mercenary():
    state = play(start(), reveal("8H"), *[{"type": "commit", "player": p, "card": c} for p, c in
                                          enumerate(["5S", "5D", "2C"])], {"type": "resolve"})
    assert E.view(state)["players"][0]["treasures"] == ["8H"]


def test_heart_guild_has_no_ability_unless_the_option_says_so():
    events = [reveal("8H")] + [{"type": "commit", "player": p, "card": c} for p, c in enumerate(["5D", "5C", "2C"])]
    state = play(start(guilds=("H", "D", "C")), *events, {"type": "resolve"})
    assert state.phase == "prize"  # a tie: the heart guild does nothing
    state = play(start(options={"heart_guild_ability": "treasure_ties"}, guilds=("H", "D", "C")), *events,
                 {"type": "resolve"})
    assert E.view(state)["players"][0]["treasures"] == ["8H"]


def test_scroll_destroys_a_contestant_who_is_then_out():
    state = play(start(), reveal("8H"), *[{"type": "commit", "player": p, "card": c} for p, c in
                                          enumerate(["3S", "9D", "5C"])],
                 {"type": "play_scroll", "player": 0, "card": "QS", "target": 1})
    assert state.exile == ("QS", "9D")
    state = play(state, {"type": "resolve"})
    view = E.view(state)
    assert view["players"][2]["treasures"] == ["8H"] and view["players"][1]["rest_area"] == []


def test_scroll_target_must_be_a_face_up_mercenary_and_enemy_only_by_option():
    state = play(start(), reveal("JS"), {"type": "commit", "player": 0})
    refused(state, {"type": "play_scroll", "player": 1, "card": "QD", "target": 0}, "no face-up")
    refused(state, {"type": "play_scroll", "player": 1, "card": "QD", "target": "enemy"}, "scroll_can_destroy_enemy")
    refused(state, {"type": "play_scroll", "player": 1, "card": "9D", "target": 0}, "not a magic scroll")
    state = play(start(options={"scroll_can_destroy_enemy": True}), reveal("JS"),
                 {"type": "play_scroll", "player": 1, "card": "QD", "target": "enemy"})
    assert E.view(state)["battlefield"]["enemy_power"] == 0 and state.exile == ("QD", "JS")
    state = fight(state, "AS", "AD", "AC")
    assert E.view(state)["history"][-1]["won"]


def test_face_down_commits_are_turned_up_before_the_verdict():
    state = play(start(), reveal("JS"), *[{"type": "commit", "player": p} for p in range(3)])
    refused(state, {"type": "resolve"}, "turned up first")
    refused(state, {"type": "turn_up", "player": 0, "card": "QS"}, "not a mercenary")
    state = play(state, *[{"type": "turn_up", "player": p, "card": c} for p, c in enumerate(["5S", "4D", "2C"])],
                 {"type": "resolve"})
    assert E.view(state)["history"][-1]["players_total"] == 11


# --- guild abilities ---------------------------------------------------------------------------------------------

def test_mage_switch_exiles_everything_but_the_mage_card():
    state = play(start(), reveal("10D"), *[{"type": "commit", "player": p, "card": c} for p, c in
                                           enumerate(["4S", "6D", "3C"])], {"type": "mage_switch", "player": 1})
    assert E.view(state)["battlefield"]["enemy_power"] == 16
    state = play(state, {"type": "resolve"})
    view = E.view(state)
    assert view["exile"] == ["10D", "4S", "3C"] and view["players"][1]["rest_area"] == ["6D"]


def test_mage_switch_that_does_not_turn_the_fight():
    state = play(start(), reveal("10D"), *[{"type": "commit", "player": p, "card": c} for p, c in
                                           enumerate(["JS", "2D", "JC"])], {"type": "mage_switch", "player": 1},
                 {"type": "resolve"})
    view = E.view(state)
    assert view["history"][-1]["won"] and view["players"][0]["trophies"] == ["10D"]
    assert view["players"][1]["rest_area"] == ["2D"]


def test_mage_switch_needs_a_mage_a_blue_enemy_and_a_blue_mercenary():
    state = play(start(), reveal("10C"), *[{"type": "commit", "player": p, "card": c} for p, c in
                                           enumerate(["4S", "6D", "3C"])])
    refused(state, {"type": "mage_switch", "player": 1}, "blue")
    state = play(start(), reveal("10D"), *[{"type": "commit", "player": p, "card": c} for p, c in
                                           enumerate(["4D", "6S", "3C"])])
    refused(state, {"type": "mage_switch", "player": 0}, "not a Mage")
    refused(state, {"type": "mage_switch", "player": 1}, "no face-up blue")


def test_thief_takes_a_treasure_of_equal_level():
    events = [reveal("7H")] + [{"type": "commit", "player": p, "card": c} for p, c in enumerate(["9S", "8D", "7C"])]
    state = play(start(), *events, {"type": "resolve"})
    assert E.view(state)["players"][2]["treasures"] == ["7H"]
    # ... unless a scroll destroys that mercenary first.
    state = play(start(), *events, {"type": "play_scroll", "player": 0, "card": "QS", "target": 2}, {"type": "resolve"})
    assert E.view(state)["players"][0]["treasures"] == ["7H"]


def test_thief_swaps_the_highest_yellow_mercenary_for_a_scroll():
    state = play(start(), reveal("QD"), {"type": "thief_swap", "player": 2, "card": "9C"})
    view = E.referee_view(state)
    assert view["players"][2]["hand_known"] == ["QD"] and view["exile"] == ["9C"] and state.phase == "reveal"
    bottom = play(start(options={"thief_swap_card": "dungeon_bottom"}), reveal("QD"),
                  {"type": "thief_swap", "player": 2, "card": "9C"})
    assert bottom.dungeon_count == state.dungeon_count + 1 and bottom.exile == ()
    refused(play(start(), reveal("QD")), {"type": "thief_swap", "player": 1, "card": "9C"}, "not a Thief")
    refused(play(start(), reveal("8H")), {"type": "thief_swap", "player": 2, "card": "9C"}, "revealed scroll")
    hands = [["AS", "2S", "3S", "AD", "2D", "AH", "BJ"], ["3D", "4D", "5D", "4S", "5S", "6S", "2H"],
             ["AC", "9C", "JC", "4C", "6D", "7D", "3H"]]
    known = play(dealt(hands, top=["QD"]), *[{"type": "choose_guild", "player": p, "guild": g}
                                             for p, g in enumerate("SDC")], {"type": "reveal"})
    refused(known, {"type": "thief_swap", "player": 2, "card": "9C"}, "highest yellow")
    known = play(known, {"type": "thief_swap", "player": 2, "card": "JC"})
    assert "QD" in known.players[2].known and "JC" in known.exile


def test_swordsmen_ties_need_a_black_mercenary():
    state = play(start(), reveal("8H"), *[{"type": "commit", "player": p, "card": c} for p, c in
                                          enumerate(["5D", "5C", "2C"])], {"type": "resolve"})
    assert state.phase == "prize"


# --- trap played from hand ------------------------------------------------------------------------------------------

def hand_trap(options=None, face_down=False):
    state = play(start(options=options), reveal("JS"),
                 *[{"type": "commit", "player": p, "card": c} for p, c in enumerate(["5S", "4D", "3C"])],
                 {"type": "play_trap", "player": 1, "card": "SJ"},
                 {"type": "trap_card", "player": 1} if face_down else {"type": "trap_card", "player": 1, "card": "6D"},
                 {"type": "trap_call", "player": 0, "call": "even"}, {"type": "trap_call", "player": 2, "call": "odd"})
    return play(state, {"type": "trap_reveal", "card": "6D"} if face_down else {"type": "trap_reveal"})


def test_hand_trap_exiles_the_wrong_callers_mercenary():
    state = hand_trap()
    assert state.exile == ("3C", "SJ", "6D")
    assert E.view(state)["battlefield"]["players_total"] == 9


def test_hand_trap_card_face_down_then_named():
    assert hand_trap(face_down=True).exile == ("3C", "SJ", "6D")


def test_hand_trap_card_back_to_hand_option():
    state = hand_trap({"hand_trap_card": "back_to_hand"})
    assert state.exile == ("3C", "SJ") and "6D" in state.players[1].known


def test_hand_trap_blocks_the_verdict_until_revealed():
    state = play(start(), reveal("JS"), *[{"type": "commit", "player": p, "card": c} for p, c in
                                          enumerate(["5S", "4D", "3C"])], {"type": "play_trap", "player": 1, "card": "SJ"})
    refused(state, {"type": "resolve"}, "must be resolved first")
    refused(state, {"type": "trap_call", "player": 0, "call": "odd"}, "must first put")
    state = play(state, {"type": "trap_card", "player": 1, "card": "6D"})
    refused(state, {"type": "trap_call", "player": 1, "call": "odd"}, "does not call")
    refused(state, {"type": "trap_reveal"}, "still to call")


# --- rest area ---------------------------------------------------------------------------------------------------------

def test_rest_area_size_option():
    state = fight(play(start(options={"rest_area_size": 1}), reveal("JS")), "JD", "5D", "4C")
    state = fight(play(state, reveal("10S")), "JC", "3D", "2C")
    view = E.referee_view(state)
    assert view["players"][0]["rest_area"] == ["JC"] and view["players"][0]["hand_known"] == ["JD"]


# --- trades and corrections ---------------------------------------------------------------------------------------------

def test_trades_one_for_one_many_for_one_and_zero_for_one():
    state = play(start(), {"type": "trade", "a": 0, "b": 1, "a_gives": ["5S"], "b_gives": ["QD"]})
    assert state.players[0].known == ("QD",) and state.players[1].known == ("5S",)
    state = play(state, {"type": "trade", "a": 0, "b": 2, "a_gives": ["2S", "3S"], "b_gives": ["JC"]})
    assert [p.hand_count for p in state.players] == [6, 7, 8]
    state = play(state, {"type": "trade", "a": 1, "b": 2, "a_gives": 0, "b_gives": 1})
    assert [p.hand_count for p in state.players] == [6, 8, 7]
    refused(state, {"type": "trade", "a": 1, "b": 1, "a_gives": ["4D"]}, "two different")
    refused(state, {"type": "trade", "a": 1, "b": 2}, "at least one card")
    refused(state, {"type": "trade", "a": 1, "b": 2, "a_gives": ["QD"]}, "cannot be in Bob's hand")


def test_unnamed_trade_from_a_fully_known_hand_forgets_its_cards():
    state = E.new_game({"players": NAMES, "seed": 11})
    state = play(state, {"type": "trade", "a": 0, "b": 1, "a_gives": 2})
    assert state.players[0].known == () and state.players[0].hand_count == 5
    assert len(state.unseen) == 5 + 2


def test_correct_hand_size_balances_against_the_dungeon_or_a_player():
    state = play(start(), {"type": "correct_hand_size", "player": 0, "count": 8})
    assert state.players[0].hand_count == 8 and state.dungeon_count == 28
    state = play(state, {"type": "correct_hand_size", "player": 1, "count": 6, "other": 2})
    assert [p.hand_count for p in state.players] == [8, 6, 8]
    refused(state, {"type": "correct_hand_size", "player": 1, "count": 6}, "already has 6")
    refused(E.new_game({"players": NAMES, "seed": 1}), {"type": "correct_hand_size", "player": 1, "count": 6},
            "dungeon's order is known")


# --- end of the game ----------------------------------------------------------------------------------------------------

def test_five_high_trophies_win_at_once():
    state = start()
    plan = [("10S", "JD", "AD", "AC"), ("JS", "9S", "2D", "2C"), ("10C", "9D", "3D", "3C"),
            ("JC", "8S", "4D", "4C"), ("10D", "8D", "5D", "5C")]
    for enemy, *cards in plan:
        assert state.phase == "reveal"
        state = fight(play(state, reveal(enemy)), *cards)
    view = E.view(state)
    assert view["players"][0]["trophies"] == ["10S", "JS", "10C", "JC", "10D"]
    assert view["phase"] == "over" and view["result"]["reason"] == "trophies" and view["result"]["winners"] == [0]


def test_trophy_threshold_options():
    state = fight(play(start(options={"trophies_to_win": 1, "trophy_min_level": 10}), reveal("10S")), "JC", "AD", "AC")
    assert E.view(state)["result"]["winners"] == [0]
    state = fight(play(start(options={"trophies_to_win": 1}), reveal("9S"), reveal("2H")), "JC", "AD", "AC")
    assert state.phase == "reveal"  # a level-9 trophy does not count


def test_out_at_two_cards_and_all_out_is_a_draw():
    two = ["Ann", "Bob"]
    state = fight(play(start(two, {"out_at_hand_size": 6}, ("S", "D")), reveal("JS")), "AS", "AD")
    result = E.view(state)["result"]
    assert {**result, "text": english(from_json(result["text"]))} == {"winners": [], "winner_names": [], "reason": "all_out",
                                                                     "text": "Ann, Bob go out together: a draw."}


def test_out_players_skip_turns_and_the_last_one_wins():
    state = start(options={"out_at_hand_size": 6})
    state = play(state, {"type": "trade", "a": 2, "b": 0, "a_gives": 1})      # Cid 6 cards, Ann 8
    state = play(state, reveal("5H"), {"type": "assign", "player": 0})           # Cid is out after this encounter
    assert state.players[2].out and not state.players[1].out and state.turn == 1
    refused(state, {"type": "trade", "a": 2, "b": 0, "a_gives": 1}, "out of the game")
    state = fight(play(state, reveal("10S")), "JS", "AD")
    assert state.phase == "over" and E.view(state)["result"]["winner_names"] == ["Ann"]


@pytest.mark.parametrize("trade,winner", [(None, None), ({"a": 2, "b": 1, "a_gives": 1}, 1), ("third", 0)])
def test_empty_dungeon_most_treasures_then_most_cards_then_draw(trade, winner):
    four = ["Ann", "Bob", "Cid", "Dee"]
    state = start(four, {"hand_size": 12}, ("S", "D", "C", "H"))
    assert state.dungeon_count == 2
    if isinstance(trade, dict):
        state = play(state, {"type": "trade", **trade})
    state = play(state, reveal("5H"), {"type": "assign", "player": 0})
    state = play(state, reveal("6H"), {"type": "assign", "player": 0 if trade == "third" else 1})
    result = E.view(state)["result"]
    assert result["reason"] == "dungeon_empty"
    assert result["winners"] == ([] if winner is None else [winner])


# --- illegal events, phases, view, replay --------------------------------------------------------------------------------

@pytest.mark.parametrize("event,message", [
    ({"type": "fly"}, "unknown event type"),
    ({"type": "reveal", "card": "KS"}, "King"),
    ({"type": "reveal", "card": "ZZ"}, "unknown"),
    ({"type": "reveal"}, "needs 'card'"),
    ({"type": "commit", "player": 0, "card": "5S"}, "reveal"),
    ({"type": "resolve"}, "reveal"),
    ({"type": "reveal", "player": 1, "card": "5S"}, "Ann's turn"),
    ({"type": "choose_guild", "player": 0, "guild": "S"}, "not allowed now"),
    ({"type": "trade", "a": 0, "b": 7, "a_gives": 1}, "seat number"),
    ("not a mapping", "mapping"),
])
def test_illegal_events_change_nothing(event, message):
    refused(start(), event, message)


def test_a_bug_in_a_handler_surfaces_as_itself_not_as_a_refusal(monkeypatch):
    """A KeyError inside the engine is a bug: the table must see it fail, not read it as 'illegal move'."""
    from companion.games.dungeon import engine as dungeon_engine

    def broken(game, event):
        return game.work["no such key"]

    monkeypatch.setitem(dungeon_engine._HANDLERS, "reveal", broken)
    with pytest.raises(KeyError):
        E.apply(start(), reveal("5S"))


def test_a_card_code_the_card_model_cannot_read_is_a_refusal():
    refused(play(start(), reveal("5S"), reveal("9H")), {"type": "commit", "player": 0, "card": "ZZ"}, "ZZ")


def test_a_named_card_cannot_be_in_two_places():
    state = play(start(), reveal("5S"), reveal("9H"))
    refused(state, {"type": "commit", "player": 0, "card": "5S"}, "on the battlefield")
    refused(state, {"type": "commit", "player": 0, "card": "9H"}, "not a mercenary")
    known = play(dealt(HANDS, top=["JS"]), *[{"type": "choose_guild", "player": p, "guild": g}
                                              for p, g in enumerate("SDC")])
    refused(known, {"type": "reveal", "card": "10S"}, "top card is J♠")
    known = play(known, {"type": "reveal", "card": "JS"})
    refused(known, {"type": "commit", "player": 0, "card": "4S"}, "in Bob's hand")
    refused(known, {"type": "commit", "player": 0, "card": "10S"}, "in the dungeon")


def test_view_lists_every_ruling_with_its_option_value():
    view = E.view(start(options={"friend_multiplied": True}))
    options = {r["option"]: r["value"] for r in view["rulings"] if r["option"]}
    assert options["friend_multiplied"] is True and options["ties_go_to_enemy"] is False
    assert set(view["options"]) == set(Options.__dataclass_fields__)
    ids = [r["id"] for r in view["rulings"]]
    assert len(ids) == len(set(ids)) == len(RULINGS)
    every_option = set(Options.__dataclass_fields__) - {"hand_size", "trophies_to_win", "trophy_min_level"}
    assert every_option <= {r["option"] for r in view["rulings"]}


def test_every_event_appends_a_log_line():
    state = start()
    for event in [reveal("10C"), {"type": "commit", "player": 0, "card": "5S"}]:
        after = play(state, event)
        assert len(after.log) > len(state.log)
        state = after


def test_replay_and_undo_through_the_shared_helpers():
    setup = {"players": NAMES}
    events = [{"type": "choose_guild", "player": p, "guild": g} for p, g in enumerate("SDC")] + \
             [reveal("3D"), {"type": "commit", "player": 0, "card": "5S"}]
    engine = get_engine("dungeon")
    state = replay(engine, setup, events)
    assert state == replay(engine, setup, events)
    previous, kept = undo(engine, setup, events)
    assert previous == replay(engine, setup, events[:-1]) and kept == events[:-1]
    with pytest.raises(IllegalEvent, match="event 5"):
        replay(engine, setup, events[:4] + [{"type": "resolve"}])


def test_camera_path_redeals_trust_the_table_and_keep_counts():
    state = E.new_game({"players": NAMES})
    state = play(state, {"type": "redeal_suit", "player": 0, "suit": "D", "count": 2})
    assert state.players[0].hand_count == 7 and state.dungeon_count == 29 and state.phase == "guilds"
    state = play(state, {"type": "redeal_suit", "player": 1, "suit": "C", "cards": ["2C", "5C"], "drawn": ["9S", "QD"]})
    assert sorted(state.players[1].known) == ["9S", "QD"] and "2C" in state.unseen
    refused(state, {"type": "redeal_suit", "player": 1, "suit": "C", "cards": ["2D"]}, "only C cards")
    for seat in range(3):
        state = play(state, {"type": "redeal_four", "player": seat})
    assert state.phase == "guilds" and [p.hand_count for p in state.players] == [7, 7, 7]
    state = play(state, {"type": "choose_guild", "player": 0, "guild": "S"})
    refused(state, {"type": "redeal_four", "player": 1}, "only when every player")


def test_a_deal_may_name_only_the_known_top_of_the_dungeon_and_part_of_a_hand():
    state = E.new_game({"players": NAMES, "deal": {"dungeon": ["3D", "9S"], "hands": [["5S"], [], []]}})
    assert audit(state) == [] and state.players[0].known == ("5S",) and state.players[0].hand_count == 7
    view = E.view(state)
    assert view["dungeon_known_top"] == 2 and not view["dungeon_order_known"] and view["dungeon_count"] == 29
    state = play(state, *[{"type": "choose_guild", "player": p, "guild": g} for p, g in enumerate("SDC")])
    refused(state, {"type": "reveal", "card": "9S"}, "top card is 3♦")
    state = fight(play(state, {"type": "reveal"}), "5S", "4D", "2C")
    state = play(state, {"type": "reveal"}, reveal("5H"))
    assert E.view(state)["battlefield"]["enemy_power"] == 27
    state = fight(state, "JS", "10D", "6C")
    refused(state, {"type": "reveal"}, "needs 'card'")
    state = play(state, reveal("AC"))
    assert audit(state) == [] and state.dungeon == ()
    with pytest.raises(InvalidSetup, match="more than"):
        E.new_game({"players": NAMES, "deal": {"hands": [["AS"] * 1 + ["2S", "3S", "4S", "5S", "6S", "7S", "8S"], [], []]}})


def test_an_event_that_leaves_a_face_down_card_impossible_is_refused():
    hands = [["AS", "2S", "3S", "AD", "2D", "10C", "BJ"], ["JS", "AH", "8H", "2H", "3H", "4H", "6H"],
             ["4C", "5C", "6C", "7C", "8D", "9D", "QS"]]
    state = play(dealt(hands, top=["9H"]), *[{"type": "choose_guild", "player": p, "guild": g}
                                             for p, g in enumerate("SHC")], {"type": "reveal"})
    state = play(state, {"type": "commit", "player": 1})  # Bob's only possible entry is the J♠
    refused(state, {"type": "trade", "a": 1, "b": 0, "a_gives": ["JS"]}, "no possible identity")
    refused(state, {"type": "turn_up", "player": 1, "card": "AH"}, "is a treasure")
    assert E.view(play(state, {"type": "turn_up", "player": 1, "card": "JS"}))["battlefield"]["commits"][0]["power"] == 11
    with_no_entry = play(dealt(hands, top=["9H"]), *[{"type": "choose_guild", "player": p, "guild": g}
                                                     for p, g in enumerate("SHC")], {"type": "reveal"},
                         {"type": "trade", "a": 1, "b": 0, "a_gives": ["JS"]})
    refused(with_no_entry, {"type": "commit", "player": 1}, "holds no non-treasure card")


def test_the_public_view_never_shows_a_hand_only_the_referee_view_does():
    state = start()
    public, referee = E.view(state), E.referee_view(state)
    assert all("hand_known" not in p for p in public["players"])
    assert all("hand_known" in p for p in referee["players"])
    assert [p["hand_count"] for p in public["players"]] == [p["hand_count"] for p in referee["players"]]
    assert json.dumps(public).count('"hand_known"') == 0


def test_events_are_parsed_once_into_typed_frozen_operations():
    import dataclasses

    from companion.games.dungeon.engine import EVENT_TYPES
    from companion.games.dungeon.operations import MISSING, PARSERS, Commit, PlayScroll, Trade

    assert set(PARSERS) == set(EVENT_TYPES)   # one operation per event type
    commit = PARSERS["commit"]({"type": "commit", "player": "Ann", "card": "9s"})
    assert commit == Commit("Ann", "9s")      # kept as sent: checked by the handler, after the phase
    with pytest.raises(dataclasses.FrozenInstanceError):
        commit.card = "9H"  # type: ignore[misc]
    assert PARSERS["trade"]({"type": "trade", "a": 0, "b": 1}) == Trade(0, 1, [], [])
    assert PARSERS["play_scroll"]({"type": "play_scroll", "player": 0, "card": "QS"}) == PlayScroll(0, "QS", MISSING, None)


def test_a_seat_left_out_and_a_seat_sent_as_null_are_refused_differently():
    state = play(start(), reveal("5S"), reveal("9H"))
    refused(state, {"type": "pass"}, "needs 'player'")
    refused(state, {"type": "pass", "player": None}, "got None")
