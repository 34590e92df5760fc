"""Three-stage recall: rules → hybrid (BM25 + vectors, fused) → time filter, rerank, one graph hop."""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Callable

import numpy as np

from .clock import ensure_utc, from_epoch, to_epoch, utc_now
from .embed import Embedder
from .extract import tokenize_for_search
from .extract.prototypes import PROTOTYPES, PrototypeClassifier
from .graph import LazyGraph, memory_node
from .index import Filters, HybridIndex
from .latest_word import LATEST_WORD, latest_word_scores
from .model import MemoryUnit, Provenance, RecallResult, Recollection
from .slots import SLOT_CUES, SLOT_PHRASES
from .store import Store
from .temporal import recency_weight, true_at
from .when import QueryTime, question_time

CANDIDATES = 100  # per retriever
VECTOR_WEIGHT = 0.5  # fused = bm25/max(bm25) + 0.5 × min-max cosine (bench/locomo.py beat RRF with it)
RULE_BONUS = 2.0  # an exact rule hit outranks any hybrid score
NAME_BONUS = 0.1
NAME_MAX_MEMORIES = 25  # a name mentioned more often than this is no rule, just a keyword
HOP_SEEDS = 3
HOP_MAX_DEGREE = 25
HOP_DISCOUNT = 0.3
HOP_MAX_ADDED = 5
CONFIDENT_COVERAGE = 0.6
SCORE_SCALE = 1.0 / (1.0 + VECTOR_WEIGHT)  # a row ranked first by both retrievers scores 1.0

FIRST_PERSON = {"i", "me", "my", "mine", "i'm", "im", "myself", "we", "our", "ours", "we're", "我", "我的", "我们"}  # "which city do we live in"
PAST_CUES = {"before", "previously", "formerly", "earlier", "originally", "used"}  # "what did I use to drink"
PAST_CUES_ZH = ("之前", "以前", "原来", "过去", "曾经", "原先", "先前")
HISTORY_DISCOUNT = 0.2
QUESTION_TIME_BOOST = 1.5  # "in March 2025", "上周": memories of that time rank higher, others stay
TOPICAL = {name for name in SLOT_CUES}  # attributes whose statements are marked in the index (writer.topic_tokens)
ID_TOKEN = re.compile(r"^(?=.*\d)[a-z0-9]+(?:[-_][a-z0-9]+)+$|^#?\d{4,}$|^[a-z]{2,}\d{3,}$")


@dataclass
class Candidate:
    memory_id: int
    score: float = 0.0
    why: list[str] = field(default_factory=list)
    cosine: float | None = None
    rule: bool = False
    settled: bool = False  # the rule's answer for a class whose statements it reads (the latest word already)


@dataclass
class RecallParts:
    """What recall reads: the store, the index, the graph (when built), the embedder, provenance."""

    store: Store
    index: HybridIndex
    graph: LazyGraph
    embedder: Embedder
    provenance: Callable[[MemoryUnit], Provenance]
    user_attributes: Callable[[], list[str]]  # slot attributes the user has values for


