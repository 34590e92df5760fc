"""A question about the user's present state is answered by the latest word on the topic.

"Which streaming service am I subscribed to now?" may best match "I'm subscribed to Netflix" while the
user said later "Cancelled Netflix and signed up for Disney Plus instead". The slot rules know a score of
attribute classes by their words; this stage knows none. It looks at the question's best match and
at the user's later statements among the next candidates: one that is about the same thing (its
message's meaning close to the best match's message, or the two messages naming the same one: "sold the Wayfarer"
after "took the Wayfarer out on the lake") and relevant to the question comes first. It
runs for a question in the first person and the present ("do I", "what's my", "now"), never for a
question about before or about a past period; a statement that only closes a value ("sold the
Peloton") comes first only for a yes/no question ("do I still have my Peloton?"). The user's earlier words
close in meaning to the latest word (whether raised, or first already) are left behind by it: shown as no
longer true ("piano lesson with Mrs Abara every tuesday" under "stopped the piano lessons").

How close "the same thing" is belongs to one embedding model: with any other the stage stays silent.
Chinese, which the model does not read (unrelated Chinese sentences score 0.6-0.9), is read by its words:
the question's topic words (jieba's words of two characters or more that are not words of time, asking or
intent: "我还在学吉他吗" → 吉他) pick the user's own turns among the candidates that hold one, and the latest
of those goes above the best match when said after it: "吉他班不去了" over "报了个吉他班". When the user's turns hold
none of them, or a slot rule's statement is the best match, a later turn of the user's that switches ("…上周换到了超级猩猩")
or ends something (for a question but yes/no, one that then says what holds now: "岩馆卡退了，现在周末都跟朋友去打飞盘"),
and shares a word or a pair of characters with the best match ("办了乐刻的月卡"), a character of the question's words
that names a thing ("酒我戒了" after "每晚喝两罐啤酒"), a pair of characters of a thing the question names ("健身卡…终于退掉了"
for "我还在健身房练吗") or a code of the same shape ("B1-032" after "B2-117"), goes above it.
In English, a later change whose object is a word of the best match's message ("switched physios" after "seeing a physio
called marco") is on its topic however far apart their vectors are, and so, for a yes/no question, is a later end that
shares a word of its own with it ("hung up the boots … me and 5-a-side" after "5-a-side tonight") or ends what the
question asks about ("cancelled the membership" for "do i still have a gym membership?"); a name said by its
initials is the same one ("the VMP sub" after "Vinyl Me Please"). A question whether something still holds asks about
now, whatever past word it holds ("do i still own that beatles first press?"). A change told with no person as its
subject and of no one else ("the slip fees went up again so she lives at pelican cove now") is the user's news of their
own things: a later word too, on the topic by meaning, by a name or by answering the question in its own right (not by a
word it shares), never above a slot rule's answer, and leaving behind only what it was raised over.
"""
from __future__ import annotations

import re
from typing import Callable

import numpy as np

from .extract import tokenize_for_search
from .extract.han import HAN_CHAR, OLD_ONE_PASSED_ON_ZH, han_pairs, han_tagged
from .extract.relations import ASKS_MARK, OTHERS_MARK, QUESTIONS_MARK
from .extract.word_forms import word_families
from .model import ASSISTANT_MARK
from .slots import asks_about_before, asks_as_user
from .two_events import two_events

__all__ = ["ABOUT_ASKING", "CHANGED_TO", "EARLIER_ON_TOPIC", "LATEST_WORD", "LEFT_BEHIND_TOPIC", "SECOND_PERSON",
           "TIME_OF_ASKING", "TITLED_NAME", "asked_characters", "asks_present_state", "asks_yes_no",
           "latest_word_scores", "names_no_one", "names_something", "topic_words_zh"]

# Cosine between two messages about the same thing, for MiniLM: an update and what it replaces
# mostly 0.5-0.75 ("member at PureGym" / "cancelled PureGym, signed up at the climbing wall"), two
# turns that share a word but not a topic mostly below 0.45 ("night owl" / "owls are my favourite birds").
SAME_TOPIC = {
    "local:all-MiniLM-L6-v2": 0.45,
    "local:all-MiniLM-L6-v2-int8": 0.45,
}
# An earlier own word is left behind by the latest word at a lower cosine than a later one is raised at: it is only
# shown as no longer true, not put first. On the scenarios' tune half, an update and the own word it replaces score
# 0.33 at the median (0.16-0.91), and no other own word of the user's scored 0.40 or more with the latest.
LEFT_BEHIND_TOPIC = {
    "local:all-MiniLM-L6-v2": 0.40,
    "local:all-MiniLM-L6-v2-int8": 0.40,
}
# ... and for a later statement that tells a change ("open enrollment came around and i moved us over to aetna" after
# "went with bluecross through work": 0.39). On the scenarios' tune half 0.38 raised 4 more answers and lost none;
# 0.33 raised 5 and lost one (a greeting's chatter).
CHANGE_TOPIC = {
    "local:all-MiniLM-L6-v2": 0.38,
    "local:all-MiniLM-L6-v2-int8": 0.38,
}
# words of when and how a question asks ("now", "still", "these days"), never what it is about
TIME_OF_ASKING = frozenset(tokenize_for_search(
    "now still these days currently usually anymore moment right today time go get have do nowadays lately"))
RELEVANT_SHARE = 0.2  # a later statement must score this share of the best match (of the best non-rule match)
# ... and a later change this share to answer the question in its own right, however far its words are from the best
# match's (when it names something): on the scenarios' tune half (update and negation) 0.5 raised 10 more answers
# and lost none, 9 with the names-something guard, which kept three greetings and secrets from chatter
ANSWERING_SHARE = 0.5
WINDOW = 10  # candidates read after the best match
HOPS = 3  # an update of an update: A → B → C
LATEST_WORD = "the latest word on the topic of the best match"  # why a memory was raised
EARLIER_ON_TOPIC = "earlier word on the topic of the latest"  # why a memory is history

