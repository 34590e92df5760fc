"""A question about two events together: both are read out of it, each is looked for by its own words, and neither is
taken for a question about the present."""
import pytest

from memory.latest_word import asks_present_state
from memory.two_events import two_events


@pytest.mark.parametrize("question, events", [
    ("How many days passed between the day I repotted the spider plant and the day I gave Mrs. Johnson cuttings?",
     ("I repotted the spider plant", "I gave Mrs. Johnson cuttings")),
    ("Which event happened first, the road trip to the coast or the arrival of the new prime lens?",
     ("the road trip to the coast", "the arrival of the new prime lens")),
    ("Which book did I finish reading first, 'The Hate U Give' or 'The Nightingale'?",
     ("'The Hate U Give'", "'The Nightingale'")),
    ("搬家和入职之间隔了多少天？", ("搬家", "入职")),
    ("我是先买车还是先搬家的？", ("买车", "搬家")),
    ("买车还是搬家在前？", ("买车", "搬家")),
])
def test_the_two_events_a_question_asks_about_are_read_out_of_it(question, events):
    assert two_events(question) == events


@pytest.mark.parametrize("question", ["Did Caroline go to the beach or the park?", "What do I drink now, tea or coffee?",
                                      "我现在喝咖啡还是喝茶？", "where do I live?"])
def test_a_question_about_one_thing_names_no_two_events(question):
    assert two_events(question) is None


@pytest.mark.parametrize("question", [
    "How many days passed between the day I repotted my spider plant and the day I gave away cuttings?",
    "Which did I start first, my pottery class or my Spanish lessons?",
    "How long is it between my move to Leeds and my start at Arup?",
])
def test_a_question_about_two_events_asks_about_no_present_state(question):
    assert not asks_present_state(question)


def test_the_latest_word_on_a_topic_is_no_answer_to_a_question_about_two_events(minilm_engram):
    from tests.helpers import remember_daily, results_after_all

    remember_daily(minilm_engram, ["repotted the spider plant today into a bigger terracotta pot, roots were everywhere",
                                   "spider plant leaves are going brown at the tips, too much water?",
                                   "gave Mrs. Johnson next door a few cuttings from my spider plant, she was thrilled",
                                   "moved the spider plant to the bathroom shelf, it loves the humidity"])
    found = results_after_all(minilm_engram, "How long is it between the day I repotted the spider plant and the day "
                                             "I gave Mrs. Johnson a few cuttings?")
    assert "bathroom shelf" not in found[0].unit.content
