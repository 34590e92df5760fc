"""A present-state question about something no slot class knows is answered by the latest word on its topic."""
import pytest

from memory.extract.attributes import statement_topics
from memory.latest_word import EARLIER_ON_TOPIC, LATEST_WORD, asks_present_state
from memory.slots import asks_about_before
from tests.helpers import at, check_latest_first_and_earlier_behind, remember_daily, results_after_all


@pytest.fixture
def engram(minilm_engram):
    return minilm_engram


def recalled(engram, question: str):
    return engram.recall(question, as_of=at("2025-01-01T00:00:00"))


def top(engram, question: str) -> str:
    return recalled(engram, question).results[0].unit.content


def remember_over_a_year(engram, messages: list[str]) -> None:
    """Three messages: a first word, a question some weeks later, a later word a year on."""
    for message, moment in zip(messages, ("2023-01-30", "2023-03-12", "2024-02-01")):
        engram.remember(message, at=at(f"{moment}T09:00:00"))


def remember_meal_kits(engram) -> None:
    engram.remember("I'm subscribed to HelloFresh on the family plan.", at=at("2024-03-02T09:00:00"))
    engram.remember("The family plan is cheaper per head.", at=at("2024-03-05T09:00:00"))
    engram.remember("Cancelled HelloFresh and signed up for Gousto instead.", at=at("2024-09-10T09:00:00"))
    engram.remember("Plus the kids love the pasta recipes.", at=at("2024-09-12T09:00:00"))


def test_a_later_statement_on_the_best_matchs_topic_comes_first(engram):
    remember_meal_kits(engram)
    result = recalled(engram, "Which meal kit service am I subscribed to now?")
    assert "Gousto" in result.results[0].unit.content
    assert LATEST_WORD in result.results[0].why
    assert "subscribed to HelloFresh" in result.results[1].unit.content


def test_a_question_about_before_keeps_the_earlier_word_first(engram):
    remember_meal_kits(engram)
    assert "subscribed to HelloFresh" in top(engram, "Which meal kit service was I subscribed to before?")


def test_a_later_turn_on_another_topic_does_not_jump(engram):
    engram.remember("I'm subscribed to HelloFresh on the family plan.", at=at("2024-01-10T09:00:00"))
    engram.remember("I love walking by the river in autumn, my favourite season.", at=at("2024-06-20T09:00:00"))
    assert "HelloFresh" in top(engram, "Which meal kit service am I subscribed to?")
    engram.remember("Cancelled HelloFresh and signed up for Gousto instead.", at=at("2024-07-20T09:00:00"))
    assert "Gousto" in top(engram, "Which meal kit service am I subscribed to?")


def test_a_value_a_slot_rule_settled_is_not_displaced_by_later_chatter(engram):
    engram.remember("By trade I'm a carpenter.", at=at("2024-03-04T09:32:00"))
    engram.remember("These days I'm a driving instructor, my knees couldn't take carpentry any more.",
                    at=at("2024-06-01T10:06:00"))
    engram.remember("My knees ache when it rains.", at=at("2024-06-03T10:23:00"))
    assert "driving instructor" in top(engram, "What do I do for work these days?")


def test_a_word_that_only_closes_a_value_answers_a_yes_no_question_only(engram):
    engram.remember("I have a Peloton subscription, I ride it every morning.", at=at("2024-01-01T09:00:00"))
    engram.remember("Subscription boxes are a scam.", at=at("2024-01-03T09:00:00"))
    engram.remember("Sold the Peloton, it was just a clothes horse.", at=at("2024-06-01T09:00:00"))
    assert "Sold the Peloton" in top(engram, "Do I still have my Peloton?")
    assert "Sold the Peloton" not in top(engram, "Which bike do I ride every morning?")


def test_present_state_questions_are_told_from_questions_about_the_past():
    assert asks_present_state("Which gym do I go to now?")
    assert asks_present_state("Which meal kit service do we pay for?")
    assert asks_present_state("我现在住在哪里？")
    assert not asks_present_state("Which gym did I go to before?")
    assert not asks_present_state("Where did Caroline move to?")
    assert not asks_present_state("When is the US election?")
    # a question that sums up a period asks about all of it, not about the latest word
    assert asks_present_state("How many cats do I have now?")
    assert not asks_present_state("How many graduation ceremonies have I attended in the past three months?")
    assert not asks_present_state("How often did I go climbing?")
    assert not asks_present_state("How much have I spent on gym fees so far?")


