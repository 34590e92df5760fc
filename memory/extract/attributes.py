"""What a clause says about one of the user's attributes, by meaning rather than by one sentence template.

Each attribute class (residence, employer, occupation, diet, drink, partner, pet, school, car, hobby)
has lexicons: the verbs and nouns that introduce a value in English and Chinese, the change cues
(moved, switched, joined, 搬到, 跳槽 …) and the negations that close a value (no longer, gave up,
不再 …). `resolve(clause)` returns the (attribute, value, kind) facts a first-person clause states;
`kind` picks the stored sentence from the slot table (`memory.slots`), and a `*_stop` kind is a
negation: it closes the value without becoming the answer to "what … now".
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from . import statement_part
from .relations import (ASKS_FIRST_MARK, ASKS_MARK, CHILD_SCHOOL, OTHERS_MARK, QUESTIONS_MARK, USERS_CHILD,
                        WORKPLACE_PEOPLE, about_someone_else, includes_the_user, says_of_user, someone_elses,
                        speaks_only_of_them)
from .typos import typed_right
from .value_types import CONTACT_LENSES_ZH as _CONTACT_LENSES_ZH
from .value_types import DIET as _DIET
from .value_types import LANGUAGE as _LANGUAGE
from .value_types import (CAR_MODELS, MODIFIED_HEADS, VALUE_NOUNS, acquired, held_classes, now_it_is, switch,
                          value_class, value_classes)
from .han import EMOJI, HAN_CHAR, OLD_ONE_PASSED_ON_ZH
from .value_types import BANK as _BANK
from .value_types import INSURER as _INSURER
from .value_types import INSURER_ZH as _ZH_INSURER
from .value_types import NETWORK as _NETWORK
from .value_types import STREAMING_SERVICE as _STREAMING_SERVICE

__all__ = ["AttributeFact", "CIRCUMSTANCE_EN", "GYM_WORD", "JOB_WORDS", "STATEMENT_MARK", "UNNAMED", "VERB_FIRST",
           "ended_things", "names_attribute", "resolve", "own_clauses", "statement_marks", "statement_topics",
           "tells_a_change", "tells_an_end"]


@dataclass(frozen=True)
class AttributeFact:
    kind: str  # a statement kind of memory.slots (e.g. "home_move", "occupation", "pet_stop")
    value: str
    detail: str | None = None  # e.g. the kind of pet ("dog") for a pet's name


_I = r"(?:i|we)"
_ADV = (r"(?:(?:usually|now|mostly|always|only|mainly|still|normally|generally|typically|often|really|just|also"
        r"|currently|actually|nowadays|finally|recently|officially|happily|proudly|even)\s+)*")
_HAVE = r"(?:(?:have|'ve|has|had|just|recently|already|finally|officially|now|since|then)\s+)*"
_BE = r"(?:'m|am|are|'re)"
# when and how one works, between the verb and what follows: "I work nights as a nurse", "I work part-time at Tesco"
_WORK_MODE = (r"(?:\s+(?:nights|days|evenings|weekends|mornings|shifts|night shifts|part[- ]time|full[- ]time|remotely"
              r"|from home|freelance|locum|on contract|as a contractor))?")
_ART = r"(?:(?:a|an|the|my|our)\s+)?"
_CAP = r"(?-i:[A-Z0-9])"  # a value that is a name starts with a capital
_NTH = r"(?:first|second|third|fourth|fifth|sixth|\d+(?:st|nd|rd|th))"  # "third date", "5th date"
# what a closing that names nothing ends, by kind: whoever the partner was ("we broke up"), wherever the user worked
# ("I handed in my notice")
UNNAMED = {"partner_stop": "their partner", "employer_stop": "their employer"}
_NAME = rf"{_CAP}[\w'.&-]*(?:\s+(?:of|for|and|&|de|la|le|van|von)?\s*{_CAP}[\w'.&-]*){{0,5}}"
_NAME_NO_FOR = _NAME.replace("of|for|and", "of|and")  # after "left": "I left Spotify for Apple Music"
_TAIL = r"(?:[\s,].*)?"  # the rest of the clause, ignored
# what may follow a closing's name: when or why, or a mark ("!", "—", "🎉"), not an object ("I left Tom a voicemail",
# "I left London at 6am")
_ENDING_TAIL = (r"(?:\s*[^\w\s'].*|\s+(?:after|last|in|on|this|today|yesterday|to|and|because|for good|earlier|recently|finally"
                r"|(?:\w+\s+)?(?:days?|weeks?|months?|years?)\s+ago)\b.*)?")

JOB_WORDS = (
    "accountant actor actress administrator analyst architect artist assistant attorney auditor baker barista "
    "barrister bartender bookkeeper builder butcher carer carpenter cashier chef chemist cleaner clerk coach "
    "consultant cook copywriter counsellor counselor courier curator dancer data scientist dentist designer "
    "developer diplomat director doctor driver economist editor electrician engineer entrepreneur farmer "
    "firefighter fireman freelancer gardener geologist graphic designer hairdresser historian illustrator "
    "instructor intern journalist judge labourer laborer lawyer lecturer librarian lifeguard machinist manager "
    "mechanic midwife musician nanny nurse optician paralegal paramedic pharmacist photographer physician "
    "physicist physiotherapist physio pilot plumber poet police officer policeman porter postman product manager "
    "professor programmer psychologist receptionist reporter researcher sailor salesman saleswoman scientist "
    "secretary senior designer social worker software engineer soldier solicitor student surgeon surveyor "
    "tailor teacher technician therapist tour guide trader translator tutor vet veterinarian waiter waitress "
    "web developer welder writer civil servant software developer teaching assistant ranger park ranger warden "
    "firefighter officer postdoc lab technician engineer surveyor estate agent pharmacist optometrist zookeeper "
    "florist baker chef sous chef housekeeper bricklayer roofer plasterer decorator cleaner delivery driver "
    "bus driver taxi driver train driver paramedic dispatcher"
).split(" ")
_JOB_SINGLE = {w for w in " ".join(JOB_WORDS).split() if len(w) > 2}
_JOBS = "|".join(sorted(_JOB_SINGLE, key=len, reverse=True))  # the job words, longest first
_JOB = (r"(?:[\w-]+\s+){0,3}?(?:" + _JOBS
        + r"|\w+(?:ist|ologist|ician|eer|grapher|smith|wright|monger))s?")
#: a job the lexicon knows, named anywhere ("got hired as a barista at the little café")
JOB_WORD = re.compile(r"\b(?:" + _JOBS + r")s?\b", re.I)
_ZH_JOB = (r"[\u4e00-\u9fff]{0,6}?(?:工程师|设计师|老师|教师|医生|护士|律师|会计|程序员|经理|记者|厨师|司机|研究员|"
           r"科学家|建筑师|作家|翻译|销售|分析师|顾问|警察|演员|编辑|文案|柜员|店员|主管|总监|教授|学生|实习生|"
           r"产品经理|运营|咨询师|药剂师|兽医|飞行员|摄影师|插画师|主播|保安|快递员|公务员|导游|消防员|自由职业者"
           # the families: …师, …员, …家, …手, …工, …官, and trades named by their work
           r"|[\u4e00-\u9fff]{1,4}(?:师|员|家|手|官|工人|技工|专员|助理|代表|顾问|主任|博士后)"
           r"|策划|设计|开发|测试|前端|后端|产品|客服|人事|行政|财务|出纳|采购|外贸|电商|市场|公关|审计|精算|博士后"
           r"|自由撰稿人|撰稿人|全职妈妈|全职爸爸|家庭主妇|个体户|老板|店主|创业者|网红|博主|UP主|自媒体"
           r"|住院医|主治医|规培生|医学生|研究生|博士生)")
_PET = (r"(?:[a-z-]+\s+){0,2}?(?:dog|cat|puppy|kitten|rabbit|bunny|hamster|guinea pig|parrot|budgie|bird|fish"
        r"|goldfish|tortoise|turtle|gecko|lizard|snake|ferret|horse|pony|retriever|terrier|labrador|poodle|beagle"
        r"|spaniel|collie|shepherd|dachshund|pug|husky|chihuahua)s?")
_INSTRUMENT = (r"(?:the\s+)?(?P<v>piano|keyboard|guitar|bass guitar|bass|electric guitar|ukulele|violin|viola|cello|double bass"
               r"|drums|drum kit|flute|clarinet|saxophone|sax|trumpet|trombone|harp|accordion|banjo|mandolin|harmonica"
               r"|oboe|bassoon|french horn|tuba|recorder|tabla|sitar|djembe|cajon|bodhran|fiddle|synth|synthesizer)")
# instruments a statement names as played, taken up or given up
_PLAYED = r"piano|guitar|violin|cello|drums|flute|saxophone|trumpet|ukulele|harp|clarinet|tabla|sitar"
_GYM = (r"(?:\w*gym\b|fitness (?:club|centre|center|first)|\w+ fitness\b|orangetheory|crossfit|f45|equinox|david lloyd"
        r"|ymca|ywca|(?:health|leisure) club|(?:sports|rec|recreation) (?:centre|center)|\w*boulder(?!ing\b)\w*"
        r"|(?:bouldering|climbing) (?:hall|gym)"
        r"|virgin active|nuffield|leisure (?:centre|center)|climbing (?:wall|centre|center)|bouldering (?:wall|centre|center))")
GYM_WORD = re.compile(_GYM, re.I)  # "joined puregym": a gym named by what it is
_DRINK_NOUN = (r"(?:caffeine|coffee|tea|decaf|alcohol|booze|drinking|fizzy drinks|energy drinks|cola|coke|diet coke|soda|beer|wine"
               r"|lager|spirits|sugar in my tea|milk|lattes?|espressos?|cappuccinos?)")
_HOME_NOUN = (r"(?:flat|house|apartment|apt|place|home|condo|studio|bungalow|cottage|houseboat|narrowboat|townhouse"
              r"|terrace(?! (?:bar|cafe|restaurant|seating|table|pub))|maisonette|bedsit|semi(?![- ]?finals?)"
              r"|duplex|[1-5] ?br|[1-5]-?bed(?:room)?|(?:one|two|three)-bed(?:room)?)")
_CAR_BRANDS = (r"(?:Toyota|Honda|Tesla|Ford|BMW|Audi|Volkswagen|VW|Kia|Hyundai|Volvo|Mazda|Subaru|Nissan|Renault"
               r"|Peugeot|Citro[eë]n|Fiat|Skoda|Škoda|Mercedes(?:-Benz)?|Porsche|Jeep|Mini|Polestar|BYD|Chevrolet|Chevy"
               r"|Lexus|Jaguar|Land Rover|Range Rover|Suzuki|Mitsubishi|Dacia|Seat|Vauxhall|Opel|Rivian|Lucid|NIO)")


def _en(kind: str, body: str) -> tuple[str, re.Pattern[str]]:
    return kind, re.compile(rf"^{body}$", re.I)


def _zh(kind: str, body: str) -> tuple[str, re.Pattern[str]]:
    return kind, re.compile(rf"^{body}$")


_ZADV = r"(?:现在|平时|一般|通常|每天|最近|都|只|主要|还是|一直|也|已经|目前|终于|正式|刚|刚刚|才|如今|这阵子|这段时间|就)*"
_ZI = r"(?:我们|我)"

# a day or a time said after "started": "…now that she's at the Bright Horizons, started monday" begins no hobby
_WHEN_WORD = (r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|today|yesterday|tonight|tomorrow|last|next|again"
              r"|january|february|march|april|june|july|august|september|october|november|december)\b")

# First match wins: negations and specific frames before general ones.
# the pets a Chinese message names: the pet value nouns, and the words chat has for them besides ("猫咪", "狗狗")
_NO_DOG_WALKED = "弯|娃|孩子|早|街|马路|圈"  # 遛弯 is a stroll, 遛娃 an outing with the child: no dog walked
_PET_ZH = rf"(?:猫咪|狗狗|犬|比熊|龟|{VALUE_NOUNS['pet'][1]})"
_RULES: list[tuple[str, re.Pattern[str]]] = [
    # --- negations: they close a value -----------------------------------------------------
    # out of a place or a home, not a room ("moved out of the spare room into the master bedroom")
    _en("home_stop", rf"{_I}\s+{_HAVE}(?:moved|moved out)\s+(?:away\s+)?(?:out\s+)?of\s+(?P<v>{_CAP}.*?|(?:my|our|the)\s+"
                     rf"(?:[\w'-]+\s+){{0,2}}?(?:flat|house|place|apartment|home|digs|halls|studio|cottage|houseboat|parents'?"
                     rf"|mum's|dad's|mom's)(?:\s+(?:place|house|flat))?(?:\s+in\s+{_NAME})?){_ENDING_TAIL}"),
    _en("home_stop", rf"{_I}\s*(?:{_BE}|was|were)\s+(?:not|no longer)\s+(?:living\s+|based\s+)?in\s+(?P<v>{_NAME})(?:\s+any\s?(?:more|longer))?{_TAIL}"),
    _en("partner_stop", rf"(?P<v>{_CAP}\w+)\s+and\s+i\s+(?:are|were)\s+(?:not|no longer)\s+(?:together|a couple|an item|seeing each other){_TAIL}"),
    _en("partner_stop", rf"(?P<v>{_CAP}\w+)\s+and\s+i\s+{_HAVE}(?:split up|split|broke up|separated|divorced|called it quits"
                        rf"|parted ways|went our separate ways|ended things){_TAIL}"),
    # "we broke up", not "I broke up with my old routine"
    _en("partner_stop", rf"(?:i|we)\s+{_HAVE}(?:split up|broke up|separated|divorced|called it quits|parted ways|ended things)"
                        rf"(?!\s+with\s+(?!(?:him|her|them)\b|my\s+(?:partner|girlfriend|boyfriend|wife|husband|fianc\w*|other half"
                        rf"|ex)\b|{_CAP}))(?P<v>){_TAIL}"),
    _en("partner_stop", rf"things\s+(?:with|between)\s+(?:me\s+and\s+(?P<v>{_CAP}\w+)|(?P<v2>{_CAP}\w+)\s+and\s+me)\s+"
                        rf"(?:have\s+)?(?:ended|are over|were over|fell apart|didn't work out|came to an end){_TAIL}"),
    _en("pet_stop", rf"(?P<v>{_CAP}\w+)\s+(?:is|was)\s+(?:no longer with us|not with us any\s?more|put down|put to sleep)"
                    rf"|(?P<v2>{_CAP}\w+)\s+(?:had to be put down|crossed the rainbow bridge){_TAIL}"),
    _en("pet_stop", rf"(?:i|we)\s+{_HAVE}(?:lost|had to rehome|rehomed|had to give up|gave away|given away)\s+"
                    rf"(?:(?:our|my)\s+(?:[a-z]+\s+)?)?(?P<v>{_PET}|{_CAP}\w+){_TAIL}"),
    _en("employer_stop", rf"i\s*{_BE}\s+(?:not|no longer)\s+(?:at|with|working at|working for|employed by)\s+(?P<v>{_NAME})"
                         rf"(?:\s+any\s?(?:more|longer))?{_TAIL}"),
    _en("employer_stop", rf"(?P<v>{_NAME})\s+(?:let me go|made me redundant|laid me off|fired me|sacked me){_TAIL}"),
    _en("employer_stop", rf"i\s+(?:was|got|have been)\s+(?:laid off|made redundant|let go|fired|sacked)\s+(?:from|by)\s+(?P<v>{_NAME}){_TAIL}"),
    # a job ended without naming the employer: whoever it was ("handed in my notice", "I'm between jobs")
    _en("employer_stop", rf"i\s+{_HAVE}(?:handed in my notice|handed my notice in|quit my job|left my job|lost my job"
                         rf"|resigned|(?:been|got|was)\s+(?:laid off|made redundant|let go|fired|sacked)){_ENDING_TAIL}(?P<v>)"),
    _en("employer_stop", rf"i\s*{_BE}\s+(?:now\s+)?(?:unemployed|out of work|between jobs|not working anywhere"
                         rf"|not working any\s?(?:more|longer))(?:[\s,—–-].*)?(?P<v>)"),  # not "not working today"
    _en("diet_stop", rf"i\s*{_BE}\s+not\s+(?:a\s+)?(?P<v>{_DIET})\s+(?:any\s?more|any longer){_TAIL}"),
    _en("drink_stop", rf"i\s+{_HAVE}(?:quit|gave up|given up|cut out|kicked|ditched|stopped|dropped|cut back on)\s+"
                      rf"(?P<v>{_DRINK_NOUN})(?:\s+(?:entirely|completely|altogether|for good|for now))?"),
    _en("drink_stop", rf"i\s*{_BE}\s+(?:off|done with)\s+(?P<v>{_DRINK_NOUN})(?:\s+(?:entirely|completely|altogether|for good|for now))?"),
    _en("occupation_stop", rf"i\s+(?:do not|no longer)\s+(?P<v>\w+)\s+(?:professionally|for a living|for work)(?:\s+any\s?(?:more|longer))?{_TAIL}"),
    _en("occupation_stop", rf"i\s*{_BE}\s+not\s+(?:a|an)\s+(?P<v>{_JOB})\s+(?:any\s?more|any longer){_TAIL}"),
    _en("instrument_stop", rf"i\s+(?:have not|had not)\s+(?:played|touched|picked up)\s+{_INSTRUMENT}\s+(?:in|for)\s+.+"),
    _en("employer_stop", rf"i\s+{_HAVE}(?:left|quit|resigned from)\s+(?:my\s+(?:job|role|position)\s+(?:at|with)\s+)?"
                         rf"(?P<v>{_NAME_NO_FOR}){_ENDING_TAIL}"),
    _en("occupation_stop", rf"i\s*{_BE}\s+no longer\s+(?:a|an)\s+(?P<v>{_JOB}){_TAIL}"),
    _en("occupation_stop", rf"i\s+{_HAVE}(?:quit|stopped|gave up)\s+(?:being|working as)\s+(?:a|an)\s+(?P<v>{_JOB}){_TAIL}"),
    _en("diet_stop", rf"i\s*{_BE}\s+no longer\s+(?:a\s+)?(?P<v>{_DIET}){_TAIL}"),
    _en("diet_stop", rf"i\s+{_HAVE}(?:stopped|quit|gave up)\s+being\s+(?:a\s+)?(?P<v>{_DIET}){_TAIL}"),
    _en("pet_stop", rf"{_I}\s+(?:don't|do not|no longer)\s+(?:have|keep|own)\s+{_ART}(?P<v>{_PET})(?:\s+(?:any\s?more|any longer))?{_TAIL}"),
    _en("pet_stop", rf"(?:my|our)\s+(?:[a-z]+\s+)?{_PET}\s+(?P<v>{_CAP}\w+)\s+(?:passed away|died|ran away){_TAIL}"),
    _en("pet_stop", rf"(?:i|we)\s+(?:gave|rehomed)\s+(?:away\s+)?{_ART}(?P<v>{_PET})\s+(?:away\s+)?to\s+.+"),
    _en("partner_stop", rf"i\s+{_HAVE}(?:broke up with|split up with|divorced|separated from)\s+(?P<v>{_CAP}\w+){_TAIL}"),
    _en("partner_stop", rf"i\s+{_HAVE}left\s+(?P<v>{_CAP}\w+){_ENDING_TAIL}"),  # not "I left Tom a voicemail"
    _en("school_stop", rf"i\s+{_HAVE}(?:dropped out of|left|graduated from|finished at|withdrew from|withdrawn from"
                       rf"|pulled out of)\s+(?:the\s+)?(?P<v>{_NAME_NO_FOR})(?:\s+(?:course|degree|programme|program))?"
                       rf"{_ENDING_TAIL}"),
    _en("instrument_stop", rf"i\s+{_HAVE}(?:gave up|quit|stopped playing|stopped learning|sold)\s+{_INSTRUMENT}{_TAIL}"),
    _en("instrument_stop", rf"i\s+(?:do not|don't|no longer)\s+play\s+{_INSTRUMENT}(?:\s+any\s?more)?{_TAIL}"),
    _en("instrument", rf"i\s+{_ADV}{_HAVE}(?:play|played|am playing|started playing|started learning|am learning"
                      rf"|have been learning|took up|taken up|switched to|moved on to|picked up)\s+{_INSTRUMENT}{_TAIL}"),
    # --- job and employer ------------------------------------------------------------------
    _en("job_at", rf"i\s+{_ADV}{_HAVE}(?:work|worked|working|am working|'m working|started working|now work|been working"
                  rf"|been freelancing|am freelancing|'m freelancing|freelance){_WORK_MODE}\s+as\s+(?:a|an)?\s*(?P<role>.+?)\s+"
                  rf"(?:at|for|with)\s+(?P<v>{_NAME}){_TAIL}"),
    _en("occupation", rf"i\s+{_ADV}{_HAVE}(?:work|worked|working|am working|'m working|started working|now work|been working"
                      rf"|been freelancing|am freelancing|'m freelancing|freelance|retrained|qualified){_WORK_MODE}\s+as\s+(?:a|an)?\s*(?P<v>.+?)"),
    _en("job_at", rf"i\s*{_BE}\s+{_ADV}(?:now\s+)?(?:a|an)\s+(?P<role>{_JOB})\s+(?:at|for|with|in)\s+(?:the\s+)?(?P<v>{_NAME}){_TAIL}"),
    _en("occupation", rf"i\s*{_BE}\s+{_ADV}(?:now\s+)?(?:a|an)\s+(?P<v>{_JOB})(?:\s+(?:now|these days|at the moment))?"),
    _en("occupation", rf"i\s+{_HAVE}(?:became|become|got promoted to|was promoted to|retrained as|qualified as)\s+(?:a|an)?\s*(?P<v>{_JOB}){_TAIL}"),
    _en("job_at", rf"i\s+{_ADV}{_HAVE}(?:started|began|start|begin|am starting|'m starting|took a job|got a job|landed a job"
                  rf"|accepted a job|took a position|got a position)\s+(?:out\s+)?as\s+(?:a|an)\s+(?P<role>{_JOB})\s+"
                  rf"(?:at|for|with|in)\s+(?:the\s+)?(?P<v>{_NAME}){_TAIL}"),
    _en("occupation", rf"i\s+{_ADV}{_HAVE}(?:started|began|start|begin|am starting|'m starting|took a job|got a job|landed a job"
                      rf"|accepted a job|took a position|got a position)\s+(?:out\s+)?as\s+(?:a|an)\s+(?P<v>{_JOB}){_TAIL}"),
    _en("job_at", rf"(?:the|your)\s+(?:[\w-]+\s+){{0,3}}?(?P<role>{_JOB})\s+(?:from|at)\s+(?:the\s+)?(?P<v>{_NAME})"),
    _en("employer_join", rf"{_I}\s+{_ADV}{_HAVE}(?:got|landed|accepted|took|started|begun|began)\s+(?:a\s+)?(?:new\s+)?"
                         rf"(?:job|position|role|post|offer)\s+(?:at|with|from)\s+(?P<v>{_NAME}){_TAIL}"),
    _en("employer_join", rf"i\s+{_HAVE}(?:jumped ship|defected|moved over|went over|crossed over)\s+to\s+(?P<v>{_NAME}){_TAIL}"),
    _en("employer_join", rf"(?:my\s+)?(?:first|second)\s+(?:full\s+)?(?:day|week|month|shift)\s+(?:at|with)\s+(?P<v>{_NAME}){_TAIL}"),
    _en("employer_join", rf"i\s+{_HAVE}(?:was|got|have been|'ve been)\s+hired\s+(?:by|at)\s+(?P<v>{_NAME}){_TAIL}"),
    _en("employer_join", rf"i\s+{_HAVE}(?:joined|started at)\s+(?P<v>{_NAME})\s+as\s+(?:a|an)?\s*(?:[\w-]+\s+){{0,3}}?{_JOB}{_TAIL}"),
    _en("employer", rf"i\s*{_BE}\s+{_ADV}employed\s+(?:at|by)\s+(?P<v>{_NAME}){_TAIL}"),
    _en("employer", rf"i\s+{_ADV}(?:work|am working|'m working){_WORK_MODE}\s+(?:at|for)\s+(?P<v>{_NAME}){_TAIL}"),
    # --- residence -------------------------------------------------------------------------
    _en("home_move", rf"{_I}\s+{_ADV}{_HAVE}(?:moved|relocated)\s+(?:in)?to\s+{_ART}(?:new\s+|little\s+|tiny\s+)*"
                     rf"{_HOME_NOUN}\s+(?:in|on)\s+(?P<v>.+?)"),
    _en("home_move", rf"{_I}\s+{_ADV}{_HAVE}(?:moved|relocated)\s+(?:from\s+{_NAME}\s+)?(?:over|down|up|back|out|across)?\s*to\s+(?P<v>{_NAME}){_TAIL}"),
    _en("home", rf"{_I}\s+{_ADV}{_HAVE}(?:been\s+)?(?:live|living|lived|am living|'m living|are living|'re living"
                rf"|reside|settled|settle)\s+(?:in|on)\s+(?P<v>.+?)"),
    _en("home", rf"{_I}\s*(?:{_BE}|have been|'ve been)\s+{_ADV}(?:now\s+)?based\s+(?:in|out of)\s+(?P<v>.+?)"),
    _en("home", rf"(?:my|our)\s+(?:new\s+)?(?:home|place|flat|apartment|house|base)\s+is\s+(?:now\s+)?(?:in|on)\s+(?P<v>.+?)"),
    _en("home", rf"home\s+(?:for\s+(?:me|us)\s+)?is\s+(?:now\s+)?(?P<v>.+?)"),
    # --- diet, pets, partner, school, car, hobby ----------------------------------------------
    _en("diet", rf"i\s*{_BE}\s+{_ADV}(?:now\s+|fully\s+|strictly\s+|mostly\s+|a\s+)*(?P<v>{_DIET}){_TAIL}"),
    _en("diet", rf"i\s+{_ADV}{_HAVE}(?:went|gone|turned|become|became|started)\s+(?:fully\s+)?(?P<v>{_DIET}){_TAIL}"),
    _en("diet", rf"(?:one|two|three|four|five|six|seven|eight|nine|ten|a|an|\d+)\s+(?:days?|weeks?|months?|years?)\s+"
                rf"(?:fully\s+|officially\s+|strictly\s+)?(?P<v>{_DIET})(?:\s+today)?{_TAIL}"),  # "one month fully vegan today"
    _en("diet", rf"(?:i\s+)?{_HAVE}(?:started|began|am doing|'m doing|do|follow|am on|'m on)\s+(?:a\s+)?(?P<v>{_DIET})(?:\s+diet)?{_TAIL}"),
    _en("pet", rf"{_I}\s+{_ADV}{_HAVE}(?:have|got|adopted|own|keep|rescued|bought)\s+{_ART}(?P<kind>{_PET})\s+"
               rf"(?:called|named)\s+(?P<v>{_CAP}\w+){_TAIL}"),
    _en("pet", rf"(?:my|our)\s+(?:new\s+)?(?P<kind>{_PET})\s+(?:is\s+called\s+|is\s+named\s+|named\s+|called\s+)?(?P<v>{_CAP}\w+){_TAIL}"),
    _en("pet", rf"(?:and\s+)?(?:i|we)?\s*{_HAVE}(?:got|adopted|rescued)\s+{_ART}(?P<kind>{_PET})\s+(?:called|named)\s+(?P<v>{_CAP}\w+){_TAIL}"),
    _en("partner", rf"(?:my|our)\s+(?:new\s+|current\s+)?(?:partner|wife|husband|girlfriend|boyfriend|fianc[ée]e?|spouse|other half)"
                   rf"(?:'s name)?\s+(?:is\s+)?(?:called\s+|named\s+)?(?P<v>{_CAP}\w+){_TAIL}"),
    _en("partner", rf"i\s*{_BE}\s+{_ADV}(?:married to|dating|engaged to|seeing)\s+(?P<v>{_CAP}\w+){_TAIL}"),
    _en("partner", rf"i\s+{_HAVE}(?:married|started dating|got engaged to)\s+(?P<v>{_CAP}\w+){_TAIL}"),
    _en("school", rf"i\s+{_ADV}{_HAVE}(?:study|studied|studying|am studying|'m studying|started studying|enrolled"
                  rf"|transferred|transferred my studies|am enrolled|'m enrolled)\s+(?:\w+\s+){{0,4}}?(?:at|to)\s+(?:the\s+)?(?P<v>{_NAME}){_TAIL}"),
    _en("school", rf"i\s*{_BE}\s+{_ADV}(?:now\s+)?(?:a|an)\s+(?:[\w-]+\s+){{0,3}}?student\s+at\s+(?:the\s+)?(?P<v>{_NAME}){_TAIL}"),
    _en("school", rf"i\s*{_BE}\s+{_ADV}enrolled\s+at\s+(?:the\s+)?(?P<v>{_NAME}){_TAIL}"),
    _en("school", rf"i\s*{_BE}\s+doing\s+(?:a|an)\s+(?:[\w-]+\s+){{0,3}}(?:at|with)\s+(?:the\s+)?(?P<v>{_NAME}){_TAIL}"),
    _en("car", rf"i\s+{_ADV}{_HAVE}(?:drive|am driving|'m driving|drove|bought|got|leased|own)\s+(?:a|an)\s+(?:new\s+|used\s+|\d{{4}}\s+|[a-z]+\s+){{0,3}}"
               rf"(?P<v>{_CAR_BRANDS}(?:\s+[\w-]+){{0,2}}){_TAIL}"),
    _en("car", rf"(?:my|our)\s+(?:new\s+)?car\s+is\s+(?:a|an)\s+(?:\w+\s+){{0,2}}?(?P<v>{_CAR_BRANDS}(?:\s+[\w-]+){{0,2}}){_TAIL}"),
    _en("drink", rf"(?P<v>[\w -]{{2,40}}?)\s+is\s+(?:my|our)\s+(?:(?:go-to|usual)(?:\s+(?:drink|order|coffee|tea))?"
                 rf"|(?:favourite|favorite)\s+(?:drink|order|coffee|tea|brew|tipple)){_TAIL}"),
    _en("hobby", rf"(?P<v>[\w -]{{2,30}}?)\s+is\s+my\s+(?:thing|passion|hobby|jam|happy place){_TAIL}"),
    _en("car", rf"(?:i\s+)?{_HAVE}(?:traded|swapped|exchanged|part-exchanged)\s+.+?\s+(?:in\s+)?for\s+(?:a|an)\s+"
               rf"(?:(?:brand\s+)?new\s+|used\s+|second-?hand\s+|pre-owned\s+|\d{{4}}\s+)*"
               rf"(?P<v>{_CAR_BRANDS}(?:\s+[\w-]+){{0,2}}){_TAIL}"),
    # an activity, not a thing begun ("started the new Murakami book"), a partner, a job or a treatment
    _en("hobby", rf"i\s+{_ADV}{_HAVE}(?:taken up|took up|started|got into|gotten into|been getting into)\s+"
                 rf"(?!as\b|at\b|with\b|work|seeing\b|dating\b|going out\b|(?:a\s+)?(?:new\s+)?job\b"
                 rf"|(?:the|this|that|my|his|her|their|our|your)\b"
                 rf"|(?:therapy|counselling|counseling|medication|treatment|physio|antibiotics|chemo|rehab)\b"
                 rf"|{_WHEN_WORD})"
                 rf"(?P<v>[a-z][\w -]{{2,40}}?)"
                 rf"(?:\s+(?:at|in|on|with|lately|recently|this year)\b.*)?"),
    _en("hobby", rf"i\s*{_BE}\s+{_ADV}(?:really\s+)?into\s+(?P<v>[a-z][\w -]{{2,40}}?)(?:\s+(?:these days|lately|now))?"),
    # --- more ways of saying a value ---------------------------------------------------------
    _en("partner", rf"i\s*{_BE}\s+{_ADV}(?:seeing|dating|with|going out with)\s+(?:(?:a|an|this)\s+(?:[\w-]+\s+){{0,2}}?"
                   rf"(?:woman|man|girl|guy|lad|lady|bloke|person|someone)\s+)?(?:called|named)\s+(?P<v>{_CAP}\w+){_TAIL}"),
    _en("partner", rf"i\s+{_HAVE}been\s+(?:seeing|dating|with|going out with|together with)\s+(?:(?:a|an|this)\s+(?:[\w-]+\s+){{0,2}}?"
                   rf"(?:woman|man|girl|guy|lad|lady|bloke|person|someone)\s+(?:called|named)\s+)?(?P<v>{_CAP}\w+){_TAIL}"),
    _en("partner", rf"i\s*{_BE}\s+{_ADV}in a relationship with\s+(?P<v>{_CAP}\w+){_TAIL}"),
    _en("partner", rf"(?P<v>{_CAP}\w+)\s+and\s+i\s+(?:are|got)\s+(?:now\s+)?(?:together|dating|engaged|married|an item){_TAIL}"),
    # a couple's own occasions name the partner: "third date with Priya tonight", "valentine's dinner with Marcus",
    # "Jake and I hit 6 months this weekend", "me and Tom are doing 2 years next week"
    _en("partner", rf"(?:(?:a|our|my)\s+)?(?:date night|{_NTH}\s+date|valentine'?s(?:\s+day)?(?:\s+(?:dinner|date|night))?"
                   rf"|anniversary(?:\s+(?:dinner|trip|weekend|date))?)\s+(?:w/\s*|w\s+|with\s+)(?P<v>{_CAP}\w+){_TAIL}"),
    _en("partner", rf"(?:(?P<v>{_CAP}\w+)\s+and\s+i|me\s+and\s+(?P<v2>{_CAP}\w+))\s+(?:hit|are doing"
                   rf"|(?:have|'ve)\s+been\s+together|celebrated|are celebrating)"
                   # the time together may be read as a date and left out: "Jake and I hit [6 months this weekend]"
                   rf"(?:\s+(?:\d+|a|one|two|three|four|five|six"
                   rf"|seven|eight|nine|ten|eleven|twelve)\s+(?:years?|months?){_TAIL})?"),
    _en("employer_join", rf"i\s+{_HAVE}accepted\s+(?:an?\s+)?(?:job\s+)?offer\s+(?:from|at|with)\s+(?P<v>{_NAME}){_TAIL}"),
    _en("employer_join", rf"(?P<v>{_NAME})\s+(?:took me on|hired me|offered me a job|snapped me up|picked me up|gave me a job){_TAIL}"),
    _en("employer", rf"i\s*{_BE}\s+{_ADV}(?:now\s+)?(?:at|with)\s+(?P<v>{_NAME})\s+(?:on|in)\s+(?:the\s+)?[\w-]+\s+(?:team|department|desk){_TAIL}"),
    _en("employer", rf"i\s*{_BE}\s+{_ADV}on the payroll (?:at|of)\s+(?P<v>{_NAME}){_TAIL}"),
    _en("home_move", rf"{_I}\s+{_HAVE}signed\s+(?:the|a|our)\s+(?:lease|contract|tenancy|mortgage)\s+(?:on|for)\s+{_ART}"
                     rf"(?:new\s+)?(?:place|flat|house|apartment|home|cottage|studio)\s+in\s+(?P<v>{_NAME}){_TAIL}"),
    _en("home_move", rf"{_I}\s+{_ADV}{_HAVE}(?:got|collected|picked up|been given)\s+(?:the\s+)?keys\s+(?:to|for)\s+{_ART}"
                     rf"(?:new\s+|little\s+|first\s+|own\s+)*{_HOME_NOUN}\s+(?:in|on)\s+(?P<v>{_NAME}){_TAIL}"),
    # "been in the new place in Stockbridge since Easter", "we're in the new flat in Leith now": settled in a new home
    _en("home_move", rf"(?:{_I}\s*(?:{_BE}|{_HAVE}been)|been)\s+(?:settled\s+)?in(?:to)?\s+(?:the|our|my)\s+new\s+{_HOME_NOUN}"
                     rf"\s+in\s+(?P<v>{_NAME}){_TAIL}"),
    _en("home", rf"(?:(?:my|our)\s+)?home\s+(?:has been|is now|is)\s+(?:a\s+[\w-]+(?:\s+[\w-]+)?\s+)?(?:in|outside|near|just outside)\s+(?P<v>{_NAME}){_TAIL}"),
    _en("home", rf"{_I}\s*{_BE}\s+(?:now\s+)?(?:in|living in)\s+(?P<v>{_NAME})\s+(?:now|these days|nowadays){_TAIL}"),
    # a job by what one does ("I teach maths", "I drive a bus"); not "I teach myself", "I drive my wife mad"
    _en("job_does", rf"i\s+{_ADV}(?P<v>(?:(?:teach|nurse|coach|tutor|lecture|program|code|cook|design|edit|translate)\s+"
                    rf"(?!myself\b|yourself\b|ourselves\b|themselves\b)|drive\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+)?"
                    rf"(?:bus|buses|taxi|cab|lorry|lorries|truck|van|train|tram|ambulance|forklift|tractor|coach|for\s+\w+)\b).*)"),
    _en("occupation", rf"i\s+(?:make|earn)\s+(?:my|a)\s+living\s+as\s+(?:a|an)?\s*(?P<v>.+?)"),
    _en("pet", rf"{_I}\s+{_HAVE}(?:have|got|have got|adopted|rescued)\s+(?:a pair of|a couple of|two|three|four|\d+)\s+"
               rf"(?P<kind>{_PET})(?:\s+now)?,?\s+(?P<v>{_CAP}\w+(?:\s+and\s+{_CAP}\w+)?){_TAIL}"),
    # --- Chinese ----------------------------------------------------------------------------
    _zh("home_stop", rf"{_ZI}{_ZADV}(?:从(?P<v>.+?)搬走了?|搬离了?(?P<v2>.+?))"),
    _zh("home_stop", rf"{_ZI}{_ZADV}(?:不再|不|没再|没有再)(?:在(?P<v>.{{1,8}}?)(?:住|生活|待|呆)|住在?(?P<v2>.{{1,8}}?))了"),
    _zh("occupation_stop", rf"我{_ZADV}(?:不再|不|没再)(?:当|做|干)(?P<v>{_ZH_JOB}|.{{1,6}}?)了?"),
    _zh("occupation_stop", rf"我{_ZADV}(?:不再|不)(?P<v>写代码|编程|教书|行医|开出租|送外卖|跑外卖|做设计|上班)了?"),
    _zh("employer_stop", rf"我{_ZADV}(?:从(?P<v>.+?)(?:离职|辞职)了?|辞掉了(?P<v2>.+?)的工作)"),
    _zh("diet_stop", rf"我{_ZADV}(?:不再吃素|不吃素了|又开始吃肉了?|开始吃肉了?)"),
    _zh("pet_stop", rf"我{_ZADV}(?:不再养|没有再养|已经不养)(?P<v>.+?)了?"),
    _zh("pet_stop", rf"(?:把|将)(?P<v>.{{1,6}}?)(?:送人了|送给了.+|送走了)"),
    _zh("partner_stop", rf"我{_ZADV}(?:和|跟)(?P<v>.{{1,6}}?)(?:已经)?(?:分手了|离婚了|分开了|分了|掰了)"),
    _zh("partner_stop", rf"我{_ZADV}(?:和|跟)(?P<v>[^，。,的]{{1,6}}?)(?:已经|早就|早已)?(?:不再|不|没有再|没再|没)在一起了?.*"),
    _zh("job_at", rf"{_ZI}{_ZADV}在(?P<v>.{{2,20}}?)(?:当|做|担任|干)(?P<role>.{{1,12}}?)了?"),
    # a transfer to a place is a move, not a new employer: "公司把我调到成都了" (a team is `team`'s: 调到了数据组)
    _zh("home_move", rf"(?:[\u4e00-\u9fff]{{0,4}}把)?{_ZI}(?:被)?{_ZADV}调(?:到|去)了?"
                     rf"(?P<v>(?:(?!组|部|团队|班|岗|中心|项目|线)[^，。,！？\s]){{2,6}}?)(?:分公司|总部|那边|常驻|工作|上班|去)?了?"),
    _zh("employer_join", rf"我{_ZADV}(?:跳槽到了?|跳槽去了?|换到|转到|跳到|入职了?|加入了?)(?P<v>.+?)(?:工作|上班)?了?"),
    _zh("employer", rf"我{_ZADV}在(?P<v>.{{2,20}}?)(?:工作|上班|任职|实习)了?"),
    # "下个月 1 号去美团报到": reporting for a first day
    _zh("employer_join", rf"{_ZI}?[^，。,！？]{{0,10}}?(?:去|到)(?P<v>[^，。,！？\s]{{2,8}}?)(?:报到|报道|入职)了?"),
    _zh("occupation", rf"我{_ZADV}(?:是一名|是一个|是位|是个|当了|做了|成了|成为了|转行做|改行做|做|当|是)(?P<v>{_ZH_JOB})了?"),
    # "我是在苏州一所中学教英语的老师": the job after a clause that says where and what
    _zh("occupation", rf"我{_ZADV}是(?:一名|一个|一位|个|位)?(?P<v>[^，。,！？]{{2,16}}?的{_ZH_JOB})"),
    _zh("home_move", rf"{_ZI}{_ZADV}(?:搬到了|搬到|搬去了|搬去|搬家到了|搬家到|搬来了|搬来|搬进了|搬进)(?P<v>.+?)(?:住)?了?"),
    _zh("home", rf"{_ZI}(?:家)?{_ZADV}(?:住在|居住在|生活在|定居在|定居|落户)(?P<v>.+?)"),
    _zh("home_move", rf"(?:{_ZI}的?)?{_ZADV}新家{_ZADV}(?:在|是)(?P<v>[^，。,！？\s]{{2,12}}?)"),  # 新家在闵行七宝
    _zh("home", rf"{_ZI}(?:家)?(?:现在|目前|如今)住(?!院|宿|酒店|宾馆|民宿|哪|得|了|过|不|的)(?P<v>.+?)"),  # 我现在住杭州
    _zh("home", rf"{_ZI}{_ZADV}(?:在(?P<v>.{{2,12}}?)(?:租了|买了)(?:个|一个|一套|套)?(?:小)?(?:房子|公寓|房))"),
    _zh("diet", rf"我{_ZADV}(?:开始)?(?:吃素|是素食者|是素食主义者|是纯素食者|吃纯素)了?"),
    _zh("diet", rf"我{_ZADV}(?:在做|在吃|开始做|开始吃|改成|改吃|在坚持)(?P<v>.{{1,8}}?饮食)(?:[，,].*)?"),
    _zh("diet", rf"我{_ZADV}(?:在做|在吃|开始做|开始吃|改成|改吃|在坚持)(?P<v>生酮|低碳|轻断食|断食|无麸质)(?:饮食)?(?:[，,].*)?"),
    _zh("instrument_stop", rf"我?{_ZADV}(?P<v>钢琴|吉他|小提琴|大提琴|古筝|二胡|架子鼓|鼓|长笛|萨克斯|尤克里里|琵琶)(?:不学了|不弹了|不练了|放弃了).*"),
    _zh("instrument", rf"我{_ZADV}(?:在学|开始学|改学|学|弹|拉|练)(?P<v>钢琴|吉他|小提琴|大提琴|古筝|二胡|架子鼓|鼓|长笛|萨克斯|尤克里里|琵琶).*"),
    _zh("pet", rf"我(?:家|们家)?的?(?P<kind>[\u4e00-\u9fff]{{0,3}}?(?:猫|狗|兔子|鹦鹉|仓鼠|乌龟))(?P<v>[\u4e00-\u9fff]{{2}})(?:正|在|又|总|今天|每天|特别|很|最|就|刚|也|还).*"),
    _zh("pet", rf"{_ZI}?(?:家里?)?{_ZADV}(?:养了|有|新养了|领养了)(?:一只|一条|只|条|一匹)(?P<kind>.{{1,4}}?)(?:，|,)?(?:叫|名叫|名字叫)(?P<v>.+?)"),
    # the name first: "养了一只叫团子的橘猫"
    _zh("pet", rf"{_ZI}?(?:家里?)?{_ZADV}(?:养了|有|新养了|领养了)(?:一只|一条|只|条|一匹)(?:叫|名叫)(?P<v>[^，。,的]{{1,4}})的"
               rf"(?P<kind>[\u4e00-\u9fff]{{1,4}}?(?:猫|狗|兔子|兔|鹦鹉|仓鼠|乌龟|鱼))"),
    _zh("pet", rf"{_ZI}?(?:家里?)?{_ZADV}(?:养了|有|新养了|领养了)(?:一只|一条|只|条)(?P<v>.{{1,6}}?)"),
    # one brought home: "接了只柯基回家", "捡了只小猫回家" (not "带了只烤鸭回家")
    _zh("pet", rf"{_ZI}?{_ZADV}(?:接了|抱了|带了|捡了)(?:一只|只)(?P<v>[\u4e00-\u9fff]{{0,3}}?{_PET_ZH})回家.*"),
    _zh("partner", rf"我{_ZADV}(?:的)?(?:新|现任|现在的)?(?:老婆|老公|妻子|丈夫|女朋友|男朋友|对象|爱人|伴侣|未婚妻|未婚夫)(?:叫|是)(?P<v>.+?)"),
    _zh("partner", rf"我?{_ZADV}(?:和|跟)(?:一个)?叫(?P<v>[^，。,的]{{1,4}})的(?:女生|男生|女孩|男孩|姑娘|小伙子?|人)(?:在)?"
                   rf"(?:约会|交往|谈恋爱|在一起)了?"),
    # "（分手了，）现在和阿杰在一起", "和小林在一起三个月啦"
    _zh("partner", rf"我{_ZADV}(?:和|跟)(?P<v>[^，。,的]{{1,6}}?)在一起(?:了|快|都|已经)?"
                   rf"(?:[\d一二三四五六七八九十两半]+(?:个)?多?(?:月|年|周|星期)(?:了|啦|咯)?)?"),
    _zh("school", rf"我{_ZADV}(?:转学去了|转学到了|转到了|考上了|考进了)(?P<v>.+?)"),
    _zh("school", rf"我{_ZADV}在(?P<v>.{{2,20}}?)(?:读书|上学|念书|读研究生|读研|读博|读大学|上大学|读本科)"),
    _zh("school", rf"我{_ZADV}在(?P<v>.{{2,20}}?(?:大学|学院|学校|夜校|中学|小学))(?:的.{{1,8}}?)?(?:学习|学|上课|进修|读).*"),
    _zh("occupation", rf"{_ZI}{_ZADV}(?:自己)?(?:开了|开)(?:一家|一间|家|间|个|一个)(?P<v>.{{1,10}}?(?:店|馆|铺|公司|工作室|餐厅|诊所|民宿|超市))"),
    # a bare 开 drives only when no other word starts with it (开春, 开学, 开会, 开车去…)
    # not what is opened: "开了爱奇艺年卡会员", "开了张招行的卡", "医生给我开了点药"
    _zh("car", rf"我{_ZADV}(?:开一辆|开的是一辆|开的还是|开的是|开着一辆|买了一辆|换了一辆|开(?![春学会始心门玩放展业发工车])"
               rf"(?!了?[^，。,！？\s]{{0,10}}?(?:会员|卡|账户|账号|药|空调|发票|证明|单子)))(?P<v>.{{2,20}}?)"),
    _zh("hobby", rf"我{_ZADV}(?:迷上了|爱上了|喜欢上了|开始学|在学(?![校院堂生]))(?P<v>.+?)"),
    _zh("home_move", rf"{_ZI}{_ZADV}(?:举家|全家|一家人)?(?:迁到了|迁到|迁居|移居到?|搬回了?|回到了?)(?P<v>.+?)(?:定居|生活|住)?了?"),
    _zh("home", rf"{_ZI}{_ZADV}在(?P<v>.{{2,12}}?)(?:落脚|安家|扎根|定居|安顿)(?:下来)?了?.*"),
]
#: the rules of each language, in order: English ones ignore case, Chinese ones have no case
_RULES_OF = {lang: [(kind, pattern) for kind, pattern in _RULES if (lang == "zh") == (pattern.flags & re.I == 0)]
             for lang in ("en", "zh")}

# What says when or how a value came about, not what it is: "on Monday", "after all", "for years", "now that I've
# sold it", "in the sales" (a value's tail, cut here and by `facts`)
CIRCUMSTANCE_EN = (
    r"on (?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekdays|weekends|the weekend)\b.*|after all|in the end"
    r"|at (?:long )?last|for (?:years|months|weeks|ages|a while|a bit|good|now|the time being)\b.*|now that .+"
    r"|in the sales?\b.*|on sale\b.*|on offer\b.*|when(?:ever)? i\b.*")
_TRAIL_EN = re.compile(
    r"\s+(?:now|nowadays|these days|at the moment|right now|instead|too|as well|again|already|anymore|any more"
    r"|full[- ]time|part[- ]time|since .+|for (?:about |over |nearly |almost )?(?:\d+|a|an|one|two|three|four|five"
    r"|six|seven|eight|nine|ten|a few|several|many) (?:days?|weeks?|months?|years?).*|last .+|this .+|next .+"
    r"|a few .+|ago|with .+|because .+|so .+|after .+|before .+|which .+|where .+|who .+|but .+|instead of .+"
    r"|to (?:replace|save|get|make|help|be|keep|cut) .+|and (?:i|we|love|loving|it|it's|have|am|are)\b.*"
    r"|in (?:the )?(?:spring|summer|autumn|fall|winter)\b.*|" + CIRCUMSTANCE_EN
    + r"|after|before|when|while|and|but|then|until)$", re.I)  # a word left alone by the date words cut out
_TRAIL_ZH = re.compile(r"(?:了|啦|呀|吧|哦|呢|的|住|工作|上下班|去上班|上班|通勤|一直|现在|目前"
                       r"|的(?:新|小)?(?:公寓|家|房子|房间|房|住处|小区|宿舍)"
                       # how long: 搬来三年了, 第一周, 快三年了
                       r"|(?:快|近|将近|差不多)?第?(?:[一二两三四五六七八九十几半]|\d)+个?多?(?:天|周|星期|个月|月|年)多?)+$")
_LEAD_ZH = re.compile(r"^(?:一家|一所|一个|一间|一座|一辆|一部|一本|一首|一款|家|所|个)")
_LEAD_EN = re.compile(r"^(?:been\s+)?(?:(?:a|an|the|my|our|some)\s+)?", re.I)  # "it's been rooibos …"
_NOT_VALUES = {"it", "that", "this", "there", "here", "home", "them", "him", "her", "one", "work", "school", "bed",
               "town", "the city", "a lot", "it all", "everything", "nothing", "这里", "那里", "这儿", "那儿", "家"}


def _clean(value: str, lang: str) -> str:
    value = value.strip(" \t.,!;:'\"。！，；：、")
    if lang == "en":
        previous = None
        while previous != value:
            previous, value = value, _TRAIL_EN.sub("", value).strip(" ,")
        value = _LEAD_EN.sub("", value)
    else:
        value = _TRAIL_ZH.sub("", _LEAD_ZH.sub("", value))
    return value.strip(" \t.,!;:'\"。！，；：、")


# The kind of statement a switch to a new value of each class is stored as.
_SWITCH_KINDS = {"drink_preference": "drink_switch", "instrument": "instrument", "car": "car", "diet": "diet",
                 "hobby": "hobby", "home_location": "home_move", "employer": "employer_join", "school": "school",
                 "occupation": "occupation", "pet": "pet", "phone_model": "phone_model", "partner": "partner",
                 "commute": "commute"}
_GENERIC_THING = re.compile(r"^(?:(?:new|old|mobile|smart)\s*)?(?:phone|car|vehicle|instrument|手机|车|汽车|新车|乐器)$", re.I)
_ZH_STUDYING = re.compile(r"(?:读博|读研|读硕士?|读本科|读大学|读书|上学|念书|进修)$")
# "switched banks to Monzo", "changed energy suppliers": a service the user buys, not where they work
_SERVICE_SWITCH = re.compile(r"^(?:my\s+)?(?:[\w-]+\s+)?(?:banks?|insurers?|providers?|suppliers?|networks?|supermarkets?"
                             r"|broadband|mortgage lenders?|lenders?)$", re.I)
_MOVE_VERB = re.compile(r"\b(?:moved|relocated|went|gone|packed up)\b|搬", re.I)


def _switched(body: str, lang: str, loose: bool = False) -> list[AttributeFact]:
    """A switch whose values say their class ("ditched the piano for the drums" → instrument: drums)."""
    found = switch(body, loose)
    if found is None or re.match(r"(?:i|we)\b", found.new, re.I):
        return []  # "I drink rooibos instead of coffee" is read by the drink rule
    new = _clean(found.new, lang)
    if not new or new.lower() in _NOT_VALUES or len(new) > 60:
        return []
    attribute = value_class(new) or (None if _SERVICE_SWITCH.match(found.old) else value_class(found.old))
    if attribute is None and _MOVE_VERB.search(body) and re.match(rf"{_CAP}", new):
        attribute = "home_location"
    kind = _SWITCH_KINDS.get(attribute or "")
    return [AttributeFact(kind, new)] if kind else []


def _acquired(body: str, lang: str) -> list[AttributeFact]:
    """A thing got or bought that is a value of a class by what it is: a phone, a car, an instrument."""
    thing = acquired(body)
    if not thing:
        return []
    attribute = value_class(body[: len(body) - len(thing)][-2:] + thing if lang == "zh" else thing)
    value = _clean(thing, lang)
    if attribute not in ("phone_model", "car", "instrument") or not value or len(value) > 40 or _GENERIC_THING.match(value):
        return []
    return [AttributeFact(_SWITCH_KINDS[attribute], value)]


# a group of people who share a pastime, no employer: "加入了一个叫“山野行”的徒步群"
ZH_GROUP_WORDS = "群|俱乐部|跑团|社团|小组|协会|车队|球队"
_ZH_GROUP = re.compile(rf"(?:{ZH_GROUP_WORDS})$")
_TRAILING_MARKS = re.compile(rf"[\s.!。！~～{EMOJI}\ufe0f]+$")
# a phone number moved to another network: "终于转到联通了", "换到电信了" (but "宽带转到联通了" is the home's broadband)
_ZH_CARRIER_SWITCH = re.compile(r"(?<!宽带)(?<!光纤)(?:转到|换到|换成|转去|改成)(?:中国)?(?:移动|联通|电信)(?![^，。,！？\s]{0,4}(?:宽带|光纤))")


def resolve(clause: str) -> list[AttributeFact]:
    """The attribute facts a first-person clause states (empty when it states none we know)."""
    body = _TRAILING_MARKS.sub("", clause.strip())  # "跟小林在一起三个月啦🥹": the emoji is no part of the value
    lang = "zh" if re.search(r"[\u4e00-\u9fff]", body) else "en"
    switched = _switched(body, lang)
    if switched:
        return switched
    for kind, pattern in _RULES_OF[lang]:
        if kind == "hobby" and _NOT_HOBBY.search(body):
            continue
        m = pattern.match(body)
        if not m:
            continue
        groups = m.groupdict()
        raw = groups.get("v") or groups.get("v2") or ""
        if not raw and kind in UNNAMED:
            raw = UNNAMED[kind]
        if kind == "job_does":
            if _NOT_HOBBY.search(raw):
                continue  # "I drive to work every day" is a commute
            verb, _, rest = raw.partition(" ")
            raw = (verb[:-1] if verb.endswith("e") else verb) + "ing " + rest  # "teach maths" → "teaching maths"
        if kind == "diet_stop" and not raw:
            raw = "吃素"
        if kind == "diet" and not raw and lang == "zh":
            raw = "吃素"
        value = _clean(raw, lang)
        if not value or value.lower() in _NOT_VALUES or len(value) > 80:
            continue
        facts = []
        if kind == "job_at" and re.search(r"student|学生|研究生|本科生|博士生", groups.get("role") or ""):
            return [AttributeFact("school", value)]
        if kind in ("employer", "employer_join") and re.fullmatch(_ZH_INSURER, value):
            continue  # "转到人保": the car's insurer, not the user's employer
        if kind == "employer_join" and _ZH_CARRIER_SWITCH.search(body):
            continue  # "终于转到联通了": the phone's network, not the user's employer
        if kind in ("employer", "employer_join") and _ZH_GROUP.search(value):
            continue  # "加入了一个叫“山野行”的徒步群": a group of people who share a pastime, no employer
        if kind in ("employer", "employer_join") and value_class(value) == "school":
            return [AttributeFact("school", value)]  # "转到中山大学", "started at Exeter University"
        studying = _ZH_STUDYING.search(value) if lang == "zh" else None
        if kind in ("employer", "employer_join") and studying and studying.start() >= 2:
            return [AttributeFact("school", value[: studying.start()])]  # "转到同济读博了"
        if kind == "job_at":
            role = _clean(groups.get("role") or "", lang)
            if role and role.lower() not in _NOT_VALUES:
                facts.append(AttributeFact("occupation", role))
            facts.append(AttributeFact("employer", value))
            return facts
        if kind == "pet" and groups.get("kind"):
            return [AttributeFact("pet", value, _clean(groups["kind"], lang))]
        return [AttributeFact(kind, value)]
    return _switched(body, lang, loose=True) or _acquired(body, lang) or _now_it_is(body, lang)


def _now_it_is(body: str, lang: str) -> list[AttributeFact]:
    """"it's hibiscus tea for me now": a value whose class its nouns say."""
    thing = now_it_is(body) if lang == "en" else None
    value = _clean(thing or "", lang)
    attribute = value_class(value) if value else None
    if not attribute or attribute not in _SWITCH_KINDS or len(value) > 40 or _GENERIC_THING.match(value):
        return []
    return [AttributeFact(_SWITCH_KINDS[attribute], value)]


# --- which attributes a first-person statement is about (for ranking, not for values) ----------------

_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|ive|i'd|me|my|mine|we|we're|we've|our|us)\b|我(?!们的朋友)"
                           # the user speaking of their own day or job, the "I" dropped: "long week at the practice,
                           # being a veterinary nurse is not for the faint-hearted"
                           r"|\blong (?:day|week|shift|night) at\b"
                           r"|\bbeing an? (?:[\w-]+\s+){0,2}(?:" + _JOBS + r"|[a-z]+(?:grapher|ologist|ician))\b"
                           r"(?! (?:must|would|seems|sounds|looks)\b)",
                           re.I)
# Chinese drops the subject too: "三个星期前搬到了重庆", "上个月换了工作", "最近迷上了瑜伽", "年后又搬了".
# living somewhere from a time on ("现在住", "上个月起就住"), not a stay ("住院", "住酒店")
_ZH_LIVES_SINCE = r"(?:现在|目前|如今|最近|起|开始|以来)(?:就|都|还|也|一直)?住(?!院|酒店|宾馆|民宿|一晚|几天|哪|得)"
_ZH_DROPPED_SUBJECT = re.compile(
    r"(?:^|[。！？，,\s～~…]\s*)(?:[\u4e00-\u9fff\d]{0,6}?(?:前|以来|月|周|年|天|阵子|段时间|春|夏|秋|冬|初|底|末|早上|晚上|上午|下午|中午|现在|最近|如今|目前|后来|(?<=[年节假业])后)[，,]?"
    r"|(?:这|那)次|这回)?"
    r"(?:家里|家里又|我们家)?(?:也|都|又|就|已经|终于|干脆|刚刚?|才|还|新|后来|于是|所以|结果|最后|最终|彻底|正式|顺手|顺便){0,2}(?:跟着)?(?:搬到|搬去|搬回|搬家|搬完|搬好|搬了(?![吗么没])|骑着?|坐|挤|搭|乘|开车|打车|走路|换了|换成|改成|改去|改开|改用|改订|改喝|改吃|从[\u4e00-\u9fff]{1,10}?回来|跳槽|辞职|辞掉|离职|入职|加入了|开始|养了|领养"
    r"|携号转网|把(?=[\u4e00-\u9fffA-Za-z0-9]{1,8}?(?:换|改|转|卖|退|卸|送|戒|搬|办))"
    r"|买了|入手了|新买的|刚买的|卖了|转学|转行|考上|迷上|爱上|戒了|戒掉|戒烟|戒酒|戒(?=[\u4e00-\u9fffA-Za-z]{1,4}(?:第|已经|快)?[\d一二三四五六七八九十百两]+(?:天|周|个月))|不再|没碰|没抽|没沾|在学|当上|成了|开了一家|迁到|改坐|改骑|调回|调到|调去|轮转到|住在|住到|住回|落脚在"
    r"|在[\u4e00-\u9fff]{1,8}?(?:租了|住了|安家|定居|落脚|上班|加班|工作|配了|配的)"  # "在上海静安租了个一室户": where, then the verb
    r"|(?:接|抱|带|捡)了一?只(?=[\u4e00-\u9fff]{0,3}?" + _PET_ZH + r"回家)"  # "接了只柯基回家": a pet brought home
    r"|遛(?:完|了)(?!" + _NO_DOG_WALKED + r")(?=[\u4e00-\u9fff]{1,3}?回来)"  # "刚遛完豆包回来": a dog walked
    r"|在做(?!什么|啥)"  # "最近在做心理咨询"
    r"|(?:和|跟)[\u4e00-\u9fff]{1,4}在一起|分手|分了|离婚|结婚|约会|办了|装了|开通了|续了|续费了|携转|提车|(?:开|用|骑|戴|住)了[\d一二三四五六七八九十两几半]+年|开了个|开了张|注册了|报了|订了|提了|只能|只好|投奔|转粉|入坑|入了|用的还是|还在用|开的还是|还在开|找(?=[\u4e00-\u9fffA-Za-z]{1,4}?剪(?![刀纸辑片子视]))|转到|换到|没续|不续了|当(?=" + _ZH_JOB + r")|去[\u4e00-\u9fffA-Za-z0-9]{1,8}?当(?=" + _ZH_JOB + r"))"
    # the thing first, as Chinese often puts it: "卡罗拉卖了", "奶茶戒了", "钢琴不学了", "全飞秒做完一个月了"
    r"|(?:^|[。！？，,\s～~…]\s*)(?![他她你它])[\u4e00-\u9fffA-Za-z0-9]{1,8}?(?:卖了|卖掉了|做完了?|出掉了|出手了|转掉了|戒了|不学了|不练了|不弹了|送人了"
    r"|送走了|没了|不喝了|不开了|退了|退掉了|不干了|又抽(?:到|上|了)|分了|分手了|离婚了|不打了|不踢了|不去了|终于换了|换掉了|断了|卸载了|送给[^，,。\s]{1,4}养了"
    # "宽带转到联通了": the thing, then where it moved
    r"|(?:转到|换到|转去)[^，,。\s]{1,8}?了|携号转网了|携转了"
    # how long the user has had it: "朗逸开了五年", "iPad用了三年"
    r"|(?:开|用|骑|戴|住)了[\d一二三四五六七八九十两几半]+年)"
    # where the user lives since a time: "现在住苏州园区", "上个月起就住苏州园区了"
    r"|(?:^|[。！？，,\s～~…]\s*)[\u4e00-\u9fff\d]{0,6}?" + _ZH_LIVES_SINCE +
    # what the user did for their child: "给儿子报了周六上午的钢琴课"
    r"|(?:^|[。！？，,\s～~…]\s*)给我?(?:儿子|女儿|孩子|闺女|丫头|娃|宝宝)(?:报了|报名|请了|找了|换了|转了|买了|办了)"
    # a stay somewhere, or work: "在杭州住了快三年了", "在南京待了四年了", "在4S店卖车真的累"
    r"|(?:^|[。！？，,\s～~…]\s*)在[\u4e00-\u9fffA-Za-z0-9]{1,8}?(?:住了|待了|呆了|生活了|工作了|办了|上班|打工|实习|卖车|卖房)"
    # the thing, then what it has always been or was renewed as: "车险一直是平安的", "今年车险续的人保"
    r"|(?:^|[。！？，,\s～~…]\s*)(?![他她你它])[\u4e00-\u9fffA-Za-z0-9]{1,8}?(?:一直(?:是|用|在|找|去)|续的|续了|续保了|用的是|办的|跟的是|找的是)"
    # where the user always goes: "一直找小区门口那家店的阿凯剪头"
    r"|(?:^|[。！？，,\s～~…]\s*)(?:平时|一般)?一直(?:找|去|在|用)"
    # what the home has: "家里宽带是电信的", "我家的车是卡罗拉"
    r"|(?:^|[。！？，,\s～~…]\s*)(?:家里|咱家|我家|我们家)的?[\u4e00-\u9fffA-Za-z0-9]{1,6}?(?:是|用的是|用的|办的)"
    # a habit by its rate: "每天至少两杯美式", "一天一包烟"
    r"|(?:^|[。！？，,\s～~…]\s*)(?:每天|一天|每周|一周|天天)(?:至少|最少|差不多|大概|起码|得|要)?[一两二三四五六七八九十半\d]+(?:杯|包|根|瓶|罐|支|顿)")
# a sport given up by its gear: "hung up the boots for good"; and a job ("hung up my apron")
_SPORT_GEAR = "boots|skates|gloves|cleats|spikes|racket|racquet"
_SPORT_GEAR_HUNG_UP = rf"hung up (?:my|the) (?:{_SPORT_GEAR})"
_GEAR_HUNG_UP = rf"hung up (?:my|the) (?:{_SPORT_GEAR}|apron|whistle)"
# English drops the subject of a user's own news too: "Replaced the Pixel with a Galaxy", "Ditched the piano", "finaly
# switched carriers" (typed as chat types it).
VERB_FIRST = re.compile(
    r"^(?:(?:just|fin+al+y|recently|also|then|so|and|eventually|officially)\s+)*(?:moved|relocated|started|starting|began|switched"
    r"|swapped|changed|joined|quit|left|got|bought|adopted|gave|upgraded|replaced|ditched|traded|transferred|retrained"
    r"|took up|taken up|picked up|packed up|finished|graduated|married|became|landed|accepted|enrolled|signed"
    r"|handed in|handed over|handed back|porting|ported|registered"
    r"|cut out|dropped|stopped|sold|rehomed|lost|settled|unpacked|went|gone|trying|tried|learning|upgraded"
    r"|exchanged|part-exchanged|leased|ordered|split|broke up|moving|jumped ship|binned|chucked|scrapped"
    r"|cancell?ed|canceled|withdrew|resigned|paid off|been (?!(?:thinking|considering|planning|wondering|meaning|hoping|dreaming|looking|debating)\b)[a-z]+ing|pulled the plug|pulled|unsubscribed|renewed|dumped|ended up"
    r"|took|back from|peaced out|bailed on|" + _GEAR_HUNG_UP
    + r"|had to (?:switch|change|move|leave|quit|sell|give up|cancel|find)"
    r"|found (?:a|an|my) (?:new|different|better|cheaper|good|great)\b"  # "found a new guy tho, Marco's Cycle Garage"
    r"|found (?:someone|somebody) (?:new|else)\b"  # "marcus moved to austin 😭 found someone new thru the music shop"
    r"|had (?:my |an? |the )?(?:[\w-]+ ){1,2}?done\b"  # "had lasik done on friday!!": a procedure the user went through
    r"|born and (?:raised|bred)|grew up)\b", re.I)
# Any past-tense verb first says the same ("Cancelled PureGym and signed up at the climbing wall"), and
# so does a negated or perfect verb with the subject dropped ("Haven't touched alcohol since March"), or what
# the user is doing these days ("Training for the half marathon now"; a list: "Evening walks" is no news).
_TELLING_VERB_FIRST = re.compile(
    r"^(?:(?:just|finally|recently|also|then|so|and|eventually|still|now)\s+)*"
    r"(?:[a-z]{3,}ed|had to|have to|haven't|hadn't|don't|didn't|can't|won't|never|been"
    r"|training|working|living|running|studying|teaching|playing|doing|using|driving|riding|cycling|walking"
    r"|swimming|cooking|eating|drinking|smoking|vaping|saving|renting|commuting|dating|seeing|volunteering|coaching|practising"
    r"|practicing|taking|reading|writing)\b", re.I)
# A milestone with the subject dropped is news about the user too: "Six months without a cigarette today!",
# "First week at PwC done", "Two years sober", and a stretch of work told by how it went ("long week as a teaching
# assistant at oakfield primary", "another rough shift at the royal free").
_MILESTONE = re.compile(
    r"^(?:(?:today|yesterday|it)\s*(?:was|is|'s)\s+)?"  # "today was day one at Skyscanner"
    r"(?:(?:just|finally|officially|now)\s+)*(?:(?:day|week|month)\s+(?:one|\d+)|(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven"
    r"|twelve|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-\w+)?|a hundred|a few|several)\s+"
    r"(?:full\s+)?(?:days?|weeks?|months?|years?)|(?:my\s+)?(?:first|second|third|last)\s+(?:full\s+)?"
    r"(?:day|week|month|shift|year|session|class|lesson|appointment)"
    r"|(?:(?:a|another|one)\s+)?(?:(?:really|very|so|super)\s+)?"
    r"(?:long|busy|hard|tough|rough|hectic|crazy|mad|brutal|exhausting|quiet|slow|good|great|fun|full-on)\s+"
    r"(?:day|week|shift|month|term|night)(?=\s+(?:as|at|in)\b)"
    r")\s+(?:without|with no|with zero|no|[a-z]+[- ]free|sober|clean|off"
    r"|at|in|into|as|with)\b", re.I)
# A thing of the user's that changed, its "my" dropped: "car insurance renewed with Geico", "building got sold last
# month", "keys handed back", "lease renewed for another year", "boiler's GONE" (not "marco moved to florida": a thing,
# not a name)
_THING_FIRST = re.compile(
    r"^(?:the\s+|our\s+)?(?:[a-z-]+\s+){0,2}?(?:insurance|policy|lease|contract|plan|membership|subscription|broadband"
    r"|internet|building|flat|apartment|house|car|phone|rent|landlord|mortgage|account|keys|dose|dosage|prescription"
    r"|boiler|heat pump)"
    r"(?:\s+|['’]s\s+)(?:just\s+|finally\s+|officially\s+)?"
    r"(?:got\s+|was\s+|is\s+|has been\s+|been\s+|has\s+)?(?:gone|went in|(?:ripped|taken) out|fitted|installed"
    r"|renewed|sold|switched|moved|changed|cancell?ed|transferred"
    r"|upgraded|ported|went up|goes up|gone up|went down|goes down|gone down|increased|doubled|halved|upped|lowered"
    r"|reduced|taken over|bought|handed (?:back|over|in)|collected|picked up)\b"
    # a car by its model, through its yearly test: "the old Golf failed its MOT again"
    r"|^(?:the|our)\s+(?:[\w-]+\s+){1,2}?(?:just\s+)?(?:failed|passed)\s+(?:its|her|his)\s+mot\b", re.I)
# What came for the user, its "my" or "the" first or new: "ok the iPhone 15 arrived today!!!", "my new Kindle came",
# "new glasses came in!" (not "the weather arrived late")
_ARRIVED = re.compile(r"^(?:(?:my|our)\s+(?:new\s+)?|(?:the\s+)?new\s+|the\s+(?=(?-i:[\w+-]*[A-Z])))"
                      r"(?:[\w+-]+\s+){0,3}?"
                      r"(?:arrived|came|got delivered|was delivered|showed up)\b", re.I)
# One of the user's people named, the "my" dropped: "dentist is Dr. Lindqvist over on Harbor Rd", "new GP's Dr Okafor"
_ROLE_FIRST = re.compile(
    r"^(?i:(?:new\s+)?(?:dentist|doctor|gp|vet|therapist|counsell?or|psychiatrist|barber|hairdresser|landlord|landlady|boss"
    r"|manager|tutor|teacher|accountant|trainer|coach|mechanic|pharmacist|babysitter|nanny|childminder|physio)"
    r"\s*(?:is|'s|=|:)\s+(?:now\s+)?)(?:(?i:(?:dr|mr|mrs|ms|miss)\.?\s*)[A-Za-z]|[A-Z][a-z])")
# where the user lives now, told first: "new address as of saturday: Portobello" (not a new email address)
_NEW_ADDRESS = re.compile(r"^new (?:home |postal )?address(?: as of [\w ]{1,20})?\s*:\s*(?![\w.+-]*@)\w", re.I)
# How long the user has been with someone, said anywhere: "valentines dinner w/ Jordan tonight, 2 years together 🥹"
_TOGETHER_FOR = re.compile(r"\b(?:\d+|a|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:years?|months?)"
                           r"\s+together\b", re.I)
# A habit told by its rate, the subject dropped: "4 espressos a day minimum", "like 2 packs a week"
_RATE = re.compile(r"^(?:like\s+|about\s+|around\s+)?(?:\d+|a|one|two|three|four|five|six|half a|a couple(?: of)?)\s+"
                   r"(?:[a-z-]+\s+){1,2}?(?:a|per|every)\s+(?:day|night|week)\b", re.I)
# A habit told with its subject dropped: "smoking like half a pack a day rn", "living on coffee these days", "been
# teetotal since august" (not "been thinking about …", whose verb says what it is)
_HABIT_FIRST = re.compile(r"^(?:(?:still|now|just|mostly)\s+)*(?:been (?!\w+ing\b)|smoking|vaping|drinking|living|working|commuting"
                          r"|studying|renting|driving|biking|cycling|walking|riding|taking|volunteering|helping out"
                          # "loving the new place in Astoria": what is new to the user, the subject dropped
                          r"|(?:loving|enjoying|settling into|settled into|getting used to) (?:the|our|my) new"
                          # "sonographer life 🤰": the user's job as a way of life, the sentence to itself
                          rf"|(?:[a-z-]+ )?[a-z-]+ life(?=\s*$|\s*[!.,;:…]|\s+[{EMOJI}])"
                          # "going to fade factory on the high st now": where the user goes these days
                          r"|going (?:to|with) [^,.;!?]{1,40}?\b(?:now|these days|nowadays|instead)"
                          # "on giffgaff now, the 15gb goodybag": what the user is on, "I'm" dropped
                          r"|on (?!(?:my|the) way\b)[^,.;!?]{1,30}?\b(?:now|these days|nowadays|instead)"
                          # "having a ciggie on the balcony": a smoke, the subject dropped
                          r"|having (?:a|my) (?:quick |crafty |cheeky )?(?:ciggie|ciggy|cig|cigarette|smoke|fag|vape)"
                          # "fully vegan as of jan 1st", "officially teetotal!": a state, "I'm" dropped
                          r"|(?:(?:fully|officially|strictly|full|completely|basically|mostly|now)\s+)*"
                          r"(?:vegetarian|veggie|vegan|pescatarian|keto|plant-based|teetotal|sober)"
                          r"(?=\s*(?:$|[!.,;:]|as of|since|from|now|these days|for good|again|today|officially)))\b", re.I)
_COUNTED_HABITS = {"drink_preference", "smoking", "diet"}
# Someone else's word reported ("doc says the palpitations are from caffeine"): no statement of the user's
_REPORTED = re.compile(r"^(?!i\b|we\b)(?:(?:my|the|our|his|her)\s+)?[a-z']+(?:\s+[a-z']+)?\s+"
                       r"(?:says|said|thinks|reckons|told me|tells me|claims|warned)\b", re.I)
# "Moving house is the worst thing ever": a verb in -ing that is the subject of the sentence, not news of the user's
_GERUND_SUBJECT = re.compile(r"^\w+ing\b[^,;:.!?]{0,40}?\s(?:is|was|are|were|sucks|can be|has been|will be|must be)\b", re.I)
# "taking the train to work" is a commute, not a hobby
_NOT_HOBBY = re.compile(r"\b(?:to work|to the office|into work|in to work|commut\w*)\b|上班|通勤", re.I)
# A look back ("my first job was …", "when I was a student", "I used to …") says what was, not what is.
_RETROSPECTIVE = re.compile(
    r"\b(?:used to|my (?:first|old|previous|former) \w+|back (?:when|then|in)|when i was|years ago|as a kid"
    r"|as a child|in my twenties|growing up)\b|以前|小时候|当年|曾经|原来", re.I)
_NEGATION = re.compile(
    r"\b(?:no longer|not any ?more|any ?more|any longer|gave up|give up|given up|quit|stopped|sold|got rid of"
    r"|no more|passed away|died|moved out|broke up|split up|left my|dropped out|don't have|do not have"
    r"|haven't got|(?:haven't|hasn't|have not|has not) (?:had|touched|used|driven|played|drunk|eaten|smoked)"
    r"|don't own|do not own|cut out|rehomed|gave away|given away|not (?:a|an) \w+ (?:now|these days)"
    # "gave my kayak away to my nephew", "handed my saturday class over to maria for good"
    r"|(?:gave|given) (?:my|our|the) (?:[\w-]+ ){1,2}?away\b"
    r"|(?:^|\bi |\bi've |\bive )handed (?:my|our) (?:[\w-]+ ){1,2}?over to"
    r"|no \w+ for (?:me|us)|(?:is|are) (?:gone|over) now|ended things|called it quits|parted ways|done with"
    r"|(?:smoke|alcohol|caffeine|nicotine|booze|car)[- ]free"
    r"(?! (?:day|zone|area|street|sunday|event|policy|campus|building|venue)s?\b)"  # "the car free day" ends nothing
    r"|without (?:a|any) (?:single )?(?:cigarettes?|smokes?|drinks?|fags?)"
    r"|with (?:no|zero) (?:vapes?|vaping|cigarettes?|cigs|smokes?|smoking|nicotine|drinks?|drinking|alcohol|booze|caffeine)"
    r"|off the (?:cigarettes|fags|booze)|binned|chucked|scrapped|(?:said|say) goodbye to|rainbow bridge|pulled the plug"
    r"|uninstalled|deleted the app|(?:gathering|collecting) dust|dumped|teetotal|tee-total|on the wagon"
    r"|(?:fully|completely|totally) off|came off (?:the|my)|weaned (?:myself )?off|tapered off"
    r"|peaced out|bailed on|walked away from|put (?:the |my )?[\w-]+ away for good"
    r"|(?:leaving|left|quit(?:ting)?|(?:i'm|im|i am) (?:officially )?out of) (?:the|my|our) (?:\w+ )?(?:band|choir|team|club"
    r"|league|group|orchestra|troupe|crew)|stepped down (?:from|as)"
    r"|paused (?:\w+ ){1,2}indefinitely|(?:not|won't be|didn't|did not) renew(?:ing)?\b"
    # a word of the user's own ending: "bowed out of the book thing", "hung up my boots", "i've let priya go"
    r"|bowed out|back(?:ed|ing)? out of|stepped back from|closed out|" + _GEAR_HUNG_UP
    + r"|let (?!it\b|that\b|this\b|me\b|us\b)\w+ go\b"
    # "we pulled out of the saturday thing", "pulled out of chicago" (not "pulled out of the driveway"); the place the
    # user went closed ("my grain shop shut its doors"); "officially off pred as of monday"
    r"|pull(?:ed|ing)? out of (?:(?:the|my|our|that|this) )?(?!(?:drive(?:way)?|car ?park|parking|garage|lot|station"
    r"|road|junction|space|spot|bay|lane|street|bed|town|the)\b)\w+"
    r"|(?:shut|closed) (?:its|their) doors|(?:went|gone|going) (?:bust|under|out of business)|officially off\b"
    # a thing of the user's let go, not someone let go somewhere: "let the abbey road go on discogs" (not "let my kids
    # go to the party")
    r"|let (?:the|my|our) (?:[\w-]+ ){1,3}?go\b(?! (?:to|out|outside|play|and|with|in|into|home|back|first|ahead)\b)"
    # the last of something: "told the coordinator im done, last season was my last one"
    r"|(?:was|is) my (?:very )?last (?:one|season|day|shift|class|session|game|match|race|show|gig|term|year)\b"
    r"(?! before\b)"
    # "cancelled prime today", "cancelled the box thing", "finally cancelled the nyt, was paying $25 a month"
    r"|cancell?ed (?:it|them|that|(?:the|my|our) (?:\w+ ){0,2}?thing|(?:the |my |our )?\w+ (?:today|yesterday|for good"
    r"|last \w+)|(?:the|my|our) \w+(?= ?[,.!;—–-]|\s*$))"
    r"|(?:paused|cancell?ed|cancelling|canceling|ended|terminated|stopped|drop(?:ped|ping)?"
    # "deleted my insta account", "cancelled the astro society membership"
    r"|deleted|deactivated|closed) (?:my|our|the) (?:\w+ ){0,2}?"
    r"(?:membership|subscription|sub|plan|deliveries|account|profile|contract|policy|direct debit"
    r"|lessons|class(?:es)?|course))\b"
    r"|不再|戒烟|戒酒|滴酒不沾|没碰|没有了|放弃|卖了|卖掉|赎回|清仓|割肉|送人|送走|送给.{1,4}养|(?:都|全)送给|送(?:去|到)[^，。,！？\s]{1,8}?养|出掉|走了|没了|搬走|搬离|离职|辞职|辞掉|辞了|分手|离婚"
    r"|(?<![他她你它])出手了"  # 出手了 a thing is sold it ("车出手了"; not "他出手了", someone made a move)
    r"|戒了|戒掉|退掉|转给别人|转让出去|转让掉|转手了|去世|卸载|吃灰|不学了|不干了|不.{0,4}了(?:[，,。]|$)|退出了?|退群|退团|(?:群|团|队|社|会|班)我?[也都]?(?:已经)?退了"
    # "帐篷送给我表弟了", the user's own shop closed ("小店关了"), retired ("正式退休啦"), "那个云盘订阅我退了"
    r"|送给[^，。,！？\s]{1,6}了|(?:小店|网店|我的店|店铺|工作室)[也都]?关了|(?<!离)退休(?:了|啦)|(?:订阅|会员)我?[也都]?(?:已经)?退了"
    # the place the user went to closed ("楼下那家店突然关门了", "老周那儿关门了"), the user left what they spoke of ("协会那边我
    # 退了"), a group broke up ("周五那个局散了")
    r"|(?:那家|那个|这家|那儿|那边|那里)[^，。,！？\s]{0,6}?(?:关门|倒闭|关店|跑路)了|(?:那边|那里|那儿)我?[也都]?(?:已经)?退了"
    r"|(?:局|团|队|社|群|班)子?[也都就]?散了|没得(?:玩|去|打|练|上)了"
    r"|(?<!警)(?<!告)戒(?![指备严律心]|不掉|不了)"  # 戒奶茶第40天, 戒糖; not a ring (戒指), a guard (警戒) or 戒不掉
    r"|还清|还完了|注销|销户|销卡|(?<![推促营经撤报开花核])销(?:了|掉)"  # a card closed, not an expense reimbursed (报销了)
    r"|到期没续|没续费|不续了|没(?:再|有)?续了|没(?:再|有)续|课我?(?:也|都|已经)?退了|出给[^，。,！？\s]{1,6}了|退课"
    r"|(?:会员|年卡|月卡|季卡|卡)(?:我|也|都)?(?:已经)?退(?:掉)?了|退了(?:会员|年卡|月卡|卡)",
    re.I)
# One thing left for another is a switch, not an ending: "dumped ee for smarty", "ditched voda for giffgaff" (not "quit
# for good", "dumped him for being rude"); so is leaving "the old" one
_LEFT_FOR = re.compile(r"\b(?:ditched|dumped|dropped|swapped|traded|left|quit) (?:[\w&'+-]+ ){1,3}?for (?!(?:good|ever|now"
                       r"|a while|being|it|that|this|me|us|him|her|them)\b)[\w&'+-]"
                       # "cancelled the old policy": the old one, so a new one came
                       r"|\b(?:cancell?ed|ditched|dumped|dropped|sold|quit|left|closed) (?:the|my|our) old\b", re.I)
# Cues that a clause gives a new value ("now I …", "instead", "switched to", "现在", "改"): with one, a message
# that also says what ended ("sold the Corsa, got an e-bike now") states a value rather than only a negation.
_CHANGE = re.compile(
    r"\b(?:now|these days|nowadays|instead|switched|swapped|started|joined|moved|took up|taken up|picked up"
    r"|got|adopted|bought|upgraded|became|new|officially|since the move|after the move|moves to|pulled \w+ out of"
    # a plan or a hire replaced: "change of plans, … we rebooked to crete", "fired them lol … brought in mendez renovations"
    r"|change of plans?|rebooked|brought in|fired (?:them|him|her|my|our|the)"
    # a choice that came of it, and a state from now on: "ended up going with gexa", "that's what we're doing going
    # forward", "the practice handed all her patients to dr brennan", "ovo energy takes over on the 1st"
    r"|ended up (?:going|moving|booking|switching|getting|picking|using|signing|joining|choosing|taking|ordering|buying"
    r"|renting|seeing|with|at|on"
    r"|in (?!(?:the )?(?:er|a&e|hospital|urgent care|tears|bed)\b))"
    r"|going forward|from now on|from here on|signed up (?:at|with)|takes over|took over"
    # a job left and one begun: "last day at the old place friday, starting at Monzo on the 5th"
    r"|(?:last|final) (?:day|shift|week) (?:at|with) (?:the|my) (?:old|previous)|starting at (?-i:[A-Z])\w*"
    # someone else's doing that moved the user: "my sister added me to her Visible family thing", "the practice handed
    # me off to dr Lindqvist", "coach stuck me at center for the rest of the year"; and someone the user was paired with:
    # "club director reshuffled the pairings and stuck me with Marguerite"
    r"|(?:added|moved|switched|swapped|transferred|referred|(?:re)?assigned|bumped|handed|stuck|put|enrolled) (?:me|us)"
    r"(?: (?:off|over|up|back|down|across))? (?:to|onto|on(?! hold)|at|into)"
    r"|(?:(?:re)?paired|partnered|teamed|matched|stuck|put|(?:re)?assigned) (?:me|us)(?: up)? with"
    r"|(?:handed|passed) (?:me|us|everyone|everybody|all of us|(?:all )?(?:her|his|their|its|the) (?:patients|clients"
    r"|customers|students|members)"
    r"|(?:my|our) (?:file|files|records|notes|chart|case|account))(?: over)? to"
    # a new state from a moment: "the car's covered by admiral from today", "starting jan we're paying $340 a month"
    r"|(?:from|as of|starting) (?:today|tomorrow|next (?:week|month|year)|(?:mon|tues|wednes|thurs|fri|satur|sun)day"
    r"|(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|september"
    r"|october|november|december))|(?:as of|starting) (?:last|this) (?:week(?:end)?|month|year)"
    # the first time somewhere new: "first session at Granite Arch tonight", "first day at Stripe"
    r"|first (?:full )?(?:session|class|day|week|shift|visit|appointment|lesson)s? (?:at|with)"
    # the old one passed on, so a new one came: "the old deck went to my brother", "gave the old bike to my niece"; a
    # number moved to another network: "number got ported over", "ported my number to visible"
    r"|(?:the|my|our) old (?!(?:man|woman|lady|guy|boy|girl|folks|friends?|neighbou?rs?|boss|teacher|coach|roommate"
    r"|flatmate|school|uni|college)\b)(?:[\w-]+ ){0,2}?(?:went|goes|is going) to (?:my|our|a|an|the|his|her|their)"
    r"|(?:gave|passed|handed|sold) (?:the|my|our) old"
    r"|ported (?:my |our |the )?(?:number|sim|line)|(?:number|line) (?:got |was |is )?ported)\b"
    # 新 of the user's, not of a shop that opened near something ("教会旁边新开了家咖啡店"); 入了 a thing is bought it
    r"|现在|最近(?!想|打算|准备|考虑|在想|在考虑)|(?:这阵子|这段时间)(?!想|打算|准备|考虑)|如今|改|换|跳槽|搬到|搬去|迁到|挪到|开始"
    # "这俩月都骑小电驴上班了": the last few weeks or months, as 最近; "携号转网去广电了"; "之前那对送表弟了": the old one passed on
    r"|这(?:俩|两|几)个?(?:月|礼拜|星期|周)(?!想|打算|准备|考虑)|携号转网|" + OLD_ONE_PASSED_ON_ZH +
    r"|新(?!开了?一?家)|入了(?:[台个部辆款只块副]|(?=[A-Za-z]))|(?:上|提)了[台辆部](?=[^，。,！？\s])|入手|投奔|转粉|开通|开了[^，。,！？\s]{0,8}?(?:会员|卡)"
    r"|报了[^，。,！？\s]{0,10}?(?:班|课)|涨到|降到|涨价|降价"  # "报了个尤克里里的班": signed up for something new
    # what the user had to take instead, and where they have gone since: "只好去了公司附近的美奥口腔", "就一直在那下单了"
    r"|(?:只好|只能|只得)(?:去了|换了?|改|找了|用了)|(?:就|都)一直在(?:那|这)"
    # a state from a moment on, as "starting next month": "下个月起去美团", "3月起改成每周两次"; not "今天起晚了"
    r"|(?:今天|明天|下周|下礼拜|下个?月|这周|本周|这个月|本月|明年|[\d一二三四五六七八九十]+月(?:[\d一二三四五六七八九十]+[号日])?)"
    r"起(?![床晚早来得不])", re.I)
# Cues that a clause states the user's own state or a change of it (a verb frame, not a mere topic word):
# the latest such clause about an attribute answers "what … now".
# where the user comes from, said as who they are: "i'm brazilian, moved here 2 years ago"
_NATIONALITY = ("brazilian|mexican|canadian|american|british|english|scottish|welsh|irish|french|german|italian|spanish"
                "|portuguese|dutch|belgian|swiss|austrian|polish|czech|hungarian|romanian|bulgarian|greek|turkish|russian"
                "|ukrainian|swedish|norwegian|danish|finnish|icelandic|chinese|japanese|korean|taiwanese|vietnamese|thai"
                "|filipino|filipina|indonesian|malaysian|singaporean|indian|pakistani|bangladeshi|sri lankan|nepali"
                "|iranian|iraqi|israeli|lebanese|egyptian|moroccan|nigerian|ghanaian|kenyan|ethiopian|south african"
                "|australian|kiwi|argentinian|argentine|chilean|colombian|peruvian|venezuelan|cuban|jamaican")
# what 把 moves is a thing, not the user: "周末把照片全迁到阿里云盘了", "把沙发搬到客厅" (but "把家搬到了苏州" is a move)
_NOT_A_THING_MOVED = "".join(rf"(?<!把[^家，。,！？\s]{'.' * n})" for n in range(8))
_STATEMENT_CUES: dict[str, tuple[str, str]] = {
    "home_location": (r"\b(?:live[sd]?|living(?! room)|mov(?:ed|ing)(?! (?:all |everything )?(?:of )?(?:my |our )?(?:money|accounts?|current account"
                      r"|checking|savings|pension|salary|isa|mortgage|broadband|contract|subscription|number|desk|cover|policy|insurance"
                      r"|plan|energy|electricity|gas|phone|sim)\b)|relocat\w*|based(?! on\b)|reside|(?:an?|the) [a-z]+ resident|settled|renting|bought a (?:flat|house)|signed (?:the|a|our|my) lease"
                      r"|home (?:is|for me)|(?:got|collected|picked up) (?:the )?keys(?:!|$| (?:to|for) (?:the|our|my|a) (?:new )?" + _HOME_NOUN + r")"
                      r"|keys (?:collected|picked up) for (?:the|our|my|a) (?:new )?" + _HOME_NOUN
                      + r"|(?:our|my|the) (?:new )?(?:place|flat|house|home|apartment|apt) in"
                      # "new address as of saturday: Portobello" (not a new email address)
                      r"|new (?:home |postal )?address(?=\s+as of|\s*$)"  # read in its clause, before the colon
                      # the move itself: "movers dropped everything off", "unpacked the last box", "oregon people now"
                      r"|movers|unpacked (?:the )?(?:last )?box(?:es)?|[a-z]+ (?:people|locals|residents) (?:now|as of)"
                      r"|residents? of"
                      # "officially boise people", "lease ended and we landed in a 1br in fremont"
                      r"|officially [a-z]+ (?:people|locals|residents)"
                      r"|(?:landed|ended up|wound up) (?:in|at) (?:a|an|the|our|my) (?:[\w-]+ ){0,2}?" + _HOME_NOUN
                      # "14 inches overnight here in Duluth": where the user is, not on a trip
                      + r"|here in (?-i:[A-Z][a-z]+)(?! (?:for|on|till|until) )"
                      # "my first flat was in Camden", "our old house is in Leith"
                      r"|(?:our|my) (?:first|old|previous|last|current|new) (?:place|flat|house|home|apartment) (?:was|is) in"
                      r"|back (?:with|at) my (?:parents|mum|dad|mom|folks)"
                      # a switch that names both places: "swapped Clapham for a tiny terrace in Margate"
                      r"|(?:swapped|traded|exchanged|left) (?:(?-i:[A-Z])[\w'-]+ ?){1,3} for (?:a|an|the|our|my)? ?(?:[\w-]+ ){0,3}"
                      r"(?:flat|house|home|place|cottage|terrace|bungalow|apartment|village|town|city|studio|suburbs?))\b",
                      r"住在|住进|" + _NOT_A_THING_MOVED + r"(?:搬到|搬去|搬进|搬回|迁到)|搬(?:完|好)(?:家|了)(?![吗么没])"
                      r"|(?:又|再)搬(?:了|家)(?![吗么没])|搬了(?=[！!。~～\s]|$)"  # "终于搬了！！现在在漕河泾这边"
                      r"|在[\u4e00-\u9fff]{1,8}?(?:住了|待了|呆了|生活了|租房(?!子?吗))"
                      r"|搬家(?=到|去|来|回|进)|搬家(?:啦|了)(?!吗|没)|租在|(?:就是|成了)[\u4e00-\u9fff]{2,3}人了"
                      r"|定居|租了|买了.{0,4}房|迁居|移居|落脚|安家|安顿|" + _ZH_LIVES_SINCE + r"|住到|住回"
                      r"|(?:租|买)的房子?在"
                      # "我住望京这边", "我们家住闵行": 住 right after the user, not a stay (住院, 住酒店) or a question (住哪)
                      r"|(?:我|我们|我们家|我家)(?:一直|还|就)?住(?!院|宿|酒店|宾馆|民宿|哪|得|过|不|的|了一?晚)"),
    # "near my work for $50": the workplace as a noun, a price — no statement of who the user works for
    "employer": (r"\b(?:(?<!my )(?<!our )(?<!the )(?<!from )work(?:ing|s|ed)?" + _WORK_MODE + r" (?:at|for|in)(?! (?:me|us|you|it|them)\b| ?[$£€¥\d])|job (?:at|with)|joined(?! (?:a|an|the|my|our) (?:[\w-]+ ){0,3}(?:class|classes|club|gym|choir|band|league|group"
                 r"|course|waitlist|community|orchestra|meetup|programme|program)\b)|hired|employed|started at|starting at (?-i:[A-Z])\w*|contract with"
                 r"|(?:accepted|took|signed) (?:the|an|a|their|his|her) (?:job |new )?offer"
                 r"|(?:my|a|long|night|late|early|double|12 hour|12-hour) (?:\w+ )?shifts? (?:at|in)"
                 r"|shifts? (?:on (?:\w+ ){1,3})?(?:at|in) (?:the )?(?-i:[A-Z])\w*"
                 # "pulling doubles at Crumb & Co", "as a structural engineer at Arup": a job's hours or its title, at a name
                 r"|(?:pulling|working|doing|covering) (?:doubles|double shifts|a double(?: shift)?|overtime|nights|lates|earlies)"
                 r" at (?-i:[A-Z])\w*|as an? " + _JOB + r" (?:at|with|for) (?-i:[A-Z])\w*"
                 # "just got off the overnight at Mercy General ER": a shift ended, at a name
                 r"|(?:got|getting|get) off (?:the|my|a|an) (?:[\w-]+ )?(?:overnight|night|shift|double|late|early)s?"
                 r"(?: shift)? (?:at|in) (?:the )?(?-i:[A-Z])\w*"
                 r"|position (?:at|with)|role (?:at|with)|company went|jumped ship"
                 # "started driving for Metro Transit": work done for a name
                 r"|(?:driv|deliver|freelanc|tutor|nann|bartend|consult)(?:e|es|ed|ing|ying|ied|ies|s)?"
                 r" for (?-i:[A-Z])\w*"
                 # "my team at Duolingo shipped the new streak thing": the user's place in a named workplace
                 r"|(?:my|our) (?:" + WORKPLACE_PEOPLE + r") (?:at|@) (?-i:[A-Z])\w*|(?:(?:first|second|third|fourth|last) (?:full )?(?:day|week|month|shift)|(?:day|week) (?:one|1)) (?:at|with)"
                 # "starting at a fintech called Ramp": a place by its kind, then its name
                 r"|(?:starting|started|joining|joined|working) (?:at|for) an? (?:[\w-]+ ){1,2}(?:called|named)"
                 r"|joining (?!(?:a|an|the|my|our|us|you|them|in|him|her|it)\b)\w|handed in (?:my )?notice (?:at|to)"
                 r"|moved over to|transferred to (?:a |an |the |another |our )?(?:[\w'-]+ ){0,4}(?:unit|ward|team|department"
                 r"|dept|branch|office|site|store|division|clinic|hospital|practice|depot|plant|lab))\b"
                 # "being an ER nurse at St. Mary's is no joke": a job the lexicon knows, at a named place
                 r"|\bbeing an? (?:[\w-]+\s+){0,2}(?:" + _JOBS
                 + r") (?:at|for) (?-i:[A-Z])"
                 # "i'm an auditor at deloitte btw": a job the lexicon knows, at a place named in any case
                 r"|\b(?:i'?m|i am|we'?re) an? (?:[\w-]+\s+){0,2}(?:" + _JOBS
                 + r") (?:at|for) (?!(?:the moment|home|night|heart|least|most|times|work|all|it|that)\b)\w",
                 r"上班|入职|跳槽|加入了(?![^，。,！？\s]{0,16}(?:" + ZH_GROUP_WORDS + r")(?:[，。,！？\s]|$))|任职"
                 r"|在.{1,12}工作|公司|辞职|离职|辞掉了?工作|我?辞了"
                 # "今天又在字节加班到十点": overtime at a place is work there
                 r"|在(?!家)[^\s，。,！？]{1,8}?加班"
                 # "我在字节做产品": a line of work at a place
                 r"|在[^\s，。,！？]{1,8}?(?:做|干|当)(?:产品|运营|开发|设计|销售|市场|测试|算法|前端|后端|客服|财务|人事|HR|行政|编辑"
                 r"|咨询|研发|技术|数据|教研|审计|投行|法务)"
                 # "九月去二中当语文老师了": a job at a place the user goes to
                 r"|(?:去|到)[^\s，。,！？]{1,8}?当(?=" + _ZH_JOB + r")"),
    "occupation": (r"\b(?:work(?:ing)?" + _WORK_MODE + r" as|i'?m an? |i am an? |retrain\w*|promoted|bumped (?:me )?up to|freelanc\w*|qualified as|became an?"
                   r"|career as|job is|role is|(?:started|began|starting) (?:out )?as an?|job as an?|living as an?"
                   r"|position as an?|handed in my notice|new job)\b|\bi'?m one of the " + _JOB + r"\b"
                   r"|\b(?:made|making|promoted) me (?:the |an? )?" + _JOB + r"\b"
                   # "Passed my probation as a junior developer": a job the lexicon knows, said with "as"
                   r"|\bas an? (?:[\w-]+\s+){0,2}(?:"
                   + _JOBS + r")\b"
                   # "first week as sous chef DONE": a milestone names the job without its article; "being a nurse"
                   r"|\b(?:(?:first|second) (?:full )?(?:day|week|month|shift) as|being an?) (?:[\w-]+\s+){0,2}(?:"
                   + _JOBS + r"|[a-z]+(?:grapher|ologist|ician))\b"
                   # "respiratory therapist life during flu season": the job as a way of life
                   r"|\b(?:" + _JOBS + r"|[a-z]+(?:grapher|ologist|ician|therapist|ist)) life\b",
                   r"职业|工作是|当了|做了|在做|在[^，。,]{1,10}教(?!室|材|程|练|堂)|转行|改行|是一名|是个|是做|干起了|做起了|开了一家|写代码|编程|教书"
                   r"|(?:当|做)[^，。,]{0,6}(?:师|员|家|者|工|医|护士|老师|会计|律师|记者|编辑|销售|经理)|做" + _ZH_JOB
                   + r"|我是[^，。,！？]{2,16}?的" + _ZH_JOB + r"|我是" + _ZH_JOB
                   # "在4S店卖车真的累": where the user works, by what they do there
                   + r"|在[^，。,！？]{1,10}?(?:上班|打工|实习|卖车|卖房)"),
    "diet": (r"\b(?:vegetarian|vegan|pescatarian|keto|diet|stopped eating|cut out|eat meat|started eating|plant-based)\b",
             r"吃素|素食|饮食|吃肉|不吃|开始吃"),
    "drink_preference": (r"\b(?:drink\w*|teetotal|tee-total|on the wagon|switched to|decaf|caffeine|my go-to|my usual|(?:coffee|tea|latte|cappuccino"
                         r"|espresso|americano|matcha|wine|beer|cider|gin|whisk(?:e)?y|vodka|cocktail|kombucha)s?\b"
                         r"(?!\s+(?:" + MODIFIED_HEADS + r")s?\b))",
                         r"喝|改喝|咖啡|奶茶|气泡水|戒酒|把酒戒|滴酒不沾|啤酒|红酒|白酒|美式|拿铁|手冲|摩卡|澳白"),
    "partner": (r"\b(?:married|dating|engaged|my (?:wife|husband|partner|girlfriend|boyfriend|fianc\w*|spouse)(?!'s)"
                r"|broke up|divorced|split up|separated|(?:are|were|not|no longer|aren't|weren't) together"
                r"|seeing (?:someone|somebody|a (?!(?:dr|mr|mrs|ms|prof)\b|therapist|counsell?or|doctor|physio|specialist|consultant|dentist"
                r"|psychiatrist|psychologist|chiropractor|nutritionist|dietitian|tutor|coach)\w+|\w+ called"
                r"|(?:this|a|some) (?:guy|girl|man|woman|dude|person))|my ex\b"
                r"|been with(?! (?:" + _BANK + "|" + _NETWORK + r")\b)|been together|in a relationship|called it quits|parted ways|made it official"
                r"|(?:\d+|a|one|two|three|four|five|six|seven|eight|nine|ten) (?:years?|months?) together"
                r"|date night|" + _NTH + r" date|valentine'?s (?:day |dinner |date |night )?(?:with|w/?) (?!(?:the|my) )"
                r"|(?:our|my) (?:\w+ )?anniversary)\b",
                r"嫁给|娶了|结婚|离婚|分手|分了|在一起|老婆|老公|妻子|丈夫|女朋友|男朋友|对象|爱人|约会|前任"),
    "pet": (r"\b(?:(?:have|got|adopted|rescued|bought|keep)\s+(?:a|an|two|three|our|my)\s+(?:\w+\s+){0,2}"
            r"(?:pet|dog|cat|puppy|kitten|rabbit|hamster|parrot|gecko|fish|goldfish|tortoise|budgie|lizard|snake|ferret)"
            r"|my (?:\w+\s+)?(?:dog|cat|puppy|kitten|rabbit|hamster|parrot|gecko|tortoise) (?:is|named|called|\w+)"
            r"|passed away|rehomed"
            # a dog walked by name: "just back from walking Biscuit", "刚遛完豆包回来"
            r"|walk(?:ing|ed)? (?-i:[A-Z])[a-z]+\b(?! (?:street|road|lane|avenue|park|home)\b))\b",
            r"养了|领养|我家的.{0,3}(?:猫|狗|兔|鹦鹉)|宠物|(?:接|抱|带|捡)了一?只[\u4e00-\u9fff]{0,3}?" + _PET_ZH + "回家"
            r"|遛(?![完了着]?(?:" + _NO_DOG_WALKED + r"))[完了着]?[\u4e00-\u9fff]{1,3}?回来"),
    "school": (r"\b(?:(?:majoring|majored) in|(?:changed|switched|declared) (?:my )?majors?|my major (?:is|to)"
               r"|[a-z]+ major(?= and\b|[,.!]|$)|study(?:ing)? at(?! (?:night|home|weekends?|the weekend|the library|my desk|work)\b)|studies at|student at|enrolled|accepted (?:to|at|into)|started (?:uni|college)"
               r"|doing an? (?:\w+ ){0,2}(?:degree|msc|phd|course|ma|ba)"
               # "just started the accelerated nursing program at Drexel": a course of study at a named place
               r"|(?:started|starting|doing|in|on|joined|into) (?:the |a |an |my )?(?:[\w-]+ ){0,3}(?:program|programme"
               r"|course|degree|msc|phd|mba|bootcamp) (?:at|with) (?-i:[A-Z])\w*"
               r"|signed up for (?:an? |the |some )?(?:\w+ ){0,2}(?:lessons|classes|class|course|degree|msc|phd|ma|ba)"
               r"|transferred (?:to (?:a |an |the |another )?(?:[\w'-]+ ){0,3}(?:university|uni|college|school|course"
               r"|programme|program|degree)|schools|universities|colleges|unis))\b",
               r"读书|上学|在读|读研|读博|转学|考上|考进|在.{2,20}(?:大学|学院|学校|夜校)"),
    "car": (r"\b(?:car-?free"
            # "the old Golf failed its MOT again", "picked up the MG4 today!! first EV"
            r"|(?:failed|passed|fail|pass|due|booked in for|booked for) (?:its|her|his|the|my|our) mot"
            r"|(?:first|new|an|my|our) (?:ev|electric car|hybrid)(?! charger| charging| bike| bicycle)"
            r"|drive an?|driving an?|bought an? (?:new |used )?car|traded|new (?:car|truck|suv|pickup|hatchback)|my car is"
            r"|my (?:old |new )?(?:(?:19|20)\d\d )?(?:car|truck|suv|hatchback|sedan|toyota|honda|tesla|ford|bmw|audi|vw|volkswagen|kia"
            r"|hyundai|volvo|mazda|subaru|nissan|renault|peugeot|fiat|skoda|mercedes|porsche|jeep|polestar|chevy"
            r"|chevrolet|lexus|jaguar|suzuki|mitsubishi|vauxhall|rivian"
            r"|" + CAR_MODELS + r")\w*"  # a model no other thing is called: "my old Corolla hit 200k miles today"
            r"(?! (?:insurance|loan|payment|wash|park|keys?|seats?)\b))\b",
            r"开一辆|开的是|开的还是|开着(?:那|这|一)辆|买了一辆|换了一辆|我的车|提车|(?:那|这)辆[^，。,]{0,10}开了|(?:^|把)车(?:已经|早就)?(?:卖|送人|报废|出手)"
            r"|卖了车|没有?车了|不开车了"),
    "commute": (r"\b(?:commut\w*|(?:get|take|catch|ride|hop on) (?:the |a )?(?:bus|train|tram|tube|metro|ferry|subway)"
                r"(?: in| to work)?|(?:get|go|travel|cycl|bik|walk|driv|rid|run|scoot)\w* (?:it |her |him |my [\w-]+ )?(?:in )?"
                r"to (?:work|the office)"
                r"|(?:bus|train|tube|metro|tram|ferry|bike|e-bike|scooter) (?:in)?to (?:work|the office)|work from home"
                r"|working from home|wfh|(?:bus|train|tube|metro|tram|ferry|subway|bike|e-bike|scooter)\b[^,.;!?]{0,30}"
                r"\bevery (?:morning|day|weekday|workday))\b",
                r"通勤|上班路上|在家办公|远程办公|走路(?:去)?上班"
                r"|(?:骑|坐|开|挤|搭|乘|打)[\u4e00-\u9fffA-Za-z0-9]{1,8}?(?:去|来)?(?:上班|去公司|到公司|去单位|通勤)"
                r"|(?:每天|天天|每日)[\u4e00-\u9fff]{0,3}?(?:挤|坐|搭|乘|骑)(?:\d+号线|地铁|公交|轻轨|班车|电动车|小电驴)"
                r"|(?:坐|搭|乘|挤)(?:地铁)?\d+号线|\d+号线转(?:地铁)?\d+号线"),
    "phone_model": (r"\b(?:iphone|android|pixel|galaxy|smartphone|(?:new|old) (?:phone|mobile)|phone)(?:\d+\w*)?\b"
                    # "my phone plan is sooo expensive" is the network's
                    r"(?!\s+(?:number|plan|contract|tariff|provider|carrier|signal|" + MODIFIED_HEADS + r")s?\b)",
                    r"手机(?!号)|(?:华为|小米|红米|荣耀|一加|魅族|三星|OPPO|oppo|vivo|苹果)\s*(?:[A-Za-z]+\s*)?\d+"),
    "instrument": (r"\b(?:play(?:ing)? the|learning the|took up the|gave up the)\s+(?:" + _PLAYED + r"|bass)\b"
                   # "started piano lessons", "gave up on guitar", "cello practice every night"
                   r"|\b(?:(?:started|starting|learning|took up|taken up|gave up(?: on)?|giving up(?: on)?|quit|stopped"
                   r"|dropped|practi[sc]ing)\s+(?:the\s+)?(?:" + _PLAYED + r")|(?:" + _PLAYED.replace("drums", "drum") + r"|sax)"
                   r" (?:lessons?|class|classes|teacher|tutor|practice|grade \d)|put (?:the |my )?(?:" + _PLAYED + r") away)\b"
                   r"|\b(?:in|joined|joining|leaving|left|quit|quitting) (?:a|the|my|our) (?:\w+ )?(?:band|orchestra|choir)\b",
                   r"(?:学|弹|拉|练).{0,2}(?:钢琴|吉他|小提琴|大提琴|古筝|二胡|鼓|长笛|萨克斯|尤克里里)|(?:钢琴|吉他|小提琴)不学"
                   r"|(?:钢琴|吉他|小提琴|大提琴|古筝|二胡|架子鼓|长笛|萨克斯|尤克里里)的?(?:课|班)"),
    "hobby": (r"\b(?:hobby|taken up|took up|i'?m into|really into|my thing|in my spare time|for fun"
              # a sport given up: "hung up the boots for good after the shoulder thing"
              r"|" + _SPORT_GEAR_HUNG_UP + r")\b",
              r"爱好|迷上|喜欢上|业余时间|闲下来"),
    # a gym by name or kind, with a word of joining or belonging: not "the gym in our building is closed"
    "gym": (r"\b(?:join\w*|sign(?:ed)? up|member|membership|go to|going to|started (?:at|going)|switch\w*|moved"
            r"|(?:went|going|go|ended up) with|ended up at"
            r"|cancell?ed|quit|left|train(?:s|ing)? at|work(?:ing)? out at)\b[^,.;!?]{0,40}?" + _GYM
            + r"|" + _GYM + r"\s+(?:membership|member)\b"
            + r"|\b(?:bouldering|climbing|lifting) at (?!home\b|the moment\b|night\b)\w"  # "i'm bouldering at depot instead"
            # "first session at Vital today": the first visit to a place one trains at, named
            + r"|\bfirst (?:session|climb|workout|class) (?:at|in) (?:the )?(?-i:[A-Z])",
            r"健身房|健身卡|私教|团课|超级猩猩|乐刻|威尔士|一兆韦德|金吉鸟|健身.{0,3}(?:年卡|月卡|季卡|会员)"
            # a card of a place one trains at: "游泳卡退了", "瑜伽次卡还剩三次"
            r"|(?:游泳|泳馆|瑜伽|普拉提|攀岩|岩馆|拳馆|拳击|舞蹈)(?:年|月|季|次)?卡|办了(?:一?张)?[^，。,！？\s]{0,6}?(?:年卡|月卡|季卡)"),
    # a video streaming service named in a statement: "our streaming is basically just netflix", "we're a disney+
    # household now", "cancelled hulu"
    "streaming": (r"\b(?:" + _STREAMING_SERVICE + r")(?!\w)",
                  r"爱奇艺|腾讯视频|优酷|芒果TV|芒果tv|B站|哔哩哔哩|大会员|视频会员|奈飞"),
    # who insures the home, the car, the user: "renewed the homeowners policy w/ State Farm", "our house is covered by
    # Allstate", "车险今年换成了平安"
    "insurer": (r"\b(?:insur(?:ance|er|ers|ed|es)|(?:home|car|auto|health|pet|life|contents|renters?|homeowners?|travel)"
                r" (?:policy|cover)|policy (?:with|w/)|(?:is|are|now|got us|got me) covered by|premium|renewal quote"
                r"|(?:same|full|better|cheaper|comprehensive) cover|fully comp|no claims"
                # "moved my cover over to Direct Line": the policy taken to another insurer
                r"|(?:moved|switched|swapped|transferred|took) (?:my|our|the) (?:[\w-]+ )?cover (?:over )?(?:to|with)"
                r"|(?:the|my|our) (?:old|new|current) policy|cancell?ed (?:the |my |our )?(?:old )?policy"
                r"|quotes? (?:came|come|comes) in|(?:got|get|getting) (?:a |some )?(?:new )?quotes?"
                # "went w Progressive and bundled it with my renters": an insurer by name, chosen
                r"|(?:went|going|gone|switched|switching|signed up|sticking|stuck|stayed|staying|been|am|'m|are|'re)"
                r" (?:over )?(?:w/?|with|to) (?:" + _INSURER + r"))\b",
                r"保险|车险|医疗险|重疾险|意外险|寿险|医保|保单|投保|续保|" + _ZH_INSURER),
    # who cuts the user's hair: "got a fresh cut at barbería don chuy", "these days i go to dre at sharp edge barbers"
    "barber": (r"\b(?:barber\w*|barber[ií]a|hairdresser\w*|hair ?salon|hairstylist|hair stylist|(?:my|our) stylist"
               r"|(?:fresh|new) (?:cut|fade|trim)"
               r"|haircut|got (?:a|my) (?:cut|fade|trim|haircut)|does (?:\w+ )?(?:tapers|fades|cuts|line-?ups)|tapers?"
               # a barber's by its kind of name: "fade factory", "kings clippers", "blade room"
               r"|(?:fade|clipper|blade)s? (?:factory|house|lab|co|bar|room|club|studio|kings?|masters?)|[a-z]+ (?:fades|clippers))\b",
               # "现在找小林剪": who the user goes to for a cut
               r"理发|剪头|剪发|发型师|理发店|托尼老师|Tony老师|找[\u4e00-\u9fffA-Za-z]{1,4}?剪(?![刀纸辑片子视])"),
    # how the user sees well, and where they get it: "new glasses came in! tortoiseshell Ray-Ban frames", "had lasik
    # done on friday", "开始戴隐形了", "这次就在明目视光配的" (not wine glasses, phone contacts or a hidden cost)
    "eyewear": (r"\b(?:(?<!wine )(?<!shot )(?<!pint )(?<!beer )(?<!drinking )(?<!champagne )(?<!magnifying )"
                r"(?<!safety )glasses|(?<!laptop )(?<!tech )(?<!technical )(?<!full )specs|spectacles|contact lens(?:es)?"
                r"|(?:my|wear|wearing|daily|monthly|new|in) contacts|lasik|laser eye"
                r"|optician\w*|optometrist|varifocals|bifocals|eye test|(?:glasses|lens|lenses) prescription)\b",
                r"眼镜(?!蛇|猴)|" + _CONTACT_LENSES_ZH + r"|框架眼镜|戴回框架|近视手术|激光手术|飞秒|验光|美瞳|角膜塑形|OK镜"
                r"|配了副"),
    # what heats the user's home: "our worcester bosch combi is banging again", "the heat pump went in"
    "heating": (r"\b(?:boiler|combi|heat pump|central heating|storage heaters?|underfloor heating)\b",
                r"暖气|地暖|锅炉|壁挂炉|供暖|采暖"),
    # who looks after the user's child: "starts at little acorns nursery", "she's at her grandma's on weekdays now",
    # "孩子送托班了", "现在奶奶带"
    "childcare": (r"\b(?:nursery|nurseries|day ?care|childminder|child-minder|nanny|au pair|pre-?school|kindergarten|creche|montessori"
                  r"|crèche|after-?school (?:club|care|program)|breakfast club"
                  r"|at (?:her|his|their) (?:grandma|grandpa|nana|nan|granny|gran|grandparents|nanny)'s"
                  r"|(?:grandma|grandpa|nana|granny|gran|nan|grandparents|in-laws|mother-in-law|my mum|my mom)"
                  r" (?:has|have|takes|take|looks after|look after|watches|watch|minds|mind|is looking after"
                  r"|are looking after|has got) (?:her|him|them|the kids|the baby))\b",
                  r"托班|托儿所|托育|幼儿园|保姆|育儿嫂|托管|晚托|日托|早教|转园|(?:奶奶|爷爷|姥姥|姥爷|外婆|外公|婆婆|老人|爸妈|我妈)"
                  r"(?:在|帮忙|帮着|帮我们)?带"
                  # "这周给朵朵转到金色摇篮了": moved a child to another place
                  r"|给[\u4e00-\u9fff]{1,3}(?:转到|转去|换到)"),
    # what the user holds: "bought 5k of a vanguard index fund", "买了5万的易方达蓝筹精选", "那个基金我全部赎回了"
    "investment": (r"\b(?:index funds?|(?:bought|sold|holding|hold|own|dumped|cashed out(?: of)?) (?:\w+ ){0,3}"
                   r"(?:shares|stocks?|etfs?|funds?)|stocks and shares isa|s&s isa|vanguard|(?:my|our) isa"
                   r"|cashed out|dollar-cost)\b",
                   r"基金|股票|理财|定投|ETF|赎回|清仓|持仓|仓位|割肉|易方达|华夏|天弘|南方|嘉实|广发|富国|汇添富|蓝筹|白马股"
                   r"|A股|港股|美股"),
    # who the user rents from: "my landlord is a guy called derek", "we rent from a couple in leeds"
    "landlord": (r"\b(?:landlord|landlady|letting agents?|(?:rent|renting) (?:the (?:flat|house|place|apartment) )?from"
                 r"|property (?:management|mgmt|managers?)|new owners? (?:is|are)"
                 r"|rent (?:now |will )?(?:goes|go|is paid|gets paid) (?:through|to))\b",
                 r"房东|二房东|房主"),
    # where the user rents a desk: "got a dedicated desk at the WeWork on Market St", "peaced out of wework"
    "coworking": (r"\b(?:cowork\w*|co-working|hot ?desk\w*|dedicated desk|(?:standing|shared) desks|desk membership"
                  r"|wework|regus|shared office"
                  r"|(?:moved|took|rent(?:ed|ing)?|got|grabbed) (?:my |a )?(?:hot |dedicated )?desk (?:(?:over|across) )?(?:to|at))\b",
                  r"联合办公|共享办公|共享工位"),
    # where the user comes from: "grew up in Leeds", "刚从成都老家过完年回来"
    "hometown": (r"\b(?:hometown|home town|grew up in|growing up in|(?:raised|bred) in (?-i:[A-Z])\w*|originally from"
                 r"|i'?m (?:half )?(?:" + _NATIONALITY + r"))\b",
                 r"老家|家乡"),
    # "my blood type is o negative", "I'm A+", "熊猫血"
    "blood_type": (r"\b(?:blood (?:type|group)|type (?:o|a|b|ab)\b|(?:o|ab) ?(?:neg|negative|pos|positive)\b"
                   r"|rh ?(?:negative|positive))",
                   r"血型|熊猫血|RH阴性|Rh阴性|rh阴性|我是(?:AB|A|B|O)型|(?:AB|A|B|O)型血"),
    # who the user sees for their mind: "started seeing a therapist, Dr. Helen Marsh", "换了个心理咨询师"
    "therapist": (r"\b(?<!respiratory )(?<!physical )(?<!occupational )(?<!speech )(?<!massage )(?<!sports )"
                  r"(?:therapist|therapists|therapy|counsell?or|counsell?ing|psychologist|psychiatrist|shrink)\b"
                  # "been seeing Dr. Hanna Weiss every other Thursday for my anxiety stuff"
                  r"|\b(?:seeing|see|saw|sessions? with)\b[^!?]{0,40}?\bfor (?:my |the )?(?:anxiety|depression|ptsd|ocd|panic|mental health)\b",
                  r"心理咨询|咨询师|心理医生|心理治疗"),
    # who looks after the user's animals: "took Biscuit to Dr. Okafor at Riverbend Animal Clinic", "switching vets"
    "vet": (r"\b(?:vets?|veterinar\w+|animal (?:clinic|hospital)|pet (?:clinic|hospital)"
            r"|for (?:her|his|their|its) (?:shots|jabs|boosters?|vaccinations?|annual check-?up))\b(?!-)",
            r"兽医|宠物医院|动物医院"),
    # where the user gives time: "volunteering at the Eastside Food Bank", "not doing the food bank anymore"
    "volunteering": (r"\b(?:volunteer\w*|food ?banks?|food pantry|community (?:larder|pantry|fridge)"
                     r"|soup kitchen|(?:animal|dog|cat) shelter|humane society|charity shop"
                     r"|hospice)\b",
                     r"志愿者|做志愿|志愿服务|义工|公益"),
    # who brings the internet into the home: "fibre with BT", "家里装了电信的宽带", "宽带转到联通了"
    "broadband": (r"\b(?:broadband|fib(?:re|er) (?:line|plan|deal|contract|package|provider|internet)|(?:home )?internet"
                  r" (?:provider|plan|contract|deal|package|bill|company)|isp|router from|wi-?fi provider)\b",
                  r"宽带|光纤|装了.{0,6}(?:网|wifi|WiFi)|(?:办了|装了|换了|升级了?)[^，。,！？\s]{0,6}?(?:千兆|百兆|\d+M)(?!网卡|路由|交换)"),
    # who looks after the user's teeth: "my old dentist retired", "had my cleaning today with Dr. Okafor"
    "dentist": (r"\b(?:dentist\w*|dental|orthodontist|hygienist|(?:cleaning|check-?up|filling|crown|root canal)"
                r"[^,.;!?]{0,20}\bdr\b)",
                r"牙医|牙科|洗牙|看牙|补牙|矫正牙"),
    # "been with lloyds since uni, current account + savings all there"
    "bank": (r"\b(?:bank(?:s|ed|ing)? with|my bank\b(?! holiday)|switched banks|(?:current|checking|savings|bank|business) accounts?"
             r"|(?:been|am|'m|are|'re|stayed|staying|stuck|sticking) with (?:" + _BANK + r")"
             r"|(?:moved|moving|switched|switching|transferred) (?:all |everything )?(?:of )?(?:my |our )?"
             r"(?:money|accounts?|current account|checking|savings|salary|everything) (?:over )?(?:to|from|out of)"
             r"|(?:opened|closed) (?:a |an |my |our )?(?:[\w-]+ ){0,3}"
             r"(?:current|checking|savings|bank) account|(?:opened|closed) (?:a |an |my |our )?(?:[\w-]+ ){1,3}acct"
             r"|(?:opened|closed|have|got) (?:a |an |my |our )?(?:new )?(?:account|checking|savings) (?:with|at))",
             r"银行卡|工资卡|开户|(?:招商|建设|工商|农业|中国|交通|浦发|民生|中信|兴业|平安|光大|邮政储蓄)银行|招行|建行|工行|农行|中行|交行"),
    "language": (r"\b(?:learn\w*|stud(?:y|ies|ying|ied)|doing|started|taking|switched to|moved on to|picked up|dropped"
                 r"|gave up(?: on)?"
                 r"|quit|practis\w+|practic\w+)\s+(?:\w+\s+){0,3}?" + _LANGUAGE + r"\b|\b" + _LANGUAGE
                 + r"\s+(?:lessons?|classes|class|course|tutor|exam|on duolingo|streak)\b|\bduolingo\b"
                 # "my tutor's away, so I'm doing lessons with Marco": a tutor asks about the language learnt (`slots`)
                 r"|\b(?:my|our|new) tutor\b",
                 r"学(?:日语|韩语|英语|法语|德语|西班牙语|意大利语|俄语|粤语|阿拉伯语|葡萄牙语)|(?:日语|韩语|英语|法语|德语|西班牙语"
                 r"|意大利语|俄语|粤语)(?:课|班)|雅思|托福|多邻国"),
    # not "changed my plans", "switched provider" (energy): a phone's plan or provider
    "mobile_network": (r"\b(?:port(?:ed|ing) my number|port(?:ed|ing) (?:done|over|across|complete)"
                       # "so Visible is my carrier now i guess"
                       r"|(?:is|'s) (?:now )?my (?:new )?(?:phone |mobile )?(?:carrier|network|provider)"
                       r"|(?:switched|moved|changed) (?:my )?(?:(?:phone|mobile) (?:network|carrier"
                       r"|provider|contract|plan|sim)|network|carrier|sim)s?|sim[- ]only|(?:phone|mobile) (?:contract|plan|bill)"
                       r"|(?:on|with|to|into|joined) (?:" + _NETWORK + r")"
                       r"|\d+ ?gb (?:plan|data|sim|contract|a month|tariff)"
                       r"|(?:ditched|dumped|swapped|traded|left|dropped) [\w&-]+(?: [\w&-]+)? for (?:" + _NETWORK + r"))\b",
                       r"运营商|携号转网|携转|把号[^，。,！？\s]{0,4}转|手机套餐|话费|(?:中国)?(?:移动|联通|电信)[^，。,！？\s]{0,6}?(?:卡|套餐|号)"
                       r"|(?:号|卡)(?:码)?(?:是|用的?是?)(?:中国)?(?:移动|联通|电信)|" + _ZH_CARRIER_SWITCH.pattern),
    # the team at work: "I'm on the payments team", "moved to the platform team", 调到了数据组
    "team": (r"\b(?:on|joined|moved to|moving to|transferred to|switched to|moved over to|placed on|put on)"
             r" (?:the |a |our )?(?:[\w-]+ ){1,3}(?:team|squad|department|dept)\b(?! (?:captain|sport|game|match)s?\b)",
             r"(?:调到|转到|轮转到|轮到|调去|去了|加入了?|分到|在)[^，。,！？]{1,10}(?:组|团队|部门|事业部|科室"
             r"|部(?=[了啦，。,！？\s]|$)|(?<=[\u4e00-\u9fff]{2})(?<![本学专理文工])科(?=[了啦，。,！？\s]|$))(?!长)"),
    # who the user reports to: "my manager priya is great", "i report to marcus now", "现在直属leader是刘姐"
    "manager": (r"\b(?:my (?:new |old |current |line )?(?:manager|boss|supervisor|team lead|skip(?:-level)?)"
                r"|(?:i|we|now) (?:\w+ )?report(?:s|ing)? (?:directly )?to|new (?:manager|boss|supervisor))\b",
                r"(?:我的?|我们的?|新的?|现在的?|直属)(?:领导|上司|老板|主管|组长|经理|(?<![A-Za-z])leader(?![A-Za-z]))"
                r"|汇报给|向.{1,6}汇报|归.{1,6}管"),
    # an allergy by its own words, or by what the user carries for it: "I'm allergic to penicillin", "I carry an epipen"
    # and the reaction that tells one: "penicillin makes me break out in hives", "got a rash from the amoxicillin"
    "allergy": (r"\b(?:allergic|allergy|allergies|anaphyla\w*|epi-?pens?|intoleran(?:t|ce)|coeliac|celiac|hives"
                r"|(?:a |come out in a |came out in a )?rash (?:from|after)|(?:bad |allergic )?reaction to|swell(?:s|ed)? up)\b",
                r"过敏|不耐受|乳糖不耐"),
    # a medicine by the words that go with taking one: "put me on sertraline", "50mg", "came off the pills"
    "medication": (r"\b(?:prescribed|put me on|started me on|switched me (?:over )?to|came off|coming off|tapering|weaning"
                   r"|\d+\s?mg|medication|meds|antidepressants?|antibiotics|inhaler|insulin|on the pill"
                   r"|(?<!dishwasher )(?<!ipad )(?<!android )(?:pills|tablets)|prescription(?! (?:glasses|lenses|sunglasses))"
                   r"|dosage)\b",
                   r"吃药|服药|停药|开了.{0,6}药|在吃.{1,8}(?:药|片)|换成.{0,8}(?:药|片)|降压药|抗抑郁药|胰岛素"),
    "smoking": (r"\b(?:smok(?:e|es|ed|ing)\b(?! (?:alarm|detector|signal|from|machine|salmon))|smoke[- ]free|cigarettes?"
                r"|cigs|fags|ciggies?|ciggy|roll-ups|vap(?:e|es|ed|ing)|juul(?:s|ing)?|nicotine)\b",
                r"抽烟|吸烟|戒烟|烟瘾|电子烟|包烟|根烟|香烟|烟草|烟(?:又|也|还)?抽|一天[一两半\d]+包"
                r"|[一两半]包(?:红塔山|玉溪|芙蓉王|黄鹤楼|利群|云烟|红双喜|万宝路|七匹狼)|烟戒了|烟戒掉了|(?:没|不)(?:碰|抽|沾)(?:过)?烟|烟我(?:也|都|已经|早|早就)?戒|一根(?:烟)?都没(?:碰|抽)"),
    "children": (r"\b(?:(?:my|our)\s+(?:\w+\s+)?(?:kids?|children|son|sons|daughters?|little ones?|toddler|twins)"
                 r"|(?:have|got|had|raising)\s+(?:a|an|one|two|three|four|five|\d+)\s+(?:\w+\s+)?(?:kids?|children|sons?"
                 r"|daughters?|boys?|girls?)|(?:mum|mom|mother|dad|father|parent)\s+of\s+(?:one|two|three|four|five|\d+)"
                 r"|pregnant|expecting a baby|stay-at-home (?:mum|mom|dad|parent)"
                 # a child by name or pronoun, starting the first school: "Priya started kindergarten this week"
                 r"|\w+ (?:just )?(?:started|starts|starting) (?:at )?(?:kindergarten|nursery|preschool|pre-k|reception"
                 r"|daycare))\b",
                 r"(?:我的?|我家|我们家)(?:孩子|儿子|女儿|娃|宝宝|老大|老二)|[一两二三四五\d]个(?:孩子|儿子|女儿|娃|宝宝)"
                 r"|全职妈妈|全职爸爸|怀孕|二胎"),
}
_CUE_PATTERNS = {name: (re.compile(en, re.I), re.compile(zh)) for name, (en, zh) in _STATEMENT_CUES.items()}
# Between a Chinese and a Latin character, where `\b` sees no boundary (both are word characters)
_HAN_LATIN = re.compile(r"(?<=[\u4e00-\u9fff])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[\u4e00-\u9fff])")
# a space before Chinese ends a clause, as chat types it ("吉他吃灰一年了hhh 最近迷上了架子鼓"); a title's full stop ends none
# ("seeing Dr. Hanna Weiss every other Thursday for my anxiety")
# an emoji before a space ends a clause as a full stop would: "sold the outback 😢 picked up a used Mazda CX-5 today"
_CLAUSE = re.compile(r"(?:[,;:，；：。!?！？…]|(?<!\bDr)(?<!\bdr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bSt)(?<!\bProf)\.)+\s*"
                     rf"|\s*[{EMOJI}]+(?=\s)\s*|\s+(?:and|but|so)\s+|(?<=[\u4e00-\u9fff\w])\s+(?=[\u4e00-\u9fff])")
# A tail that says what a change put an end to ("Transferred to the Royal Free, so no more nights!", "…, no more early
# shifts for me", "调到了日班，再也不用熬夜了") is a consequence of the clause before it, not a negation of it.
_CONSEQUENCE = re.compile(
    r"^(?:so|which means|that means|meaning|and so)\b|^no more\b.*\bfor (?:me|us)\b|^(?:所以|于是|这下|终于)|再也不用|不用再",
    re.I)


# a greeting: "heyyy", "hiya", "good morning"
GREETING_EN = r"h+e+y+a?|hi+|hiya|hello+|howdy|yo|good (?:morning|afternoon|evening)"
# What may open news before its verb: "Heads up — went fully vegan", "Guess what, moved to Leeds!", "Update: sold the car"
_LEAD_IN = re.compile(r"^(?:(?:heads up|guess what|(?:an? )?(?:(?:big|quick|brief|small|little|life|good|some) )?(?:update|news)"
                      r"|fyi|btw|by the way|fun fact|ok so|okay so|well|so|(?:well )?it'?s official"
                      r"|oh and|anyway|" + GREETING_EN +
                      # an interjection before the news: "ok big news, moved down to bristol", "omg finally sold the car"
                      r"|ok|okay|omg|ugh+|yay+|woo+|phew|welp|wow|ahh+|lol|haha+|yess+|sorry)\s*[—–:,!.-]*\s+)+", re.I)


# chat ends a sentence with an emoji as often as with a full stop: "tony retired 😢 going to fade factory now"
# … but not after a title: "dentist is dr. okafor" is one sentence
_SENTENCE_END = re.compile(rf"(?<=[.!;{EMOJI}])(?<!\b[Dd]r\.)(?<!\b[Mm]r\.)(?<!\b[Mm]s\.)(?<!\b[Mm]rs\.)(?<!\b[Ss]t\.)"
                           rf"(?<!\b[Pp]rof\.)\s+")


def statement_topics(text: str) -> list[tuple[str, bool]]:
    """The attributes a first-person statement speaks about, each with whether it only negates ("no longer …").

    Questions in the message are skipped. Read clause by clause: "I quit, now I freelance as a writer" states an occupation, it does not only
    negate one. It decides which of the user's own words a state question looks at (the latest statement
    about the attribute answers it), not what the value is. Every first-person statement is also marked
    `said` (with whether it only negates): recall classes those by meaning when no lexicon names them.
    One whose subject is dropped ("Cancelled PureGym, signed up at the climbing wall") is marked `told`:
    it may be the latest word on a topic (`memory.latest_word`), but "Lived experience matters" is not
    classed by meaning as a statement about where the user lives."""
    text = _told(text)
    if not text:
        return []
    sentences = [_LEAD_IN.sub("", s.strip()) for s in _SENTENCE_END.split(text)]
    own = bool(_FIRST_PERSON.search(text) or _ZH_DROPPED_SUBJECT.search(text.strip()))
    news = [n for n, s in enumerate(sentences) if (VERB_FIRST.match(s) or _HABIT_FIRST.match(s)) and not _GERUND_SUBJECT.match(s)
            or _MILESTONE.match(s) or _RATE.match(s) or _THING_FIRST.match(s) or _ROLE_FIRST.match(s)
            or _ARRIVED.match(s) or _NEW_ADDRESS.match(s)
            or _TOGETHER_FOR.search(s)]
    verb_first = bool(news)
    # Chinese drops the 我 of "我女儿": "女儿在小区里的阳光幼儿园上小班" is about the user's own child
    kin = not own and bool(HAN_CHAR.search(text)) and bool(someone_elses(text.strip()))
    own = own or kin
    if not (own or verb_first or any(_TELLING_VERB_FIRST.match(s) for s in sentences)):
        return []
    # without a subject of the user's, what comes before the news is someone else's: "marco moved to florida 😢 ended
    # up going with sharp & co" tells no move of the user's
    clauses = _clauses(text if own or not news else " ".join(sentences[news[0]:]))
    # a statement only about someone else ("My brother just got a new job") is none of the user's
    # what someone else did that took the user along is the user's too: "mom added me to her family plan on Visible"
    relations = [None] * len(clauses) if includes_the_user(text) else [someone_elses(c) for c in clauses]
    users = [c for c, relation in zip(clauses, relations) if relation != set()]
    if not users:
        return []
    own = own and (kin or any(_FIRST_PERSON.search(c) or _ZH_DROPPED_SUBJECT.search(c) for c in users))
    negations = [bool(_NEGATION.search(clause)) and not _LEFT_FOR.search(clause) for clause in clauses]
    told = ("told", only_negates(clauses, negations))
    # Cue words name a topic only in a statement that has a subject or starts with news ("Moved to Leeds"):
    # "Lived experience matters" may be the user's word, but no word about home. A value held by its verb
    # names one in any statement ("Haven't had a car since the spring").
    by_cues = own or verb_first
    found: dict[str, bool] = {}
    for clause, negated, relation in zip(clauses, negations, relations):
        named = set(held_classes(clause))
        if _RATE.match(clause):  # "3 flat whites a day": a habit of what it counts
            named |= set(value_classes(clause)) & _COUNTED_HABITS
        if by_cues and not (_REPORTED.match(clause) and not says_of_user(clause)):
            latin = _HAN_LATIN.sub(" ", clause)  # "我的iPhone 12": an English cue word inside Chinese
            named |= {name for name, (en, zh) in _CUE_PATTERNS.items() if en.search(latin) or zh.search(clause)}
            named |= switched_kinds(clause)
        if _NOT_HOBBY.search(clause):
            named.discard("hobby")
        of_a_child = (relation and "childcare" in relation) or (relation is None and USERS_CHILD.search(clause))
        if of_a_child and CHILD_SCHOOL.search(clause):
            named.add("childcare")  # "儿子9月开始上实验小学一年级啦": where the child is taught
        if relation is not None:
            named &= relation
        for name in named:
            found[name] = found.get(name, True) and negated
    # "Replaced the Pixel with a Galaxy", "女儿在阳光幼儿园上小班": classed by their words, but no statement of the
    # user's own to class by meaning
    if not own or kin:
        return [*found.items(), told]
    if not _RETROSPECTIVE.search(text) or _CHANGE.search(text):
        found["said"] = only_negates(clauses, negations)
    return list(found.items())


def names_attribute(text: str, attribute: str) -> bool:
    """Whether a clause of the text that tells (not asks) and is not about someone else names the attribute by its
    statement words, with or without a subject: "烦死了，一天一包烟" smoking, "移动的套餐一个月128" the mobile network;
    not "闺蜜和她男朋友又吵架了" (her partner) or "哪个城市的房租最便宜？"."""
    cue = _CUE_PATTERNS.get(attribute)
    if cue is None:
        return False
    for clause in _clauses(_told(text)):
        if someone_elses(clause) == set():
            continue
        if cue[0].search(_HAN_LATIN.sub(" ", clause)) or cue[1].search(clause):
            return True
    return False


# "switched dentists, going to Dr. Alvarez now", "changed banks": a switch names the kind of thing it changed
_SWITCHED_KIND = re.compile(r"\b(?:switched|changed|swapped)\s+(?:my\s+|our\s+)?(?P<kind>[a-z]{3,}?)s\b(?!')", re.I)
_NOT_KINDS = set("gear side place seat lane hand tab clothe plan thing channel topic subject tactic strategy shift "
                 "position direction hat mind course tune sheet bed room desk outfit shoe setting password".split())
_KIND_NAMES = {"job": "employer", "major": "school", "carrier": "mobile_network", "network": "mobile_network",
               "phone": "phone_model", "house": "home_location", "flat": "home_location", "apartment": "home_location"}


def switched_kinds(clause: str) -> set[str]:
    """The attributes a clause says were switched by naming their kind: "switched dentists" → dentist, "changed
    jobs" → employer, "switched carriers" → mobile_network."""
    kinds = set()
    for m in _SWITCHED_KIND.finditer(clause):
        kind = m["kind"].lower()
        if kind not in _NOT_KINDS:
            kinds.add(_KIND_NAMES.get(kind, kind))
    return kinds