# Past tense and periods, beyond the slot rules' cues for "before"
_PAST_TENSE = re.compile(r"\b(?:did|was|were|had|ago|passed|elapsed|first|initially|last (?:year|month|week|time)"
                         r"|back (?:then|when|in)|at (?:the|that) time)\b|当时|那时", re.I)
# ... but a question that asks whether something still holds asks about now, whatever else it names ("do i still own
# that beatles first press?", "do I still have the bike I bought two years ago?"), unless it asks in the past tense
_STILL_NOW = re.compile(r"\b(?:still|anymore|any more|currently|nowadays|right now)\b", re.I)
_PAST_VERB = re.compile(r"\b(?:did|was|were|had)\b", re.I)
# a question that sums up a period ("how many weddings have I been to this year", "in the past three months")
# asks about everything said in it, not about the latest word
_PERIOD = re.compile(r"\b(?:in|over|during|for) the (?:past|last)\b|\bso far\b|\bin total\b|\baltogether\b"
                     r"|\bthis (?:year|month|week)\b|\bhow (?:many|often)\b.*\b(?:have|did) (?:i|we)\b", re.I)
# Chinese words of time, asking and intent: never what a question is about
_NOT_TOPICS_ZH = frozenset(
    "现在 目前 最近 如今 这阵子 这些 平时 平常 一般 通常 经常 今年 今天 每天 还是 还在 是不是 有没有 什么 哪个 哪家 哪里 "
    "哪儿 哪些 怎么 怎样 多少 打算 准备 主要 时候 自己 我们".split())
# characters of verbs and function words, which a compound shares with no thing: 喝 of 喝酒, 用 of 用的
_LIGHT_CHARACTERS_ZH = frozenset("喝吃用去来买卖看玩做上下打听学开住养戴补过在有是要想会能得着了的个家么哪多少还都也就没不"
                                 "我你他她它们吗呢吧啊呀啥谁几每天现")
# switching to something: "上周换到了超级猩猩", "改成了燕麦奶", "跳槽去了美团", "把照片全迁到阿里云盘了"
_ZH_SWITCH = re.compile(r"换到|换成|换去|换用|改到|改成|改去|改用|转到|转去|跳槽|搬到|搬去|迁到|迁去|调到|调去"
                        r"|跑(?:去|到)|最近都(?!没|不)"  # "最近跑去超级猩猩上团课了", "最近都跑QQ音乐上听了"
                        # "这俩月都骑小电驴上班了"; "入了KEF LS50 之前那对送表弟了": the old one passed on
                        r"|这(?:俩|两|几)个?(?:月|礼拜|星期|周)都(?!没|不)|" + OLD_ONE_PASSED_ON_ZH +
                        # "现在早上都是一杯热豆浆了", "最近早上都是燕麦拿铁了"
                        r"|(?:现在|最近|如今|目前|这阵子)[^，。,！？\s]{0,4}都(?:是|喝|吃|用|去|在|上|找)"
                        # "现在去超级猩猩了": now somewhere else, 了 closing the clause; "以后就用这个了", "下个月起去美团"
                        r"|(?:现在|如今|目前)(?:就|改)?(?:去|在|用|喝|吃|上|找|跟)[^，。,！？\s]{1,12}?了(?=[，。,！？\s]|$)"
                        # "以后是刘姐每周四上门": who or what it is from now on
                        r"|以后(?:(?:就|都)(?:用|去|在|找|喝|吃|上|固定)|(?:就|都)?是(?!不是|否))"
                        r"|(?<=[月周天年号日])起(?:去|在|用|改|换|上)"
                        # "携号转网去了联通", "号码已经携转过去": a number moved; "出掉了，入了台富士X100VI": a new one bought
                        r"|携号转网|携转|入了[台个部辆款只块副对]"
                        # a new pastime: "最近迷上了架子鼓", "现在沉迷飞盘"
                        r"|迷上了?|沉迷|爱上了|入坑"
                        # following someone who moved: "老师自己出来开工作室了 我也跟过去了"
                        r"|跟(?:着[他她]?)?(?:过去|过来)了"
                        # someone else in charge from now: "从这礼拜开始我们班归小周带了"
                        r"|归[^，。,！？\s]{1,4}?(?:带|管|教)了"
                        r"|开始(?:送|去|用|在|上|喝|吃|找|坐|骑|住)"  # "这学期开始送学校对面的博雅了"
                        r"|第一次(?:去|找)"  # "王医生退休了😭 上周第一次去瑞尔齿科看的陈医生"
                        # a new place named: "新店叫 Nail Bar 7", "新公司在望京"
                        r"|新(?:的)?(?:店|家|公司|单位|学校|医院|诊所|健身房|房子|工作室)(?:叫|是|在)"
                        # a date moved: "考试改期到4月20号"; a new one got ("上了台杜卡迪"); a habit set right ("这俩月硬是把作息掰回来了")
                        r"|改期|延期到|推迟到|提前到|(?:上|提)了[台辆部]|(?:调|掰|改|扭)(?:过来|回来)了"
                        # a choice that came of it: "我们最后还是去了徐汇", "最后选了小米"
                        r"|最后(?:还是)?(?:去了|选了|定了|搬了|挑了|报了|换了)"
                        # what it is now, opening a clause: "弄好了 现在是联通大王卡", "现在是个姓陈的小姑娘"
                        r"|(?:^|(?<=[\s，,。！!～~]))(?:现在|如今|目前)(?:就|改|已经)?是(?![不什啥几多谁哪否])")