def test_a_question_about_a_period_does_not_put_the_latest_word_first(engram):
    remember_meal_kits(engram)
    result = recalled(engram, "How many meal kit services have I subscribed to so far?")
    assert not any(LATEST_WORD in found.why for found in result.results)
    found = [found.unit.content for found in result.results]
    assert any("subscribed to HelloFresh" in text for text in found) and any("Gousto" in text for text in found)


def test_a_statement_with_its_subject_dropped_is_marked_told_without_a_topic():
    assert statement_topics("Cancelled HelloFresh and signed up for Gousto.") == [("told", False)]
    assert statement_topics("Sold the Peloton, it was just a clothes horse.") == [("told", True)]
    assert ("said", False) in statement_topics("I moved to Leeds.")
    assert statement_topics("The high street is dying.") == []
    assert statement_topics("Training for the half marathon now, long runs of 16k.") == [("told", False)]
    assert statement_topics("Evening walks are getting darker.") == []  # a noun in -ing is no news


def test_a_chinese_question_puts_the_latest_own_turn_holding_its_topic_word_first(engram):
    """MiniLM does not read Chinese: the topic is the question's word (吉他), and the user's latest turn holding
    it comes first, above the earlier one and above a question the user asked before it."""
    engram.remember("吉他入门一般要学多久？", at=at("2024-02-20T09:00:00"))
    engram.remember("报了个吉他班，每周六上课，终于开始学乐器了", at=at("2024-03-01T09:00:00"))
    engram.remember("手指长茧一般要多久", at=at("2024-04-10T09:00:00"))
    engram.remember("吉他班不去了，手指疼得受不了，学费也不退，算了算了", at=at("2024-06-01T09:00:00"))
    result = recalled(engram, "我还在学吉他吗？")
    assert "吉他班不去了" in result.results[0].unit.content
    earlier = next(r for r in result.results[1:] if "报了个吉他班" in r.unit.content)
    assert not earlier.valid and EARLIER_ON_TOPIC in earlier.why  # left behind by the latest word
    assert "吉他班不去了" in top(engram, "我现在还在上吉他课吗？")


def test_a_chinese_word_on_the_topic_never_goes_above_a_later_best_match(engram):
    """The later best match may say it anew in words of its own (全飞秒, no 眼镜): the older turn holding the
    question's word stays below it."""
    engram.remember("眼镜又被我压歪了，近视600度不戴啥也看不见", at=at("2024-02-01T09:00:00"))
    engram.remember("全飞秒做完一个月了！现在起床第一眼就能看清天花板，感觉像换了双眼睛", at=at("2024-07-01T09:00:00"))
    engram.remember("防蓝光眼镜到底有没有用", at=at("2024-08-01T09:00:00"))
    assert "全飞秒" in top(engram, "我现在还需要戴眼镜吗？")


def test_the_users_earlier_word_the_latest_word_leaves_behind_is_history(engram):
    """"gave up the piano" raised over "piano lesson every thursday …" (the same topic by meaning, said later): the
    earlier word stays among the results, marked no longer true."""
    engram.remember("piano lesson every thursday with Mr Okafor, grade 2 pieces are getting hard",
                    at=at("2024-02-01T09:00:00"))
    engram.remember("are digital keyboards ok for learning or do you need a real piano?", at=at("2024-03-01T09:00:00"))
    engram.remember("gave up the piano, could not make thursdays work with the new shifts", at=at("2024-06-01T09:00:00"))
    result = recalled(engram, "Do I still take piano lessons?")
    assert "gave up the piano" in result.results[0].unit.content
    earlier = next(r for r in result.results if "Mr Okafor" in r.unit.content)
    assert not earlier.valid and EARLIER_ON_TOPIC in earlier.why


def test_a_chinese_latest_word_leaves_the_users_earlier_turns_on_its_topic_behind(engram):
    engram.remember("今天又点了两杯奶茶，喜茶yyds", at=at("2024-02-01T09:00:00"))
    engram.remember("奶茶里的珍珠到底是啥做的啊", at=at("2024-03-01T09:00:00"))
    engram.remember("戒奶茶第40天！掉了三斤，继续坚持", at=at("2024-06-01T09:00:00"))
    result = recalled(engram, "我现在还喝奶茶吗？")
    assert "戒奶茶" in result.results[0].unit.content
    by_text = {r.unit.content: r for r in result.results}
    assert not by_text["今天又点了两杯奶茶，喜茶yyds"].valid
    assert by_text["奶茶里的珍珠到底是啥做的啊"].valid  # a question the user asked is no word of theirs


