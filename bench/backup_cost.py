"""What the daily backup adds to opening a big store, and what the "is one due?" check costs.

    python bench/backup_cost.py ../shared/data/locomo10.json [--sizes 10000,100000] [--runs 5]

Stores are built as in bench/recall_latency.py (LoCoMo turns and pairs of turns). For each size the store is
opened `runs` times with a backup taken today (the check finds one: the baseline) and `runs` times with the
backups folder emptied first (the open takes the day's backup: CHECKPOINT + copy under the store's lock).
"""
from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory import Engram  # noqa: E402
from memory.backups import backup_due, folder_of  # noqa: E402
from memory.embed import make_embedder  # noqa: E402
from recall_latency import build_store, corpus  # noqa: E402


def timed_open(home: str, embedder) -> tuple[float, bool]:
    t0 = time.perf_counter()
    eng = Engram(home, embedder=embedder)
    seconds = time.perf_counter() - t0
    took = eng.daily_backup is not None
    eng.close()
    return seconds, took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("locomo", type=Path)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--embedder", default="local")
    args = parser.parse_args()
    rng = random.Random(7)
    embedder = make_embedder(args.embedder)
    turns, _ = corpus(args.locomo)
    turn_vectors = embedder.embed(turns)
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        with tempfile.TemporaryDirectory() as home:
            build_store(home, size, turns, turn_vectors, embedder, rng).close()
            database = Path(home) / "engram.duckdb"
            megabytes = database.stat().st_size / 1_048_576
            plain, with_backup = [], []
            for _ in range(args.runs):
                seconds, took = timed_open(home, embedder)
                assert not took
                plain.append(seconds)
                shutil.rmtree(folder_of(database))
                seconds, took = timed_open(home, embedder)
                assert took
                with_backup.append(seconds)
            t0 = time.perf_counter()
            for _ in range(1000):
                backup_due(database)
            check_us = (time.perf_counter() - t0) * 1000
        base, slow = statistics.median(plain), statistics.median(with_backup)
        rows.append((size, megabytes, base, slow, check_us))
        print(f"  {size}: {base:.2f} s / {slow:.2f} s", file=sys.stderr, flush=True)
    print(f"\nOpening a store, median of {args.runs} opens (embedder {embedder.name})\n")
    print("| memories | file MB | open, backup not due s | open + daily backup s | ratio | due check µs |")
    print("|---|---|---|---|---|---|")
    for size, megabytes, base, slow, check_us in rows:
        print(f"| {size:,} | {megabytes:.0f} | {base:.2f} | {slow:.2f} | {slow / base:.2f}× | {check_us:.0f} |")


if __name__ == "__main__":
    main()
