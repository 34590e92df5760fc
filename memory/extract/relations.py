"""People the user speaks of by their relation to the user ("my sister", "我爸"): whose statement a clause is.

A clause whose subject is someone else ("My sister's on the keto diet", "My brother just got a new job",
"我爸膝盖不好") speaks of that person, not of the user. Imported by recall, so it holds only what a question
needs besides the writer's rules: no spaCy, a few patterns."""
from __future__ import annotations

import re

from .han import EMOJI, HAN
from .word_forms import GRANDPARENTS_BY_FAMILY_LANGUAGE

__all__ = ["ASKS_FIRST_MARK", "ASKS_MARK", "CHILD_SCHOOL", "CHILD_WORD", "OTHERS_MARK", "PEOPLE_TOPICS", "QUESTIONS_MARK", "USERS_CHILD", "WORKPLACE_PEOPLE",
           "about_someone_else", "asks_their_name", "fact_marks", "includes_the_user", "introduces_by_name",
           "names_someone", "says_of_user",
           "someone_elses", "someone_elses_attribute", "speaks_only_of_them", "users_kin_named"]

#: The search token of a user's message about someone else (a question about the user weighs it less).
OTHERS_MARK = "§others"
#: ... and of one that only asks and says nothing of the user (`facts.asks_only`: "is hay fever worse in june?").
ASKS_MARK = "§asks"
#: ... and of one whose every sentence asks, though it names the writer ("how do I tell my parents we're not doing
#: christmas at theirs?"): it tells in passing, where a statement tells outright.
QUESTIONS_MARK = "§questions"
#: ... and of one that opens by asking and only then tells ("any VPN provider recommendations? my work one is awful"):
#: what it tells is context for the question, not news.
ASKS_FIRST_MARK = "§asks_first"

_PARTNER_EN = r"wife|husband|partner|boyfriend|girlfriend|fianc\w*|spouse|bf|gf|hubby|other half|significant other"
_CHILD_EN = r"kids?|children|child|sons?|daughters?|baby|toddler|twins|little ones?"
_FAMILY_EN = (r"mum|mom|mother|dad|father|parents|brother|sister|siblings?|nephew|niece|cousin|aunt|auntie|uncle|gran"
              r"|granny|grandma|grandmother|grandad|granddad|grandpa|grandfather|grandparents|in-laws"
              r"|grandsons?|granddaughters?|grandkids?|grandchild|grandchildren|"
              + "|".join(GRANDPARENTS_BY_FAMILY_LANGUAGE))
_RELATION_EN = (
    rf"{_PARTNER_EN}|{_CHILD_EN}|{_FAMILY_EN}"
    r"|\w+-in-law|colleague|coworker|co-worker|workmate|boss|manager|friend|mate|bestie|flatmate|roommate|housemate"
    r"|neighbou?r|landlord|landlady|teacher|team|buddy|buddies|pal|bff|labmate|classmate|coursemate|teammate|officemate")
_KIN_MODIFIER_EN = r"(?:(?:little|big|older|younger|elder|eldest|oldest|youngest|best|new|old|twin|step|baby)\s+)?"
_OTHER_SUBJECT_EN = re.compile(
    r"^(?:(?:oh|ok|okay|so|and|but|well|also|btw|anyway|update|heads up|fun fact|ugh|argh|omg|lol|haha|hmm|wow|sigh"
    r"|honestly|apparently)\W+)*"
    rf"(?:(?:my|our)\s+{_KIN_MODIFIER_EN}(?P<who>{_RELATION_EN})s?"
    rf"|the\s+(?P<whose>{_RELATION_EN})(?='s|s'|s\b)"  # "the neighbour's dog barks at 6am", "the neighbours"
    rf"|(?P<bare>{_RELATION_EN})(?='s\s)"  # as chat drops the "my": "neighbour's tesla blocking our drive again"
    r"|(?P<named>mum|mom|mam|dad|nan|nana|gran|grandma|grandpa|grandad)"
    # kin and friends with the "my" dropped, before what they do: "sister wants to bring her kids over sunday"
    r"|(?P<dropped>sister|brother|wife|husband|hubby|bf|gf|boyfriend|girlfriend|partner|fianc[eé]e?|son|daughter"
    r"|cousin|niece|nephew|aunt|uncle|bestie|roommate|flatmate|housemate)"
    r"(?=\s+(?:wants|says|said|thinks|keeps|is|was|has|had|just|needs|asked|loves|hates|got|went|called|texted|told"
    r"|reckons|wanted|started|decided)\b)"
    # someone the user knows by what they do for them: "the kid i tutor says his dentist gives out stickers"
    r"|(?:the|this|that|a|one of the) (?P<known>kid|boy|girl|lad|guy|woman|man|lady|family|student|client|patient"
    r"|teen|child)s? (?:i|we) (?:tutor|teach|coach|babysit|nanny|mentor|look after|care for|work with|clean for))\b"
    r"(?!\s+(?:and|&)\s+(?:i|me)\b)", re.I)  # "Mum keeps asking me …": a parent by the name the user calls them