def test_the_users_earlier_word_on_the_topic_of_a_best_match_said_later_is_history(engram):
    """The best match is the latest word already ("stopped the piano lessons", a slot rule's answer): the user's
    earlier word close to it in meaning is shown as no longer true (the instrument rules read it too, and the piano it
    names is the one given up: either says so)."""
    engram.remember("piano lesson with Mrs Abara every tuesday now, working on grade 3 pieces", at=at("2024-02-01T09:00:00"))
    engram.remember("who wrote clair de lune? stuck in my head all day", at=at("2024-03-01T09:00:00"))
    engram.remember("stopped the piano lessons, couldnt keep up with practice on top of work", at=at("2024-06-01T09:00:00"))
    engram.remember("my niece just passed her grade 1 violin!! so proud of her", at=at("2024-07-01T09:00:00"))
    result = recalled(engram, "Am I still taking music lessons?")
    assert "stopped the piano lessons" in result.results[0].unit.content
    by_text = {r.unit.content: r for r in result.results}
    earlier = by_text["piano lesson with Mrs Abara every tuesday now, working on grade 3 pieces"]
    assert not earlier.valid and (EARLIER_ON_TOPIC in earlier.why or "earlier word on user.instrument" in earlier.why)
    assert by_text["who wrote clair de lune? stuck in my head all day"].valid  # a question is no word of the user's


def test_a_later_statement_that_names_the_same_thing_is_on_its_topic_however_far_its_meaning(engram):
    """MiniLM puts the two Wayfarer messages at 0.42, under the same-topic mark; the name they share says it."""
    engram.remember("Took the Wayfarer out on the lake again, perfect wind today.", at=at("2024-03-02T09:00:00"))
    engram.remember("The lake cafe has new owners, the cake is worse.", at=at("2024-04-02T09:00:00"))
    engram.remember("sold the Wayfarer to a bloke from the club, never had the time for it.",
                    at=at("2024-05-02T09:00:00"))
    result = recalled(engram, "Do I still take the boat out on the lake?")
    assert "sold the Wayfarer" in result.results[0].unit.content
    assert LATEST_WORD in result.results[0].why


@pytest.mark.parametrize("entity, a_name", [
    ("Wayfarer", True), ("Marco", True), ("Maya", True), ("Junior", True), ("Octavia", True),
    ("Sunday", False), ("june", False), ("March", False), ("Sept", False), ("£20", False), ("2009", False),
])
def test_a_time_or_a_number_is_no_shared_name_but_a_name_that_begins_like_a_month_is(entity, a_name):
    from memory.recall import _NOT_A_NAME

    assert (not _NOT_A_NAME.search(entity)) == a_name


def test_a_later_chinese_switch_that_names_what_the_best_match_held_goes_above_it(engram):
    """The gym slot reads "办了乐刻的月卡"; "…后来转去了铁馆" has no word of gyms, but it switches, and it names
    乐刻, which the best match holds: it is the latest word, and the best match is left behind."""
    engram.remember("办了乐刻的月卡，离家就五百米，挺方便的", at=at("2023-10-08T09:00:00"))
    engram.remember("练完腿第二天楼梯都下不去怎么办", at=at("2023-10-15T09:00:00"))
    engram.remember("乐刻那边器械太少了，后来转去了铁馆，教练还挺专业", at=at("2023-12-06T09:00:00"))
    result = recalled(engram, "我最近在哪家健身房锻炼？")
    assert "铁馆" in result.results[0].unit.content
    earlier = next(r for r in result.results if "乐刻的月卡" in r.unit.content)
    assert not earlier.valid and EARLIER_ON_TOPIC in earlier.why


def test_a_chinese_switch_that_shares_no_word_with_the_best_match_stays_below_it(engram):
    engram.remember("头发一直在街口阿杰那剪，手艺没得说", at=at("2023-10-08T09:00:00"))
    engram.remember("手机换成了小米，拍照还行", at=at("2023-12-06T09:00:00"))
    assert "阿杰" in top(engram, "我现在在哪家店理发？")


