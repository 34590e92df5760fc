"""What kind of value a phrase is: the nouns that fill each attribute class, and the spans of a switch.

A change need not name its attribute: "Ditched the piano for the drums", "Replaced the Pixel with a
Galaxy", "换了一部华为Mate 60", "新买了一辆理想L7". The values say it: drums are an instrument, a Galaxy is
a phone, 辆 counts cars. `value_class(text)` names the class a value phrase belongs to; `switch(clause)`
reads the old and the new value of a switch ("swapped X for Y", "went from X to Y", "Y instead of X",
"把X换成Y", "从X换到Y").
"""
from __future__ import annotations

import re

__all__ = ["BANK", "CONTACT_LENSES_ZH", "COWORKING", "DIET", "INSURER", "INSURER_ZH", "LANGUAGE", "MODIFIED_HEADS", "NAMED_VALUES", "NETWORK", "VALUE_NOUNS",
           "VALUE_VERBS", "Switch", "kinds_named", "kinds_that_left",
           "acquired", "held_classes", "now_it_is", "switch", "value_class", "value_classes"]

_B = r"(?<![\w-])"  # a word start that a hyphenated compound does not hide
_E = r"s?(?![\w-])"
# a value noun that only qualifies the noun after it names no value: "the coffee shop", "the car park", "a phone
# case", "dog food", "the bus stop"
MODIFIED_HEADS = (r"shop|store|house|bar|café|cafe|place|chain|break|machine|maker|table|shift|stall|stand|van|truck"
                  r"|cart|counter|meeting|queue|room|party|towel|list|garden|festival|bottle|bill|mug|cup|park|wash"
                  r"|insurance|stop|station|lane|route|ticket|walker|sitter|food|bowl|lead|crate|case|charger|number"
                  r"|company|firm|dealership|garage|repair|show|fair|magazine|advert|ad")
_NOT_MODIFIER = rf"(?!\s+(?:{MODIFIED_HEADS})s?\b)"

# Values that name their class wherever they are said ("30 days of spanish on duolingo", "verizon bill was $92"): a
# language, a mobile network, a diet; in a statement on the commute, a mode of travel.
LANGUAGE = (r"(?:spanish|french|german|italian|portuguese|japanese|korean|mandarin|chinese|cantonese|arabic|russian"
            r"|hindi|turkish|dutch|swedish|norwegian|danish|finnish|greek|polish|hebrew|vietnamese|thai|indonesian|welsh"
            r"|irish|gaelic|latin|esperanto|urdu|bengali|punjabi|tamil|swahili|tagalog|sign language|bsl|asl)")
NETWORK = (r"giffgaff|(?-i:EE)|(?<=on |to )ee|(?<=with )ee|o2|vodafone|(?-i:Three)|lebara|lycamobile|tesco mobile|sky mobile|smarty|voxi|id mobile"
           r"|verizon|at&t|t-mobile|mint mobile|cricket wireless|jio|airtel|telstra|optus"
           r"|visible(?= by verizon)|visible wireless"
           r"|google fi|boost mobile|straight talk|us mobile"
           # more of the carriers people name: "on cricket rn" (not the game: only after on or with)
           r"|(?<=on |to )mint|(?<=with )(?:cricket|mint)|(?<=on )cricket|metro ?pcs|metro by t-mobile|tracfone"
           r"|consumer cellular|xfinity mobile|spectrum mobile|red pocket|total wireless|tello|ultra mobile|bt mobile"
           r"|virgin mobile|asda mobile|talkmobile|1p mobile|honest mobile|spusu")
DIET = (r"(?:vegetarian|veggie|vegan|pescatarian|flexitarian|carnivore|keto|paleo|gluten[- ]free|dairy[- ]free"
        r"|plant[- ]based)")
# the way to work by its verb ("driving to work on the 405", "biking to work"); its nouns are the commute's value nouns
STREAMING_SERVICE = (r"netflix|hulu|disney\s?(?:\+|plus)|hbo max|prime video|amazon prime|apple tv\+?"
                     r"|paramount\s?(?:\+|plus)|peacock|crunchyroll|britbox|now tv|youtube (?:premium|tv)|sling tv|fubo(?:tv)?")