# what holds now, after what ended: "岩馆卡退了，现在周末都跟朋友去打飞盘"
_ZH_NOW = re.compile(r"现在|如今|目前|这阵子")
# an end told with nothing after it, of the thing being talked of: "戒了！！已经三个月没碰了💪" after "我一天大概半包烟吧"
_BARE_END_ZH = re.compile(r"^\W*(?:我|早就|已经|终于|彻底)*(?:戒|退|停|断)掉?了(?![\u4e00-\u9fff])")
# the value a change went to, named in any case: "joined crunch by the office", "starting monday at brightwell health",
# "ended up going with sharp & co", "doing a monthly shift at the food bank instead"
CHANGED_TO = re.compile(r"\b(?:joined|switched (?:over )?to|swapped (?:over )?to|moved (?:over |across )?to"
                        r"|(?:went|going|gone) with|ended up (?:going |signing up )?(?:with|at)|starting (?:\w+ )?at"
                        r"|started at|signed up (?:at|with)|transferred to)"
                        r" (?!(?:the|a|an|my|our|his|her|their|it|them|that|this|there|here|him|me|us|you|one|another"
                        r"|some|something|somewhere)\b)[a-z][\w&'-]*"
                        r"|\bat (?:the )?[a-z][\w&'-]*(?: [a-z][\w&'-]*)? instead\b", re.I)
# a word that states the user's present, not what happened: "so mornings are matcha now"
_STATES_NOW = re.compile(r"\b(?:now|these days|nowadays)\b", re.I)
_YES_NO = re.compile(r"^\s*(?:do|does|am|are|is|have|has|can)\b|(?:吗|(?<=[\u4e00-\u9fff])不)[？?]?\s*$", re.I)


# words any talk of one's days has, which say nothing of what two messages are about
_TALK_OF_ANY_DAY = word_families(tokenize_for_search(
    "work working job time times day days week weeks month months year years today tonight morning evening weekend "
    "good great nice really actually just like love hate thing things stuff place lol haha still now these nowadays "
    "going doing getting making taking started start switched change changed finally ended every pretty little"))


def topic_words_zh(text: str) -> set[str]:
    """A Chinese text's words of two characters or more and its pairs of characters (a word the segmenter split:
    "跑团群也退了" and "跟跑团去奥森" share 跑团), not words of time or asking."""
    return (_han_words(text) | han_pairs(text)) - _NOT_TOPICS_ZH


def _han_words(text: str) -> set[str]:
    """jieba's words of two characters or more in a text."""
    return {word for word in tokenize_for_search(text) if len(word) > 1 and HAN_CHAR.search(word)}


def _latin_words(text: str) -> set[str]:
    """The words in Latin letters of a Chinese text, which name things as Chinese chat types them ("switch出掉了")."""
    return {word for word in tokenize_for_search(text) if len(word) > 1 and word.isascii() and word.isalpha()}


def _asks_anything(text: str) -> bool:
    from .extract.facts import asks_anything  # the statement rules, compiled only when a question needs them

    return asks_anything(text)


def _tells_an_end(text: str) -> bool:
    from .extract.attributes import tells_an_end  # the statement rules, compiled only when a question needs them

    return tells_an_end(text)


def _what_an_end_tells(text: str) -> str:
    from .extract.attributes import what_an_end_tells  # the statement rules, compiled only when a question needs them

    return what_an_end_tells(text)


def _tells_a_change(text: str) -> bool:
    from .extract.attributes import tells_a_change  # the statement rules, compiled only when a question needs them

    return tells_a_change(text)


def asks_present_state(question: str) -> bool:
    """A question about how things are, not were, put to the user's memory: in the first person ("what do I drive now",
    "我现在住哪") or naming no one ("who insures the van these days")."""
    past_words = _PAST_TENSE.search(question) and not (_STILL_NOW.search(question) and not _PAST_VERB.search(question))
    past = (asks_about_before(question) or past_words or _PERIOD.search(question)
            or two_events(question) is not None)  # "how many days passed between …", "which came first, … or …"
    return (asks_as_user(question) or names_no_one(question)) and not past


# 问 asks, 问题 may be a problem ("我体检查出啥问题了")
ABOUT_ASKING = re.compile(r"\bask(?:s|ed|ing)?\b|\bquestions?\b|\bwanted to know\b|\bwonder(?:ed|ing)\b|\benquir|\binquir"
                          r"|问(?!题)", re.I)
SECOND_PERSON = {"you", "your", "yours", "you're", "you've", "yourself"}


def names_no_one(query: str) -> bool:
    """A question that names no one: neither the user nor the assistant, nor anyone by a capital, and asks nothing about
    asking ("where's the router?", "快递柜现在在哪", "how much did the adjuster estimate for the roof?"). Put to a personal
    memory, it asks about the user's own life: a message of the user's that only asks tells as little of it as for a
    question in the first person, and the latest word on its topic answers it. Not a few search words ("baking bread"),
    which may look for what was asked."""
    from .extract.facts import is_question

    words = set(re.findall(r"[\w']+", query.lower()))
    return not (words & SECOND_PERSON or "你" in query or "您" in query or CAPITAL_INSIDE.search(query.strip())
                or ABOUT_ASKING.search(query)) and is_question(query)  # the statement rules only when needed


# a name or a number inside a sentence (not the capital that starts one, nor a bare "I"): "parking spot B-14", "a
# ThinkPad X1 Carbon", "Tuesdays and Thursdays"
# a name inside a sentence: a capital not at its start and not "I"
CAPITAL_INSIDE = re.compile(r"(?<![.!?]\s)(?<!^)(?<![.!?])\b(?!I\b|I'|I’)[A-Z]\w*")
_NAMED_INSIDE = re.compile(rf"{CAPITAL_INSIDE.pattern}|\d")
# a person by their title, in any case: "i'm seeing dr lindqvist now"
TITLED_NAME = re.compile(r"\b(?:dr|doctor|mr|mrs|ms|prof)\.? [a-z]{2,}\b", re.I)


