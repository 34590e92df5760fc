"""Statements as chat types them (a hedge with a question mark, an emoji that ends a sentence or a clause, a title's full
stop, a time word before a dropped subject, the user's people at a named workplace, what a doctor says of the user, a typo
before the news, a count of days without something), questions in their own words (运动, 托尼老师, mental health, the flat
one rents, 约会, whose flat), and the latest word: on a child's lessons, which the child's parent tells; a switch that
holds fewer of the question's words; a name asked for; what only names the kind ("my car makes a weird squeak")."""
from datetime import datetime, timezone

import pytest

from memory.extract.attributes import statement_marks
from memory.extract.facts import find_statements, is_question
from tests.helpers import at, by_text, remember_daily, results_after_all

WRITTEN = datetime(2025, 6, 1, tzinfo=timezone.utc)


@pytest.fixture
def engram(minilm_engram):  # the latest word's rules read MiniLM's cosines
    return minilm_engram


def test_a_hedge_with_a_question_mark_is_no_question():
    assert not is_question("eating fish again so pescatarian I guess?")
    assert is_question("is oat milk ok for frothing i guess?")  # it opens as a question


@pytest.mark.parametrize("text", ["前几天换了份工作", "这几天在学游泳", "过几天搬家"])
def test_a_rough_count_of_days_is_no_question(text):
    assert not is_question(text)


@pytest.mark.parametrize("text", ["你几天能到", "蛋糕店一般提前几天订"])
def test_how_many_days_is_still_a_question(text):
    assert is_question(text)


@pytest.mark.parametrize("text, attribute, value", [
    ("年中跳槽去了美团，还是做产品", "employer", "美团"),
    ("前阵子搬到了杭州，房租便宜好多", "home_location", "杭州"),
    ("前几天跳槽去了小红书", "employer", "小红书"),
])
def test_a_time_word_before_a_dropped_subject_leaves_the_statement_readable(text, attribute, value):
    found = {(f.attribute, f.value) for f in find_statements(text, WRITTEN)}
    assert (attribute, value) in found


def test_a_time_word_that_puts_it_in_the_past_is_not_passed_over():
    assert not [f for f in find_statements("之前在字节上班", WRITTEN) if f.attribute == "employer"]


@pytest.mark.parametrize("text, mark", [
    ("happy friday 🎉 done w the sprint, my team at Duolingo shipped the streak thing", "§employer"),
    ("long day in court again. being a court stenographer is not as chill as people think", "§occupation"),
    ("I've been seeing Dr. Hanna Weiss every other Thursday for my anxiety stuff", "§therapist"),
    ("done shopping around, went w Progressive and bundled it with my renters", "§insurer"),
    ("dr said we're bumping it up to 100mg starting monday, fingers crossed", "§medication"),
    ("在上海静安租了个一室户 五千八一个月", "§home_location"),
    ("finaly switched carriers lol, on Visible now", "§mobile_network"),
    ("hiii happy friday 🎉 ordering thai for the team, gotta make sure mine has zero peanuts bc allergy", "§allergy"),
    ("Morning!! ☕ finally unpacked the last box, the new flat in Leith is starting to feel like home", "§home_location"),
    ("戒奶茶第30天！！居然坚持下来了", "§drink_preference~no"),
    ("我在深圳南山租房 一个月6500 心在滴血", "§home_location"),
    ("在上海那几年我在一家外企做HR，天天招人面试", "§employer"),
    ("been working out of the wework on 5th, the wifi is solid", "§coworking"),
    ("as of this month i'm bouldering at depot instead, cheaper and 10 min from the flat", "§gym"),
])
def test_a_statement_typed_as_chat_is_marked_with_its_topic(text, mark):
    assert mark in statement_marks(text)


def test_an_emoji_between_two_clauses_ends_the_first():
    # what the sale ended is not all the message says: it names the car bought the same day
    marks = statement_marks("sold the outback on saturday 😢 picked up a used Mazda CX-5 today, 41k on it")
    assert "§car" in marks and "§car~no" not in marks


def test_what_the_user_ended_up_buying_is_news_beside_what_it_ended():
    marks = statement_marks("ok so i ended up buying that e-bike 🚲 haven't touched the bus in 2 weeks")
    assert "§said" in marks and "§said~no" not in marks


def test_a_desk_moved_to_a_coworking_space_is_no_move_of_home():
    marks = statement_marks("moved my desk over to The Foundry on Main this month, wifi at the old spot was awful")
    assert "§coworking" in marks and "§home_location" not in marks


@pytest.mark.parametrize("text", ["戒指丢了，好心疼", "在哪租房比较好"])
def test_a_ring_or_a_question_is_no_statement(text):
    assert "§drink_preference~no" not in statement_marks(text) and "§home_location" not in statement_marks(text)


@pytest.mark.parametrize("text", ["first session at Vital today, way better walls than the old gym",
                                  "first lesson with mrs halloran today!! scales for 20 min"])
