"""Questions that name two slots or someone, and statements that only look like someone else's: a provider asked for
beside the thing it serves ("who insures my car?"), a named child's latest care ("what daycare does Maya go to now?"),
the time before a change the question names ("before I moved to Denver"), one of the user's people named with "my"
dropped, a dose that went up, a band left, "here in Duluth", the user's own news after what someone else did
("房东要卖房 只能搬了 现在住回龙观"), and someone else's news with only the user's feeling after it ("… I'm torn")."""
import pytest

from memory.extract.attributes import statement_marks, tells_a_change, tells_an_end
from memory.extract.relations import OTHERS_MARK, QUESTIONS_MARK
from tests.helpers import by_text, remember_daily, results_after_all


@pytest.fixture
def engram(minilm_engram):  # the latest word's rules read MiniLM's cosines
    return minilm_engram


@pytest.mark.parametrize("messages, question, answer", [
    (["Car insurance renewed with GEICO, $1,140 for six months for a 2016 Civic",
      "Someone dinged my car door in the Target parking lot, is it worth filing a claim?",
      "shopped around and switched to Progressive, saving like $400 a year. cancelled the old policy this morning"],
     "Who insures my car at the moment?", "Progressive"),
    (["im on the mint mobile 15gb plan rn, its like 20 bucks a month",
      "my phone keeps dropping calls in the basement, is that a carrier thing or the phone",
      "ok ported my number over to visible yesterday, unlimited for 25"],
     "what phone carrier am I with now?", "visible"),  # the carrier, not the phone
])
def test_a_question_naming_a_provider_and_what_it_serves_asks_for_the_provider(engram, messages, question, answer):
    remember_daily(engram, messages)
    found = results_after_all(engram, question)
    assert answer in found[0].unit.content


def test_a_named_childs_latest_word_is_the_latest_on_their_daycare(engram):
    remember_daily(engram, ["Maya starts at Little Acorns daycare on Monday!! my baby is growing up",
                            "maya has a cold AGAIN. daycare germs are no joke",
                            "maya's first week at Sunflower Montessori done, so much better than the last place"])
    found = results_after_all(engram, "what's the name of Maya's daycare now?")
    assert "Sunflower Montessori" in found[0].unit.content
    assert not by_text(found, "Little Acorns").valid


def test_taking_a_child_out_of_one_place_for_another_is_a_change():
    assert tells_a_change("update: we pulled her out of Acorns, starting next week she's at Bright Horizons")
    assert tells_a_change("acorns lost their lease so maya moves to Sunflower Kids Academy")


def test_what_held_before_a_move_the_question_names_is_no_longer_true(engram):
    remember_daily(engram, ["our apartment in Austin has the worst AC lol, it's 84 inside right now",
                            "best moving companies for a cross-country move? quotes are wild",
                            "boxes everywhere but officially a Denver resident as of yesterday"])
    found = results_after_all(engram, "where did I live before I moved to Denver?")
    assert "Austin" in found[0].unit.content and not found[0].valid


def test_where_the_user_lived_before_coming_to_a_city_is_no_longer_true(engram):
    remember_daily(engram, ["在成都住了五年了 夏天还是受不了 又闷又湿", "搬家寄东西用哪个快递便宜啊 好多书",
                            "来上海第一周 房子在徐汇 巷子里有很多梧桐树 好喜欢"])
    found = results_after_all(engram, "我来上海之前是在哪个城市住的？")
    assert "成都" in found[0].unit.content and not found[0].valid


def test_one_of_the_users_people_named_with_my_dropped_is_their_word():
    assert "§dentist" in statement_marks("dentist is Dr. Lindqvist over on Harbor Rd, cleaning booked for the 20th")
    assert "§dentist" not in statement_marks("dentist is booked for tuesday")


def test_a_dose_that_went_up_is_the_latest_word_on_the_medication(engram):
    remember_daily(engram, ["My GP has put me on sertraline 50mg for the time being. I take it in the mornings.",
                            "Is it safe to drink coffee with antidepressants?",
                            "Saw the doctor today. The dose has gone up to 100mg as of this week."])
    found = results_after_all(engram, "What dose of sertraline am I on currently?")
    assert "100mg" in found[0].unit.content


