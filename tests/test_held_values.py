"""A value the user holds, ended by naming it: "Sold the Panda" after "I drive a Fiat Panda" closes the car, in
English and Chinese; someone else's loss, or a thing only mentioned, closes nothing."""
import pytest

from memory import ChatMessage
from memory.embed import HashingEmbedder
from memory.extract.held_values import closed_values, may_end, names_either
from tests.helpers import at, first_fact, open_engram

HELD = {"car": ["Fiat Panda"], "drink_preference": ["herbal tea"], "employer": ["Acme Corp"], "pet": ["Rufus"],
        "commute": ["bus and bike for me from now on"]}


@pytest.fixture
def engram():
    engram = open_engram(embedder=HashingEmbedder())
    yield engram
    engram.close()


def test_an_ending_verb_before_a_held_values_name_ends_it():
    assert closed_values("Sold the Panda last month, it's bus and bike for me now.", HELD) == [("car", "Fiat Panda")]
    assert closed_values("Finally quit Acme!", HELD) == [("employer", "Acme Corp")]
    assert closed_values("We rehomed Rufus with my aunt.", HELD) == [("pet", "Rufus")]
    assert closed_values("Gave up herbal tea, too bland.", HELD) == [("drink_preference", "herbal tea")]  # all its words
    # one value swapped for another: the one before "for"
    assert closed_values("finally done w/ the move, swapped leeds for bristol", {"home_location": ["Leeds"]}) == [
        ("home_location", "Leeds")]
    assert closed_values("Traded the Panda for an e-bike.", HELD) == [("car", "Fiat Panda")]


def test_someone_elses_loss_or_a_mere_mention_ends_nothing():
    assert closed_values("My brother sold his Panda.", HELD) == []
    assert closed_values("I parked the Panda at the station.", HELD) == []
    assert closed_values("Sold my old bike.", HELD) == []  # a value with no name needs all its words
    assert closed_values("Swapped shifts with the Acme night crew.", HELD) == []  # nothing swapped for another
    assert closed_values("Swapped my bike for the Panda this week.", HELD) == []  # the Panda is what came
    assert closed_values("Did I sell the Panda?", HELD) == []
    assert not may_end("The Panda needs new tyres.") and may_end("Sold the Panda.") and may_end("卡罗拉卖了")


def test_chinese_values_are_ended_before_or_after_the_verb_but_not_by_others():
    held = {"car": ["白色的卡罗拉"], "employer": ["网易"], "pet": ["团子"]}
    assert closed_values("卡罗拉卖了，换了辆比亚迪。", held) == [("car", "白色的卡罗拉")]
    assert closed_values("我辞了网易的工作。", held) == [("employer", "网易")]
    assert closed_values("我哥把白色的卡罗拉卖了。", held) == []
    assert closed_values("朋友的团子送人了。", held) == []


def test_a_value_ended_by_name_is_history_and_the_ending_answers_what_holds_now(engram):
    engram.remember("I drive a red Fiat Panda.", at=at("2024-03-04T09:00:00"))
    engram.remember("Parking in town is impossible.", at=at("2024-03-06T09:00:00"))
    engram.remember("My brother sold his Panda, he wants mine now.", at=at("2024-05-01T09:00:00"))
    before = engram.recall("What car do I drive?", as_of=at("2024-06-01T00:00:00"))
    assert first_fact(before.results).unit.content == "User drives Fiat Panda." and first_fact(before.results).valid
    engram.remember("Sold the Panda last month, it's bus and bike for me from now on.", at=at("2024-07-12T09:00:00"))
    after = engram.recall("What car do I drive?", as_of=at("2024-08-01T00:00:00"))
    assert first_fact(after.results).unit.content == "User no longer drives Fiat Panda."
    assert any(r.unit.content == "User drives Fiat Panda." and not r.valid for r in after.results)
    then = engram.recall("What car do I drive?", as_of=at("2024-06-01T00:00:00"))  # what was true then stays
    assert first_fact(then.results).unit.content == "User drives Fiat Panda." and first_fact(then.results).valid


