"""A user's message about someone else ("My colleague is allergic to cats") is not the user's word about themselves."""
import pytest

from memory.extract.attributes import statement_marks
from memory.extract.relations import ASKS_FIRST_MARK, OTHERS_MARK, about_someone_else, names_someone, someone_elses_attribute
from tests.helpers import at, first_message_id, open_engram, remember_daily


@pytest.mark.parametrize("text, marks", [
    ("My sister's on the keto diet, any recipes?", [OTHERS_MARK]),
    ("My brother just got a new job in Leeds, what's a good congrats gift?", [OTHERS_MARK]),
    ("My colleague is learning Python, any free courses for her?", [OTHERS_MARK]),
    ("我爸膝盖不好，有什么适合老年人的锻炼方式吗？", [OTHERS_MARK]),
    ("我妈在医院当护士", [OTHERS_MARK]),
    ("Mum keeps asking me to sort her phone plan, she's with EE.", ["§told", OTHERS_MARK]),  # a parent by name
    ("neighbour's tesla blocking our drive AGAIN lol should i leave a note", [OTHERS_MARK]),  # chat drops the "my"
    ("sister wants to bring her kids over sunday, what snacks do kids actually eat", [OTHERS_MARK]),  # before a verb
    ("sister and i went to the zoo", ["§said"]),
    # and it asks first
    ("what's the weather like in Leeds in January? asking for my mum who still lives up there",
     [OTHERS_MARK, ASKS_FIRST_MARK]),
    # the user is the subject of a clause: the user's own statement, about what that clause says
    ("My brother got a job at Arup, so I moved into his old flat in Leeds", ["§home_location", "§said"]),
    ("My wife and I moved to Leeds last year", ["§partner", "§home_location", "§said"]),
    # one of the user's people introduced by name is a word about the user's partner
    ("My boyfriend Marco keeps stealing the duvet", ["§partner", "§said"]),
    ("I'm vegetarian, like my sister", ["§diet", "§said"]),
    # the user only reacts to someone else, or tells news of their own beside them
    ("my friend has three kids under 5, i genuinely don't know how she does it", ["§said", OTHERS_MARK]),
    ("our twins Amara and Kofi started nursery this week, I cried more than they did",
     ["§children", "§childcare", "§said"]),
    # a relation after a modifier of its own: someone else's partner is not the user's
    ("我室友的男朋友天天来我们家蹭饭，好烦", ["§told", OTHERS_MARK]),
    ("老家的亲戚又在群里发养生文章 服了", [OTHERS_MARK]),
    # a reminder to oneself before someone else's news is about them; before the user's own, the user's
    ("need to remember my mom's bday is june 12, she wants a plant", ["§said", OTHERS_MARK]),
    ("don't let me forget my dad's birthday is may 3", ["§said", OTHERS_MARK]),
    ("reminder to self: my Subaru Outback is due for an oil change", ["§car", "§said"]),
])
def test_a_message_about_someone_else_names_none_of_the_users_topics(text, marks):
    assert statement_marks(text) == marks


@pytest.mark.parametrize("text, about_others", [
    ("My daughter is allergic to cats — do hypoallergenic breeds help?", True),
    ("My boss said I'm getting promoted in June.", False),  # what they say is of the user
    ("我妈说我太瘦了", False),
    ("My husband Kenji says hi too.", False),
    # after the questions it opens with, on someone's behalf, by a friend's name, or someone else's things
    ("how long are GP waiting times usually? my mum waited 3 weeks", True),
    ("flying long-haul with a toddler, any tips? asking for my sister", True),
    ("帮我妈问一下，高血压能吃柚子吗", True),
    ("my friend Dimitri owns a food truck and says the business side is a nightmare", True),
    ("ugh the neighbour's dog barks at 6am every single day", True),
    ("any tips for a club social? I'm so awkward meeting new people", False),
    ("is it normal? I moved here last week and my sister visits on Sunday", False),
    # Chinese often drops the 我 before a relation: still someone else's news; WeChat's 朋友圈 is no friend
    ("表妹在学钢琴，考级考到八级了", True),
    ("同事开车上班，每天堵一个小时", True),
    ("朋友想养猫问我意见", True),
    ("朋友圈里都在晒旅游", False),
    ("老婆和我搬到了杭州", False),
    # a relation after a modifier of its own is still the subject; the place it modifies is not
    ("老家的亲戚又在群里发养生文章 服了", True),
    ("公司的同事都在卷", True),
    ("我闺蜜的爱人刚升职了，送什么礼物合适", True),
    ("回了趟老家大理 妈妈做的饵块太香了", False),
    ("my buddy Sam just started work at Stripe, he says the snacks are insane lol", True),
])
def test_what_someone_says_of_the_user_is_about_the_user(text, about_others):
    assert about_someone_else(text) is about_others


def allergies(eng) -> None:
    remember_daily(eng, ["I'm allergic to peanuts and carry an EpiPen.",
                         "My colleague is allergic to cats, so allergic she sneezes at photos of them."])


def test_a_question_about_the_user_finds_the_users_own_word_before_a_word_about_someone_else():
    with open_engram() as eng:
        allergies(eng)
        assert first_message_id(eng, "What am I allergic to?") == "m0"
        # a question that names the other person, or is not about the user, reads as before
        assert first_message_id(eng, "What is my colleague allergic to?") == "m1"
        assert first_message_id(eng, "allergic cats") == "m1"


