"""Memory rules: sentences and clauses, rule templates, third-person rewriting, questions."""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Iterator

from ..model import ExtractedEntity, ExtractedMemory
from ..when import find_dates, may_hold_dates
from ..slots import ALIASES, FIRST_PERSON, TEMPLATES
from .compress import compress
from .attributes import CIRCUMSTANCE_EN, GREETING_EN, UNNAMED, VERB_FIRST, ZH_GROUP_WORDS, AttributeFact
from .attributes import resolve as resolve_attributes
from .relations import someone_elses
from .han import EMOJI, HAN_CHAR

__all__ = ["Found", "asks_only", "find_statements", "is_question", "to_memories"]

# titles as chat types them too ("my gp is dr. fenwick"); not "no.", which ends "i said no."
_ABBREVIATIONS = "Dr Mr Mrs Ms Prof St Jr Sr Inc Ltd Co vs etc e.g i.e No dr mr mrs ms prof".split()
_NOT_AFTER_ABBREVIATION = "".join(rf"(?<!\b{re.escape(a)})" for a in _ABBREVIATIONS)
# A sentence runs to its first end mark; runs without a full stop are taken whole (possessive), not a
# character at a time: the same matches, 100x faster on a long unpunctuated message.
_SENTENCE = re.compile(rf"(?:[^\n!?。！？.]++|\.)+?(?:[!?。！？]+|{_NOT_AFTER_ABBREVIATION}\.(?=\s|$)|(?=\n)|$)")
_CLAUSE_SEP = re.compile(
    r"\s*(?:[;；：，]|:(?!\d)|,(?!\d))\s*|\s+[-–—]+\s+"
    rf"|\s*[{EMOJI}][{EMOJI}\u200d\ufe0f]*\s*(?=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])(?!叫|名叫|名字叫)"  # 搞定了😮‍💨 现在住在杭州
    r"|\s+(?:and|but|so|because|although|though|while)\s+(?=(?:i|i'm|i've|i'd|my|me|please|remember)\b)"
    r"(?!i\s+(?:are|were|aren't|weren't|have been together|got (?:married|engaged|together)|hit|celebrated)\b)"
    r"|\s+(?:and|but)\s+(?=(?:got|bought|adopted|moved|started|switched|joined|took|signed)\b)"
    r"|而且|并且|但是|不过|可是|所以|然后",
    re.I,
)
_FILLER_EN = re.compile(  # a sentence after the first starts with the space after the full stop
    r"^\s*(?:(?:and|but|so|also|oh|well|btw|by the way|actually|hi|hey|hello|ok|okay|yes|yeah|anyway|honestly"
    r"|fyi|just so you know|now|then|ah|um|hmm|lately|these days|nowadays|currently|recently|ps"
    r"|for the record|fun fact(?: about me)?|side note|quick update|update|guess what|ugh|omg|wow|lol|haha|welp|phew)"
    r"\b[\s,!.:]*)+",
    re.I,
)
_FILLER_ZH = re.compile(
    r"^(?:其实|另外|还有|对了|顺便说一下|顺便说|顺便|嗯+|哦+|啊|好的|好吧|而且|并且|但是|不过|然后|所以|那么"
    r"|现在|最近|目前|如今|眼下|近来|这阵子|这段时间|平时|以后|从今天起|今天开始|话说|说起来|告诉你|跟你说|你好|您好|哈喽|嗨)+"
)
_REMEMBER_EN = re.compile(
    r"^(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:(?:remember|keep in mind|don't forget|do not forget)(?:\s+that)?|note\s+that)\b(?!\s+to\b)[\s,:]*",
    re.I,
)
_REMEMBER_ZH = re.compile(r"^(?:请你|请|麻烦你|麻烦|帮我|你要|你)?(?:记住|记下|记一下|记着|牢记|要记得|记得)(?:一下)?")
# no word of the user's in the rest of the clause: "any tips for selling shoes on vinted" asks, "any tips for my first 1:1"
# tells of the user
_NO_WORD_OF_THE_USERS = r"(?![^,;:.!?]*\b(?:i|i'm|im|i've|ive|my|me)\b)"
# words chat puts before a question: "roughly how much does a vet visit cost", "random q, can u drink coffee on ssris"
_QUICK_Q = r"(?:random|quick|dumb|silly|stupid|serious) q(?:uestion)?"
_ASKING_LEAD = r"(?:" + _QUICK_Q + r"(?: but)?[,:]?\s+)"
_QUESTION_EN = re.compile(
    r"^\W*(?:(?:roughly|approximately|realistically|honestly|genuinely|also|btw|out of curiosity|just curious)[,:]?\s+"
    r"|" + _ASKING_LEAD + r")?"
    r"(?:what|what's|whats|where|where's|wheres|who|who's|whom|whose|when|when's|whens|why|how|how's|hows"
    r"|which)\b(?!')"
    # a verb before its subject, not a statement whose subject was dropped before an adverb: "could barely walk down
    # the stairs after", "was so tired", "have literally never seen snow"; nor one that was going on: "sold the car,
    # was costing a fortune" ("is running bad for your knees" asks; "was running the marathon smart?" asks by its mark)
    r"|^\W*" + _ASKING_LEAD + r"?"
    r"(?:do|does|did|is|are|am|was|were|can|could|would|should|will|shall|have|has|may|might)\b(?!')"
    r"(?!(?:(?<=was)|(?<=were))\s+[a-z]+ing\b)"
    # nor a thing the user did, told by which time it was: "did my first saturday shift at st mark's food bank"
    r"(?!(?<=did)\s+(?:my|our)\s+(?:first|second|third|last|usual|weekly|daily|monthly|yearly|annual|own"
    r"|\d+(?:st|nd|rd|th))\b)"
    r"(?!\s+(?:barely|hardly|never|only|just|totally|really|so|already|finally|still|definitely|probably|literally"
    r"|actually|even|easily|officially|honestly|seriously|basically|kinda|sorta|def|defo|prob)\b)"
    # chat asks without a question mark: "any tips for selling shoes on vinted", "anyone know a good plumber"
    r"|^\W*(?:any|anyone|anybody)\s+(?!(?:time|day|more|longer)\b)" + _NO_WORD_OF_THE_USERS,
    re.I,
)
# A request to the assistant tells nothing by itself: "recommend me a thriller for a long flight", "write a funny
# caption for a pic of my dog", "帮我给同事写个生日祝福" (not "帮我记一下…", a note, nor "帮我妈挂了个号", news).
_REQUEST = re.compile(
    r"^\W*(?:(?:pls|plz|please)\s+)?(?:recommend|suggest|remind me|help me|tell me|give me|show me|find me|teach me|write"
    r"|draft|explain|translate|summari[sz]e|proofread|rewrite|brainstorm|describe)\b"
    r"|^\W*(?:请你?帮我|麻烦你?帮我|帮我(?!妈|爸|老|哥|姐|弟|妹|女|儿|记|存|保存)|给我(?:推荐|写|找|讲|列|出|想|整理|翻译|解释))",
    re.I,
)
# shopping for something, the subject dropped, before asking which: "need a van that fits a ladder, any recs?",
# "想买个运动手表，华为还是小米好"
_SHOPPING = re.compile(
    r"^\W*(?:need|looking for|shopping for|searching for)\s+(?:a|an|some|new|good|cheap|decent)\b"
    r"|^\W*(?:想|打算|准备)(?:给[^，,。\s]{1,4})?(?:买|入|换)(?:个|一个|台|一台|部|一部|双|一双|把|一把|款|一款|辆|一辆)", re.I)
