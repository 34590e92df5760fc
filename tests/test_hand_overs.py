"""Who looks after the user and theirs (a therapist, a vet, a daycare, a broadband provider, where they volunteer or rent
a desk), where they come from, statements as chat types them, a hand-over told by the name of whoever left, and answers
that are no longer true once something replaced them."""
import pytest

from memory.extract.attributes import statement_marks
from memory.slots import asks_as_user
from tests.helpers import at, by_text, results_after_all

@pytest.fixture
def engram(minilm_engram):  # the latest word's rules read MiniLM's cosines
    return minilm_engram


@pytest.mark.parametrize("text, mark", [
    ("been seeing a counsellor called Ruth every other monday, it's helping", "§therapist"),
    ("took Pepper to the animal hospital on Grove St for her jabs", "§vet"),  # news with the subject dropped
    ("we switched vets, the new practice actually answers the phone", "§vet"),
    ("helping out at the soup kitchen on sundays now, really grounding", "§volunteering"),
    ("家里装了移动的宽带，300M的", "§broadband"),  # 装了 opens the user's own action
    ("宽带转到电信了，便宜一半", "§broadband"),  # the thing, then where it moved
    ("每天开我那辆小golf上班，堵得要命", "§commute"),  # a car named in Latin letters on the way to work
    ("loving the new flat in Hove, the sea is right there", "§home_location"),
    ("sorry been quiet, paramedic life on nights is brutal", "§occupation"),  # a job as a way of life
    ("third week at Accenture and I still don't know where the printer is", "§employer"),
    ("starting at a startup called Loop on monday!!", "§employer"),
    ("我们把小宝转到了楼下的托班，给小宝转到那边方便多了", "§childcare"),
    ("took Pepper to Dr. Lane at Oak Street today for her boosters", "§vet"),  # a vet by what the visit was for
    ("long day, 14 scans back to back. radiographer life 😴", "§occupation"),  # a job by its suffix, as a way of life
    ("一直找公司楼下那家店的小周剪头，手艺稳", "§barber"),  # where the user always goes
    ("这周把号携转到电信了，59的套餐够用", "§mobile_network"),  # 携转, short for 携号转网
    ("我用的中国联通58块的套餐，流量不够", "§mobile_network"),  # the network, then its price, then 套餐
    ("之前那家到期没续，现在改去超级猩猩上团课了", "§gym"),  # a gym by its name, 改去
    ("年后跳槽去了京东，还是做运营", "§employer"),  # a time that ends in 后
    ("戒了快两个月了！一根都没碰", "§smoking~no"),  # a cigarette by its measure word
    ("我们租的房子在天通苑，离地铁近", "§home_location"),  # where the rented flat is
    ("改开了腾讯视频，主要为了看综艺", "§streaming"),  # 改开
    ("在吗～刚从西安老家回来，吃胖了", "§hometown"),  # a clause after ～, 从…回来
    ("just signed the lease in Leith!! tiny but mine", "§home_location"),
    ("peaced out of wework, the new hot desk place is half the price", "§coworking"),  # slang opens news
    ("hey! sorry, i'm colombian so my english is a bit rusty", "§hometown"),  # where the user is from, as who they are
])
def test_chat_as_typed_is_marked_with_its_attribute(text, mark):
    assert mark in statement_marks(text)


def test_a_respiratory_therapist_is_a_job_not_someone_the_user_sees():
    marks = statement_marks("sorry been MIA, respiratory therapist life in flu season is no joke")
    assert "§occupation" in marks and "§therapist" not in marks


@pytest.mark.parametrize("question, asks", [
    ("which nursery is Ava at now?", True),  # the user's child, asked by name
    ("who is Rex's vet?", True),
    ("小宝现在在哪个托班？", True),
    ("what does Ava do for work?", False),  # someone else's job
])
def test_a_question_about_who_looks_after_a_dependant_by_name_is_the_users(question, asks):
    assert asks_as_user(question) is asks


def test_a_hand_over_told_by_the_name_of_who_left_is_the_latest_word(engram):
    engram.remember("I've started seeing a therapist, Dr. Anna Kowalski, on Tuesday mornings", at=at("2024-01-09T09:00:00"))
    engram.remember("any breathing exercises for a panic attack?", at=at("2024-02-01T09:00:00"))
    engram.remember("Anna is going on maternity leave so I was referred to Tom Bright, first session went fine",
                    at=at("2024-04-02T09:00:00"))
    found = results_after_all(engram, "who's my therapist these days?")
    assert "Tom Bright" in found[0].unit.content
    assert not by_text(found, "Kowalski").valid


