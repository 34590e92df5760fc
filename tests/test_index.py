import numpy as np
import pytest

from memory.index import Filters, HybridIndex


def build() -> HybridIndex:
    index = HybridIndex(dim=3, capacity=2)  # tiny capacity: forces growth
    rows = [
        (1, ["coffee", "latte"], [1, 0, 0], 0, np.inf, 0, np.inf),
        (2, ["coffee", "americano"], [0.9, 0.1, 0], 0, 50.0, 0, np.inf),  # true until t=50 (a change in the world)
        (3, ["tea"], [0, 1, 0], 0, np.inf, 100.0, np.inf),  # true from 0, but recorded only at t=100
        (4, ["cocoa"], [0.5, 0.5, 0.5], 0, np.inf, 0, 50.0),  # a record corrected at t=50
    ]
    for memory_id, tokens, vec, vf, vu, rec, sup in rows:
        v = np.asarray(vec, dtype=np.float32)
        index.add(memory_id=memory_id, type_="user_profile", tokens=tokens, vector=v / np.linalg.norm(v),
                  valid_from=vf, valid_until=vu, recorded=rec, superseded=sup)
    return index


def ids(hits) -> list[int]:
    return [i for i, _ in hits]


def test_time_filter_masks_rows():
    index = build()
    query = np.array([1, 0, 0], np.float32)
    hits, floor = index.cosine(query, index.mask(Filters(as_of=10)), 5)
    assert ids(hits) == [1, 2, 3] and floor == pytest.approx(0.0, abs=1e-6)  # world time, known now
    assert ids(index.cosine(query, index.mask(Filters(as_of=60)), 5)[0]) == [1, 3]  # 2 ended at 50
    assert ids(index.cosine(query, index.mask(Filters(as_of=10, recorded_by=10)), 5)[0]) == [1, 2, 4]
    assert ids(index.cosine(query, index.mask(Filters(as_of=60, recorded_by=60)), 5)[0]) == [1]
    assert {i for i, _ in index.bm25(["tea"], index.mask(Filters(as_of=60)), 5)} == {3}
    assert {i for i, _ in index.bm25(["tea"], index.mask(Filters(as_of=60, recorded_by=60)), 5)} == set()


def test_bm25_prefers_rare_terms_and_forget_removes():
    index = build()
    keep = index.mask(Filters(as_of=10))
    hits = index.bm25(["coffee", "americano"], keep, 5)
    assert hits[0][0] == 2 and hits[0][1] > hits[1][1]
    index.remove(2)
    assert 2 not in [i for i, _ in index.bm25(["americano"], index.mask(Filters(as_of=10)), 5)]
    assert len(index) == 3


def test_archived_hidden_unless_asked():
    index = build()
    index.update_fields(1, {"archived": True})
    assert 1 not in [i for i, _ in index.bm25(["latte"], index.mask(Filters(as_of=10)), 5)]
    assert 1 in [i for i, _ in index.bm25(["latte"], index.mask(Filters(as_of=10, include_archived=True)), 5)]


def test_a_row_added_after_the_mask_was_built_is_left_out_not_an_error():
    """A vault sync may add rows between a recall's mask and its scoring."""
    index = build()
    keep = index.mask(Filters(as_of=10))
    for memory_id in (5, 6):  # beyond the mask, and past the index's capacity
        index.add(memory_id=memory_id, type_="user_profile", tokens=["coffee", "mocha"],
                  vector=np.array([1, 0, 0], np.float32), valid_from=0, valid_until=np.inf, recorded=0,
                  superseded=np.inf)
    assert set(ids(index.bm25(["coffee"], keep, 10))) == {1, 2}
    assert ids(index.cosine(np.array([1, 0, 0], np.float32), keep, 10)[0]) == [1, 2, 3]


def test_the_array_searches_give_index_rows_best_first_and_the_listed_ones_memory_ids():
    """Recall reads `bm25_rows`/`cosine_rows` (rows, scores); `bm25`/`cosine` are the same hits by memory id."""
    index = build()
    index.remove(1)  # ids and rows part ways: row 0 is dead, memory 2 is row 1
    keep = index.mask(Filters(as_of=10))
    rows, scores = index.bm25_rows(["coffee", "americano"], keep, 5)
    assert rows.tolist() == [1] and index.bm25(["coffee", "americano"], keep, 5) == [(2, float(scores[0]))]
    query = np.array([1, 0, 0], np.float32)
    rows, similarities, floor = index.cosine_rows(query, keep, 5)
    assert index.ids[rows].tolist() == [2, 3] and (np.diff(similarities) <= 0).all()
    assert index.cosine(query, keep, 5) == ([(2, float(similarities[0])), (3, float(similarities[1]))], floor)
    away = np.array([0, 0, -1], np.float32)  # memory 4 (corrected, not kept) is the farthest row
    assert index.cosine_rows(away, keep, 5)[2] == pytest.approx(0.0, abs=1e-6)  # the floor is among kept rows only


def test_which_rows_hold_a_term_is_answered_for_rows_read_at_start_and_added_since(tmp_path):
    from tests.helpers import at, open_engram

    eng = open_engram(tmp_path)
    eng.remember("Paris in spring.", at=at("2025-03-01T10:00:00"), message_id="u1")
    eng.remember("Paris is lovely then!", at=at("2025-03-01T10:01:00"), role="assistant", message_id="a1")
    eng.close()
    eng = open_engram(tmp_path)  # the two turns read at start (bulk postings) …
    try:
        eng.remember("Rome next?", at=at("2025-03-02T10:00:00"), message_id="u2")
        eng.remember("Rome is warmer.", at=at("2025-03-02T10:01:00"), role="assistant", message_id="a2")  # … two added
        index = eng.index
        by_message = {u.message_id: u.id for u in eng.store.memories_by_id(
            [int(i) for i in index.ids[: index.size]]).values() if u.type == "chat_turn"}
        rows = np.array([index.row_of[by_message[m]] for m in ("u1", "a1", "u2", "a2")] + [-1], dtype=np.int64)
        assert index.rows_holding("§assistant", rows).tolist() == [False, True, False, True, False]
        assert index.holding("§assistant", [by_message["a2"], by_message["u1"], 10**9]) == {by_message["a2"]}
        assert not index.rows_holding("§nothing", rows).any()
    finally:
        eng.close()