# ... and asking for ideas or a way by naming them, the verb left out, with no word of the user's in the clause, as "any
# tips for …" asks: "puzzle ideas for a 7 year old who's bored of easy ones", "tips for meeting new neighbors when you're
# super introverted", "cheapest way to get compost bags home if you dont have a car boot" (not "found some great ideas
# for the garden", nor "tips for my first 1:1 with a new manager")
_ASKING_FOR = re.compile(
    r"^\W*(?:(?:need\s+)?(?:(?!(?:i|we|my|our|his|her|their|your|the|these|those|some|found|got|have|had|saw|read"
    r"|heard|shared|gave|love|loved|used|tried|just|any|anyone|anybody)\b)[\w'-]+\s+){0,3}?"
    r"(?:ideas?|tips|recs|recommendations|suggestions|advice|hacks)\s+(?:for|on|to|about)\b"
    r"|(?:the\s+)?(?:best|cheapest|easiest|quickest|fastest|safest|simplest|healthiest|good|smartest)\s+(?:[\w'-]+\s+)?"
    r"ways?\s+to\b)" + _NO_WORD_OF_THE_USERS, re.I)
_PLEASE_LAST = re.compile(r"\b(?:pls|plz|please)\W*$", re.I)
_REQUEST_ME = re.compile(r"\b(?:recommend|remind|help|tell|give|show|find|teach)\s+me\b", re.I)
# 几 before a measure word, or ending a sentence ("押几付几啊"), asks how many; after a number it is a rough count, not
# a question: "看了二十几个病人"; so is 前几天, 这几天, 那几年, 过几天 (but not 提前几天), and after 了 ("去那边打了几次")
# 几 and a word before 啊 or 呀 ends a clause asks how many: "入门大概要几节课啊" (not "等了几分钟啊")
# 啥 and 咋 are chat's 什么 and 怎么, but not in 没啥 ("nothing much") or 不咋 / 不怎么 ("not very": "最近也不怎么追剧了");
# "谁顶得住" asks no one
# 几 after 下 counts what is left or next, as 这几个 and 好几个 do: "剩下几个月转给同事了"
_QUESTION_ZH = re.compile(r"什么|(?<!没)啥|哪|谁(?!顶得住|受得了|扛得住|吃得消|忍得了|受得住)"
                          r"|(?<![十百千万好这那过了下\d])(?<!(?<!提)前)几(?:[个点月号天岁年次]|[啊呀呢]?\W*$)"
                          r"|(?<![十百千万好这那过了下\d])(?<!(?<!提)前)几[\u4e00-\u9fff]{1,3}?[啊呀](?=[\s，,。！!？?~～]|$)"
                          r"|(?<!不)怎么|(?<!不)咋|怎样|如何|多少|是否|是不是|有没有"
                          r"|为什么|为何|(?:吗|么)\W*$|吗(?=\s)"  # a space ends a clause: "作业写到十点正常吗 崩溃"
                          # 呢 asks in a short clause ("你呢", "那我呢"); after a statement it stresses ("便宜好几百呢")
                          r"|(?:^|[\s，,])[^\s，,。]{0,3}呢\W*$"
                          # "瑜伽垫买多厚的比较好", "考试前一天该复习还是休息啊", "有推荐的牌子"
                          r"|多(?:厚|大|久|长|高|重|远|宽|贵|深)|(?:该|要|选)[^，。,]{1,10}还是|还是[^，。,]{1,10}(?:啊|呀|好)\W*$"
                          r"|求推荐|推荐一下\W*$|有推荐"
                          # 不 ending a clause asks yes or no: "剑馆一般周末人多不", "我现在还抽烟不"; not "要不", "我才不", "我不"
                          r"|(?<![要才就也都还并可我])(?<=[\u4e00-\u9fff])不(?=[\s，,。！!？?~～]|$)"
                          r"|(?!动)([\u4e00-\u9fff])不\1")  # 要不要, 能不能, 该不该; not 动不动 ("at the slightest")

_ADV = (
    r"(?:(?:usually|now|mostly|always|only|mainly|still|normally|generally|typically|often|really|just|also"
    r"|currently|actually|mostly|nowadays)\s+)*"
)
_HAVE = r"(?:(?:have|'ve|just|recently|already)\s+)*"
_MEMBERSHIP = (r"(?i:[^,.;]*?(?:gym|fitness|leisure cent|club\b|society|choir|orchestra|league|union\b|party\b"
               r"|library|ramblers|parkrun|slimming world|weight watchers))")
_ZADV = r"(?:现在|平时|一般|通常|每天|早上|经常|最近|都|只|主要|还是|一直|也|已经|目前|基本上|基本|总是)*"


@dataclass(frozen=True)
class _Rule:
    kind: str
    pattern: re.Pattern[str]
    lang: str


def _en(kind: str, body: str) -> _Rule:
    return _Rule(kind, re.compile(rf"^{body}$", re.I), "en")


def _zh(kind: str, body: str) -> _Rule:
    return _Rule(kind, re.compile(rf"^{body}$"), "zh")


