"""The Chosen referee: every ruling, every refusal, and the card-conservation invariant on hand-built games."""
from __future__ import annotations

import json

import pytest

from companion.games import get_engine, replay, undo
from companion.games.base import IllegalEvent, InvalidSetup, UnknownOption
from companion.games.chosen import ENGINE, RULINGS, role
from companion.games.chosen.pieces import ONE_DECK

# Ann holds QH 5H, Bob 7S 2H; Ann then draws 3H, Bob 9C, ...
DRAW = ["3H", "9C", "4D", "6D", "8D", "9D", "JS", "2S"]


def setup(options=None, hands=(("QH", "5H"), ("7S", "2H")), draw=DRAW, players=("Ann", "Bob"), **extra):
    return {"players": [{"name": n} for n in players], "options": options or {},
            "deal": {"hands": [list(h) for h in hands], "draw": list(draw)}, **extra}


def play(state, *events):
    for event in events:
        state = ENGINE.apply(state, event)
        ENGINE.check_conservation(state)
    return state


def refused(state, event, message):
    with pytest.raises(IllegalEvent, match=message):
        ENGINE.apply(state, event)


END = {"type": "end_turn"}


def sent_game(options=None, medicine=("5H",)):
    """Ann carries 3H (safe, hers) and 7S (radiated, from Bob) on chosen #1 with the given medicine."""
    state = ENGINE.new_game(setup(options))
    return play(state, {"type": "chip", "onto": "Ann", "card": "3H"}, END,
                {"type": "chip", "onto": "Ann", "card": "7S"}, END,
                {"type": "send", "card": "QH", "medicine": list(medicine), "discard": []})


# --- cards and setup -------------------------------------------------------------------------

def test_card_roles_follow_the_mapping():
    assert [role(c) for c in ("AH", "10D", "AS", "10C", "JH", "QS", "BJ", "SJ")] == \
        ["medicine", "medicine", "radiation", "radiation", "chosen", "chosen", "chosen", "chosen"]
    with pytest.raises(ValueError, match="King"):
        role("KH")
    counts = {r: sum(role(c) == r for c in ONE_DECK) for r in ("medicine", "radiation", "chosen")}
    assert counts == {"medicine": 20, "radiation": 20, "chosen": 10} and "KS" not in ONE_DECK


def test_registered_under_its_name():
    assert get_engine("chosen") is ENGINE


@pytest.mark.parametrize("players,option,decks", [(4, "auto", 1), (5, "auto", 2), (8, "auto", 2),
                                                  (5, "never", 1), (2, "always", 2)])
def test_second_deck_ruling(players, option, decks):
    state = ENGINE.new_game({"players": [f"P{i}" for i in range(players)], "seed": 3,
                             "options": {"second_deck": option}})
    assert state.decks == decks
    slots, _ = ENGINE.card_slots(state)
    assert slots == 50 * decks
    ENGINE.check_conservation(state)


def test_initial_deal_and_first_draw():
    state = ENGINE.new_game({"players": ["A", "B", "C"], "seed": 5})
    view = ENGINE.view(state)
    assert [p["hand_size"] for p in view["players"]] == [4, 3, 3]  # dealt 3 each; A drew up to 4
    assert view["hand_target"] == 4 and view["turn"]["player"] == "A"
    state = play(state, END)
    assert [len(h) for h in state.hands] == [4, 4, 3]


def test_no_draw_when_already_holding_the_target():
    state = ENGINE.new_game(setup())
    state = play(state, {"type": "set_hand_size", "player": "Bob", "size": 5}, END)
    assert len(state.hands[1]) == 5 and "Bob draws 0" in str(state.log[-1])


@pytest.mark.parametrize("bad,message", [
    ({"players": ["A"]}, "2-8 players"),
    ({"players": [f"P{i}" for i in range(9)]}, "2-8 players"),
    ({"players": ["A", "A"]}, "different"),
    ({"players": ["A", ""]}, "name"),
    ({"players": ["A", "B"], "seed": "x"}, "seed"),
    ({"players": [f"P{i}" for i in range(8)], "options": {"second_deck": "never"}}, "64 cards"),
    ({"players": ["A", "B"], "colour": 1}, "unknown setup"),
    ({"players": ["A", "B"], "deal": {"hands": [["KH", "AH"], ["2H", "3H"]]}}, "King"),
    ({"players": ["A", "B"], "deal": {"hands": [["AH", "AH"], ["2H", "3H"]]}}, "more copies"),
    ({"players": ["A", "B"], "deal": {"hands": [["AH"], ["2H", "3H"]]}}, "2 hands of 2"),
])
def test_bad_setup_is_refused(bad, message):
    with pytest.raises(InvalidSetup, match=message):
        ENGINE.new_game(bad)