def recall(parts: RecallParts, query: str, *, as_of: datetime | None = None, k: int = 10,
           types: tuple[str, ...] | None = None, session_id: str | None = None,
           source_id: int | None = None, include_archived: bool = False,
           recorded_by: datetime | None = None) -> RecallResult:
    """Recall what is relevant to `query` and true at `as_of` (world time, default now).

    With `recorded_by`, only what Engram had recorded by then is searched (system time)."""
    started = time.perf_counter()
    as_of = ensure_utc(as_of) if as_of else utc_now()
    if not query.strip():  # nothing to recall by: no results, and certainly not confident
        return RecallResult(query=query, as_of=as_of, confident=False, results=[], latency_ms=0.0)
    index = parts.index
    recorded_by = ensure_utc(recorded_by) if recorded_by else None
    filters = Filters(as_of=to_epoch(as_of), types=types, session_id=session_id, source_id=source_id,
                      include_archived=include_archived,
                      recorded_by=to_epoch(recorded_by) if recorded_by else None)
    keep = index.mask(filters)
    asked = question_time(query, as_of)
    then = _asked_moment(asked, as_of)
    if then is not None:  # what was true in the asked period is searched too, not only what is true now
        keep = keep | index.mask(replace(filters, as_of=to_epoch(then)))
    terms = tokenize_for_search(query)
    candidates: dict[int, Candidate] = {}

    query_vector = parts.embedder.embed([query])[0]
    history = _rule_slots(parts, query, query_vector, terms, then or as_of, recorded_by, keep, candidates)
    date_words = set(tokenize_for_search(asked.words)) if asked else set()
    _rule_ids(index, [t for t in terms if t not in date_words], keep, candidates)  # "2024" is a year, not an id
    _rule_names(parts, query, as_of, candidates)
    keyword_hits = index.bm25(terms, keep, CANDIDATES)
    top_bm25 = keyword_hits[0][1] if keyword_hits else 1.0
    for rank, (memory_id, score) in enumerate(keyword_hits, start=1):
        cand = candidates.setdefault(memory_id, Candidate(memory_id))
        cand.score += score / top_bm25
        cand.why.append(f"keywords (rank {rank})")
    meaning_hits, floor = index.cosine(query_vector, keep, CANDIDATES)
    span = (meaning_hits[0][1] - floor) if meaning_hits else 1.0
    for rank, (memory_id, similarity) in enumerate(meaning_hits, start=1):
        cand = candidates.setdefault(memory_id, Candidate(memory_id))
        cand.score += VECTOR_WEIGHT * (similarity - floor) / span if span > 0 else 0.0
        cand.cosine = similarity
        cand.why.append(f"meaning (cosine {similarity:.2f})")

    ranked = _rerank(index, candidates, then or as_of, asked)
    if then is None:  # "which gym do I go to now": the latest word on the best match's topic
        ranked = _latest_word(index, ranked, query, getattr(parts.embedder, "name", ""))
    ranked = _graph_hop(parts.graph.if_built(), ranked, as_of, filters)
    top = _collapse_turns(index, ranked)[:k]
    units = parts.store.memories_by_id([c.memory_id for c in top] + [h.id for h in history])
    results = [_recollection(parts, units[c.memory_id], c.score * SCORE_SCALE, c.why,
                             valid=true_at(units[c.memory_id], as_of, recorded_by=recorded_by))
               for c in top if c.memory_id in units]
    results = _insert_history(parts, results, history, units)
    confident = _is_confident(parts, top, terms)
    latency = (time.perf_counter() - started) * 1000.0
    return RecallResult(query=query, as_of=as_of, confident=confident, results=results, latency_ms=latency)