_CHANGING = re.compile(r"\bmoving\b", re.I)  # "MOVING DAY DONE"; "moving house is the worst" is no statement at all


def changed_topics(text: str, topics: set[str]) -> set[str]:
    """Which of the `topics` a statement speaks of (its `statement_marks`) it says changed: a clause that names the
    attribute by its cue words also says a change ("now", "moved", "switched", a first day, 现在, 换) — "we're in a
    little terraced house in Walthamstow now", "today was day 1 at Tessaro Health, new badge". A topic named beside a
    change of another is no change of it: "现在住在杭州滨江，离公司走路十分钟" moves home, not job."""
    topics = topics & _CUE_PATTERNS.keys()
    changed: set[str] = set()
    for clause in _clauses(_told(text)) if topics else []:
        if _CHANGE.search(clause) or _CHANGING.search(clause) or _MILESTONE.match(_LEAD_IN.sub("", clause)):
            changed |= {name for name in topics
                        if _CUE_PATTERNS[name][0].search(clause) or _CUE_PATTERNS[name][1].search(clause)}
    return changed


STATEMENT_MARK = "§"  # search tokens of our own start with it: "§home_location", "§pet~no", "§said"


def own_clauses(text: str) -> list[str]:
    """The clauses of a message that are not about someone else ("i havent read a book since 2019", not "my neighbour
    runs a book club")."""
    return [clause for clause in _clauses(text) if someone_elses(clause) is None]