_ZH_DRINK = r"咖啡|奶茶|酒|啤酒|红酒|白酒|可乐|饮料|碳酸饮料|含糖饮料|咖啡因|酒精|气泡水|能量饮料|美式|拿铁"
# First match wins, so specific and negated forms come before general ones.
_MEMORY_RULES = [
    _en("name", r"(?:my name is|my name's|i'm called|i am called)\s+(?P<v>.+?)"),
    _en("name_cap", r"(?:(?:you can|please|just)\s+)*(?:call me|i go by)\s+(?P<v>(?-i:[A-Z]).*?)"),
    _en("drink_stop", r"i\s+(?:don't|do not|won't)\s+drink\s+(?P<v>.+?)\s+(?:anymore|any more|any longer)"),
    _en("drink_stop", r"i\s+no longer\s+drink\s+(?P<v>.+?)"),
    _en("drink_stop", rf"i\s+{_HAVE}(?:stopped|quit|gave up)\s+drinking\s+(?P<v>.+?)"),
    _en("drink_not", r"i\s+(?:don't|do not|never)\s+drink\s+(?P<v>.+?)"),
    _en("switch", rf"i\s+{_ADV}{_HAVE}(?:switched|changed|moved on|gone over|gone)\s+(?:over\s+)?from\s+.+?\s+to\s+(?P<v>.+?)"),
    _en("switch", rf"i\s+{_ADV}{_HAVE}(?:switched|changed|moved on|gone over|gone)\s+(?:over\s+)?to\s+(?P<v>.+?)"),
    _en("drink_switch", rf"i\s+{_ADV}{_HAVE}(?:started|began)\s+drinking\s+(?P<v>.+?)"),
    _en("drink", rf"i\s+{_ADV}drink\s+(?P<v>.+?)"),
    _en("home_stop", r"i\s+no longer\s+live\s+in\s+(?P<v>.+?)"),
    _en("home_stop", r"i\s+(?:don't|do not)\s+live\s+in\s+(?P<v>.+?)\s+(?:anymore|any more)"),
    _en("home_move", rf"i\s+{_ADV}{_HAVE}(?:moved|relocated)\s+to\s+(?P<v>.+?)"),
    _en("home", rf"i\s+{_ADV}(?:live|am living|'m living|am based|'m based|reside)\s+in\s+(?P<v>.+?)"),
    _en("employer_stop", r"i\s+no longer\s+work\s+(?:at|for)\s+(?P<v>.+?)"),
    _en("employer_stop", r"i\s+(?:don't|do not)\s+work\s+(?:at|for)\s+(?P<v>.+?)\s+(?:anymore|any more)"),
    # not a membership: "I've joined PureGym", "joined the Ramblers Club" (a gym, a club or a choir is no employer)
    _en("employer_join", rf"i\s+{_HAVE}(?:joined|started (?:working )?at)\s+(?!{_MEMBERSHIP})(?P<v>(?-i:[A-Z]).*?)"),
    _en("employer", rf"i\s+{_ADV}(?:work|am working|'m working)\s+(?:at|for)\s+(?P<v>.+?)"),
    _en("prefer", rf"i\s+{_ADV}(?:prefer|would prefer|'d prefer|would rather have|'d rather have)\s+(?P<v>.+?)"),
    _en(
        "like",
        rf"i\s+{_ADV}(?P<verb>like|love|enjoy|adore|hate|dislike|detest|can't stand|cannot stand"
        r"|don't like|do not like|don't really like|don't enjoy|do not enjoy)\s+(?P<v>.+?)",
    ),
    _en("attr", r"my\s+(?P<a>[a-z][\w' -]{0,40}?)\s+(?P<be>is|are)\s+(?P<v>.+?)"),
    _zh("name", r"(?:我叫|我的名字是|我的名字叫|我名字叫|我名字是|叫我|大家都叫我|你可以叫我)(?P<v>.+?)"),
    _zh("drink_stop", rf"我{_ZADV}(?:不再|再也不|不)喝(?P<v>.+?)了"),
    _zh("drink_stop", rf"我{_ZADV}不再喝(?P<v>.+?)"),
    # 戒 ends a drink, not smoking ("我戒烟了") or a relapse ("戒了三天烟又抽上了")
    _zh("drink_stop", rf"我{_ZADV}(?:戒掉了|戒了)(?P<v>[^烟]+?)"),
    _zh("drink_stop", rf"我{_ZADV}(?:把)(?P<v>[^烟]+?)(?:戒掉了|戒了)"),
    _zh("drink_stop", rf"我{_ZADV}戒(?P<v>[^烟]+?)了"),
    # the drink first, as chat says it: "咖啡戒了快一个月了"
    _zh("drink_stop", rf"我{_ZADV}(?P<v>{_ZH_DRINK})(?:我|也|都|已经|早就?|彻底)*(?:戒掉了|戒了)(?:[^，,。]*)"),
    # "不喝就没精神" is a condition, not a drink the user does not drink
    _zh("drink_not", rf"我{_ZADV}(?:不|从不|从来不)喝(?![就都也会还的了吧呢啊])(?P<v>.+?)"),
    _zh("drink_switch", rf"我{_ZADV}(?:改喝|换喝|改成喝|换成喝|开始喝)了?(?P<v>.+?)了?"),
    _zh("switch", rf"我{_ZADV}(?:改成|换成)了?(?P<v>.+?)了?"),
    _zh("drink", rf"我{_ZADV}喝(?!了|多|醉|完|过)(?P<v>.+?)"),
    _zh("home_stop", rf"我{_ZADV}(?:不再住在|不住在)(?P<v>.+?)了?"),
    _zh("home_stop", rf"我{_ZADV}从(?P<v>.+?)搬走了"),
    _zh("home_move", rf"我{_ZADV}(?:搬到了|搬到|搬去了|搬去|搬家到了|搬家到|搬来了|搬来)(?P<v>.+?)(?:住)?了?"),
    _zh("home", rf"我{_ZADV}(?:住在|居住在|生活在|定居在)(?P<v>.+?)"),
    _zh("employer_stop", rf"我{_ZADV}从(?P<v>.+?)离职了?"),
    _zh("employer_stop", rf"我{_ZADV}不在(?P<v>.+?)(?:工作|上班)了"),
    # not a group that shares a pastime: "加入了一个叫“山野行”的徒步群"
    _zh("employer_join", rf"我{_ZADV}(?:加入了|加入|入职了|入职|跳槽到了|跳槽到|跳槽去了)"
                         rf"(?P<v>(?!.*(?:{ZH_GROUP_WORDS})了?$).+?)了?"),
    _zh("employer", rf"我{_ZADV}在(?P<v>.+?)(?:工作|上班|任职|实习)了?"),
    _zh("attr", r"我(?:的|(?=最喜欢的))(?P<a>[^，。是]{1,12}?)(?P<be>是|叫)(?P<v>.+?)"),
    _zh("prefer", rf"我{_ZADV}(?:更喜欢|比较喜欢|偏好|更偏好|更倾向于|倾向于|更爱)(?P<v>.+?)"),
    _zh("like", rf"我{_ZADV}(?P<verb>很喜欢|非常喜欢|最喜欢|特别喜欢|喜欢|不喜欢|不太喜欢|讨厌|很讨厌|热爱|爱)(?P<v>.+?)"),
]

