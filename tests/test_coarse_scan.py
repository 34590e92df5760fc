"""A large index's vector search starts with a pass over fewer dimensions (memory/coarse_scan.py): it must
give what scoring every row in full gives, and follow rows added, re-embedded and forgotten after it began."""
import numpy as np
import pytest

from memory.coarse_scan import CANDIDATES
from memory.index import HybridIndex

DIM = 192  # more dimensions than the coarse pass keeps, so its first scores are approximate
ROWS = CANDIDATES * 3  # more rows than the coarse pass rescores, so it has to choose


def topics_and_texts(seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors around 40 topics (text embeddings cluster so; a few directions carry most of the spread)."""
    rng = np.random.default_rng(seed)
    topics = rng.normal(size=(40, DIM))
    texts = topics[rng.integers(0, 40, ROWS)] + 0.6 * rng.normal(size=(ROWS, DIM))
    texts /= np.linalg.norm(texts, axis=1, keepdims=True)
    return topics, texts.astype(np.float32)


def pair(texts: np.ndarray) -> tuple[HybridIndex, HybridIndex]:
    """The same rows twice: one index searched with the coarse pass, one scored in full."""
    coarse, full = HybridIndex(DIM), HybridIndex(DIM)
    coarse.coarse_from_rows, full.coarse_from_rows = 1000, ROWS * 10
    for index in (coarse, full):
        for memory_id, vector in enumerate(texts, start=1):
            add(index, memory_id, vector)
    return coarse, full


def add(index: HybridIndex, memory_id: int, vector: np.ndarray) -> None:
    index.add(memory_id=memory_id, type_="fact_reference", tokens=["word"], vector=vector,
              valid_from=0.0, valid_until=np.inf, recorded=0.0, superseded=np.inf)


def queries(topics: np.ndarray, count: int = 30, seed: int = 9) -> np.ndarray:
    rng = np.random.default_rng(seed)
    q = topics[rng.integers(0, len(topics), count)] + 0.8 * rng.normal(size=(count, DIM))
    return (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)


def assert_same_search(coarse: HybridIndex, full: HybridIndex, query: np.ndarray, keep: np.ndarray,
                       limit: int = 50) -> None:
    rows_c, sims_c, floor_c = coarse.cosine_rows(query, keep, limit)
    rows_f, sims_f, floor_f = full.cosine_rows(query, keep, limit)
    assert rows_c.tolist() == rows_f.tolist()
    assert sims_c == pytest.approx(sims_f, abs=1e-5)
    assert floor_c == pytest.approx(floor_f, abs=1e-5)


def test_the_coarse_pass_finds_the_rows_and_floor_that_scoring_every_row_finds():
    topics, texts = topics_and_texts()
    coarse, full = pair(texts)
    keep = coarse.alive[: coarse.size].copy()
    for query in queries(topics):
        assert_same_search(coarse, full, query, keep)
    assert coarse._coarse is not None and full._coarse is None  # the first really ran the coarse pass


def test_with_most_rows_dropped_by_the_time_filter_the_floor_is_the_least_kept_one():
    topics, texts = topics_and_texts()
    coarse, full = pair(texts)
    keep = np.random.default_rng(3).random(coarse.size) < 0.25
    for query in queries(topics, 15):
        assert_same_search(coarse, full, query, keep)
    few = np.zeros(coarse.size, dtype=bool)
    few[[7, 300, 2000]] = True  # fewer kept rows than asked for
    assert_same_search(coarse, full, queries(topics, 1)[0], few)


def test_rows_added_re_embedded_or_forgotten_after_the_first_search_are_followed():
    topics, texts = topics_and_texts()
    coarse, full = pair(texts)
    query = queries(topics, 1)[0]
    coarse.cosine_rows(query, coarse.alive[: coarse.size], 10)  # the projection now exists
    best = int(coarse.cosine_rows(query, coarse.alive[: coarse.size], 1)[0][0])

    for index in (coarse, full):
        add(index, ROWS + 1, query)  # a new row that is the query itself
    keep = coarse.alive[: coarse.size].copy()
    assert coarse.ids[coarse.cosine_rows(query, keep, 1)[0][0]] == ROWS + 1
    assert_same_search(coarse, full, query, keep)

    far = -query
    for index in (coarse, full):
        index.set_vectors([ROWS + 1], far[None, :])  # re-embedded: now the least similar row
        index.remove(int(index.ids[best]))  # the old best match forgotten
    keep = coarse.alive[: coarse.size].copy()
    rows, _, floor = coarse.cosine_rows(query, keep, 10)
    assert best not in rows.tolist() and floor == pytest.approx(-1.0, abs=1e-5)
    assert_same_search(coarse, full, query, keep)


def test_equal_scores_come_out_in_row_order_whether_or_not_the_coarse_pass_runs():
    topics, texts = topics_and_texts()
    texts[100] = texts[2500] = texts[1700]  # three memories with the same text
    coarse, full = pair(texts)
    keep = coarse.alive[: coarse.size].copy()
    for index in (coarse, full):
        rows, sims, _ = index.cosine_rows(texts[1700], keep, 2)
        assert rows.tolist() == [100, 1700] and sims[0] == sims[1]


def test_while_vectors_are_still_being_filled_in_the_search_scores_every_row_then_fits_once_they_are():
    topics, texts = topics_and_texts()
    coarse, full = pair(np.zeros_like(texts))  # rows stored before their vectors, as a large ingest does
    query = queries(topics, 1)[0]
    keep = coarse.alive[: coarse.size].copy()
    coarse.cosine_rows(query, keep, 10)
    assert coarse._coarse is None  # no directions from rows without vectors

    ids = list(range(1, ROWS + 1))
    for index in (coarse, full):
        index.set_vectors(ids, texts)
    assert_same_search(coarse, full, query, keep)
    assert coarse._coarse is not None and coarse._coarse.fitted_at == ROWS

    for index in (coarse, full):  # twice the rows it was fitted on: fitted again
        for memory_id, vector in enumerate(texts, start=ROWS + 1):
            add(index, memory_id, vector)
    keep = coarse.alive[: coarse.size].copy()
    assert_same_search(coarse, full, query, keep)
    assert coarse._coarse.fitted_at == 2 * ROWS