# a choice the user will not undo, after a switch or an end alike: "four years on windows and i'm not going back", "aldi
# has fully converted me"
_NO_GOING_BACK = re.compile(r"\b(?:(?:not|never|no) going back|(?:haven't|never) looked back|converted (?:me|to))\b",
                            re.I)


def tells_a_change(text: str) -> bool:
    """A message that says something changed or ended ("had to switch dentists", "pulled the plug on netflix")."""
    told = _told(text)
    return bool(_CHANGE.search(told) or _NEGATION.search(told) or _NO_GOING_BACK.search(told))


# what a change ends, named after its verb: "stepped back from the pantry", "had to hand the Dell back" (not "left" or
# "dropped", which as often say where the user went or whom they took: "dropped the kids off")
_ENDED_THING = re.compile(r"\b(?:stepped (?:back|away|down) from|gave up(?: on)?|given up(?: on)?|quit|sold|ditched"
                          r"|cancell?ed|got rid of|done with|moved out of|walked away from|bailed on"
                          r"|pulled the plug on)"
                          r"\s+(?P<thing>[\w'&-]+(?:\s+[\w'&-]+){0,2})"
                          r"|\bhand(?:ed|ing)? (?:the|my|our) (?P<handed>[\w'&-]+(?: [\w'&-]+)?) back\b", re.I)