# a bank by name, in any case: "been with lloyds since uni", "moved everything over to monzo"
BANK = (r"lloyds|barclays|hsbc|natwest|santander|monzo|starling|revolut|nationwide|halifax|tsb|first direct|metro bank"
        r"|virgin money|co-?op bank|chase bank|wells fargo|bank of america|citibank|capital one|ally bank|td bank"
        r"|scotiabank|commbank|commonwealth bank|westpac|n26|bunq|schwab|usaa|ocbc")
# an insurer by name, in any case: "renewed car insurance w geico again", "got a quote from progressive"
INSURER = (r"geico|progressive|state farm|allstate|liberty mutual|farmers insurance|esurance|lemonade|root insurance"
           r"|aviva|direct line|admiral|churchill|hastings direct|esure|axa|allianz|zurich|aig|bupa|swinton|aetna|cigna"
           r"|kaiser|blue cross|metlife")
# and in Chinese: "转到人保" is no new employer (not 平安 alone, which is also a bank and a wish)
INSURER_ZH = r"人保|中国人保|平安(?:保险|车险)|太平洋(?:保险|车险)|太保|国寿|中国人寿|泰康|友邦|众安|大地保险|阳光保险|华安保险"
# a barber's shop named in lower case: "barbería don chuy", "marcus's shop", "sharp edge barbers"
BARBER_SHOP = (r"barber[ií]a [a-z]+|[a-z]+'s (?:shop|barbers?|salon)|[a-z]+ (?:barbers|barbershop|salon|fades|clippers)"
               r"|(?:fade|clipper|blade)s? (?:factory|house|lab|co|bar|room|club|studio|kings?|masters?)")
# who looks after a child, named: "little acorns nursery", "a childminder", "her grandma's"
CHILDCARE = (r"(?:[a-z']+ ){1,2}(?:nursery|daycare|day care|pre-?school|kindergarten|montessori|creche)|nanny|childminder"
             r"|au pair|(?:grandma|grandpa|nana|nan|granny|gran|grandparents)'s")
COMMUTE_MODE = (r"driv(?:e|es|ing)|drove|(?:e-?)?bik(?:es|ing)|car ?pooling|(?:in|by) (?:my |the )?car"
                r"|(?:on|off|via|take) the (?:[mai]-?|us-?)?\d{1,3}|motorway|freeway|highway|interstate")
# coworking spaces by name, in any case: "been working out of the wework on 5th"
COWORKING = r"wework|regus|industrious|convene|knotel|mindspace|huckletree|the office group"
NAMED_VALUES = {name: re.compile(rf"\b(?:{words})(?!\w)", re.I)  # (?!\w): a name may end in "+" ("disney+")
                for name, words in (("language", LANGUAGE), ("mobile_network", NETWORK), ("diet", DIET),
                                    ("commute", COMMUTE_MODE), ("streaming", STREAMING_SERVICE),
                                    ("barber", BARBER_SHOP), ("bank", BANK), ("insurer", INSURER),
                                    ("childcare", CHILDCARE), ("coworking", COWORKING))}

# contact lenses, not what is unseen: "隐形眼镜", "戴隐形", not "隐形冠军", "隐形成本"
CONTACT_LENSES_ZH = r"隐形(?!冠军|贫困|富豪|成本|消费|收入|的)"

# English nouns (whole words, optional plural s) and Chinese substrings, per attribute class; the order
# is the order of precedence when a phrase names values of two classes ("a tea shop job" is no drink).
#: car models no other thing is called ("my old Corolla"), unlike "focus", "golf" or "leaf"
CAR_MODELS = (r"corolla|camry|prius|civic|outback|rav4|forester|impreza|miata|mustang|wrangler|qashqai|octavia|yaris"
              r"|fiesta|corsa|tacoma|cx-\d+|cr-?v")