def names_something(text: str) -> bool:
    """Whether a text names someone or something by a capital inside a sentence, a title or a number ("I'm with Dr
    Lindqvist now", "i'm seeing dr lindqvist now", "spot B-14"); not "got a new ergonomic mouse for my desk"."""
    return _NAMED_INSIDE.search(text.strip()) is not None or TITLED_NAME.search(text) is not None


# a code of letters and digits: "B2-117", "KX19"
_CODE = re.compile(r"(?<![\w-])(?=[\w-]*[A-Za-z])(?=[\w-]*\d)[A-Za-z\d]+(?:-[A-Za-z\d]+)*(?![\w-])", re.A)


def code_shapes(text: str) -> set[str]:
    """The shapes of the codes of letters and digits a text names, a letter as "A" and a digit as "9": a parking spot
    "B2-117" and "B1-032" are both "A9-999", so two messages naming them speak of the same kind of thing. Codes of
    four characters or more only, not "4B" or "5k"."""
    return {re.sub(r"\d", "9", re.sub(r"[A-Za-z]", "A", code)) for code in _CODE.findall(text)
            if len(code.replace("-", "")) >= 4}


# a name in capitals of two to five letters, and a name of two to five capitalised words
_ACRONYM = re.compile(r"\b[A-Z]{2,5}\b")
_CAPITALISED_WORDS = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+){1,4}\b")


def initials_meet(one: str, other: str) -> bool:
    """Whether one text names by its initials what the other names in full: "cancelled the VMP sub" and "signed up for
    Vinyl Me Please"."""
    def initials(text: str) -> set[str]:
        return {"".join(word[0] for word in name.split()) for name in _CAPITALISED_WORDS.findall(text)}

    return bool(set(_ACRONYM.findall(one)) & initials(other) or set(_ACRONYM.findall(other)) & initials(one))


def asks_yes_no(question: str) -> bool:
    """"Do I still have a car?", "我现在还抽烟吗": a "no" is an answer (what closed the value says it)."""
    return bool(_YES_NO.search(question))


def latest_word_scores(index, ids: list[int], scores: list[float], rules: list[bool], question: str,
                       embedder_name: str, *, settled: bool = False,
                       names: Callable[[list[int]], set[str]] = lambda memory_ids: set(),
                       texts: Callable[[list[int]], dict[int, str]] = lambda memory_ids: {},
                       names_a_value: Callable[[int], bool] | None = None,
                       kin: frozenset[int] = frozenset()) -> tuple[dict[int, float], set[int]]:
    """New scores for the memories (of the ranking `ids`, best first, with their `scores` and whether a rule
    found each) that carry the user's latest statement on the best match's topic: above the best match; and
    the user's own earlier words close in meaning to the latest word, which it leaves behind (the history of a
    question about now). Nothing is raised when none is later, close enough and relevant. When `settled` (the best
    match is a slot rule's answer for a class whose statements that rule reads: the latest word its words know), only
    a later statement that tells a change and `names_a_value` of the slot goes above it ("the treadmill was
    wrecking my knee so I switched to aqua aerobics at Riverside Baths"), or for a yes/no question one that ends
    something; the words the best match leaves behind are history all the same when it is a statement of the
    user's."""
    if len(ids) < 2 or not asks_present_state(question):
        return {}, set()
    if HAN_CHAR.search(question):
        if settled:  # a slot's latest statement, unless a later switch names what it held ("乐刻那边…换到了超级猩猩")
            yes_no = asks_yes_no(question)
            return _switch_from_best(index, ids, scores, own_turns(index, ids[: WINDOW + 1], yes_no=yes_no, kin=kin),
                                     texts, question, yes_no=yes_no, rules=rules)
        return _latest_by_topic_words(index, ids, scores, rules, question, texts, kin)
    threshold = SAME_TOPIC.get(embedder_name)
    if threshold is None:
        return {}, set()
    window = list(zip(ids[: WINDOW + 1], scores[: WINDOW + 1], rules[: WINDOW + 1]))
    yes_no = asks_yes_no(question)
    told = _statements(index, [memory_id for memory_id, _, _ in window], yes_no=yes_no, kin=kin)
    vectors = _MessageVectors(index, names, texts)
    news = _news_of_the_users(index, vectors, [memory_id for memory_id, _, _ in window]) - told
    told |= news
    best = _unlifted_best(scores, rules)
    later_ones = [memory_id for memory_id, score, _ in window if memory_id in told and score >= RELEVANT_SHARE * best]
    own = set(own_turns(index, ids[: WINDOW + 1], yes_no=True, kin=kin))
    anchor, anchor_score, raised, passed = ids[0], scores[0], {}, set()
    # a later change is on the topic when it answers the question in its own right: it names something and scores half
    # the best match or more, or it shares a word of the question with it; not for a yes/no question, whose words any
    # later end may share ("my box of old uni stuff got thrown out"): there an end is on the topic by what it acts on
    asked_words = word_families(set(tokenize_for_search(question)) - TIME_OF_ASKING)
    asked = set() if yes_no else asked_words
    answering = set() if yes_no else {memory_id for memory_id, score, _ in window if score >= ANSWERING_SHARE * best}
    if settled:
        # a slot's answer is the latest word its rules read; a later change of the user's its words do not know, that
        # names a value ("…so I switched to aqua aerobics at Riverside Baths" after "joined PureGym"), is later still,
        # and so is one that ends something, for a yes/no question ("we had to say goodbye to biscuit this morning");
        # news with no person as its subject is not the user's word on a slot ("bus stop moved down the road")
        # unless it states the user's present ("so mornings are matcha now", "these days it's yerba mate")
        later_ones = [m for m in later_ones if vectors.tells_a_change(m)
                      and (m not in news or _STATES_NOW.search(vectors.text(m)))
                      and (yes_no or names_a_value is not None and names_a_value(m))]
    else:  # a later word that asks, names nothing and tells no change is talk on the topic ("my bot keeps going
        # offline at night, how do I check logs")
        later_ones = [m for m in later_ones if not vectors.asks(m) or vectors.tells_a_change(m) or vectors.names(m)]
    for _ in range(HOPS):
        later = _later_on_topic(index, vectors, anchor, later_ones, threshold, CHANGE_TOPIC[embedder_name], asked,
                                answering, news, names_a_value=names_a_value if settled else None,
                                asked_ended=asked_words if yes_no else None)
        if later is None:
            break
        if anchor in own:  # the user's own word, left behind
            passed.update(index.same_message(anchor))
        anchor_score *= 1.05
        for sibling in index.same_message(later):  # a turn and the value read from it count once
            raised[sibling] = anchor_score
        anchor = later
    # a best match that names nothing and tells no change leaves nothing behind: "work was chaos again, … ended up
    # covering a whole other ward" is no word on "nights on the oncology ward"
    # (a slot's answer is the user's word by its rules: "welp my old dentist retired and the practice passed all his
    # patients to a dr. lindqvist")
    # news with no person as its subject leaves behind only what it was raised over: "movers finally dropped everything
    # at the new place in Spokane" says nothing of "the rain in Spokane has been relentless", near it as that is
    if (anchor in told and anchor not in news or settled) and anchor in own and (
            raised or settled or vectors.tells_a_change(anchor) or vectors.names(anchor)):
        passed.update(_earlier_on_topic(index, vectors, anchor, own, LEFT_BEHIND_TOPIC[embedder_name]))
    return raised, passed - set(raised) - set(index.same_message(anchor))


