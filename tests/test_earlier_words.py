"""What the user said before the latest word on an attribute is shown as history, not as what holds now."""
import pytest

from memory.extract.attributes import statement_marks, switched_kinds
from memory.recall import names_a_value
from tests.helpers import at, by_text, results_after_all

@pytest.fixture
def engram(minilm_engram):
    return minilm_engram


def test_an_earlier_carrier_is_history_once_the_switch_is_the_latest_word(engram):
    engram.remember("I'm on T-Mobile for my phone, been with them like 6 years now", at=at("2024-02-03T09:00:00"))
    engram.remember("my phone screen cracked AGAIN lol, any tips for cheap repair shops?", at=at("2024-03-01T09:00:00"))
    engram.remember("finally switched carriers, ported my number over to Mint Mobile yesterday",
                    at=at("2024-05-10T09:00:00"))
    found = results_after_all(engram, "Which mobile carrier am I with right now?")
    assert "Mint Mobile" in found[0].unit.content and found[0].valid
    old = by_text(found, "T-Mobile")
    assert not old.valid and "earlier word on user.mobile_network" in old.why


def test_a_new_dentist_by_a_switch_that_names_its_kind_ends_the_old_one(engram):
    engram.remember("my dentist is Dr. Shaw over on Maple, he's fine I guess", at=at("2024-01-10T09:00:00"))
    engram.remember("is it normal for gums to bleed when flossing?", at=at("2024-02-10T09:00:00"))
    engram.remember("fyi I switched dentists, going to Dr. Alvarez on 5th ave now", at=at("2024-04-10T09:00:00"))
    found = results_after_all(engram, "Who's my dentist?")
    assert "Dr. Alvarez" in found[0].unit.content
    assert not by_text(found, "Dr. Shaw").valid


def test_an_attribute_that_holds_many_values_keeps_the_earlier_ones(engram):
    engram.remember("my dog keeps barking at the postman, so embarrassing", at=at("2024-01-10T09:00:00"))
    engram.remember("we adopted a kitten named Miso today!", at=at("2024-04-10T09:00:00"))
    found = results_after_all(engram, "What pets do I have now?")
    told = [rec for rec in found if "postman" in rec.unit.content]
    assert told and all(rec.valid for rec in told)


def test_a_word_that_named_no_value_is_not_made_history(engram):
    engram.remember("ugh another standup that ran 45 minutes", at=at("2024-01-08T09:00:00"))
    engram.remember("ok so I finally did it, signed the offer letter tonight. giving notice tomorrow",
                    at=at("2024-03-01T21:00:00"))
    engram.remember("first full week at Pulse Health done!! way less meetings", at=at("2024-04-05T18:00:00"))
    found = results_after_all(engram, "where do I work these days?")
    assert "Pulse Health" in found[0].unit.content
    assert all(rec.valid for rec in found if "offer letter" in rec.unit.content)


def test_a_yes_no_question_about_something_given_up_is_answered_in_the_users_words(engram):
    engram.remember("I drive a 2016 Subaru Outback, the green one", at=at("2024-01-05T09:00:00"))
    engram.remember("how often should tires be rotated?", at=at("2024-02-05T09:00:00"))
    engram.remember("sold the subaru over the weekend. going car-free for now, bike + bus",
                    at=at("2024-05-05T09:00:00"))
    found = results_after_all(engram, "Do I have a car at the moment?")
    assert "car-free" in found[0].unit.content and found[0].unit.type == "chat_turn"
    assert any(not rec.valid and "Outback" in rec.unit.content for rec in found)


