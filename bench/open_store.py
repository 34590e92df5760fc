"""Opening a large store: the index rebuilt row by row (as before), built in bulk, and read from its snapshot.

    python bench/open_store.py ../shared/data/locomo10.json [--size 100000] [--repeat 3]

Builds one store of `--size` memories from LoCoMo turns and pairs of turns (tokens as Engram makes
them; vectors are random unit rows, since opening never embeds), closes it, then times in one run:
- rows one by one: the old start-up, `HybridIndex.add` for every row of `Store.iter_index_rows`
  (the baseline the ratios are against);
- bulk build: `HybridIndex.from_store` (Arrow columns, numpy postings), what a stale snapshot costs;
- snapshot: checking the store's fingerprint and reading `engram.duckdb.index`;
- `Engram(home)`: the whole open (store, migrations check, embedder check, index, backup check),
  with a current snapshot and with the snapshot deleted.
Reported figures are the best of `--repeat` runs, in seconds.
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory import Engram  # noqa: E402
from memory.clock import ensure_utc  # noqa: E402
from memory.embed import make_embedder  # noqa: E402
from memory.clock import to_epoch  # noqa: E402
from memory.index import HybridIndex  # noqa: E402
from memory.index_snapshot import load, snapshot_key, snapshot_path  # noqa: E402
from memory.store import Store  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_latency import build_store, corpus  # noqa: E402


def rows_one_by_one(store: Store, dim: int) -> HybridIndex:
    """The start-up before the bulk build: every stored row through `HybridIndex.add`."""
    index = HybridIndex(dim, capacity=max(1024, store.count("memories") + 1024))
    zero = np.zeros(dim, dtype=np.float32)
    for rows in store.iter_index_rows():
        for (memory_id, type_, valid_from, valid_until, recorded, superseded, archived,
             session_id, source_id, tokens, blob, event_id, relevance) in rows:
            vector = np.frombuffer(blob, dtype=np.float32) if blob else zero
            index.add(memory_id=memory_id, type_=type_, tokens=(tokens or "").split(),
                      vector=vector if vector.shape[0] == dim else zero,
                      valid_from=to_epoch(valid_from and ensure_utc(valid_from), none_is=-np.inf),
                      valid_until=to_epoch(valid_until and ensure_utc(valid_until)),
                      recorded=to_epoch(recorded and ensure_utc(recorded), none_is=-np.inf),
                      superseded=to_epoch(superseded and ensure_utc(superseded)), archived=bool(archived),
                      session_id=session_id, source_id=source_id, event_id=event_id, relevance=relevance)
    return index


def best(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("locomo", type=Path)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    turns, _ = corpus(args.locomo)
    rng = random.Random(7)
    vectors = np.random.default_rng(7).standard_normal((len(turns), 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with tempfile.TemporaryDirectory() as home:
        t0 = time.perf_counter()
        build_store(home, args.size, turns, vectors, make_embedder("local"), rng).close()  # the reopen saves the snapshot
        print(f"built {args.size:,} memories in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        database = Path(home) / "engram.duckdb"
        snapshot = snapshot_path(database)
        print(f"snapshot {snapshot.stat().st_size / 1e6:.0f} MB, database {database.stat().st_size / 1e6:.0f} MB",
              file=sys.stderr)
        store = Store(database, read_only=True)
        try:
            slow, reference = best(lambda: rows_one_by_one(store, 384), 1)
            bulk, built = best(lambda: HybridIndex.from_store(store, 384), args.repeat)
            key_s, key = best(lambda: snapshot_key(store, 384), args.repeat)
            read_s, loaded = best(lambda: load(snapshot, key, 384), args.repeat)
        finally:
            store.close()
        assert loaded is not None, "the snapshot did not load"
        for index in (built, loaded):  # all three hold the same rows, vectors and postings
            assert index.size == reference.size and np.array_equal(index.ids[: index.size], reference.ids[: reference.size])
            assert np.array_equal(index.vectors[: index.size], reference.vectors[: reference.size])
            assert index.total_len == reference.total_len
        warm, _ = best(lambda: Engram(home).close(), args.repeat)

        def cold() -> None:
            snapshot.unlink(missing_ok=True)
            Engram(home).close()  # rebuilds, then saves the snapshot again at close

        cold_s, _ = best(cold, 1)
    rows = [("rows one by one (before)", slow), ("bulk build from the store", bulk),
            ("snapshot: store fingerprint", key_s), ("snapshot: read the file", read_s),
            ("snapshot: fingerprint + read", key_s + read_s),
            ("Engram(home), current snapshot", warm), ("Engram(home), no snapshot (rebuild + save)", cold_s)]
    print(f"\nOpening a store of {args.size:,} memories (best of {args.repeat}; ratio = baseline / this)\n")
    print("| step | seconds | speed-up vs rows one by one |")
    print("|---|---|---|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.2f} | {slow / seconds:.1f}× |")


if __name__ == "__main__":
    main()
