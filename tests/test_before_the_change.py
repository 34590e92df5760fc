"""What a change leaves behind, and the time before it: a change told in words of its own leaves behind the user's
earlier word that answered the question ("i'm down on level 3 now, 3-207" after "parking spot B-14"); a later change
that shares a word of the question with the best match is the latest word ("… is taking over as my supervisor"); a
question about the time before a change is answered by the word before it, which no longer holds; and the statements
that tell such changes ("found a new guy", "年后又搬了", 把 moving a thing, "my stylist", "最近在做心理咨询")."""
import pytest

from memory.extract.attributes import statement_marks
from memory.extract.word_forms import word_families
from memory.recall import names_a_value
from tests.helpers import at, by_text, remember_daily, results_after_all


@pytest.fixture
def engram(minilm_engram):  # the latest word's rules read MiniLM's cosines
    return minilm_engram


def test_a_change_told_in_its_own_words_leaves_behind_the_earlier_word_that_answered_the_question(engram):
    remember_daily(engram, ["got assigned locker C-22 in the staff room at work, right next to the kettle",
                            "someone keeps leaving their wet umbrella in front of my locker smh",
                            "management reshuffled everyone as of monday, i'm down in the basement now, new number is "
                            "118. so "
                            "dark lol"])
    found = results_after_all(engram, "what's my locker number at work now?")
    assert "118" in found[0].unit.content
    assert by_text(found, "C-22").valid is False
    assert by_text(found, "wet umbrella").valid is True  # it names nothing: no value the change replaced


def test_a_change_that_shares_a_word_of_the_question_with_the_best_match_is_the_latest_word(engram):
    remember_daily(engram, ["my thesis supervisor is Prof. Halloran. lovely man but answers emails roughly once a "
                            "month",
                            "thesis word count is at 38k. send coffee",
                            "ok it's official, Dr. Amara Osei is taking over as my main supervisor since the "
                            "sabbatical got approved. first meeting friday"])
    found = results_after_all(engram, "remind me who's supervising my PhD now?")
    assert "Osei" in found[0].unit.content
    assert by_text(found, "Halloran").valid is False


def test_supervisor_and_supervising_are_one_word_family():
    assert word_families(["supervisor"]) == word_families(["supervis"])  # the stems of both
    assert word_families(["color"]) == {"color"}  # three letters left: no suffix goes


@pytest.mark.parametrize("messages, question, before, after", [
    (["we moved up to the 9th floor this week, you can see the whole harbour from my desk",
      "best standing desk under $400?",
      "downsized AGAIN. we're on 2 now, right next to the bins 😭"],
     "what floor was our office on before we got moved down?", "9th floor", "on 2 now"),
    (["研一开学了，导师是周教授，做计算机视觉方向的",
      "组会汇报PPT怎么做才不会被骂",
      "原来的老板调去北京了，我现在转到孙老师组里，组会改到周四晚上"],
     "我之前的导师是谁？", "周教授", "孙老师"),
    # a change someone else made to the user's things
    (["running in brooks ghost 14s rn, comfy but my shins hate me", "shin splints - ice or heat?",
      "podiatrist put me in Hoka Clifton 9s, shins are way better already",
      "how many miles before running shoes wear out"],
     "what running shoes was i wearing before the podiatrist changed them?", "brooks", "Hoka"),
])
def test_the_answer_to_a_question_about_before_a_change_no_longer_holds(engram, messages, question, before, after):
    remember_daily(engram, messages)
    found = results_after_all(engram, question)
    assert before in found[0].unit.content
    assert found[0].valid is False
    assert by_text(found, after).valid is True


@pytest.mark.parametrize("messages, question, before", [
    (["过敏性鼻炎又犯了，医生开的西替利嗪，一天一粒",
      "春天花粉好多，出门戴什么口罩好",
      "复诊了，医生给我换了个药，现在吃依巴斯汀，白天不怎么犯困了"],
     "我换药之前吃的是什么抗过敏药？", "西替利嗪"),
    # "my Dell XPS keeps crashing" shares no word with the question, but it names another value than the switch first
    # ranked: it is what the user had before
    (["my Dell XPS keeps crashing mid-call, third time this week 🙃",
      "is it worth buying a refurbished phone or too risky",
      "picked up the new ThinkPad T14 today!! the keyboard is a dream"],
     "What computer was I on before I switched to the Lenovo?", "Dell"),
    # "my trusty Hilux …" is no statement the rules read a car from; the only car they know is the one told as the
    # change, which is no answer
    (["my trusty Hilux just hit 250k km, still runs like new",
      "do hybrids need their oil changed as often as normal cars?",
      "traded in the ute, got a Corolla hybrid. diesel prices were killing me"],
     "what was I driving before my current car?", "Hilux"),
])
def test_the_word_that_tells_the_change_is_no_answer_to_what_held_before_it(engram, messages, question, before):
    """The user's earlier word on a topic of the question, or one that names another value, goes above the change."""
    remember_daily(engram, messages)
    found = results_after_all(engram, question)
    assert before in found[0].unit.content
    assert found[0].valid is False