VALUE_NOUNS: dict[str, tuple[str, str]] = {
    "school": (
        r"university|uni|college|polytechnic|academy|sixth[- ]form|grammar school|high school|secondary school"
        r"|school of \w+|business school|law school|medical school|conservatoire|institute of technology",
        r"大学|学院|学校|中学|高中|初中|小学|研究生院|夜校|党校|职校|技校|大专"),
    "employer": (
        r"ltd|limited|inc|plc|llc|gmbh|corp|corporation|company|studios?|media|group|bank|labs?|analytics|logistics"
        r"|insurance|press|publishing|foods?|council|agency|partners|consulting|consultancy|holdings|systems"
        r"|technologies|tech|software|solutions|ventures|freight|airlines?|hospital|nhs trust|firm|startup|start-up",
        r"公司|集团|银行|科技|事务所|律所|报社|医院|工作室|研究所|研究院|出版社|电视台|工厂|厂|物流|地产|传媒|网络|资本"),
    "phone_model": (
        r"iphone(?: \w+)?|pixel(?: \d+\w*)?|galaxy(?: \w+)?|samsung|oneplus|xiaomi|huawei|nokia|motorola|moto g"
        r"|fairphone|sony xperia|xperia|android phone|smartphone|flip phone|mobile phone|phone",
        r"手机|苹果1\d|iPhone|华为|小米(?!粥|饭)|OPPO|vivo|荣耀|三星|一加|魅族|Mate ?\d+|Pura ?\d+|nova ?\d+|红米"),
    "car": (
        r"car|hatchback|saloon|estate car|suv|4x4|pickup|pick-up|campervan|minivan|people carrier|convertible|ev"
        r"|electric car|hybrid|toyota|honda|tesla|ford|bmw|audi|volkswagen|vw|kia|hyundai|volvo|mazda|subaru|nissan"
        r"|renault|peugeot|citro[eë]n|fiat|skoda|škoda|mercedes|porsche|jeep|mini cooper|polestar|byd|chevrolet"
        r"|lexus|jaguar|land rover|range rover|suzuki|mitsubishi|dacia|seat|vauxhall|opel|golf|polo|focus|clio|leaf"
        r"|model [3sxy]|jazz|niro|defender|accord|" + CAR_MODELS
        + r"|(?:my|our|an?) (?:19[5-9]\d|20[0-3]\d|'\d\d) (?-i:[A-Z])[\w-]+",  # a model by its year: "my 2012 Miata"
        r"辆|汽车|轿车|越野车|电车|新能源车|比亚迪|特斯拉|理想|蔚来|小鹏|大众|丰田|本田|宝马|奔驰|奥迪|日产|别克|吉利|长安"
        r"|哈弗|五菱|问界|极氪|红旗|卡罗拉|凯美瑞|朗逸|思域|雅阁|速腾|帕萨特|宏光"),
    "commute": (
        r"bus|buses|train|trains|tram|tube|metro|subway|underground|ferry|e-bike|ebike|bike|bicycle|scooter|e-scooter"
        r"|car ?pool|carshare|lift share|on foot|cycle|cycling|overground|shuttle|taxi|cab|uber|lyft|ola"
        # a walk, not the dog's: "just back from walking Biscuit"
        r"|walk(?:ing)?(?! (?:the |my |our |her |his )?(?:dogs?|pup|puppy|(?-i:[A-Z])))"
        r"|rickshaw|auto-?rickshaw|tuk-?tuk",
        r"地铁|公交|公交车|巴士|大巴|自行车|单车|电动车|电瓶车|摩托|步行|走路|骑车|打车|拼车|轮渡|班车|高铁|通勤"),
    "instrument": (
        r"piano|keyboard|guitar|bass guitar|bass|ukulele|violin|viola|cello|double bass|drums?|drum kit|flute|clarinet"
        r"|saxophone|sax|trumpet|trombone|harp|accordion|banjo|mandolin|harmonica|oboe|bassoon|french horn|tuba|recorder"
        r"|bagpipes|tabla|sitar|djembe|cajon|bodhran|fiddle|synth|synthesizer",
        r"钢琴|吉他|小提琴|大提琴|古筝|二胡|架子鼓|长笛|萨克斯|尤克里里|琵琶|笛子|口琴|电子琴|手风琴|竖琴|贝斯"),
    "pet": (
        r"dog|cat|puppy|puppies|kitten|rabbit|bunny|bunnies|hamster|guinea pig|parrot|budgie|budgerigar|bird|goldfish"
        r"|fish|tortoise|turtle|gecko|lizard|bearded dragon|snake|ferret|horse|pony|retriever|terrier|labrador|poodle"
        r"|beagle|spaniel|collie|sheepdog|dachshund|pug|husky|chihuahua|greyhound|whippet|lurcher|tabby|moggy|axolotl"
        r"|chinchilla|rat|mouse|mice|cockatiel|canary|hedgehog|corgi|shiba(?: inu)?|cockapoo|cavapoo|labradoodle|goldendoodle"
        r"|frenchie|french bulldog|schnauzer|shih tzu|staffie|staffy|pomeranian|samoyed|dalmatian|ragdoll|siamese|maine coon"
        r"|sphynx|british shorthair",
        r"猫|狗|兔子|兔|鹦鹉|仓鼠|乌龟|金鱼|柯基|金毛|泰迪|哈士奇|柴犬|布偶|橘猫|英短|蜥蜴|龙猫|刺猬|八哥|拉布拉多|边牧|博美"),
    "drink_preference": (
        r"coffee|tea|green tea|herbal tea|black tea|mint tea|peppermint tea|latte|americano|espresso|cappuccino|mocha"
        r"|macchiato|flat white|cortado|cold brew|decaf|matcha|chai|rooibos|chamomile|hibiscus|earl grey|builder's tea"
        r"|juice|smoothie|soda|cola|coke|diet coke|pepsi|lemonade|kombucha|cocoa|hot chocolate|sparkling water"
        r"|fizzy water|water|oat milk|milk|beer|lager|ale|wine|cider|whisky|whiskey|gin|energy drinks?|caffeine|alcohol|booze",
        r"咖啡|拿铁|美式|浓缩|卡布奇诺|摩卡|冷萃|奶茶|绿茶|红茶|花茶|普洱|乌龙|铁观音|龙井|果汁|可乐|雪碧|啤酒|红酒|白酒"
        r"|牛奶|豆浆|酸奶|白开水|开水|温水|矿泉水|气泡水|苏打水|柠檬水|椰子水|蜂蜜水|茶|饮料"),
    "diet": (
        r"vegetarian|vegan|pescatarian|flexitarian|carnivore|keto|paleo|gluten[- ]free|dairy[- ]free|plant[- ]based"
        r"|low[- ]carb|low[- ]fat|intermittent fasting|mediterranean diet|halal|kosher|diet",
        r"吃素|素食|吃肉|荤|低碳|生酮|轻断食|断食|戒糖|无麸质|清真|饮食"),
    "hobby": (
        r"climbing|bouldering|running|jogging|swimming|sea swimming|yoga|pilates|knitting|crochet|pottery|painting"
        r"|drawing|chess|gardening|hiking|photography|surfing|dancing|salsa|tennis|badminton|football|golf|fishing"
        r"|birdwatching|woodwork|baking|rowing|kayaking|skiing|snowboarding|martial arts|karate|judo|boxing|cross-stitch"
        r"|sewing|archery|fencing|padel|squash|netball|rugby|cricket|volleyball|skateboarding|parkrun|triathlon"
        r"|soccer|basketball|baseball|softball|hockey|lacrosse|ultimate frisbee|frisbee|handball|water polo"
        r"|table tennis|ping pong|pickleball|bowling|darts|gymnastics|wrestling|jiu-jitsu|bjj|kickboxing|muay thai|crossfit"
        r"|weightlifting|powerlifting|sailing|paddleboarding|scuba diving|cycling|mountain biking",
        r"瑜伽|跑步|游泳|滑雪|围棋|象棋|钓鱼|爬山|徒步|摄影|画画|书法|羽毛球|篮球|足球|网球|乒乓球|健身|骑行|烘焙|冲浪"
        r"|跳舞|攀岩|露营|飞盘|滑板|剧本杀|桌游|插花|编织|陶艺|拳击|太极|广场舞|马拉松"
        r"|排球|橄榄球|高尔夫|壁球|匹克球|台球|保龄球|跆拳道|柔道|击剑|潜水|皮划艇|桨板|划船"),
    "heating": (
        r"boiler|combi|combi boiler|gas boiler|oil boiler|heat pump|storage heater|underfloor heating|central heating"
        r"|worcester bosch|vaillant|baxi|viessmann|log burner|wood burner",
        r"暖气|地暖|锅炉|壁挂炉|集中供暖|电暖器"),
    "eyewear": (
        r"glasses|specs|spectacles|contact lens|contact lenses|contacts|lasik|varifocals|bifocals|monthlies|dailies"
        r"|ray-?bans?",
        r"眼镜|" + CONTACT_LENSES_ZH + r"|框架镜|月抛|日抛|年抛|美瞳|OK镜|角膜塑形"),
}
_PATTERNS = {name: (re.compile(rf"{_B}(?:{en}){_E}{_NOT_MODIFIER}", re.I), re.compile(zh))
             for name, (en, zh) in VALUE_NOUNS.items()}


