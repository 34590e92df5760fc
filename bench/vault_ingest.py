"""Vault sync benchmarks: full ingest, unchanged re-ingest, edit → recallable, wikilink edges.

    python bench/vault_ingest.py ../shared/vaults [--embedder local] [--edits 30]
        [--vault obsidian-hub] [--notes N] [--baseline] [--ingest-only]

Uses <vaults>/obsidian-hub (6,571 notes, or `--vault NAME`; the first N with --notes) for ingest and
edit latency, and
<vaults>/obsidian-help-en for wikilink resolution. The vaults are copied to a scratch folder first
(they are read-only and the edit test writes to them).

Each ingest runs in its own process (so its peak RSS is its own) and reports: time until every note
is stored and keyword-searchable, the vectors phase, the whole wall, peak RSS (of the ingest, and with the
second pass and `check` that follow it: `check` builds a second graph), and a stage profile.
`--baseline` also ingests the same notes through the per-note path (each note embedded and stored in
its own transaction, as before the two-phase bulk ingest) in the same run, side by side.
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memory import Engram  # noqa: E402
from memory.embed import make_embedder  # noqa: E402
from vault_sync.service import VaultSync  # noqa: E402
from vault_sync.sync import BULK_NOTES, VaultIndexer  # noqa: E402


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def full_ingest(vault: Path, home: Path, spec: str, per_note: bool = False) -> dict:
    """One ingest (in a process of its own: see `isolated`); `per_note` runs the per-note path."""
    eng = Engram(home, embedder=make_embedder(spec))
    started = time.perf_counter()
    ready: dict = {}

    def keyword_ready(report) -> None:
        ready["s"] = time.perf_counter() - started
        ready["pending"] = eng.store.pending_vector_count()
        title = sorted(vault.rglob("*.md"))[len(ready) * 7 % 50].stem  # recall works while vectors are pending
        t0 = time.perf_counter()
        ready["found"] = any(title in (r.provenance.ref or "") for r in eng.recall(title, k=10).results)
        ready["recall_ms"] = (time.perf_counter() - t0) * 1000
        print(f"\n  keyword-searchable after {ready['s']:.1f} s; {ready['pending']} vectors pending; "
              f"peak RSS so far {peak_rss_mb():.0f} MB; load {os.getloadavg()[0]:.2f}", file=sys.stderr, flush=True)

    indexer = VaultIndexer(eng, vault, bulk_notes=10**9 if per_note else BULK_NOTES)
    report = indexer.sync_all(
        progress=lambda done, total: print(f"\r  ingest {done}/{total}", end="", file=sys.stderr, flush=True),
        vectors=lambda done, total: print(f"\r  vectors {done}/{total}", end="", file=sys.stderr, flush=True),
        keyword_ready=keyword_ready)
    seconds = time.perf_counter() - started
    ingest_rss = peak_rss_mb()  # before the second pass and `check` (which builds a second graph) below
    print(file=sys.stderr)
    in_process_again = time.perf_counter()
    again = VaultIndexer(eng, vault).sync_all()
    again_s = time.perf_counter() - in_process_again
    clean = eng.check().clean
    eng.close()
    return {"report": report, "seconds": seconds, "keyword_s": ready["s"], "pending_at_ready": ready["pending"],
            "found_at_ready": ready["found"], "recall_ms_at_ready": ready["recall_ms"], "again": again,
            "again_s": again_s, "rss": ingest_rss, "rss_with_check": peak_rss_mb(), "check_clean": clean}


def isolated(*args) -> dict:
    """`full_ingest(*args)` in a fresh process: its peak RSS is not the bench's."""
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(full_ingest, args)


def cli_reingest(vault: Path, home: Path, spec: str) -> float:
    env = dict(os.environ, ENGRAM_HOME=str(home), ENGRAM_EMBEDDER=spec, HF_HUB_OFFLINE="1")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "memory", "ingest", str(vault), "--json"], cwd=ROOT, env=env,
                   check=True, capture_output=True)
    return time.perf_counter() - started