def test_a_chinese_change_leaves_behind_earlier_turns_sharing_a_word_the_segmenter_split(engram):
    """jieba cuts "跑团群" as 跑 / 团群 and "跟跑团去" as 跟 / 跑 / 团去: the two turns share 跑团 as a pair of characters."""
    engram.remember("周六跟跑团去奥森跑了15公里，腿废了但好开心", at=at("2023-04-15T09:00:00"))
    engram.remember("跑鞋买亚瑟士还是索康尼啊", at=at("2023-05-06T09:00:00"))
    engram.remember("膝盖受伤了，医生说半年不能跑，跑团群也退了，唉", at=at("2023-07-21T09:00:00"))
    result = recalled(engram, "我现在还参加那个跑步俱乐部的活动吗？")
    assert "跑团群也退了" in result.results[0].unit.content
    earlier = next(r for r in result.results if "奥森" in r.unit.content)
    assert not earlier.valid


@pytest.mark.parametrize("messages, question, ended", [
    # the gym slot reads "办了威尔士的年卡"; the later ending names 威尔士 with no word of gyms
    (["办了威尔士的年卡，一周去三次，先练起来", "在健身房练完要不要拉伸", "威尔士卡到期没续，实在去不动了，以后在家跳操吧"],
     "我还在去健身房吗？", "没续"),
    # the gym slot reads "办了超级猩猩的季卡", which holds no word of the question; the later ending shares 健身 with 健身房
    # and says the card went back
    (["办了小区楼下超级猩猩的季卡 先冲一波", "健身房练背一周几次合适", "健身卡折腾了好久终于退掉了 以后在家跳绳"],
     "我还在健身房练吗", "退掉了"),
    # the gym slot reads "办了楼下乐刻的月卡"; "卡退掉了" shares no word with it or the question, but names 卡, the head of
    # 月卡 (a compound's last character): it ends the card
    (["办了楼下乐刻的月卡 这回一定坚持", "健身房练背一周几次合适", "卡退掉了 离得太远 现在晚上就在小区跳绳"],
     "我现在还去健身房吗", "卡退掉了"),
])
def test_a_later_chinese_ending_on_the_topic_answers_a_yes_no_question(engram, messages, question, ended):
    """A later ending that names what the best match held, or shares a thing the question names, goes above it."""
    remember_over_a_year(engram, messages)
    result = recalled(engram, question)
    assert ended in result.results[0].unit.content
    assert LATEST_WORD in result.results[0].why


@pytest.mark.parametrize("messages, question, latest", [
    # now somewhere else, 了 closing the clause
    (["我每周一三在公司楼下的威尔士撸铁", "健身前喝咖啡有用吗", "现在去一兆韦德了 离地铁近 之前的卡让给同事了"],
     "我现在在哪家健身？", "一兆韦德"),
    # from a moment on
    (["入职腾讯第一周 工位还挺宽敞", "面试的时候怎么谈薪资比较好", "offer签了 下个月起去拼多多 这边交接完就走"],
     "我现在在哪家公司上班", "拼多多"),
    # a new pastime taken up
    (["最近在学尤克里里 每天练半小时", "乐器店的老板推荐我买个调音器", "尤克里里早放下了 最近迷上了手碟 声音太治愈了"],
     "我现在在学啥乐器", "手碟"),
    # from now on
    (["每天早上在瑞幸买一杯生椰拿铁", "咖啡喝多了会心慌吗", "公司楼下开了家Manner 便宜又好喝 以后就在这买了"],
     "我现在早上在哪买咖啡", "Manner"),
])
def test_a_later_chinese_switch_in_more_words_goes_above_the_slots_answer(engram, messages, question, latest):
    """The slot's rules read the first statement; the later one says the user moved on in words of its own, and its score
    is half or more of the best match's that no rule lifted."""
    remember_over_a_year(engram, messages)
    result = recalled(engram, question)
    assert latest in result.results[0].unit.content


def test_a_later_statement_that_tells_a_change_is_on_the_topic_at_a_lower_mark(engram):
    """MiniLM puts the two insurance messages at 0.39, under the same-topic mark (0.45): the later one says it
    moved, which is half of saying it is about the same thing."""
    engram.remember("ugh finally sorted out health insurance, went with bluecross through work for now",
                    at=at("2024-01-08T09:00:00"))
    engram.remember("how do i even read an EOB statement?? the insurance paperwork makes zero sense",
                    at=at("2024-02-14T09:00:00"))
    engram.remember("my coworker keeps saying HSA accounts are worth it, thoughts?", at=at("2024-03-02T09:00:00"))
    engram.remember("open enrollment came around again and i moved us over to aetna. premiums like 80 bucks cheaper a "
                    "month 🙌", at=at("2024-04-19T09:00:00"))
    engram.remember("remind me to call the pharmacy tmrw abt refills", at=at("2024-04-22T09:00:00"))
    result = recalled(engram, "which company covers my medical plan these days?")
    assert "aetna" in result.results[0].unit.content
    assert LATEST_WORD in result.results[0].why