def test_the_users_questions_on_the_topic_do_not_hide_the_word_before_the_change(engram):
    """Two questions about eye drops rank above the user's word on them; they tell nothing, so the word after them,
    which holds a character of the question's own (滴), is what held before the change."""
    for day, text in [("2023-02-14", "每天晚上滴噻吗洛尔，滴完眼睛发酸"), ("2023-03-30", "眼药水开封以后能放多久啊"),
                      ("2023-05-10", "滴眼药水的时候要不要按住眼角"), ("2023-08-22", "医生说眼压还是高，给换成了卡替洛尔，一天两次")]:
        engram.remember(text, at=at(f"{day}T09:00:00"))
    found = results_after_all(engram, "换药之前我滴的是什么眼药水")
    assert "噻吗洛尔" in found[0].unit.content
    assert found[0].valid is False


def test_an_earlier_word_as_near_the_change_as_a_word_it_replaced_answers_what_held_before_it(engram):
    """"giving the tortoise dandelion leaves and mazuri pellets" shares no word with the question and names nothing by a
    capital, but its message is as near the change's as the word a change replaces is (MiniLM cosine ≥ 0.40)."""
    remember_daily(engram, ["giving the tortoise dandelion leaves and mazuri pellets every morning, he demolishes them",
                            "is it normal for a tortoise to sleep all day in winter",
                            "switched him to weeds and grass hay, the reptile vet said pellets are too rich for him"])
    assert "dandelion" in results_after_all(engram, "what pet food was i using before the vet visit?")[0].unit.content


def test_a_chinese_turn_before_the_change_answers_what_held_before_it_only_by_a_word_of_the_question(engram):
    remember_daily(engram, ["周末去爬山了 腿酸到下不了楼",
                            "新买的小米14到了 拍照绝了"])
    found = results_after_all(engram, "我换手机之前用的是什么？")
    assert "爬山" not in found[0].unit.content


def test_a_question_about_before_without_a_later_change_leaves_its_answer_true(engram):
    remember_daily(engram, ["I always have a banana and peanut butter before a long run",
                            "what's a good playlist for a 10k?",
                            "ran my first half marathon today, legs are jelly"])
    found = results_after_all(engram, "what do I eat before a long run?")
    assert "banana" in found[0].unit.content
    assert found[0].valid is True


@pytest.mark.parametrize("text, mark", [
    ("wait the old shop closed?? sign on the door and everything. found a new guy tho, Dino's Cycle Works, cheaper too",
     "§told"),  # the user's news, "I" dropped
    ("年后又搬了😂 房东要卖房，现在住临平那边，通勤多了半小时", "§home_location"),  # 搬了, the user's, before the landlord's news
    ("最近在做心理咨询，咨询师姓林，两周一次", "§therapist"),  # 在做, the user's
    ("My stylist is Petra at Cut Above, she's the only one who gets my curls", "§barber"),
    ("我们把家搬到了苏州", "§home_location"),  # 把家: a move
])
def test_statements_that_tell_a_change_of_the_users(text, mark):
    assert mark in statement_marks(text)


@pytest.mark.parametrize("text", ["把沙发搬到客厅了", "这周末把照片全迁到阿里云盘了"])
def test_a_thing_moved_is_no_move_of_the_users(text):
    assert "§home_location" not in statement_marks(text)


def test_a_chinese_school_is_named_by_its_name():
    assert names_a_value("早上好 刚把闺女送去蓝天幼儿园，中二班", "childcare")
    assert names_a_value("年后闺女转到实验二小了", "childcare")
    assert not names_a_value("孩子老是在学校感冒，有什么增强抵抗力的办法", "childcare")
    assert not names_a_value("小孩不想上幼儿园怎么哄比较好", "childcare")


def test_a_question_with_context_about_school_is_no_later_word_on_the_childs_kindergarten(engram):
    remember_daily(engram, ["早上好呀☀️ 刚把儿子送去向日葵幼儿园，小三班，一路哭着说不想去哈哈",
                            "幼儿园午睡要给孩子带些什么",
                            "孩子老是在学校感冒，有什么增强抵抗力的办法"])
    found = results_after_all(engram, "我儿子上的哪个幼儿园？")
    assert "向日葵幼儿园" in found[0].unit.content
    assert found[0].valid is True