_RELATION_ZH = (r"爸爸?|妈妈?|父母|爷爷|奶奶|外公|外婆|姥姥|姥爷|哥哥?|姐姐?|弟弟?|妹妹?|表[哥姐弟妹]|堂[哥姐弟妹]|老公|老婆|丈夫|妻子"
                r"|男朋友|女朋友|男友|女友|对象|爱人|另一半|伴侣|儿子|女儿|孩子|闺女|丫头|同事|老板|领导|朋友|闺蜜|室友|邻居|舅舅|姑姑|阿姨|叔叔|舅妈|婶婶"
                r"|亲戚|长辈|同学|侄子|侄女|外甥女?|师傅|师父|学长|学姐|学弟|学妹|发小|网友|房东|上司|组长|导师")
#: "… any tips? asking for my sister", "帮我妈问一下": the message is asked on someone else's behalf.
_ON_BEHALF = re.compile(rf"\b(?:asking|asked|ask)\s+for\s+(?:a|my|our)\s+{_KIN_MODIFIER_EN}(?:{_RELATION_EN})\b"
                        rf"|[替帮]我的?(?:{_RELATION_ZH})问", re.I)
_SENTENCE = re.compile(r"[^?？!！.。]*[?？!！.。]+|[^?？!！.。]+$")
# "我妈…", and as Chinese often says it, without 我: "表妹在学钢琴", "同事开车上班" (not 朋友圈, WeChat's feed);
# "老家的亲戚…", "公司的同事…", "我闺蜜的爱人…": the relation after a short modifier of its own, none of the user's topics
_OTHER_SUBJECT_ZH = re.compile(rf"^(?P<who>(?:我的?)?(?P<of>[{HAN}]{{1,3}}的)?(?:{_RELATION_ZH}))(?![和跟与]我|圈)")
_PARTNER_ZH = re.compile(r"老公|老婆|丈夫|妻子|男朋友|女朋友|男友|女友|对象|爱人|另一半|伴侣")
_CHILD_ZH = re.compile(r"儿子|女儿|孩子|闺女|丫头")
# the user's topics a clause about one of their people still speaks of: "My boyfriend Marco keeps stealing the duvet"
# tells who the partner is, "my manager priya is great" who the user reports to, "my landlord is derek" who the user
# rents from, "my daughter starts at little acorns nursery" who looks after the user's child
_RELATION_TOPICS_EN = ((_PARTNER_EN, "partner"), (_CHILD_EN, "children"), (_CHILD_EN, "childcare"),
                       (r"boss|manager", "manager"), (r"landlord|landlady", "landlord"))
#: the user's attributes that are one of their people, told as "my landlord is …": a statement about them is the user's word
PEOPLE_TOPICS = frozenset(topic for _, topic in _RELATION_TOPICS_EN)
# "my team at Duolingo shipped the new streak thing": the user's people at work, at a named place, name where they work
#: the user's people at work, who name a workplace after them ("my team at Duolingo")
WORKPLACE_PEOPLE = r"boss|manager|team|coworkers?|co-workers?|colleagues?|department|dept"
_AT_WORK = re.compile(rf"(?:{WORKPLACE_PEOPLE})\s+(?:at|@)\s+(?-i:[A-Z])", re.I)
_RELATION_TOPICS_ZH = ((_PARTNER_ZH, "partner"), (_CHILD_ZH, "children"), (_CHILD_ZH, "childcare"),
                       (re.compile(r"老板|领导"), "manager"), (re.compile(r"房东"), "landlord"))
