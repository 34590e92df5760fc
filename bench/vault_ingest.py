"""Vault sync benchmarks: full ingest, unchanged re-ingest, edit → recallable, wikilink edges.

    python bench/vault_ingest.py ../shared/vaults [--embedder local] [--edits 30]

Uses <vaults>/obsidian-hub (6,571 notes) for ingest and edit latency, and <vaults>/obsidian-help-en
for wikilink resolution. The vaults are copied to a scratch folder first (they are read-only and
the edit test writes to them).
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
from vault_sync.sync import VaultIndexer  # noqa: E402


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def full_ingest(vault: Path, home: Path, embedder) -> dict:
    eng = Engram(home, embedder=embedder)
    started = time.perf_counter()
    report = VaultIndexer(eng, vault).sync_all(
        progress=lambda done, total: print(f"\r  ingest {done}/{total}", end="", file=sys.stderr, flush=True))
    seconds = time.perf_counter() - started
    print(file=sys.stderr)
    in_process_again = time.perf_counter()
    again = VaultIndexer(eng, vault).sync_all()
    again_s = time.perf_counter() - in_process_again
    eng.close()
    return {"report": report, "seconds": seconds, "again": again, "again_s": again_s, "rss": peak_rss_mb()}


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("vaults", type=Path, help="folder holding obsidian-hub and obsidian-help-en")
    parser.add_argument("--embedder", default="local")
    parser.add_argument("--edits", type=int, default=30)
    args = parser.parse_args()
    embedder = make_embedder(args.embedder)
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        hub = scratch / "obsidian-hub"
        shutil.copytree(args.vaults / "obsidian-hub", hub, symlinks=True)
        first = full_ingest(hub, scratch / "home-hub", embedder)
        cli_s = cli_reingest(hub, scratch / "home-hub", args.embedder)
        latency = edit_latency(hub, scratch / "home-hub", embedder, args.edits)
        links = wikilinks(args.vaults / "obsidian-help-en", scratch / "home-help", embedder)

    r, t = first["report"], first["report"].timings
    print("\n## Full ingest of obsidian-hub\n")
    print("| notes | indexed | skipped | chunks | dated facts | entities | links | seconds | notes/s | chunks/s | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {r.notes} | {r.indexed} | {len(r.skipped)} | {r.chunks} | {r.dated_facts} | {r.entities} | {r.links} | "
          f"{first['seconds']:.1f} | {r.indexed / first['seconds']:.1f} | {r.chunks / first['seconds']:.1f} | "
          f"{first['rss']:.0f} |")
    total = sum(t.values()) or 1.0
    print("\n| stage | seconds | share |\n|---|---|---|")
    for stage in ("read", "parse", "extract", "embed", "store", "links"):
        print(f"| {stage} | {t.get(stage, 0.0):.1f} | {t.get(stage, 0.0) / total:.0%} |")
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