def test_a_first_session_somewhere_is_the_users_news(text):
    assert "§told" in statement_marks(text)


def test_a_sentence_ended_by_an_emoji_tells_before_the_request_after_it():
    marks = statement_marks("fully plant-based for 2 years now 🌱 so keep recipe ideas dairy and meat free pls")
    assert "§asks" not in marks and "§questions" not in marks


@pytest.mark.parametrize("text", ["need a van that fits a ladder on the roof, any recs?",
                                  "想买个运动手表，华为还是小米好", "想给儿子买把小提琴，铃木还是红棉？"])
def test_shopping_before_asking_which_only_asks(text):
    assert "§asks" in statement_marks(text)


def test_shopping_beside_news_is_no_mere_asking():
    assert "§asks" not in statement_marks("need a new dentist, mine retired last month")


def test_a_colleague_at_no_named_place_is_still_someone_else():
    assert "§employer" not in statement_marks("my colleague is learning Python, any free courses for her?")


# (messages in time order, question, what the first result says)
FIRST_ANSWERS = {
    "a hedged statement of a diet": (
        ["vegan since uni, honestly never looked back", "best lentil curry recipe?",
         "confession time: eating fish again so pescatarian I guess?"], "what's my diet these days?", "pescatarian"),
    "a sport asked for by 运动": (
        ["周末都在打网球，约了几个同事", "想买个运动手环，华为还是小米好", "网球不打了，太晒，最近改成攀岩了"],
        "我现在一般做什么运动？", "攀岩"),
    "what holds now, said after what ended": (
        ["最近迷上攀岩了，每周去三次岩馆", "我同事周末去钓鱼，一坐就是一天", "手指受伤之后岩馆卡退了，现在周末都跟朋友去打飞盘"],
        "我最近周末玩什么运动？", "飞盘"),
    "a later question with 现在 in it is no word of what holds now": (
        ["新办的中信银行卡，以后工资都打这张", "信用卡逾期一天会影响征信吗", "银行理财现在还靠谱不"], "我工资卡是哪个银行的", "中信"),
    "a hairdresser asked for as 托尼老师": (
        ["想染个奶茶色，会不会很显黑", "剪头一直找五角场那家店的Leo，剪得最合心意"], "我常去的托尼老师叫啥来着？", "Leo"),
    "a therapist asked for by mental health": (
        ["the breathing app helped a bit on the bus", "been seeing Dr. Omar Haddad on Mondays for my depression, it's helping",
         "my health plan covers 12 sessions a year right? how do i check"], "who do I talk to about my mental health?",
        "Haddad"),
    "a landlord asked for by the flat one rents": (
        ["the radiator clanks all night, can I bleed it myself?",
         "my landlord is an old guy called Peter Quill, lives downstairs, slow with repairs",
         "my apartment is a tiny walk-up in Astoria, third floor",
         "how do I ask for lower rent politely when the lease is up"],
        "who do I rent my apartment from?", "Quill"),
    "an allergy said as what the user can't eat": (
        ["I can't eat anything with walnuts, my throat closes up. epipen in my bag always",
         "allergy season is wrecking me, cetirizine or loratadine?"], "what am I allergic to?", "walnuts"),
    "a car, not a word that only names the kind": (
        ["I drive a 2014 Subaru Outback, 180k miles and counting", "how much does it cost to get a car detailed",
         "sold the outback on saturday 😢 picked up a used Mazda CX-5 today, 41k on it",
         "my car makes a weird squeak when it's cold, normal?"], "what car do I drive now?", "CX-5"),
    "a coworking space the desk moved to": (
        ["I rent a hot desk at Hatch Coworking on 5th Ave, $220/month", "need a decent desk lamp, the lighting is grim",
         "moved my desk over to The Foundry on Main this month, wifi at the old spot was killing me"],
        "remind me which coworking space I'm working out of now", "Foundry"),
    "a name asked for, from the word that names a person": (
        ["Morning! Quick one before my Portuguese lesson with Rafael, he's got me doing verb drills",
         "is duolingo actually worth paying for or is a real tutor better",
         "thinking about a trip to Lisbon in the spring to practise my Portuguese"],
        "what's my language tutor's name?", "Rafael"),
    "a switch that holds fewer of the question's words": (
        ["儿子周末在新东方上英语课，一节课两百多", "小学二年级英语一般要学到什么程度啊", "英语课转到学而思了，老师更负责一点"],
        "我儿子现在周末英语在哪上？", "学而思"),
    "whose flat the user rents": (
        ["我房东是个上海阿姨，姓孙，人挺好说话的", "房租下个月又要交了，一交就是三个月肉疼", "租的房子能不能自己刷墙啊，想刷个奶油色"],
        "我租的房子是谁的？", "姓孙"),
    "a dose the doctor raised": (
        ["gp started me on citalopram, 10mg each morning", "does citalopram make anyone else sleepy lol",
         "doctor says we're going up to 20mg from next week"], "what dose of citalopram am I on now?", "20mg"),
}