@pytest.mark.parametrize("options,message", [({"nope": 1}, "unknown option"), ({"step_order": "any"}, "step_order"),
                                             ({"target_chips": 0}, "target_chips"), ({"must_carry_chip": "yes"}, "must_carry_chip")])
def test_bad_options_are_refused(options, message):
    with pytest.raises(UnknownOption, match=message):
        ENGINE.new_game(setup(options))


# --- hidden faces ----------------------------------------------------------------------------

def test_view_never_leaks_hidden_faces_but_referee_view_knows_them():
    state = sent_game()
    public = json.dumps(ENGINE.view(state))
    assert "7S" not in public and "3H" not in public  # the carried chips' faces
    assert "2H" not in public                           # Bob's hand
    referee = ENGINE.referee_view(state)
    assert [c["face"] for c in referee["mat"][0]["chips"]] == ["3H", "7S"]
    assert "7S" not in referee["players"][1]["hand"]
    assert all("7S" not in str(line) and "7S" not in json.dumps(line.to_json()) for line in state.log)   # nor in the data


def test_rulings_are_listed_in_the_view_with_their_options():
    view = ENGINE.view(ENGINE.new_game(setup({"step_order": "strict"})))
    ids = [r["id"] for r in view["rulings"]]
    assert ids == [r[0] for r in RULINGS]
    step = next(r for r in view["rulings"] if r["id"] == "step-order")
    assert step["option"] == "step_order" and step["value"] == "strict"
    assert view["options"]["step_order"] == "strict"


# --- a turn ------------------------------------------------------------------------------------

def test_one_chip_per_turn():
    state = play(ENGINE.new_game(setup()), {"type": "chip", "onto": "Bob", "card": "3H"})
    refused(state, {"type": "chip", "onto": "Ann", "card": "5H"}, "already put a chip")


def test_chip_needs_a_card_the_player_holds():
    refused(ENGINE.new_game(setup()), {"type": "chip", "onto": "Bob", "card": "7S"}, "does not hold 7S")


def test_chip_onto_an_unknown_player_is_refused():
    refused(ENGINE.new_game(setup()), {"type": "chip", "onto": "Cid", "card": "3H"}, "not a player")


def test_send_requires_chips_in_your_area():
    refused(ENGINE.new_game(setup()), {"type": "send", "card": "QH"}, "no chips")


def test_send_refused_after_a_chip_on_yourself():
    state = play(ENGINE.new_game(setup()), {"type": "chip", "onto": "Ann", "card": "3H"}, END, END)
    state = play(state, {"type": "chip", "onto": "Ann", "card": "5H"})
    refused(state, {"type": "send", "card": "QH"}, "put a chip on yourself")


def test_chip_on_yourself_refused_after_sending_but_on_others_allowed():
    state = play(ENGINE.new_game(setup()), {"type": "chip", "onto": "Ann", "card": "3H"}, END, END,
                 {"type": "send", "card": "QH"})
    refused(state, {"type": "chip", "onto": "Ann", "card": "5H"}, "may not put a chip on yourself")
    state = play(state, {"type": "chip", "onto": "Bob", "card": "5H"})
    assert len(state.areas[1]) == 1


def test_send_needs_a_chosen_card():
    state = play(ENGINE.new_game(setup()), {"type": "chip", "onto": "Ann", "card": "3H"}, END, END)
    refused(state, {"type": "send", "card": "5H"}, "not a chosen")
    refused(state, {"type": "send", "card": "JH"}, "does not hold JH")


def test_only_medicine_is_stacked_on_a_sent_chosen():
    state = play(ENGINE.new_game(setup(hands=(("QH", "5S"), ("7S", "2H")))), {"type": "chip", "onto": "Ann", "card": "3H"}, END, END)
    refused(state, {"type": "send", "card": "QH", "medicine": ["5S"]}, "only medicine")