_DRINK = re.compile(
    r"\b(?:coffee|latte|americano|espresso|cappuccino|mocha|macchiato|flat white|cold brew|tea|matcha|chai"
    r"|juice|smoothie|soda|cola|coke|beer|wine|whisky|whiskey|milk|water|lemonade|kombucha|cocoa"
    r"|hot chocolate)s?\b"
    r"|咖啡|拿铁|美式|浓缩|卡布奇诺|摩卡|冷萃|茶|奶茶|果汁|可乐|啤酒|酒|牛奶|豆浆|饮料",
    re.I,
)
_ANSWER = re.compile(
    r"\b(?:answers?|responses?|repl(?:y|ies)|explanations?|summar(?:y|ies)|bullet points?)\b|回答|回复|答案|解释|总结",
    re.I,
)
_PRONOUN_VALUES = set(
    "it that this you your them those these him her me something anything 你 你们 他 她 它 这 那 这个 那个".split()
)
_BAD_ATTRS = set(
    "point question problem guess issue concern idea understanding opinion answer reason bad pleasure "
    "fault turn mistake".split()
)
_NOT_ATTRIBUTE_VALUES = set(
    "so very really too more less about like full such just still always never quite pretty super great good "
    "fine amazing awesome cool nice beautiful better worse best open closed ready done back here there over gone "
    "all not also kind sort that going getting coming "
    # how something feels today ("my feet are dead", "my forearms are DESTROYED after climbing"), not what it is
    "dead destroyed sore aching tired numb shredded exhausted wrecked killing swollen".split()
)
_NOT_LIKED = _PRONOUN_VALUES | set("how what when where why which who to the thought".split())
_BAD_EMPLOYERS = set("home night weekends the moment 家 家里 这 这里 那里 这儿 那儿 公司 外面 线上 远程".split())
_EN_LEADING = re.compile(
    r"^(?:(?:way\s+)?too much|far too much|loads of|a lot of|lots of|a cup of|a glass of|cups of|a|an|the|some|mostly"
    r"|mainly|only)\s+", re.I
)
_EN_TRAILING = re.compile(
    r"\s+(?:now|nowadays|these days|every (?:day|morning|evening|night|week)"
    r"|in the (?:morning|evening|afternoon)s?"
    r"|daily|usually|anymore|any more|instead|too|as well|again|already|right now|at the moment|lately|recently"
    r"|a lot|very much|so much|since .+|for (?:about )?\S+ (?:years?|months?|weeks?)|last (?:year|month|week)"
    r"|this (?:year|month|week)|with .+|because .+|" + CIRCUMSTANCE_EN + r")$",
    re.I,
)
_EN_TRAILING_LIGHT = re.compile(r"\s+(?:too|as well|a lot|so much|very much|now|anymore|any more)$", re.I)
_ZH_LEADING = re.compile(r"^(?:一杯|一瓶|一罐|一点|一些|杯|点|些)")
# "戒酒一个多月了": how long it has been is no part of the value
_ZH_TRAILING = re.compile(r"(?:了|啦|呀|吧|哦|呢|的|每天|住|(?:[一二两三四五六七八九十几半]|\d)+个?多?(?:天|周|星期|个月|月|年)多?)+$")
_ZH_NAME_END = re.compile(r"在|是|今年|来自|住|的|，|,")
_PREFER_SPLIT = re.compile(r"\s+(?:over|rather than|instead of|more than)\s+|而不是|而非|胜过|多过", re.I)
_LIKE_VERBS_EN = {
    "like": "likes",
    "love": "loves",
    "enjoy": "enjoys",
    "adore": "adores",
    "hate": "hates",
    "dislike": "dislikes",
    "detest": "detests",
    "can't stand": "can't stand",
    "cannot stand": "cannot stand",
    "don't like": "does not like",
    "do not like": "does not like",
    "don't really like": "does not really like",
    "don't enjoy": "does not enjoy",
    "do not enjoy": "does not enjoy",
}
_NEGATIVE_LIKES = {"hate", "dislike", "detest", "can't stand", "cannot stand", "不喜欢", "不太喜欢", "讨厌", "很讨厌"}


# what a rule builds: (content, attribute, value, what a closing names)
Built = tuple[str, "str | None", "str | None", "str | None"]


@dataclass
class Found:
    """A memory stated in a message: its content, slot and value, and its span in the text."""

    content: str
    attribute: str | None
    value: str | None
    start: int
    end: int
    type: str = "user_profile"
    began: datetime | None = None  # from date words in the clause ("since March", "两周前")
    ends: str | None = None  # what a closing names ("Twitter" of "I quit Twitter")


def _trim_value(value: str, lang: str, strict: bool = True) -> str:
    """A slot value without articles, measure words, trailing adverbials and punctuation."""
    value = value.strip(" \t.,!;:'\"。！，；：、")
    if lang == "en" and strict:
        value = _EN_LEADING.sub("", value)
        previous = None
        while previous != value:
            previous, value = value, _EN_TRAILING.sub("", value)
    elif lang == "en":
        value = _EN_TRAILING_LIGHT.sub("", value)
    else:
        value = _ZH_TRAILING.sub("", _ZH_LEADING.sub("", value))
    return value.strip(" .,!;:'\"。！，；：、")


def _name_value(value: str, lang: str) -> str | None:
    """A person's name at the start of value, or None when it does not look like one."""
    value = value.strip(" .,!;:'\"。！，；：、")
    if HAN_CHAR.match(value):
        value = _ZH_NAME_END.split(value, maxsplit=1)[0]
        return value if 1 <= len(value) <= 4 else None
    m = re.match(r"[^\s,.;!?]+(?:\s+[A-Z][^\s,.;!?]*){0,3}", value)
    if not m or m.group().lower() in _PRONOUN_VALUES:
        return None
    return m.group()


def _attr_slot(attr: str, lang: str) -> str:
    """A slot attribute name: `favorite color` -> `favourite_colour`; Chinese kept or mapped."""
    if lang == "zh":
        attr = attr.strip("的")
        return ALIASES.get(attr, attr)
    attr = attr.lower().replace("'s", "").replace("favorite", "favourite").replace("color", "colour")
    attr = re.sub(r"\W+", "_", attr).strip("_")
    return ALIASES.get(attr, attr)


def _build(rule: _Rule, m: re.Match[str]) -> Built | None:
    """(content, attribute, value, ends) for a matched rule, or None when the value is not usable."""
    lang, kind = rule.lang, rule.kind
    raw = m.group("v")
    if kind in ("name", "name_cap"):
        value = _name_value(raw, lang)
        return _template("name", value, lang) if value else None
    if kind == "attr":
        return _build_attr(m, lang)
    if kind == "prefer":
        return _build_prefer(raw, lang)
    if kind == "like":
        return _build_like(m.group("verb"), raw, lang)
    value = _trim_value(raw, lang)
    if not value or value.lower() in _PRONOUN_VALUES:
        return None
    if kind.startswith("employer") and value.lower() in _BAD_EMPLOYERS:
        return None
    if kind == "switch" and _DRINK.search(value):
        kind = "drink_switch"
    return _template(kind, value, lang)