def _latest_by_topic_words(index, ids: list[int], scores: list[float], rules: list[bool], question: str,
                           texts: Callable[[list[int]], dict[int, str]],
                           kin: frozenset[int] = frozenset()) -> tuple[dict[int, float], set[int]]:
    """A Chinese question: the latest of the user's own turns among the candidates that hold one of its topic
    words and tell a change or a value (those holding the most of them), raised above the best match when said after
    it; the user's earlier turns holding a topic word are left behind by it. A turn that only holds the word tells no
    state ("相册里翻到大学时候的照片" for "我的照片现在存在哪个云端？")."""

    topics = (_han_words(question) | _latin_words(question)) - _NOT_TOPICS_ZH
    if not topics:
        return {}, set()
    window = list(zip(ids[: WINDOW + 1], scores[: WINDOW + 1], rules[: WINDOW + 1]))
    floor = RELEVANT_SHARE * _unlifted_best(scores, rules)
    relevant = {memory_id for memory_id, score, _ in window if score >= floor}
    yes_no = asks_yes_no(question)
    own_in_window = own_turns(index, ids[: WINDOW + 1], yes_no=yes_no, kin=kin)
    own = [memory_id for memory_id in own_in_window if memory_id in relevant]
    holders = [index.holding(word, own_in_window) for word in topics]
    held = {memory_id: sum(memory_id in found for found in holders) for memory_id in own}
    said = texts([memory_id for memory_id, count in held.items() if count])
    telling = {memory_id: count for memory_id, count in held.items()
               if count and (_tells_a_change(said.get(memory_id, ""))
                             or any(index.is_type(m, "user_profile") for m in index.same_message(memory_id)))}
    most = max(telling.values(), default=0)
    on_topic = [memory_id for memory_id, count in telling.items() if count == most]
    latest = max(on_topic, key=lambda m: index.attrs(m)[1], default=None)
    if latest is None:
        return _switch_from_best(index, ids, scores, own, texts, question, yes_no=yes_no, rules=rules)
    # a later switch (or for a yes/no question an end), however low it scores, moves on from it when it shares a word
    # with it, though it holds none of the question's ("把索尼那台连镜头一起出掉了，入了台富士X100VI" after "我现在拍照主力是索尼A7C"
    # for "我现在拍照用的是哪台相机？"), or a character of the question's words ("最近都跑QQ音乐上听了，…周杰伦的歌只有那边有"
    # after "我听歌一直用网易云" for "我现在用哪个app听歌？"; "想了很久，不考了" after "在准备考研" for "我还在准备考研吗"); and a
    # switch when the ranking puts it at half the best match or more, as `_switch_from_best` takes one ("之前那位调去别的院区了
    # 现在是个姓陈的小姑娘" after "我的康复师是王医生 每周二去做腰的理疗" for "现在是谁给我做理疗"), not an end, which may end
    # something else ("那家店的东西太难吃了 再也不去了" for "我有什么不能吃的东西吗？")
    later = [m for m in own_in_window if index.attrs(m)[1] > index.attrs(latest)[1]]
    switches = texts(later)
    shared = asked_characters(question) & set(said.get(latest, ""))
    answering = _answering(ids, scores, rules)
    switched = [m for m in later if (_ZH_SWITCH.search(switches.get(m, ""))
                                     or yes_no and _tells_an_end(switches.get(m, "")))
                and (topic_words_zh(said.get(latest, "")) & topic_words_zh(switches.get(m, ""))
                     or shared & set(switches.get(m, ""))
                     or m in answering and _ZH_SWITCH.search(switches.get(m, "")))]
    latest = max(switched, key=lambda m: index.attrs(m)[1], default=latest)
    said_at = index.attrs(latest)[1]
    earlier = [m for m, count in held.items() if count and index.attrs(m)[1] < said_at]
    # a turn that asks and tells nothing that could end is no word left behind ("想给女儿买个电钢琴，雅马哈还是卡西欧好？")
    passed = {m for m in earlier if m in telling or not _asks_anything(said.get(m, ""))} - set(index.same_message(latest))
    best = index.attrs(ids[0])
    if latest == ids[0]:
        return {}, passed
    if best is None or said_at <= best[1]:
        return {}, set()  # an older word on the topic never goes above a later best match, which may say it anew
    return {sibling: scores[0] * 1.05 for sibling in index.same_message(latest)}, passed