# where one of the user's children is taught: "my son started at Maple Elementary", "儿子9月开始上实验小学一年级啦"; the
# user's child's school is the childcare attribute, the care of a dependant (not the user's own school)
CHILD_SCHOOL = re.compile(r"\b(?:elementary|primary|(?:middle|high|grade|primary) school|kindergarten|pre-?k|preschool"
                          r"|(?:first|second|third|fourth|fifth|sixth|1st|2nd|3rd|[4-6]th) grade"
                          r"|year (?:one|two|three|four|five|six|[1-6]))\b"
                          r"|小学|初中|幼儿园|学校|[一二三四五六]年级|[一二三四五六七八九十\d]小(?![时区孩学朋])", re.I)
CHILD_WORD = re.compile(rf"\b(?:{_CHILD_EN})\b|{_CHILD_ZH.pattern}", re.I)
# one of the user's own children named in a clause of the user's: "我家闺女在育才小学上二年级", "年后闺女转到实验二小了"
USERS_CHILD = re.compile(r"\b(?:my|our) (?:little |eldest |youngest |oldest )?"
                         r"(?:son|daughter|kids?|child|children|boy|girl)\b"
                         r"|(?<![他她])(?:儿子|女儿|闺女|孩子|娃|宝宝)", re.I)
_NAMES_RELATION = re.compile(rf"\b(?:{_RELATION_EN})(?:s|'s|s')?(?!\w)|{_RELATION_ZH}", re.I)
# chat ends a clause with an emoji as often as with a comma: "my roommate cancelled it 😤 we're on YouTube TV now"
_CLAUSE = re.compile(rf"[,;:，；：。.!?！？—–{EMOJI}\ufe0f]+\s*|\s+(?:and|but|so)\s+")
# a slot attribute that is a property of one of the user's people: brother_birthday, best_friend_name, 哥哥的生日
_KIN_MODIFIER_ATTRIBUTE = _KIN_MODIFIER_EN.replace(r"\s+", "_")
_RELATIONS_PROPERTY = re.compile(rf"^{_KIN_MODIFIER_ATTRIBUTE}(?:{_RELATION_EN})s?_\w"
                                 rf"|^(?:{_RELATION_ZH})的?(?!{_RELATION_ZH})\w", re.I)
_NAMED = re.compile(r"\s+[A-Z][a-z]+\b")
# who one of the user's people is: "my landlord is a guy called derek hughes", "my manager is Priya"
_IS_CALLED = re.compile(r"\s+(?:is|'s)\s+(?:(?:a|an|this|some)\s+(?:\w+\s+)?(?:guy|man|woman|lady|bloke|girl|couple|chap"
                        r"|dude|fella|family|company|firm)\s+)?(?:called|named)\s+\w|\s+(?:is|'s)\s+(?-i:[A-Z][a-z]+)\b", re.I)
_IS_CALLED_ZH = re.compile(r"是个|叫|姓")  # "我房东是个上海阿姨，姓陈"
_SAYS_OF_USER = re.compile(r"\b(?:said|says|told me|tells me|thinks|reckons|reckoned|mentioned)\s+(?:that\s+)?"
                           r"(?:i|i'm|i've|i'll|i'd|we|we're)\b|(?:说|觉得|告诉我)我", re.I)
_MINE = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|im|ive|me|my|mine|we|we're|we've|us|our)\b|我", re.I)
_OF_THEM = re.compile(r"\b(?:she|he|her|him|his|hers|they|them|their)\b", re.I)
_USER_SUBJECT = re.compile(r"^(?:(?:so|and|but|then|now|also|because|since)\s+)*"
                           r"(?:i|i'm|i've|i'd|i'll|im|ive|we|we're|we've|we'd|we'll)\b"
                           rf"|^我们|^我(?!的?(?:{_RELATION_ZH}))", re.I)

# a clause that names what the user has now, whoever arranged it: "(my sister added me to her family thing) so Visible is
# my carrier now"
_USERS_OWN_NOW = re.compile(r"\b(?:is|'s) (?:now )?my (?:new )?(?:phone |mobile )?(?:carrier|network|provider|bank|gym"
                            r"|dentist|doctor|gp|landlord|landlady|insurer|supplier|broadband)(?: now)?\b", re.I)
