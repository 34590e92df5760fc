"""A question that asks for someone, a place or an amount is answered by a message that has one: the user's chatter
that shares the question's words but names nobody, no place and no number does not go first."""
from __future__ import annotations

import pytest

from memory.answer_shape import AMOUNT, MOMENT, NAMED, PLACE, SOMEONE, asked_shape, has_shape
from tests.helpers import at, results_after_all


@pytest.fixture
def engram(minilm_engram):
    return minilm_engram


@pytest.mark.parametrize("question, shape", [
    ("who's my physio these days?", SOMEONE),
    ("remind me, who cuts my hair?", SOMEONE),
    ("what's my landlady called?", NAMED),
    ("what's the name of my band", NAMED),
    ("我的钢琴老师叫什么", NAMED),
    ("楼上住的是谁", SOMEONE),
    ("where do I get my car serviced?", PLACE),
    ("which city does my brother live in", PLACE),
    ("which hospital do i work at?", PLACE),  # a place by its kind
    ("which street is my dry cleaner on?", PLACE),
    ("what unit do I work in at the hospital?", None),  # a unit may be named in lower case ("the cardiac unit")
    ("我平时在哪儿游泳", PLACE),
    ("how much is my rent?", AMOUNT),
    ("我的房贷每个月还多少", AMOUNT),
    ("when is my wedding anniversary?", MOMENT),
    ("我是哪天出生的?", MOMENT),
    ("how many kids have I got?", AMOUNT),
    ("How many model kits have I worked on?", None),  # a count of doings, which no message states
    ("我今年一共去了几次健身房", None),
    ("what car do I drive?", None),
    ("我喜欢喝什么茶", None),
])
def test_the_shape_a_question_asks_for(question, shape):
    assert asked_shape(question) == shape


@pytest.mark.parametrize("text, shape, names_entity, has", [
    ("the woman who owns the flat, Dana Whitlock, finally fixed the boiler", SOMEONE, True, True),
    ("mr okonkwo from 4b waters my ferns", SOMEONE, False, True),
    ("隔壁的王奶奶又送了我一把葱", SOMEONE, False, True),
    ("rent went up again and nobody even warned us", SOMEONE, False, False),
    ("Went hiking in the Dales with Priya.", SOMEONE, False, False),
    ("met someone at a bbq, her name's marisol and she's a vet", SOMEONE, False, True),  # a name given
    ("孩子的班主任是刘老师，说话特别温柔", SOMEONE, False, True),
    ("rehearsal w the Velvet Moths ran til 2am lol", NAMED, False, True),
    ("rehearsal w the Velvet Moths ran til 2am lol", SOMEONE, False, False),
    ("need new strings before our gig next week", NAMED, False, False),
    ("got my nails done at Polished on Kent St again", PLACE, False, True),
    ("周末都去奥体中心游泳", PLACE, False, True),
    ("my nails keep chipping after two days", PLACE, False, False),
    ("is it bad to get gel nails every week?", PLACE, False, False),
    ("房贷终于批下来了 每月还六千二", AMOUNT, False, True),
    ("rent is due on the 1st, 1,450 a month", AMOUNT, False, True),
    ("房贷利率还会降吗", AMOUNT, False, False),
    ("me n dev got hitched 9/23/2019 at the courthouse", MOMENT, False, True),
    ("we got married on a rainy saturday in the end", MOMENT, False, True),
    ("6月8号我就正式奔三了", MOMENT, False, True),
    ("restaurants for an anniversary dinner that aren't stuffy", MOMENT, False, False),
    ("may the best team win", MOMENT, False, False),
])
def test_whether_a_message_has_the_shape(text, shape, names_entity, has):
    assert has_shape(text, shape, names_entity) is has


def test_leniently_someone_is_any_name_by_a_capital():
    assert has_shape("Went hiking in the Dales with Priya.", SOMEONE, False, leniently=True)
    assert not has_shape("went hiking in the dales, knackered", SOMEONE, False, leniently=True)


def remember_monthly(engram, messages: list[str]) -> None:
    """Chat messages of one conversation, a month apart from January 2024."""
    for n, text in enumerate(messages):
        engram.remember(text, at=at(f"2024-{n + 1:02d}-10T19:00:00"), message_id=f"m{n}", session_id="chat")