@pytest.mark.parametrize("said, question, first, old, why", [
    pytest.param(  # a closing ends even a word that named no value
        [("smoking like a pack a day these days, exams are brutal", "2024-01-10"),
         ("how do i get smoke smell out of a jacket?", "2024-02-10"),
         ("two months without a single cigarette, i think i can say i quit", "2024-04-10")],
        "am i still a smoker?", "quit", "a pack a day", "user.smoking", id="a-closing-ends-every-earlier-word"),
    pytest.param(  # and when nothing holds now, what it ended is still shown as history
        [("4 espressos a day minimum, basically powered by beans", "2024-01-10"),
         ("coffee table book ideas for a gift?", "2024-02-10"),
         ("palpitations again, so that's it: no more caffeine for me", "2024-04-10")],
        "what do i drink these days?", None, "espressos", "user.drink_preference", id="nothing-holds-now"),
    pytest.param(  # a passing mention of an earlier value, once a new one answers
        [("my Prius just hit 150k miles, she's a trooper", "2024-01-10"),
         ("car seat recs for a 2 year old?", "2024-02-10"),
         ("traded in the old hybrid today, drove home in a used RAV4, the trunk space omg", "2024-04-10")],
        "What am I driving currently?", "RAV4", "Prius", "user.car", id="a-passing-mention"),
    pytest.param(  # news with its subject dropped is the user's word
        [("finally paid off the Civic!! no more car payments", "2022-09-03"),
         ("how often should I rotate my tires", "2022-11-15"),
         ("traded the honda in last weekend and now i'm driving a used Model 3", "2023-03-06")],
        "what car am I driving these days?", "Model 3", "Civic", None, id="news-with-its-subject-dropped"),
    pytest.param(  # so is a Chinese turn, whose subject is dropped as a rule
        [("早上一杯美式续命，不然开会直接睡着", "2024-01-10"),
         ("一天喝多少水才算够？", "2024-02-10"),
         ("黑咖啡实在喝不动了太苦，最近都改喝燕麦拿铁了", "2024-04-10")],
        "我这阵子每天喝的是哪种咖啡？", "燕麦拿铁", "美式", None, id="a-chinese-turn"),
    pytest.param(  # a commute by a new mode ends the old one
        [("driving to work on the 405 is killing me, 70 min each way", "2024-01-10"),
         ("need work shoes that don't wreck my feet", "2024-02-10"),
         ("we moved to the island!! so now it's the ferry into the city every morning", "2024-04-10")],
        "how do i get to work nowadays?", "ferry", "405", None, id="a-commute-by-a-new-mode"),
    pytest.param(  # a value that names its class wherever it is said: a network
        [("my verizon bill was $92 again this month, ugh", "2024-01-10"),
         ("my phone screen cracked, any cheap repair shops?", "2024-02-10"),
         ("finally switched carriers, ported my number over to Mint Mobile", "2024-04-10")],
        "Which carrier am I with now?", "Mint Mobile", "verizon", "user.mobile_network", id="a-named-value-in-passing"),
    pytest.param(  # a network by its name only, in a word that is about something else
        [("o2 signal in my flat is literally zero bars, texting from the window like a weirdo", "2024-01-10"),
         ("does my friend need a new sim for a month in spain?", "2024-02-10"),
         ("ported my number to Giffgaff, a tenner a month and it works indoors", "2024-04-10")],
        "Which mobile network am I on?", "Giffgaff", "o2 signal", "user.mobile_network", id="a-network-by-its-name"),
    pytest.param(  # of the pets, which hold many at a time, only the kind that left
        [("we adopted a beagle from the shelter!! his name is Biscuit", "2023-01-14"),
         ("how often should a pet see the vet?", "2023-02-02"),
         ("sad news, the pup went to live with my parents on their farm, but we picked up a grey tabby called Pickle",
          "2023-08-09")],
        "what's my pet's name now?", "Pickle", "Biscuit", "user.pet", id="a-pet-that-left"),
])
def test_the_users_earlier_word_on_a_replaced_or_closed_value_is_history(engram, said, question, first, old, why):
    for text, day in said:
        engram.remember(text, at=at(f"{day}T09:00:00"))
    found = results_after_all(engram, question)
    assert first is None or first in found[0].unit.content
    earlier = by_text(found, old)
    assert not earlier.valid and (why is None or f"earlier word on {why}" in earlier.why)


@pytest.mark.parametrize("text, kinds", [
    ("the pup went to live w my parents on their farm 😢 but we picked up a grey tabby", {"dog"}),
    ("猫送回老家给我妈养了。我这边新接了只柯基", {"cat"}),
    ("our old cat died last week, we're heartbroken", {"cat"}),
    ("we picked up a grey tabby from the rescue", set()),
    ("my catalogue of dog photos died with my old laptop", set()),
])
def test_a_pet_that_left_is_known_by_its_kind(text, kinds):
    from memory.extract.value_types import kinds_that_left

    assert kinds_that_left(text) == kinds


@pytest.mark.parametrize("clause, kinds", [
    ("I switched dentists, going to Dr. Alvarez", {"dentist"}),
    ("changed jobs last month", {"employer"}),
    ("finally switched carriers", {"mobile_network"}),
    ("switched gears today", set()),
    ("switched to oat milk", set()),
])
def test_a_switch_names_the_kind_it_changed(clause, kinds):
    assert switched_kinds(clause) == kinds


@pytest.mark.parametrize("text, marked", [
    ("I'm on the payments team at work, mostly backend stuff", True),
    ("btw reorg happened, I'm on the platform team now under Marcus", True),
    ("my brother is on the debate team", False),
    ("我上个月调到了数据组", True),
])
def test_the_team_at_work_is_a_topic(text, marked):
    assert ("§team" in statement_marks(text)) is marked