def ended_things(text: str) -> list[str]:
    """The words of what a message says ended: "the pantry" of "stepped back from the pantry, … doing the homework club
    at Maple Grove now"."""
    return [m["thing"] or m["handed"] for m in _ENDED_THING.finditer(_told(text))]


# within its sentence, the little words of a phrase not counted: "bowed out of the wed campaign"
_LITTLE_WORD = r"(?:of|the|a|an|my|our|his|her|their|that|this|from|out|off|up|with|on|in|at|to)"
_THREE_WORDS = re.compile(r"(?:[^\w.!?。！？]+(?:" + _LITTLE_WORD + r"\b[^\w.!?。！？]+)*[\w'&-]+){0,3}", re.I)
_THREE_WORDS_BEFORE = re.compile(r"(?:[\w'&-]+[^\w.!?。！？]+){0,3}$")  # ... and before a point of it
# an end told of the thing itself, which stands before it: "my tuesday class got axed", "my old dentist retired"
_ENDED_OF_ITSELF = re.compile(r"\b(?:(?:got|was|were|been|is|are) (?:axed|cancell?ed|canceled|scrapped"
                              r"|discontinued|shut down|closed(?: down)?)|retired|closed (?:down|for good)|shut down"
                              r"|went (?:bust|under)|folded)\b", re.I)


