"""The learned-deck check (vision_models.checks.deck_check) answers what learning asks as a player would:
each card asked about is named from the spread's truth, the nearest top index within 30 px not named yet."""
from companion.messages import Message
from companion.vision.decks.result import LearnedCard, LearnResult


def test_each_card_asked_about_is_named_from_the_nearest_free_top_index():
    from vision_models.checks.deck_check import _name_unsure

    cards = [LearnedCard(photo=0, box=(100, 100, 130, 140), readings=[0], code="AS", sure=True),
             LearnedCard(photo=0, box=(205, 296, 235, 336), readings=[1], code="KH"),     # unsure: the 7C's corner
             LearnedCard(photo=0, box=(508, 508, 538, 548), readings=[2]),                # nearer 8D, which is taken
             LearnedCard(photo=0, box=(500, 500, 530, 540), readings=[3], code="8D"),
             LearnedCard(photo=0, box=(900, 900, 930, 940), readings=[4]),                # no top index near it
             LearnedCard(photo=1, box=(205, 296, 235, 336), readings=[0])]                # the other photo's truth
    result = LearnResult(name="d", photos=["a.jpg", "b.jpg"], cards=cards, problems=[Message("not found: %(not_found)s",
                                                                                            not_found="7C")], profile=None)
    truth = [[{"code": "AS", "top_index": [100, 100]}, {"code": "7C", "top_index": [200, 300]},
              {"code": "8D", "top_index": [505, 505]}, {"code": "9D", "top_index": [520, 525]}],
             [{"code": "QH", "top_index": [210, 290]}]]
    assert _name_unsure(result, truth, {3: "8D"}) == {1: "7C", 2: "9D", 5: "QH"}
    # what the player named already is not asked again, and a sure card is never asked
    assert _name_unsure(result, truth, {1: "7C", 3: "8D"}) == {2: "9D", 5: "QH"}
    # nothing to answer when learning has no problem
    assert _name_unsure(LearnResult(name="d", photos=["a.jpg"], cards=cards, problems=[], profile=None), truth, {}) == {}