def test_discarded_chips_go_unseen_and_the_rest_are_carried():
    state = ENGINE.new_game(setup())
    state = play(state, {"type": "chip", "onto": "Ann", "card": "3H"}, END,
                 {"type": "chip", "onto": "Ann", "card": "7S"}, END,
                 {"type": "send", "card": "QH", "medicine": ["5H"], "discard": [1]})
    chosen = state.mat[0]
    assert [c.face for c in chosen.chips] == ["3H"] and chosen.medicine == ("5H",)
    assert state.discard == ("7S",) and state.areas[0] == ()
    assert "discarding 1 chip unseen; it carries 1" in str(state.log[-1])
    assert "7S" not in json.dumps(ENGINE.view(state))


def test_carry_one_ruling_and_its_option():
    state = play(ENGINE.new_game(setup()), {"type": "chip", "onto": "Ann", "card": "3H"}, END, END)
    refused(state, {"type": "send", "card": "QH", "discard": [0]}, "at least one chip")
    loose = play(ENGINE.new_game(setup({"must_carry_chip": False})), {"type": "chip", "onto": "Ann", "card": "3H"}, END, END)
    assert play(loose, {"type": "send", "card": "QH", "discard": [0]}).mat[0].chips == ()


@pytest.mark.parametrize("discard", [[5], [0, 0], ["0"], [True]])
def test_bad_discard_positions(discard):
    state = play(ENGINE.new_game(setup()), {"type": "chip", "onto": "Ann", "card": "3H"}, END, END)
    refused(state, {"type": "send", "card": "QH", "discard": discard}, "chip positions")


def test_one_send_per_turn_and_its_option():
    hands = (("QH", "JH"), ("7S", "2H"))
    for sends, ok in ((1, False), (2, True)):
        state = play(ENGINE.new_game(setup({"sends_per_turn": sends}, hands=hands)),
                     {"type": "chip", "onto": "Ann", "card": "3H"}, END, {"type": "chip", "onto": "Ann", "card": "7S"}, END)
        state = play(state, {"type": "send", "card": "QH", "discard": [1]})
        # the area is empty now, so a second send needs chips: only the limit message differs
        second = {"type": "send", "card": "JH"}
        if ok:
            refused(state, second, "no chips")
        else:
            refused(state, second, "already sent")


def test_carried_chips_are_fixed_new_chips_stay_in_the_area():
    state = sent_game()
    state = play(state, {"type": "chip", "onto": "Bob", "card": "4D"}, END, {"type": "chip", "onto": "Ann", "card": "9C"})
    assert len(state.mat[0].chips) == 2 and len(state.areas[0]) == 1


def test_strict_step_order_option():
    free = sent_game()
    assert free.turn.sends == 1
    strict = play(ENGINE.new_game(setup({"step_order": "strict"})), {"type": "chip", "onto": "Ann", "card": "3H"}, END,
                  {"type": "chip", "onto": "Ann", "card": "7S"}, END, {"type": "send", "card": "QH", "medicine": ["5H"]})
    refused(strict, {"type": "chip", "onto": "Bob", "card": "4D"}, "strict")
    # free order: a chip after sending (onto someone else) is fine
    assert play(free, {"type": "chip", "onto": "Bob", "card": "4D"}).turn.chip_onto == 1


# --- cards onto chosen -------------------------------------------------------------------------

def test_medicine_and_radiation_cancel_one_for_one_into_the_discard():
    state = play(sent_game(), END)  # Bob's turn; he holds 2H, 9C, 6D
    state = play(state, {"type": "play", "card": "9C", "chosen": 1})
    assert state.mat[0].medicine == () and state.mat[0].radiation == ()
    assert sorted(state.discard) == ["5H", "9C"]
    assert "cancels 5H" in str(state.log[-1])


def test_one_card_per_turn_on_each_other_players_chosen():
    state = play(sent_game(medicine=()), END)
    state = play(state, {"type": "play", "card": "9C", "chosen": 1})
    assert state.mat[0].radiation == ("9C",)
    refused(state, {"type": "play", "card": "2H", "chosen": 1}, "already played a card onto chosen #1")


