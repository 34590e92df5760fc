"""A user's message that only asks ("is hay fever worse in june or july?") says nothing of the user."""
import pytest

from memory.extract.attributes import statement_marks
from memory.extract.facts import asks_only, is_question
from memory.extract.relations import ASKS_FIRST_MARK, ASKS_MARK, QUESTIONS_MARK
from tests.helpers import first_message_id, open_engram, remember_daily


@pytest.mark.parametrize("text, only_asks", [
    ("is hay fever worse in june or july?", True),
    ("best hand cream for cracked knuckles in winter?", True),
    ("what's a good way to practice speaking a language without paying for a tutor", True),
    ("is it ok to give pets a bit of tuna, as a treat?", True),
    ("有什么适合冬天的运动装备推荐吗", True),
    ("Can you suggest names for a new houseplant? lol", True),  # a clause that says nothing
    ("whats a good neighbourhood in london for a first date", True),  # chat spelling
    ("lol", False),
    # the writer is named, or a clause tells
    ("how do I get my salary paid into Starling?", False),
    ("Sold the bike, any tips for selling the helmet?", False),
    ("Sold the bike. Any tips for selling the helmet?", False),
    ("sitting on the river bank feeding ducks, what are you supposed to feed them", False),
    ("上个月搬家到深圳南山了，房租贵得离谱 有没有省钱的建议", False),
    ("我该怎么准备面试？", False),
    ("Moved to Leeds last month.", False),
    # the "I" of a question of what to do is anyone's; 要不要 asks
    ("how often should I change the oil on an older car?", True),
    ("at what age should I start getting general health checkups every year?", True),
    ("can I freeze cooked rice", True),
    # Chinese chat asks without a question mark: how thick, which of two, a recommendation
    ("瑜伽垫买多厚的比较好", True),
    ("考试前一天该复习还是休息啊", True),
    ("周末该去爬山还是在家躺着", True),
    ("跑鞋求推荐", True),
    ("学校附近的补习班靠谱吗，要不要报", True),
    ("I should call mum, what time is it?", False),
    ("my sister loves pizza and so do I", False),
    # chat asks without a question mark: "any …", and 吗 before the space that ends a Chinese clause
    ("any tips for selling shoes on vinted", True),
    ("anyone know a decent plumber round here", True),
    ("any time i eat dairy i get sick", False),
    ("any tips for my trip to rome", False),
    ("小学生每天作业写到十点正常吗 崩溃", True),
    # "when's", "who's", "where's": a question word and its verb run together
    ("when's the best time of year to overseed a lawn in zone 7", True),
    ("who's that actor in the paddington films again", True),
    ("where's the cheapest place to buy oat milk in bulk", True),
    # a greeting says nothing
    ("hiya, how long do you boil an egg for a soft yolk", True),
    ("good morning! what's a nice day trip from Dublin", True),
    ("早 泡菜坛子要咋消毒", True),
    # words chat puts before a question
    ("roughly how much does an emergency vet visit cost at night", True),
    ("honestly how often should you see a dentist", True),
    ("random q, can u drink coffee on ssris", True),
    ("quick question: is it ok to freeze bread", True),
    ("honestly loving the new flat", False),
    ("ok did it, the rent is paid", False),
    # ideas asked for by naming them, the verb left out
    ("puzzle ideas for a 7 year old who's bored of easy ones", True),
    ("tips for meeting new neighbors when you're super introverted", True),
    ("need ideas for a science fair project thats cheap", True),
    ("just found some great ideas for the garden", False),
    ("tips for my first 1:1 with a new manager", False),  # the user's, as "any tips for my …" is
    ("cheapest way to get compost bags home if you dont have a car boot to fill with mud", True),  # a way asked for
    ("best way to separate personal and business expenses when half my gear is used for both", False),
    ("best day ever at the lake", False),
])
def test_a_message_that_only_asks_says_nothing_of_its_writer(text, only_asks):
    assert asks_only(text) is only_asks
    assert (ASKS_MARK in statement_marks(text)) is only_asks