@pytest.mark.parametrize("case", FIRST_ANSWERS)
def test_the_first_result_answers(engram, case):
    messages, question, answer = FIRST_ANSWERS[case]
    remember_daily(engram, messages)
    assert answer in results_after_all(engram, question)[0].unit.content


def test_the_latest_word_on_a_childs_lessons_is_the_parents_and_leaves_the_earlier_behind(engram):
    remember_daily(engram, ["儿子每周六上午学小提琴，周老师教，就在小区里",
                            "想给儿子买把好点的小提琴，铃木还是红棉？",
                            "周老师去外地了，下个月开始换成李老师，课也改到周日了"])
    found = results_after_all(engram, "我儿子现在的小提琴老师是谁？")
    assert "李老师" in found[0].unit.content
    assert not by_text(found, "周老师教").valid  # the child's earlier lessons, left behind
    assert by_text(found, "铃木还是红棉").valid  # a turn that asks tells nothing that could end


def test_a_car_named_by_its_model_year_is_history_once_the_car_is_sold(engram):
    remember_daily(engram, ["my 2009 Outback just hit 180k miles, still going strong",
                            "what's a bike lock that won't get cut in seconds?",
                            "Sold it today. Car-free from now on, bus and bike. feels freeing"])
    found = results_after_all(engram, "do I still have a car?")
    assert "Car-free" in found[0].unit.content
    assert not by_text(found, "Outback").valid


def test_a_rules_answer_about_one_of_the_users_people_keeps_its_weight(engram):
    # "my landlord is this guy …" tells of someone else, but it is the slot's answer to a question that names no one
    engram.remember("my landlord is this guy Omar Haddad, lives upstairs, nice enough but slow with repairs",
                    at=at("2023-08-01T20:30:00"))
    engram.remember("how do I ask for a rent cut politely when the lease is up", at=at("2023-09-14T12:55:00"))
    engram.remember("the radiator is banging again at 3am, can I bleed it myself?", at=at("2023-11-02T03:12:00"))
    engram.remember("should I get renters insurance if the building is old", at=at("2023-12-20T18:04:00"))
    assert "Omar Haddad" in results_after_all(engram, "who do I rent my apartment from?")[0].unit.content


def test_a_best_match_that_names_nothing_and_tells_no_change_leaves_nothing_behind(engram):
    remember_daily(engram, ["hey! sorry for the radio silence, crazy week, nights on the oncology ward are brutal lol",
                            "what's the best way to fix my sleep after a run of night shifts",
                            "work was chaos again, two people called in sick and I ended up covering a whole other ward"])
    found = results_after_all(engram, "what kind of ward do I work on?")
    assert "covering a whole other ward" in found[0].unit.content  # the words match it best …
    assert by_text(found, "oncology").valid  # … but it replaced nothing


def test_a_question_of_where_takes_no_answer_from_an_attribute_that_is_no_place(engram):
    remember_daily(engram, ["I drive a silver Honda Civic, 2016", "I park in the garage on Elm Street, $90 a month",
                            "the car needs new tyres before winter"])
    assert "Civic" in results_after_all(engram, "what car do I drive?")[0].unit.content
    assert "garage on Elm Street" in results_after_all(engram, "where do I park my car?")[0].unit.content


def test_who_the_user_dates_now_leaves_the_one_before_behind(engram):
    remember_daily(engram, ["我男朋友叫阿杰，在深圳做设计，我们异地快一年了", "第一次约会穿什么比较好啊",
                            "和阿杰分手了，现在在跟一个叫周扬的男生约会，人挺好的"])
    found = results_after_all(engram, "我现在在和谁约会？")
    assert "周扬" in found[0].unit.content
    assert not by_text(found, "在深圳做设计").valid


def test_where_the_user_lived_before_a_move_is_no_longer_true(engram):
    remember_daily(engram, ["我在深圳南山租房 一个月6500 心在滴血", "深圳夏天台风天是不是都不用上班", "搬去广州天河了 房租直接砍半 爽"])
    found = results_after_all(engram, "我搬去广州之前住哪儿？")
    assert "南山" in found[0].unit.content and not found[0].valid


def test_a_shared_workspace_asked_for_is_the_latest_and_the_one_before_is_history(engram):
    remember_daily(engram, ["been working out of the wework on 5th, coffee is mid but the wifi is solid",
                            "zoom keeps dropping during standup, is it my router or zoom being zoom",
                            "cancelled wework, way too pricey. signed up at a little coworking spot called The Hatch "
                            "near my place instead", "need a standing desk mat recommendation, my feet hate me"])
    found = results_after_all(engram, "what shared workspace am i a member of currently?")
    assert "The Hatch" in found[0].unit.content
    assert not by_text(found, "wework on 5th").valid
