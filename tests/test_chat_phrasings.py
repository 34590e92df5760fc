"""Things chat says without the rules' usual frames: a couple's own occasions name the partner ("third date with
Priya", "valentine's dinner with Marcus", "Jake and I hit 6 months"); a plan or a hire replaced, or a new state from
today, is a change ("change of plans … we rebooked", "fired them … brought in …", "… covered by admiral from today"); a
person is named by a title in lower case ("dr lindqvist"); a question followed only by not knowing ("… go in?? i always
forget") only asks; an account deleted is an end ("deleted my insta account"); under the user's change, the earlier
word of theirs that answers the question by its meaning, though typed in lower case, is what the change left behind,
and in Chinese the earlier turn that holds a word of the question; and for a Chinese yes/no question a later end that
shares a character of its words ("不考了" for "我还在准备考研吗") is the latest word. Chat's own ways of saying a
statement are read as statements: a title in lower case after a dropped "my" ("dentist is dr. okafor"), an emoji that
ends someone else's clause before the user's news, not renewing, a profile deactivated, a thing sold on (出掉了), 呢 that
stresses a statement, a rhetorical 谁顶得住; seeing a doctor is no partner; and a thing a Chinese question names in Latin
letters ("我还有switch吗") is its topic."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memory.extract.attributes import resolve, statement_marks, tells_a_change, tells_an_end
from memory.extract.facts import find_statements, is_question
from memory.latest_word import names_something
from tests.helpers import at, by_text, check_latest_first_and_earlier_behind, results_after_all

AT = datetime(2024, 1, 1, tzinfo=timezone.utc)


@pytest.fixture
def engram(minilm_engram):  # the earlier word is read by MiniLM's cosines
    return minilm_engram


@pytest.mark.parametrize("text, partner", [
    ("third date with Priya tonight and I think I'm in trouble (the good kind)", "Priya"),
    ("valentine's dinner with Marcus tonight, he booked the place with the tiny pastas", "Marcus"),
    ("date night w/ Marcus tonight, he's booked that tapas place on the high st", "Marcus"),
    ("Jake and I hit 6 months this weekend, what's a cute low-key gift idea", "Jake"),
    ("me and Tom are doing 2 years next week!! ideas?", "Tom"),
    ("Jake and I have been together 2 years today", "Jake"),
    ("anniversary dinner with Rafael tonight at the place we had our first date", "Rafael"),
    ("Tom and I celebrated 3 years on friday", "Tom"),
    ("me and Sam are celebrating 5 years this weekend", "Sam"),
])
def test_a_couples_occasion_names_the_partner(text, partner):
    assert [(f.attribute, f.value) for f in find_statements(text, AT)] == [("partner", partner)]


@pytest.mark.parametrize("text", [
    "Jake and I hit the gym before work",
    "Jake and I are doing the dishes",
    "valentine's gift to myself: a new record player",
    "my parents' anniversary dinner with Grandma",
    "date night with the girls, cocktails at 8",
])
def test_no_partner_without_a_couples_occasion_and_a_name(text):
    assert not [f for f in find_statements(text, AT) if f.attribute == "partner"]
    assert not [f for f in resolve(text) if f.kind == "partner"]
    assert "§partner" not in statement_marks(text)


@pytest.mark.parametrize("text", [
    "third date with Priya tonight and I think I really like her",
    "date night with jamie tonight, where should we eat in soho",
    "valentine's dinner with Marcus and I loved every minute",
    "me and Jordan are going to Lisbon for our anniversary in June, so excited",
    "Rafael and i just got back from our anniversary trip to crete",
])
def test_a_couples_occasion_is_a_word_on_the_partner(text):
    assert "§partner" in statement_marks(text)


def test_the_partner_of_an_earlier_occasion_is_history_under_a_new_one(engram):
    check_latest_first_and_earlier_behind(
        engram, ["Jake and I hit 6 months this weekend, what's a cute low-key gift idea",
                 "is it weird to get my dad a tie for his bday, be honest",
                 "welp me and my ex are done. anyway been seeing this guy Marcus for a few weeks and he's so sweet"],
        "Who's my boyfriend right now?", "Marcus", "Jake and I hit 6 months")


@pytest.mark.parametrize("text", [
    "ok change of plans, a pilot strike cancelled our flights. we rebooked to crete for the same week",
    "welp. fired them lol. crew no-showed 3 days straight. brought in mendez renovations",
    "sorted!! said goodbye to the old lot and the car's covered by admiral from today",  # a new state from a moment
])
def test_a_plan_or_a_hire_replaced_or_a_state_from_today_is_a_change(text):
    assert tells_a_change(text)


def test_an_end_with_a_new_state_from_today_is_the_users_word_not_only_a_closing():
    assert statement_marks("sorted!! said goodbye to the old lot and the car's covered by admiral from today") == ["§told"]
    assert statement_marks("sorted!! said goodbye to the old lot") == ["§told~no"]


def test_a_closing_that_tells_the_new_state_from_today_goes_above_the_slots_answer(engram):
    check_latest_first_and_earlier_behind(
        engram, ["renewed the car insurance with direct line, went up £80 for no reason whatsoever",
                 "got a tiny scratch on the car door in the tesco car park, not even worth claiming",
                 "sorted!! said goodbye to the old lot and the car's covered by admiral from today, £210 cheaper"],
        "who's my car insurance with atm", "admiral", "direct line")


def test_a_hire_replaced_leaves_the_earlier_hire_behind(engram):
    check_latest_first_and_earlier_behind(
        engram, ["finally signed w a contractor for the kitchen reno!! harbor & pine builders, demo starts feb 12",
                 "kitchen backsplash ideas that arent white subway tile pls",
                 "welp. fired them lol. crew no-showed 3 days straight. brought in mendez renovations and they gutted "
                 "the whole kitchen in 2 days"],
        "who's doing the work on my kitchen renovation now?", "mendez", "harbor & pine")


def test_an_earlier_word_in_lower_case_that_answers_the_question_is_left_behind(engram):
    check_latest_first_and_earlier_behind(
        engram, ["living room is finally painted!! went w sea salt by sherwin williams, so calming",
                 "best way to clean brushes after latex paint? mine get crusty",
                 "ok dont judge but i repainted the whole thing. the green read kinda grey at night so now it's swiss "
                 "coffee, a warm white"],
        "what color is my living room right now?", "swiss coffee", "sea salt", session_id="chat")


def test_a_title_names_someone_in_lower_case():
    assert names_something("so my old guy retired and i'm seeing dr lindqvist now")
    assert not names_something("so my old guy retired and i'm seeing someone new now")


def test_a_later_change_to_someone_named_by_title_in_lower_case_goes_above_the_slots_answer(engram):
    check_latest_first_and_earlier_behind(
        engram, ["ugh tooth thing again 😩 my dentist is dr okafor over on elm st, got a slot tuesday at 8",
                 "how often are you actually supposed to go to the dentist for a cleaning? insurance covers 2x a yr",
                 "so my old guy retired out of nowhere, practice got bought out and i'm seeing dr lindqvist now. "
                 "honestly way gentler"],
        "who's my dentist these days?", "lindqvist", "okafor")


@pytest.mark.parametrize("text, only_asks", [
    ("what order do serum and moisturizer go in?? i always forget", True),
    ("is it affect or effect? i never remember", True),
    ("what order do serum and moisturizer go in?? i always forget my own routine at the gym in Leeds lol", False),
    ("which moisturizer is best for dry skin? i use cerave", False),
])
def test_a_question_followed_only_by_not_knowing_only_asks(text, only_asks):
    assert ("§questions" in statement_marks(text)) is only_asks


def test_a_question_followed_by_not_knowing_is_no_answer_about_the_user(engram):
    check_latest_first_and_earlier_behind(
        engram, ["my skincare is super basic lol just cerave moisturizing cream morning and night",
                 "what order do serum and moisturizer go in?? i always forget",
                 "derm said my barrier is wrecked 🙃 so she put me on la roche-posay toleriane double repair instead, "
                 "slathering it on twice a day"],
        "which moisturizer do i use these days?", "toleriane", "cerave")


def test_a_later_end_sharing_a_character_of_a_chinese_yes_no_questions_words_is_the_answer(engram):
    check_latest_first_and_earlier_behind(
        engram, ["开始准备考研了，目标北师大心理学，每天自习室待到十点", "考研政治什么时候开始复习比较好",
                 "想了很久，还是不考了。先找工作攒点钱"],
        "我还在准备考研吗", "不考了", "北师大")


def test_a_chinese_switch_in_words_of_its_own_leaves_the_earlier_turn_holding_the_questions_word(engram):
    for n, (text, when) in enumerate([("平时在盒马买菜 一周两三次", "2023-06-12T20:30:00"),
                                      ("买菜软件一般怎么领优惠券啊 有没有攻略", "2023-09-03T14:10:00"),
                                      ("现在主要用叮咚了 之前那边老缺货 等了俩小时", "2024-01-20T23:05:00"),
                                      ("买菜的时候怎么挑西瓜比较甜", "2024-03-15T18:55:00")]):
        engram.remember(text, at=at(when), message_id=f"m{n}", session_id="chat")
    found = results_after_all(engram, "我现在主要在哪个平台买菜")
    assert "叮咚" in found[0].unit.content
    assert by_text(found, "盒马").valid is False


@pytest.mark.parametrize("text", ["deleted my insta account for good last week", "deactivated my X account for good"])
def test_an_account_deleted_is_an_end(text):
    assert tells_an_end(text)
    assert not tells_an_end("deleted the photos from my account")


def test_an_account_deleted_is_the_latest_word_on_the_platform(engram):
    check_latest_first_and_earlier_behind(
        engram, ["I'm on instagram way too much, 4 hours screen time yesterday",
                 "how do influencers make money on instagram, my niece wants to be one",
                 "deleted my insta account for good last week, honestly don't miss it one bit"],
        "Am I on Instagram these days?", "deleted my insta", "way too much")


@pytest.mark.parametrize("text, mark", [
    ("dentist is dr. okafor at brightsmile on 5th, ugh cleaning next tues", "§dentist"),  # one sentence across "dr."
    ("opened a business account for my bakery at Chase today", "§bank"),
    ("not renewing the season tix this year, we barely went", "§said~no"),
    ("deactivated my upwork profile this week, burnout is real", "§said~no"),
    ("记一下 我的商业医疗险是平安e生保 每年自动扣款", "§insurer"),
    ("switch出掉了 1500 反正也没时间玩", "§said~no"),  # the thing first, sold on
    ("今年没续那个了 换成众安尊享e生 便宜好几百呢", "§insurer"),  # 医疗险's kind, 呢 stressing a statement
    ("公司搬去徐汇了 通勤俩小时谁顶得住 上个月干脆搬到漕河泾附近了", "§home_location"),  # 谁顶得住 asks no one
])
def test_chat_says_a_statement_its_own_way(text, mark):
    marks = statement_marks(text)
    assert mark in marks
    assert "§asks" not in marks


@pytest.mark.parametrize("text, mark", [
    ("turns out my insurance doesnt cover that practice so im seeing a Dr. Lindqvist now", "§partner"),  # a doctor
    ("my roommate cancelled the old streaming thing 😤 we're on YouTube TV now", "§others"),  # then the user's news
])
def test_what_a_message_is_not(text, mark):
    assert mark not in statement_marks(text)


@pytest.mark.parametrize("text, asks", [("最近挺好的，你呢", True), ("那我呢", True), ("换成众安了 便宜好几百呢", False)])
def test_ne_asks_only_in_a_short_clause(text, asks):
    assert is_question(text) is asks


def test_a_change_moved_elsewhere_in_chinese_is_a_change():
    assert tells_a_change("酒店那边出了点问题 最后挪到君悦了 日子没变")


def test_a_service_the_user_is_on_after_someone_else_cancelled_the_old_one_is_the_latest_word(engram):
    check_latest_first_and_earlier_behind(
        engram, ["we watch all the games on sling at my place, sunday football is sacred",
                 "how do i fix the stream lagging during games, wifi is 300mbps",
                 "my roommate cancelled the old streaming thing without telling me 😤 we're on YouTube TV now for the "
                 "rest of the season"],
        "what service do we watch the games on now?", "YouTube TV", "on sling", session_id="chat")


def test_a_thing_named_in_latin_letters_in_a_chinese_question_is_its_topic(engram):
    check_latest_first_and_earlier_behind(
        engram, ["刚入了switch 塞尔达太好玩了吧 一玩玩到两点",
                 "PS5和switch哪个适合全家一起玩",
                 "switch出掉了 1500 反正也没时间玩 吃灰可惜"],
        "我还有switch吗", "出掉了", "刚入了switch", session_id="chat")


def test_a_chinese_question_on_medical_insurance_asks_for_the_insurer(engram):
    check_latest_first_and_earlier_behind(
        engram, ["记一下 我的商业医疗险是平安e生保 每年自动扣款",
                 "医疗险和重疾险到底有啥区别啊 销售说得我头大",
                 "今年没续那个了 换成众安尊享e生 便宜好几百呢"],
        "我现在买的是哪家的医疗险", "众安", "平安e生保", session_id="chat")