def test_out_of_the_band_answers_whether_the_user_still_plays_in_one(engram):
    remember_daily(engram, ["I play bass in a little cover band called The Loose Screws, we gig at O'Malley's like once a "
                            "month", "what strings do you recommend for a 5-string bass? flatwounds or roundwounds",
                            "told the guys last night I'm out of the band. too much drama and I'm tired of hauling my amp "
                            "around at midnight"])
    found = results_after_all(engram, "am I still playing in a band?")
    assert "out of the band" in found[0].unit.content


def test_here_in_a_town_is_where_the_user_lives_but_not_on_a_trip():
    assert "§home_location" in statement_marks("morning!! we got like 14 inches overnight here in Duluth, the lake")
    assert "§home_location" not in statement_marks("it's so hot here in Rome for the week")


def test_the_users_news_after_what_someone_else_did_is_their_own():
    assert OTHERS_MARK not in statement_marks("房东要卖房 只能搬了 现在住回龙观 通勤直接翻倍")
    # the user named before what they had to do, and news told with 落脚
    assert OTHERS_MARK not in statement_marks("房东把房子卖了 我们只能搬 现在落脚在张江这边了 离公司倒是近了不少")
    assert OTHERS_MARK in statement_marks("老公公司搬到了张江，现在每天开车上班")  # the one before drives


@pytest.mark.parametrize("text", ["房东要卖房 没办法又搬了…这次在亦庄",  # what the user had to do, in the same clause
                                  "房东要卖房 没办法 上周末又搬回通州了",  # moving back is a move
                                  # an ellipsis ends what the landlord did; 开始住 is where the user lives from now
                                  "房东突然说要卖房子……只能又搬了，这周开始住浦东张江那边了",
                                  # where the move ended, the user's news after the forced turn
                                  "房东要卖房 被迫搬家…结果落脚在静安了，离公司走路十分钟"])
def test_moving_again_after_what_someone_else_did_is_where_the_user_lives(text):
    marks = statement_marks(text)
    assert "§home_location" in marks and OTHERS_MARK not in marks


@pytest.mark.parametrize("text, home", [("上周末终于搬完了 累死😵 现在在张江这边", True),  # the move done
                                        ("搬完了吗？", False), ("下周开始住院了，有点怕", False),
                                        # living somewhere from a time on, the 我 dropped; not a stay
                                        ("现在住苏州园区 离公司有点远", True), ("上个月起就住苏州园区了，房租便宜一半", True),
                                        ("最近住酒店住得有点腻", False), ("我妈最近住院了", False)])
def test_a_move_done_or_a_home_begun_is_where_the_user_lives(text, home):
    assert ("§home_location" in statement_marks(text)) is home


@pytest.mark.parametrize("text", ["my grandson wants a motorbike for his 17th, his mum is dead against it. I'm torn",
                                  "my brother is buying a tesla, reckons charging is easy now, i'm sceptical"])
def test_someone_elses_news_with_only_the_users_feeling_after_it_is_theirs(text):
    assert OTHERS_MARK in statement_marks(text)


def test_a_therapist_seen_for_the_anxiety_and_prescriptions_asked_for(engram):
    assert "§therapist" in statement_marks("Started seeing Dr. Renata Okafor for the anxiety stuff, every other Thursday")
    remember_daily(engram, ["fyi I get all my meds from the little independent place on Crescent Ave, Harlow Drug",
                            "can you take ibuprofen and tylenol together?",
                            "my prescription insurance card expired, how do I get a new one"])
    assert "Harlow Drug" in results_after_all(engram, "where do I usually pick up my prescriptions?")[0].unit.content


def test_a_medicine_to_avoid_asked_for_in_chinese_is_an_allergy(engram):
    remember_daily(engram, ["药店买的布洛芬一天最多吃几粒", "我对青霉素过敏 上次打针差点出事 记一下", "头孢和酒真的不能一起吗 明天有饭局"])
    assert "青霉素" in results_after_all(engram, "去看病的时候我要提醒医生什么药不能用？")[0].unit.content


@pytest.mark.parametrize("text", ["which city has the best live music in the UK? genuinely curious",
                                  "who won the football last night? missed it",
                                  "how tall is the shard? saw it from the train today"])
def test_a_question_with_only_an_aside_after_it_chiefly_asks(text):
    assert QUESTIONS_MARK in statement_marks(text)


@pytest.mark.parametrize("text", ["any good thai places? just moved to leeds",
                                  "can you recommend a good book? just finished The Nightingale",
                                  "any tips for a club social? I'm so awkward meeting new people"])
def test_what_a_question_tells_of_the_user_or_names_is_no_aside(text):
    assert QUESTIONS_MARK not in statement_marks(text)