# Verbs that hold, use or change a value of the class: with one of its nouns in the same clause, a
# first-person clause speaks about the class ("Ditched the piano for the drums", "前两天换了一部华为Mate 60").
_CHANGE_EN = r"switched|swapped|replaced|ditched|traded|upgraded|changed|went|gone|moved on|picked up|got|getting|bought|new|now"
_CHANGE_ZH = r"换|改|新|买了|入手|卖了|不再|戒|现在|如今|开始"
VALUE_VERBS: dict[str, tuple[str, str]] = {
    "phone_model": (rf"use|using|have|has|ordered|treated myself to|stuck with|still on|{_CHANGE_EN}", rf"用|{_CHANGE_ZH}"),
    "car": (rf"drive|driving|drove|own|have|has|had|sold|leased|lease|run|running|{_CHANGE_EN}",
            rf"开|提了|提车|{_CHANGE_ZH}"),
    "commute": (r"take|took|taking|get|getting|catch|catching|ride|riding|cycle|cycling|walk|walking|drive|driving"
                r"|hop on|commute|commuting|to work|to the office|into work|in to work|stopped|no more",
                r"上班|通勤|去公司|坐|骑|走路|步行"),
    "instrument": (rf"play|playing|played|learn|learning|lessons|practis\w+|practic\w+|took up|taken up|gave up"
                   rf"|given up|stopped|quit|{_CHANGE_EN}", rf"学|弹|拉|练|吹|打|{_CHANGE_ZH}"),
    "pet": (r"have|got|adopted|rescued|keep|kept|bought|brought home|took in|taken in|welcomed|rehomed|rehome|lost|died"
            r"|passed away|put down|gave away"
            r"|our|my|new|no more|don't have|do not have", r"养|领养|收养|送人|送给|送走|走了|去世|没了|我家"),
    "drink_preference": (rf"drink|drinking|drank|touch|touched|order|ordering|quit|gave up|given up|cut out|off|instead|only"
                         rf"|no more|go-to|usual|{_CHANGE_EN}", rf"喝|戒|{_CHANGE_ZH}"),
    "diet": (rf"eat|eating|ate|am|i'm|follow|following|cut out|gave up|stopped|started|become|became|{_CHANGE_EN}",
             rf"吃|戒|{_CHANGE_ZH}"),
    "hobby": (r"took up|taken up|into|started|picked up|gave up|given up|quit|weekends|saturdays|sundays|every week"
              r"|spare time|free time|for fun|hobby", r"迷上|爱上|喜欢上|开始|玩|练|业余|周末|爱好"),
}
_VERB_PATTERNS = {name: (re.compile(rf"\b(?:{en})\b", re.I), re.compile(zh)) for name, (en, zh) in VALUE_VERBS.items()}