# ------------------------------------------------------------------ stage 1: rules
def _rule_slots(parts: RecallParts, query, query_vector, terms, as_of, recorded_by, keep,
                candidates) -> list[MemoryUnit]:
    """A question about one of the user's attributes ("what coffee do I drink now", "where am I based")
    is answered by the latest thing the user said about it, true then: an extracted slot value, or the
    user's own latest statement on the topic when it is newer than any value the rules could read.

    A negation ("no longer drinks coffee") is never the answer: it is shown as history. A question
    about before ("what did I drink before", "我之前住哪") is answered by the one before the latest.

    The attribute is read from the question's cue words, else from its nearest example question; the
    user's statements about it are those the lexicons marked when they were written plus those whose
    nearest example statement is of the attribute (`extract.prototypes`). When the latest word on the
    attribute is a negation ("I don't own a car any more"), nothing holds now: the rule answers nothing."""
    words = set(terms) | set(re.findall(r"[\w']+", query.lower()))
    if not (words & FIRST_PERSON or "我" in query):
        return []
    asks_before = bool(words & PAST_CUES or any(cue in query for cue in PAST_CUES_ZH))
    known = set(parts.user_attributes())
    history: list[MemoryUnit] = []
    classifier = PrototypeClassifier(parts.embedder)
    attributes = _matching_attributes(sorted(known | TOPICAL), words, query)
    if not attributes:
        guessed = classifier.question_attribute(query, query_vector)
        attributes = [guessed] if guessed else []
    statements = _statement_mask(parts.index, keep) if classifier.active and attributes else None
    for attribute in attributes:
        values = [u for u in parts.store.slot_history("user", attribute)
                  if not u.archived and parts.index.has(u.id) and not (recorded_by and u.recorded_at > recorded_by)]
        held = [u for u in values if u.valid_from <= as_of and u.superseded_at is None]
        said = _topical_turns(parts.index, attribute, keep)  # (valid_from, id, negated)
        if statements is not None:
            said += _meant_turns(parts.index, classifier, attribute, statements, {i for _, i, _ in said})
        said = [entry for entry in said if entry[0] <= to_epoch(as_of)]
        events = {parts.index.turn_and_event(u.id)[1]: u.id for u in held if u.value is not None}
        stated = {parts.index.turn_and_event(u.id)[1] for u in held}
        said = [entry for entry in said if parts.index.turn_and_event(entry[1])[1] not in stated]  # said once
        timeline = sorted([(u.valid_from.timestamp(), u.id, u.value is None) for u in held] + said)
        ended = {u.id for u in held if not true_at(u, as_of, recorded_by=recorded_by)}
        positive = [(t, i) for t, i, negated in timeline if not negated and (asks_before or i not in ended)]
        pick = positive[-2:-1] if asks_before and len(positive) > 1 else positive[-1:]
        if not asks_before and timeline and timeline[-1][2]:
            pick = []  # the latest word closed the value: nothing holds now, what came before is history
        answers = {_distilled(parts.index, i, events) for _, i in pick}
        for memory_id in answers:
            cand = candidates.setdefault(memory_id, Candidate(memory_id))
            cand.score += RULE_BONUS
            cand.rule = True
            cand.settled = attribute in TOPICAL or attribute in PROTOTYPES
            cand.why.append(f"latest about user.{attribute}" + (" (before that)" if asks_before else ""))
        for _, memory_id, _ in timeline:  # earlier words on the topic, and negations, must not outrank it
            if memory_id not in answers and memory_id in candidates:
                candidates[memory_id].score *= HISTORY_DISCOUNT
        history += [u for u in held if u.id not in answers and not true_at(u, as_of, recorded_by=recorded_by)
                    or (u.id not in answers and u.value is None)]
    return history


def _topical_turns(index: HybridIndex, attribute: str, keep) -> list[tuple[float, int, bool]]:
    """The user's statements about an attribute (marked when they were written), visible under `keep`."""
    found = []
    for negated, term in ((False, f"§{attribute}"), (True, f"§{attribute}~no")):
        for memory_id in index.rows_with_term(term):
            if index.kept(memory_id, keep):
                found.append((index.attrs(memory_id)[1], memory_id, negated))
    return found


def _statement_mask(index: HybridIndex, keep):
    """The rows under `keep` that are the user's own first-person statements (marked `§said` when written)."""
    mask = np.zeros_like(keep)
    for term in ("§said", "§said~no"):
        postings = index.postings(term)
        if postings is not None:
            rows = postings[0][postings[0] < len(mask)]
            mask[rows] = True
    return mask & keep


def _meant_turns(index: HybridIndex, classifier: PrototypeClassifier, attribute: str, statements,
                 marked: set[int]) -> list[tuple[float, int, bool]]:
    """The user's statements the lexicons did not mark whose meaning is nearest the attribute's examples."""
    negations = set(index.rows_with_term("§said~no"))
    return [(index.attrs(memory_id)[1], memory_id, memory_id in negations)
            for memory_id in classifier.statement_rows(index, attribute, statements) if memory_id not in marked]


def _distilled(index: HybridIndex, memory_id: int, events: dict[int, int]) -> int:
    """A chat turn's answer is credited to a slot value distilled from the same message, if there is one."""
    is_turn, event = index.turn_and_event(memory_id)
    other = events.get(event)
    if is_turn and other is not None and other != memory_id and not index.turn_and_event(other)[0]:
        return other
    return memory_id