def test_a_property_of_someone_else_read_as_a_profile_fact_is_about_them_too():
    """"my brother's birthday is june 3 …" is the user's message (they need gift ideas) but the brother's birthday."""
    with open_engram() as eng:
        remember_daily(eng, ["my brother's birthday is june 3 and i already need gift ideas, he's impossible",
                             "it's my birthday week, turning 30 on the 14th, send wrinkle cream"])
        mine = eng.recall("When's my birthday?", as_of=at("2025-02-01T00:00:00")).results
        assert all(r.unit.content != "User's brother's birthday is june 3." for r in mine[:2])
        brothers = eng.recall("When's my brother's birthday?", as_of=at("2025-02-01T00:00:00")).results
        assert "june 3" in brothers[0].unit.content  # the message, and after it the fact read from it
        assert brothers[1].unit.content == "User's brother's birthday is june 3."


def first_result(eng, question: str):
    return eng.recall(question, as_of=at("2025-02-01T00:00:00")).results[0]


@pytest.mark.parametrize("attribute, theirs", [
    ("brother_birthday", True), ("best_friend_name", True), ("mom_name", True), ("哥哥的生日", True),
    ("老公的名字", True), ("partner", False), ("phone", False), ("favourite_colour", False), ("姐姐", False),
])
def test_a_slot_attribute_of_one_of_the_users_people_is_someone_elses(attribute, theirs):
    assert someone_elses_attribute(attribute) is theirs


@pytest.mark.parametrize("question, named", [
    ("What did I get my sister for her birthday?", True), ("How many cousins' weddings did I go to?", True),
    ("我妈喜欢什么花？", True), ("Is there anything I'm allergic to?", False), ("Who am I dating?", False),
    ("我现在平时怎么锻炼？", False), ("我另一半是干什么工作的？", True), ("what does my other half do for work?", True),
])
def test_a_question_that_names_one_of_the_users_people_is_read_as_about_them(question, named):
    assert names_someone(question) is named


def test_a_message_about_someone_else_is_no_statement_of_the_users_by_its_meaning_either():
    """The example-sentence classes read the user's own statements only: "my son's friend has a peanut allergy"
    comes close to "I'm allergic to peanuts" by meaning, but is no word on the user's allergies."""
    from memory.embed import LocalMiniLM

    with open_engram(embedder=LocalMiniLM()) as eng:
        remember_daily(eng, [
            "Good morning! fun fact about me, shellfish makes my throat swell up, so the oyster bar lunch is out",
            "my son's friend has a peanut allergy, any nut-free snack ideas for the birthday party?",
            "what's the difference between an allergy and an intolerance anyway",
        ])
        assert first_message_id(eng, "Do I have any food allergies?") == "m0"


def test_a_chinese_relation_without_its_wo_holds_none_of_the_users_slots():
    """"同事买了理想L7" is the colleague's car: the subject Chinese drops is the user's only when no one else
    is named first; a partner named so still gives the user's partner."""
    with open_engram() as eng:
        remember_daily(eng, ["同事买了理想L7，天天跟我吹", "表妹在杭州上班", "对象叫小林"])
        held = {attribute: [u.value for u in eng.store.slot_history("user", attribute)]
                for attribute in eng.user_attributes()}
        assert held == {"partner": ["小林"]}


@pytest.mark.parametrize("text, only_of_them", [
    ("my neighbour has 3 boys and i have no idea how she stays sane", True),
    ("My brother visited and I showed him round Leeds, where I live now", False),  # "where I live": the user's own
    ("My sister's on the keto diet, any recipes?", False),  # the user is in no clause
    ("the match was awful and I felt sorry for them", False),  # it does not begin with someone else
])
def test_the_user_speaking_only_of_someone_else(text, only_of_them):
    from memory.extract.relations import speaks_only_of_them

    assert speaks_only_of_them(text) is only_of_them


def test_someone_elses_word_that_matches_the_question_better_still_goes_below_the_users_own(minilm_engram):
    """The husband's blood test shares more with the question than the nurse's word about the user's blood type."""
    remember_daily(minilm_engram, [
        "The nurse at the donor session said I'm O neg, the universal one, so they'll be calling me a lot lol",
        "my husband needs a blood test for cholesterol, does he have to fast beforehand?",
        "Is it true that your personality matches your blood type? My coworker swears by it"])
    assert first_message_id(minilm_engram, "What blood type am I?") == "m0"


def test_someone_elses_later_news_is_never_the_users_latest_word(minilm_engram):
    """"my dad's turning 65" is said after the user's "just turned 37", and on the same topic: it is the dad's."""
    remember_daily(minilm_engram, ["just turned 37 today 🎂 feeling ancient lol",
                                   "my dad's turning 65 next month, how old is too old to feel old lol"])
    results = minilm_engram.recall("how old am i now?", as_of=at("2025-02-01T00:00:00")).results
    assert results[0].unit.message_id == "m0"
    assert all(r.valid for r in results if r.unit.message_id == "m0")


@pytest.mark.parametrize("text", ["我同学老公是程序员，一年到头加班", "我侄子胆子特别大，过山车连坐了五遍", "我房东又涨房租了"])
def test_a_chinese_message_about_a_classmate_a_nephew_or_a_landlord_is_someone_elses(text):
    from memory.extract.attributes import statement_marks
    from memory.extract.relations import OTHERS_MARK

    assert OTHERS_MARK in statement_marks(text)