# the first character of one of the user's people after 我 (我妈, 我姨, 我老公, 我同事): someone else, not the user
_USERS_PEOPLE_ZH = "爸妈哥姐弟妹舅姨姑叔婶爷奶姥外老儿女孩闺朋同室邻家"
# what someone got the user, in any clause: "我妈…圣诞直接给我换了台mate60", "老公…送了我礼物 一台海氏的", "my bf surprised me w/ a
# UV-10"
_GOT_THE_USER = re.compile(r"给我(?:换|买|配|装|办|订|报)了|送了我(?![" + _USERS_PEOPLE_ZH + r"们])"
                           r"|\b(?:got|bought|surprised|gifted) me (?:w/ |with )?(?:a|an|the|my)\b", re.I)
# someone who took the user along (and it was done), signed them up, took them into something of theirs or talked them
# into it, in any clause: the user's own too ("朋友拉我去了鼓楼那边一个livehouse的麦", "我妈…拉着我一块携号转网去广电了", "mom added
# me to her family plan on Visible", "我妈把我拉进她的联通亲情号了", "连我的号也一起转了", "my brother finally talked me into voxi");
# not an invitation ("闺蜜…天天拉我去 我还在犹豫"), one of the user's people taken along ("拉着我舅喝") or a favour once ("she
# roped me into carrying drywall one time")
_TOOK_THE_USER_ALONG = re.compile(r"(?:拉着?|带着?|(?:叫|喊)上)我(?![" + _USERS_PEOPLE_ZH + r"表堂])"
                                  r"[^，。,！？\s]{0,10}?了"
                                  r"|把我(?:也)?(?:拉|带|加|转|拖|拽|接)(?:进|到|去|上|入|过)"
                                  r"|连我(?:的[\u4e00-\u9fffA-Za-z]{1,3})?也"
                                  r"|\b(?:added|signed) me (?:up )?(?:to|onto|on|for)\b"
                                  r"|\b(?:talked|convinced|persuaded) me (?:into|to)\b", re.I)


def includes_the_user(text: str) -> bool:
    """Whether someone else's doing in a message took the user along or talked them into it: "mom added me to her
    family plan on Visible", "my brother finally talked me into voxi", "我妈把全家都转到联通了，连我的号也一起转了". What it
    changed is the user's as well (not what someone gave them: "同事送了我一包他家乡的特产" is the colleague's home)."""
    return _TOOK_THE_USER_ALONG.search(text) is not None


def says_of_user(clause: str) -> bool:
    """Whether a clause reports what someone says of the user: "dr said we're bumping it up to 100mg"."""
    return bool(_SAYS_OF_USER.search(clause))


def someone_elses(clause: str) -> set[str] | None:
    """None for a clause about the user; else the user's topics it may still speak of, through the relation that
    is its subject ({"partner"} for "My boyfriend Marco keeps stealing the duvet", none for "My sister's on keto").
    "My wife and I moved to Leeds" is the user's own."""
    stripped = clause.strip()
    if _ON_BEHALF.search(stripped):  # "asking for my mum who still lives up there": her home, not the user's
        return set()
    m = _OTHER_SUBJECT_EN.match(stripped)
    if m:
        if m.group("known"):  # no relation of the user's: "the kid i tutor" is no child of theirs
            return set()
        who = (m.group("who") or m.group("whose") or m.group("bare") or m.group("named")
               or m.group("dropped")).lower()
        at_work = {"employer"} if _AT_WORK.match(stripped, m.start(m.lastgroup)) else set()
        return {topic for relation, topic in _RELATION_TOPICS_EN if re.fullmatch(relation, who)} | at_work
    m = _OTHER_SUBJECT_ZH.match(stripped)
    if m:
        if m.group("of"):  # "我闺蜜的爱人": a friend's partner, not the user's
            return set()
        who = m.group("who")
        return {topic for relation, topic in _RELATION_TOPICS_ZH if relation.search(who)}
    return None


_REMINDER_LEAD = re.compile(r"^(?:(?:i\s+)?(?:need|have|got)\s+to\s+remember|remember|reminder(?:\s+to\s+(?:self|me))?|"
                            r"note\s+to\s+(?:self|me)|don'?t\s+(?:let\s+me\s+)?forget)(?:\s+that)?\s*[:,-]?\s+", re.I)


