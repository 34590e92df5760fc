"""Two things of the user's that change once in years: how they see well (glasses, contact lenses, laser surgery; where
they get them made) and what heats their home (a gas boiler, a heat pump), in English and Chinese."""
import pytest

from memory.extract.attributes import statement_marks
from memory.recall import _matching_attributes
from memory.slots import SLOTS
from tests.helpers import check_latest_first_and_earlier_behind, remember_daily, results_after_all


@pytest.fixture
def engram(minilm_engram):  # the latest word's rules read MiniLM's cosines
    return minilm_engram


@pytest.mark.parametrize("text, mark", [
    ("new glasses came in! round gold frames, feel v grown up", "§eyewear"),  # what came, its "my" dropped
    ("had lasik done on friday!! dont need specs at all anymore", "§eyewear"),  # a procedure, the "I" dropped
    ("switched to daily contacts, being able to see in the rain is a game changer", "§eyewear"),
    ("开始戴隐形了 用的博士伦 月抛的", "§eyewear"),
    ("全飞秒做完一个月了！现在起床就能看清天花板", "§eyewear"),  # the thing first, then what was done
    ("这次就在明目视光那配的 验光超仔细", "§eyewear"),  # where the glasses were made
    ("our worcester bosch combi is banging again, engineer can't come till thurs", "§heating"),
    ("boiler's GONE, the fitters took it out when the heat pump went in", "§heating"),  # a thing that went
    ("家里装了地暖 冬天终于不冷了", "§heating"),
])
def test_how_the_user_sees_and_heats_their_home_is_marked(text, mark):
    assert mark in statement_marks(text)


@pytest.mark.parametrize("question, asks", [
    ("do i wear specs or contacts?", True),
    ("what contacts am i wearing now?", True),
    ("我现在戴的隐形是啥牌子？", True),
    ("我现在一般在哪配眼镜", True),
    ("what are the specs of my laptop?", False),  # a laptop's specs
    ("who are my emergency contacts?", False),  # a phone's contacts
    ("我们公司用的什么前端框架", False),  # a framework
])
def test_a_question_asks_how_the_user_sees_by_words_of_sight_only(question, asks):
    asked = _matching_attributes([slot.name for slot in SLOTS], set(question.lower().split()), question)
    assert ("eyewear" in asked) is asks


def test_a_question_about_glasses_now_is_answered_by_the_surgery_that_ended_them(engram):
    check_latest_first_and_earlier_behind(
        engram, ["new glasses came in! round gold frames from Specsavers, feel v grown up",
                 "how do i stop my glasses fogging up when it's cold out",
                 "had lasik done on friday!! dont need specs at all anymore, reading the clock from bed is wild",
                 "is it worth getting travel insurance for a week in spain?"],
        "do i still wear glasses?", "lasik", "Specsavers")


def test_a_question_about_the_boiler_is_answered_by_the_heat_pump_that_replaced_it(engram):
    check_latest_first_and_earlier_behind(
        engram, ["our worcester bosch combi is doing that banging noise again, engineer can't come till thurs",
                 "how do i bleed a radiator? the top of the hall one is stone cold",
                 "boiler's GONE, the fitters took it out yesterday when the heat pump went in",
                 "roughly what's the standing charge on gas right now"],
        "do we still have a gas boiler?", "fitters took it out", "worcester bosch")


def test_a_chinese_question_about_where_glasses_are_made_now_is_answered_by_the_new_shop(engram):
    check_latest_first_and_earlier_behind(
        engram, ["今天在宝岛眼镜配了副新眼镜 花了一千二 心疼死", "防蓝光镜片到底有没有用啊",
                 "以后不去那家了 同事推荐了个小店叫明目视光 验光超仔细 这次就在那配的", "眼镜多久换一次比较好"],
        "我现在一般在哪配眼镜", "明目视光", "宝岛眼镜")


def test_a_question_about_the_job_before_one_is_answered_by_the_stretch_of_work_told_before_it(engram):
    remember_daily(engram, ["long week as a teaching assistant at oakfield primary, year 2 were feral today",
                            "how do i explain a career change in an interview without sounding flaky",
                            "first day as a ward clerk at the royal free done, so much admin",
                            "how do i ask my old boss for a reference politely"])
    assert "teaching assistant" in results_after_all(engram, "what was my job before the hospital one?")[0].unit.content


def test_a_chinese_question_about_the_car_before_the_change_is_answered_by_the_one_still_driven_then(engram):
    remember_daily(engram, ["开的还是那辆二手卡罗拉，油耗倒是挺省的", "车险续保哪家便宜点？",
                            "提车啦 比亚迪海豹，终于开上电车了", "开车去成都自驾有啥要注意的吗"])
    assert "卡罗拉" in results_after_all(engram, "我换车之前开的什么")[0].unit.content
