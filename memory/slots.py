"""The slot vocabulary: what Engram knows about the user, one row per attribute.

A slot is a single-valued attribute of the user (`user.employer`); a new value supersedes the old
one. Each row says how a question about the slot is recognised (cue words, checked by recall),
how a stated fact is stored (content templates, used by the memory rules in `extract.facts`) and
which other names mean the same slot (`my company is …` → `employer`). To teach Engram a new
attribute, add a row; the lookup tables below are derived from `SLOTS`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["ALIASES", "ASKS_NOW", "ASKS_PAST", "FALLBACKS", "FIRST_PERSON", "HOLDS_MANY", "NOT_SLOT_PHRASES",
           "PAST_CUES", "PAST_CUES_ZH", "SLOTS", "SLOT_CUES", "SLOT_PHRASES", "TEMPLATES", "UNSLOTTED", "Slot",
           "Template", "asks_about_before", "asks_as_user"]

# A question about the user ("which city do we live in"), and one about before ("what did I use to drink").
FIRST_PERSON = {"i", "me", "my", "mine", "i'm", "i've", "im", "myself", "we", "our", "ours", "we're", "我", "我的", "我们"}
# Chinese drops the subject of a question about the user's own home or child ("家里网是哪个运营商的？", "娃周末上什么课？")
_HOUSEHOLD_ZH = re.compile(r"家里|咱家|咱们|孩子|娃|儿子|女儿|闺女|丫头")
_THIRD_PERSON_ZH = re.compile(r"[他她它]")


def asks_as_user(question: str) -> bool:
    """Whether a question is in the first person, in Chinese has the user's home or child as its dropped subject, or
    asks who looks after one of the user's dependants by name ("what daycare is Noah at?", "who's Biscuit's vet?")."""
    words = set(re.findall(r"[\w']+", question.lower()))
    return (bool(words & FIRST_PERSON) or "我" in question
            or (_HOUSEHOLD_ZH.search(question) is not None and not _THIRD_PERSON_ZH.search(question))
            or _asks_of_a_dependant(question, words))


def _asks_of_a_dependant(question: str, words: set[str]) -> bool:
    return any(words & slot.cues_en or any(cue in question for cue in slot.cues_zh) for slot in _DEPENDANTS_CARE)


PAST_CUES = {"before", "previously", "formerly", "earlier", "originally", "used"}
PAST_CUES_ZH = ("之前", "以前", "原来", "过去", "曾经", "原先", "先前")
# "what was my old dentist called?", "my previous landlord": the one before, whatever the tense
_BEFORE_PHRASE = re.compile(r"\b(?:my|our) (?:old|previous|former)\b", re.I)


# a question that asks how things stand now, in so many words: "what gym do I go to these days?", "我现在住哪"
ASKS_NOW = re.compile(r"\b(?:now|these days|at the moment|currently|right now|rn|still|any ?more|nowadays|lately)\b"
                      r"|现在|目前|这阵子|如今|最近|还在|还有|还是", re.I)
# a question about the past ("what did I drink before …"), not about a habit ("do I stretch before …")
ASKS_PAST = re.compile(r"\b(?:did|was|were|had|used to)\b", re.I)


def asks_about_before(question: str) -> bool:
    """Whether a question asks about what held before ("before", "used to", "my old …", 之前)."""
    words = set(re.findall(r"[\w']+", question.lower()))
    # in a question about now, "before" is when a habit falls ("what do I drink before workouts now?"), not the time
    # before a change
    if ASKS_NOW.search(question) and not ASKS_PAST.search(question):
        words.discard("before")
    return bool(words & PAST_CUES or any(cue in question for cue in PAST_CUES_ZH) or _BEFORE_PHRASE.search(question))


@dataclass(frozen=True)
class Template:
    """The stored content for one kind of statement, in English and Chinese (`{v}` is the value)."""

    en: str
    zh: str
    closes: bool = False  # "no longer …": the slot's value is the whole negated statement

    def text(self, lang: str) -> str:
        """The template in `en`, or in Chinese for any other language."""
        return self.en if lang == "en" else self.zh