def _matching_attributes(attributes: list[str], words: set[str], query: str) -> list[str]:
    """The user's slots a question asks about: its phrases first ("do for a living" claims its words),
    then cue words (English whole words, Chinese substrings), else the parts of the slot's name."""
    lowered = " ".join(query.lower().split())
    phrased = {a for a, phrases in SLOT_PHRASES.items() if any(p in lowered for p in phrases)}
    for attribute in phrased:
        for phrase in SLOT_PHRASES[attribute]:
            lowered = lowered.replace(phrase, " ")
    words = set(tokenize_for_search(lowered)) | set(re.findall(r"[\w']+", lowered)) | {w for w in words if not w.isascii()}
    found = []
    for attribute in attributes:
        cues = SLOT_CUES.get(attribute)
        if attribute in phrased:
            hit = True
        elif cues is None:
            parts = [p for p in attribute.split("_") if p]
            hit = bool(parts) and all(p in words or p in lowered for p in parts)
        else:
            hit = bool(cues & words) or any(c in query for c in cues if not c.isascii())
        if hit:
            found.append(attribute)
    return found


def _rule_ids(index: HybridIndex, terms, keep, candidates) -> None:
    for term in {t for t in terms if ID_TOKEN.match(t)}:
        for memory_id in index.rows_with_term(term)[:50]:
            if index.kept(memory_id, keep):
                cand = candidates.setdefault(memory_id, Candidate(memory_id))
                cand.score += RULE_BONUS
                cand.rule = True
                cand.why.append(f"exact id {term}")


def _rule_names(parts: RecallParts, query, as_of, candidates) -> None:
    graph = parts.graph.if_built()
    if graph is None:
        return
    for entity_id, name in parts.store.entities_named_in(query):
        memories = graph.memories_about(entity_id, as_of)
        if len(memories) > NAME_MAX_MEMORIES:
            continue
        for memory_id in memories:
            cand = candidates.setdefault(memory_id, Candidate(memory_id))
            cand.score += NAME_BONUS
            cand.why.append(f"names {name}")


# ----------------------------------------------------- stage 3: rerank, graph hop
def _asked_moment(asked: QueryTime | None, as_of: datetime) -> datetime | None:
    """The moment a question about a past period looks at: the period's last instant (None if not past)."""
    if asked is None or asked.end is None or asked.end > as_of:
        return None
    return asked.end - timedelta(microseconds=1)


def _rerank(index: HybridIndex, candidates: dict[int, Candidate], as_of: datetime,
            asked: QueryTime | None = None) -> list[Candidate]:
    for cand in candidates.values():
        attrs = index.attrs(cand.memory_id)
        if attrs is None:
            cand.score = 0.0
            continue
        relevance, valid_from = attrs
        cand.score *= relevance * recency_weight(from_epoch(valid_from), as_of)
        if asked is not None and _in_period(index.interval(cand.memory_id), asked):
            cand.score *= QUESTION_TIME_BOOST
            cand.why.append(f"of the time asked about ({asked.words})")
    return sorted((c for c in candidates.values() if c.score > 0), key=lambda c: -c.score)


def _latest_word(index: HybridIndex, ranked: list[Candidate], query: str, embedder_name: str) -> list[Candidate]:
    if not ranked:
        return ranked
    raised = latest_word_scores(index, [c.memory_id for c in ranked], [c.score for c in ranked],
                                [c.rule for c in ranked], query, embedder_name, settled=ranked[0].settled)
    if not raised:
        return ranked
    for cand in ranked:
        if cand.memory_id in raised:
            cand.score = raised[cand.memory_id]
            cand.why.append(LATEST_WORD)
    return sorted(ranked, key=lambda c: -c.score)