def test_a_value_stated_and_ended_in_one_imported_chat_is_closed_by_the_later_message(engram):
    engram.import_messages([
        ChatMessage(role="user", content="I drive a red Fiat Panda.", at=at("2024-03-04T09:00:00"), session_id="s1"),
        ChatMessage(role="user", content="Sold the Panda, bus and bike for me now.", at=at("2024-07-12T09:00:00"),
                    session_id="s2"),
    ])
    result = engram.recall("What car do I drive?", as_of=at("2024-08-01T00:00:00"))
    assert first_fact(result.results).unit.content == "User no longer drives Fiat Panda."


def test_a_held_value_that_died_or_was_lost_as_the_subject_ends_but_an_outing_or_an_exam_does_not():
    held = {"pet": ["Biscuit", "豆包"], "partner": ["Tom"]}
    assert closed_values("Biscuit passed in his sleep last week. The house is so quiet.", held) == [("pet", "Biscuit")]
    assert closed_values("Our old cat Biscuit died yesterday.", held) == [("pet", "Biscuit")]
    assert closed_values("豆包去年冬天走了，之后就没再养狗。", held) == [("pet", "豆包")]
    assert closed_values("Biscuit passed the vet check.", held) == []
    assert closed_values("带豆包出去走了一圈。", held) == []  # a walk with the dog
    assert closed_values("Tom's dog died.", held) == []
    assert may_end("Biscuit passed in his sleep.") and may_end("豆包走了")


def test_a_pet_that_died_after_a_new_one_came_leaves_the_new_one_as_what_the_user_has(engram):
    engram.remember("Our dog Rufus is a twelve-year-old beagle.", at=at("2024-03-03T10:00:00"))
    engram.remember("We got a kitten in January, a tabby called Saffron.", at=at("2024-12-28T10:00:00"))
    engram.remember("Rufus died last month, we still miss him.", at=at("2024-12-30T10:00:00"))
    results = engram.recall("What animal do I have at home now?").results
    assert "Saffron" in results[0].unit.content
    assert any(r.unit.content == "User has a pet: dog Rufus." and not r.valid for r in results)  # closed, kept


def test_a_closing_that_names_something_else_ends_nothing_the_user_holds(engram):
    engram.remember("I work at Deloitte in audit.", at=at("2024-01-10T09:00:00"))
    engram.remember("I quit Twitter, best decision ever.", at=at("2024-03-10T09:00:00"))
    timeline = {u.content: u for u in engram.store.slot_history("user", "employer")}
    assert timeline["User works at Deloitte."].valid_until is None
    quit_twitter = timeline["User no longer works at Twitter."]
    assert quit_twitter.valid_until == quit_twitter.valid_from  # kept, holding the slot for no moment
    assert first_fact(engram.recall("Where do I work?").results).unit.content == "User works at Deloitte."
    engram.remember("I joined Google.", at=at("2024-07-10T09:00:00"))  # a later value still ends Deloitte
    assert first_fact(engram.recall("Where do I work?").results).unit.content == "User joined Google."
    assert engram.store.open_values("user")["employer"] == ["Google"]
    engram.remember("I left Google.", at=at("2024-09-10T09:00:00"))  # a closing that names it ends it
    assert "employer" not in engram.store.open_values("user")


def test_names_either_matches_a_value_by_the_names_they_share():
    assert names_either("Deloitte", "Deloitte UK") and names_either("senior nurse", "nurse")
    assert not names_either("Twitter", "Deloitte") and names_either("网易", "网易科技")


def test_a_closing_that_names_no_one_ends_the_partner_whoever_it_was(engram):
    engram.remember("My girlfriend is called Priya.", at=at("2024-01-10T09:00:00"))
    engram.remember("We broke up last night.", at=at("2024-03-10T09:00:00"))
    assert "partner" not in engram.store.open_values("user")


def test_a_job_ended_without_naming_the_employer_ends_the_employer_whichever_it_was(engram):
    engram.remember("I'm an accountant at KPMG in Toronto.", at=at("2024-01-10T09:00:00"))
    engram.remember("handed in my notice in December 🎉 not working anywhere right now", at=at("2025-01-10T09:00:00"))
    assert "employer" not in engram.store.open_values("user")
    assert "KPMG" not in engram.recall("Where do I work now?").results[0].unit.content