def test_any_number_of_cards_on_your_own_chosen():
    state = ENGINE.new_game(setup(hands=(("QH", "5H"), ("7S", "2H")), draw=["3H", "9C", "4D", "6D", "8D"]))
    state = play(state, {"type": "chip", "onto": "Ann", "card": "3H"}, END, END,
                 {"type": "send", "card": "QH"}, {"type": "play", "card": "5H", "chosen": 1},
                 {"type": "play", "card": "4D", "chosen": 1})
    assert state.mat[0].medicine == ("5H", "4D")


def test_per_player_limit_option():
    hands = (("QH", "JH"), ("7S", "2H"))
    for limit, second_ok in (("per_chosen", True), ("per_player", False)):
        state = play(ENGINE.new_game(setup({"sends_per_turn": 2, "other_chosen_limit": limit, "must_carry_chip": False},
                                           hands=hands, draw=["3H", "9C", "4D", "6D", "8D", "2S"])),
                     {"type": "chip", "onto": "Ann", "card": "3H"}, END, END,
                     {"type": "send", "card": "QH"}, {"type": "chip", "onto": "Bob", "card": "4D"}, END,
                     {"type": "chip", "onto": "Ann", "card": "7S"}, END)
        state = play(state, {"type": "send", "card": "JH"}, END)  # Ann: #1 and #2 on the mat
        state = play(state, {"type": "play", "card": "9C", "chosen": 1})
        second = {"type": "play", "card": "2S", "chosen": 2}
        if second_ok:
            assert play(state, second).mat[1].radiation == ("2S",)
        else:
            refused(state, second, "already played a card onto Ann's chosen")


def test_chosen_cards_cannot_be_played_onto_chosen():
    refused(sent_game(), {"type": "play", "card": "QH", "chosen": 1}, "only medicine or radiation")


def test_play_onto_a_missing_chosen():
    refused(sent_game(), {"type": "play", "card": "4D", "chosen": 7}, "no chosen #7")


# --- moving and the vault ----------------------------------------------------------------------

def test_chosen_move_ring_by_ring_on_their_owners_turn_end():
    state = sent_game()
    zones = []
    for _ in range(4):
        state = play(state, END)
        zones.append([c["zone"] for c in ENGINE.view(state)["mat"]])
    assert zones == [["step 1"], ["step 1"], ["step 2"], ["step 2"]]
    state = play(state, END)
    assert state.mat == () and len(state.verdicts) == 1


def test_move_sent_this_turn_option():
    state = sent_game({"move_sent_this_turn": False})
    state = play(state, END)
    assert ENGINE.view(state)["mat"][0]["zone"] == "departure"
    state = play(state, END, END)
    assert ENGINE.view(state)["mat"][0]["zone"] == "step 1"


def finish(state, owner_turns=3):
    """End turns until the chosen sent this turn has reached the vault."""
    for _ in range(owner_turns * 2 - 1):
        state = play(state, END)
    return state


def test_verdict_passes_when_medicine_covers_radiated_chips():
    state = finish(sent_game())
    verdict = state.verdicts[0]
    assert verdict.passed and verdict.points == 2 and verdict.radiated_chips == 1 and verdict.medicine == 1
    assert state.score == (2, 0) and state.scored[0] == ("3H", "7S")


def test_verdict_shoots_when_medicine_is_short():
    state = finish(sent_game(medicine=()))
    verdict = state.verdicts[0]
    assert not verdict.passed and verdict.points == 0 and verdict.reason == "not enough medicine"
    assert state.score == (0, 0) and {"QH", "3H", "7S"} <= set(state.discard)


def test_radiation_on_the_chosen_shoots_it_with_chips_unturned():
    state = play(sent_game(medicine=()), END, {"type": "play", "card": "9C", "chosen": 1})
    state = finish(play(state, END), owner_turns=2)
    view = ENGINE.view(state)["verdicts"][0]
    assert view["reason"] == "radiation on the chosen" and view["chips"] == [None, None] and not view["passed"]
    assert "7S" not in " ".join(str(line) for line in state.log) and "7S" not in json.dumps([line.to_json() for line in state.log])


def test_scored_chips_discard_option():
    state = finish(sent_game({"scored_chips": "discard"}))
    assert state.score == (2, 0) and state.scored[0] == () and {"3H", "7S", "QH", "5H"} <= set(state.discard)