def what_a_change_acts_on(text: str) -> list[str]:
    """The words of a message's change or end and the three words after them: what it acts on ("switched physios", "had
    to drop the lessons"; not the "desk" of "got a new ergonomic mouse for my desk"), and the three words before an end
    told of the thing itself ("my tuesday class got axed", "my old dentist retired")."""
    told = _told(text)
    after = [told[m.start():m.end() + len(_THREE_WORDS.match(told, m.end()).group())]
             for pattern in (_CHANGE, _NEGATION) for m in pattern.finditer(told)]
    return after + [_THREE_WORDS_BEFORE.search(told[:m.start()]).group() for m in _ENDED_OF_ITSELF.finditer(told)]


def what_an_end_tells(text: str) -> str:
    """The clauses of a message that tell an end, each with the clause after it: "戒了 已经三个月没抽了"."""
    clauses = _clauses(text)
    return "".join(clause + (clauses[n + 1] if n + 1 < len(clauses) else "")
                   for n, clause in enumerate(clauses) if _NEGATION.search(_told(clause)))


def tells_an_end(text: str) -> bool:
    """A message that says something ended ("pulled the plug on netflix", "岩馆卡退了")."""
    return bool(_NEGATION.search(_told(text)))


_USERS_ARRANGEMENTS = {"childcare"}


