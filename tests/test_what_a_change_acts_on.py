"""What a change acts on ties it to the earlier word it replaces, where meaning alone does not: a later change whose
object is a word of the earlier statement ("had to drop the lessons" after "piano lessons with …", "switched physios"
after "seeing a physio called …") is the latest word and leaves the earlier behind; in Chinese, a character of the
question's words shared by a compound and its head (红酒 and 酒 for "我现在还喝酒吗？"), a code of the same shape ("A5-102"
and "A3-015") or a move said with 最近都 ("最近都跑腾讯视频上看了") does the same. An end told of the thing itself acts on the
words before it ("my tuesday class got axed"), and a slot's answer leaves earlier words behind though its message is no
statement of the user's ("welp my old dentist retired and the practice handed all his patients over to …"); a card
closed (销了) is the answer to whether the user still has it."""
import pytest

from memory.extract.attributes import statement_marks, tells_an_end, what_a_change_acts_on
from memory.latest_word import code_shapes
from tests.helpers import check_latest_first_and_earlier_behind, remember_daily, results_after_all


@pytest.fixture
def engram(minilm_engram):  # the latest word's rules read MiniLM's cosines
    return minilm_engram


# the user's later word comes first, and the earlier word it leaves behind is no longer true
FIRST_AND_LEFT_BEHIND = [
    pytest.param(["piano lessons with mrs okafor every thursday at 5, she's lovely but strict",
                  "how many minutes a day should an adult beginner practise scales?",
                  "had to drop the lessons, my hours at work changed and thursdays are gone",
                  "is a digital piano ok for a beginner or do i need a real one"],
                 "do i still have piano lessons?", "drop the lessons", "okafor", id="an-end-of-the-earlier-words"),
    pytest.param(["seeing a physio called dominik for my lower back, mondays at 7am",
                  "what's a good chair for someone with a bad back?",
                  "switched physios. working w hannah at the core clinic now, way more hands on",
                  "are standing desks actually good for your back or is it hype"],
                 "who's my physical therapist these days?", "hannah", "dominik", id="a-switch-of-the-earlier-words"),
    pytest.param(["我每天晚上都要喝一杯红酒才睡得着",
                  "晚上老是失眠有什么好办法",
                  "酒我戒了，已经一个多月了",
                  "睡前喝热牛奶真的有用吗"],
                 "我现在还喝酒吗？", "戒了", "红酒", id="a-compound-and-its-head"),
    pytest.param(["公司给我分的工位是A5-102，靠窗",
                  "办公室放什么绿植好养活",
                  "行政把我调到A3-015了，离会议室近多了",
                  "午休趴桌子上睡脖子疼怎么办"],
                 "我的工位号是多少？", "A3-015", "A5-102", id="codes-of-one-shape"),
    pytest.param(["我看剧一直用爱奇艺，用习惯了懒得换",
                  "推荐几部好看的悬疑剧呗",
                  "最近都跑腾讯视频上看了，那部剧只有那边有",
                  "投屏到电视上老是卡怎么办"],
                 "我现在用哪个app看剧？", "腾讯视频", "爱奇艺", id="a-move-said-with-zuijin-dou"),
    pytest.param(["doing life drawing at the Fernwood Arts Centre on wednesday nights, love it",
                  "what pencils are best for quick gesture sketches?",
                  "turns out the wednesday session got cancelled for good, the tutor went to Halden Studio so i go "
                  "there now",
                  "how do i fix smudged charcoal on paper"],
                 "where do i do life drawing now?", "Halden", "Fernwood", id="an-end-told-of-the-thing-itself"),
    pytest.param(["dentist appt with dr. mensah next tuesday, dreading it",
                  "is it bad to brush right after coffee?",
                  "welp my old dentist retired and the practice handed all his patients over to a dr. castillo. first "
                  "checkup w her went ok",
                  "how often should i replace my toothbrush?"],
                 "who's my dentist now?", "castillo", "mensah", id="a-settled-answer-that-is-no-statement"),
    pytest.param(["阳台上养了一缸金鱼，五条，天天看着挺解压",
                  "阳台夏天太晒了，装什么遮阳比较好",
                  "鱼都送人了，出差太多实在顾不过来"],
                 "我阳台上还养着鱼吗？", "送人", "金鱼", id="a-later-end-sharing-a-character-of-the-question"),
    pytest.param(["浦发的信用卡额度给我提到三万了，开心",
                  "信用卡分期到底划不划算",
                  "年费太贵了，打电话让客服把浦发那张卡销了"],
                 "我还有浦发的信用卡吗", "销了", "额度", id="a-card-closed"),
]


@pytest.mark.parametrize("messages, question, first, left_behind", FIRST_AND_LEFT_BEHIND)
def test_the_latest_word_comes_first_and_leaves_the_earlier_behind(engram, messages, question, first, left_behind):
    check_latest_first_and_earlier_behind(engram, messages, question, first, left_behind)


def test_what_a_change_acts_on_is_its_words_and_the_three_after_within_its_sentence():
    """Three words, not counting the little words of a phrase ("of", "the", "my" …)."""
    assert what_a_change_acts_on("switched physios. working w hannah now") == ["switched physios", "now"]
    assert what_a_change_acts_on("got a new ergonomic mouse for my desk") == ["got a new ergonomic mouse",
                                                                             "new ergonomic mouse for"]
    assert what_a_change_acts_on("bowed out of the wed campaign, too much drama") == [
        "bowed out of the wed campaign, too"]


def test_an_end_told_of_the_thing_itself_acts_on_the_three_words_before_it():
    assert "my tuesday class " in what_a_change_acts_on("turns out my tuesday class got axed lol")
    assert "my old dentist " in what_a_change_acts_on("welp my old dentist retired last month")
    assert what_a_change_acts_on("my tuesday class is great") == []


def test_dropping_lessons_ends_them_and_dropping_the_kids_off_does_not():
    assert "§told~no" in statement_marks("had to drop the lessons, money's tight")
    assert not any(mark.endswith("~no") for mark in statement_marks("dropped the kids off at school"))


def test_codes_of_letters_and_digits_have_a_shape():
    assert code_shapes("车位是B2-117") == code_shapes("调到B1-032了") == {"A9-999"}
    assert code_shapes("flat 4B, ran a 5k, iphone 15") == set()  # too short, or no letter and digit in one


def test_an_end_that_comes_first_leaves_behind_the_earlier_word_that_shares_a_character_of_the_question(engram):
    # one conversation, so each turn's context keys hold the turns before it and the end ranks first
    check_latest_first_and_earlier_behind(engram, ["客厅里养了一缸孔雀鱼，三十多条，看着挺治愈", "客厅的沙发想换个颜色，米白还是灰色好",
                                                   "鱼都送给同事了，搬家带不走"], "我家里还养着鱼吗？", "送给同事", "孔雀鱼",
                                          session_id="chat")


def test_later_news_that_shares_only_a_character_of_the_question_is_no_latest_word(engram):
    remember_daily(engram, ["报名了社区图书馆的读书会，每月第一个周六，这个月读《活着》",
                            "读书会退了退了，每次都要写读后感，跟上学似的",
                            "最近在看东野圭吾的新书，一个人慢慢看挺好"])
    assert "退了" in results_after_all(engram, "我还在参加那个读书会吗")[0].unit.content


def test_a_card_closed_ends_it_and_an_expense_reimbursed_does_not():
    assert tells_an_end("客服把那张卡销了") and tells_an_end("那张卡注销了")
    assert not tells_an_end("出差的发票报销了") and not tells_an_end("这个月开销了不少")