@pytest.mark.parametrize("messages, question, answer", [
    (["the guy who owns our building, Walter Brisbane, still hasn't fixed the radiator. it's APRIL",
      "my cousin's landlady brought her cookies, must be nice",
      "rent went up $150, I'm furious",
      "heating works finally, only took 6 months and 14 emails"],
     "who's my landlord?", "Walter Brisbane"),
    (["evening! just got home from my lash fill at Flutter Studio on mill lane, eyes still watery lol. quick q about my credit score",
      "are lash serums safe? heard they can change your eye color which is terrifying",
      "why did my credit score drop 20 points after i paid off a card?? makes no sense"],
     "where do i get my lashes done?", "Flutter Studio"),
    (["signed the lease today, 1,850 a month for the two-bed, finally",
      "rent in this city is honestly insane, everyone I know is broke",
      "is it worth paying extra for a flat with a balcony?"],
     "how much is my rent?", "1,850"),
    (["贷款终于批下来了 月供六千二 压力山大",
      "房贷压得我喘不过气 每个月工资一到就没了",
      "公积金贷款和商业贷款能一起用吗"],
     "我的房贷每个月还多少", "六千二"),
    (["晚上好呀～刚在楼道里跟对门的赵奶奶唠了半天，她说咱这栋楼下个月要装电梯了哈哈哈。对了问你个事，怎么给爸妈买保险比较好",
      "老小区加装电梯，一楼的住户一般会同意吗",
      "邻居送了我一袋饺子，我回点啥礼好"],
     "我对门住的是谁？", "赵奶奶"),
    (["me n dev got hitched 9/23/2019 at the courthouse, zero fuss, best day",
      "restaurants for an anniversary dinner in austin that aren't stuffy",
      "what's a good anniversary gift for year 5? wood? is that right"],
     "when is my wedding anniversary?", "9/23"),
    (["heyyy happy saturday!! rehearsal w the Paper Comets ran til 2am lol our drummer is unhinged. anyway how's ur week",
      "need new strings before our gig next week, the old ones sound dead",
      "my coworker's band is playing a bar downtown friday, they're kinda mid tbh"],
     "what's the name of my band", "Paper Comets"),
    (["hey hey 👋 just dropped shirts at the dry cleaner on Birch (the one w the cat in the window lol). quick q — how "
      "many cups in a liter?",
      "what does a P in a circle on a clothing tag mean? something about dry cleaning?",
      "my dry cleaner charges $9 a shirt is that normal or am i getting scammed"],
     "which street is my dry cleaner on?", "Birch"),
    (["morning!! just got in from nights at Royal Derby A&E 😵 anyway can u help me pick a bday present for my mum",
      "what are good gardening gifts under £30",
      "our hospital canteen coffee is grim, any good thermos recs for a 12h shift?"],
     "which hospital do i work at?", "Royal Derby"),
    # the partner's own thing is no question of who the partner is
    (["here's my api key sk-proj-7Hq2LmX9vT4rPzWk pls dont share it lol. the bot im building is for my wife's florist "
      "shop, Petal & Stem",
      "how do i set up instagram for a small shop, what should the first posts be",
      "my wife wants a new logo for the shop, any free tools that arent awful?"],
     "what's the name of my wife's shop?", "Petal & Stem"),
])
def test_the_first_message_with_the_asked_shape_goes_first(engram, messages, question, answer):
    remember_monthly(engram, messages)
    assert answer in results_after_all(engram, question)[0].unit.content


def test_a_first_message_with_the_shape_stays_first(engram):
    remember_monthly(engram, ["met Sofia for coffee, she's house hunting in Leith",
                              "my landlord Gerry Doyle is putting the rent up in march"])
    assert "Gerry Doyle" in results_after_all(engram, "who's my landlord?")[0].unit.content


def test_only_the_users_own_statements_are_lifted(engram):
    remember_monthly(engram, ["should I ask Walter Brisbane about the radiator or email the agency?",
                              "rent went up $150, I'm furious"])
    assert "rent went up" in results_after_all(engram, "who's my landlord?")[0].unit.content


@pytest.mark.parametrize("messages, question, answer", [
    # the user's own first word that has the shape stays first, though it closes something ("都不怕")
    (["我是在长春长大的，零下三十度都不怕，南方的湿冷反而受不了。",
      "广州冬天屋里太冷了，买什么取暖器比较好？",
      "同事老家是云南的，过年给我带了鲜花饼，太好吃了。"],
     "我是哪里人？", "长春"),
    # a first word about someone else gives way to the user's own
    (["hello hello! finally got the twins, Ada and Milo, down for a nap so I have 20 minutes of peace ☕ how's your day",
      "my neighbour's kids are called Jack and Lily, super common names round here haha",
      "what are some popular baby names for 2024"],
     "What are my children called?", "Ada and Milo"),
    # a first word on the child the question asks about stays first
    (["孩子的班主任是刘老师，说话特别温柔，开学第一天就记住了所有人名字",
      "家长会一般要准备什么",
      "数学陈老师布置的作业也太多了吧"],
     "我家孩子班上主要是谁在管？", "刘老师"),
], ids=["own-closing", "someone-elses", "the-childs"])
def test_whose_first_word_with_the_shape_stays_first(engram, messages, question, answer):
    remember_monthly(engram, messages)
    assert answer in results_after_all(engram, question)[0].unit.content