def edit_latency(vault: Path, home: Path, embedder, edits: int) -> dict:
    """Append a unique word to a random note; time until recall finds it (watcher) vs a direct sync."""
    eng = Engram(home, embedder=embedder)
    notes = sorted(p for p in vault.rglob("*.md") if ".obsidian" not in p.parts)
    rng = random.Random(11)
    sync = VaultSync(eng, vault, debounce_s=0.2)
    sync.start()
    watched, direct = [], []
    for n in range(edits):
        rel, word = _append_word(vault, rng.choice(notes), f"zqedit{n}w{rng.randrange(10**6)}")
        started = time.perf_counter()
        while not _found(eng, word, rel):
            if time.perf_counter() - started > 30:
                raise RuntimeError(f"edit of {rel} not recallable after 30 s")
            time.sleep(0.01)
        watched.append(time.perf_counter() - started)
        time.sleep(0.3)
    sync.stop()
    indexer = VaultIndexer(eng, vault)
    for n in range(edits):
        rel, word = _append_word(vault, rng.choice(notes), f"zqdirect{n}w{rng.randrange(10**6)}")
        started = time.perf_counter()
        indexer.sync_paths({rel})
        assert _found(eng, word, rel)
        direct.append(time.perf_counter() - started)
    eng.close()
    return {"watched": watched, "direct": direct}


def _append_word(vault: Path, note: Path, word: str) -> tuple[str, str]:
    """Append a sentence carrying a unique word to a note: (vault-relative path, word)."""
    with note.open("a", encoding="utf-8") as handle:
        handle.write(f"\n\nBenchmark edit: {word} marks this note.\n")
    return note.relative_to(vault).as_posix(), word


def _found(eng: Engram, word: str, rel: str) -> bool:
    return any(r.provenance.ref == rel and word in r.unit.content for r in eng.recall(word, k=5).results)


def wikilinks(vault: Path, home: Path, embedder) -> dict:
    eng = Engram(home, embedder=embedder)
    VaultIndexer(eng, vault).sync_all()
    rows = eng.store.query("SELECT source_id, resolved_id, kind FROM note_links")
    graph = eng.graph()
    edges = {(u, v) for u, v, k in graph.g.edges(keys=True) if k == "links_to"}
    resolved = [(s, r, k) for s, r, k in rows if r is not None]
    missing = [(s, r) for s, r, _ in resolved if (f"s:{s}", f"s:{r}") not in edges]
    to_notes = [(s, r) for s, r, k in resolved if k == "link"]
    eng.close()
    return {"links": sum(1 for *_, k in rows if k == "link"), "embeds": sum(1 for *_, k in rows if k == "embed"),
            "resolved": len(resolved), "unresolved": len(rows) - len(resolved),
            "resolved_links": len(to_notes), "missing_edges": len(missing)}


def pct(values: list[float], p: float) -> float:
    return float(np.percentile(values, p))


def copy_notes(source: Path, target: Path, notes: int | None) -> None:
    """The vault, or only its first `notes` notes (in path order) when given."""
    if notes is None:
        shutil.copytree(source, target, symlinks=True)
        return
    files = sorted(p for p in source.rglob("*.md") if ".obsidian" not in p.relative_to(source).parts)[:notes]
    for path in files:
        copy = target / path.relative_to(source)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, copy)