def test_win_at_target_ends_the_game():
    state = finish(sent_game({"target_chips": 2}))
    assert state.phase == "over" and state.winners == (0,)
    assert ENGINE.view(state)["winners"] == ["Ann"]
    refused(state, END, "the game is over")


def test_below_target_play_goes_on():
    state = finish(sent_game())
    assert state.phase == "turn" and state.winners == ()


def test_team_needs_members_times_target():
    players = [{"name": "Ann", "team": "red"}, {"name": "Bob", "team": "blue"},
               {"name": "Cid", "team": "red"}, {"name": "Dee", "team": "blue"}]
    view = ENGINE.view(ENGINE.new_game({"players": players, "seed": 1, "options": {"target_chips": 1}}))
    assert [(t["team"], t["target"]) for t in view["teams"]] == [("red", 2), ("blue", 2)]
    # Ann scores 1 (her team needs 2): the game goes on; Cid's 1 more then wins it for both.
    deal = {"hands": [["QH", "AH", "2H", "3H"], ["AS", "2S", "3S", "4S"], ["JH", "4H", "5H", "6H"], ["5S", "6S", "7S", "8S"]],
            "draw": ["9H", "9S", "7H", "10S", "8H", "10C", "AD", "AC", "2D", "2C", "3D", "3C", "4D", "4C", "5D", "5C",
                     "6D", "6C", "7D", "7C", "8D", "8C", "9D", "9C"]}
    state = ENGINE.new_game({"players": players, "deal": deal, "options": {"target_chips": 1}})
    state = play(state, {"type": "chip", "onto": "Ann", "card": "AH"}, END, END,
                 {"type": "chip", "onto": "Cid", "card": "4H"}, END, END,
                 {"type": "send", "card": "QH"}, END, END, {"type": "send", "card": "JH"})
    for _ in range(7):
        state = play(state, END)
    assert state.score[0] == 1 and state.phase == "turn"
    state = play(state, END)  # Bob's turn ends
    assert state.phase == "turn" and state.turn.player == 2
    state = play(state, END)
    assert state.score[2] == 1 and state.phase == "over" and state.winners == (0, 2)


# --- piles, hands, live table --------------------------------------------------------------------

def test_empty_draw_pile_is_refilled_from_the_discard_pile():
    state = play(sent_game(), END)
    state = play(state, {"type": "play", "card": "9C", "chosen": 1})  # 5H and 9C to the discard
    state = play(state, {"type": "set_hand_size", "player": "Bob", "size": len(state.hands[1]) + len(state.draw)})
    assert state.draw == () and sorted(state.discard) == ["5H", "9C"]
    state = play(state, END, END)  # Ann's turn: she needs cards, the discard pile is shuffled in
    assert state.reshuffles == 1 and state.discard == () and "shuffled into a new draw pile" in " ".join(str(line) for line in state.log)


def test_reshuffle_is_deterministic_for_a_seed():
    a = ENGINE.new_game({"players": ["A", "B"], "seed": 9})
    assert a == ENGINE.new_game({"players": ["A", "B"], "seed": 9})
    assert a.draw != ENGINE.new_game({"players": ["A", "B"], "seed": 10}).draw


def test_hand_size_correction_moves_cards_with_the_draw_pile():
    state = ENGINE.new_game(setup())
    top = state.draw[0]
    up = play(state, {"type": "set_hand_size", "player": "Bob", "size": 3})
    assert up.hands[1][-1] == top and len(up.draw) == len(state.draw) - 1
    down = play(up, {"type": "set_hand_size", "player": "Bob", "size": 1})
    assert len(down.hands[1]) == 1 and len(down.draw) == len(state.draw) + 1
    refused(state, {"type": "set_hand_size", "player": "Bob", "size": -1}, "size")
    refused(state, {"type": "set_hand_size", "player": "Bob", "size": 99}, "not enough cards")


def test_live_table_knows_no_hand_but_still_conserves_cards():
    state = ENGINE.new_game({"players": ["Ann", "Bob", "Cid"], "seed": None})
    assert all(card is None for hand in state.hands for card in hand)
    state = play(state, {"type": "chip", "onto": "Ann"}, END, {"type": "chip", "onto": "Ann", "card": "BACK"}, END)
    assert [c.face for c in state.areas[0]] == [None, None]