def test_a_later_mention_of_the_name_that_tells_no_hand_over_is_no_latest_word(engram):
    engram.remember("I've started seeing a therapist, Dr. Anna Kowalski, on Tuesday mornings", at=at("2024-01-09T09:00:00"))
    engram.remember("Anna gave me a worksheet on catastrophising, it's actually useful", at=at("2024-04-02T09:00:00"))
    found = results_after_all(engram, "who's my therapist these days?")
    assert "Kowalski" in found[0].unit.content
    assert by_text(found, "Kowalski").valid


def test_a_pets_vet_asked_by_the_pets_name_is_the_latest_and_the_old_one_is_history(engram):
    engram.remember("took Pepper to Dr. Singh at Elm Vets for her jabs, she was a star", at=at("2024-01-10T09:00:00"))
    engram.remember("pepper keeps scratching her ear, is that mites?", at=at("2024-02-10T09:00:00"))
    engram.remember("we switched vets, Pepper's new vet is Dr. Moreau at Hillside Animal Hospital",
                    at=at("2024-05-10T09:00:00"))
    found = results_after_all(engram, "who is Pepper's vet now?")
    assert "Moreau" in found[0].unit.content
    assert not by_text(found, "Elm Vets").valid


def test_the_place_before_a_named_move_is_history_now(engram):
    engram.remember("loving the new flat in Brixton, the market is right there", at=at("2022-05-01T09:00:00"))
    engram.remember("what's a good plant for a north-facing window", at=at("2022-06-01T09:00:00"))
    engram.remember("signed the lease on a place in Hackney, moving on the 1st!", at=at("2023-07-20T09:00:00"))
    found = results_after_all(engram, "where did I live before I moved to Hackney?")
    assert "Brixton" in found[0].unit.content
    assert not found[0].valid


@pytest.mark.parametrize("switch", [
    ["宽带转到电信了，便宜一半，速度还快"],  # the provider before the switch
    [],  # a question about before presupposes a change even when one value is known
])
def test_the_answer_to_a_question_about_before_is_history(engram, switch):
    engram.remember("家里装了移动的宽带，300M，一年九百", at=at("2022-08-01T09:00:00"))
    engram.remember("路由器隔两堵墙信号就没了怎么办", at=at("2022-09-01T09:00:00"))
    for text in switch:
        engram.remember(text, at=at("2023-05-01T09:00:00"))
    found = results_after_all(engram, "我之前用的是哪家的宽带？")
    assert "移动" in found[0].unit.content
    assert not found[0].valid


def test_of_several_allergies_a_word_that_names_none_does_not_answer_what(engram):
    engram.remember("hiya! before I forget, I'm badly allergic to sesame so keep it out of recipes pls",
                    at=at("2023-03-01T09:00:00"))
    engram.remember("can you suggest a quick noodle dinner?", at=at("2023-03-10T09:00:00"))
    engram.remember("my epipen runs out in june, do pharmacies replace them fast?", at=at("2023-05-01T09:00:00"))
    assert "sesame" in results_after_all(engram, "what am I allergic to?")[0].unit.content


def test_an_intent_is_no_change_in_chinese():
    from memory.extract.attributes import tells_a_change

    assert tells_a_change("最近换了个健身房")
    assert not tells_a_change("最近想减糖，奶茶点三分糖还是无糖啊")


def test_a_hand_over_told_without_a_statement_frame_still_names_who_left(engram):
    engram.remember("my landlord is Priya Shah, lovely but slow with repairs", at=at("2024-01-09T09:00:00"))
    engram.remember("the boiler is making that banging noise again, is that dangerous?", at=at("2024-02-01T09:00:00"))
    engram.remember("so the house got sold lol. rent goes to Northgate Lettings now, Priya's out of the picture",
                    at=at("2024-04-15T09:00:00"))
    found = results_after_all(engram, "who's my landlord these days?")
    assert "Northgate" in found[0].unit.content
    assert not by_text(found, "Priya Shah").valid


def test_an_allergy_named_before_saying_so_answers_what(engram):
    engram.remember("ordered curry for the team, checked twice there were no cashews since I'm allergic lol",
                    at=at("2023-03-01T09:00:00"))
    engram.remember("my epipen expires in september, remind me to get a refill", at=at("2023-05-01T09:00:00"))
    assert "cashews" in results_after_all(engram, "what am I allergic to?")[0].unit.content


def test_the_latest_hot_desk_answers_where_the_user_coworks(engram):
    engram.remember("got a dedicated desk at the Regus on King St, pricey but quiet", at=at("2024-01-09T09:00:00"))
    engram.remember("need a better desk lamp, the office one is awful", at=at("2024-02-15T09:00:00"))
    engram.remember("peaced out of regus, the hive on mill road is half the price. hot desk but fine",
                    at=at("2024-05-01T09:00:00"))
    found = results_after_all(engram, "where do I cowork these days?")
    assert "the hive" in found[0].unit.content
    assert not by_text(found, "King St").valid
