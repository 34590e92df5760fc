"""What the user said before the latest word on an attribute is shown as history, not as what holds now."""
import pytest

from memory.extract.attributes import statement_marks, switched_kinds
from memory.recall import names_a_value
from tests.helpers import at

NOW = at("2025-06-01T00:00:00")


@pytest.fixture
def engram(minilm_engram):
    return minilm_engram


def results(engram, question: str):
    return engram.recall(question, as_of=NOW).results


def by_text(found, text: str):
    return next(rec for rec in found if text in rec.unit.content)


def test_an_earlier_carrier_is_history_once_the_switch_is_the_latest_word(engram):
    engram.remember("I'm on T-Mobile for my phone, been with them like 6 years now", at=at("2024-02-03T09:00:00"))
    engram.remember("my phone screen cracked AGAIN lol, any tips for cheap repair shops?", at=at("2024-03-01T09:00:00"))
    engram.remember("finally switched carriers, ported my number over to Mint Mobile yesterday",
                    at=at("2024-05-10T09:00:00"))
    found = results(engram, "Which mobile carrier am I with right now?")
    assert "Mint Mobile" in found[0].unit.content and found[0].valid
    old = by_text(found, "T-Mobile")
    assert not old.valid and "earlier word on user.mobile_network" in old.why


def test_a_new_dentist_by_a_switch_that_names_its_kind_ends_the_old_one(engram):
    engram.remember("my dentist is Dr. Shaw over on Maple, he's fine I guess", at=at("2024-01-10T09:00:00"))
    engram.remember("is it normal for gums to bleed when flossing?", at=at("2024-02-10T09:00:00"))
    engram.remember("fyi I switched dentists, going to Dr. Alvarez on 5th ave now", at=at("2024-04-10T09:00:00"))
    found = results(engram, "Who's my dentist?")
    assert "Dr. Alvarez" in found[0].unit.content
    assert not by_text(found, "Dr. Shaw").valid


def test_an_attribute_that_holds_many_values_keeps_the_earlier_ones(engram):
    engram.remember("my dog keeps barking at the postman, so embarrassing", at=at("2024-01-10T09:00:00"))
    engram.remember("we adopted a kitten named Miso today!", at=at("2024-04-10T09:00:00"))
    found = results(engram, "What pets do I have now?")
    told = [rec for rec in found if "postman" in rec.unit.content]
    assert told and all(rec.valid for rec in told)


def test_a_word_that_named_no_value_is_not_made_history(engram):
    engram.remember("ugh another standup that ran 45 minutes", at=at("2024-01-08T09:00:00"))
    engram.remember("ok so I finally did it, signed the offer letter tonight. giving notice tomorrow",
                    at=at("2024-03-01T21:00:00"))
    engram.remember("first full week at Pulse Health done!! way less meetings", at=at("2024-04-05T18:00:00"))
    found = results(engram, "where do I work these days?")
    assert "Pulse Health" in found[0].unit.content
    assert all(rec.valid for rec in found if "offer letter" in rec.unit.content)


def test_a_yes_no_question_about_something_given_up_is_answered_in_the_users_words(engram):
    engram.remember("I drive a 2016 Subaru Outback, the green one", at=at("2024-01-05T09:00:00"))
    engram.remember("how often should tires be rotated?", at=at("2024-02-05T09:00:00"))
    engram.remember("sold the subaru over the weekend. going car-free for now, bike + bus",
                    at=at("2024-05-05T09:00:00"))
    found = results(engram, "Do I have a car at the moment?")
    assert "car-free" in found[0].unit.content and found[0].unit.type == "chat_turn"
    assert any(not rec.valid and "Outback" in rec.unit.content for rec in found)


def test_a_closing_makes_every_earlier_word_history_even_one_that_named_no_value(engram):
    engram.remember("smoking like a pack a day these days, exams are brutal", at=at("2024-01-10T09:00:00"))
    engram.remember("how do i get smoke smell out of a jacket?", at=at("2024-02-10T09:00:00"))
    engram.remember("two months without a single cigarette, i think i can say i quit", at=at("2024-04-10T09:00:00"))
    found = results(engram, "am i still a smoker?")
    assert "quit" in found[0].unit.content
    old = by_text(found, "a pack a day")
    assert not old.valid and "earlier word on user.smoking" in old.why


def test_what_a_closing_ended_is_history_when_nothing_holds_now(engram):
    engram.remember("4 espressos a day minimum, basically powered by beans", at=at("2024-01-10T09:00:00"))
    engram.remember("coffee table book ideas for a gift?", at=at("2024-02-10T09:00:00"))
    engram.remember("palpitations again, so that's it: no more caffeine for me", at=at("2024-04-10T09:00:00"))
    found = results(engram, "what do i drink these days?")
    old = by_text(found, "espressos")
    assert not old.valid and "earlier word on user.drink_preference" in old.why


def test_a_passing_mention_of_an_earlier_value_is_history_once_a_new_one_answers(engram):
    engram.remember("my Prius just hit 150k miles, she's a trooper", at=at("2024-01-10T09:00:00"))
    engram.remember("car seat recs for a 2 year old?", at=at("2024-02-10T09:00:00"))
    engram.remember("traded in the old hybrid today, drove home in a used RAV4, the trunk space omg",
                    at=at("2024-04-10T09:00:00"))
    found = results(engram, "What am I driving currently?")
    assert "RAV4" in found[0].unit.content
    old = by_text(found, "Prius")
    assert not old.valid and "earlier word on user.car" in old.why


def test_news_with_its_subject_dropped_is_the_users_earlier_word(engram):
    engram.remember("finally paid off the Civic!! no more car payments", at=at("2022-09-03T09:00:00"))
    engram.remember("how often should I rotate my tires", at=at("2022-11-15T09:00:00"))
    engram.remember("traded the honda in last weekend and now i'm driving a used Model 3",
                    at=at("2023-03-06T09:00:00"))
    found = results(engram, "what car am I driving these days?")
    assert "Model 3" in found[0].unit.content
    assert not by_text(found, "Civic").valid


def test_a_chinese_turn_that_drops_its_subject_is_the_users_earlier_word(engram):
    engram.remember("早上一杯美式续命，不然开会直接睡着", at=at("2024-01-10T09:00:00"))
    engram.remember("一天喝多少水才算够？", at=at("2024-02-10T09:00:00"))
    engram.remember("黑咖啡实在喝不动了太苦，最近都改喝燕麦拿铁了", at=at("2024-04-10T09:00:00"))
    found = results(engram, "我这阵子每天喝的是哪种咖啡？")
    assert "燕麦拿铁" in found[0].unit.content
    assert not by_text(found, "美式").valid


def test_a_commute_by_a_new_mode_ends_the_old_one(engram):
    engram.remember("driving to work on the 405 is killing me, 70 min each way", at=at("2024-01-10T09:00:00"))
    engram.remember("need work shoes that don't wreck my feet", at=at("2024-02-10T09:00:00"))
    engram.remember("we moved to the island!! so now it's the ferry into the city every morning",
                    at=at("2024-04-10T09:00:00"))
    found = results(engram, "how do i get to work nowadays?")
    assert "ferry" in found[0].unit.content
    assert not by_text(found, "405").valid


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
