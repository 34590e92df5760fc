"""What a change ends and what it brings: the user's earlier word on what a change names as ended is history ("stepped
back from the pantry"); a question about the time before a change it names ("我换记账软件之前") is answered by a word
that no longer holds; and the statements that tell such changes as chat types them ("found someone new", "the Kindle
arrived", 出掉 and 入了台, "送去我姐家养了", "driving for Metro Transit"), or do not ("moved my cover over to …" moves no
home, "教会旁边新开了家咖啡店" is a shop's news); a wish that asks ("业余时间想学点新东西，有啥推荐吗") is no latest word; a child's
上学 is asked of their care and 教书 of the user's work."""
import pytest

from memory.extract import is_question
from memory.extract.attributes import ended_things, statement_marks, tells_a_change
from tests.helpers import by_text, check_latest_first_and_earlier_behind, remember_daily, results_after_all


@pytest.fixture
def engram(minilm_engram):  # the latest word's rules read MiniLM's cosines
    return minilm_engram


# the user's later word comes first, and the earlier word it leaves behind is no longer true
FIRST_AND_LEFT_BEHIND = [
    pytest.param(["did my usual saturday shift at the Eastside food pantry, we packed 300 boxes!",
                  "do volunteer hours count for anything on taxes or is that just a myth?",
                  "stepped back from the pantry, the coordinator drama got to be too much. doing the "
                  "homework club at Maple Grove library on tuesdays instead, the kids are hilarious",
                  "saturday mornings are my only lie-in now and I'm loving it"],
                 "where do I volunteer these days?", "Maple Grove", "Eastside", id="what-a-change-names-as-ended"),
    pytest.param(["booked piano lessons with a lady called Hannah Greig, mondays at 6. scales are humbling",
                  "how long should an adult beginner practise each day?",
                  "so hannah retired to the coast 😭 found someone new thru a friend, Tomasz Nowak, he does "
                  "lessons at his flat on fridays"],
                 "who's my piano teacher these days?", "Tomasz", "Hannah Greig", id="someone-new-found"),
    pytest.param(["女儿在小星星托育中心，每天早上8点送过去",
                  "幼儿园入园一般要准备哪些东西？",
                  "这学期给她转到阳光幼儿园了，离家近",
                  "早上送完孩子再去上班真的好累"],
                 "女儿现在在哪上学？", "阳光幼儿园", "小星星", id="a-childs-school-is-their-care"),
]


@pytest.mark.parametrize("messages, question, first, left_behind", FIRST_AND_LEFT_BEHIND)
def test_the_latest_word_comes_first_and_leaves_the_earlier_behind(engram, messages, question, first, left_behind):
    check_latest_first_and_earlier_behind(engram, messages, question, first, left_behind)


FIRST_ANSWERS = [
    pytest.param(["续了优酷的年卡，就为了追那部古装剧",
                  "最近有啥好看的综艺推荐不",
                  "年卡到期没续了，开了芒果TV会员，为了看那个新综艺"],
                 "我开芒果TV之前用的是哪个平台的会员？", "优酷", id="renewed-before-a-named-membership"),
    pytest.param(["哈喽～刚考完教资，九月去实验中学当数学老师了哈哈",
                  "学校门口那家煎饼果子涨到10块了，离谱",
                  "批卷子批到眼睛花，有啥护眼的办法"],
                 "我在哪个学校教书？", "实验中学", id="the-school-a-user-teaches-at-is-their-work"),
    pytest.param(["周末在家练尤克里里，终于能弹完整首歌了",
                  "周末带娃去哪玩比较好，室内的",
                  "尤克里里已经吃灰半年了哈哈，现在每周末都跟朋友去公园玩飞盘",
                  "业余时间想学点新东西，有啥推荐吗"],
                 "我现在业余时间主要玩什么？", "飞盘", id="a-wish-that-asks-is-no-latest-word"),
]