def _template(kind: str, value: str, lang: str, slot_value: str | None = None) -> Built:
    """Content from the kind's sentence template. A negation ("no longer …") fills its slot with no value:
    it closes the value held before, and is never itself the answer to what the user has now; what it names
    is kept beside it, so that it closes only a value it names ("I quit Twitter" leaves Deloitte)."""
    attribute, template = TEMPLATES[kind]
    content = template.text(lang).format(v=value)
    if template.closes:
        named = slot_value or value
        return content, attribute, None, None if named in UNNAMED.values() else named
    return content, attribute, (slot_value or value) if attribute else None, None


def _build_attr(m: re.Match[str], lang: str) -> Built | None:
    """`my X is Y` / `我的X是Y` -> slot (user, X)."""
    attr, value = m.group("a").strip(), _trim_value(m.group("v"), lang, strict=False)
    slot = _attr_slot(attr, lang)
    if slot == "name":
        name = _name_value(value, lang)
        return _template("name", name, lang) if name else None
    if not value or (lang == "en" and not _is_attribute_value(attr, value)):
        return None
    if lang == "en":
        return f"User's {attr} {m.group('be').lower()} {_third_person(value, sentence_start=False)}.", slot, value, None
    attr = attr.strip("的")
    owner = "用户" if attr.startswith("最") else "用户的"
    return f"{owner}{attr}{m.group('be')}{value}。", slot, value, None


def _is_attribute_value(attr: str, value: str) -> bool:
    """`my birthday is May 3` states an attribute; `my kids are so excited about it` does not."""
    first = value.split()[0].lower()
    return (
        len(attr.split()) <= 3
        and len(value.split()) <= 6
        and attr.split()[0].lower() not in _BAD_ATTRS
        and first not in _NOT_ATTRIBUTE_VALUES
        and not first.endswith("ing")
    )


def _category(value: str) -> str | None:
    """The slot a stated preference belongs to, when it has an obvious one."""
    if _ANSWER.search(value):
        return "answer_style"
    if _DRINK.search(value):
        return "drink_preference"
    return None


def _build_prefer(raw: str, lang: str) -> Built | None:
    """`I prefer X over Y` -> preference, slotted when X has a category."""
    parts = _PREFER_SPLIT.split(raw, maxsplit=1)
    value = _trim_value(parts[0], lang, strict=False)
    other = _trim_value(parts[1], lang, strict=False) if len(parts) > 1 else ""
    if not value or value.lower() in _PRONOUN_VALUES:
        return None
    attribute = _category(value)
    if lang == "en":
        content = f"User prefers {value}" + (f" over {other}" if other else "") + "."
    else:
        content = f"用户偏好{value}" + (f"而不是{other}" if other else "") + "。"
    return content, attribute, value if attribute else None, None


def _build_like(verb: str, raw: str, lang: str) -> Built | None:
    """`I like X` / `我不喜欢X`; only positive answer-style likes get a slot."""
    value = _trim_value(raw, lang, strict=False)
    if not value or value.lower() in _NOT_LIKED or value.split()[0].lower() in _NOT_LIKED:
        return None
    if lang == "en":
        value = _third_person(value, sentence_start=False)
    verb = " ".join(verb.lower().split())
    attribute = None
    if verb not in _NEGATIVE_LIKES and "not" not in verb and "n't" not in verb and _ANSWER.search(value):
        attribute = "answer_style"
    content = f"User {_LIKE_VERBS_EN[verb]} {value}." if lang == "en" else f"用户{verb}{value}。"
    return content, attribute, value if attribute else None, None


def is_question(text: str) -> bool:
    """True when a sentence of text asks rather than tells; questions give no memory.

    A sentence asks when it ends in `?`, opens with a question word (`do`, `what's`, `could`…) or,
    in Chinese, holds a question word or ends in a particle (吗, 呢); `can you remember that …` is
    a request, not a question.
    """
    return any(_asks(sentence) for _, sentence in _sentences(text))


_ASKING_CLAUSE = re.compile(r"(?<=[,;:，；：])")  # a clause keeps its mark: "any tips?" asks, "sold the bike," does not
# chat ends a sentence with an emoji: "fully plant-based for 2 years now 🌱 so keep recipe ideas meat free pls" tells first
_EMOJI_END = re.compile(rf"(?<=[{EMOJI}])\s+")
# a clause that says nothing: "lol", "thanks!", "pls", "哈哈", an emoji
_NO_WORD = re.compile(r"^[\W_]*(?:(?:lol|lmao|haha\w*|hehe|thanks|thank you|thx|ty|pls|plz|please|ok|okay|hmm+|xx+|"
                      + _QUICK_Q + r")[\W_]*)*$"
                      r"|^[\W_]*(?:哈+|嘿+|谢谢|谢啦|拜托|呜+)[\W_]*$", re.I)


# the "I" of a question that asks what to do, "should I start getting checkups?", "how do I descale a kettle?": the
# writer as anyone would be, not a word about them ("how do I get my salary paid into Starling?" has one: "my")
_ADVICE_I = re.compile(r"\b(?:should|can|could|do|shall|would|must|may|might)\s+i\b(?=[^,;:.!?]*(?:\?|$))")


def asks_only(text: str) -> bool:
    """A message that asks and says nothing of its writer: every clause asks, and no word is the writer's
    ("is hay fever worse in june or july?", "best hand cream for cracked knuckles?", "有什么适合冬天的运动装备推荐吗").
    "How do I get my salary paid into Starling?" says something of the writer; so do "Sold the bike, any tips?" and
    "上个月搬到深圳了，有没有省钱的建议". The "I" of "how often should I change the oil?" is anyone's. Shopping for something
    before asking which tells nothing either ("need a van that fits a ladder, any recs?", "想买个运动手表，华为还是小米好"); nor
    does a greeting ("hiya, how long do you boil an egg for soft yolk?")."""
    if "我" in text or set(re.findall(r"[\w']+", _REQUEST_ME.sub(" ", _ADVICE_I.sub(" ", text.lower())))) & FIRST_PERSON:
        return False
    clauses = [clause for _, sentence in _sentences(text) for part in _EMOJI_END.split(sentence)
               for clause in _ASKING_CLAUSE.split(part) if not _says_nothing(clause)]
    return bool(clauses) and all(_asks(clause) or requests(clause) or _SHOPPING.match(clause) for clause in clauses)


def _says_nothing(clause: str) -> bool:
    """"lol", "thanks!", a greeting ("hiya", "早上好")."""
    return bool(_NO_WORD.match(clause) or _SALUTATION.match(clause))


def asks_anything(text: str) -> bool:
    """A message any clause of which asks ("my bot keeps going offline at night, how do I check logs")."""
    return any(_asks(clause) for _, sentence in _sentences(text) for _, _, clause in _clauses(sentence, 0)
               if clause.strip())