def test_a_later_chinese_turn_that_only_holds_the_topic_word_leaves_nothing_behind(engram):
    """"相册里翻到大学时候的照片" holds 照片 and is the latest such turn, but it tells no state: the move to 阿里云盘
    is not shown as no longer true because of it."""
    engram.remember("手机照片全都备份在百度网盘，下载慢得要死但懒得换", at=at("2023-07-02T09:00:00"))
    engram.remember("周末花了一下午把所有照片迁到阿里云盘了，终于不限速了哈哈", at=at("2023-11-03T09:00:00"))
    engram.remember("相册里翻到大学时候的照片 太青涩了", at=at("2023-11-20T09:00:00"))
    result = recalled(engram, "我的照片现在存在哪个云端？")
    moved = next(r for r in result.results if "阿里云盘" in r.unit.content)
    assert moved.valid


@pytest.mark.parametrize("first, later, question, new", [
    ("fyi for the budget: our service charge is £1,200 a year, due in april",
     "letter from the managing agent, starting january we're paying £1,450 a year. for a new lift nobody asked for",
     "how much is my service charge now?", "1,450"),
    ("我们小区停车费一个月300 还算便宜", "物业通知下个月起停车费涨到450 真离谱", "我现在停车费一个月多少钱", "450"),
])
def test_a_new_amount_from_a_moment_is_the_latest_word(engram, first, later, question, new):
    """A price that changes from a moment on ("starting january", 涨到) is a change, so the later message is on the topic
    of the first at the change's lower mark."""
    engram.remember(first, at=at("2024-01-08T09:00:00"))
    engram.remember(later, at=at("2024-11-14T09:00:00"))
    result = recalled(engram, question)
    assert new in result.results[0].unit.content
    earlier = next(r for r in result.results if r.unit.content == first)
    assert not earlier.valid


def test_a_later_ending_that_shares_only_a_generic_word_with_the_question_stays_below(engram):
    """东西 ("things") names nothing, though jieba tags it as a place: "那家店的东西太难吃了 再也不去了" ends a visit to a
    shop, not the allergy the slot rule answers with."""
    engram.remember("我对虾过敏 吃了会起疹子", at=at("2023-06-02T09:00:00"))
    engram.remember("那家店的东西太难吃了 再也不去了", at=at("2023-06-20T09:00:00"))
    assert "虾" in top(engram, "我有什么不能吃的东西吗？")


def test_a_chinese_habit_now_told_with_dou_is_a_switch_above_the_slots_answer(engram):
    """The drink slot reads "每天早上一杯冰美式"; "现在早上都是一杯热豆浆了" names no drink the rules know, but 现在…都是 tells what
    the mornings are now: it is the latest word, and the coffee is left behind."""
    check_latest_first_and_earlier_behind(engram, ["我每天早上必须一杯冰美式 不然醒不过来", "咖啡喝多了会心慌吗",
                                                   "胃不太好 现在早上都是一杯热豆浆了 习惯了也还行"],
                                          "我早上现在喝啥", "豆浆", "冰美式")


def test_a_chinese_end_holding_a_character_of_a_yes_no_question_answers_it_above_the_slot(engram):
    """The smoking slot reads "一天差不多半包烟"; "戒了 已经三个月没抽了" shares no word with it, but it ends something and
    holds 抽 of "我现在还抽烟吗"."""
    engram.remember("一天差不多半包烟 老婆天天念叨", at=at("2023-10-08T09:00:00"))
    engram.remember("抽烟的人跑步是不是更容易喘", at=at("2023-10-15T09:00:00"))
    engram.remember("戒了 已经三个月没抽了 自己都不敢信", at=at("2023-12-06T09:00:00"))
    result = recalled(engram, "我现在还抽烟吗")
    assert "三个月没抽" in result.results[0].unit.content
    assert not next(r for r in result.results if "半包烟" in r.unit.content).valid


