"""In-memory hybrid index over every recallable row: BM25 postings, unit vectors, validity arrays.

Rebuilt from the store at start (tokens and vectors are stored, so no re-embedding) and kept
current as memories are added, superseded, archived and forgotten.
"""
from __future__ import annotations

import math
import threading
from collections import Counter
from dataclasses import dataclass

import numpy as np

from typing import TYPE_CHECKING

from .clock import ensure_utc, to_epoch
from .coarse_scan import COARSE_FROM_ROWS, CoarseScan
from .model import RESULT_TYPES, MemoryUnit
from .temporal import true_at_mask

if TYPE_CHECKING:
    from .store import Store

BM25_K1 = 0.9  # tuned for short chat turns and note chunks (bench/locomo.py)
# length normalisation: 0.4 suited LoCoMo's short even turns alone; 0.5 keeps LoCoMo (R@10 0.775 either way)
# and stops long assistant replies crowding out the user's turns on LongMemEval (turn all@10 0.56 → 0.60)
BM25_B = 0.5
#: a search token with this mark is a context key: a word of the turns before a chat turn, by which the
#: turn is found too (a reply answers what was asked), counted as a second, lighter field (BM25F)
CONTEXT_MARK = "^"
CONTEXT_WEIGHT = 0.5  # a context key weighs half a word of the turn's own text, in term frequency and length
TYPE_CODES = {name: code for code, name in enumerate(RESULT_TYPES)}


@dataclass
class Filters:
    """Metadata filters applied before ranking."""

    as_of: float  # epoch seconds
    types: tuple[str, ...] | None = None
    session_id: str | None = None
    source_id: int | None = None
    include_archived: bool = False
    recorded_by: float | None = None  # epoch seconds: only what Engram had recorded by then (system clock)


class _Postings:
    """Postings of the rows added one by one (after the bulk build), as growing lists."""

    __slots__ = ("rows", "tfs", "_rows_np", "_tfs_np")

    def __init__(self) -> None:
        self.rows: list[int] = []
        self.tfs: list[int] = []
        self._rows_np: np.ndarray | None = None
        self._tfs_np: np.ndarray | None = None

    def add(self, row: int, tf: int) -> None:
        self.rows.append(row)
        self.tfs.append(tf)
        self._rows_np = None

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self._rows_np is None:
            self._rows_np = np.fromiter(self.rows, dtype=np.int64, count=len(self.rows))
            self._tfs_np = np.fromiter(self.tfs, dtype=np.float32, count=len(self.tfs))
        return self._rows_np, self._tfs_np


