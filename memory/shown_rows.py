"""Every memory's shown fields and entity links held in Arrow columns, so a recall's results are read without a
statement (on a large store DuckDB fetches each row by decompressing the stretch of every column around it).
Values are read one by one from the columns: pyarrow's `take` and conversions to numpy import pandas.

The store builds the columns, tells this table which memories each of its writes changed, and reads those again
itself; a write it cannot name the memories of, or a rolled-back transaction, drops the table."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

import numpy as np

from .index_build import arrow_numbers

if TYPE_CHECKING:
    import pyarrow as pa

#: a memory's row (the store's memory columns by name) and the ids of the entities it names, in id order; read only
Shown = tuple[dict[str, Any], list[int]]


class ShownRows:
    def __init__(self, rows: "pa.Table", links: "pa.Table", writes: int) -> None:
        """`rows`: the memory columns ordered by id; `links`: (memory_id, entity_id) ordered by both;
        `writes`: the store's write count they reflect."""
        rows = rows.combine_chunks()
        self._names = rows.column_names
        self._columns = [rows.column(name) for name in self._names]
        self._ids = arrow_numbers(rows.column("id"), np.int64)
        self._link_memory = arrow_numbers(links.column("memory_id"), np.int64)
        self._link_entity = arrow_numbers(links.column("entity_id"), np.int64)
        self.writes = writes
        self._changed: set[int] = set()
        self._read_again: dict[int, Shown] = {}  # changed memories as the store read them after the change

    def changed(self, memory_ids: Iterable[int], writes: int) -> None:
        """A write changed these memories (rows or entity links; new, edited or deleted)."""
        for memory_id in memory_ids:
            self._changed.add(memory_id)
            self._read_again.pop(memory_id, None)
        self.writes = writes

    def keep(self, read: dict[int, Shown]) -> None:
        """Changed memories the store has just read as they now are."""
        self._read_again.update(read)

    def get(self, memory_ids: list[int]) -> tuple[dict[int, Shown], list[int]]:
        """The memories held as they are now, and the ids this table cannot answer for (changed since it was
        built and not read again, or never held: the store reads those)."""
        found = {memory_id: self._read_again[memory_id] for memory_id in memory_ids if memory_id in self._read_again}
        asked = np.array([i for i in memory_ids if i not in found and i not in self._changed], dtype=np.int64)
        positions = np.searchsorted(self._ids, asked)
        inside = positions < len(self._ids)
        held_here = np.zeros(len(asked), dtype=bool)
        held_here[inside] = self._ids[positions[inside]] == asked[inside]
        wanted = asked[held_here]
        starts = np.searchsorted(self._link_memory, wanted, side="left")
        ends = np.searchsorted(self._link_memory, wanted, side="right")
        for position, start, end in zip(positions[held_here].tolist(), starts, ends):
            row = {name: column[position].as_py() for name, column in zip(self._names, self._columns)}
            found[row["id"]] = (row, self._link_entity[start:end].tolist())
        return found, [i for i in memory_ids if i not in found]