def test_a_reason_is_given_once_when_the_turn_and_its_fact_are_both_left_behind(engram):
    remember_daily(engram, ["my go-to bike shop is Spoke & Chain on 5th, they trued my wheel for $15",
                            "flat tire AGAIN. is it the tubes or the pressure",
                            "spoke & chain closed down. found a new guy tho, Dino's Cycle Works over in Eastlake"])
    found = results_after_all(engram, "where do I get my bike fixed now?")
    for rec in found:
        assert len(rec.why) == len(set(rec.why))


@pytest.mark.parametrize("messages, question, answer", [
    (["new bank is Starling btw, card pin is 4471 don't let me forget lol",
      "how do I set up a standing order for rent?",
      "got charged a foreign transaction fee in Lisbon, is that normal for banks?"],
     "which bank am I with?", "Starling"),  # the later word asks
    (["gousto box arrived, 3 meals for 2 this week. the halloumi one looks good",
      "recipe for banana bread that doesn't need eggs?",
      "paused gousto indefinitely. honestly cooking from scratch is cheaper",
      "my box of old uni stuff finally got thrown out lol"],
     "am I still getting one of those recipe boxes?", "paused gousto"),  # a yes/no question: any end shares its words
])
def test_a_shared_word_of_the_question_raises_no_later_word_that_asks_or_answers_a_yes_no_question(engram, messages,
                                                                                                   question, answer):
    remember_daily(engram, messages)
    assert answer in results_after_all(engram, question)[0].unit.content


def test_a_later_change_that_answers_the_question_in_its_own_right_is_the_latest_word(engram):
    # one conversation: the question's word reaches the change through the turn before it
    remember_in_one_chat(engram, ["My GP is Dr Mensah at the Elm Road practice, she's brilliant.",
                               "What questions should I ask at an appointment about migraines?",
                               "Had to register with a new surgery after the move, so I'm with Dr Haddad now. "
                               "Seems nice "
                               "enough.",
                               "How long does it usually take for a repeat prescription to move between pharmacies?"])
    found = results_after_all(engram, "Who's my GP at the moment?")
    assert "Haddad" in found[0].unit.content
    assert by_text(found, "Mensah").valid is False


def test_a_later_change_that_names_nothing_does_not_answer_in_its_own_right(engram):
    remember_in_one_chat(engram, ["good morning! coffee in hand, ready to be productive-ish",
                               "hiii sorry been MIA, life's been nuts — oh did i ever tell you i'm left-handed? "
                               "the new "
                               "desk setup at work is all backwards for me lol. anyway what's up",
                               "my handwriting is terrible, should i try a calligraphy class",
                               "got a new ergonomic mouse for my desk, wrist feels better already"])
    found = results_after_all(engram, "which hand do I write with?")
    assert "left-handed" in found[0].unit.content
    assert found[0].valid is True


@pytest.mark.parametrize("messages, question, answer", [
    (["fyi I'm allergic to sulfa drugs — broke out in hives all over as a teenager",
      "doctor put me on antibiotics for a chest infection, how long till they kick in?",
      "can hives be caused by stress? my neck goes blotchy before every meeting"],
     "which drug do I react badly to?", "sulfa"),  # an allergy asked of by its reaction
    (["手机照片都备份在百度网盘，还开了年费超级会员",
      "照片太多了有什么好的整理方法吗",
      "这周末把照片全迁到坚果云了，限速那家拜拜👋 会员到期也不续了"],
     "我现在照片是备份在哪个网盘？", "坚果云"),  # 迁到: a switch
    (["我一般在「指尖小铺」做美甲，店长手艺超好，每次都约她",
      "猫眼美甲一般能保持多久啊",
      "店长上个月自己出来开店了，我就跟着她走了，新店叫 Glossy 9，在万象城B1"],
     "我现在做指甲是去哪家店？", "Glossy 9"),  # a new place named: a switch
])
def test_the_users_latest_word_comes_first(engram, messages, question, answer):
    remember_daily(engram, messages)
    assert answer in results_after_all(engram, question)[0].unit.content


def remember_in_one_chat(engram, texts: list[str]) -> None:
    """Messages m0, m1, … one a month from January 2025, in one conversation: each turn's context keys hold the turns
    before it (both-sided context)."""
    for n, text in enumerate(texts):
        engram.remember(text, at=at(f"2025-0{n + 1}-01T09:00:00"), message_id=f"m{n}", session_id="chat")
