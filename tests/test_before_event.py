"""A question about the time before something the user told ("where did I work before the BBC?")."""
import pytest

from memory.before_event import named_before
from tests.helpers import first_message_id, open_engram, remember_daily


@pytest.mark.parametrize("question, name", [
    ("where did I work before the BBC?", "BBC"),
    ("what city did I live in before I moved to Glasgow?", "Glasgow"),
    ("before I moved to Columbus, which city was I living in?", "Columbus"),
    ("what did I use before switching to Mint Mobile?", "Mint Mobile"),
    ("我换iPhone之前用的是什么手机？", "iPhone"),
    ("我去字节之前是在哪家公司上班的？", "字节"),
    ("我搬到杭州之前住在哪？", "杭州"),
    ("我来上海之前在哪座城市生活？", "上海"),
    ("what did I drink before?", None),  # nothing named: the value before the latest
    ("before I went vegan what was my diet", None),
    ("我之前住哪", None),
    ("what did I buy before Christmas?", None),  # days, months and feasts come round again
    ("what did I do before Monday?", None),
])
def test_the_name_a_before_question_is_anchored_on(question, name):
    assert named_before(question) == name


def read_as_a_time(result) -> bool:
    """Whether recall read the question as asking about the time before something named."""
    return any("of the time asked about" in why for r in result.results for why in r.why)


def test_before_a_named_job_is_the_time_before_the_users_first_statement_of_it():
    with open_engram() as eng:
        remember_daily(eng, [
            "is the BBC a good place to work? thinking of applying",  # a question: not when the BBC began
            "been at Deloitte 3 yrs now, audit work in busy season is brutal",
            "my flatmate works at PwC and never stops talking about it",
            "first week at the BBC done! digital products team, lovely people",
            "work laptop died again, IT say 3-5 working days",
        ])
        assert first_message_id(eng, "where did I work before the BBC?") == "m1"


def test_without_a_statement_naming_it_the_question_keeps_its_other_readings():
    with open_engram() as eng:
        remember_daily(eng, ["I work at Deloitte in the audit team", "is the BBC a good place to work?"])
        result = eng.recall("where did I work before the BBC?")
        assert result.results and not read_as_a_time(result)


def test_a_question_that_adds_up_what_came_before_a_named_event_also_finds_the_event():
    with open_engram() as eng:
        remember_daily(eng, ["I did the Color Run for charity today", "I ran the Run for the Cure 5k this morning"])
        result = eng.recall("How many charity runs did I do before the Run for the Cure?")
        assert not read_as_a_time(result)
        assert {r.unit.message_id for r in result.results[:2]} == {"m0", "m1"}