@pytest.mark.parametrize("messages, question, new, old", [
    (["we keep the boat at Eastpoint marina, berth 22, lovely spot", "how often should i antifoul the hull?",
      "mooring fees doubled so the boat lives at gull creek marina now, quieter anyway"],
     "where do i keep my boat these days?", "gull creek", "Eastpoint"),
    (["work handed me a Lenovo Yoga for the new role, the trackpad is meh", "how do I stop my laptop fan being so loud?",
      "IT moved the whole team onto MacBook Airs this week, had to hand the Lenovo back"],
     "which laptop am i using for work now?", "MacBook", "Lenovo Yoga"),
])
def test_a_change_told_with_no_person_as_its_subject_is_the_users_latest_word(engram, messages, question, new, old):
    """"mooring fees doubled so the boat lives at gull creek marina now" has no "I" and tells of no one else: the user's
    news of their own things, which is the latest word when it tells a change on the best match's topic."""
    check_latest_first_and_earlier_behind(engram, messages, question, new, old)


def test_a_change_with_no_person_as_its_subject_is_on_the_topic_by_meaning_or_a_name_only(engram):
    """"the boat show got cancelled this year" ends something of "the boat show", a word of the best match's, but it is
    no word on where the user keeps their boat: news with no person as its subject does not join the topic by a word."""
    engram.remember("we keep the boat at Eastpoint marina, berth 22, lovely spot", at=at("2024-01-10T09:00:00"))
    engram.remember("the boat show got cancelled this year, gutted", at=at("2024-04-10T09:00:00"))
    assert "Eastpoint" in top(engram, "where do i keep my boat these days?")


@pytest.mark.parametrize("messages, question, kept", [
    # "这家店的东西好难吃 再也不去了" ends going to a shop; 东西 and 吃 of the question are in the clause before the end
    (["我对虾过敏，吃了浑身起疹子", "晚上吃什么好呢 不想点外卖", "这家店的东西好难吃 再也不去了"], "我有什么不能吃的东西吗？", "过敏"),
    # "月票退掉了" ends a bus pass: it holds 月 of 月卡, but not its head
    (["办了楼下乐刻的月卡 这回一定坚持", "健身房练背一周几次合适", "月票退掉了 以后骑车上班"], "我现在还去健身房吗", "月卡"),
])
def test_a_chinese_end_of_something_else_stays_below_the_slot(engram, messages, question, kept):
    """An end that holds a character of the question's words only in the clause before it, or a character of the best
    match's that is the head of none of its things, ends something else."""
    for message, moment in zip(messages, ("2023-10-08", "2023-10-15", "2023-12-06")):
        engram.remember(message, at=at(f"{moment}T09:00:00"))
    assert kept in top(engram, question)


def test_news_with_no_person_as_its_subject_never_goes_above_a_slots_answer(engram):
    """The car slot's latest word closed it ("No car for me any more"); "The bus stop moved down the road." tells
    a change with no person as its subject, near it in meaning, but it is no word on the user's car."""
    engram.remember("I drive everywhere, even to the gym round the corner.", at=at("2024-01-06T09:00:00"))
    engram.remember("No car for me any more, sold it, it's bike and bus now.", at=at("2024-03-17T09:00:00"))
    engram.remember("The bus stop moved down the road.", at=at("2024-03-18T09:00:00"))
    assert "No car for me" in top(engram, "Do I have a car?")


def test_a_later_chinese_switch_ranked_near_the_best_match_answers_in_its_own_right(engram):
    """"最后还是改成大理" shares no word with "我们婚礼就在三亚办", but it switches, and in one conversation about the wedding
    the ranking puts it at half the best match or more (the turn before it is its context): it answers "我们婚礼现在在哪办",
    and 三亚 is left behind."""
    check_latest_first_and_earlier_behind(engram, ["定了定了！我们婚礼就在三亚办，明年五月", "海外婚礼一般请多少人合适啊",
                                                   "跟爸妈商量完了，最后还是改成大理，老人家不想坐太久飞机"],
                                          "我们婚礼现在在哪办", "大理", "三亚", session_id="wedding")


def test_a_later_chinese_switch_ranked_far_below_the_best_match_stays_below(engram):
    """Said in conversations of their own, "最后还是改成大理" holds no word of the question and ranks at a third of the best
    match: nothing ties it to the wedding."""
    remember_daily(engram, ["定了定了！我们婚礼就在三亚办，明年五月", "海外婚礼一般请多少人合适啊",
                            "跟爸妈商量完了，最后还是改成大理，老人家不想坐太久飞机"])
    assert "三亚" in results_after_all(engram, "我们婚礼现在在哪办")[0].unit.content