# the user only feeling something about it, at the end: "my grandson wants a motorbike for his 17th … I'm torn"
_REACTION_END = re.compile(r"[,.;:!—–-]+\s*(?:i'm|im|i am|i feel|feeling)\s+(?:(?:so|really|a bit|a little|kinda|kind of"
                           r"|very|pretty|honestly|quite|bit|super|low ?key)\s+)*(?:torn|sceptical|skeptical|jealous|envious"
                           r"|worried|nervous|proud|gutted|thrilled|shocked|confused|impressed|stressed|conflicted|unsure"
                           r"|not sure|not convinced|devastated|heartbroken|scared|terrified|anxious|relieved|amazed"
                           r"|speechless|happy for \w+)\s*[.!…]*(?:\s*[^\w\s]+)?\s*$", re.I)


def about_someone_else(text: str) -> bool:
    """A message about someone else, in which the user is the subject of no clause: one that begins with someone
    else as its subject, once any questions before it are passed ("My daughter is allergic to cats — do
    hypoallergenic breeds help?", "how long are GP waits? my mum waited 3 weeks", "我妈最近老咳嗽，应该挂哪个科？"),
    or one asked on someone's behalf ("flying long-haul with a toddler, any tips? asking for my sister")."""
    text = _REMINDER_LEAD.sub("", text.strip(), count=1)  # "need to remember my mom's bday is june 12"
    text = _REACTION_END.sub("", text)
    clauses = [c.strip() for c in _CLAUSE.split(text) if c.strip()]
    if (any(_USER_SUBJECT.match(c) or _USERS_OWN_NOW.search(c) for c in clauses[1:]) or _GOT_THE_USER.search(text)
            or includes_the_user(text)):
        return False
    if _ON_BEHALF.search(text):
        return True
    told = [s.strip() for s in _SENTENCE.findall(text) if s.strip() and not s.rstrip().endswith(("?", "？"))]
    first = _CLAUSE.split(told[0])[0].strip() if told and clauses and not _subject_of_others(clauses[0]) else None
    return _someone_elses_word(first or (clauses[0] if clauses else ""))


def speaks_only_of_them(text: str) -> bool:
    """A message that begins with someone else as its subject, whose clauses with the user in them speak of that
    someone by a pronoun: "my friend has three kids under 5, i genuinely don't know how she does it". Whether those
    clauses tell news of the user's own ("My brother got a job at Arup, so I moved into his old flat") is for the
    statement rules to say."""
    clauses = [c.strip() for c in _CLAUSE.split(text.strip()) if c.strip()]
    mine = [c for c in clauses[1:] if _MINE.search(c)]
    return (bool(mine) and someone_elses(clauses[0]) == set()
            and all(_USER_SUBJECT.match(c) and _OF_THEM.search(c) for c in mine))


def _subject_of_others(clause: str) -> re.Match | None:
    return _OTHER_SUBJECT_EN.match(clause) or _OTHER_SUBJECT_ZH.match(clause)


def _someone_elses_word(clause: str) -> bool:
    subject = _subject_of_others(clause)
    if subject is None:
        return False
    if (_NAMED.match(clause, subject.end()) or _IS_CALLED.match(clause, subject.end())
            or _IS_CALLED_ZH.match(clause, subject.end())) and someone_elses(clause):
        return False  # the user's partner, child or landlord introduced by name ("My husband Kenji says hi"): the user's own
    return not _SAYS_OF_USER.search(clause)  # "My boss said I'm getting promoted": what they say is of the user


def names_someone(question: str) -> bool:
    """A question that names one of the user's people ("what did I get my sister", "how many cousins' weddings",
    "我妈喜欢什么")."""
    return bool(_NAMES_RELATION.search(question))


_FAMILY_ZH = (r"爸爸?|妈妈?|父母|爷爷|奶奶|外公|外婆|姥姥|姥爷|哥哥?|姐姐?|弟弟?|妹妹?|表[哥姐弟妹]|堂[哥姐弟妹]|舅舅|姑姑|舅妈"
              r"|婶婶|侄子|侄女|外甥女?|兄弟|姐妹")