def _unlifted_best(scores: list[float], rules: list[bool]) -> float:
    """The best match's score, or when a rule's bonus lifted it, the best score in the window that no rule lifted: what a
    later word must reach a share of."""
    plain = [score for score, rule in zip(scores[: WINDOW + 1], rules[: WINDOW + 1]) if not rule]
    return plain[0] if rules[0] and plain else scores[0]


def _answering(ids: list[int], scores: list[float], rules: list[bool]) -> set[int]:
    """The memories the ranking puts at `ANSWERING_SHARE` of the best match or more (of the best no rule lifted): a
    later switch among them answers the question in its own right, whatever its words."""
    bar = ANSWERING_SHARE * _unlifted_best(scores, rules)
    return {m for m, score in zip(ids, scores) if score >= bar}


def asked_characters(question: str) -> set[str]:
    """The characters of a Chinese question's words that could name a thing: 酒 of "我现在还喝酒吗？", 鱼 of "我阳台上还养着鱼吗？"."""
    return {c for word in tokenize_for_search(question) if word not in _NOT_TOPICS_ZH for c in word
            if HAN_CHAR.match(c)} - _LIGHT_CHARACTERS_ZH


def _asked_things(question: str) -> set[str]:
    """The pairs of characters of the things a Chinese question names (its nouns of two characters or more, not a place:
    jieba tags 东西 one): 健身 and 身房 of "我还在健身房练吗"."""
    return {pair for word, tag in han_tagged(question) if len(word) > 1 and tag in _THING_TAGS
            for pair in han_pairs(word)}


_THING_TAGS = frozenset(("n", "nz", "nt", "nr", "nw", "vn"))


def _switch_from_best(index, ids: list[int], scores: list[float], own: list[int],
                      texts: Callable[[list[int]], dict[int, str]], question: str, *,
                      yes_no: bool, rules: list[bool]) -> tuple[dict[int, float], set[int]]:
    """A Chinese question none of whose topic words the user's turns hold ("我最近在哪家健身房锻炼？" over "办了乐刻的月卡"),
    or one a slot rule answered by a statement its words know: the user's latest later turn that switches to something
    ("…上周换到了超级猩猩") or, for a yes/no question, ends something ("乐刻卡到期没续，实在去不动了") and shares a word
    with the best match (乐刻), or a character of the question's topic words ("酒我戒了" after "每晚喝两罐啤酒" for
    "我现在还喝酒吗？": a compound and its head) or a pair of a thing it names (健身 of 健身房), goes above it, and leaves it
    behind when it is the user's own; for a yes/no question, so does a later end that holds a character of the
    question's words ("戒了 已经三个月没抽了" after "一天差不多半包烟" for "我现在还抽烟吗") or the head of a thing the best match
    names ("卡退掉了" after "办了楼下乐刻的月卡" for "我现在还去健身房吗"); and so does a later switch the ranking puts at half the
    best match or more (of the best match no rule lifted, when a slot rule's bonus lifted it: "现在去超级猩猩了" over
    "我每周二四在楼下乐刻撸铁"), whatever its words ("最后还是改成普吉岛" after "我们婚礼就在巴厘岛办"). When none is later and the best
    match itself ends something, for a yes/no question ("鱼都送给楼下小孩了" for "我阳台上还养着鱼吗？"), the user's earlier
    turns on its topic are left behind by it."""

    best = index.attrs(ids[0])
    if best is None or ids[0] not in own:
        return {}, set()
    said = texts(own)
    topic = topic_words_zh(said.get(ids[0], ""))
    shared = asked_characters(question) & set(said.get(ids[0], ""))
    asked = _asked_things(question)
    codes = code_shapes(said.get(ids[0], ""))
    # the head of each thing the best match names (a compound's last character: 卡 of 年卡, 班 of 吉他班)
    heads = {word[-1] for word, tag in han_tagged(said.get(ids[0], "")) if tag in _THING_TAGS} - _LIGHT_CHARACTERS_ZH

    def shares_a_thing(m: int) -> bool:
        return bool(topic & topic_words_zh(said[m]) or codes & code_shapes(said[m]))

    answering = _answering(ids, scores, rules)
    later = [m for m in own if index.attrs(m)[1] > best[1] and m in said
             and (_ZH_SWITCH.search(said[m]) or yes_no and _tells_a_change(said[m])
                  or _ZH_NOW.search(said[m]) and _tells_an_end(said[m]))
             # a character alone, or a pair of a thing the question names ("健身卡…终于退掉了" for "我还在健身房练吗" after
             # "办了家门口威尔士的年卡"), only for a switch or an end, not for news ("最近在看余华的新书" after "读书会退了")
             and (shares_a_thing(m) or (shared & set(said[m]) or asked & han_pairs(said[m]))
                  and (_ZH_SWITCH.search(said[m]) or _tells_an_end(said[m]))
                  # for a yes/no question, an end that holds a character of the question's own in its clause or the
                  # one after it ("戒了 已经三个月没抽了" after "一天差不多半包烟" for "我现在还抽烟吗"; not "这家店的东西好难吃
                  # 再也不去了" for "我有什么不能吃的东西吗？")
                  or yes_no and (asked_characters(question) | heads) & set(_what_an_end_tells(said[m]))
                  # or one that opens with a bare end, which ends what is being talked of
                  or yes_no and _BARE_END_ZH.search(said[m])
                  # a switch the ranking puts at half the best match or more answers in its own right, whatever its
                  # words ("最后还是改成普吉岛" after "我们婚礼就在巴厘岛办" for "我们婚礼现在在哪办")
                  or m in answering and _ZH_SWITCH.search(said[m]))]
    latest = max(later, key=lambda m: index.attrs(m)[1], default=None)
    if latest is None:  # the best match tells the end itself ("鱼都送给楼下小孩了"): what it ends is history
        if not yes_no or not _tells_an_end(said.get(ids[0], "")):
            return {}, set()
        return {}, {sibling for m in own if m in said and index.attrs(m)[1] < best[1]
                    and (shares_a_thing(m) or shared & set(said[m])) for sibling in index.same_message(m)}
    return ({sibling: scores[0] * 1.05 for sibling in index.same_message(latest)},
            set(index.same_message(ids[0])))