def test_a_number_moved_to_another_network_is_the_phones_not_a_job(engram):
    assert "§mobile_network" in statement_marks("终于转到联通了 59一个月流量还多 香")
    assert "§mobile_network" not in statement_marks("宽带转到联通了")
    remember_daily(engram, ["移动的套餐也太贵了吧 一个月128 流量还不够用", "手机信号在地下室一格都没有", "终于转到联通了 59一个月流量还多 香"])
    assert "联通" in results_after_all(engram, "我的手机号现在是哪个运营商的？")[0].unit.content
    assert "联通" not in " ".join(r.unit.content for r in results_after_all(engram, "我现在在哪里上班？")
                                if r.unit.type == "user_profile")


def test_a_group_that_shares_a_pastime_is_no_employer():
    from datetime import datetime, timezone

    from memory.extract.facts import find_statements

    written = datetime(2024, 1, 1, tzinfo=timezone.utc)
    assert "§employer" not in statement_marks("加入了一个叫“山野行”的徒步群，这周六去爬梧桐山")
    assert not [f for f in find_statements("加入了一个叫“山野行”的徒步群，这周六去爬梧桐山", written) if f.attribute == "employer"]
    assert [f.value for f in find_statements("我加入了腾讯", written) if f.attribute == "employer"] == ["腾讯"]


@pytest.mark.parametrize("text", ["和小林在一起三个月啦，他做饭是真的好吃", "跟小林在一起三个月啦🥹"])
def test_together_for_months_with_someone_named_is_the_users_partner(text):
    from datetime import datetime, timezone

    from memory.extract.facts import find_statements

    assert "§partner" in statement_marks(text)
    found = find_statements(text, datetime(2024, 1, 1, tzinfo=timezone.utc))
    assert [f.value for f in found if f.attribute == "partner"] == ["小林"]


@pytest.mark.parametrize("question", ["are there any meds i'm supposed to stay away from?",
                                      "is there a drug I should warn a new doctor not to give me?"])
def test_a_medicine_to_keep_from_the_user_is_asked_of_their_allergies(engram, question):
    remember_daily(engram, ["doctor's appt went fine, she said my blood pressure is normal for once",
                            "oh btw just so u know, penicillin makes me break out in hives, found that out the hard way",
                            "pharmacy messed up my prescription again smh"])
    assert "penicillin" in results_after_all(engram, question)[0].unit.content


@pytest.mark.parametrize("text", ["I came out in a rash after the amoxicillin last year",
                                  "my lips swell up if I eat shellfish", "I had a bad reaction to codeine once",
                                  "penicillin makes me break out in hives"])
def test_the_reaction_a_user_tells_of_is_an_allergy(text):
    assert "§allergy" in statement_marks(text)


@pytest.mark.parametrize("text", ["it's lashing rain here, takes me right back to growing up in Galway",
                                  "born and raised in Green Bay, bleed green and gold"])
def test_where_the_user_grew_up_told_in_passing_is_their_hometown(text):
    assert "§hometown" in statement_marks(text)
    assert "§hometown" not in statement_marks("rent got raised in march")


def test_a_first_session_somewhere_named_is_where_the_user_trains_now(engram):
    assert "§gym" in statement_marks("first session at Vertical Hive tonight since the move")
    remember_daily(engram, ["got a membership at Brooklyn Boulders!! finally committing to this climbing thing",
                            "my forearms are DESTROYED from climbing lol cant open a jar",
                            "first session at Vital tomorrow, cancelled BKB since the move uptown made it a 50 min trek"])
    found = results_after_all(engram, "which climbing gym do I go to now?")
    assert "Vital" in found[0].unit.content


def test_signing_up_for_a_class_after_dropping_another_names_the_new_one():
    marks = statement_marks("吉他吃灰了，报了个尤克里里的班，四根弦友好多了哈哈")
    assert "§instrument" in marks and "§said~no" not in marks


def test_a_greeting_before_a_question_is_no_aside_to_it():
    text = "heyy sorry for the slow reply! was in my Mandarin class — 3 months in. how's your week going?"
    assert QUESTIONS_MARK not in statement_marks(text)


def test_stepping_down_from_something_ends_it():
    assert tells_an_end("I've stepped down from my Saturday shifts, with the new baby I can't commit")


def test_the_users_buddies_are_someone_else():
    assert OTHERS_MARK in statement_marks("my buddies want to do a game night, what card games work for 6 people?")