# the kin a question may name, each with the words for the same one: "my kids" answers "what are my children called?"
_KIN_CLASSES_EN = (_PARTNER_EN, _CHILD_EN, _FAMILY_EN)
_KIN_CLASSES_ZH = (_PARTNER_ZH.pattern, _CHILD_ZH.pattern, _FAMILY_ZH)
# one of the user's people as a question names them: "my wife", "do I have any kids", 我女儿, 我有兄弟姐妹吗, "儿子之前那个
# 家教" (the 我 dropped), not "when am I going to become a mom"
_USERS_RELATION = re.compile(rf"\b(?:my|our|any)\s+{_KIN_MODIFIER_EN}(?P<en>(?:{_RELATION_EN})(?:s|'s|s')?)(?!\w)"
                             rf"|(?:我|我家|我的|我有|我家有|^|(?<=[，,\s]))(?:家里?)?(?:小|大|二)?(?P<zh>兄弟|姐妹|{_RELATION_ZH})")


def users_kin_named(question: str) -> re.Pattern[str] | None:
    """The words by which a message names the same one of the user's family as the question: "my wife" (or "my
    partner") for "what's my wife called?", "my kids" for "what are my children called?", 我闺女 for "我女儿叫什么";
    None when the question names none of the user's family (a friend, a colleague, a landlord)."""
    english, chinese = [], []
    for m in _USERS_RELATION.finditer(question):
        word = re.sub(r"(?:'s|s')$", "", (m.group("en") or "").lower())
        english += [kin for kin in _KIN_CLASSES_EN if word and re.fullmatch(rf"(?:{kin})s?", word)]
        chinese += [kin for kin in _KIN_CLASSES_ZH if m.group("zh") and re.fullmatch(kin, m.group("zh"))]
    if not english and not chinese:
        return None
    # the user's own, "the kids" too; a fact read from a message names them as the user's ("User's brother's birthday
    # is june 3", 用户的哥哥); Chinese drops the 我 at the start of a clause ("孩子的班主任是刘老师")
    alternatives = [rf"\b(?:my|our|the|user's)\s+{_KIN_MODIFIER_EN}(?:{kin})(?:s|'s|s')?\b" for kin in english]
    alternatives += [rf"(?:(?:我|用户)(?:的|家)?|(?:^|(?<=[，,。！？!?\s]))(?:家里?)?)(?:{kin})" for kin in chinese]
    return re.compile("|".join(alternatives), re.I)


# what a question asks of the one of the user's family it names, right after them: their name
_THEIR_NAME = re.compile(r"(?:-in-law)?(?:'s|s'|'|’s|’)?\s*(?:现在|还)?(?:names?\b|called\b|叫|的名字)", re.I)


def asks_their_name(question: str) -> re.Pattern[str] | None:
    """For a question that asks what one of the user's family is called ("what's my nephew's name?", "what are my kids
    called?", "我儿子叫什么"; not "what's my son's football club called?"), the words by which a message names them
    (`users_kin_named`); None for any other question."""
    kin = users_kin_named(question)
    if kin is None or not any(_THEIR_NAME.match(question, m.end()) for m in kin.finditer(question)):
        return None
    return kin


def introduces_by_name(text: str, kin: re.Pattern[str]) -> bool:
    """Whether a message names one of the user's family (`kin`, as `users_kin_named` gives it) by their name: "finished
    the blanket for my nephew Theo", "my husband is called Kenji", "我儿子叫乐乐"; not "my nephew's birthday is coming up"."""
    return any(_NAMED.match(text, m.end()) and not re.match(r"\s+I\b", text[m.end():])
               or _IS_CALLED.match(text, m.end()) or text.startswith("叫", m.end())
               for m in kin.finditer(text))


def someone_elses_attribute(attribute: str) -> bool:
    """A slot attribute that is a property of someone else ("my brother's birthday is june 3" → brother_birthday,
    "我哥哥的生日" → 哥哥的生日), not the user's own: a relation itself ("partner") is the user's."""
    return bool(_RELATIONS_PROPERTY.match(attribute))


def fact_marks(attribute: str | None, message_marks: list[str]) -> list[str]:
    """The marks of a fact read from a message: about someone else when the message is ("User's daughter is allergic
    to cats") or the fact is a property of someone else ("User's brother's birthday is june 3")."""
    return [OTHERS_MARK] if OTHERS_MARK in message_marks or someone_elses_attribute(attribute or "") else []