def print_ingests(runs: list[tuple[str, dict]], vault: str) -> None:
    base = runs[-1][1]
    print(f"\n## Full ingest of {vault}\n")
    print("| path | notes | indexed | skipped | chunks | dated facts | entities | links | keyword-searchable s | "
          "vectors s | wall s | chunks/s | peak RSS MB | with check MB | wall vs last row | check |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, run in runs:
        r = run["report"]
        vectors_s = r.timings.get("vectors embed", 0.0) + r.timings.get("vectors store", 0.0)
        print(f"| {name} | {r.notes} | {r.indexed} | {len(r.skipped)} | {r.chunks} | {r.dated_facts} | {r.entities} | "
              f"{r.links} | {run['keyword_s']:.1f} | {vectors_s:.1f} | {run['seconds']:.1f} | "
              f"{r.chunks / run['seconds']:.1f} | {run['rss']:.0f} | {run['rss_with_check']:.0f} | "
              f"{run['seconds'] / base['seconds']:.2f}× | "
              f"{'clean' if run['check_clean'] else 'DIFFERENCES'} |")
    for name, run in runs:
        print(f"\n{name}: at keyword-ready {run['pending_at_ready']} vectors were pending; a recall of a note title "
              f"then took {run['recall_ms_at_ready']:.0f} ms and {'found' if run['found_at_ready'] else 'missed'} it")
    stages = ("templates", "read", "parse", "extract", "embed", "store", "links", "vectors embed", "vectors store")
    print("\n| stage | " + " | ".join(f"{name} s | share" for name, _ in runs) + " |")
    print("|---|" + "---|---|" * len(runs))
    for stage in stages:
        cells = []
        for _, run in runs:
            t = run["report"].timings
            total = sum(seconds for stage, seconds in t.items() if stage != "dated facts") or 1.0
            cells.append(f"{t.get(stage, 0.0):.1f} | {t.get(stage, 0.0) / total:.0%}")
        print(f"| {stage} | " + " | ".join(cells) + " |")
    for name, run in runs:
        r = run["report"]
        dates = r.timings.get("dated facts", 0.0)
        print(f"\n{name}: {r.dated_facts} dated facts; reading them and their entities took {dates:.1f} s of "
              f"\"extract\" ({dates / run['seconds']:.2%} of the wall), and they add {r.dated_facts} memories "
              f"beside {r.chunks - r.dated_facts} chunks ({r.dated_facts / max(r.chunks - r.dated_facts, 1):.1%} more "
              "to embed and store)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("vaults", type=Path, help="folder holding obsidian-hub and obsidian-help-en")
    parser.add_argument("--embedder", default="local")
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--vault", default="obsidian-hub", help="which vault under VAULTS the ingest table measures")
    parser.add_argument("--notes", type=int, default=None, help="ingest only the first N notes of that vault")
    parser.add_argument("--baseline", action="store_true", help="also ingest through the per-note path")
    parser.add_argument("--ingest-only", action="store_true", help="skip re-ingest, edit latency and wikilinks")
    parser.add_argument("--keep", type=Path, default=None,
                        help="copy the ingested store's home here (e.g. for bench/cold_start.py --home)")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    embedder = make_embedder(args.embedder)
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        hub = scratch / args.vault
        copy_notes(args.vaults / args.vault, hub, args.notes)
        runs = [("two-phase bulk", isolated(hub, scratch / "home-hub", args.embedder))]
        if args.baseline:
            runs.append(("baseline: per-note", isolated(hub, scratch / "home-per-note", args.embedder, True)))
        loads = os.getloadavg()
        if args.keep:
            shutil.copytree(scratch / "home-hub", args.keep)
        print_ingests(runs, args.vault)
        print(f"\nload average (1, 5, 15 min) after the ingests: {loads[0]:.2f}, {loads[1]:.2f}, {loads[2]:.2f}")
        if args.ingest_only:
            return
        first = runs[0][1]
        cli_s = cli_reingest(hub, scratch / "home-hub", args.embedder)
        latency = edit_latency(hub, scratch / "home-hub", embedder, args.edits)
        links = wikilinks(args.vaults / "obsidian-help-en", scratch / "home-help", embedder)

    print("\n## Second ingest of the unchanged vault\n")
    print("| run | seconds | notes re-indexed | vs first ingest |\n|---|---|---|---|")
    print(f"| in process (`sync_all` again) | {first['again_s']:.2f} | {first['again'].indexed} | "
          f"{first['again_s'] / first['seconds']:.4f}× |")
    print(f"| `python -m memory ingest` (new process, incl. start-up) | {cli_s:.2f} | 0 | "
          f"{cli_s / first['seconds']:.4f}× |")
    w, d = latency["watched"], latency["direct"]
    print(f"\n## Edit one note → recallable ({len(w)} edits)\n")
    print("| path | p50 s | p95 s | max s |\n|---|---|---|---|")
    print(f"| watched vault (watchdog → debounce 0.2 s → sync → recall) | {pct(w, 50):.3f} | {pct(w, 95):.3f} | {max(w):.3f} |")
    print(f"| baseline: direct `sync_paths` + recall, no watcher | {pct(d, 50):.3f} | {pct(d, 95):.3f} | {max(d):.3f} |")
    print("\n## Wikilinks in obsidian-help-en\n")
    print("| wikilinks | embeds | resolved (links+embeds) | unresolved | resolved links missing as graph edges |")
    print("|---|---|---|---|---|")
    print(f"| {links['links']} | {links['embeds']} | {links['resolved']} | {links['unresolved']} | {links['missing_edges']} |")


if __name__ == "__main__":
    main()
