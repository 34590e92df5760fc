"""Attribute classes by meaning: a few example sentences per class, embedded, for what the lexicons miss.

The lexicons (`attributes`, `slots`) know the words they were written with; a statement such as
"Picked up the cello instead" or a question such as "What do I do on Saturdays now?" may share none
of them. Each attribute class has example statements and example questions; a text is classed by
its nearest example, when that is close enough and no other class is about as close. The
thresholds belong to one embedding model (MiniLM's cosines are not bge-m3's): with any other
embedder the classifier stays silent and the lexicons decide alone. The model reads English only,
so Chinese is classed by the lexicons (its cosines between unrelated Chinese sentences run at 0.6-0.9).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..embed_cache import cached_embeddings
from .han import HAN_CHAR

__all__ = ["PROTOTYPES", "PrototypeClassifier", "Thresholds"]


@dataclass(frozen=True)
class Thresholds:
    statement: float  # cosine to the nearest example statement for a turn to be about the class
    question: float  # cosine to the nearest example question
    margin: float  # how much closer than every other class the winning class must be (questions)
    tie: float  # a statement within this of its best class is about each such class too


# Calibrated on bench/scenarios/tune.jsonl's English messages: statements of a state mostly 0.5-0.8,
# incidental chatter that shares the topic's words 0.2-0.45.
THRESHOLDS = {
    "local:all-MiniLM-L6-v2": Thresholds(statement=0.5, question=0.45, margin=0.04, tie=0.03),
    "local:all-MiniLM-L6-v2-int8": Thresholds(statement=0.5, question=0.45, margin=0.04, tie=0.03),
}


@dataclass(frozen=True)
class Examples:
    statements: tuple[str, ...]
    questions: tuple[str, ...]


PROTOTYPES: dict[str, Examples] = {
    "home_location": Examples(
        ("I moved to a new city last month", "I live in a small flat in town", "we relocated to another country",
         "I'm based in London these days", "my new place is in the north of the city", "we bought a house in the suburbs"),
        ("where do I live", "which city am I in now", "where is my home", "where am I living these days")),
    "employer": Examples(
        ("I started a new job at a big company", "I work for a tech firm", "I joined a startup last week",
         "I got hired by a bank", "I left my company for a competitor"),
        ("where do I work", "which company do I work for", "who is my employer", "where am I working now")),
    "occupation": Examples(
        ("I work as a nurse", "my job is teaching kids", "I retrained as an engineer",
         "I'm a freelance designer now", "I became an accountant"),
        ("what do I do for a living", "what is my job", "what's my profession", "what work do I do now")),
    "diet": Examples(
        ("I stopped eating meat", "I'm on a vegan diet now", "I've been eating low carb", "I'm vegetarian",
         "I cut out sugar and bread completely"),
        ("what diet do I follow", "what do I eat these days", "am I vegetarian", "what is my eating plan")),
    "drink_preference": Examples(
        ("I drink green tea every morning", "I switched from coffee to tea", "my usual coffee order is a latte",
         "I cut out caffeine", "I only have decaf now"),
        ("what do I drink", "what's my usual coffee", "what do I drink in the morning", "what's my go-to drink")),
    "partner": Examples(
        ("my girlfriend and I moved in together", "I married my husband last year", "my wife is called Anna",
         "I'm dating someone new", "my boyfriend proposed"),
        ("who is my partner", "what's my wife's name", "who am I dating", "who is my husband")),
    "pet": Examples(
        ("we adopted a puppy", "my cat is called Miso", "I got a pet rabbit", "our dog is a beagle",
         "we rescued a kitten"),
        ("what pet do I have", "what's my dog called", "what animals do I keep", "do I have a pet")),
    "school": Examples(
        ("I'm studying for a degree at university", "I transferred to another college",
         "I'm enrolled on a course at the college", "I started my masters at a new university"),
        ("where do I study", "which university do I go to", "what school am I at", "what am I studying")),
    "car": Examples(
        ("I drive a hatchback", "I bought a new car", "I traded in my old car for an electric one",
         "my car is a small estate"),
        ("what car do I drive", "what's my car", "which vehicle do I own")),
    "hobby": Examples(
        ("I've taken up climbing at weekends", "in my free time I go running", "my new hobby is pottery",
         "I spend my Saturdays sea swimming", "I've got really into birdwatching"),
        ("what's my hobby", "what do I do in my free time", "what do I do at weekends",
         "what do I do for fun these days")),
    "instrument": Examples(
        ("I'm learning to play the cello", "I play guitar in a band", "I picked up the piano again",
         "I've started drum lessons"),
        ("which instrument do I play", "what instrument am I learning", "what do I play")),
    "commute": Examples(
        ("I cycle to work every day", "I take the bus to the office", "I walk to work now", "I drive to work",
         "I work from home so there's no commute", "I ride an e-scooter to the station"),
        ("how do I get to work", "how do I commute", "how do I travel to the office", "what's my commute like")),
    "smoking": Examples(
        ("I smoke a pack a day", "I quit smoking last year", "I've switched from cigarettes to vaping",
         "I'm trying to cut down on cigarettes", "I haven't had a cigarette in months"),
        ("do I smoke", "am I a smoker", "do I still smoke", "how much do I smoke")),
    "children": Examples(
        ("I have two kids", "my son started school this week", "we're expecting our first baby",
         "my daughter turned five", "I'm a mum of three"),
        ("how many children do I have", "what are my kids called", "do I have kids", "how old is my daughter")),
    "gym": Examples(
        # no bare "gym": MiniLM puts any sentence with the word near it ("the gym in our building is closed")
        ("I'm a member at the leisure centre", "I got a membership at a new fitness club", "I signed up at the climbing gym",
         "I cancelled my membership at the fitness club"),
        ("which gym do I go to", "where do I work out", "which gym am I a member of", "where do I train")),
    "manager": Examples(
        ("my manager is great", "I report to a new boss now", "my line manager left so I report to the director",
         "my supervisor signed off my leave"),
        ("who is my boss", "who do I report to", "who's my manager at work", "who is my supervisor now")),
    "bank": Examples(
        ("I bank with Monzo", "I opened a current account with a new bank", "I moved my savings to another bank",
         "my salary gets paid into my new bank account"),
        ("which bank do I use", "who do I bank with", "where is my current account")),
    "language": Examples(
        ("I'm learning Spanish", "I've started Japanese lessons", "I practise my French on Duolingo every day",
         "I gave up on German and switched to Italian"),
        ("which language am I learning", "what language am I studying", "what languages do I speak")),
    "mobile_network": Examples(
        ("I switched my phone contract to a cheaper network", "I'm on a sim-only plan with a new provider",
         "I ported my number to another network"),
        ("which mobile network am I on", "who is my phone contract with", "which carrier do I use")),
    "allergy": Examples(
        ("I'm allergic to peanuts", "I carry an epipen because of my nut allergy", "shellfish makes my throat swell up",
         "I'm lactose intolerant"),
        ("what am I allergic to", "do I have any allergies", "what foods do I have to avoid", "is there anything I can't eat")),
    "medication": Examples(
        ("my doctor put me on antidepressants", "I'm on blood pressure tablets now",
         "I was switched to a new medication", "I came off my meds last month"),
        ("what medication am I on", "which pills do I take", "what meds am I taking")),
    "phone_model": Examples(
        ("I got a new phone", "I upgraded my smartphone", "I'm still using an old Android phone",
         "I switched to an iPhone"),
        ("which phone do I have", "what phone do I use", "what's my mobile")),
}


class PrototypeClassifier:
    """Classes statements and questions by their nearest example, for one embedder (silent for others)."""

    _cache: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = {}

    def __init__(self, embedder) -> None:
        self.embedder = embedder
        self.thresholds = THRESHOLDS.get(getattr(embedder, "name", ""))

    @property
    def active(self) -> bool:
        return self.thresholds is not None

    def _vectors(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Example statements' and questions' vectors per class, embedded once per embedder."""
        name = self.embedder.name
        if name not in self._cache:
            texts = [t for ex in PROTOTYPES.values() for t in (*ex.statements, *ex.questions)]
            matrix = cached_embeddings(self.embedder, texts)
            out, row = {}, 0
            for attribute, ex in PROTOTYPES.items():
                s, q = len(ex.statements), len(ex.questions)
                out[attribute] = (matrix[row : row + s], matrix[row + s : row + s + q])
                row += s + q
            self._cache[name] = out
        return self._cache[name]

    def question_attribute(self, question: str, vector: np.ndarray) -> str | None:
        """The class an English question asks about, by its nearest example question; None when unsure."""
        if not self.active or HAN_CHAR.search(question):
            return None
        scores = sorted(((float((q @ vector).max()), attribute) for attribute, (_, q) in self._vectors().items()),
                        reverse=True)
        (best, attribute), (second, _) = scores[0], scores[1]
        if best >= self.thresholds.question and best - second >= self.thresholds.margin:
            return attribute
        return None

    def statement_rows(self, index, attribute: str, statements, limit: int = 40) -> list[int]:
        """Rows under the mask `statements` (the user's own statements) whose nearest class is `attribute`.

        Reads the index's stored vectors of those rows only, against every example at once: a row is
        of the class when it is among the `limit` nearest rows of one of the class's examples, its best
        cosine to them reaches the threshold and no other class's examples are closer by more than `tie`."""
        if not self.active or not statements.any():
            return []
        names = [name for name, (examples, _) in self._vectors().items() for _ in examples]
        ids, similarity = index.similarities(statements, np.vstack([ex for ex, _ in self._vectors().values()]))
        best: dict[int, dict[str, float]] = {}
        for column, name in enumerate(names):
            scores = similarity[:, column]
            nearest = np.argpartition(-scores, limit - 1)[:limit] if len(scores) > limit else range(len(scores))
            for row in nearest:
                by_class = best.setdefault(int(ids[row]), {})
                by_class[name] = max(by_class.get(name, -1.0), float(scores[row]))
        rows = []
        for memory_id, by_class in best.items():
            own = by_class.get(attribute, -1.0)
            if own >= self.thresholds.statement and own >= max(by_class.values()) - self.thresholds.tie:
                rows.append(memory_id)
        return rows