@pytest.mark.parametrize("text, asks", [
    ("cancelled the membership, was paying $40 a month for nothing", False),  # what was going on, its "I" dropped
    ("sold the car, were costing us a fortune in repairs", False),
    ("is running bad for your knees", True),
    ("was the concert any good", True),
])
def test_was_and_a_verb_in_ing_tells_what_was_going_on(text, asks):
    from memory.extract.facts import asks_anything

    assert asks_anything(text) is asks


def test_a_turn_of_phrase_is_no_question():
    from memory.extract.facts import is_question

    # a doubled mark after a statement's word order is disbelief; with a question's words it still asks
    assert is_question("vodafone bill came in at £48 this month??") is False
    assert is_question("my landlord raised the rent by 200 quid?!") is False
    assert is_question("is that normal??") is True
    assert is_question("ok so is it bad??") is True
    assert is_question("the plumber wants how much??") is True
    assert is_question("you're moving to leeds?") is True  # one mark: a question

    assert is_question("他动不动就生气") is False
    assert is_question("要不要带伞") is True
    assert is_question("今天又看了二十几个病人，我在社区医院当牙医") is False  # 几 after a number is a rough count
    assert is_question("你家有几个孩子") is True
    assert is_question("上海租房一般押几付几啊") is True  # 几 that ends a clause asks how many
    assert is_question("我买了几本书") is False
    assert is_question("奶茶里的珍珠到底是啥做的啊") is True  # chat's 啥 and 咋 are 什么 and 怎么
    assert is_question("这个咋弄啊") is True
    assert is_question("今天没啥事，躺了一天") is False  # 没啥: nothing much
    assert is_question("这家店味道不咋样") is False  # 不咋: not very
    assert is_question("住这边这么多年还是不习惯") is False  # 还是: still
    assert is_question("我多喝了两杯") is False  # 多 before a verb: more


def baking(eng) -> None:
    remember_daily(eng, ["which bread is easiest to start baking, and is a bread machine enough for baking it?",
                         "I am baking the sourdough bread now, every Sunday.",
                         "My flat needs a new sofa, the old one is falling apart."])


def test_a_question_about_the_user_finds_what_the_user_told_before_what_the_user_asked():
    with open_engram() as eng:
        baking(eng)
        assert first_message_id(eng, "Which bread am I baking?") == "m1"
        # a question about what the user asked, or one not about the user, reads as before
        assert first_message_id(eng, "Which way of baking bread did I ask about?") == "m0"
        assert first_message_id(eng, "baking bread") == "m0"


def test_a_question_the_user_asked_sharing_the_questions_word_stays_below_what_the_user_told(minilm_engram):
    """"animals" in the user's own question is no word of the user's pet; the purring in their story is, though it
    shares no word with the question."""
    remember_daily(minilm_engram, ["which house plants are safe to keep around animals?",
                                   "what's a good vacuum for hair on sofas",
                                   "Biscuit knocked my plant off the shelf AGAIN and then purred at me like nothing happened"])
    assert first_message_id(minilm_engram, "What kind of animal do I have at home?") == "m2"