def statement_marks(text: str) -> list[str]:
    """Search tokens that mark a user's statement about each attribute it speaks of ("§home_location", "§pet~no"),
    a message about someone else (`OTHERS_MARK`: "My sister's on the keto diet, any recipes?"), one that only asks
    (`ASKS_MARK`: "what's a decent interest rate for a savings account?") and one that opens by asking and only then
    tells (`ASKS_FIRST_MARK`: "any VPN provider recommendations? my work one is awful"). A very long message is read
    for them as for facts (`statement_part`)."""
    from .facts import asks_only, opens_asking  # facts reads this module's rules

    text = statement_part(text)
    topics = statement_topics(text)
    # the user only reacting to someone else ("… i genuinely don't know how she does it") tells nothing of their own
    reacts_only = speaks_only_of_them(text) and all(name in ("said", "told") for name, _ in topics)
    # who looks after the user's child is the user's arrangement: "女儿在阳光幼儿园上小班", "my daughter starts nursery"
    arranged = any(name in _USERS_ARRANGEMENTS for name, _ in topics)
    return ([f"{STATEMENT_MARK}{name}~no" if negated else f"{STATEMENT_MARK}{name}" for name, negated in topics]
            + ([OTHERS_MARK] if (about_someone_else(text) or reacts_only) and not arranged
               and not _own_news_after(text) else [])
            + ([ASKS_MARK] if asks_only(text) else [QUESTIONS_MARK] if _only_asks(text)
               else [ASKS_FIRST_MARK] if opens_asking(text) else []))


