import pytest
from hypothesis import given, strategies as st

from companion.cards import (
    BACK, BIG_JOKER, CLASS_INDEX, CLASS_NAMES, FULL_DECK, SMALL_JOKER, Card, InvalidCardError, Kind, Suit,
    card_for_class, class_index, parse_card,
)


@pytest.mark.parametrize("code, rank, suit", [("AS", 1, Suit.SPADES), ("10H", 10, Suit.HEARTS), ("qd", 12, Suit.DIAMONDS),
                                              ("KC", 13, Suit.CLUBS), ("TH", 10, Suit.HEARTS), (" 7c ", 7, Suit.CLUBS)])
def test_parse_standard_cards(code, rank, suit):
    card = Card.parse(code)
    assert (card.kind, card.rank, card.suit) == (Kind.STANDARD, rank, suit)


@pytest.mark.parametrize("code, card", [("BJ", BIG_JOKER), ("sj", SMALL_JOKER), ("BACK", BACK)])
def test_parse_special_cards(code, card):
    assert Card.parse(code) == card
    assert card.rank is None and card.suit is None


@pytest.mark.parametrize("bad", ["", "X", "11H", "0S", "AX", "1010H", "JOKER", "♠A", "10", None, 10])
def test_bad_codes_raise_a_clear_error(bad):
    with pytest.raises(InvalidCardError) as info:
        Card.parse(bad)
    assert "card" in str(info.value) or "rank" in str(info.value) or "suit" in str(info.value)


def test_every_card_prints_back_to_its_own_code():
    for card in FULL_DECK + (BACK,):
        assert Card.parse(str(card)) == card
        assert parse_card(card) is card


def test_a_standard_card_needs_rank_and_suit():
    with pytest.raises(InvalidCardError):
        Card(Kind.STANDARD, 14, Suit.SPADES)
    with pytest.raises(InvalidCardError):
        Card(Kind.BIG_JOKER, 3, None)


def test_colours_and_pretty_names():
    assert Card.parse("9S").is_black and not Card.parse("9S").is_red
    assert Card.parse("4D").is_red
    assert Card.parse("10H").pretty == "10♥"
    assert not BIG_JOKER.is_red and not BIG_JOKER.is_black and BIG_JOKER.is_joker
    assert BACK.is_face_down


def test_class_table_has_55_unique_codes_in_a_fixed_order():
    assert len(CLASS_NAMES) == 55 == len(set(CLASS_NAMES))
    assert CLASS_NAMES[:13] == ("AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS")
    assert CLASS_NAMES[-3:] == ("BJ", "SJ", "BACK")
    for index, name in enumerate(CLASS_NAMES):
        assert CLASS_INDEX[name] == index == class_index(name)
        assert card_for_class(index).code == name
    with pytest.raises(InvalidCardError):
        card_for_class(55)


@given(st.sampled_from(CLASS_NAMES), st.booleans())
def test_parsing_ignores_case_and_surrounding_space(code, lower):
    text = f"  {code.lower() if lower else code} "
    assert Card.parse(text).code == code