@pytest.mark.parametrize("text, marks", [
    ("how do I tell my parents we're not doing christmas at theirs this year?", [QUESTIONS_MARK]),
    ("what's the right height for a desk monitor so my neck stops hurting", [QUESTIONS_MARK]),
    ("银行卡丢了怎么挂失啊，急", [QUESTIONS_MARK]),
    ("birthday gift ideas for a coworker I barely know?", [QUESTIONS_MARK]),
    ("is listening to audiobooks at 1.5x bad for comprehension? be honest", [QUESTIONS_MARK]),  # no stop at "1.5"
    ("is hay fever worse in june or july?", [ASKS_MARK]),  # says nothing of the writer: only asks
    # opens by asking, then tells
    ("Are spiders scared of humans? A huge one keeps appearing in my bathtub.", [ASKS_FIRST_MARK]),
    ("hi! 👋 any tips for a club social? I'm so awkward meeting new people", [ASKS_FIRST_MARK]),  # after a greeting
    ("早上好！请问狗狗能吃葡萄吗 我家的偷吃了两颗", [ASKS_FIRST_MARK]),
    # tells before it asks
    ("I'm pescatarian so any quick fish recipes for weeknights?", []),
    ("Just dropped my daughter Lily at nursery, what's the weather like?", []),
    ("ported my number over to giffgaff yesterday\nso much cheaper lol. how do I set up voicemail on it?", []),
    ("hiya from a very rainy glasgow ☔ hows ur day going? mines been rubbish", []),  # the emoji ends the telling
])
def test_a_message_that_asks_is_marked_by_how_it_asks(text, marks):
    found = statement_marks(text)
    assert [m for m in found if m in (ASKS_MARK, QUESTIONS_MARK, ASKS_FIRST_MARK)] == marks


@pytest.mark.parametrize("text, marks", [
    # a request to the assistant tells nothing by itself, though it names the user in passing
    ("recommend me a thriller for a long flight, nothing too gory", [QUESTIONS_MARK]),
    ("write a funny caption for a pic of my dog in sunglasses", [QUESTIONS_MARK]),
    ("road trip playlist pls, 2000s indie vibes", [QUESTIONS_MARK]),
    ("帮我给同事小周写个生日祝福 别太肉麻", [QUESTIONS_MARK]),
    # news of the user's, not requests: 帮我妈 is "for my mum", 帮我记 a note to keep
    ("帮我妈挂了个号", ["§said"]),
    ("帮我记一下 我的车牌号是沪A12345", ["§said"]),
    # a clause that tells, after the question, is the user's word: the message is no mere question
    ("帮我看看这个表格式对不对 我是湖南常德人 籍贯那栏写常德市可以吗", ["§said"]),
    ("why do coffee shops charge extra for oat milk, my sister asked and I had no answer", [QUESTIONS_MARK]),  # says no state
    # a greeting before the news does not hide it
    ("heyyy just turned 37 today 🎂 feeling ancient lol", ["§told"]),
])
def test_a_request_tells_nothing_and_a_clause_of_ones_own_tells_though_a_question_comes_first(text, marks):
    assert [mark for mark in statement_marks(text) if mark in (QUESTIONS_MARK, ASKS_MARK, "§said", "§told")] == marks


def test_what_a_message_tells_after_asking_first_stays_below_what_the_user_told_outright(minilm_engram):
    """The user's question about deposits, with the marked wall after it, shares "deposit" twice; the tribunal's
    outcome, told outright, answers how the argument ended."""
    remember_daily(minilm_engram, ["can a landlord keep a deposit over a scuff? is the deposit scheme any help? the wall "
                                   "was marked when we moved in",
                                   "the tribunal sided with us on the deposit, the old landlord has to pay back the full "
                                   "£900",
                                   "how much notice do I give on a periodic tenancy",
                                   "best way to descale a kettle"])
    assert first_message_id(minilm_engram, "how did the argument about my deposit end?") == "m1"


def test_a_statement_goes_before_a_question_that_names_the_user_in_passing(minilm_engram):
    """"height" in the user's question about a monitor is no word of a fear of heights; the balcony is."""
    remember_daily(minilm_engram, ["my knees go weak whenever I'm on a tall balcony or in one of those glass lifts",
                                   "what's the right height for a desk chair so my back stops aching?"])
    assert first_message_id(minilm_engram, "Do I have a fear of heights?") == "m0"