def test_live_table_refuses_a_card_that_is_accounted_for_elsewhere():
    state = ENGINE.new_game({"players": ["Ann", "Bob"], "seed": None, "options": {"second_deck": "never"}})
    state = play(state, {"type": "chip", "onto": "Bob", "card": "AH"}, END)
    refused(state, {"type": "chip", "onto": "Ann", "card": "AH"}, "does not hold AH")


def test_reveal_phase_blocks_play_until_the_faces_are_given():
    state = ENGINE.new_game({"players": ["Ann", "Bob"], "seed": None})
    state = play(state, {"type": "chip", "onto": "Ann"}, END, END, {"type": "send", "card": "JD"})
    for _ in range(5):
        state = play(state, END)
    assert state.phase == "reveal"
    view = ENGINE.view(state)
    assert view["awaiting_reveal"] == {"chosen": 1, "owner": "Ann", "unseen_chips": 1}
    # what lies at the vault: the chosen itself and its chip, face down for the players
    [at_vault] = view["vault"]
    assert at_vault["card"] == "JD" and at_vault["zone"] == "vault" and at_vault["chips"] == [{"placed_by": "Ann", "turn": 1}]
    assert view["mat"] == []
    refused(state, END, "reveal its unseen chips first")
    refused(state, {"type": "reveal", "faces": []}, "1 card")
    refused(state, {"type": "reveal", "faces": ["JD"]}, "already accounted for")  # the only JD is the chosen
    done = play(state, {"type": "reveal", "faces": ["4S"]})
    assert done.phase == "turn" and done.verdicts[0].reason == "not enough medicine"


def test_reveal_outside_the_vault_is_refused():
    refused(ENGINE.new_game(setup()), {"type": "reveal", "faces": ["AH"]}, "no chosen at the vault")


def test_unseen_chip_from_a_known_hand_forgets_that_hand():
    state = play(ENGINE.new_game(setup()), {"type": "chip", "onto": "Bob"})
    assert state.hands[0] == (None, None) and state.areas[1][0].face is None


# --- protocol ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("event,message", [({"type": "dance"}, "unknown event type"), ({}, "'type'"), ("end_turn", "'type'"),
                                           ({"type": "end_turn", "player": "Bob"}, "Ann's turn"),
                                           ({"type": "chip", "card": "3H"}, "'onto'"),
                                           ({"type": "play", "card": "XX", "chosen": 1}, "bad card")])
def test_malformed_events_are_refused(event, message):
    refused(ENGINE.new_game(setup()), event, message)


def test_refusals_change_nothing():
    state = sent_game()
    before = ENGINE.referee_view(state)
    for event in ({"type": "chip", "onto": "Ann", "card": "4D"}, {"type": "send", "card": "QH"},
                  {"type": "play", "card": "QH", "chosen": 1}, {"type": "reveal", "faces": []}):
        with pytest.raises(IllegalEvent):
            ENGINE.apply(state, event)
    assert ENGINE.referee_view(state) == before


def test_replay_and_undo_match_step_by_step_play():
    events = [{"type": "chip", "onto": "Ann", "card": "3H"}, END, {"type": "chip", "onto": "Ann", "card": "7S"}, END,
              {"type": "send", "card": "QH", "medicine": ["5H"], "discard": []}, END]
    state = play(ENGINE.new_game(setup()), *events)
    assert replay(ENGINE, setup(), events) == state
    previous, kept = undo(ENGINE, setup(), events)
    assert kept == events[:-1] and previous == play(ENGINE.new_game(setup()), *events[:-1])


def test_view_is_json_ready():
    for view in (ENGINE.view(sent_game()), ENGINE.referee_view(sent_game())):
        assert json.loads(json.dumps(view)) == view  # plain JSON types only: no tuples, sets or objects


def test_one_event_cannot_take_the_same_single_card_twice_from_an_unknown_hand():
    # Found by the property test: two unknown cards of one hand must not both become the only 5H.
    state = ENGINE.new_game({"players": ["Ann", "Bob"], "seed": None, "options": {"second_deck": "never"}})
    state = play(state, {"type": "chip", "onto": "Ann"}, END, END)
    refused(state, {"type": "send", "card": "QH", "medicine": ["5H", "5H"]}, "does not hold 5H")
    sent = play(state, {"type": "send", "card": "QH", "medicine": ["5H", "6H"]})
    assert sent.mat[0].medicine == ("5H", "6H")