def _in_period(interval: tuple[float, float] | None, asked: QueryTime) -> bool:
    """A memory is of the asked period when it began in it, or when its closed interval meets it.
    An open-ended memory that began before the period says nothing about it in particular."""
    if interval is None:
        return False
    start = to_epoch(asked.start) if asked.start is not None else float("-inf")
    end = to_epoch(asked.end) if asked.end is not None else float("inf")
    valid_from, valid_until = interval
    if start <= valid_from < end:
        return True
    return valid_until != float("inf") and valid_from < end and valid_until > start


def _graph_hop(graph, ranked: list[Candidate], as_of: datetime, filters: Filters) -> list[Candidate]:
    """Memories sharing a rare entity with the best hits join at a discount."""
    if graph is None or not ranked:
        return ranked
    present = {c.memory_id for c in ranked}
    added: list[Candidate] = []
    for seed in ranked[:HOP_SEEDS]:
        for entity, _ in graph.neighbours(memory_node(seed.memory_id), as_of, {"mentions"}):
            if graph.degree(entity) > HOP_MAX_DEGREE:
                continue
            name = graph.g.nodes[entity].get("name", entity)
            for other, _ in graph.neighbours(entity, as_of, {"mentions"}):
                memory_id = int(other[2:])
                if memory_id in present or len(added) >= HOP_MAX_ADDED:
                    continue
                if filters.types and graph.g.nodes[other].get("type") not in filters.types:
                    continue
                present.add(memory_id)
                added.append(Candidate(memory_id, seed.score * HOP_DISCOUNT,
                                       [f"graph: shares {name} with #{seed.memory_id}"]))
    return sorted(ranked + added, key=lambda c: -c.score)


def _collapse_turns(index: HybridIndex, ranked: list[Candidate]) -> list[Candidate]:
    """A chat turn and the memories distilled from its message count once, and whichever ranks first stands
    for the message: the turn (its distilled memories ranked below it go) or a memory (the turn goes). A
    turn that holds a fact and a password is not hidden behind the password's low-ranked fact."""
    kinds = [index.turn_and_event(c.memory_id) for c in ranked]
    first_turn: dict[int, int] = {}
    first_memory: dict[int, int] = {}
    for position, (is_turn, event) in enumerate(kinds):
        if event >= 0:
            (first_turn if is_turn else first_memory).setdefault(event, position)
    return [c for position, (c, (is_turn, event)) in enumerate(zip(ranked, kinds))
            if event < 0 or (first_memory.get(event, position + 1) > position if is_turn
                             else first_turn.get(event, position + 1) > position)]


def _insert_history(parts: RecallParts, results: list[Recollection], history: list[MemoryUnit],
                    units: dict[int, MemoryUnit]) -> list[Recollection]:
    """Superseded slot values follow the value that replaced them, marked not valid."""
    if not history:
        return results
    out: list[Recollection] = []
    placed = {rec.unit.id for rec in results}
    for rec in results:
        out.append(rec)
        for old in sorted(history, key=lambda u: u.valid_from, reverse=True):
            if old.id not in placed and old.slot == rec.unit.slot and rec.unit.slot is not None:
                placed.add(old.id)
                out.append(_recollection(parts, units.get(old.id, old), 0.0, ["superseded slot value"],
                                         valid=False))
    for old in history:
        if old.id not in placed:
            out.append(_recollection(parts, units.get(old.id, old), 0.0, ["superseded slot value"], valid=False))
    return out


def _is_confident(parts: RecallParts, top: list[Candidate], terms: list[str]) -> bool:
    if not top:
        return False
    best = top[0]
    if best.rule:
        return True
    if best.cosine is not None and best.cosine >= parts.embedder.confident_cosine:
        return True
    return len(set(terms)) >= 2 and parts.index.term_coverage(best.memory_id, terms) >= CONFIDENT_COVERAGE


def _recollection(parts: RecallParts, unit: MemoryUnit, score: float, why: list[str], *, valid: bool) -> Recollection:
    return Recollection(unit=unit, score=round(score, 4), provenance=parts.provenance(unit), why=why, valid=valid)