def requests(text: str) -> bool:
    """A request to the assistant ("recommend me a thriller", "road trip playlist pls", "帮我写个生日祝福"): it asks for
    something, and by itself tells nothing of the writer (a note to keep, "remember that …", is no request)."""
    s = text.strip()
    first = re.split(r"[,;:，；：]", s, maxsplit=1)[0]
    return (bool(_REQUEST.match(s) or _ASKING_FOR.match(s) or _PLEASE_LAST.search(first))
            and not _REMEMBER_EN.match(s) and not _REMEMBER_ZH.match(s))


# a later clause in which the writer says what they are or have ("I'm a nurse", "我是湖南常德人"), not any clause of
# theirs: "why do coffee shops charge extra for oat milk, my sister asked and I had no answer" tells nothing of them
_OWN_CLAUSE = re.compile(r"(?:i'm|im|i am|i've been|ive been|i live|i work|i have|i've got|ive got)\b"
                         r"|我(?:是|在|住|叫|家|有|今年|已经|现在|一直)", re.I)


def told_clauses(sentence: str) -> str:
    """What a sentence that asks or requests tells: its head before the first question (`stated_head`), and any later
    clause in which the writer speaks of themself without asking ("帮我看看这个表格式对不对 我是湖南常德人 籍贯写常德市可以吗"
    tells 我是湖南常德人)."""
    head = stated_head(sentence)
    later = [clause.strip() for start, _, clause in _clauses(sentence, 0)
             if start > len(head) and _OWN_CLAUSE.match(clause.strip()) and not is_question(clause.strip())
             and not requests(clause)]
    return ", ".join(part for part in [head, *later] if part)


# "vodafone bill came in at £48 this month??": a doubled mark after a statement's word order is disbelief, not a
# question ("is that normal??" and "the plumber charged how much?!" still ask)
_DISBELIEF = re.compile(r"(?:\?\?|\?!|!\?)[?!]*$")
# a statement that hedges with a question mark: "eating fish again so pescatarian I guess?"
_HEDGED = re.compile(r"\b(?:i guess|i think|i suppose|i reckon|kinda|or something|or smth)\s*\?+$", re.I)
_ASKING_WORD = re.compile(r"\b(?:how|hows|what|whats|what's|why|who|whom|whose|where|when|which|any|anyone|anybody)\b"
                          r"|^\W*(?:(?:ok|okay|so|but|and|wait|lol|also|like|then|ugh|um|hmm)\W+)*"
                          r"(?:do|does|did|is|are|am|was|were|can|could|would|should|will|shall|have|has|may|might)\b", re.I)


# a clause that only greets, though it asks ("在吗在吗 最近忙疯了…", "how are you, moved to Leeds last week btw")
_GREETING_ASKS = re.compile(r"(?:(?:亲)?(?:在吗|在么|在嘛|在不在|你好吗|最近好吗|how are you|how's it going|hows it going"
                            r"|how are things|are you there|you there|what's up|whats up|how have you been|how've you been)"
                            r"[\s?？!！~～,，.。]*)+", re.I)


def _asks(sentence: str) -> bool:
    s = sentence.strip()
    if s.endswith(("?", "？")):
        return not ((_DISBELIEF.search(s) or _HEDGED.search(s)) and not HAN_CHAR.search(s)
                    and not _ASKING_WORD.search(s))
    if HAN_CHAR.search(s):
        return bool(_QUESTION_ZH.search(s))
    # one that exclaims tells: "did my usual saturday shift at the pantry, we packed 300 boxes!"
    return bool(_QUESTION_EN.match(s)) and not _REMEMBER_EN.match(s) and not s.endswith("!")


# a sentence that only greets: "hi!", "good morning ☀️", "早上好"
_SALUTATION = re.compile(r"^\W*(?:(?:" + GREETING_EN + r"|gm|morning|evening|hi there|hey there|你好|早上好|早安|早|晚上好|嗨|哈喽)"
                         r"\W*)+$", re.I)


# a sentence that opens with the writer tells before it asks: "I'm pescatarian so any quick fish recipes?"
_OPENS_OWN = re.compile(r"^\W*(?:i|i'm|im|i've|ive|i'd|my|we|we're|we've|our|me and)\b", re.I)


def opens_asking(text: str) -> bool:
    """Whether a message's first sentence (after a greeting that asks nothing) asks before it tells anything: "Are
    spiders scared of humans? A huge one keeps appearing in my bathtub."; not "ported my number to giffgaff
    yesterday. how do I set up voicemail?" nor "Just dropped my daughter Lily at nursery, what's the weather like?"."""
    for _, sentence in _sentences(text):
        for part in _EMOJI_END.split(sentence):  # an emoji ends what came before: "hiya from rainy glasgow ☔ hows …"
            if not (_GREETING_ASKS.fullmatch(part.strip()) or _says_nothing(part)):
                return asks_anything(part) and not stated_head(part) and not _OPENS_OWN.match(part)
    return False


def stated_head(sentence: str) -> str:
    """What a sentence that asks tells before its first question: "Just dropped my daughter Lily at nursery,
    what's the weather like?" tells of Lily; "早啊☀️ 刚送完我女儿朵朵去幼儿园，今天天气怎么样，要不要带伞？" of 朵朵.
    Empty when it opens with the question ("Do you think I should move to Leeds, I love it there?")."""
    head = 0
    for start, end, clause in _clauses(sentence, 0):
        if _GREETING_ASKS.fullmatch(clause.strip()):  # "在吗在吗 最近忙疯了，…": the greeting asks nothing
            head = end
            continue
        if clause.strip() and (is_question(clause.strip()) or requests(clause)):
            break
        head = end
    return sentence[:head].strip(" ,;:，；：")


def _sentences(text: str) -> Iterator[tuple[int, str]]:
    """(offset, sentence) pairs, split at sentence-final punctuation and newlines."""
    for m in _SENTENCE.finditer(text):
        if m.group().strip():
            yield m.start(), m.group()


def _clauses(sentence: str, offset: int) -> Iterator[tuple[int, int, str]]:
    """(start, end, clause) pairs, split at commas, semicolons and clause-joining conjunctions."""
    pos = 0
    for sep in _CLAUSE_SEP.finditer(sentence):
        yield offset + pos, offset + sep.start(), sentence[pos : sep.start()]
        pos = sep.end()
    yield offset + pos, offset + len(sentence), sentence[pos:]


def _strip_lead(clause: str, pattern: re.Pattern[str]) -> tuple[str, int]:
    """Clause without a leading match of pattern, and the number of characters removed."""
    m = pattern.match(clause)
    return (clause[m.end() :], m.end()) if m else (clause, 0)


