"""A question that asks what one of the user's family is called is answered by the message that names them, not by one
that only speaks of them."""
import pytest

from memory.extract.relations import asks_their_name, introduces_by_name, users_kin_named
from tests.helpers import remember_daily, results_after_all


@pytest.fixture
def engram(minilm_engram):
    return minilm_engram


def test_the_message_that_names_the_relative_answers_what_they_are_called(engram):
    remember_daily(engram, ["my niece's birthday is coming up, good gift for an 8 yo who loves unicorns?",
                            "evening! finally finished knitting the scarf for my niece Olivia, took forever lol. quick q, "
                            "how do i block wool",
                            "knitting pattern for a beginner hat? nothing too fiddly"])
    assert "Olivia" in results_after_all(engram, "what's my niece's name?")[0].unit.content


@pytest.mark.parametrize("text, named", [
    ("finished the blanket for my nephew Theo, took ages", True),
    ("my husband is called kenji btw", True),
    ("我儿子叫乐乐，今年五岁", True),
    ("my nephew's birthday is coming up, gift ideas?", False),
    ("my nephew and I went fishing", False),
])
def test_a_relative_named_by_name(text, named):
    kin = users_kin_named("what's my nephew's name?" if "nephew" in text
                          else "what's my husband called?" if "husband" in text else "我儿子叫什么")
    assert introduces_by_name(text, kin) is named


@pytest.mark.parametrize("question, asks", [
    ("what's my nephew's name?", True), ("what are my kids called?", True), ("我儿子叫什么", True),
    ("我老公的名字是什么", True), ("what are my kids' names?", True), ("我老公现在叫什么？", True),
    ("what's my mother-in-law's name?", True),
    ("what's my son's football club called?", False), ("where does my sister live?", False),
])
def test_a_question_asks_a_relatives_name_when_the_name_follows_them(question, asks):
    assert (asks_their_name(question) is not None) is asks