@pytest.mark.parametrize("messages, question, first", FIRST_ANSWERS)
def test_the_first_result_answers(engram, messages, question, first):
    remember_daily(engram, messages)
    assert first in results_after_all(engram, question)[0].unit.content


def test_what_a_change_names_as_ended_is_what_follows_its_verb():
    assert ended_things("stepped back from the pantry, the drama got too much") == ["the pantry"]
    assert ended_things("IT swapped us all onto ThinkPads, had to hand the Dell back") == ["Dell"]
    assert ended_things("dropped the kids off, then to the gym") == []  # where the user took someone


def test_a_sentence_that_exclaims_does_not_ask():
    assert not is_question("did my first parkrun this morning, 31 minutes!")
    assert is_question("did my parcel arrive")


def test_a_thing_that_arrived_is_the_users_news():
    assert "§told" in statement_marks("ok the Kindle Paperwhite arrived today!!! setting it up now")
    assert "§told" not in statement_marks("the weather arrived late this year, still cold")  # nothing of the user's


@pytest.mark.parametrize("text, mark", [
    ("yo! been flat out since I started driving for Metro Transit, early starts", "§employer"),
    ("大黄送去我姐家养了，她家有院子", "§pet~no"),  # rehomed, as 送给…养 was
    ("最近加班多，烟又抽到一天一包了", "§smoking"),  # the thing first, then its rate
    ("having a ciggie on the back step, first one in ages", "§smoking"),  # a smoke, the subject dropped
    ("九月去实验中学当数学老师了，终于上岸", "§employer"),  # a job at the place the user goes to
    ("rang round and moved my cover over to Aviva, £40 a month", "§insurer"),  # the policy taken elsewhere
])
def test_statements_as_chat_types_them(text, mark):
    assert mark in statement_marks(text)


def test_a_policy_moved_to_another_insurer_is_no_move_of_home():
    assert "§home_location" not in statement_marks("rang round and moved my cover over to Direct Line, £51 a month")
    assert "§home_location" in statement_marks("moved to Leeds in march")


@pytest.mark.parametrize("text, changes", [
    ("相机上周出掉了，回血不少", True),  # sold
    ("上周入了台索尼A7C，轻多了", True),  # bought
    ("教会旁边新开了家咖啡店，拿铁还不错", False),  # a shop's news, not the user's
])
def test_what_tells_a_change_in_chinese(text, changes):
    assert tells_a_change(text) is changes


def test_the_answer_to_a_question_about_before_a_change_it_names_no_longer_holds(engram):
    remember_daily(engram, ["记账一直用的随手记，用了三年了",
                            "每个月工资怎么分配比较合理？",
                            "信用卡账单日和还款日有啥区别",
                            "之前那个记账软件广告太多，删了，现在改用鲨鱼记账"])
    found = results_after_all(engram, "我换记账软件之前用的是哪个？")
    assert "随手记" in found[0].unit.content
    assert found[0].valid is False


def test_a_shop_that_opened_near_somewhere_is_no_latest_word_of_the_users(engram):
    remember_daily(engram, ["刚从教会回来，这学期我在主日学带小朋友，累但是开心",
                            "周日早上实在起不来，有啥闹钟推荐",
                            "教会旁边新开了家咖啡店，燕麦拿铁还不错"])
    found = results_after_all(engram, "我在教会负责什么？")
    assert by_text(found, "主日学").valid is True


@pytest.mark.parametrize("text, only_asks", [
    ("周末想去露营，带什么装备", True),  # a wish, then the question
    ("周三晚上想吃点夜宵，有什么不长胖的", True),  # a wish at a time of its own
    ("上个月搬到深圳了，有没有省钱的建议", False),  # news, then the question
    ("今年想给自己买个包", False),  # a wish that asks nothing
    ("thinking of getting a dog, any tips?", True),
    ("moved to Leeds last month, any tips?", False),  # news, then the question
])
def test_a_message_that_tells_only_a_wish_before_it_asks_only_asks(text, only_asks):
    assert ("§questions" in statement_marks(text)) is only_asks