def own_turns(index, memory_ids: list[int], *, yes_no: bool, kin: frozenset[int] = frozenset()) -> list[int]:
    """The user's own chat turns and profile memories among `memory_ids`: not a turn that asks (or whose every
    sentence asks: "业余时间想学点新东西，有啥推荐吗"), tells of someone else (but the one of the user's family the question
    asks about: `kin`) or is the assistant's; one that only closes a value only for a yes/no question."""
    kept = [m for m in memory_ids if index.is_type(m, "chat_turn") or index.is_type(m, "user_profile")]
    not_own = (index.holding(ASKS_MARK, kept) | index.holding(QUESTIONS_MARK, kept)
               | (index.holding(OTHERS_MARK, kept) - kin) | index.holding(ASSISTANT_MARK, kept))
    if not yes_no:
        not_own |= index.holding("§said~no", kept) | index.holding("§told~no", kept)
    return [m for m in kept if m not in not_own and index.attrs(m) is not None]


def _earlier_on_topic(index, vectors: "_MessageVectors", latest: int, candidates: set[int],
                      threshold: float) -> set[int]:
    """The messages of `candidates` said before `latest` about the same thing (their messages compared, or a word of
    theirs what `latest`'s change acts on: "seeing a physio called dominik" before "switched physios")."""
    said_at = index.attrs(latest)[1]
    earlier = [c for c in candidates if (index.attrs(c) or (0.0, np.inf))[1] < said_at]
    acted_on = vectors.changed_words(latest)
    return {sibling for c in earlier if vectors.cosine(c, latest) >= threshold or acted_on & vectors.topic_words(c)
            for sibling in index.same_message(c)}


def _later_on_topic(index, vectors: "_MessageVectors", anchor: int, candidates: list[int],
                    threshold: float, change_threshold: float, asked: set[str] = frozenset(),
                    answering: set[int] = frozenset(), news: set[int] = frozenset(),
                    names_a_value: Callable[[int], bool] | None = None,
                    asked_ended: set[str] | None = None) -> int | None:
    """The latest of `candidates` said after `anchor` about the same thing (their messages compared; closer than
    `threshold`, or than `change_threshold` for one that tells a change, or naming the same one); or one that tells a
    change, asks nothing and answers the question in its own right: one of `answering` that names something ("had to
    register with a new surgery after the move, so I'm with Dr Lindqvist now" for "who's my GP at the moment?"; not
    "got a new ergonomic mouse for my desk" for "which hand do I write with?"), or one that shares with
    `anchor` a word of the question's (`asked`, word families: "Dr. Kwame Mensah is taking over as my primary
    supervisor" after "my thesis supervisor is Prof. Lindqvist" for "who's supervising my PhD now?"), or whose change
    acts on a word of `anchor`'s ("had to drop the lessons" after "guitar lessons w marco every tuesday"), or, for a
    yes/no question (`asked_ended`, its words), that ends something and shares a word of its own with `anchor` ("so
    that's it for me and 5-a-side, hung up the boots" after "5-a-side tonight") or ends what the question asks about
    ("cancelled the membership lol" after "joined Anytime Fitness" for "do i still have a gym membership?"). Two
    messages name the same one also by its initials ("cancelled the VMP sub" after "signed up for Vinyl Me Please"). A
    word with no person as its subject (`news`) is never on the topic by a word it shares: "the street party got rained
    off" shares "street" with "new flat is on Dalton Street" and is no word on where the user lives."""
    start = index.attrs(anchor)
    if start is None:
        return None
    def on_topic(candidate: int) -> bool:
        cosine = vectors.cosine(candidate, anchor)
        return (cosine >= threshold or vectors.share_a_name(candidate, anchor)
                or (cosine >= change_threshold
                    or (candidate in answering and (names_something(vectors.text(candidate))
                                                    or names_a_value is not None and names_a_value(candidate)
                                                    and _names_the_new_value(vectors.text(candidate)))
                        or candidate not in news and (asked & vectors.families(candidate) & vectors.families(anchor)
                                                      or vectors.changed_words(candidate) & vectors.topic_words(anchor)
                                                      or asked_ended is not None and vectors.tells_an_end(candidate)
                                                      and (vectors.topic_words(candidate) & vectors.topic_words(anchor)
                                                           or vectors.changed_words(candidate) & asked_ended)))
                    and not vectors.asks(candidate)) and vectors.tells_a_change(candidate))

    later = [c for c in candidates if c != anchor and (index.attrs(c) or (0.0, -np.inf))[1] > start[1]]
    return max(filter(on_topic, later), key=lambda c: index.attrs(c)[1], default=None)


def _names_the_new_value(text: str) -> bool:
    """Whether a change names the value it went to ("joined crunch by the office") or states the user's present ("so
    mornings are matcha now"): not "my hospital parking permit expired, … asking for a new one"."""
    return bool(CHANGED_TO.search(text) or _STATES_NOW.search(text))