def test_strict_order_refuses_sending_after_playing_cards():
    state = play(sent_game({"step_order": "strict", "sends_per_turn": 2}),
                 {"type": "play", "card": "4D", "chosen": 1})
    refused(state, {"type": "send", "card": "QH"}, "strict")


def test_both_piles_empty_the_player_draws_what_there_is():
    state = ENGINE.new_game(setup())
    state = play(state, {"type": "set_hand_size", "player": "Bob", "size": len(state.hands[1]) + len(state.draw)})
    assert state.draw == () and state.discard == ()
    state = play(state, {"type": "chip", "onto": "Bob", "card": "3H"}, END, END)
    assert len(state.hands[0]) == 2 and "Ann draws 0 (only 0 left)" in str(state.log[-1])


# Every ruling of view()["rulings"] and the test(s) that pin it down.
RULING_TESTS = {
    "hidden-faces": [test_view_never_leaks_hidden_faces_but_referee_view_knows_them],
    "second-deck": [test_second_deck_ruling],
    "automatic-draw": [test_initial_deal_and_first_draw, test_no_draw_when_already_holding_the_target],
    "step-order": [test_strict_step_order_option, test_strict_order_refuses_sending_after_playing_cards],
    "one-chip": [test_one_chip_per_turn],
    "one-send": [test_one_send_per_turn_and_its_option],
    "carry-one": [test_carry_one_ruling_and_its_option],
    "send-stack": [test_only_medicine_is_stacked_on_a_sent_chosen],
    "carried-fixed": [test_carried_chips_are_fixed_new_chips_stay_in_the_area],
    "other-limit": [test_one_card_per_turn_on_each_other_players_chosen, test_per_player_limit_option,
                    test_any_number_of_cards_on_your_own_chosen],
    "number-cards-only": [test_chosen_cards_cannot_be_played_onto_chosen,
                          test_medicine_and_radiation_cancel_one_for_one_into_the_discard],
    "move-new": [test_move_sent_this_turn_option],
    "shot-unturned": [test_radiation_on_the_chosen_shoots_it_with_chips_unturned],
    "score-chips": [test_verdict_passes_when_medicine_covers_radiated_chips, test_scored_chips_discard_option],
    "win-immediately": [test_win_at_target_ends_the_game, test_team_needs_members_times_target],
    "empty-piles": [test_empty_draw_pile_is_refilled_from_the_discard_pile,
                    test_both_piles_empty_the_player_draws_what_there_is],
    "hand-correction": [test_hand_size_correction_moves_cards_with_the_draw_pile],
}


def test_every_ruling_has_a_test():
    assert set(RULING_TESTS) == {ruling_id for ruling_id, _, _ in RULINGS}


def test_unseen_chip_from_a_partly_known_hand_forgets_all_of_it():
    state = play(ENGINE.new_game(setup()), {"type": "chip", "onto": "Bob"}, END, END)
    assert state.hands[0] == (None, None, "4D")  # two forgotten cards, then a known draw
    state = play(state, {"type": "chip", "onto": "Bob"})
    assert state.hands[0] == (None, None)


def test_events_are_parsed_once_into_typed_frozen_operations():
    import dataclasses

    from companion.games.chosen.engine import ChosenEngine
    from companion.games.chosen.operations import PARSERS, Chip, Play, Send

    assert set(PARSERS) == set(ChosenEngine.EVENT_TYPES)   # one operation per event type
    send = PARSERS["send"]({"type": "send", "card": "jh", "medicine": ["2H"]})
    assert send == Send("JH", ["2H"], [])
    with pytest.raises(dataclasses.FrozenInstanceError):
        send.card = "QH"  # type: ignore[misc]
    assert PARSERS["chip"]({"type": "chip", "onto": 1}) == Chip(1, None)
    assert PARSERS["play"]({"type": "play", "card": "5S", "chosen": 2}) == Play("5S", 2)
    with pytest.raises(IllegalEvent, match="only medicine or radiation"):
        PARSERS["play"]({"type": "play", "card": "QS", "chosen": 2})
    with pytest.raises(IllegalEvent, match="bad chosen card"):
        PARSERS["send"]({"type": "send", "card": 7})
    with pytest.raises(IllegalEvent, match="chip needs 'onto'"):
        PARSERS["chip"]({"type": "chip"})