@dataclass
class BulkPostings:
    """Postings built in one pass, as compressed rows: term `t` holds `rows[starts[t]:starts[t + 1]]`."""

    vocab: dict[str, int]
    starts: np.ndarray  # int64, len(vocab) + 1
    rows: np.ndarray  # int32 row numbers, ascending within a term
    tfs: np.ndarray  # float32 term frequencies

    @classmethod
    def empty(cls) -> "BulkPostings":
        return cls({}, np.zeros(1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.float32))

    def get(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        t = self.vocab.get(term)
        if t is None:
            return None
        a, b = self.starts[t], self.starts[t + 1]
        return self.rows[a:b], self.tfs[a:b]


class HybridIndex:
    """BM25 + cosine search with validity masks; rows are append-only, ids map to rows."""

    def __init__(self, dim: int, capacity: int = 1024) -> None:
        self.dim = dim
        self._lock = threading.RLock()
        self.size = 0
        self.row_of: dict[int, int] = {}
        self._alloc(capacity)
        self.bulk = BulkPostings.empty()  # rows read from the store at start
        self.added: dict[str, _Postings] = {}  # rows added since
        self.total_len = 0.0  # sum of live rows' lengths (context keys count CONTEXT_WEIGHT each)
        self.live_docs = 0
        self.follows = 0  # the store's `memory_writes` this index reflects (set by whoever keeps it current)
        self.coarse_from_rows = COARSE_FROM_ROWS  # vector searches from this many rows start with a coarse pass
        self._coarse: CoarseScan | None = None  # made by the first such search
        self._coarse_unfit_at: tuple[int, int] | None = None  # (rows, vector writes) when too few had vectors
        self._vectors_set = 0  # calls of set_vectors (re-embedding, vectors filled in behind an ingest)

    def _alloc(self, capacity: int) -> None:
        def grow(old: np.ndarray | None, shape: tuple, dtype, fill) -> np.ndarray:
            # zeros come from fresh pages, touched only when written (the vectors are most of the memory)
            new = np.zeros(shape, dtype=dtype) if fill == 0 else np.full(shape, fill, dtype=dtype)
            if old is not None:
                new[: self.size] = old[: self.size]
            return new

        cur = getattr(self, "ids", None)
        self.ids = grow(cur, (capacity,), np.int64, -1)
        self.vectors = grow(getattr(self, "vectors", None), (capacity, self.dim), np.float32, 0)
        self.recorded = grow(getattr(self, "recorded", None), (capacity,), np.float64, np.inf)
        self.valid_from = grow(getattr(self, "valid_from", None), (capacity,), np.float64, np.inf)
        self.valid_until = grow(getattr(self, "valid_until", None), (capacity,), np.float64, np.inf)
        self.superseded = grow(getattr(self, "superseded", None), (capacity,), np.float64, np.inf)
        self.archived = grow(getattr(self, "archived", None), (capacity,), bool, False)
        self.alive = grow(getattr(self, "alive", None), (capacity,), bool, False)
        self.type_code = grow(getattr(self, "type_code", None), (capacity,), np.int8, -1)
        self.source = grow(getattr(self, "source", None), (capacity,), np.int64, -1)
        self.event = grow(getattr(self, "event", None), (capacity,), np.int64, -1)
        self.doc_len = grow(getattr(self, "doc_len", None), (capacity,), np.float32, 0)
        self.relevance = grow(getattr(self, "relevance", None), (capacity,), np.float32, 1.0)
        self.sessions: list[str | None] = getattr(self, "sessions", [])
        self.capacity = capacity

    @classmethod
    def from_store(cls, store: "Store", dim: int, *, vectors: bool = True) -> "HybridIndex":
        """Rebuild from stored tokens and vectors (no re-embedding); `vectors=False` leaves them zero."""
        from .index_build import build_from_store

        return build_from_store(cls, store, dim, vectors=vectors)

    # ------------------------------------------------------------------ writes
    def add(self, *, memory_id: int, type_: str, tokens: list[str], vector: np.ndarray,
            valid_from: float, valid_until: float, recorded: float, superseded: float,
            archived: bool = False, session_id: str | None = None, source_id: int | None = None,
            relevance: float = 1.0, event_id: int | None = None) -> None:
        with self._lock:
            if memory_id in self.row_of:
                return
            if self.size == self.capacity:
                self._alloc(self.capacity * 2)
            row = self.size
            self.size += 1
            self.row_of[memory_id] = row
            self.ids[row] = memory_id
            self.vectors[row] = vector
            self.valid_from[row] = valid_from
            self.valid_until[row] = valid_until
            self.recorded[row] = recorded
            self.superseded[row] = superseded
            self.archived[row] = archived
            self.relevance[row] = relevance
            self.alive[row] = True
            self.type_code[row] = TYPE_CODES.get(type_, -1)
            self.source[row] = source_id if source_id is not None else -1
            self.event[row] = event_id if event_id is not None else -1
            self.sessions.append(session_id)
            length = document_length(tokens)
            self.doc_len[row] = length
            self.total_len += length
            self.live_docs += 1
            for term, tf in Counter(tokens).items():
                postings = self.added.get(term)
                if postings is None:
                    postings = self.added[term] = _Postings()
                postings.add(row, tf)

    def add_unit(self, unit: MemoryUnit, tokens: list[str], vector: np.ndarray) -> None:
        self.add(
            memory_id=unit.id, type_=unit.type, tokens=tokens, vector=vector,
            valid_from=to_epoch(unit.valid_from, none_is=-np.inf), valid_until=to_epoch(unit.valid_until),
            recorded=to_epoch(unit.recorded_at, none_is=-np.inf), superseded=to_epoch(unit.superseded_at),
            archived=unit.archived, session_id=unit.session_id, source_id=unit.source_id,
            relevance=unit.relevance, event_id=unit.event_id,
        )

    def set_vectors(self, ids: list[int], matrix: np.ndarray) -> None:
        """Replace the vectors of rows (after re-embedding)."""
        with self._lock:
            self._vectors_set += 1
            changed = []
            for memory_id, vector in zip(ids, matrix):
                row = self.row_of.get(memory_id)
                if row is not None:
                    self.vectors[row] = vector
                    changed.append(row)
            if self._coarse is not None:
                self._coarse.refresh(self.vectors, changed)  # one product for the batch, not one per row

    def update_fields(self, memory_id: int, fields: dict) -> None:
        """Follow a stored update: times, archived flag, relevance (other fields are not indexed)."""
        with self._lock:
            row = self.row_of.get(memory_id)
            if row is None:
                return
            for name, column in (("valid_from", self.valid_from), ("recorded_at", self.recorded)):
                if name in fields:
                    column[row] = to_epoch(fields[name], none_is=-np.inf)
            for name, column in (("valid_until", self.valid_until), ("superseded_at", self.superseded)):
                if name in fields:
                    column[row] = to_epoch(fields[name])
            if "archived" in fields:
                self.archived[row] = bool(fields["archived"])
            if "relevance" in fields:
                self.relevance[row] = fields["relevance"]

    def replace_text(self, memory_id: int, tokens: list[str], vector: np.ndarray) -> None:
        """An edited memory: same id and attributes, new search tokens and vector."""
        with self._lock:
            row = self.row_of.get(memory_id)
            if row is None:
                return
            kept = dict(
                memory_id=memory_id, type_=RESULT_TYPES[self.type_code[row]], valid_from=self.valid_from[row],
                valid_until=self.valid_until[row], recorded=self.recorded[row], superseded=self.superseded[row],
                archived=bool(self.archived[row]), session_id=self.sessions[row],
                source_id=int(self.source[row]) if self.source[row] >= 0 else None,
                relevance=float(self.relevance[row]), event_id=int(self.event[row]) if self.event[row] >= 0 else None,
            )
            self.remove(memory_id)
            self.add(tokens=tokens, vector=vector, **kept)

    def remove(self, memory_id: int) -> None:
        """Forget: the row is never returned again (postings are filtered by `alive`)."""
        with self._lock:
            row = self.row_of.pop(memory_id, None)
            if row is not None and self.alive[row]:
                self.alive[row] = False
                self.total_len -= float(self.doc_len[row])
                self.live_docs -= 1
                self.vectors[row] = 0  # the coarse pass may keep its old projection: dropped rows never count

    # ------------------------------------------------------------------- reads
    def mask(self, filters: Filters) -> np.ndarray:
        n = self.size
        keep = self.alive[:n].copy()
        if not filters.include_archived:
            keep &= ~self.archived[:n]
        keep &= true_at_mask(self.time_columns(n), filters.as_of, recorded_by=filters.recorded_by)
        if filters.types:
            codes = [TYPE_CODES[t] for t in filters.types if t in TYPE_CODES]
            keep &= np.isin(self.type_code[:n], codes)
        if filters.source_id is not None:
            keep &= self.source[:n] == filters.source_id
        if filters.session_id is not None:
            keep &= np.fromiter((s == filters.session_id for s in self.sessions[:n]), bool, n)
        return keep

    def time_columns(self, n: int | None = None) -> dict[str, np.ndarray]:
        """The rows' time fields as epoch-second arrays, named as the memory fields are."""
        n = self.size if n is None else n
        return {"recorded_at": self.recorded[:n], "valid_from": self.valid_from[:n],
                "valid_until": self.valid_until[:n], "superseded_at": self.superseded[:n]}

    def bm25(self, terms: list[str], keep: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """Top rows by BM25F among `keep`, as (memory_id, score): a row's own words and its context keys
        are two fields, a context key weighing CONTEXT_WEIGHT of a word in term frequency and length."""
        return self._listed(*self.bm25_rows(terms, keep, limit))

    def bm25_rows(self, terms: list[str], keep: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
        """`bm25` as arrays: the top rows (index rows, best first) and their scores (float32)."""
        with self._lock:
            if not terms or self.live_docs == 0:
                return _NO_ROWS, _NO_SCORES
            n = self.size
            avg_len = max(self.total_len / max(self.live_docs, 1), 1.0)
            scores = np.zeros(n, dtype=np.float32)
            for term, query_tf in Counter(terms).items():
                found = self._field_frequencies(term)
                if found is None:
                    continue
                rows, tfs = found
                df = len(rows)
                idf = math.log(1.0 + (self.live_docs - df + 0.5) / (df + 0.5))
                norm = tfs + BM25_K1 * (1.0 - BM25_B + BM25_B * self.doc_len[rows] / avg_len)
                scores[rows] += query_tf * idf * tfs * (BM25_K1 + 1.0) / norm
            scores *= _fit(keep, n)  # dropped rows score 0 (a multiply: a tenth of the time of a masked write)
            return self._top_rows(scores, limit, positive_only=True)

    def _field_frequencies(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(rows, weighted term frequency) of the rows holding a term as a word or as a context key."""
        own, context = self.postings(term), self.postings(CONTEXT_MARK + term)
        if context is None:
            return own
        if own is None:
            return context[0], CONTEXT_WEIGHT * context[1]
        # a row appears once in each list: merge the two, not a row-sized array per term (a hot path at 100k rows)
        rows, where = np.unique(np.concatenate((own[0], context[0])), return_inverse=True)
        weights = np.concatenate((own[1], CONTEXT_WEIGHT * context[1])).astype(np.float64)
        return rows, np.bincount(where, weights=weights).astype(np.float32)

    def cosine(self, query: np.ndarray, keep: np.ndarray, limit: int) -> tuple[list[tuple[int, float]], float]:
        """Top rows by cosine similarity among `keep` as (memory_id, similarity), and the lowest similarity."""
        rows, similarities, floor = self.cosine_rows(query, keep, limit)
        return self._listed(rows, similarities), floor

    def cosine_rows(self, query: np.ndarray, keep: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray, float]:
        """`cosine` as arrays: the top rows (index rows, best first), their similarities (float32), the floor."""
        with self._lock:
            n = self.size
            keep = _fit(keep, n)
            if n == 0 or not keep.any():
                return _NO_ROWS, _NO_SCORES, 0.0
            query = np.asarray(query, dtype=np.float32)
            # dropped rows: +inf for the floor, -inf for the top (adding 0 or -inf: faster than masked writes)
            penalty = np.take(_DROPPED_PENALTY, np.asarray(keep, dtype=bool).view(np.uint8))
            if n >= self.coarse_from_rows and self._coarse_scan(n) is not None:
                return self._cosine_rows_coarse(query, penalty, limit)
            scores = self.vectors[:n] @ query
            floor = float((scores - penalty).min())
            scores += penalty
            return (*self._top_rows(scores, limit, positive_only=False), floor)

    def _coarse_scan(self, n: int) -> CoarseScan | None:
        """The coarse pass over the first `n` rows, fitted again once the index has doubled; None while too few
        rows have vectors (tried again once rows or vectors have been written since)."""
        if self._coarse is not None and n < 2 * self._coarse.fitted_at:
            return self._coarse
        if self._coarse is None and self._coarse_unfit_at == (n, self._vectors_set):
            return None
        self._coarse = CoarseScan.fitted(self.vectors, n)
        self._coarse_unfit_at = None if self._coarse is not None else (n, self._vectors_set)
        return self._coarse

    def _cosine_rows_coarse(self, query: np.ndarray, penalty: np.ndarray,
                            limit: int) -> tuple[np.ndarray, np.ndarray, float]:
        """`cosine_rows` for a large index: exact scores for the rows a first pass over fewer dimensions finds."""
        n = len(penalty)
        self._coarse.follow(self.vectors, n)
        best, worst = self._coarse.rows_to_rescore(query, penalty, n)
        floor = float((self.vectors[worst] @ query).min())
        best.sort()  # ties come out in row order, as from every row
        top, similarities = self._top_rows(self.vectors[best] @ query + penalty[best], limit, positive_only=False)
        return best[top], similarities, floor

    def similarities(self, keep: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The memory ids of the rows under `keep`, and their cosine to each query (rows × queries):
        one product over those rows alone, for many queries against a small part of the index."""
        with self._lock:
            rows = np.flatnonzero(_fit(keep, self.size))
            return self.ids[rows].copy(), self.vectors[rows] @ np.asarray(queries, dtype=np.float32).T

    def same_message(self, memory_id: int) -> list[int]:
        """The live memories written from the same message (event) as `memory_id`, itself included."""
        with self._lock:
            row = self.row_of.get(memory_id)
            if row is None:
                return []
            if self.event[row] < 0:
                return [memory_id]
            rows = np.flatnonzero((self.event[: self.size] == self.event[row]) & self.alive[: self.size])
            return [int(i) for i in self.ids[rows]]

    def is_type(self, memory_id: int, type_: str) -> bool:
        row = self.row_of.get(memory_id)
        return row is not None and int(self.type_code[row]) == TYPE_CODES.get(type_, -2)

    def vectors_of(self, memory_ids: list[int]) -> np.ndarray:
        """The stored vectors of some memories, in the order given (a missing one is zero)."""
        with self._lock:
            out = np.zeros((len(memory_ids), self.dim), dtype=np.float32)
            for position, memory_id in enumerate(memory_ids):
                row = self.row_of.get(memory_id)
                if row is not None:
                    out[position] = self.vectors[row]
            return out

    def _top_rows(self, scores: np.ndarray, limit: int, *, positive_only: bool) -> tuple[np.ndarray, np.ndarray]:
        """The `limit` best rows by score, best first, and their scores (-inf, and 0 when `positive_only`, left out)."""
        limit = min(limit, len(scores))
        if limit <= 0:
            return _NO_ROWS, _NO_SCORES
        rows = np.argpartition(-scores, limit - 1)[:limit]
        least = scores[rows].min()
        if least > (0.0 if positive_only else -np.inf):  # rows tied with the last one kept: the first rows
            above = rows[scores[rows] > least]
            rows = np.concatenate((above, np.flatnonzero(scores == least)[: limit - len(above)]))
        rows = rows[np.lexsort((rows, -scores[rows]))]  # best first; equal scores in row order
        best = scores[rows]
        shown = best > 0.0 if positive_only else best != -np.inf
        return rows[shown], best[shown]

    def _listed(self, rows: np.ndarray, scores: np.ndarray) -> list[tuple[int, float]]:
        """Rows and scores as (memory_id, score) pairs."""
        return list(zip(self.ids[rows].tolist(), scores.tolist()))

    def term_coverage(self, memory_id: int, terms: list[str]) -> float:
        """Share of the distinct query terms that occur in a row (as a word or a context key)."""
        unique = set(terms)
        row = self.row_of.get(memory_id)
        if not unique or row is None:
            return 0.0
        hits = 0
        for term in unique:
            found = self._field_frequencies(term)
            hits += found is not None and bool((found[0] == row).any())
        return hits / len(unique)

    def turn_and_event(self, memory_id: int) -> tuple[bool, int]:
        """(is a chat turn, event id or -1) of a row."""
        row = self.row_of.get(memory_id)
        if row is None:
            return False, -1
        return bool(self.type_code[row] == TYPE_CODES["chat_turn"]), int(self.event[row])

    def attrs(self, memory_id: int) -> tuple[float, float] | None:
        """(relevance, valid_from epoch) of a row."""
        row = self.row_of.get(memory_id)
        if row is None:
            return None
        return float(self.relevance[row]), float(self.valid_from[row])

    def has(self, memory_id: int) -> bool:
        return memory_id in self.row_of

    def kept(self, memory_id: int, keep: np.ndarray) -> bool:
        """Whether a memory's row passes a mask from `mask()`."""
        row = self.row_of.get(memory_id)
        return row is not None and row < len(keep) and bool(keep[row])

    def rows_with_term(self, term: str) -> list[int]:
        postings = self.postings(term)
        if postings is None:
            return []
        return [int(self.ids[row]) for row in postings[0] if self.alive[row]]

    def holding(self, term: str, memory_ids: list[int]) -> set[int]:
        """Those of `memory_ids` whose row holds `term`."""
        rows = np.array([self.row_of.get(memory_id, -1) for memory_id in memory_ids], dtype=np.int64)
        return {memory_id for memory_id, held in zip(memory_ids, self.rows_holding(term, rows).tolist()) if held}

    def rows_holding(self, term: str, rows: np.ndarray) -> np.ndarray:
        """Which of a few index `rows` hold `term`, as a mask: each looked up in the term's rows (ascending),
        not a mask of every row that holds it."""
        postings = self.postings(term)
        if postings is None or not len(postings[0]):
            return np.zeros(len(rows), dtype=bool)
        found = postings[0]
        at = np.minimum(np.searchsorted(found, rows), len(found) - 1)
        return found[at] == rows

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(rows, term frequencies) of a term, rows ascending; dead rows included (`alive` filters)."""
        bulk, added = self.bulk.get(term), self.added.get(term)
        if added is None:
            return bulk
        if bulk is None:
            return added.arrays()
        rows, tfs = added.arrays()
        return np.concatenate([bulk[0], rows]), np.concatenate([bulk[1], tfs])

    def terms(self) -> set[str]:
        """Every term with postings (of live or dead rows)."""
        return set(self.bulk.vocab) | set(self.added)

    def __len__(self) -> int:
        return self.live_docs


_DROPPED_PENALTY = np.array([-np.inf, 0.0], np.float32)  # by keep (False, True)
_NO_ROWS = np.zeros(0, np.int64)
_NO_SCORES = np.zeros(0, np.float32)


def context_key(token: str) -> str:
    """The search token by which a chat turn is found for a word of the turns before it."""
    return CONTEXT_MARK + token


def document_length(tokens: list[str]) -> float:
    """A row's length for BM25: its own words count 1, its context keys CONTEXT_WEIGHT."""
    context = sum(1 for token in tokens if token.startswith(CONTEXT_MARK))
    return len(tokens) - context + CONTEXT_WEIGHT * context


def _fit(keep: np.ndarray, rows: int) -> np.ndarray:
    """A recall's row mask sized to the index now: rows added since it was built (a sync running beside
    the recall) are not part of what that recall looks at."""
    if len(keep) >= rows:
        return keep[:rows]
    return np.concatenate([keep, np.zeros(rows - len(keep), dtype=bool)])