# The kinds of a value that holds many at a time (pets): "the pup went to live with my parents" ends the beagle, not the
# tabby adopted the same day
_KIND_WORDS = (
    ("dog", r"dog|doggo|pup|puppy|puppies|retriever|terrier|labrador|poodle|beagle|spaniel|collie|sheepdog|dachshund"
            r"|pug|husky|chihuahua|greyhound|whippet|lurcher|corgi|shiba(?: inu)?|cockapoo|cavapoo|labradoodle|goldendoodle"
            r"|frenchie|french bulldog|schnauzer|shih tzu|staffie|staffy|pomeranian|samoyed|dalmatian",
     r"狗|柯基|金毛|泰迪|哈士奇|柴犬|拉布拉多|边牧|博美"),
    ("cat", r"cat|kitten|kitty|tabby|moggy|ragdoll|siamese|maine coon|sphynx|british shorthair", r"猫|布偶|英短"),
    ("rabbit", r"rabbit|bunny|bunnies", r"兔"),
    ("bird", r"parrot|budgie|cockatiel|canary", r"鹦鹉"),
)
# ... and instruments: "gave up on piano" ends the piano lessons, not the guitar
_INSTRUMENT_KIND_WORDS = (
    ("piano", r"piano|keyboard", r"钢琴|电子琴"), ("guitar", r"guitar", r"吉他"), ("violin", r"violin|fiddle", r"小提琴"),
    ("cello", r"cello", r"大提琴"), ("drums", r"drum|drum kit", r"架子鼓"), ("flute", r"flute", r"长笛|笛子"),
    ("saxophone", r"saxophone|sax", r"萨克斯"), ("trumpet", r"trumpet", r"小号"), ("ukulele", r"ukulele|uke", r"尤克里里"),
    ("clarinet", r"clarinet", r"单簧管"), ("harp", r"harp", r"竖琴"),
)
_KINDS = {name: re.compile(rf"{_B}(?:{en}){_E}|{zh}", re.I) for name, en, zh in _KIND_WORDS + _INSTRUMENT_KIND_WORDS}
_LEFT_EN = (r"went to live (?:with|w)\b|(?:lives?|living) (?:with|w) my \w+ now|(?:was |got )?rehomed|passed away|died"
            r"|(?:was |got )?put down|(?:is |has )?gone to a new home")