def test_a_question_that_names_the_user_weighs_as_little_as_one_that_only_asks(minilm_engram):
    """"why does my leg cramp …" names the user's leg, and shares "leg" with the question; it asks, and tells in
    passing at most: the torn calf, told outright, answers."""
    remember_daily(minilm_engram, ["physio reckons i tore my calf, so no running for six weeks",
                                   "why does my leg cramp in the middle of the night"])
    assert first_message_id(minilm_engram, "what's the problem with my leg?") == "m0"


def test_ideas_asked_for_with_no_verb_stay_below_what_the_user_told(minilm_engram):
    """"puzzle ideas for a 7 year old …" shares "puzzle" with the question and asks for ideas; the puzzle done with the
    nephew answers."""
    remember_daily(minilm_engram, ["my nephew and i knocked out the 500pc t-rex one in like 2 hrs lol kid is a machine",
                                   "puzzle ideas for a 7 year old who's bored of easy ones"])
    assert first_message_id(minilm_engram, "who helped me assemble the dinosaur puzzle?") == "m0"


@pytest.mark.parametrize("said, question", [
    (["whats the best spot for a wifi router in a two storey house?",
      "moved the router into the hallway cupboard under the stairs, signal upstairs is way better now",
      "my phone keeps dropping the wifi in the kitchen, any fix?"], "where's the router?"),
    (["快递放快递柜超时了要收费吗",
      "物业说快递柜挪到5号楼旁边了 记一下",
      "快递一般几点送到啊"], "快递柜现在在哪"),
])
def test_a_question_that_names_no_one_asks_about_the_users_own_life(minilm_engram, said, question):
    """"where's the router?" names neither the user nor anyone else; in a personal memory it asks about the user's own
    router, so the user's question about routers in general stays below what the user told."""
    remember_daily(minilm_engram, said)
    assert first_message_id(minilm_engram, question) == "m1"


def test_a_where_question_that_names_no_one_puts_first_the_users_word_naming_a_place(minilm_engram):
    remember_daily(minilm_engram, ["morning! just left the girls at swim training at Parkside Leisure Centre, an hour "
                                   "to kill, any good podcasts?",
                                   "how do i get the chlorine smell out of towels",
                                   "the girls want to do swim training twice a week now, is that too much at 9?"])
    assert first_message_id(minilm_engram, "where do the girls have swim training?") == "m0"


def test_a_question_that_names_someone_reads_the_users_questions_as_before(minilm_engram):
    """"Tom" is someone the user knows: what the user asked about him may be all that is stored of him."""
    remember_daily(minilm_engram, ["is the boiler at Tom's place a combi or a system one?",
                                   "boiler service booked for march, the engineer is coming tuesday"])
    assert first_message_id(minilm_engram, "what kind of boiler does Tom have?") == "m0"


@pytest.mark.parametrize("text, asks", [
    ("游泳馆一般周末人多不 想去多练练", True),  # 不 ending a clause asks yes or no
    ("这款耳机降噪靠谱不", True),
    ("我现在还抽烟不", True),
    ("我才不", False),  # a refusal
    ("我不", False),
    ("明天去爬山吧 要不", False),  # "or else"
    ("一点也不", False),
])
def test_a_chinese_clause_ending_in_bu_asks_yes_or_no(text, asks):
    assert is_question(text) is asks


@pytest.mark.parametrize("text, asks", [
    ("风筝冲浪入门大概要几节课啊", True),  # 几 and a word before 啊 asks how many
    ("一般要几针呀 怕疼", True),
    ("等了几分钟啊 终于到了", False),  # after 了 it is a few
    ("这几天好累啊", False),
    ("买了几本书", False),
    ("跟同事去那边打了几次 以后就在那边打了", False),  # 几 and a measure word after 了: a few times
    ("你去了几次？", True),
])
def test_a_chinese_clause_with_ji_asks_how_many_unless_it_counts_a_few(text, asks):
    assert is_question(text) is asks


def test_a_chinese_question_ending_in_bu_is_marked_as_asking():
    assert ASKS_MARK in statement_marks("游泳馆一般周末人多不 想去多练练")
