"""The index built from the store in bulk: columns read as Arrow arrays, postings counted with numpy.

Equivalent to adding the stored rows one by one (same rows in id order, same postings, lengths and
vectors; tests/test_index.py compares the two) but about twenty times faster: no Python work per row
or per token. pyarrow's own conversions to numpy import pandas (half a second), so arrays are read
from their buffers.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .index import CONTEXT_MARK, CONTEXT_WEIGHT, TYPE_CODES, BulkPostings, HybridIndex

if TYPE_CHECKING:
    import pyarrow as pa

    from .store import Store

NO_MICROSECONDS = -(2**63)  # what the store gives for a missing time (see Store.index_columns)


def build_from_store(cls: type[HybridIndex], store: "Store", dim: int, *, vectors: bool = True) -> HybridIndex:
    """The index of every stored memory; `vectors=False` leaves the vectors zero."""
    rows = store.index_columns()
    index = cls(dim, capacity=max(1024, rows.num_rows + 1024))
    ids = arrow_numbers(rows.column("id"), np.int64)
    if len(ids) and (np.diff(ids) <= 0).any():  # a damaged store holds an id twice: keep the first, as add() does
        return _one_by_one(index, rows, store, dim, vectors)
    n = len(ids)
    index.size = n
    index.ids[:n] = ids
    index.row_of = dict(zip(ids.tolist(), range(n)))
    for name, column, missing in (("valid_from_us", index.valid_from, -np.inf),
                                  ("valid_until_us", index.valid_until, np.inf),
                                  ("recorded_us", index.recorded, -np.inf),
                                  ("superseded_us", index.superseded, np.inf)):
        micro = arrow_numbers(rows.column(name), np.int64)
        column[:n] = np.where(micro == NO_MICROSECONDS, missing, micro / 1e6)  # = datetime.timestamp()
    index.archived[:n] = arrow_numbers(rows.column("archived"), np.uint8).astype(bool)
    index.alive[:n] = True
    index.type_code[:n] = _type_codes(rows.column("type"))
    index.source[:n] = arrow_numbers(rows.column("source_id"), np.int64)
    index.event[:n] = arrow_numbers(rows.column("event_id"), np.int64)
    index.relevance[:n] = arrow_numbers(rows.column("relevance"), np.float64)
    index.sessions = rows.column("session_id").to_pylist()
    index.bulk, doc_len = _postings(rows.column("tokens"), n)
    index.doc_len[:n] = doc_len
    index.total_len = float(doc_len.sum(dtype=np.float64))
    index.live_docs = n
    if vectors:
        _place_vectors(index, store.index_vectors(), dim)
    return index


def arrow_numbers(column: "pa.ChunkedArray", dtype) -> np.ndarray:
    """A fixed-width column without nulls as one numpy array (copied chunk by chunk from the buffers)."""
    parts = [np.frombuffer(chunk.buffers()[1], dtype=dtype)[chunk.offset: chunk.offset + len(chunk)]
             for chunk in column.chunks]
    return np.concatenate(parts) if parts else np.zeros(0, dtype)


def _type_codes(column: "pa.ChunkedArray") -> np.ndarray:
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(column.combine_chunks())
    lookup = np.array([TYPE_CODES.get(name, -1) for name in encoded.dictionary.to_pylist()] or [-1], np.int8)
    return lookup[_ints_of(encoded.indices)]


def _ints_of(array: "pa.Array") -> np.ndarray:
    """An Arrow integer array without nulls as a numpy view."""
    dtype = np.dtype(str(array.type))  # int8 … uint64 share their names
    return np.frombuffer(array.buffers()[1], dtype=dtype)[array.offset: array.offset + len(array)]


def _postings(tokens: "pa.ChunkedArray", n: int) -> tuple[BulkPostings, np.ndarray]:
    """Postings of space-joined token strings, split as str.split() splits them, and each row's length
    (a context key counting CONTEXT_WEIGHT)."""
    import pyarrow.compute as pc

    pieces = pc.utf8_split_whitespace(tokens.combine_chunks())  # Python's whitespace; runs count once
    encoded = pc.dictionary_encode(pc.list_flatten(pieces))
    vocab_list = encoded.dictionary.to_pylist()
    term = _ints_of(encoded.indices).astype(np.int64)
    row = _ints_of(pc.list_parent_indices(pieces)).astype(np.int64)
    if "" in vocab_list:  # what leading or trailing whitespace (or an empty string) leaves: no word
        empty = vocab_list.index("")
        vocab_list.pop(empty)
        word = term != empty
        term, row = term[word], row[word]
        term -= term > empty
    weight = np.array([CONTEXT_WEIGHT if t.startswith(CONTEXT_MARK) else 1.0 for t in vocab_list] or [1.0])
    doc_len = np.bincount(row, weights=weight[term], minlength=n).astype(np.float32)  # = index.document_length
    keys = np.sort(term * max(n, 1) + row)  # by term, then row: the order postings are kept in
    first = np.empty(len(keys), bool)
    first[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    starts_at = np.flatnonzero(first)
    tfs = np.diff(np.append(starts_at, len(keys))).astype(np.float32)
    unique = keys[starts_at]
    starts = np.zeros(len(vocab_list) + 1, np.int64)
    np.cumsum(np.bincount(unique // max(n, 1), minlength=len(vocab_list)), out=starts[1:])
    vocab = dict(zip(vocab_list, range(len(vocab_list))))
    return BulkPostings(vocab, starts, (unique % max(n, 1)).astype(np.int32), tfs), doc_len


def _place_vectors(index: HybridIndex, table: "pa.Table", dim: int) -> None:
    """Stored vectors into their rows; one of another length (or none) leaves the row zero."""
    owner = arrow_numbers(table.column("memory_id"), np.int64)
    if not len(owner):
        return
    n, width = index.size, 4 * dim
    rows = np.searchsorted(index.ids[:n], owner)
    rows[rows >= n] = 0
    known = index.ids[rows] == owner
    if len(np.unique(owner)) < len(owner):  # a damaged store holds a vector twice: the first one, as before
        _, first = np.unique(owner, return_index=True)
        once = np.zeros(len(owner), bool)
        once[first] = True
        known &= once
    done = 0
    for chunk in table.column("vector").chunks:
        count = len(chunk)
        at, ok = rows[done: done + count], known[done: done + count]
        done += count
        offsets = np.frombuffer(chunk.buffers()[1], np.int32)[chunk.offset: chunk.offset + count + 1]
        data = np.frombuffer(chunk.buffers()[2], np.uint8) if count else np.zeros(0, np.uint8)
        if chunk.null_count == 0 and (np.diff(offsets) == width).all():
            matrix = data[offsets[0]: offsets[-1]].view(np.float32).reshape(count, dim)
            if ok.all() and at[-1] - at[0] == count - 1 and (np.diff(at) == 1).all():
                index.vectors[at[0]: at[0] + count] = matrix  # stored in row order: one copy
            else:
                index.vectors[at[ok]] = matrix[ok]
            continue
        for i in range(count):  # a damaged or mixed store: row by row
            if ok[i] and chunk[i].is_valid and offsets[i + 1] - offsets[i] == width:
                index.vectors[at[i]] = data[offsets[i]: offsets[i + 1]].view(np.float32)


def _one_by_one(index: HybridIndex, rows: "pa.Table", store: "Store", dim: int, vectors: bool) -> HybridIndex:
    """The slow path for a store that holds an id twice: rows added one at a time, the first of an id kept."""
    columns = {name: rows.column(name).to_pylist() for name in rows.column_names}
    vector_of: dict[int, bytes] = {}
    if vectors:
        table = store.index_vectors()
        for memory_id, blob in zip(table.column("memory_id").to_pylist(), table.column("vector").to_pylist()):
            vector_of.setdefault(memory_id, blob)
    zero = np.zeros(dim, np.float32)

    def seconds(micro: int, missing: float) -> float:
        return missing if micro == NO_MICROSECONDS else micro / 1e6

    for i, memory_id in enumerate(columns["id"]):
        blob = vector_of.get(memory_id)
        vector = np.frombuffer(blob, np.float32) if blob and len(blob) == 4 * dim else zero
        index.add(memory_id=memory_id, type_=columns["type"][i], tokens=(columns["tokens"][i] or "").split(),
                  vector=vector, valid_from=seconds(columns["valid_from_us"][i], -np.inf),
                  valid_until=seconds(columns["valid_until_us"][i], np.inf),
                  recorded=seconds(columns["recorded_us"][i], -np.inf),
                  superseded=seconds(columns["superseded_us"][i], np.inf), archived=bool(columns["archived"][i]),
                  session_id=columns["session_id"][i],
                  source_id=columns["source_id"][i] if columns["source_id"][i] >= 0 else None,
                  event_id=columns["event_id"][i] if columns["event_id"][i] >= 0 else None,
                  relevance=columns["relevance"][i])
    return index