def test_a_habits_time_before_something_is_no_question_about_before():
    """"before workouts" in a question about now says when a habit falls, not the time before a change."""
    assert not asks_about_before("what do I drink before the gym now?")
    assert not asks_about_before("am I still taking anything before my swims?")
    assert asks_about_before("what did I drink before the gym, back then?")
    assert asks_about_before("before the switch, who insured my car?")


def test_a_present_question_about_a_habit_before_something_puts_the_latest_word_first(engram):
    check_latest_first_and_earlier_behind(engram, ["pre-gym it's a double espresso every time, non negotiable",
                                                   "is creatine safe to take long term?",
                                                   "switched to green tea before sessions, the espresso made me "
                                                   "jittery"],
                                          "what do I drink before the gym now?", "green tea", "double espresso")


@pytest.mark.parametrize("messages, question, new, old", [
    # news with no person as its subject that states the present ("… so mornings are rooibos now")
    (["my morning coffee is a flat white from the van outside work", "why do I crash at 3pm every day?",
      "dentist moaned about the stains so mornings are rooibos now, not bad actually"],
     "what do I drink in the mornings these days?", "rooibos", "flat white"),
    # a change whose new value is named in lower case, after the verb of the change ("joined anytime")
    (["signed up at Fitzroy gym near home, $30 a month", "how many rest days do I need a week?",
      "joined anytime by the office this week, lunch sessions ftw"],
     "which gym am I a member of now?", "anytime", "Fitzroy"),
])
def test_a_later_change_that_names_its_value_goes_above_a_slots_answer(engram, messages, question, new, old):
    check_latest_first_and_earlier_behind(engram, messages, question, new, old)


@pytest.mark.parametrize("messages, question, new, old", [
    # 最近…都是: what the mornings are these days
    (["我每天早上一杯拿铁 雷打不动", "咖啡喝多了会失眠吗", "最近早上都是红枣茶了 医生说少喝咖啡"], "我现在早上喝什么", "红枣茶", "拿铁"),
    # a first visit somewhere new, after the old one was handed on
    (["我牙医是市口腔医院的李医生 人很好", "洗牙多久洗一次比较好", "李医生调走了 上周第一次去马泷齿科找的周医生"], "我现在看牙找谁", "周医生",
     "市口腔医院"),
    # a card sold on, for a yes/no question
    (["办了威尔士的年卡 这次一定坚持", "健身房一周去几次合适", "威尔士的卡在闲鱼上转让掉了 去得太少"], "我还有健身卡吗", "转让掉", "年卡"),
    # an end told bare, for a yes/no question: it ends what is being talked of
    (["我一周差不多喝三次啤酒 应酬多", "喝酒伤肝吗", "戒了！！已经两个月没碰了 体检指标好多了"], "我现在还喝酒吗", "两个月没碰", "三次啤酒"),
])
def test_a_later_chinese_word_on_the_slot_goes_above_its_answer(engram, messages, question, new, old):
    check_latest_first_and_earlier_behind(engram, messages, question, new, old)


def test_a_later_turn_that_names_only_the_kind_of_value_stays_below_a_slots_answer(engram):
    """"my hospital badge stopped working … for a new one" names a hospital, a kind of workplace, and "new" tells a
    change, but it names no workplace it went to and states no present: the employer slot's answer stays first."""
    remember_daily(engram, ["morning! back from a long night shift at Mercy General, feet are done. anyway how do i "
                            "descale a kettle", "what's a good sleep routine for rotating shifts",
                            "my hospital badge stopped working, write an email to security asking for a new one"])
    assert "Mercy General" in results_after_all(engram, "which hospital do i work at?")[0].unit.content