def _match_clause(body: str) -> list[Built]:
    """What a clause body states: the attribute resolver's facts, else the first memory rule that matches."""
    body = body.strip().rstrip(".!。！")
    facts = resolve_attributes(body)
    if facts:
        lang = "zh" if HAN_CHAR.search(body) else "en"
        return [_template(f.kind, _with_detail(f, lang), lang, slot_value=f.value) for f in facts]
    for rule in _MEMORY_RULES:
        m = rule.pattern.match(body)
        if m:
            built = _build(rule, m)
            if built:
                return [built]
    return []


def _with_detail(fact: AttributeFact, lang: str) -> str:
    """The value as the stored sentence shows it: a pet's kind before its name."""
    if not fact.detail:
        return fact.value
    return f"{fact.detail} {fact.value}" if lang == "en" else f"一只{fact.detail}，叫{fact.value}"


def _third_person(text: str, sentence_start: bool = True) -> str:
    """A user's words retold about the user: `I have` -> `User has`, `我的` -> `用户的`."""
    if HAN_CHAR.search(text):
        return re.sub(r"我(?!们)", "用户", text)
    text = _FIRST_PERSON.sub(lambda m: _replace_first_person(m, sentence_start and m.start() == 0), text)
    return text[:1].upper() + text[1:] if sentence_start else text


_FIRST_PERSON = re.compile(
    r"\b(?:(?P<be>i'm|i am)|(?P<aux>i've|i'd|i'll)|(?P<i>i)(?P<adv>(?:\s+(?:really|usually|always|often|never|also"
    r"|just|still|now|sometimes|only|already|mostly|actually|normally|rarely))*)\s+(?P<verb>[a-z']+)"
    r"|(?P<obj>me|myself)|(?P<poss>my)|(?P<mine>mine))\b",
    re.I,
)
_AUX = {"i've": "has", "i'd": "would", "i'll": "will"}
_UNCHANGED_VERBS = set(
    "can could will would shall should may might must was did had can't cannot won't wouldn't couldn't "
    "shouldn't wasn't didn't hadn't went got met saw said told made took came bought left felt found gave knew "
    "thought paid put ran sent spent wrote read let set kept heard".split()
)
_IRREGULAR_VERBS = {"have": "has", "do": "does", "go": "goes", "don't": "doesn't", "haven't": "hasn't", "am": "is"}


def _replace_first_person(m: re.Match[str], at_start: bool) -> str:
    """One first-person phrase in third person; `User` at the start, `the user` elsewhere."""
    subject = "User" if at_start else "the user"
    if m.group("be"):
        return f"{subject} is"
    if m.group("aux"):
        return f"{subject} {_AUX[m.group('aux').lower()]}"
    if m.group("i"):
        return f"{subject}{m.group('adv') or ''} {_third_person_verb(m.group('verb'))}"
    if m.group("obj"):
        return "the user"
    if m.group("poss"):
        return f"{subject}'s"
    return "the user's"


def _third_person_verb(verb: str) -> str:
    """`like` -> `likes`, `have` -> `has`; past tense and modals unchanged."""
    low = verb.lower()
    if low in _IRREGULAR_VERBS:
        return _IRREGULAR_VERBS[low]
    if low in _UNCHANGED_VERBS or low.endswith("ed") or "'" in low:
        return verb
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


def _general_memory(sentence: str, start: int, end: int, offset: int, strong: bool) -> Found | None:
    """A remembered statement as a third-person sentence; after a bare `remember,` only one about the user."""
    text = sentence[start - offset : end - offset].strip(" ,，:：;；")
    about_user = bool(re.search(r"\b(?:i|me|my|mine|i'm|i've)\b|我(?!们)", text, re.I))
    if not text or not (strong or about_user):
        return None
    content = _third_person(text).rstrip(".!。！")
    content += "。" if HAN_CHAR.search(content) else "."
    return Found(content, None, None, start, end, "user_profile" if about_user else "fact_reference")


def _is_strong_trigger(trigger: str, sentence: str, clause_end: int) -> bool:
    """`remember that`, `please remember`, `remember:`, `记住` ask to remember; a bare `remember,` may be advice."""
    if HAN_CHAR.search(trigger) or re.search(r"that|please|you|:", trigger, re.I):
        return True
    return sentence[clause_end:].lstrip().startswith((":", "："))


_NAMED_AFTER_COMMA = re.compile(r"((?:一只|一条|一匹|一头|只|条)[\u4e00-\u9fff]{1,4})[，,](叫|名叫|名字叫)")
_ZH_LATE_SUBJECT = re.compile(r"^((?:(?![他她你它我])[\u4e00-\u9fff\d]){1,6}?)(?=我)")
# a time word before a dropped subject that no date rule resolves: "年中跳槽去了美团", "前阵子搬到了杭州"; not 之前 or 以前,
# which put what follows in the past
_ZH_TIME_LEAD = re.compile(
    r"^(?:(?:去年|今年)?(?:年[初中底末前后]|[上下]半年|开年|过完年|(?:春节|过年|元旦|国庆|五一|十一|中秋|节)[前后]"
    r"|[一二三四五六七八九十\d]{1,3}月份?[初中底]?|月[初中底])|前(?:阵子|段时间|些天|些日子|几天|两天|几周|几个月)"
    r"|这(?:几天|两天|段时间|学期)|(?:暑假|寒假|开学|毕业)[前后]?|后来|然后|于是)(?:的时候)?[，,]?\s*")
_ZH_OTHER_SUBJECTS = ("你", "他", "她", "它", "大家", "别人", "我们", "我")
_VERB_FIRST = VERB_FIRST
# a present state with "I'm" / "I've" dropped, before a name; "seeing" only with "been" ("Been seeing Priya for six
# weeks"), not "Seeing Tom for lunch"
_DROPPED_BE = re.compile(r"^(?:(?:currently|still|now)\s+)?(?:living|based)\s+in\s+(?-i:[A-Z])"  # a place, not "the moment"
                         r"|^been\s+(?:living in|based in|seeing|dating|going out with|together with)\s+(?-i:[A-Z])", re.I)
_CONTRACTIONS = [(re.compile(p, re.I), r) for p, r in (
    (r"\bi'm\b", "I am"), (r"\bi've\b", "I have"), (r"\bi'd\b", "I would"), (r"\bi'll\b", "I will"),
    (r"\bwe're\b", "we are"), (r"\bwe've\b", "we have"), (r"\bwe'd\b", "we would"),
    (r"\b(do|does|did|have|has|is|are|was|were|wo|ca)n't\b", r"\1 not"),
)]


_DANGLING = re.compile(r"^(?:(?:so|and|but|also|well|ok|okay|anyway|oh)[\s,]+)*"  # "so as of this week I've gone vegan"
                       r"(?:as of|since|from|starting|in|on|at|by|until|about|around|back in|ever since)\s+(?=(?:i|we|my|our)\b)"
                       r"|\s+(?:since|from|in|on|at|by|until|about|around|back in|as of)$", re.I)