class _MessageVectors(dict):
    """The stored vectors of the memories written from a memory's message, read once per memory; and the names
    they link to and their text, read once when asked."""

    def __init__(self, index, names: Callable[[list[int]], set[str]] = lambda memory_ids: set(),
                 texts: Callable[[list[int]], dict[int, str]] = lambda memory_ids: {}) -> None:
        super().__init__()
        self.index = index
        self._names = names
        self._texts = texts
        self._named: dict[int, set[str]] = {}
        self._text: dict[int, str] = {}
        self._changed: dict[int, set[str]] = {}
        self._topic: dict[int, set[str]] = {}

    def read(self, memory_ids: list[int]) -> None:
        """Read the texts of those of `memory_ids` not read yet, in one read of the store."""
        missing = [memory_id for memory_id in memory_ids if memory_id not in self._text]
        if missing:
            found = self._texts(missing)
            self._text.update({memory_id: found.get(memory_id, "") for memory_id in missing})

    def text(self, memory_id: int) -> str:
        self.read([memory_id])
        return self._text[memory_id]

    def families(self, memory_id: int) -> set[str]:
        """The word families of a memory's text ("supervisor" and "supervising" meet)."""
        return word_families(tokenize_for_search(self.text(memory_id)))

    def changed_words(self, memory_id: int) -> set[str]:
        """The word families of what a memory's change acts on ("switched physios": physio), read once."""
        if memory_id not in self._changed:
            from .extract.attributes import what_a_change_acts_on  # the statement rules, compiled only when needed

            acted_on = " ".join(what_a_change_acts_on(self.text(memory_id)))
            self._changed[memory_id] = word_families(tokenize_for_search(acted_on))
        return self._changed[memory_id]

    def topic_words(self, memory_id: int) -> set[str]:
        """The word families of a memory's own clauses (not "my neighbour runs a book club") that could name what it
        is about, an amount among them ("$89/mo"): not the words any talk of one's days has ("work", "time"); read
        once."""
        if memory_id not in self._topic:
            from .extract.attributes import own_clauses  # the statement rules, compiled only when needed

            families = word_families(tokenize_for_search(" ".join(own_clauses(self.text(memory_id)))))
            self._topic[memory_id] = {w for w in families
                                      if len(w) >= 4 or w.isdigit() and len(w) >= 2} - _TALK_OF_ANY_DAY
        return self._topic[memory_id]

    def tells_a_change(self, memory_id: int) -> bool:
        """Whether a memory's text says something changed or ended ("i moved us over to aetna")."""
        return _tells_a_change(self.text(memory_id))

    def tells_an_end(self, memory_id: int) -> bool:
        """Whether a memory's text says something ended ("hung up the boots")."""
        return _tells_an_end(self.text(memory_id))

    def asks(self, memory_id: int) -> bool:
        """Whether a memory's text asks something in any clause."""
        return _asks_anything(self.text(memory_id))

    def names(self, memory_id: int) -> set[str]:
        """The names a memory's message links to, read once."""
        if memory_id not in self._named:
            self._named[memory_id] = self._names(self.index.same_message(memory_id))
        return self._named[memory_id]

    def share_a_name(self, one: int, other: int) -> bool:
        """Whether two memories' messages name the same one ("I ride a Brompton to the station" / "sold the
        Brompton"), or one by its initials ("the VMP sub" / "Vinyl Me Please"): the same thing, however far apart their
        meaning."""
        return bool(self.names(one) & self.names(other)) or initials_meet(self.text(one), self.text(other))

    def __missing__(self, memory_id: int) -> np.ndarray:
        self[memory_id] = self.index.vectors_of(self.index.same_message(memory_id))
        return self[memory_id]

    def cosine(self, one: int, other: int) -> float:
        """How close two memories' messages are: the best cosine between their stored vectors."""
        return float((self[one] @ self[other].T).max(initial=-1.0))


# the marks of a chat turn that says who its words are about, or that it asks
_PERSON_MARKS = ("§said", "§told", "§said~no", "§told~no", ASKS_MARK, QUESTIONS_MARK, OTHERS_MARK, ASSISTANT_MARK)


def _news_of_the_users(index, vectors: "_MessageVectors", memory_ids: list[int]) -> set[int]:
    """The user's chat turns among `memory_ids` that tell a change with no person as their subject: "the slip fees went
    up again so she lives at pelican cove now", "IT swapped everyone onto ThinkPads, had to hand the Dell back". Neither
    the user's statement (`§said`, `§told`) nor someone else's news (`§others`), and asking nothing, they are the user's
    news of their own things."""
    turns = [m for m in memory_ids if index.is_type(m, "chat_turn")]
    marked = set().union(*(index.holding(mark, turns) for mark in _PERSON_MARKS))
    unmarked = [m for m in turns if m not in marked and index.attrs(m) is not None]
    vectors.read(unmarked)
    return {m for m in unmarked if vectors.tells_a_change(m) and not vectors.asks(m)}


def _statements(index, memory_ids: list[int], *, yes_no: bool, kin: frozenset[int] = frozenset()) -> set[int]:
    """Those of `memory_ids` that are the user's own word: a statement (`§said`, or `§told` with the subject
    dropped, marked when written) or a value read from one; one that only closes a value (`~no`) only for a
    yes/no question."""
    found = {m for m in memory_ids if index.is_type(m, "user_profile")}
    found |= index.holding("§said", memory_ids) | index.holding("§told", memory_ids)
    closing = index.holding("§said~no", memory_ids) | index.holding("§told~no", memory_ids)
    # someone else's news ("my dad's turning 65 next month") is never the user's latest word
    not_own = (index.holding(OTHERS_MARK, memory_ids) - kin) | index.holding(ASKS_MARK, memory_ids)
    return (found | closing if yes_no else found - closing) - not_own | kin