@pytest.mark.parametrize("text, attribute, names", [
    ("I'm on T-Mobile for my phone", "mobile_network", True),
    ("my usual order is an oat flat white, extra hot", "drink_preference", True),
    ("I'm on the payments team at work", "team", True),
    ("我在威尔士健身办了年卡", "gym", True),
    ("ok so I finally did it, signed the offer letter tonight", "employer", False),
    ("verizon bill was $92 this month", "mobile_network", True),
    ("new year new me: 30 days of spanish on duolingo", "language", True),
    ("my bill was $92 this month", "mobile_network", False),
    ("my mazda3 makes this clicking noise", "car", True),  # names as chat types them, in lower case
    ("dr patel says my vitamin d is low again", "doctor", True),
    ("driving to work on the 405 is killing me", "commute", True),
    ("ugh the traffic this morning", "commute", False),
    ("got hired as a barista at the little café by the library", "occupation", True),  # a job the lexicon knows
    ("im a junior dev at a fintech startup", "occupation", True),  # a job in its own frame
    ("biking to work every day now", "commute", True),
])
def test_a_statement_names_a_value_it_could_have_held(text, attribute, names):
    assert names_a_value(text, attribute) is names


@pytest.mark.parametrize("text, marks", [
    ("me and marcus called it quits. amicable, but still sucks", ["§partner~no", "§said~no"]),
    ("been seeing this guy Idris for a few months now", ["§partner", "§told"]),  # the subject dropped
    ("been seeing a therapist for my anxiety", ["§therapist", "§said"]),  # someone the user sees is not always a partner
    ("me and maya made it official last night!!! can't stop smiling", ["§partner", "§said"]),
])
def test_a_partner_is_told_as_chat_tells_it(text, marks):
    assert statement_marks(text) == marks


def test_an_earlier_value_named_in_passing_is_history_and_a_common_noun_is_not(engram):
    engram.remember("the Fiesta failed its MOT again, brake pipes this time", at=at("2023-10-02T09:00:00"))
    engram.remember("Focus is hard with the kids around, the car radio on full blast", at=at("2023-11-02T09:00:00"))
    engram.remember("finally sold it and bought a secondhand Golf, drove it home today", at=at("2024-03-10T09:00:00"))
    found = results_after_all(engram, "What car am I driving now?")
    assert "Golf" in found[0].unit.content and found[0].valid
    old = by_text(found, "Fiesta")
    assert not old.valid and "earlier word on user.car" in old.why
    assert by_text(found, "Focus is hard").valid  # a car's name opening a sentence is no name of the user's car


def test_a_chinese_turn_names_an_earlier_value_by_its_statement_words(engram):
    engram.remember("烦死了，一天一包烟，钱包扛不住", at=at("2023-10-02T09:00:00"))
    engram.remember("我爸抽了三十年烟，怎么劝都不听", at=at("2023-11-02T09:00:00"))
    engram.remember("戒烟半年了，嗓子舒服多了", at=at("2024-03-10T09:00:00"))
    found = results_after_all(engram, "我现在还抽烟吗？")
    assert "戒烟半年" in found[0].unit.content
    old = by_text(found, "一天一包烟")
    assert not old.valid and "earlier word on user.smoking" in old.why
    assert by_text(found, "我爸").valid  # someone else's smoking is no word of the user's


@pytest.mark.parametrize("text, attribute, names", [
    ("移动的套餐一个月128，流量还不够用", "mobile_network", True),
    ("刚到深圳一周，南山这边租了个单间", "home_location", True),
    ("平安夜和男朋友阿杰去看了电影，超甜", "partner", True),
    ("闺蜜和她男朋友又吵架了，我夹在中间好难", "partner", False),  # her partner
    ("住在哪个区通勤最方便？", "home_location", False),  # asked, not told
])
def test_a_clause_names_an_attribute_by_its_statement_words(text, attribute, names):
    from memory.extract.attributes import names_attribute

    assert names_attribute(text, attribute) is names



def test_the_users_earlier_word_sharing_the_questions_topic_with_a_change_is_left_behind(engram):
    """No rule has a class for a streaming service, and the two turns are further apart in meaning than the latest word's
    topic: the change the user told comes first, and their earlier word on what the question asks about is history."""
    engram.remember("just finished tiger king on netflix, what do i watch next", at=at("2024-01-10T09:00:00"))
    engram.remember("my flatmate pays for netflix AND disney+ AND now tv, like how many do u need", at=at("2024-02-10T09:00:00"))
    engram.remember("finally pulled the plug on netflix, £15.99 to rewatch the office again, nah. using the library app now",
                    at=at("2024-03-10T09:00:00"))
    found = results_after_all(engram, "am i still paying for netflix?")
    assert "pulled the plug" in found[0].unit.content and found[0].valid
    assert not by_text(found, "tiger king").valid
    assert by_text(found, "my flatmate").valid  # someone else's