# the kind is what left: "the pup went to live w my parents", "猫送回老家了", "把猫送人了" (not "my catalogue of dog photos died")
_LEFT = {name: re.compile(rf"{_B}(?:{en}){_E}\s+(?:(?:has|had|was|just|finally|sadly|actually)\s+)*(?:{_LEFT_EN})"
                          rf"|(?:rehomed|gave away|given away)\s+(?:the|our|my)\s+(?:\w+\s+)?(?:{en}){_E}"
                          rf"|(?:{zh})(?:已经|被|也)?(?:送回|送走|送人|送给|去世|走了|没了)|把[^，。]{{0,4}}(?:{zh})[^，。]{{0,2}}送", re.I)
         for name, en, zh in _KIND_WORDS}
# an instrument given up: "gave up on piano", "quit the cello lessons", "guitar lessons are done", "钢琴不学了"
_LEFT.update({name: re.compile(rf"\b(?:gave up|giving up|given up|quit|quitting|stopped|dropped|packed in)(?: on)?\s+"
                               rf"(?:the\s+|my\s+)?(?:{en}){_E}|{_B}(?:{en}){_E}(?:\s+(?:lessons?|classes))?\s+(?:is|are)\s+"
                               rf"(?:over|done|on hold)\b|(?:{zh})课?(?:也|都|已经)?(?:不学了|不弹了|不练了|不上了|停了|放弃了)"
                               rf"|放弃了?(?:{zh})", re.I)
              for name, en, zh in _INSTRUMENT_KIND_WORDS})


def kinds_that_left(text: str) -> set[str]:
    """The kinds of pet a message says left the user ("the pup went to live w my parents … but we picked up a grey
    tabby" → dog; "猫送回老家给我妈养了" → cat), and the instruments it gave up ("gave up on piano" → piano)."""
    return {kind for kind, pattern in _LEFT.items() if pattern.search(text)}


def kinds_named(text: str) -> set[str]:
    """The kinds of pet and of instrument a text names."""
    return {kind for kind, pattern in _KINDS.items() if pattern.search(text)}


def held_classes(clause: str) -> list[str]:
    """The classes a clause names a value of together with a verb that holds, uses or changes it."""
    found = []
    for name in value_classes(clause):
        verbs = _VERB_PATTERNS.get(name)
        if verbs and (verbs[0].search(clause) or verbs[1].search(clause)):
            found.append(name)
    return found


def value_classes(text: str) -> list[str]:
    """Every attribute class whose value nouns the text names, in order of precedence."""
    return [name for name, (en, zh) in _PATTERNS.items() if en.search(text) or zh.search(text)]


def value_class(text: str) -> str | None:
    """The attribute class a value phrase belongs to ("the drums" → instrument, "华为Mate 60" → phone_model)."""
    found = value_classes(text)
    return found[0] if found else None


class Switch(tuple):
    """(old, new): the two values a switch names; old may be empty ("switched to decaf")."""

    @property
    def old(self) -> str:
        return self[0]

    @property
    def new(self) -> str:
        return self[1]


_SWAP_VERBS = (r"swapped|swap|switched|switch|traded|exchanged|replaced|ditched|dropped|upgraded|downgraded"
               r"|moved on|gone over|went over|chucked|binned|gave up|given up")