@pytest.mark.parametrize("messages, question, new, old", [
    # a name said by its initials is the same one ("RCM" of "Roast Club Monthly")
    (["signed up for Roast Club Monthly!! first bag comes next week", "how long do coffee beans stay fresh once opened",
      "cancelled the RCM sub, money is tight this month", "best grinder under 100 bucks?"],
     "am i still getting a monthly coffee subscription?", "cancelled the RCM sub", "Roast Club Monthly"),
    # for a yes/no question, a later end that shares a word of its own with the best match
    (["signed up for the thursday pottery wheel class at the community centre",
      "how do i stop my bowls cracking in the kiln",
      "wrist is wrecked so thats it for me and pottery, hung up my apron", "any good podcasts for long drives?"],
     "am i still in a pottery class?", "hung up my apron", "wheel class"),
    # a question whether something still holds asks about now, though it says "first"
    (["found a first edition of Dune at a charity shop for £5!!",
      "how should i store old paperbacks so they don't yellow", "rent was brutal so i let the dune go on ebay, £400"],
     "do i still have that first edition dune?", "let the dune go", "charity shop"),
    # the old one passed on, so a new one came: a change, and a switch from the best match
    (["显示器用的是一台戴尔P2419 够用", "显示器挂灯有必要买吗", "咬咬牙入了LG 27UP850的显示器 之前那台送同事了"], "我现在用的什么显示器", "LG",
     "戴尔"),
    (["客厅配了对惠威的书架音响 凑合听听", "唱片多久清洁一次啊", "咬咬牙入了一对JBL L100 之前那对送我弟了 声音差太多了真的",
      "音响放书架上要不要垫脚钉"], "我现在用的什么音响", "JBL", "惠威"),
    # who it is from now on
    (["家里请了李阿姨每周一来打扫，做得很仔细", "擦玻璃有什么好用的工具吗", "中介换了个人过来，以后是赵姐每周五上门，人挺好"], "现在是谁来我家做保洁？",
     "赵姐", "李阿姨"),
    # someone who took the user along: the user's own news
    (["这阵子固定去三里屯那个周五的开放麦", "开放麦冷场了咋办", "朋友拉我去了东四一个酒吧的麦 以后就在那儿演了"], "我最近一般在哪演开放麦", "东四",
     "三里屯"),
])
def test_a_later_word_in_more_words_goes_above_what_it_replaced(engram, messages, question, new, old):
    check_latest_first_and_earlier_behind(engram, messages, question, new, old)


@pytest.mark.parametrize("messages, question, new, old", [
    (["周六去星海琴行上吉他课 一节150 肉疼", "左手按弦老有杂音 是不是按得不够用力",
      "老师自己出来开工作室了 我也跟过去了 在五角场那边 一节还便宜30", "吉他弦多久换一次啊 琴行的人说一个月 感觉在坑我"],
     "我现在在哪上吉他课", "五角场", "星海琴行"),  # following the teacher who moved
    (["报了个成人游泳班 教练姓冯 超凶的哈哈哈", "蛙泳腿老是蹬不对 有啥窍门吗", "从这礼拜开始我们班归小周带了 说话温柔多了 终于不怕呛水了😭",
      "游完泳耳朵进水怎么弄出来啊 教练说跳一跳就行 没用"], "现在谁教我游泳", "小周", "姓冯"),  # someone else in charge
])
def test_a_chinese_switch_the_ranking_puts_near_the_best_match_goes_above_it(engram, messages, question, new, old):
    check_latest_first_and_earlier_behind(engram, messages, question, new, old, session_id="chat")


def test_initials_meet_the_name_they_stand_for():
    from memory.latest_word import initials_meet

    assert initials_meet("cancelled the VMP sub", "signed up for Vinyl Me Please!!")
    assert initials_meet("signed up for Vinyl Me Please!!", "cancelled the VMP sub")
    assert not initials_meet("cancelled the VMP sub", "signed up for Vinyl Records Monthly")


@pytest.mark.parametrize("text, switches", [
    ("这俩月都骑小电驴上班了 比地铁还快", True),  # the last few months, as 最近都
    ("这几周都在家附近的游泳馆游", True),
    ("这俩月都没怎么骑车", False),  # nothing done is no switch
    ("入了对新音箱 之前那对送我表弟了", True),  # the old one passed on
    ("之前那对还在用 挺好的", False),
    ("中介换了个人 以后是张阿姨每周三来打扫", True),  # who it is from now on
    ("以后是不是都得早起啊", False),
    ("号码已经携转过去了 每月省二十", True),  # a number moved to another network
    ("上礼拜携号转网了 月租便宜一半", True),
    ("把尼康出了 刚入了台索尼的微单", True),  # a new one bought
    ("现在理发都找楼下的小周了", True),  # whom the user goes to now
    ("老师自己出来开工作室了 我也跟过去了 在五角场那边", True),  # following someone who moved
    ("跟过去看看再说", False),
    ("从这礼拜开始我们班归小周带了 说话温柔多了", True),  # someone else in charge from now
])
def test_more_chinese_switches(text, switches):
    from memory.latest_word import _ZH_SWITCH

    assert bool(_ZH_SWITCH.search(text)) is switches