# what the user had to do about someone else's doing: "房东要卖房 只能搬了", "我们只能搬"; without it a dropped subject is
# the one before ("老公公司搬到了张江，现在每天开车上班": the husband drives)
_ZH_ONLY_COULD = re.compile(r"^(?:我们|我)?(?:只能|只好|没办法|不得不|被迫|害得我|搞得我)")


def _own_news_after(text: str) -> bool:
    """A Chinese message that tells what the user had to do about someone else's doing, and then, its subject
    dropped, the user's news on an attribute: "房东要卖房 只能搬了 现在住回龙观" is where the user lives now."""
    if not HAN_CHAR.search(text):
        return False
    # "房东突然说要卖房子……只能又搬了": an ellipsis ends what someone else did as a comma would
    clauses = [part.strip() for clause in _clauses(text) for part in re.split(r"…+|\.{3,}", clause) if part.strip()]
    forced = next((n for n, clause in enumerate(clauses) if n and _ZH_ONLY_COULD.match(clause)), None)
    if forced is None:
        return False
    # what the user had to do may follow in the same clause: "没办法又搬了"
    after = [clauses[forced][_ZH_ONLY_COULD.match(clauses[forced]).end():], *clauses[forced + 1:]]
    return any(_ZH_DROPPED_SUBJECT.match(clause) and any(zh.search(clause) for _, zh in _CUE_PATTERNS.values())
               for clause in after)


