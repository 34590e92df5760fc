"""Updates that name no attribute: the values say their class; switches, negations and Chinese frames."""
from datetime import datetime, timezone

from memory.embed import HashingEmbedder
from memory.extract.attributes import resolve, statement_topics
from memory.extract.facts import find_statements
from memory.extract.value_types import acquired, held_classes, switch, value_class, value_classes
from tests.helpers import at, check_latest_first_and_earlier_behind, open_engram

WRITTEN = datetime(2025, 3, 1, tzinfo=timezone.utc)


def facts(text: str) -> list[tuple[str, str | None]]:
    return [(f.content, f.attribute) for f in find_statements(text, WRITTEN)]


def test_a_value_names_its_class_in_english_and_chinese():
    assert value_class("the drums") == "instrument"
    assert value_class("a Samsung Galaxy S24") == "phone_model"
    assert value_class("一辆理想L7") == "car"
    assert value_class("中山大学") == "school"
    assert value_class("sparkling water") == "drink_preference"
    assert value_class("the weather") is None


def test_a_value_noun_that_only_qualifies_the_next_noun_names_no_value():
    assert value_classes("I met Sam at the coffee shop") == [] and held_classes("I got a new phone case") == []
    assert held_classes("I got a parking ticket in the car park") == []
    assert held_classes("I bought a new car") == ["car"] and value_class("an oat latte") == "drink_preference"
    assert not [name for name, _ in statement_topics("I met Sam at the coffee shop.") if name == "drink_preference"]
    assert ("drink_preference", False) in statement_topics("I drink coffee every morning.")
    assert not [name for name, _ in statement_topics("I got a new phone case.") if name == "phone_model"]


def test_a_value_noun_marks_a_clause_only_with_a_verb_that_holds_or_changes_it():
    assert held_classes("Ditched the piano for the drums") == ["instrument"]
    assert held_classes("前两天换了一部华为Mate 60") == ["phone_model"]
    assert held_classes("no fish either") == []
    assert held_classes("小米粥很养胃") == []


def test_switch_frames_read_the_old_and_the_new_value():
    assert switch("Swapped the builder's tea for green tea") == ("the builder's tea", "green tea")
    assert switch("We went from Bath to Norwich") == ("Bath", "Norwich")
    assert switch("green tea instead of coffee") is None
    assert switch("green tea instead of coffee", loose=True) == ("coffee", "green tea")
    assert switch("把地铁换成了电动车") == ("地铁", "电动车")
    assert switch("I moved to Leeds with Sarah") is None
    assert acquired("Picked up a Toyota Yaris hybrid") == "Toyota Yaris hybrid"
    assert acquired("picked up the keys to the secondhand Golf today") == "Golf today"  # the thing, not its keys


def test_a_switch_is_stored_as_a_value_of_the_class_its_values_name():
    assert facts("Ditched the piano for the drums, much more fun.") == [("User plays drums.", "instrument")]
    assert facts("Replaced the Pixel with a Samsung Galaxy S24.") == [("User's phone is Samsung Galaxy S24.", "phone_model")]
    assert facts("卡罗拉卖了，新买了一辆理想L7。") == [("用户开理想L7。", "car")]
    assert facts("前两天换了一部华为Mate 60。") == [("用户的手机是华为Mate 60。", "phone_model")]
    assert facts("公司搬家以后我改成骑电动车上班了。") == [("用户的通勤方式：骑电动车。", "commute")]


def test_negations_phrased_many_ways_close_the_value():
    assert facts("Hana and I aren't together anymore.") == [("User is no longer with Hana.", "partner")]
    assert facts("Rolo is no longer with us.") == [("User no longer has Rolo.", "pet")]
    assert facts("I've quit caffeine entirely.") == [("User no longer drinks caffeine.", "drink_preference")]
    assert facts("I'm not at Penfold any longer.") == [("User no longer works at Penfold.", "employer")]
    assert facts("我已经不在北京住了。") == [("用户不再住在北京。", "home_location")]
    assert facts("我和小美分了。") == [("用户已经和小美分开了。", "partner")]
    assert ("occupation", True) in statement_topics("我不再写代码了。")