def test_a_word_shared_only_in_someone_elses_clause_leaves_nothing_behind(engram):
    engram.remember("joined the riverside striders running club! tuesday night 5ks along the towpath",
                    at=at("2024-01-10T09:00:00"))
    engram.remember("my neighbour runs a book club on thursdays and keeps inviting me, i havent read a book since 2019",
                    at=at("2024-02-10T09:00:00"))
    engram.remember("switched clubs btw, i run with hilltop harriers now, their sessions fit round my shifts",
                    at=at("2024-03-10T09:00:00"))
    found = results_after_all(engram, "which running club am I with now?")
    assert "hilltop harriers" in found[0].unit.content
    assert not by_text(found, "riverside striders").valid
    assert by_text(found, "book club").valid  # the club is the neighbour's
    before = results_after_all(engram, "which running club was I in before hilltop harriers?")
    assert "riverside striders" in before[0].unit.content
    assert not before[0].valid  # what held before the change the question asks about (test_before_the_change.py)
    assert all(r.valid for r in before[1:] if "riverside" not in r.unit.content)


def test_a_change_told_before_a_hesitant_question_leaves_behind_a_word_of_its_family(engram):
    """"… someone new, Tomas Berg. first session was... ok?" tells the change before it asks; "therapy" in the earlier
    turn is of the family of "therapist" in the question and the change."""
    engram.remember("therapy with Ines went well, we're working on my fear of flying", at=at("2024-01-10T09:00:00"))
    engram.remember("my cousin's therapist fell asleep in their session, unbelievable", at=at("2024-02-10T09:00:00"))
    engram.remember("my old therapist retired so the practice matched me with someone new, Tomas Berg. first session "
                    "was... ok? hard to say", at=at("2024-03-10T09:00:00"))
    engram.remember("flying to Lisbon next month, wish me luck", at=at("2024-04-10T09:00:00"))
    found = results_after_all(engram, "who's my therapist now?")
    assert "Tomas Berg" in found[0].unit.content
    assert not by_text(found, "Ines").valid
    assert by_text(found, "my cousin's").valid


def test_no_earlier_word_is_left_behind_by_a_message_that_asks(engram):
    engram.remember("joined the Hackney Harriers running club, thursday evenings are 5k loops now",
                    at=at("2024-01-10T09:00:00"))
    engram.remember("any tips for a club social? I'm so awkward meeting new people", at=at("2024-03-10T09:00:00"))
    assert all(r.valid for r in results_after_all(engram, "what club do I go to on thursdays?"))


def test_a_chinese_change_leaves_behind_the_users_earlier_turn_that_shares_a_word_with_it(engram):
    """A Chinese question's words are characters: the word shared is one of the change's own ("羽毛球")."""
    engram.remember("每周三晚上固定打羽毛球，出一身汗巨爽", at=at("2024-01-10T09:00:00"))
    engram.remember("羽毛球拍线一般拉多少磅合适？帮朋友问", at=at("2024-02-10T09:00:00"))
    engram.remember("最近迷上飞盘了，羽毛球拍都吃灰了哈哈，周末都在草坪上跑", at=at("2024-03-10T09:00:00"))
    found = results_after_all(engram, "我最近的运动爱好是啥？")
    assert "飞盘" in found[0].unit.content and found[0].valid
    assert not by_text(found, "每周三晚上").valid


def test_an_earlier_city_of_the_users_is_history_once_a_move_is_the_latest_word(engram):
    engram.remember("终于在南京租到房子了，离玄武湖就两站", at=at("2024-01-10T09:00:00"))
    engram.remember("在城市里养狗要注意什么？", at=at("2024-02-10T09:00:00"))
    engram.remember("搬来厦门快一个月了，天天吃沙茶面", at=at("2024-05-10T09:00:00"))
    found = results_after_all(engram, "我现在住在哪个城市？")
    assert "厦门" in found[0].unit.content
    old = by_text(found, "南京")
    assert not old.valid and "earlier word on user.home_location" in old.why
    assert by_text(found, "养狗").valid  # names no place


def test_a_turn_that_names_the_same_city_is_not_history(engram):
    engram.remember("厦门的台风季真吓人，窗户一直在响", at=at("2024-01-10T09:00:00"))
    engram.remember("搬来厦门快一个月了，天天吃沙茶面", at=at("2024-05-10T09:00:00"))
    found = results_after_all(engram, "我现在住在哪个城市？")
    assert by_text(found, "台风季").valid
