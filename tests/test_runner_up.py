"""A question that asks how things stand now ("what city am I based in at the moment?") presupposes a value that may
have changed: when the first result is the user's own word and nothing shown is yet marked as what it replaced, the
best-ranked of the user's earlier own words among the next few results that names another value is shown as the
earlier word. Not when the question does not ask about now, when the first asks something itself, for a question or
someone else's word, a later word, one that names what the first names, nor a change under a first that tells none
(then it is the answer ranked low, not a word replaced); and of what holds many values only under a first that says one
went or was switched in so many words."""
from __future__ import annotations

import pytest

from memory.recall import RANKED_NEXT
from tests.helpers import by_text, remember_daily, remember_months_apart, results_after_all


@pytest.fixture
def engram(minilm_engram):  # which earlier word ranks next is read by MiniLM's cosines
    return minilm_engram


MOVED = ["the landlord here in Tucson wants another $150 a month, is that even allowed",
         "how do I tell the council which city I'm based in now, for the voter roll?",
         "movers finally dropped everything at the new place in Spokane, it's so green here"]


def test_the_users_earlier_word_ranked_next_is_shown_as_the_earlier_word(engram):
    remember_daily(engram, MOVED)
    found = results_after_all(engram, "what city am I based in at the moment?")
    assert "Spokane" in found[0].unit.content
    earlier = by_text(found, "Tucson")
    assert earlier.valid is False and RANKED_NEXT in earlier.why


@pytest.mark.parametrize("question, messages", [
    # no "now": nothing presupposes a change
    ("what city am I based in?", MOVED),
    # the first asks something itself, so it is no settled word
    ("what city am I based in at the moment?", MOVED[:2] + ["movers finally dropped everything at the new place in "
                                                            "Spokane, any tips for unpacking fast?"]),
])
def test_no_earlier_word_without_a_question_about_now_or_a_first_that_only_tells(engram, question, messages):
    remember_daily(engram, messages)
    found = results_after_all(engram, question)
    assert "Spokane" in found[0].unit.content
    assert by_text(found, "Tucson").valid is True


def test_a_question_ranked_next_is_no_earlier_word(engram):
    remember_daily(engram, MOVED)
    found = results_after_all(engram, "what city am I based in at the moment?")
    assert [rec.unit.content for rec in found[:2]] == [MOVED[2], MOVED[1]]  # the question ranks next
    assert found[1].valid is True and found[2].valid is False


def test_an_earlier_word_that_tells_before_it_asks_is_left_behind(engram):
    """The anniversary is told before the question about a trip: a word of the user's the break-up left behind (a
    message that asks first would not be)."""
    remember_daily(engram, ["me and sam are doing 3 years next month!! ideas for an anniversary trip that isnt just "
                            "paris?",
                            "my cousin just got engaged and the family group chat has exploded",
                            "sam and i split up last week. mutual, mostly. single again lol",
                            "how do people meet people these days without apps"])
    found = results_after_all(engram, "am i seeing anyone at the moment?")
    assert "split up" in found[0].unit.content
    assert by_text(found, "3 years").valid is False


def test_a_change_ranked_next_under_a_word_that_tells_none_is_no_earlier_word(engram):
    remember_daily(engram, ["what's a fair price for a second hand motorbike helmet?",
                            "sold the Triumph last weekend, guy paid cash, bit sad",
                            "my motorbike jacket is still hanging in the hallway, it's my favourite jacket"])
    found = results_after_all(engram, "do I still have a motorbike?")
    assert "jacket" in found[0].unit.content and "sold the Triumph" in found[1].unit.content
    assert found[1].valid is True


def test_no_second_earlier_word_once_one_is_marked(engram):
    remember_months_apart(engram, ["I work at Deloitte, mostly audit",
                                   "the coffee at work is terrible these days, Nespresso pods again",
                                   "I work at Monzo now, started in March"])
    found = results_after_all(engram, "where do I work these days?")
    assert "Monzo" in found[0].unit.content
    assert by_text(found, "I work at Deloitte").valid is False  # the word the latest replaced
    assert by_text(found, "coffee").valid is True


def test_a_switch_in_so_many_words_ranked_next_under_a_word_that_tells_no_change_is_no_earlier_word(engram):
    remember_months_apart(engram, ["公司换了代发银行 工资卡改成浦发了 先记一下", "发工资啦！银行短信说工资卡到账了 这个月终于有奖金了",
                                   "银行理财靠谱吗"])
    found = results_after_all(engram, "我工资卡现在是哪个银行的")
    assert "发工资啦" in found[0].unit.content and "改成浦发" in found[1].unit.content
    assert found[1].valid is True


@pytest.mark.parametrize("messages, question, first, left", [
    # an end ("不练了")
    (["今天普拉提课做了个侧板，骄傲", "有什么好用的运动手环推荐吗", "那家工作室的卡到期没续，不练了。现在每周二跟同事打乒乓球"],
     "我目前在做什么运动？", "乒乓球", "普拉提"),
    # a switch in so many words (改成)
    (["医生给我开了氯雷他定 每天一片", "花粉季出门戴什么口罩好", "过敏药改成西替利嗪了 之前那个吃了上班老犯困"],
     "我现在吃的过敏药是哪种？", "西替利嗪", "氯雷他定"),
])
def test_of_what_holds_many_the_earlier_word_is_left_behind_by_one_that_went(engram, messages, question, first, left):
    remember_months_apart(engram, messages)
    found = results_after_all(engram, question)
    assert first in found[0].unit.content
    assert by_text(found, left).valid is False


@pytest.mark.parametrize("messages, first, kept", [
    # someone else's word
    (["my sister lives in Boise now and keeps telling me to move there", MOVED[1], MOVED[2]], "Spokane", "Boise"),
    # a later word
    ([MOVED[1], MOVED[2], "the Number 9 bus took twenty minutes today, standing room only"], "Spokane", "Number 9"),
    # one that names what the first names
    (["the rain in Spokane has been relentless all week, my shoes never dry", MOVED[1], MOVED[2]], "movers",
     "relentless"),
    # a change under a first that tells none: the answer ranked low
    ([MOVED[1], MOVED[2], "the bus to Riverfront Park is always late at the moment, twenty minutes today"],
     "Riverfront", "Spokane"),
])
def test_what_ranks_next_is_no_earlier_word(engram, messages, first, kept):
    remember_daily(engram, messages)
    found = results_after_all(engram, "what city am I based in at the moment?")
    assert first in found[0].unit.content
    assert by_text(found, kept).valid is True
