"""Statements that name the user's thing before any "I" ("car insurance renewed with Geico"), leave "the old" one,
count the years together, and, in Chinese, drop the subject after an ellipsis or say who the landlord is."""
import pytest

from memory.extract.attributes import statement_marks
from memory.extract.facts import find_statements
from tests.helpers import at, remember_daily, results_after_all


@pytest.fixture
def engram(minilm_engram):  # the latest word's rules read MiniLM's cosines
    return minilm_engram


@pytest.mark.parametrize("text, mark", [
    ("car insurance renewed with Geico, $1,140 for 6 months", "§insurer"),  # the thing first, "my" dropped
    ("building got sold last month, new owner is Harborview Property Mgmt", "§landlord"),
    ("Progressive quote came in at half, pulled the trigger. cancelled the old policy this morning", "§insurer"),
    ("handed over the keys to the buyer today. officially car-free", "§car~no"),
    ("valentines dinner w/ Jordan tonight, 2 years together 🥹", "§partner"),
    ("楼下那家店倒闭了…现在改去超级猩猩上团课", "§gym"),  # a clause after an ellipsis
    ("这周办了移动的千兆 装好了 速度起飞", "§broadband"),  # gigabit, bought
    ("今年没续原来那家了，太贵，转到人保", "§insurer"),  # an insurer by its name
    ("用的还是华为P40，三年了还挺流畅", "§phone_model"),
    ("入了iPhone 15，第一次用苹果", "§phone_model"),
    ("我房东是个上海阿姨，姓陈，人挺好", "§landlord"),
    ("私教课跟的是小周，练得挺狠的", "§gym"),  # a personal trainer, the thing first
    ("前阵子换了个私教，现在跟阿May练", "§gym"),  # 前阵子, a while ago
    ("哈喽哈喽～今天终于下班早了，在4S店卖车真的累", "§occupation"),  # work by what is done where
    ("ok porting done, visible by verizon now, unlimited for $25", "§mobile_network"),
    ("First week at The Foundry Collective, quieter than my old spot and they have standing desks", "§coworking"),
    ("keys handed back, officially an Evanston resident now 🎉", "§home_location"),
    ("一天一包红塔山，我知道不好但是戒不掉", "§smoking"),  # a brand by the pack; 戒不掉 is no quitting
    ("公司工资卡统一办的招商银行，卡号记一下", "§bank"),
    ("my tutor's away all summer so I'm doing lessons with Marco instead", "§language"),  # a tutor of the language
])
def test_a_statement_as_chat_types_it_is_marked_with_its_attribute(text, mark):
    assert mark in statement_marks(text)


@pytest.mark.parametrize("text", ["marco moved to florida 😢", "the meeting got moved to friday",
                                  "my parents just hit 30 years together", "我妈是个急性子"])
def test_someone_elses_news_or_a_thing_of_no_attribute_is_marked_with_none(text):
    assert not [mark for mark in statement_marks(text) if mark != "§others"]


def test_a_landlord_introduced_with_a_description_is_not_someone_elses_news():
    assert "§others" not in statement_marks("我房东是个上海阿姨，姓陈，人挺好")


def test_an_insurer_moved_to_is_no_new_employer():
    assert not [found for found in find_statements("今年没续原来那家了，太贵，转到人保，便宜了800多")
                if found.attribute == "employer"]