def _expand(body: str) -> str:
    """Contractions spelled out, so one rule reads "I've switched" and "I have switched" alike."""
    for pattern, replacement in _CONTRACTIONS:
        body = pattern.sub(replacement, body)
    return body.replace("wo not", "will not").replace("ca not", "cannot")


def _began(text: str, at: datetime | None) -> datetime | None:
    """When a statement says it began: the start of a past date it names ("two weeks ago", "since March")."""
    if at is None or not may_hold_dates(text, relative=True):
        return None
    for mention in find_dates(text, at):
        start = mention.period.start
        if mention.period.end is not None and mention.period.end > at and not _FROM_DATE.search(text):
            continue  # "this year": the change fell somewhere in the period, not at its start
        if start <= at:
            return start
    return None


_FROM_DATE = re.compile(r"\b(?:since|as of|from|starting|ever since)\b|自|从|起", re.I)


def _without_dates(clause: str, at: datetime | None) -> str:
    """The clause with its date words blanked (same length), so they are no part of a value."""
    if not may_hold_dates(clause, relative=at is not None):
        return clause
    mentions = find_dates(clause, at)
    if not mentions:
        return clause
    for mention in reversed(mentions):
        before, after = clause[: mention.start], clause[mention.end :]
        han_join = HAN_CHAR.match(before[-1:] or "a") or HAN_CHAR.match(after[:1] or "a")
        clause = before + ("" if han_join else " ") + after
    clause = " ".join(clause.split())
    return _DANGLING.sub("", clause).strip(" ,，")


def _dangling_date(sentence: str, offset: int, at: datetime | None) -> datetime | None:
    """The date of a clause that is only a date ("Two weeks ago, I moved …", "…, as of March"): it dates the
    sentence's other clauses. A date inside a clause that says something else ("Biscuit died last month,
    now we have a cat") belongs to that clause alone."""
    if at is None or not may_hold_dates(sentence, relative=True):
        return None
    for _, _, clause in _clauses(sentence, offset):
        began = _began(clause, at)
        if began is not None:
            rest, _ = _strip_lead(_without_dates(clause, at), _FILLER_EN)
            rest, _ = _strip_lead(rest, _FILLER_ZH)
            if not re.sub(r"[\W_]+", "", rest):
                return began
    return None


def _sentence_memories(offset: int, sentence: str, at: datetime | None = None) -> Iterator[Found]:
    """Memories from one sentence: rule matches per clause, plus remembered statements."""
    remembering = strong = zh_subject = False
    rest: list[tuple[int, int]] = []
    sentence = _NAMED_AFTER_COMMA.sub(r"\1 \2", sentence)  # 养了一只橘猫，叫橙子: one clause (same length)
    sentence_began = _dangling_date(sentence, offset, at)
    for start, end, clause in _clauses(sentence, offset):
        clause_began = _began(clause, at)
        clause = _without_dates(clause, at)
        body, cut = _strip_lead(clause, _FILLER_EN)
        body, cut2 = _strip_lead(body, _FILLER_ZH)
        body, cut3 = _strip_lead(body, _REMEMBER_ZH if HAN_CHAR.match(body) else _REMEMBER_EN)
        if cut3:
            remembering = True
            strong = strong or _is_strong_trigger(clause[cut + cut2 : cut + cut2 + cut3], sentence, end - offset)
        if not body.strip():
            continue
        late_subject = _ZH_LATE_SUBJECT.match(body)
        if late_subject:  # 年底我们举家迁到了大连: a time word before the subject
            body = body[late_subject.end(1):]
        time_lead = _ZH_TIME_LEAD.match(body)
        if time_lead and time_lead.end() < len(body):
            body = body[time_lead.end():]
        if body.startswith("我"):
            zh_subject = True
        elif HAN_CHAR.match(body) and start > offset and body.startswith(("叫", "名叫", "名字叫")):
            pass  # 养了一只柯基，叫馒头: a name after a comma names what came before, not the user
        elif HAN_CHAR.match(body) and someone_elses(body) == set():
            continue  # 同事买了理想L7: the relation dropped its 我, and the news is the colleague's
        elif HAN_CHAR.match(body) and not body.startswith(_ZH_OTHER_SUBJECTS):
            body = "我" + body  # 我叫张三，在技术部工作 / 三周前搬到了重庆: Chinese drops the subject
        elif not HAN_CHAR.match(body) and _VERB_FIRST.match(body):
            body = "I " + body  # "Started keto last week": a user's own news drops the subject too
        elif not HAN_CHAR.match(body) and _DROPPED_BE.match(body):
            body = ("I've " if body[:4].lower() == "been" else "I'm ") + body  # "Living in Vancouver", "Been seeing Priya"
        built = _match_clause(_expand(body))
        for content, attribute, value, ends in built:
            yield Found(content, attribute, value, start, end, began=clause_began or sentence_began, ends=ends)
        if not built and remembering:
            rest.append((start + cut + cut2 + cut3, end))
    if rest:
        found = _general_memory(sentence, rest[0][0], rest[-1][1], offset, strong)
        if found:
            yield found


def find_statements(text: str, at: datetime | None = None) -> list[Found]:
    """The memories a user's message states, sentence by sentence; questions are skipped.

    `at` is when the message was written: relative date words in a statement resolve against it. A
    value that is a redacted secret ("my portal password is [REDACTED:password]") is no value to hold:
    the turn keeps the mention."""
    found: list[Found] = []
    for offset, sentence in _sentences(text):
        if is_question(sentence):
            sentence = stated_head(sentence)
        if sentence:
            found.extend(f for f in _sentence_memories(offset, sentence, at)
                         if not (f.value and "[REDACTED" in f.value))
    return found


def to_memories(found: list[Found], ents: list[ExtractedEntity]) -> list[ExtractedMemory]:
    """ExtractedMemory values with the entities inside each one's span, duplicates dropped."""
    out: list[ExtractedMemory] = []
    seen: set[str] = set()
    for f in found:
        content = compress(f.content)
        if content in seen:
            continue
        seen.add(content)
        inside = _unique(e for e in ents if e.start >= f.start and e.end <= f.end)
        subject = "user" if f.attribute else None
        out.append(ExtractedMemory(content, f.type, subject, f.attribute, f.value, inside, began=f.began, ends=f.ends))
    return out


def _unique(ents: Iterable[ExtractedEntity]) -> list[ExtractedEntity]:
    """First occurrence of each (key, label)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for e in ents:
        if (e.key, e.label) not in seen:
            seen.add((e.key, e.label))
            out.append(e)
    return out