def test_a_negation_and_a_new_value_in_one_message_give_both():
    found = facts("I'm off coffee altogether, it's hibiscus tea for me now.")
    assert found == [("User no longer drinks coffee.", "drink_preference"), ("User now drinks hibiscus tea.", "drink_preference")]
    assert facts("It's green tea for me from now on.") == [("User now drinks green tea.", "drink_preference")]


def test_a_job_ended_without_naming_the_employer_ends_whichever_it_was():
    for text in ("handed in my notice in December, not working anywhere right now", "I got laid off last week.",
                 "I'm between jobs at the moment.", "I quit my job in March."):
        assert facts(text) == [("User no longer works at their employer.", "employer")], text
    assert facts("I'm not working today, it's a bank holiday.") == []  # a day off, and no value "bank holiday"


def test_withdrawing_from_a_course_ends_the_school():
    assert facts("Withdrew from Leeds Beckett last week, couldn't keep up.") == [
        ("User no longer studies at Leeds Beckett.", "school")]


def test_joining_a_gym_or_a_club_is_no_job_and_settling_into_a_new_place_is_a_move():
    assert facts("I've joined PureGym on Deansgate, £22 a month.") == []
    assert facts("I joined the Ramblers Club.") == []
    assert facts("I joined Google.") == [("User joined Google.", "employer")]
    assert facts("been in the new place in Stockbridge since Easter") == [("User moved to Stockbridge.", "home_location")]
    assert facts("We're in the new flat in Leith now.") == [("User moved to Leith.", "home_location")]
    assert facts("Been in the new office in Leeds all week.") == []


def test_a_state_with_its_subject_dropped_before_a_name_is_the_users():
    assert facts("Living in Vancouver, it rains like 200 days a year lol") == [("User lives in Vancouver.", "home_location")]
    assert facts("Been seeing Priya for about six weeks now.") == [("User's partner is Priya.", "partner")]
    assert facts("Things with me and Marco ended over the summer.") == [("User is no longer with Marco.", "partner")]
    assert facts("Living in the moment is hard.") == [] and facts("Seeing Tom for lunch.") == []


def test_more_ways_of_stating_a_value():
    assert facts("Accepted an offer from Northgate Studios.") == [("User joined Northgate Studios.", "employer")]
    assert facts("I'm seeing a woman called Rosa now.") == [("User's partner is Rosa.", "partner")]
    assert facts("Just signed the lease on a place in Cardiff.") == [("User moved to Cardiff.", "home_location")]
    assert facts("I teach maths at a sixth-form college.") == [("User's job: teaching maths at a sixth-form college.", "occupation")]
    assert facts("我已经转到中山大学了。") == [("用户在中山大学读书。", "school")]
    assert facts("去年年底我们举家迁到了大连。") == [("用户搬到了大连。", "home_location")]
    assert facts("如今我在深圳落脚了。") == [("用户住在深圳。", "home_location")]
    assert facts("上个月入职了一家游戏公司，做策划。")[-1] == ("用户的职业是策划。", "occupation")
    assert facts("旺财送给了乡下的亲戚，现在我养了一只橘猫，叫橙子。") == [("用户养了一只橘猫，叫橙子。", "pet")]


def test_a_date_for_the_period_the_message_is_in_does_not_date_the_change_back():
    found = find_statements("Swapped the builder's tea for green tea this year.", WRITTEN)
    assert found[0].began is None
    since = find_statements("Since January I've switched to green tea.", WRITTEN)
    assert since[0].began == datetime(2025, 1, 1, tzinfo=timezone.utc)