_I = r"(?:(?:i|we)\s+(?:(?:have|had|just|recently|finally|now|also|then|since|eventually)\s+)*)?"
_EN_SWITCHES = [
    # "swapped the builder's tea for green tea", "replaced the Pixel with a Galaxy", "ditched X in favour of Y"
    re.compile(rf"^{_I}(?:{_SWAP_VERBS})\s+(?:out\s+)?(?:from\s+)?(?P<old>.+?)\s+(?:in\s+)?"
               rf"(?:for|with|to|in favour of|in favor of)\s+(?P<new>.+)$", re.I),
    # "went from Bath to Norwich", "changed from coffee to tea"
    re.compile(rf"^{_I}(?:\w+\s+){{0,2}}?from\s+(?P<old>.+?)\s+to\s+(?P<new>.+)$", re.I),
    # "it's sparkling water instead of cola", "green tea instead of coffee"
    re.compile(r"^(?:(?:it is|it's|now it is|now it's|these days it is)\s+)?(?P<new>.+?)\s+instead of\s+(?P<old>.+)$", re.I),
]
_EN_ACQUIRED = re.compile(
    r"^(?:(?:i|we)\s+)?(?:(?:have|had|just|recently|finally|now|also|then|since|am|are|still)\s+)*(?:got|bought|picked up|ordered"
    r"|on|using|use|running|drive|driving|play|playing"
    r"|upgraded to|treated myself to|invested in|leased|took delivery of|went for|gone for|settled on)\s+"
    r"(?:(?:the\s+)?keys?\s+(?:to|for|of)\s+)?"  # "picked up the keys to the secondhand Golf"
    r"(?:(?:a|an|the|my|our|new|old|trusty|brand-new|brand new|second-hand|secondhand|used|shiny|refurbished)\s+)*(?P<new>.+)$", re.I)
# "it's hibiscus tea for me now", "now it's the tram", "these days it's oat lattes"
# a word of change before or after the value, or "it's been X" (since a change): "It's a bank holiday" names none
_EN_NOW_IT_IS = re.compile(r"^(?:(?P<lead>now|these days|nowadays|lately)\s+)?it(?:'s|\s+is|\s+has)\s+(?P<been>been\s+)?(?:(?:all|just|only)\s+)?(?P<new>.+?)"
                           r"(?P<tail>(?:\s+(?:for (?:me|us)|now(?: that .+)?|from now on|these days|nowadays|instead|only|all the way))*)$",
                           re.I)
_ZH_ACQUIRED = re.compile(
    r"^(?![他她你它])(?:我|我们)?[^，,]{0,6}?(?:新)?(?:换了|买了|入手了|入了|提了|订了|换成了|换成)(?:新的|新)?"
    r"(?:一部|一台|一辆|一个|一款|部|台|辆|个|款)?(?P<new>.+)$")
_ZH_SWITCHES = [
    re.compile(r"^(?:我|我们)?.{0,6}?(?:把|将)(?P<old>.+?)(?:换成|改成|换为|改为|换了)了?(?P<new>.+)$"),
    re.compile(r"^(?:我|我们)?.{0,6}?从(?P<old>.+?)(?:换到|改到|换成|改成|转到|搬到|跳到|跳槽到|调到|到)了?(?P<new>.+)$"),
    re.compile(r"^(?![他她你它])(?:我|我们)?[^，,]{0,6}?(?P<old>)(?:改成|换成|改为|换为|改坐|改骑|改喝|改吃|改用)了?(?P<new>.+)$"),
    re.compile(r"^(?P<old>.{1,12}?)(?:卖了|卖掉了|不要了|送人了|戒了|不用了|不喝了|退了)[，,]?(?:又|新|现在|就)?(?:买了|换了|改喝|喝|用|开|养了|领养了)"
               r"(?:一辆|一部|一台|一只|一个|一条|辆|部|台|只|个|条)?(?P<new>.+)$"),
]


def acquired(clause: str) -> str | None:
    """The thing a clause says was got, bought or is used ("Picked up a Toyota Yaris", "still on my old Galaxy",
    "新买了一辆理想L7"), or None."""
    pattern = _ZH_ACQUIRED if re.search(r"[\u4e00-\u9fff]", clause) else _EN_ACQUIRED
    m = pattern.match(clause.strip())
    return m.group("new").strip() if m else None


def now_it_is(clause: str) -> str | None:
    """The value of "it's X for me now" (a value named without a verb of its class), or None."""
    m = _EN_NOW_IT_IS.match(clause.strip())
    return m.group("new").strip() if m and (m.group("lead") or m.group("been") or m.group("tail")) else None


def switch(clause: str, loose: bool = False) -> Switch | None:
    """The old and new value of a switch the clause states, or None; `loose` reads "Y instead of X" too."""
    patterns = _ZH_SWITCHES if re.search(r"[\u4e00-\u9fff]", clause) else _EN_SWITCHES[: None if loose else -1]
    for pattern in patterns:
        m = pattern.match(clause.strip())
        if m:
            return Switch((m.group("old").strip(), m.group("new").strip()))
    return None
