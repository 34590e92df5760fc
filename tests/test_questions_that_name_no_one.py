"""A question that names no one ("where does the band rehearse now?", "what bin day was it before the council changed
it?") asks, put to a personal memory, about the user's own life: the latest word on its topic answers it and what that
word replaced is history, as for a question in the first person; and for a question about before a change, the user's
word from before it answers and no longer holds, though it names no one either ("bins go out on tuesday nights")."""
from __future__ import annotations

import pytest

from memory.latest_word import EARLIER_ON_TOPIC, names_no_one
from memory.recall import BEFORE_THE_CHANGE, RANKED_NEXT
from tests.helpers import by_text, remember_daily, results_after_all


@pytest.fixture
def engram(minilm_engram):  # the latest word on a topic is read by MiniLM's cosines
    return minilm_engram


@pytest.mark.parametrize("question, messages, latest, earlier", [
    ("where does the band rehearse now?",
     ["band rehearses in Dave's garage every thursday, neighbours hate us lol",
      "what's a good cheap vocal mic for rehearsals",
      "we rent a room at Soundlab studios for the band now, 15 quid an hour split four ways",
      "how loud is too loud for a rehearsal room"], "Soundlab", "Dave's garage"),
    ("who cuts the kids' hair these days?",
     ["the kids get their hair cut at Snips on the high street, the lady there is so patient",
      "how do you get a toddler to sit still for a haircut",
      "took the kids to Barber Joe's instead this time, half the price and they got lollies",
      "is it ok to cut a 3 year old's fringe at home"], "Barber Joe's", "Snips"),
])
def test_the_latest_word_answers_a_question_about_now_that_names_no_one(engram, question, messages, latest, earlier):
    remember_daily(engram, messages)
    found = results_after_all(engram, question)
    assert latest in found[0].unit.content
    replaced = by_text(found, earlier)
    assert replaced.valid is False and EARLIER_ON_TOPIC in replaced.why


def test_the_earlier_word_ranked_next_to_the_latest_is_history(engram):
    remember_daily(engram, ["the girls started at Brookfield Primary today, year 2 and year 4. so proud",
                            "how do i get the school to do a reading assessment",
                            "catchment changed over the summer so the girls are at St Anne's now. earlier bus, ugh",
                            "packed lunch ideas a 7 year old will actually eat?"])
    found = results_after_all(engram, "what school are the girls at right now?")
    assert "St Anne's" in found[0].unit.content
    earlier = by_text(found, "Brookfield")
    assert earlier.valid is False and RANKED_NEXT in earlier.why


@pytest.mark.parametrize("said, question, before, after", [
    (["bins go out on tuesday nights here, recycling every other week",
      "how do i get a bigger recycling bin from the council",
      "council switched our bin day to friday from next month, they sent a leaflet"],
     "what bin day was it before the council changed it?", "tuesday", "friday"),
    (["book club meets at the Crown pub, first monday of the month",
      "any good short novels for a book club that wont take forever",
      "book club moved to Jenny's flat, the pub got way too loud"],
     "where did book club meet before it moved?", "Crown", "Jenny's flat"),
])
def test_the_word_before_a_change_answers_and_no_longer_holds(engram, said, question, before, after):
    remember_daily(engram, said)
    found = results_after_all(engram, question)
    assert before in found[0].unit.content
    assert found[0].valid is False and BEFORE_THE_CHANGE in found[0].why
    assert by_text(found, after).valid is True


@pytest.mark.parametrize("question, names_no_one_", [
    ("where does the band rehearse now?", True),
    ("快递柜现在在哪", True),
    ("where does Dave's band rehearse now?", False),  # someone by a capital
    ("where did you say the band should rehearse?", False),  # the assistant
    ("band rehearsal", False),  # a few search words, not a question
])
def test_which_questions_name_no_one(question, names_no_one_):
    assert names_no_one(question) is names_no_one_
