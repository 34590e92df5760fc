"""A first pass over fewer dimensions, for a large index's vector search.

Scoring every row's 384 dimensions reads the whole vector matrix (150 MB at 100,000 memories) at each
recall. From `COARSE_FROM_ROWS` rows the index also keeps each vector projected onto the matrix's
`DIMS` principal directions (a third of the size), scores every row there, and then scores exactly the
`CANDIDATES` best of that pass and the `FLOOR_CANDIDATES` worst: the top rows and their similarities,
and the least similarity (the fusion's floor), are the exact ones whenever the exact top and the exact
least are among those (`bench/recall_latency.py --coarse-check` counts how often they are not).

The directions are fitted on an even sample of the rows that have a vector, and fitted again when the
index has doubled since; rows added in between are projected onto the same directions when a search
first sees them, and a row whose vector changes is projected again at once. While too few rows have
vectors (a large vault whose vectors are still being filled in) there is no coarse pass.
"""
from __future__ import annotations

import numpy as np

COARSE_FROM_ROWS = 50_000
DIMS = 128
CANDIDATES = 2048  # exactly rescored rows from the top of the first pass
FLOOR_CANDIDATES = 64  # and from its bottom, for the least similarity
FIT_SAMPLE = 20_000
MIN_FIT_ROWS = 4_096  # rows with a vector in the sample, for directions worth keeping


class CoarseScan:
    """Projected vectors of an index's rows [0, `done`), on directions fitted to the rows at creation."""

    def __init__(self, basis: np.ndarray, vectors: np.ndarray, size: int) -> None:
        self.basis = basis  # dim × DIMS
        self.fitted_at = size
        self.projected = np.zeros((0, basis.shape[1]), dtype=np.float32)
        self.done = 0
        self.follow(vectors, size)

    @classmethod
    def fitted(cls, vectors: np.ndarray, size: int) -> "CoarseScan | None":
        """Directions fitted to the first `size` rows, and those rows projected; None while too few have vectors."""
        sample = vectors[: size: max(1, size // FIT_SAMPLE)]
        sample = sample[np.any(sample != 0, axis=1)]  # rows without a vector (yet, or forgotten) are zero
        if len(sample) < MIN_FIT_ROWS:
            return None
        centred = sample - sample.mean(axis=0)
        _, directions = np.linalg.eigh((centred.T @ centred).astype(np.float64))  # ascending eigenvalues
        return cls(np.ascontiguousarray(directions[:, ::-1][:, :DIMS].astype(np.float32)), vectors, size)

    def follow(self, vectors: np.ndarray, size: int) -> None:
        """Project the rows added since the last call."""
        if size <= self.done:
            return
        if size > len(self.projected):
            grown = np.zeros((max(size, 2 * len(self.projected)), self.basis.shape[1]), dtype=np.float32)
            grown[: self.done] = self.projected[: self.done]
            self.projected = grown
        self.projected[self.done: size] = vectors[self.done: size] @ self.basis
        self.done = size

    def refresh(self, vectors: np.ndarray, rows: list[int]) -> None:
        """Project again rows whose vectors changed."""
        rows = [row for row in rows if row < self.done]
        if rows:
            self.projected[rows] = vectors[rows] @ self.basis

    def rows_to_rescore(self, query: np.ndarray, penalty: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
        """The rows worth an exact score: the first pass's best (dropped rows never among them unless fewer
        are kept), and its worst among the kept rows. `penalty` is -inf for a dropped row, else 0."""
        approximate = self.projected[:size] @ (query @ self.basis)
        approximate += penalty  # dropped rows sort first
        dropped = int(np.count_nonzero(penalty))
        worst_end = min(dropped + FLOOR_CANDIDATES, size)
        best_start = max(size - CANDIDATES, 0)
        order = np.argpartition(approximate, sorted({worst_end - 1, best_start}))  # one pass for both ends
        worst = order[:worst_end]  # the worst kept rows, among the dropped ones in any order
        return order[best_start:], worst[penalty[worst] == 0]
