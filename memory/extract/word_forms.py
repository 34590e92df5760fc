"""One search form for words people write two ways: British and American spellings, and chat shorthand.

"my fave colour" and "favorite color" share no stem without it ("favourit"/"favorit", "colour"/"color"),
nor do "bday pics" and "birthday pictures". The forms are mapped after stemming, so every inflection a
stem covers ("colours", "coloured") goes with it, and a stored token maps the same way as a new word
(migration m012). Only forms with one meaning are listed: "hr" (hour or human resources), "mo", "prob"
and "doc" are not; synonyms that are different words are not either, but for the names of the user's own people:
"mum", "mom" and "mother" are one person, as "gran" and "grandmother" are."""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Callable

#: British spelling → American, as whole words.
SPELLINGS = {
    "favourite": "favorite", "colour": "color", "flavour": "flavor", "honour": "honor", "humour": "humor",
    "labour": "labor", "neighbour": "neighbor", "neighbourhood": "neighborhood", "behaviour": "behavior",
    "harbour": "harbor", "rumour": "rumor", "savoury": "savory", "odour": "odor", "armour": "armor",
    "endeavour": "endeavor", "parlour": "parlor", "saviour": "savior", "vapour": "vapor",
    "centre": "center", "theatre": "theater", "metre": "meter", "litre": "liter", "fibre": "fiber",
    "kilometre": "kilometer", "centimetre": "centimeter", "millimetre": "millimeter", "sombre": "somber",
    "organise": "organize", "organisation": "organization", "organiser": "organizer", "realise": "realize",
    "recognise": "recognize", "apologise": "apologize", "specialise": "specialize", "prioritise": "prioritize",
    "criticise": "criticize", "emphasise": "emphasize", "summarise": "summarize", "memorise": "memorize",
    "customise": "customize", "finalise": "finalize", "personalise": "personalize", "visualise": "visualize",
    "socialise": "socialize", "minimise": "minimize", "maximise": "maximize", "optimise": "optimize",
    "categorise": "categorize", "utilise": "utilize", "familiarise": "familiarize", "authorise": "authorize",
    "sympathise": "sympathize", "energise": "energize", "normalise": "normalize", "modernise": "modernize",
    "stabilise": "stabilize", "symbolise": "symbolize", "fertilise": "fertilize", "sterilise": "sterilize",
    "moisturiser": "moisturizer", "moisturise": "moisturize", "harmonise": "harmonize",
    "hospitalise": "hospitalize", "legalise": "legalize", "capitalise": "capitalize", "publicise": "publicize",
    "scrutinise": "scrutinize", "patronise": "patronize", "baptise": "baptize", "analyse": "analyze",
    "paralyse": "paralyze", "jewellery": "jewelry", "grey": "gray", "programme": "program", "cheque": "check",
    "aluminium": "aluminum", "defence": "defense", "licence": "license", "offence": "offense",
    "practise": "practice", "catalogue": "catalog", "analogue": "analog", "yoghurt": "yogurt",
    "pyjamas": "pajamas", "enrol": "enroll", "enrolment": "enrollment", "fulfil": "fulfill",
    "skilful": "skillful", "instalment": "installment", "mould": "mold", "plough": "plow",
    "sceptical": "skeptical", "aeroplane": "airplane", "cosy": "cozy", "moustache": "mustache",
    "doughnut": "donut", "ageing": "aging", "judgement": "judgment", "manoeuvre": "maneuver",
    "paediatric": "pediatric", "paediatrician": "pediatrician", "orthopaedic": "orthopedic",
    "anaesthetic": "anesthetic", "oestrogen": "estrogen", "foetus": "fetus", "leukaemia": "leukemia",
    "gynaecologist": "gynecologist", "diarrhoea": "diarrhea", "counsellor": "counselor", "woollen": "woolen",
    "artefact": "artifact", "maths": "math", "barbeque": "barbecue",
}

