"""What a change of the user's replaced: the earlier word nearest it in meaning, typed in lower case as people type;
never a message that opens by asking; and the statements that say what holds now in words the rules did not read."""
import pytest

from memory.extract import is_question
from memory.extract.attributes import statement_marks
from memory.extract.facts import asks_anything
from tests.helpers import by_text, check_latest_first_and_earlier_behind, remember_months_apart, results_after_all


@pytest.fixture
def engram(minilm_engram):  # the latest word's rules read MiniLM's cosines
    return minilm_engram


def test_a_change_leaves_behind_the_earlier_word_nearest_it_in_meaning(engram):
    remember_months_apart(engram, [
        "spin class at cyclebar again tonight, legs are jelly",
        "what should i eat before a morning workout?",
        "switched gyms, it's the climbing wall on dock road now, way more fun",
    ])
    found = results_after_all(engram, "which gym do i go to now?")
    assert "climbing wall" in found[0].unit.content
    assert by_text(found, "cyclebar").valid is False
    assert by_text(found, "what should i eat").valid is True  # a question holds no value


@pytest.mark.parametrize("said, question, first, replaced, asking", [
    # near the question in meaning (`_left_behind_by_words`)
    (["signed up at the ymca on elm st, $30 a month",
      "best gym routine if your knees are bad? lunges wreck me",
      "these days i'm basically living at Crunch on Main St, my cousin got me a guest pass deal"],
     "which gym do i go to these days?", "Crunch", "ymca", "best gym routine"),
    # ranked next to the change (`_runner_up_left_behind`)
    (["new year new me 💪 signed up at ironworks on maple, $35 a month",
      "do gyms let you freeze a membership if you get injured? pulled something in my back",
      "showed up and the place had a CLOSED sign on the door?? anyway ymca on grant ave from now on"],
     "where do i work out these days?", "ymca", "ironworks", "do gyms"),
])
def test_a_word_that_opens_by_asking_is_not_what_a_change_replaced(engram, said, question, first, replaced, asking):
    remember_months_apart(engram, said)
    found = results_after_all(engram, question)
    assert first in found[0].unit.content
    assert by_text(found, replaced).valid is False
    assert by_text(found, asking).valid is True


def test_a_word_that_tells_before_it_asks_may_be_what_a_change_replaced(engram):
    check_latest_first_and_earlier_behind(engram, [
        "our wifi is spectrum and it drops every night around 10, is it the router or them",
        "landlord signed the whole building up for google fiber so thats what we're on now. cancelled the old plan",
    ], "who's my home internet provider at the moment?", "google fiber", "spectrum")


@pytest.mark.parametrize("text, asks", [
    ("could barely walk down the stairs after leg day", False),  # the subject dropped before an adverb
    ("was so tired i slept through both alarms", False),
    ("have literally never seen snow", False),
    ("could you check my maths", True),
    ("is it normal for gums to bleed", True),
    ("what even is a sipp and do i need one", True),  # a question word before the adverb still asks
])
def test_a_verb_before_an_adverb_tells_and_one_before_its_subject_asks(text, asks):
    assert is_question(text) is asks
    assert asks_anything(text) is asks


def test_a_question_about_what_the_user_is_allergic_to_asks_for_the_allergy(engram):
    remember_months_apart(engram, [
        "fyi i come out in hives from amoxicillin, found out the hard way",
        "what's a good medication for hay fever that doesn't make me drowsy",
        "dentist wants to give me antibiotics before the extraction, should i ask which kind",
    ])
    assert "amoxicillin" in results_after_all(engram, "which medication am i allergic to?")[0].unit.content


def test_a_new_address_told_first_is_where_the_user_lives_now(engram):
    assert "§home_location" in statement_marks("new address as of saturday: Portobello. 2 min from the beach")
    assert "§home_location" not in statement_marks("new address is sam.k@proton.me, forwarding from the old one")
    check_latest_first_and_earlier_behind(engram, [
        "just signed the lease 😅 we're in Leith now, 3rd floor flat, no lift",
        "where do people store a bike if they live in a flat?",
        "new address as of saturday: Portobello. 2 min from the beach",
    ], "what neighbourhood do i live in now?", "Portobello", "Leith")


def test_the_users_own_news_after_someone_elses_doing_is_theirs(engram):
    marks = statement_marks("my sister added me to her family plan so Visible is my carrier now i guess")
    assert "§mobile_network" in marks and "§others" not in marks
    check_latest_first_and_earlier_behind(engram, [
        "im on Mint Mobile, 15gb for $20/mo, honestly cant beat it",
        "my phone keeps dropping calls in the basement, any fix?",
        "my sister added me to her family plan so Visible is my carrier now i guess",
    ], "which phone carrier am i on currently?", "Visible", "Mint Mobile")


@pytest.mark.parametrize("said, question, first", [
    (["最近观星都去怀柔那边，光污染小", "这周末有流星雨吗？想出去拍", "这阵子观星基本都在崇礼了，原来那地儿修路进不去"],
     "我最近去哪观星", "崇礼"),
    (["提车啦！春风250sr 骑起来爽歪歪", "摩托车多久换一次机油啊", "那台出给同事了，这阵子骑的是无极525ds"], "我现在骑的什么车", "无极"),
])
def test_a_chinese_habit_of_these_days_is_the_latest_word(engram, said, question, first):
    remember_months_apart(engram, said)
    assert first in results_after_all(engram, question)[0].unit.content
