"""Recall latency (hybrid + as_of time filter) at 1k, 10k and 100k memories.

    python bench/recall_latency.py ../shared/data/locomo10.json [--sizes 1000,10000,100000]
    python bench/recall_latency.py ../shared/data/locomo10.json --sizes 100000 --keep /tmp/rl --profile

`--keep DIR` builds each size's store once under DIR and reopens it on later runs; `--profile` prints,
after the table, the functions recall spent its time in (cProfile over the timed queries of the
largest size; the profiled loop is run separately from the timed one); `--stages` prints the mean
milliseconds per recall of each stage (query embedding, keyword and vector search, the store reads, recall's
own steps), timed by wrapping each one in a clock, without cProfile's overhead, in a loop of its own.

Memory texts are LoCoMo dialogue turns and pairs of turns (each pair's vector is the normalised
sum of its turns' MiniLM vectors, so only the 5,882 distinct turns are run through the model).
Memories get validity intervals over two years; a fifth are superseded. Each query runs the full
recall (query embedding, rules, BM25, vectors, time filter, rerank, graph hop, store fetch).
The reference is a plain numpy brute-force cosine top-10 over the same vectors, timed in the same run.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory import Engram, MemoryUnit  # noqa: E402
from memory.embed import make_embedder, normalise_rows  # noqa: E402

START = datetime(2024, 1, 1, tzinfo=timezone.utc)
SPAN_DAYS = 730


def corpus(locomo: Path) -> tuple[list[str], list[str]]:
    data = json.loads(locomo.read_text(encoding="utf-8"))
    turns, questions = [], []
    for sample in data:
        conv = sample["conversation"]
        session = 1
        while f"session_{session}" in conv:
            turns += [f"{t['speaker']}: {t['text']}" for t in conv[f"session_{session}"]]
            session += 1
        questions += [qa["question"] for qa in sample["qa"]]
    return turns, questions


def build_store(home: str, size: int, turns: list[str], turn_vectors: np.ndarray, embedder, rng) -> Engram:
    eng = Engram(home, embedder=embedder)
    units, tokens, vectors = [], [], []
    ids = eng.store.next_ids("memories", size)
    for n, memory_id in enumerate(ids):
        if n < len(turns):
            text, vector = turns[n], turn_vectors[n]
        else:
            i, j = rng.randrange(len(turns)), rng.randrange(len(turns))
            text = f"{turns[i]} {turns[j]}"
            vector = normalise_rows((turn_vectors[i] + turn_vectors[j])[None, :])[0]
        valid_from = START + timedelta(days=rng.uniform(0, SPAN_DAYS))
        superseded = valid_from + timedelta(days=rng.uniform(1, 200)) if rng.random() < 0.2 else None
        unit = MemoryUnit(content=text, type="fact_reference" if n % 3 else "user_profile",
                          valid_from=valid_from, recorded_at=valid_from, superseded_at=superseded,
                          valid_until=superseded, session_id=f"s{n % 50}", id=memory_id)
        units.append(unit)
        tokens.append(" ".join(eng.tokenize(text)))
        vectors.append(vector)
    for start in range(0, size, 5000):
        part = slice(start, start + 5000)
        eng.store.insert_memories(units[part], tokens[part], np.asarray(vectors[part], dtype=np.float32))
    eng.close()
    return Engram(home, embedder=embedder)  # reopen: the index is rebuilt from the store, as at start


def percentile(values: list[float], p: float) -> float:
    return float(np.percentile(values, p))


def measure(eng: Engram, questions: list[str], rng, runs: int) -> dict:
    eng.graph()
    sample = [questions[rng.randrange(len(questions))] for _ in range(runs)]
    as_ofs = [START + timedelta(days=rng.uniform(30, SPAN_DAYS)) for _ in range(runs)]
    for q in sample[:20]:  # warm up caches and the model
        eng.recall(q, as_of=as_ofs[0], k=10)
    engram_ms, brute_ms = [], []
    matrix = eng.index.vectors[: eng.index.size].copy()
    for q, as_of in zip(sample, as_ofs):
        t0 = time.perf_counter()
        eng.recall(q, as_of=as_of, k=10)
        engram_ms.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        vector = eng.embedder.embed([q])[0]
        scores = matrix @ vector
        top = np.argpartition(-scores, 10)[:10]
        top[np.argsort(-scores[top])]
        brute_ms.append((time.perf_counter() - t0) * 1000)
    return {"engram": engram_ms, "brute": brute_ms}


def open_store(keep: Path | None, home: str, size: int, turns, turn_vectors, embedder, rng) -> Engram:
    """The store of `size` memories: kept under `keep` when given (built on the first run), else in `home`."""
    if keep is None:
        return build_store(home, size, turns, turn_vectors, embedder, rng)
    kept = keep / str(size)
    if (kept / "done").exists():
        return Engram(str(kept), embedder=embedder)
    kept.mkdir(parents=True, exist_ok=True)
    eng = build_store(str(kept), size, turns, turn_vectors, embedder, rng)
    (kept / "done").write_text("built\n")
    return eng


def profile(eng: Engram, questions: list[str], rng, runs: int) -> str:
    """cProfile of `runs` recalls, the top functions by cumulative and by own time."""
    sample = [questions[rng.randrange(len(questions))] for _ in range(runs)]
    as_ofs = [START + timedelta(days=rng.uniform(30, SPAN_DAYS)) for _ in range(runs)]
    profiler = cProfile.Profile()
    profiler.enable()
    for q, as_of in zip(sample, as_ofs):
        eng.recall(q, as_of=as_of, k=10)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(45)
    stats.sort_stats("tottime").print_stats(30)
    return out.getvalue()


STAGES = {  # where recall's time goes: the objects' methods and memory.recall's steps, by name
    "embedder": ("embed",), "index": ("bm25_rows", "cosine_rows", "mask"),
    "store": ("memories_by_id", "entities_named_in"),
    "recall": ("_rule_slots", "_rule_ids", "_rule_names", "_fuse", "_rerank", "_latest_word", "_graph_hop",
               "_collapse_turns", "_candidates", "_recollection", "_insert_history", "_is_confident"),
}


def stages(eng: Engram, questions: list[str], rng, runs: int) -> str:
    """Mean ms per recall of each stage, and of the whole recall, over `runs` recalls."""
    import memory.recall as recall_module

    spent: dict[str, float] = {}

    def clocked(owner, name: str) -> None:
        inner = getattr(owner, name)

        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - started
        setattr(owner, name, timed)

    owners = {"embedder": eng.embedder, "index": eng.index, "store": eng.store, "recall": recall_module}
    saved = [(owners[kind], name, getattr(owners[kind], name)) for kind, names in STAGES.items() for name in names]
    for owner, name, _ in saved:
        clocked(owner, name)
    sample = [questions[rng.randrange(len(questions))] for _ in range(runs)]
    as_ofs = [START + timedelta(days=rng.uniform(30, SPAN_DAYS)) for _ in range(runs)]
    try:
        started = time.perf_counter()
        for q, as_of in zip(sample, as_ofs):
            eng.recall(q, as_of=as_of, k=10)
        whole = time.perf_counter() - started
    finally:
        for owner, name, original in saved:
            if owner is recall_module:
                setattr(owner, name, original)
            else:
                delattr(owner, name)  # the instance's clock goes; the class's method shows again
    lines = [f"| whole recall | {whole / runs * 1000:.2f} |"]
    lines += [f"| {name} | {seconds / runs * 1000:.2f} |" for name, seconds in sorted(spent.items(), key=lambda kv: -kv[1])]
    return "| stage | mean ms per recall |\n|---|---|\n" + "\n".join(lines)


def coarse_check(eng: Engram, questions: list[str], rng, runs: int) -> str:
    """How often the first pass over fewer dimensions (memory/coarse_scan.py) changes what recall returns:
    the same recalls with it and with every row scored in full."""
    sample = [questions[rng.randrange(len(questions))] for _ in range(runs)]
    as_ofs = [START + timedelta(days=rng.uniform(30, SPAN_DAYS)) for _ in range(runs)]
    threshold = eng.index.coarse_from_rows
    results, vector_hits = {}, {}
    try:
        for label, rows in (("coarse", threshold), ("full", 10 ** 12)):
            eng.index.coarse_from_rows = rows
            keep = eng.index.alive[: eng.index.size]
            vectors = eng.embedder.embed(sample)
            vector_hits[label] = [eng.index.cosine_rows(v, keep, 200) for v in vectors]
            results[label] = [[(r.unit.id, r.score, tuple(r.why)) for r in eng.recall(q, as_of=a, k=10).results]
                              for q, a in zip(sample, as_ofs)]
    finally:
        eng.index.coarse_from_rows = threshold
    same_results = sum(a == b for a, b in zip(results["coarse"], results["full"]))
    same_rows = sum(np.array_equal(a[0], b[0]) for a, b in zip(vector_hits["coarse"], vector_hits["full"]))
    same_floor = sum(a[2] == b[2] for a, b in zip(vector_hits["coarse"], vector_hits["full"]))
    return (f"| recalls with the same results, ids and scores (k=10) | {same_results}/{runs} |\n"
            f"| vector searches with the same top 200 rows, in order | {same_rows}/{runs} |\n"
            f"| vector searches with the same least similarity | {same_floor}/{runs} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("locomo", type=Path)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--embedder", default="local")
    parser.add_argument("--keep", type=Path, help="build the stores once under this folder and reuse them")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of recall at the largest size")
    parser.add_argument("--stages", action="store_true", help="print the mean time of each stage at the largest size")
    parser.add_argument("--coarse-check", action="store_true",
                        help="at the largest size, compare recall with and without the first pass over fewer dimensions")
    args = parser.parse_args()
    rng = random.Random(7)
    embedder = make_embedder(args.embedder)
    turns, questions = corpus(args.locomo)
    t0 = time.perf_counter()
    cached = args.keep / "turn_vectors.npy" if args.keep else None
    if cached is not None and cached.exists():
        turn_vectors = np.load(cached)
    else:
        turn_vectors = embedder.embed(turns)
        if cached is not None:
            args.keep.mkdir(parents=True, exist_ok=True)
            np.save(cached, turn_vectors)
    print(f"embedded {len(turns)} turns in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    rows, profiled, staged, checked = [], "", "", ""
    sizes = [int(s) for s in args.sizes.split(",")]
    for size in sizes:
        with tempfile.TemporaryDirectory() as home:
            t0 = time.perf_counter()
            eng = open_store(args.keep, home, size, turns, turn_vectors, embedder, rng)
            load_s = time.perf_counter() - t0
            timing = measure(eng, questions, rng, args.runs)
            if args.profile and size == max(sizes):
                profiled = profile(eng, questions, rng, args.runs)
            if args.stages and size == max(sizes):
                staged = stages(eng, questions, rng, args.runs)
            if args.coarse_check and size == max(sizes):
                checked = coarse_check(eng, questions, rng, args.runs)
            eng.close()
        e50, e95 = percentile(timing["engram"], 50), percentile(timing["engram"], 95)
        b50, b95 = percentile(timing["brute"], 50), percentile(timing["brute"], 95)
        rows.append((size, e50, e95, b50, b95, load_s))
        print(f"  {size}: p95 {e95:.1f} ms", file=sys.stderr, flush=True)
    print("\nRecall latency, hybrid + as_of filter, k=10 "
          f"({args.runs} queries per size; reference = numpy brute-force cosine top-10 incl. query embedding)\n")
    print("| memories | Engram p50 ms | Engram p95 ms | numpy p50 ms | numpy p95 ms | p95 ratio | build+open s |")
    print("|---|---|---|---|---|---|---|")
    for size, e50, e95, b50, b95, load_s in rows:
        print(f"| {size:,} | {e50:.1f} | {e95:.1f} | {b50:.1f} | {b95:.1f} | {e95 / b95:.2f}× | {load_s:.1f} |")
    if staged:
        print(f"\nStages at {max(sizes):,} memories (nested ones are inside the step that calls them)\n\n{staged}")
    if checked:
        print(f"\nThe first pass over fewer dimensions at {max(sizes):,} memories, against every row scored in full\n\n"
              f"| measure | count |\n|---|---|\n{checked}")
    if profiled:
        print("\n" + profiled)


if __name__ == "__main__":
    main()