@dataclass(frozen=True)
class Slot:
    """One attribute of the user: question cues, statement templates (by rule kind), aliases."""

    name: str
    cues_en: frozenset[str] = frozenset()  # whole words of a question about the slot
    cues_zh: frozenset[str] = frozenset()  # substrings of a question about the slot
    templates: dict[str, Template] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()  # other attribute names (`my X is …`) for the same slot
    cue_phrases: tuple[str, ...] = ()  # lower-case phrases of a question about the slot ("do for a living")
    fallback: str | None = None  # the slot whose statements answer a question about this one when it has none
    holds_many: bool = False  # several values at once (pets, allergies): a new one does not end the others
    # the slots whose thing this one serves (an insurer a car or a home): a question naming both asks for this one
    # ("who insures my car?", "what phone carrier am I with?")
    serves: tuple[str, ...] = ()


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


SLOTS: tuple[Slot, ...] = (
    Slot(
        "name",
        cues_en=_words("name called"),
        cues_zh=_words("名字 叫 叫什么"),
        templates={"name": Template("User's name is {v}.", "用户的名字是{v}。")},
        aliases=("名字",),
    ),
    Slot(
        "drink_preference",
        cues_en=_words("coffee drink drinks drinking tea latte beverage"),
        cues_zh=_words("咖啡 喝 喝什么 饮料 茶 饮品"),
        templates={
            "drink": Template("User drinks {v}.", "用户喝{v}。"),
            "drink_switch": Template("User now drinks {v}.", "用户改喝{v}。"),
            "drink_stop": Template("User no longer drinks {v}.", "用户不再喝{v}。", closes=True),
        },
        aliases=("favourite_drink", "favourite_coffee", "最喜欢的饮料", "最喜欢的咖啡"),
        cue_phrases=("at a bar", "at the bar", "at a pub", "at the pub"),  # "what do I usually order at a bar?"
    ),
    Slot(
        "home_location",
        cues_en=_words("live living home moved based reside residence city town address stay staying flat apartment"),
        cues_zh=_words("住 住在 搬 家在 定居 城市"),
        templates={
            "home": Template("User lives in {v}.", "用户住在{v}。"),
            "home_move": Template("User moved to {v}.", "用户搬到了{v}。"),
            "home_stop": Template("User no longer lives in {v}.", "用户不再住在{v}。", closes=True),
        },
        aliases=("home", "home_town_now", "address", "city", "住址", "地址"),
    ),
    Slot(
        "employer",
        cues_en=_words("work works working job employer employs employ company office firm employed hired"),
        cues_zh=_words("工作 公司 上班 单位 就职 任职 入职 跳槽 东家 供职 哪家公司 教书 学校教书 任教 执教"),
        templates={
            "employer": Template("User works at {v}.", "用户在{v}工作。"),
            "employer_join": Template("User joined {v}.", "用户加入了{v}。"),
            "employer_stop": Template("User no longer works at {v}.", "用户已从{v}离职。", closes=True),
        },
        aliases=("company", "employer_name", "workplace", "公司", "单位"),
    ),
    Slot(
        "occupation",
        cues_en=_words("occupation profession job role career title position"),
        cues_zh=_words("职业 做什么工作 干什么工作 什么工作 职位 岗位 当什么 做什么的 干什么的 干啥的 哪一行 哪行 行业 职务"),
        cue_phrases=("do for a living", "do for work", "what do i do", "work as", "my job", "line of work", "what i do",
                     "earn a living", "make a living", "earn my living", "make my living", "position at work",
                     "role at work", "job title", "title at work"),
        fallback="employer",  # where the user works says what they do: "before my shift at the fire station"
        templates={
            "occupation": Template("User works as {v}.", "用户的职业是{v}。"),
            "job_does": Template("User's job: {v}.", "用户的工作：{v}。"),
            "occupation_stop": Template("User no longer works as {v}.", "用户不再做{v}。", closes=True),
        },
        aliases=("job", "job_title", "profession", "role", "position", "职业", "工作", "职位"),
    ),
    Slot(
        "diet",
        cues_en=_words("diet vegetarian vegan pescatarian meat eat eating"),
        cues_zh=_words("吃素 素食 饮食 吃肉 吃荤 忌口 饮食习惯 减肥餐 减肥 减脂"),
        templates={
            "diet": Template("User's diet: {v}.", "用户的饮食：{v}。"),
            "diet_stop": Template("User is no longer {v}.", "用户不再{v}。", closes=True),
        },
        aliases=("dietary_preference", "饮食"),
    ),
    Slot(
        "partner",
        cues_en=_words("partner wife husband girlfriend boyfriend spouse fiance fiancee married dating"),
        cues_zh=_words("老婆 老公 妻子 丈夫 女朋友 男朋友 对象 爱人 伴侣 另一半 媳妇 太太 先生 未婚妻 未婚夫 约会"),
        cue_phrases=("seeing anyone", "seeing someone", "seeing somebody", "in a relationship", "still single",
                     "still together"),
        templates={
            "partner": Template("User's partner is {v}.", "用户的伴侣是{v}。"),
            "partner_stop": Template("User is no longer with {v}.", "用户已经和{v}分开了。", closes=True),
        },
        aliases=("wife", "husband", "girlfriend", "boyfriend", "spouse", "fiance", "fiancee", "老婆", "老公",
                 "妻子", "丈夫", "女朋友", "男朋友", "对象", "爱人"),
    ),
    Slot(
        "pet",
        cues_en=_words("pet pets dog dogs cat cats puppy kitten rabbit hamster parrot animal animals"),
        cues_zh=_words("宠物 狗 猫 小狗 小猫 兔子 鹦鹉 动物 养了什么 养的 毛孩子"),
        templates={
            "pet": Template("User has a pet: {v}.", "用户养了{v}。"),
            "pet_stop": Template("User no longer has {v}.", "用户不再养{v}了。", closes=True),
        },
        aliases=("dog", "cat", "dog_name", "cat_name", "pet_name", "狗", "猫", "宠物"),
        holds_many=True,
    ),
    Slot(
        "school",
        cues_en=_words("study studying school university college uni student enrolled degree course"),
        cues_zh=_words("读书 上学 学校 大学 学院 念书 读研 读博 专业 在哪里学 在哪学 在哪儿学 哪里上课"),
        templates={
            "school": Template("User studies at {v}.", "用户在{v}读书。"),
            "school_stop": Template("User no longer studies at {v}.", "用户不再在{v}读书。", closes=True),
        },
        aliases=("university", "college", "学校", "大学"),
        cue_phrases=("major in", "majoring in", "majored in", "my major"),
    ),
    Slot(
        "car",
        cues_en=_words("car drive drives driving vehicle"),
        cues_zh=_words("车 开什么车 汽车 座驾 爱车"),
        templates={
            "car": Template("User drives {v}.", "用户开{v}。"),
            "car_stop": Template("User no longer drives {v}.", "用户不再开{v}了。", closes=True),
        },
        aliases=("vehicle", "ride", "daily driver", "车", "汽车", "座驾", "爱车"),
    ),
    Slot(
        "hobby",
        cues_en=_words("hobby hobbies pastime free sport sports"),
        cues_zh=_words("爱好 兴趣 业余 闲下来 空闲 有空的时候 消遣 休闲 什么运动 哪种运动 哪项运动 哪些运动"),
        cue_phrases=("spare time", "free time", "for fun", "on saturdays", "on sundays", "at weekends", "on weekends",
                     "at the weekend", "on the weekend"),
        templates={
            "hobby": Template("User's hobby is {v}.", "用户的爱好是{v}。"),
            "hobby_stop": Template("User gave up {v}.", "用户不再{v}了。", closes=True),
        },
        aliases=("hobbies", "pastime", "爱好", "兴趣爱好"),
        holds_many=True,
    ),
    Slot(
        "instrument",
        cues_en=_words("instrument instruments play playing"),
        cues_zh=_words("乐器 弹 拉 学什么乐器 学琴 练琴 钢琴课 琴课"),
        cue_phrases=("in a band", "my band", "band am i", "band i'm in", "band i am in", "band i play"),
        templates={
            "instrument": Template("User plays {v}.", "用户在学{v}。"),
            "instrument_stop": Template("User gave up {v}.", "用户不再学{v}了。", closes=True),
        },
        holds_many=True,
    ),
    Slot(
        "commute",
        cues_en=_words("commute commuting"),
        cues_zh=_words("通勤 怎么上班 怎么去上班 上班怎么 怎么去公司 怎么去单位 怎么上下班"),
        templates={
            "commute": Template("User gets to work: {v}.", "用户的通勤方式：{v}。"),
            "commute_stop": Template("User no longer gets to work: {v}.", "用户不再这样通勤：{v}。", closes=True),
        },
        cue_phrases=("get to work", "getting to work", "get into work", "getting into work", "travel to work",
                     "drive to work", "cycle to work", "walk to work", "ride to work",
                     "to the office", "get to my job", "getting to my job", "commute to my job"),
    ),
    Slot(
        "phone_model",
        cues_zh=_words("什么手机 哪款手机 手机是"),
        cue_phrases=("which phone", "what phone", "phone do i", "my phone now", "kind of phone", "smartphone"),
        templates={
            "phone_model": Template("User's phone is {v}.", "用户的手机是{v}。"),
            "phone_model_stop": Template("User no longer uses {v}.", "用户不再用{v}了。", closes=True),
        },
        aliases=("phone_model_name", "mobile_phone", "smartphone"),
    ),
    Slot(
        "smoking",
        cues_en=_words("smoke smokes smoker smoking cigarette cigarettes cigs vape vaping nicotine"),
        cues_zh=_words("抽烟 吸烟 烟瘾 戒烟 电子烟 香烟 烟民 烟鬼"),
    ),
    # Known by the user's statements alone (no value read from them): the latest statement answers
    Slot(
        "gym",
        cues_en=_words("gym gyms"),
        cues_zh=_words("健身房 健身卡 私教 锻炼 健身 撸铁"),
        cue_phrases=("personal trainer", "fitness club", "leisure centre", "leisure center", "work out at", "train at",
                     "bouldering hall", "bouldering gym", "climbing gym", "climbing wall", "do i climb", "do i boulder",
                     "do i work out", "do i train"),
    ),
    Slot(
        "insurer",
        cues_en=_words("insurer insurers insurance insure insures insured"),
        cues_zh=_words("保险 车险 医疗险 重疾险 意外险 寿险 保单"),
        cue_phrases=("covered by", "covers our", "covers my"),
        serves=("car", "home_location", "pet"),
    ),
    Slot(
        "barber",
        cues_en=_words("barber barbers barbershop barbershops hairdresser hairdressers haircut haircuts hairstylist salon"),
        cues_zh=_words("理发 剪头 剪头发 发型师 理发店 托尼老师 Tony老师 tony老师"),
        cue_phrases=("cuts my hair", "cut my hair", "does my hair", "do my hair", "cutting my hair"),
    ),
    Slot(
        "eyewear",  # how the user sees well, and where they get it: "do i still wear glasses?", "我现在一般在哪配眼镜"
        # not "specs" (a laptop's), "contacts" (a phone's) or 框架 (a framework) on their own
        cues_en=_words("glasses spectacles lasik optician opticians optometrist eyewear varifocals bifocals"),
        cues_zh=_words("眼镜 戴隐形 戴的隐形 框架眼镜 近视手术 激光手术 飞秒 验光 美瞳 角膜塑形 OK镜"),
        cue_phrases=("contact lenses", "contact lens", "eye test", "laser eye",
                     *(f"{verb} {thing}" for verb in ("wear", "wearing", "in") for thing in ("contacts", "specs")),
                     *(f"{thing} {asked}" for thing in ("contacts", "specs") for asked in ("am i", "do i"))),
    ),
    Slot(
        "heating",  # what heats the user's home: "do we still have a gas boiler?", "家里现在用的是地暖吗"
        cues_en=_words("boiler heating radiators"),
        cues_zh=_words("暖气 地暖 锅炉 壁挂炉 供暖 采暖"),
        cue_phrases=("heat pump", "heat our", "heat my", "heat the house"),
    ),
    Slot(
        "childcare",  # who looks after the user's child: "who's looking after my daughter during the week now?"
        cues_en=_words("childcare nursery daycare childminder nanny babysitter preschool creche kindergarten"),
        cues_zh=_words("托班 托儿所 托育 幼儿园 保姆 育儿嫂 带娃 看孩子 带孩子 托管 晚托 哪个园 什么园 转园"),
        cue_phrases=tuple(f"{verb} {whose} {child}" for verb in ("looking after", "looks after", "look after", "minds",
                                                                   "minding", "watches", "watching")
                          for whose in ("my", "our", "the") for child in ("kids", "kid", "children", "son", "daughter",
                                                                            "baby", "toddler", "little one")),
        serves=("children",),
    ),
    Slot(
        "investment",  # what the user holds: "我现在手里还有没有基金？", "am I still in that index fund?"
        cues_en=_words("fund funds stocks investments invested investing portfolio etf etfs isa"),
        cues_zh=_words("基金 股票 理财 定投 持仓 仓位 ETF 投资"),
    ),
    Slot(
        "landlord",  # who the user rents from: "who owns the flat I rent?"
        cues_en=_words("landlord landlady"),
        cues_zh=_words("房东 房主 二房东 房租交给 房租给 房租是交给 房租打给 交房租给 房子是谁的 跟谁租 租谁的"),
        cue_phrases=("i rent", "we rent", "rent from", "renting from", "letting agent", "pay rent to", "pay my rent",
                     "do i rent", "apartment from", "flat from"),
        serves=("home_location",),
    ),
    Slot(
        "blood_type",  # "if I ever needed a transfusion, what type should they give me?"
        cues_en=_words("transfusion transfusions"),
        cues_zh=_words("血型 输血 熊猫血"),
        cue_phrases=("blood type", "blood group"),
    ),
    Slot(
        "therapist",  # who the user sees for their mind: "who's my counsellor now?", "我现在的心理咨询师是谁？"
        cues_en=_words("therapist therapists counsellor counsellors counselor counselors psychologist psychiatrist"),
        cues_zh=_words("心理咨询师 咨询师 心理医生 心理咨询"),
        cue_phrases=("mental health",),
    ),
    Slot(
        "vet",  # who looks after the user's animals: "who's Biscuit's vet these days?"
        cues_en=_words("vet vets veterinarian veterinary"),
        cues_zh=_words("兽医 宠物医院"),
        serves=("pet",),
    ),
    Slot(
        "volunteering",  # where the user gives time: "where do I volunteer these days?"
        cues_en=_words("volunteer volunteering volunteers"),
        cues_zh=_words("志愿者 做志愿 义工"),
    ),
    Slot(
        "broadband",  # who brings the internet into the home: "我之前用的是哪家的宽带？", "who's our internet with?"
        cues_en=_words("broadband isp"),  # not "wifi": "what's the wifi password?" asks for no provider
        cues_zh=_words("宽带 光纤"),
        cue_phrases=("internet provider", "internet with", "internet company", "home internet", "fibre provider",
                     "fiber provider"),
        serves=("home_location",),
    ),
    Slot(
        "coworking",  # where the user rents a desk: "where do I cowork out of now?"
        cues_en=_words("cowork coworking co-working"),
        cues_zh=_words("联合办公 共享办公"),
        cue_phrases=("hot desk", "shared office", "rent a desk", "shared workspace", "shared work space"),
    ),
    Slot(
        "dentist",
        cues_en=_words("dentist dentists dental teeth tooth orthodontist"),
        cues_zh=_words("牙医 牙科 洗牙 看牙 牙齿"),
    ),
    Slot(
        "streaming",
        cues_en=_words("stream streaming streamer netflix hulu crunchyroll"),
        cues_zh=_words("视频会员 视频网站 追剧 爱奇艺 腾讯视频 优酷 芒果TV"),
        cue_phrases=("disney+", "disney plus", "prime video", "apple tv", "tv subscription", "watch shows on"),
    ),
    Slot(
        "bank",
        cues_en=_words("bank banks banking"),
        cues_zh=_words("银行 工资卡 开户"),
        cue_phrases=("current account", "checking account"),
    ),
    Slot(
        "language",
        cues_en=_words("language languages tutor tutors spanish french german italian portuguese japanese korean"
                       " mandarin chinese cantonese arabic russian dutch greek polish hindi turkish swedish welsh"),
        cues_zh=_words("语言 外语 学什么语"),
    ),
    Slot(
        "mobile_network",
        cues_en=_words("network carrier"),
        cues_zh=_words("运营商 手机套餐"),
        cue_phrases=("phone plan", "mobile plan", "phone contract", "mobile contract", "mobile provider", "phone provider",
                     "sim only", "sim-only"),
        serves=("phone_model",),
    ),
    Slot(
        "team",  # at work: "which team am I on at work"; not "what team do I support"
        cues_zh=_words("哪个组 哪个团队 哪个部门 什么部门 什么组 哪个科室 什么科室"),
        cue_phrases=("team at work", "team am i on", "team i'm on", "team i am on", "team do i work", "team i work",
                     "which department", "what department"),
    ),
    Slot(
        "manager",  # who the user reports to at work: "who's my boss now", "我现在归谁管"
        cues_en=_words("boss supervisor"),
        cues_zh=_words("领导 上司 老板 主管 直属 归谁管 向谁汇报"),
        cue_phrases=("my manager", "line manager", "report to", "reporting to", "team lead"),
    ),
    Slot(
        "medication",
        cues_en=_words("medication medications meds pills prescription prescriptions prescribed"),
        cues_zh=_words("吃什么药 吃的药 用药 服药"),
        cue_phrases=("medicine am i on", "medicine do i take", "medicines am i on", "medicines do i take"),
        holds_many=True,
    ),
    Slot(
        "allergy",
        cues_en=_words("allergy allergies allergic intolerance intolerances intolerant"),
        cues_zh=_words("过敏 过敏源 忌口 不耐受 碰不得 什么药不能 哪些药不能 药不能用 不能用什么药"),
        cue_phrases=("food allergies", "can't eat", "cannot eat", "shouldn't eat", "have to avoid", "不能吃",
                     # a medicine to keep from the user: "are there any meds i'm supposed to stay away from?", "is there a
                     # drug doctors should never give me?"
                     "stay away from", "never give me", "not to give me", "shouldn't be given", "should not be given",
                     "can't take", "cannot take", "shouldn't take", "should not take",
                     # "which drug do I react badly to?"
                     "react badly", "reacts badly", "bad reaction", "reaction to"),
        holds_many=True,
        serves=("medication",),  # "which medication am i allergic to?" asks what the user must not take, not takes
    ),
    Slot(
        "children",
        cues_zh=_words("孩子 儿子 女儿 小孩 娃"),
        # phrases, not words: "the one I set up for my friend's kid" asks nothing about the user's children
        cue_phrases=("my kids", "my kid", "my children", "my child", "my son", "my daughter", "kids do i have",
                     "children do i have", "any kids", "any children", "kids do we have", "children do we have"),
        holds_many=True,
    ),
    Slot("answer_style", cues_en=_words("answer answers style reply"), cues_zh=_words("回答")),
    Slot("email", aliases=("email_address", "e_mail", "邮箱", "电子邮箱")),
    Slot("phone", aliases=("phone_number", "mobile_number", "cell_number", "电话", "手机", "手机号", "电话号码",
                           "手机号码")),
    Slot("birthday", aliases=("date_of_birth", "birth_date", "生日", "出生日期")),
    Slot("hometown", cues_en=_words("hometown"), cues_zh=_words("老家 家乡"), cue_phrases=("home town", "grow up",
                                                                                          "grew up", "originally from"),
         aliases=("home_town", "老家", "家乡")),
    Slot("favourite_colour", aliases=("最喜欢的颜色",)),
    Slot("favourite_food", aliases=("最喜欢的食物",)),
    Slot("favourite_fruit", aliases=("最喜欢的水果",)),
    Slot("favourite_movie", aliases=("最喜欢的电影",)),
    Slot("favourite_book", aliases=("最喜欢的书",)),
    Slot("favourite_sport", aliases=("最喜欢的运动",)),
    Slot("favourite_music", aliases=("最喜欢的音乐",)),
)