def _only_asks(text: str) -> bool:
    """Every sentence of the message asks and none tells before it asks ("what job should my 16 year old do for summer
    work?"), unlike "Just dropped my daughter Lily at nursery, what's the weather like?" and "I'm pescatarian so any
    quick fish recipes?"."""
    from .facts import is_question, requests  # facts reads this module's rules

    clauses = _clauses(text)
    if not clauses or (len(clauses) > 1 and _FIRST_PERSON.search(clauses[0]) and not is_question(clauses[0])
                       and not requests(clauses[0])):
        return False
    told = _told(text).strip()
    if told and is_question(text) and all(_WISH.match(clause) for clause in _clauses(told.rstrip("。."))):
        return True  # it asks, and tells only a wish: "业余时间想学点新东西，有啥推荐吗", "thinking of getting a dog, any tips?"
    first = _TOLD_SENTENCE.match(text.strip())
    return not told or (first is not None and first.group().rstrip().endswith(("?", "？")) and _an_aside(told))


# a wish or a plan, not a state: "周末想去露营", "thinking of taking up pottery"
_WISH = re.compile(r"^我?[\u4e00-\u9fff\d]{0,6}?(?:也|还|一直|有点|很|真)?(?:想|想要|打算|准备|计划"
                   r"|考虑|在考虑|在想)"
                   r"|^(?:i |i'?m |i am |im |been |just |kinda |really )*(?:thinking (?:of|about)|want(?:ing)? to"
                   r"|wanna|planning (?:to|on)|considering|hoping to|would like to|i'?d like to|i'?d love to|keen to)\b",
                   re.I)


# a name inside a sentence, not the capital that starts one
_NAME_INSIDE_SENTENCE = re.compile(r"(?<![.!?]\s)(?<!^)(?<![.!?])\b[A-Z][a-z]")
ASIDE_WORDS = 8
# the user only saying they do not know, which is why they ask: "what order do serum and moisturizer go in?? i always
# forget", "is it 'affect' or 'effect'? i never remember"
_NOT_KNOWING = re.compile(r"^(?:lol |ugh |tbh |honestly )?(?:i|i'm|im)\s+(?:always\s+|never\s+|still\s+|honestly\s+"
                          r"|genuinely\s+|just\s+|literally\s+)*(?:forget|can'?t remember|never remember|don'?t know"
                          r"|never know|can'?t tell|have no idea|get (?:them |it )?(?:confused|mixed up)|mix (?:them|it) up"
                          r"|(?:am|'m) (?:confused|clueless|lost))\b[^,;]{0,20}$", re.I)


def _an_aside(told: str) -> bool:
    """What a message that opens with a question tells besides is only an aside when it is short, says nothing of the
    user (no "I", "my", but that they do not know: "… go in?? i always forget"), names no one and nothing, and speaks of
    no attribute: "which city has the best live music? genuinely curious", "who won the football last night? missed
    it", "best way to organise a medicine cabinet? ours is chaos"; not "any recs for a vet? just adopted Miso" or
    "what's a good gift for my barber? he's done my hair for 10 years"."""
    return (not HAN_CHAR.search(told) and len(told.split()) <= ASIDE_WORDS
            and (not _FIRST_PERSON.search(told) or _NOT_KNOWING.match(told) is not None)
            and not _NAME_INSIDE_SENTENCE.search(told)
            and all(name in ("said", "told") for name, _ in statement_topics(told)))


# a question asked in the user's role: "as a vet, how do I …", "as a nurse, what's the best way to …"
_AS_A_JOB = re.compile(r"(?:^|[—–:-]\s*|,\s*)as (an? (?:[\w-]+\s+){0,2}?(?:" + _JOBS
                       + r")),", re.I)


# a sentence, ended by its mark or by an emoji ("fully plant-based for 2 years now 🌱 so keep recipe ideas meat free
# pls"), not by the point of a number ("is listening at 1.5x bad for comprehension? be honest")
_TOLD_SENTENCE = re.compile(rf"(?:[^.!?。！？\n{EMOJI}]|(?<=\d)\.(?=\d))+[.!?。！？{EMOJI}\ufe0f]*")


def _told(text: str) -> str:
    """The sentences of a message that tell rather than ask ("Moved to Leeds last month. Any tips?")."""
    from .facts import is_question, requests, told_clauses  # facts reads this module's rules

    told = []
    for m in _TOLD_SENTENCE.finditer(typed_right(text)):
        sentence = m.group().strip()
        # "As a lifelong vegan I struggle at events, any advice?", "write me a poem for my mum's 60th"
        if sentence and (is_question(sentence) or requests(sentence)):
            head = told_clauses(sentence)
            role = _AS_A_JOB.search(sentence)  # "quick one — as a vet, how do I explain pet insurance?": the user is one
            sentence = " ".join(([head + "."] if head else []) + ([f"I'm {role.group(1)}."] if role else []))
        if sentence:
            told.append(sentence)
    return " ".join(told)


def _clauses(text: str) -> list[str]:
    """The clauses of a message, each with the "so" that led it in ("so no more nights"), which the split drops."""
    clauses, start = [], 0
    for separator in [*_CLAUSE.finditer(text), None]:
        clause = text[start:separator.start() if separator else len(text)].strip()
        if clause:
            clauses.append(clause)
        if separator:
            start = separator.end()
            if re.fullmatch(r"\s+so\s+", separator.group(), re.I):
                start = separator.start()
    return clauses


# what the user chose in the end names the new one ("ended up buying that e-bike 🚲 haven't touched the bus"); "ended
# up covering a whole other ward" is no change
_CHOSE = re.compile(r"\bended up (?:buying|getting|going with|going for|picking|choosing|with)\b", re.I)


def only_negates(clauses: list[str], negations: list[bool]) -> bool:
    """A message that closes a value and names no new one ("I don't own a car any more, sold the Corsa");
    "Sold the guitar; piano lessons are more my thing" names one (a clause holding a value of a class), and
    "Transferred to the Royal Free, so no more nights!" tells of a change: its only negation is the change's
    consequence."""
    ending = [negated and not (i and not negations[i - 1] and _CONSEQUENCE.search(clause.strip()))
              for i, (clause, negated) in enumerate(zip(clauses, negations))]
    if any(negations) and not any(ending):
        return False
    return any(negations) and not any(_CHANGE.search(c) or _CHOSE.search(c) or held_classes(c)
                                      for c, negated in zip(clauses, negations) if not negated)
