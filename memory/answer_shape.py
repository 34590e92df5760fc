"""The shape of what a question asks for, and whether a message has it: "who" is answered by someone named, "what …
called" by a name, "where" by a place named, "how much" by a number, "when" by a day. A message without that shape may
share the question's words ("rent went up $150, I'm furious" for "who's my landlord?") but cannot answer it."""
import re

from .extract.entities import CN_PERSON, SURNAMES_ZH
from .extract.han import HAN_CHAR, han_places
from .latest_word import CAPITAL_INSIDE, TITLED_NAME

SOMEONE, NAMED, PLACE, AMOUNT, MOMENT = "someone", "named", "place", "amount", "moment"

# labels of the entities a message names (spaCy's, and the rules' for Chinese) that are of each shape
ENTITY_LABELS = {SOMEONE: ("PERSON",), NAMED: ("PERSON", "ORG", "GPE", "LOC", "FAC", "PRODUCT", "WORK_OF_ART"),
                 PLACE: ("GPE", "LOC", "ORG"), AMOUNT: (), MOMENT: ("DATE",)}

_ASKS = {
    SOMEONE: re.compile(r"^\W*(?:(?:so|and|ok|okay|remind me|hey|quick q),?\s+)*who(?:'s|se|m|\s|\?|$)|谁", re.I),
    # what someone or something is called: a band, a team, a child, a pet
    NAMED: re.compile(r"\bwhat(?:'s| is| are| was| were)\b.*\b(?:called|named|name)\b|叫什么|叫啥|名字", re.I),
    PLACE: re.compile(r"^\W*(?:(?:so|and|ok|okay|remind me|hey|quick q),?\s+)*where\b"
                      r"|\b(?:which|what) (?:city|town|country|state|county|neighbou?rhood|suburb|part of town"
                      # a place by its kind, answered by its name: "which hospital do i work at?", "what street is my
                      # dry cleaner on?"
                      r"|street|road|avenue|lane|hospital|clinic|school|college|uni|university|campus|station|branch"
                      r"|building|estate|village|island|district|area|club|church|venue|hotel|library)\b"
                      r"|哪里|哪儿|在哪|什么地方|哪个城市|哪座城市|哪个国家|哪个区|哪里人|哪人", re.I),
    AMOUNT: re.compile(r"\bhow (?:much|many|old|tall)\b"
                       r"|多少|几(?:个|岁|点|次|口|只|条|位|套|辆|台)|多大(?!的)|多高|多重", re.I),
    MOMENT: re.compile(r"^\W*(?:(?:so|and|ok|okay|remind me|hey|quick q),?\s+)*when\b|什么时候|啥时候|哪天|几号|几月|哪年",
                       re.I),
}

# a name given, in any case: "her name's marisol", "a guy called dev"
_NAME_GIVEN = re.compile(r"\b(?:name's|name is|names are|called|named)\s+(?!it\b|that\b|this\b|off\b|in\b|out\b|me\b)[a-z]\w+",
                         re.I)
# a Chinese neighbour or elder by surname and what they are called ("对门的李奶奶"), beside the titles the entity rules read
# (`CN_PERSON`: "班主任是刘老师")
_HAN_ELDER = re.compile(rf"(?:{SURNAMES_ZH})(?:奶奶|爷爷|大爷|大妈|大娘|大叔|大姐|大哥|婆婆|阿婆|伯伯|姐|哥)")
# a Chinese place by what it is ("新东方", "望京那边的小区"); jieba's tagger finds the places it knows by name (武汉)
_HAN_PLACE = re.compile(r"[\u4e00-\u9fff](?:市|省|区|县|镇|村|路|街|巷|小区|大厦|广场|公园|医院|大学|中学|小学|店|馆|中心"
                        r"|公司|银行)")
_NUMBER = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty"
                     r"|fifty|sixty|seventy|eighty|ninety|hundred|thousand|dozen|twins|triplets)\b"
                     r"|[一二两三四五六七八九十百千万]+(?:个|岁|点|次|块|元|万|千|百|公斤|斤|米|号|月|年|天|小时|"
                     r"分钟|平|层|楼|只|条|本|套|件|口|位|辆|台|人)", re.I)
# a day named: by its number ("9/23", "6月8号"), its month or its weekday
_DATE = re.compile(r"\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d"
                   r"|\b(?:january|february|march|april|june|july|august|september|october|november|december"
                   r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b"
                   r"|[一二三四五六七八九十]+(?:月|号|日)|(?:周|星期|礼拜)[一二三四五六日天]", re.I)

# "how many model kits have I worked on?", "一共去了几次": a count of the user's doings, which no message states
_COUNTS_DOINGS = re.compile(r"\bhow many times\b"
                            r"|\bhow many\b.*\b(?:did|have|had) (?:i|we) (?!got\b)\w+(?:ed|en|wn|ne|ght)\b"
                            r"|一共|总共|多少次|几次", re.I)


def asked_shape(question: str) -> str | None:
    """The shape of what a question asks for, if it asks for one: "who's my landlord?" someone, "what's my band
    called?" a name, "我在哪上班" a place, "银行给我的透支上限是多少" an amount, "when is my anniversary?" a day."""
    shape = next((shape for shape, asks in _ASKS.items() if asks.search(question)), None)
    return None if shape == AMOUNT and _COUNTS_DOINGS.search(question) else shape


def has_shape(text: str, shape: str, names_entity: bool, *, leniently: bool = False) -> bool:
    """Whether a message has what a question of `shape` asks for, given whether it names an entity of the shape's
    `ENTITY_LABELS`: someone named or titled ("mrs alvarez next door"), a name ("rehearsal w the Velvet Moths"), a place
    named (by a capital: "my lash fill at Lash Lounge"; "在武汉的实验室"), a number ("提额到五万了"), a day ("got hitched
    9/23/2019"). `leniently`, someone may be any name by a capital, which spaCy may not know for a person ("Went
    hiking in the Dales with Priya")."""
    if shape == AMOUNT:
        return _NUMBER.search(text) is not None
    if shape == MOMENT:
        return names_entity or _DATE.search(text) is not None
    if names_entity:
        return True
    if shape in (SOMEONE, NAMED) and (TITLED_NAME.search(text) or _NAME_GIVEN.search(text) or CN_PERSON.search(text)
                                      or _HAN_ELDER.search(text)):
        return True
    if shape == SOMEONE:
        return leniently and CAPITAL_INSIDE.search(text.strip()) is not None
    if shape == NAMED:
        return CAPITAL_INSIDE.search(text.strip()) is not None
    if HAN_CHAR.search(text) and (_HAN_PLACE.search(text) or han_places(text)):
        return True
    return CAPITAL_INSIDE.search(text.strip()) is not None