#: Grandparents by the word of the family's other language: "my babcia taught me to make pierogi".
GRANDPARENTS_BY_FAMILY_LANGUAGE = {
    "babcia": "grandmother", "nonna": "grandmother", "abuela": "grandmother", "oma": "grandmother",
    "yiayia": "grandmother", "bubbe": "grandmother", "dziadek": "grandfather", "nonno": "grandfather",
    "abuelo": "grandfather", "opa": "grandfather", "zayde": "grandfather", "papou": "grandfather",
}

#: Chat shorthand → the word it stands for.
SHORTHAND = {
    "tmrw": "tomorrow", "tmr": "tomorrow", "tmrow": "tomorrow", "tomoz": "tomorrow", "2moro": "tomorrow",
    "2morrow": "tomorrow", "tonite": "tonight", "2nite": "tonight", "bday": "birthday", "bdays": "birthdays",
    "pic": "picture", "pics": "pictures", "pix": "pictures", "ppl": "people", "fav": "favorite",
    "fave": "favorite", "favs": "favorites", "faves": "favorites", "bf": "boyfriend", "gf": "girlfriend",
    "bro": "brother", "sis": "sister", "hubby": "husband", "convo": "conversation", "vacay": "vacation",
    "hols": "holidays", "mins": "minutes", "hrs": "hours", "yrs": "years", "wk": "week", "wks": "weeks",
    "yr": "year", "uni": "university", "info": "information", "congrats": "congratulations",
    "thx": "thanks", "thnx": "thanks", "pls": "please", "plz": "please", "msg": "message", "msgs": "messages",
    "appt": "appointment", "apt": "apartment", "xmas": "christmas", "bbq": "barbecue", "vid": "video",
    "vids": "videos", "lil": "little", "anniv": "anniversary", "grad": "graduate", "hw": "homework",
    "mtg": "meeting", "prof": "professor", "kiddo": "kid", "kiddos": "kids", "fam": "family",
    "roomie": "roommate", "roomies": "roommates", "mgr": "manager", "dept": "department", "govt": "government",
    "dr": "doctor", "approx": "approximately", "bestie": "best friend",
    "insta": "instagram", "footy": "football", "footie": "football", "meds": "medication", "telly": "television",
    "tix": "tickets", "grandpa": "grandfather", "granddad": "grandfather", "grandad": "grandfather",
    "gramps": "grandfather", "grandma": "grandmother", "granny": "grandmother", "gran": "grandmother",
    "nana": "grandmother", "mum": "mother", "mom": "mother", "mam": "mother", "mommy": "mother", "mama": "mother",
    "dad": "father", "daddy": "father",
    **GRANDPARENTS_BY_FAMILY_LANGUAGE,
}


def stem_forms(stem: Callable[[str], str]) -> dict[str, str]:
    """{stem of a variant: stem of the word it stands for}, only where the stems differ. A variant that
    stands for two words ("best friend") maps to the last, the one that names the thing."""
    forms: dict[str, str] = {}
    for variant, word in (*SPELLINGS.items(), *SHORTHAND.items()):
        source, target = stem(variant), stem(word.split()[-1])
        if source != target:
            forms[source] = target
    return forms


_DERIVED = re.compile(r"(?<=[a-z]{3})(?:ist|ian|er|or|[eioy])$")


def word_families(stems: Iterable[str]) -> set[str]:
    """English stems by word family, for comparing words rather than indexing them: "therapist" and "therapy",
    "swimmer" and "swim", "pianist" and "piano", "teacher" and "teach", "supervisor" and "supervising" meet. A
    suffix goes only when four letters are left (or three after a doubled one: "runner", "run"), so "care" stays
    apart from "car"; a Chinese word is its own family."""
    families = set()
    for stem in stems:
        root = _DERIVED.sub("", stem) if stem.isascii() else stem
        if len(root) >= 4 and root[-1] == root[-2] and root[-1] not in "aeiou" and root != stem:
            root = root[:-1]  # swimm(er) -> swim
        families.add(root if len(root) >= 4 or (len(root) == 3 and len(stem) - len(root) > 2) else stem)
    return families
