"""A question about the time before something the user told ("where did I work before the BBC?")."""
import pytest

from memory.before_event import before_a_change, named_before
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
    ("我回长沙之前住在哪个城市？", "长沙"),  # went back to
    ("我转专业之前学的是啥？", "专业"),  # switched, the kind named
    ("我回家之前在干嘛", None),  # one character: no name
    ("我转行当老师之前是干嘛的来着？", None),  # 转行 changes careers: "行当老师" is no name
    ("what did I drink before?", None),  # nothing named: the value before the latest
    # in lower case, in a question about the past: what the user took up, a thing of theirs, an activity
    ("What did I drink before I switched to herbal tea?", "herbal tea"),
    ("what bike did I ride before I got the e-bike?", "e-bike"),
    ("Which sport was I playing before my knee surgery?", "knee surgery"),
    ("what was i knitting before the mittens", "mittens"),
    ("What sport did I do before swimming?", "swimming"),
    ("before I went vegan, what was my diet?", "vegan"),
    ("before I went vegan what was my diet", None),  # where the clause ends is not written
    ("what do I eat before the gym", None),  # a habit, not a time
    ("what did I eat before bed?", None),  # a routine
    ("Where was I living before I moved to be near my sister?", None),  # why, not what
    ("我之前住哪", None),
    ("换诊所之前我看的是哪家", None),  # a kind switched, whose first mention is the old one
    ("我换手机之前用的什么牌子", None),
    ("what did I buy before Christmas?", None),  # days, months and feasts come round again
    ("what did I do before Monday?", None),
    # a name typed in lower case
    ("before hoboken, where was i living?", "hoboken"),
    ("which gym was i going to before crunch", "crunch"),
    ("where did i work before now?", None),
    ("what was i doing before lunch", None),
    # the doer of a change: the time before the user first told of them
    ("what running shoes was i wearing before the podiatrist changed them?", "podiatrist"),
    ("where did i work before the layoffs started?", "layoffs"),
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


def test_before_something_taken_up_in_lower_case_is_the_time_before_the_user_said_so():
    with open_engram() as eng:
        remember_daily(eng, [
            "Coffee, black, no sugar, four cups a day.",
            "my sister swears by peppermint tea for sleep",  # someone else's: not when the user began
            "I've switched to herbal tea, chamomile mostly. sleeping so much better",
            "the chamomile ran out, need to order more herbal tea",
        ])
        result = eng.recall("What did I drink before I switched to herbal tea?")
        assert read_as_a_time(result)
        assert result.results[0].unit.message_id == "m0"



def test_the_word_before_is_how_the_question_asks_not_what_it_is_about(tmp_path):
    """MiniLM's vectors: the hashing embedder would count "before" in the question's meaning too."""
    from memory.embed import make_embedder

    with open_engram(tmp_path / "home", embedder=make_embedder("local")) as eng:
        remember_daily(eng, [
            "my 2009 Subaru Forester just hit 200k miles, she's a trooper",
            "need new wipers before next winter, recs?",  # shares only "before"
            "traded in the old subaru and picked up a used Tesla Model 3!",
        ])
        result = eng.recall("what was I driving before the Tesla?")
        assert read_as_a_time(result)
        assert result.results[0].unit.message_id == "m0"


def test_before_a_place_named_in_lower_case_is_the_time_before_the_user_said_they_went_there():
    with open_engram() as eng:
        remember_daily(eng, [
            "loving the new flat in leith, the chippy downstairs is dangerous",
            "tips for finding a flat without a letting agent fee?",
            "rent went up again so we packed up for portobello, the beach is 5 mins away",
            "what should i check when viewing a flat, damp etc",
        ])
        result = eng.recall("before portobello, where was i living?")
        assert read_as_a_time(result)
        assert result.results[0].unit.message_id == "m0"


@pytest.mark.parametrize("question, changed", [
    ("what did i eat before the gym?", False),
    ("what phone did i have before i switched to the pixel?", True),
    ("what running shoes was i wearing before the podiatrist changed them?", True),  # someone else's doing
    ("what was my truck called before the new name?", True),  # a new one came
    ("what did i do before the new year?", False),
    ("我回成都之前住哪", True),  # went back
    ("我转专业之前学的啥", True),
    ("我之前住哪", False),
])
def test_a_question_about_before_a_change_presupposes_one(question, changed):
    assert before_a_change(question) is changed


@pytest.mark.parametrize("said, question, first", [
    (["在成都租的房子在高新区，冬天没暖气冻死了", "我朋友在重庆开了家火锅店", "回长沙快一个月了，离爸妈近，房租也便宜一半",
      "长沙周末带爸妈去哪玩好"], "我回长沙之前住在哪个城市？", "成都"),
    (["大一学的是土木工程，天天画图", "计算机专业现在好找工作吗？我表弟在选", "转专业成功！！下学期就是会计系的人了",
      "考研跨专业难不难"], "我转专业之前学的是啥？", "土木"),
])
def test_before_going_back_or_switching_is_the_time_before_the_users_word_of_it(minilm_engram, said, question, first):
    remember_daily(minilm_engram, said)  # embedded with MiniLM, as the product embeds
    result = minilm_engram.recall(question)
    assert read_as_a_time(result)
    assert first in result.results[0].unit.content and result.results[0].valid is False