# (messages in time order, question, what the first result says, what an earlier result says that is history now)
LATEST_AND_EARLIER = {
    "the old policy cancelled is a switch and the new insurer answers": (
        ["car insurance renewed with Geico, $1,140 for 6 months which feels like robbery",
         "someone dinged my door in the parking lot, is it worth filing a claim?",
         "Progressive quote came in at almost half, pulled the trigger. cancelled the old policy this morning"],
        "who insures my car these days?", "Progressive", "Geico"),
    "an insurer named in lower case is history once another replaced it": (
        ["renewed car insurance w geico again, 1140 for the yr on the civic. pricey",
         "whats the diff between comprehensive and collision coverage again",
         "ok got a quote from progressive thats like 300 cheaper so i swtiched, cancelled the old policy today"],
        "what company is my car insured with now?", "progressive", "geico"),
    "a question about a child's school finds the latest school and not the user's": (
        ["I did my masters at Leeds University, best two years",
         "my daughter started first grade at Maple Elementary!",
         "any tips for packing school lunches a 6 year old will actually eat?",
         "my daughter switched to Oakwood Primary after the move, she loves it"],
        "what school does my daughter go to now?", "Oakwood", "Maple"),
    "a chinese question about a child's school is answered by the child's care": (
        ["儿子9月开始上实验小学一年级啦", "一年级孩子作业要陪写吗，每天搞到10点", "这学期给他转到明德小学了，离家近，班主任也靠谱"],
        "我儿子现在在哪个学校上学", "明德", "实验小学"),
}


@pytest.mark.parametrize("case", LATEST_AND_EARLIER)
def test_the_latest_word_answers_and_the_earlier_one_is_history(engram, case):
    messages, question, latest, earlier = LATEST_AND_EARLIER[case]
    remember_daily(engram, messages)
    result = results_after_all(engram, question)
    assert latest in result[0].unit.content
    assert any(earlier in r.unit.content and not r.valid for r in result)


def test_a_rent_question_finds_the_landlord_described_in_chinese(engram):
    engram.remember("我房东是个上海阿姨，姓陈，人挺好，就是有点啰嗦", at=at("2023-05-10T09:00:00"))
    engram.remember("房租涨了500，能跟房东砍价吗", at=at("2023-09-15T09:00:00"))
    result = results_after_all(engram, "我每个月的房租是交给谁的？")
    assert "姓陈" in result[0].unit.content


@pytest.mark.parametrize("text, mark", [
    ("儿子9月开始上实验小学一年级啦", "§childcare"),  # where the user's child is taught
    ("my son started at Maple Elementary this week", "§childcare"),
    ("年后闺女转到实验二小了，离家走路十分钟", "§childcare"),  # 二小, a school by its number
    ("my daughter switched to Oakwood Primary after the move", "§childcare"),
    ("我家闺女在育才小学上二年级，每天接送累死", "§childcare"),
])
def test_where_the_users_child_is_taught_is_the_childs_care(text, mark):
    assert mark in statement_marks(text)


@pytest.mark.parametrize("text", ["I teach at a primary school in Leeds",
                                  "my son needs new school shoes, he's shot up to a size 4 overnight"])
def test_school_words_that_say_no_childs_school_are_no_childs_care(text):
    assert "§childcare" not in statement_marks(text)


@pytest.mark.parametrize("question, attribute", [("我现在用什么方法减肥？", "diet"), ("我现在在哪儿锻炼？", "gym"),
                                                 ("我之前的私教叫啥？", "gym"), ("who's my personal trainer?", "gym"),
                                                 ("what school does my son go to now?", "childcare"),
                                                 ("what's the name of my French tutor?", "language")])
def test_a_question_in_other_words_asks_for_its_attribute(question, attribute):
    from memory.recall import _matching_attributes

    assert attribute in _matching_attributes([attribute], set(), question)


def test_a_practice_that_went_private_hands_the_user_on_to_the_next_dentist(engram):
    engram.remember("Booked my check-up with Mr Patel at Abbey Road Dental for next Thursday", at=at("2023-03-01T09:00:00"))
    engram.remember("Is it normal for gums to bleed a bit after a scale and polish at the dentist?",
                    at=at("2023-06-01T09:00:00"))
    engram.remember("Right, registered with a new NHS practice since Abbey Road went private, it's Smile Studio in "
                    "Headingley, Dr Fenwick", at=at("2024-01-10T09:00:00"))
    result = results_after_all(engram, "Remind me who my dentist is now?")
    assert "Fenwick" in result[0].unit.content


def test_cannot_quit_is_no_quitting():
    assert "§said~no" not in statement_marks("一天一包红塔山，我知道不好但是戒不掉")