def test_within_one_import_a_closing_of_something_else_leaves_the_held_value_to_be_ended_by_name(engram):
    engram.import_messages([
        ChatMessage(role="user", content="I work at Deloitte in audit.", at=at("2024-01-10T09:00:00"), session_id="s1"),
        ChatMessage(role="user", content="I quit Twitter, best decision ever.", at=at("2024-03-10T09:00:00"),
                    session_id="s1"),
        ChatMessage(role="user", content="Resigned from Deloitte today.", at=at("2024-06-10T09:00:00"), session_id="s1"),
    ])
    assert "employer" not in engram.store.open_values("user")


def where_i_work_after_a_start_and_a_notice(engram):
    """The answer to "where am I working these days?" after one message that starts a job and hands in the notice."""
    engram.remember("I accepted the offer!! starting at Brightwell Health on March 11. handed in my notice today",
                    at=at("2024-02-26T09:00:00"))
    return engram.recall("where am I working these days?", as_of=at("2024-04-02T10:00:00"))


def test_a_message_that_starts_a_job_and_hands_in_the_notice_answers_with_the_new_job(engram):
    """The closing ends the job before it, not the one the same message starts."""
    engram.remember("I work at Halvorsen Logistics as a data analyst.", at=at("2024-01-08T09:00:00"))
    engram.remember("what's a polite way to decline a meeting at work?", at=at("2024-02-02T09:00:00"))
    result = where_i_work_after_a_start_and_a_notice(engram)
    assert "Brightwell" in result.results[0].unit.content
    assert any("Halvorsen" in r.unit.content and not r.valid for r in result.results)


def test_a_start_and_a_notice_in_one_message_answer_with_the_start_when_no_job_was_held(engram):
    engram.remember("first week back and Halvorsen Logistics is drowning in planning meetings, I'm the only analyst",
                    at=at("2024-01-08T09:00:00"))
    assert "Brightwell" in where_i_work_after_a_start_and_a_notice(engram).results[0].unit.content


def test_a_change_told_in_words_no_rule_reads_a_value_from_still_ends_the_value_held(engram):
    engram.remember("I live in Kentish Town, two minutes from the tube.", at=at("2023-05-02T09:00:00"))
    engram.remember("which neighbourhood cafes have wifi and plugs?", at=at("2023-09-10T09:00:00"))
    engram.remember("MOVING DAY DONE. we're in a little terraced house in Walthamstow now, boxes everywhere",
                    at=at("2024-03-02T09:00:00"))
    result = engram.recall("which neighbourhood do I live in now?", as_of=at("2024-04-01T00:00:00"))
    assert "Walthamstow" in result.results[0].unit.content
    assert any(r.unit.content == "User lives in Kentish Town." and not r.valid for r in result.results)


def test_a_change_of_one_topic_ends_no_other_and_naming_the_value_ends_nothing(engram):
    engram.remember("I work at Deloitte in the audit team.", at=at("2023-05-02T09:00:00"))
    engram.remember("I live in Leeds.", at=at("2023-05-03T09:00:00"))
    engram.remember("moved house last week, loving Leeds still, the office is a short walk now",
                    at=at("2024-03-02T09:00:00"))
    assert engram.store.open_values("user") == {"employer": ["Deloitte"], "home_location": ["Leeds"]}
    engram.remember("moved house, we're in the new place now and the office is a short walk",
                    at=at("2024-06-02T09:00:00"))
    assert engram.store.open_values("user") == {"employer": ["Deloitte"]}


def test_a_topic_named_beside_a_change_of_another_is_not_changed(engram):
    engram.remember("我在腾讯上班。", at=at("2023-05-02T09:00:00"))
    engram.remember("搬家终于搞定了 现在住在杭州滨江，离公司走路十分钟", at=at("2024-03-02T09:00:00"))
    assert engram.store.open_values("user")["employer"] == ["腾讯"]
