"""Dated facts in a vault: counts by kind, cost per note against parsing, a sample for hand labelling.

    python bench/dated_facts.py ../shared/vaults/obsidian-hub [--sample 100] [--seed 10]
        [--out bench/labels/obsidian-hub.jsonl] [--libraries 300]

The baseline is `parse_note` on the same notes in the same run (ingest parses every note anyway).
`--libraries N` also times dateparser's `search_dates` and jionlp's `extract_time` on N random
notes (bench-only packages, requirements-bench.txt) against the rules on the same notes.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memory.clock import iso  # noqa: E402
from memory.when import find_dates  # noqa: E402
from vault_sync.dated_facts import dated_statements  # noqa: E402
from vault_sync.note_time import VaultClock  # noqa: E402
from vault_sync.parse import parse_note  # noqa: E402
from vault_sync.scan import is_hidden_or_temp  # noqa: E402

from datetime import datetime, timezone  # noqa: E402


def notes_of(vault: Path) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(vault):
        dirs[:] = sorted(d for d in dirs if not is_hidden_or_temp(d))
        found += [Path(folder) / f for f in sorted(files) if f.lower().endswith(".md") and not is_hidden_or_temp(f)]
    return found


def run(vault: Path, sample: int, seed: int, out: Path | None, libraries: int) -> None:
    paths = notes_of(vault)
    texts = {p: p.read_text(encoding="utf-8", errors="replace") for p in paths}
    mtimes = {p: datetime.fromtimestamp(p.stat().st_mtime, tz=timezone.utc) for p in paths}

    t0 = time.perf_counter()
    parsed = {p: parse_note(p.relative_to(vault).as_posix(), texts[p]) for p in paths}
    parse_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    clock = VaultClock.read(vault, mtimes.values())
    clock_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    rows, by_kind, evidence = [], Counter(), Counter()
    for p in paths:
        rel = p.relative_to(vault).as_posix()
        note = parsed[p]
        nt = clock.note_time(rel, mtime=mtimes[p], frontmatter=note.frontmatter)
        evidence[nt.created_by] += 1
        note_date = nt.daily or (nt.created if nt.reliable else None)
        for s in dated_statements(note.extraction_text, note_date=note_date, daily=nt.daily is not None):
            by_kind[s.kind] += 1
            rows.append({"vault": vault.name, "path": rel, "line": s.line,
                         "line_text": texts[p].replace("\r\n", "\n").split("\n")[s.line - 1][:400],
                         "kind": s.kind, "words": s.words, "valid_from": iso(s.valid_from),
                         "valid_until": iso(s.valid_until), "text": s.text[:300],
                         "note_date": iso(note_date), "note_date_by": nt.created_by})
    dated_s = time.perf_counter() - t0

    n = len(paths)
    print(f"vault {vault}  notes {n}  git: {clock.git.error or 'history read'}  "
          f"bulk-copy mtimes: {'yes' if clock.bulk_window else 'no'}")
    print(f"note dated by: {dict(evidence.most_common())}")
    print(f"dated statements {len(rows)}  by kind: {dict(by_kind.most_common())}")
    print(f"{'step':<28}{'total s':>9}{'ms/note':>9}{'× parse':>9}")
    for name, seconds in (("parse_note (baseline)", parse_s), ("vault clock (once)", clock_s),
                          ("note time + dated facts", dated_s)):
        print(f"{name:<28}{seconds:>9.3f}{1000 * seconds / n:>9.3f}{seconds / parse_s:>9.2f}")
    if out is not None:
        picked = random.Random(seed).sample(rows, min(sample, len(rows)))
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", encoding="utf-8") as f:
            for row in picked:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"wrote {len(picked)} sampled statements to {out}")
    if libraries:
        compare_libraries(vault, paths, parsed, libraries, seed)


def compare_libraries(vault: Path, paths: list[Path], parsed: dict, count: int, seed: int) -> None:
    """Cost per note of dateparser.search_dates and jionlp.extract_time against the rules, same notes."""
    picked = random.Random(seed).sample(paths, min(count, len(paths)))
    texts = [parsed[p].extraction_text for p in picked]
    base = datetime(2024, 6, 20, tzinfo=timezone.utc)
    results = {}

    t0 = time.perf_counter()
    found = sum(len(find_dates(line, base)) for text in texts for line in text.split("\n"))
    results["rules: find_dates per line"] = (time.perf_counter() - t0, found, 0.0)

    t0 = time.perf_counter()
    import dateparser.search  # noqa: PLC0415 - bench-only, timed with its import
    imported = time.perf_counter() - t0
    settings = {"RELATIVE_BASE": base.replace(tzinfo=None), "RETURN_AS_TIMEZONE_AWARE": False}
    t0 = time.perf_counter()
    found = 0
    for text in texts:
        for line in text.split("\n"):
            if line.strip():
                found += len(dateparser.search.search_dates(line, languages=["en", "zh"], settings=settings) or [])
    results["dateparser.search_dates"] = (time.perf_counter() - t0, found, imported)

    t0 = time.perf_counter()
    import jionlp  # noqa: PLC0415
    imported = time.perf_counter() - t0
    t0 = time.perf_counter()
    found = 0
    for text in texts:
        for line in text.split("\n"):
            if line.strip():
                found += len(jionlp.ner.extract_time(line, time_base=base.timestamp()) or [])
    results["jionlp.ner.extract_time"] = (time.perf_counter() - t0, found, imported)

    rules_s = results["rules: find_dates per line"][0]
    print(f"\nlibraries on {len(picked)} random notes of {vault.name} (lines of extraction text)")
    print(f"{'parser':<30}{'import s':>9}{'total s':>9}{'ms/note':>9}{'× rules':>9}{'found':>7}")
    for name, (seconds, found, imported) in results.items():
        print(f"{name:<30}{imported:>9.2f}{seconds:>9.3f}{1000 * seconds / len(picked):>9.2f}"
              f"{seconds / rules_s:>9.1f}{found:>7}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("vault", type=Path)
    parser.add_argument("--sample", type=int, default=100)
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--libraries", type=int, default=0, metavar="N")
    args = parser.parse_args()
    run(args.vault.resolve(), args.sample, args.seed, args.out, args.libraries)


if __name__ == "__main__":
    main()