def test_the_new_value_of_a_switch_answers_the_state_question_and_the_old_one_is_history():
    engram = open_engram(embedder=HashingEmbedder())
    try:
        engram.remember("I'm learning the piano with a teacher down the road.", at=at("2025-01-05T10:00:00"))
        engram.remember("The road outside is being resurfaced.", at=at("2025-01-09T10:00:00"))
        engram.remember("Ditched the piano for the drums, much more fun.", at=at("2025-02-01T10:00:00"))
        result = engram.recall("What instrument do I play now?", as_of=at("2025-03-01T00:00:00"))
        assert "drums" in result.results[0].unit.content
        assert any("piano" in r.unit.content and not r.valid for r in result.results)
    finally:
        engram.close()


def test_a_time_lead_or_an_emoji_does_not_hide_the_statement_after_it():
    """"so as of this week" before the subject, and an emoji or a space between Chinese clauses."""
    assert facts("so as of this week I've gone fully vegan 🌱 no fish, no dairy") == [("User's diet: vegan.", "diet")]
    assert facts("搬家终于搞定了😮‍💨 现在住在杭州滨江，离公司走路十分钟") == [("用户住在杭州滨江。", "home_location")]
    assert facts("搬家终于搞定了 现在住在杭州滨江") == [("用户住在杭州滨江。", "home_location")]


def test_a_named_chinese_diet_is_a_value_without_the_word_diet():
    assert facts("最近在吃生酮，每天碳水控制在20g以内") == [("用户的饮食：生酮。", "diet")]
    assert facts("我在吃低碳饮食") == [("用户的饮食：低碳饮食。", "diet")]


def test_a_lead_word_a_milestone_or_a_present_home_without_zai_still_states_the_value():
    assert facts("for the record I'm pescatarian, fish yes, meat no") == [("User's diet: pescatarian.", "diet")]
    assert facts("one month fully vegan today!!") == [("User's diet: vegan.", "diet")]
    assert facts("我现在住杭州滨江，离公司骑车十分钟") == [("用户住在杭州滨江。", "home_location")]
    assert facts("搬来成都第一周，累到虚脱") == [("用户搬到了成都。", "home_location")]  # not 成都第
    assert facts("我现在住院了，好难受") == []


def test_a_new_home_a_first_day_reported_for_and_a_job_held_nearly_years_state_chinese_values():
    assert facts("终于搬完了😮‍💨 新家在闵行七宝，房租便宜了快两千") == [("用户搬到了闵行七宝。", "home_location")]
    assert facts("offer 接了！！下个月 1 号去美团报到") == [("用户加入了美团。", "employer")]
    assert facts("在字节做产品快三年了 天天加班到十点")[0] == ("用户的职业是产品。", "occupation")  # not 产品快
    assert facts("新家的沙发到了") == []


def test_a_transfer_to_a_city_is_a_move_and_no_new_employer():
    assert facts("公司把我调到成都了，下周过去") == [("用户搬到了成都。", "home_location")]
    assert facts("我调到上海分公司了") == [("用户搬到了上海。", "home_location")]
    assert facts("我被调到数据平台组了") == []  # a team: `team` reads it as a statement, no home
    assert facts("我跳槽到字节了") == [("用户加入了字节。", "employer")]


def test_an_account_opened_with_a_bank_is_a_statement_about_the_bank():
    assert ("bank", False) in statement_topics("opened an account with Revolut today, don't let me forget lol")
    assert ("bank", False) in statement_topics("新办了招商银行的卡，别告诉别人哈")


def test_veggie_is_a_diet_and_a_later_diet_leaves_it_behind(tmp_path):
    assert facts("i'm veggie, have been for years") == [("User's diet: veggie.", "diet")]
    messages = ["been fully veggie since march, loving it", "any good tofu recipes for a stir fry?",
                "ok confession, i eat fish again now so pescatarian i guess"]
    check_latest_first_and_earlier_behind(open_engram(tmp_path), messages, "am i still vegetarian?", "pescatarian",
                                          "fully veggie")