# Statements the rules store without filling a slot ("I don't drink X" says nothing about what I drink).
UNSLOTTED: dict[str, Template] = {
    "drink_not": Template("User does not drink {v}.", "用户不喝{v}。"),
    "switch": Template("User switched to {v}.", "用户换成了{v}。"),
}


def _unique_keys(pairs: list[tuple[str, object]], what: str) -> dict:
    """A dict from pairs, refusing a key that two rows claim."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"{what} {key!r} appears twice in the slot table")
        out[key] = value
    return out


# who looks after the user's dependants: a question about it by the dependant's name is the user's
_DEPENDANTS_CARE = tuple(s for s in SLOTS if s.name in ("childcare", "vet"))
# slot → question cues; a slot without cues is recognised by the parts of its name (recall)
SLOT_CUES: dict[str, set[str]] = {s.name: set(s.cues_en | s.cues_zh) for s in SLOTS if s.cues_en or s.cues_zh}
# question phrases that claim their words for no slot: "what have I worked on", "how often do I work out"
NOT_SLOT_PHRASES = re.compile(r"\bwork(?:s|ed|ing)? (?:on|out)\b"
                              # the partner's own things ("what's my wife's shop called?", "when does my husband's
                              # mother get here?") are not who the partner is; their name is
                              r"|\b(?:wife|husband|partner|girlfriend|boyfriend|spouse|fianc[eé]e?)'s (?!(?:full )?name\b)")
# slot → question phrases; a phrase found in a question claims its words ("for a living" is no home)
SLOT_PHRASES: dict[str, tuple[str, ...]] = {s.name: s.cue_phrases for s in SLOTS if s.cue_phrases}
# slot → the slot that answers for it when nothing was said about it
FALLBACKS: dict[str, str] = {s.name: s.fallback for s in SLOTS if s.fallback}
HOLDS_MANY: frozenset[str] = frozenset(s.name for s in SLOTS if s.holds_many)
# slot → the slots it serves (`Slot.serves`)
SERVES: dict[str, tuple[str, ...]] = {s.name: s.serves for s in SLOTS if s.serves}
# rule kind → (slot, or None for an unslotted statement; template)
TEMPLATES: dict[str, tuple[str | None, Template]] = _unique_keys(
    [(kind, (s.name, t)) for s in SLOTS for kind, t in s.templates.items()]
    + [(kind, (None, t)) for kind, t in UNSLOTTED.items()],
    "statement kind",
)
# attribute name (`my X is …`) → slot
ALIASES: dict[str, str] = _unique_keys([(alias, s.name) for s in SLOTS for alias in s.aliases], "alias")
