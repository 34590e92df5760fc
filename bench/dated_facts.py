"""Dated facts in a vault: counts by kind, cost per note against parsing, a sample for hand labelling.

    python bench/dated_facts.py ../shared/vaults/obsidian-hub [--sample 100] [--seed 10]
        [--out bench/labels/obsidian-hub.jsonl] [--libraries 300] [--all-dated]

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
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memory.clock import iso  # noqa: E402
from memory.when import find_dates, may_hold_dates  # noqa: E402
from vault_sync.dated_facts import dated_statements  # noqa: E402
from vault_sync.note_time import VaultClock  # noqa: E402
from vault_sync.parse import parse_note  # noqa: E402
from vault_sync.scan import is_ignored  # noqa: E402



def notes_of(vault: Path) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(vault):
        dirs[:] = sorted(d for d in dirs if not is_ignored(d))
        found += [Path(folder) / f for f in sorted(files) if f.lower().endswith(".md") and not is_ignored(f)]
    return found


def run(vault: Path, sample: int, seed: int, out: Path | None, libraries: int, all_dated: bool = False) -> None:
    paths = notes_of(vault)
    texts = {p: p.read_text(encoding="utf-8", errors="replace") for p in paths}
    mtimes = {p: datetime.fromtimestamp(p.stat().st_mtime, tz=timezone.utc) for p in paths}

    t0, c0 = time.perf_counter(), time.process_time()
    parsed = {p: parse_note(p.relative_to(vault).as_posix(), texts[p]) for p in paths}
    parse_s, parse_cpu = time.perf_counter() - t0, time.process_time() - c0

    t0, c0 = time.perf_counter(), time.process_time()
    clock = VaultClock.read(vault, mtimes.values())
    clock_s, clock_cpu = time.perf_counter() - t0, time.process_time() - c0

    t0, c0 = time.perf_counter(), time.process_time()
    rows, by_kind, evidence = [], Counter(), Counter()
    for p in paths:
        rel = p.relative_to(vault).as_posix()
        note = parsed[p]
        nt = clock.note_time(rel, mtime=mtimes[p], frontmatter=note.frontmatter)
        evidence[nt.created_by] += 1
        note_date = nt.daily or (nt.created if nt.reliable or all_dated else None)
        for s in dated_statements(note.extraction_text, note_date=note_date, daily=nt.daily is not None):
            by_kind[s.kind] += 1
            rows.append({"vault": vault.name, "path": rel, "line": s.line,
                         "line_text": texts[p].replace("\r\n", "\n").split("\n")[s.line - 1][:400],
                         "kind": s.kind, "words": s.words, "valid_from": iso(s.valid_from),
                         "valid_until": iso(s.valid_until), "text": s.text[:300],
                         "note_date": iso(note_date), "note_date_by": nt.created_by})
    dated_s, dated_cpu = time.perf_counter() - t0, time.process_time() - c0

    n = len(paths)
    print(f"vault {vault}  notes {n}  git: {clock.git.error or 'history read'}  "
          f"bulk-copy mtimes: {'yes' if clock.bulk_window else 'no'}")
    print(f"note dated by: {dict(evidence.most_common())}")
    print(f"dated statements {len(rows)}  by kind: {dict(by_kind.most_common())}")
    print(f"{'step':<28}{'wall s':>9}{'cpu s':>9}{'cpu ms/note':>12}{'cpu × parse':>12}")
    for name, seconds, cpu in (("parse_note (baseline)", parse_s, parse_cpu), ("vault clock (once)", clock_s, clock_cpu),
                               ("note time + dated facts", dated_s, dated_cpu)):
        print(f"{name:<28}{seconds:>9.3f}{cpu:>9.3f}{1000 * cpu / n:>12.3f}{cpu / parse_cpu:>12.2f}")
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

    hinted = [line for text in texts for line in text.split("\n") if may_hold_dates(line, relative=True)]
    t0 = time.perf_counter()
    found = sum(len(dateparser.search.search_dates(line, languages=["en", "zh"], settings=settings) or [])
                for line in hinted)
    results[f"dateparser, {len(hinted)} hint lines"] = (time.perf_counter() - t0, found, 0.0)
    t0 = time.perf_counter()
    found = sum(len(jionlp.ner.extract_time(line, time_base=base.timestamp()) or []) for line in hinted)
    results[f"jionlp, {len(hinted)} hint lines"] = (time.perf_counter() - t0, found, 0.0)

    rules_s = results["rules: find_dates per line"][0]
    print(f"\nlibraries on {len(picked)} random notes of {vault.name} (lines of extraction text)")
    _print_results(results, rules_s, len(picked), "ms/note")
    compare_chinese(base, dateparser, jionlp)


#: Chinese phrases with the period each means on 2024-06-20 (the vaults here are English)
ZH_PHRASES = [("去年", "2023-01-01"), ("上个月换了工作", "2024-05-01"), ("上周我见了谁", "2024-06-10"),
              ("两周前", "2024-06-06"), ("昨天", "2024-06-19"), ("去年夏天去了海边", "2023-06-01"),
              ("三天前", "2024-06-17"), ("在2025年3月搬到乌得勒支", "2025-03-01"), ("2023年3月至2024年5月", "2023-03-01"),
              ("自2024年起", "2024-01-01"), ("下周五开会", "2024-06-28"), ("去年三月", "2023-03-01"),
              ("2024年5月3日", "2024-05-03"), ("半年前", "2023-12-20"), ("前天", "2024-06-18"), ("3月5日开会", "2024-03-05")]


def compare_chinese(base: datetime, dateparser, jionlp) -> None:
    """Cost per line and first-date agreement with the expected day, on ZH_PHRASES repeated 20 times."""
    lines = [text for text, _ in ZH_PHRASES] * 20
    expected = {text: day for text, day in ZH_PHRASES}
    settings = {"RELATIVE_BASE": base.replace(tzinfo=None)}

    def rules(line):
        found = find_dates(line, base)
        return found[0].period.start.date().isoformat() if found else None

    def by_dateparser(line):
        found = dateparser.search.search_dates(line, languages=["zh"], settings=settings)
        return found[0][1].date().isoformat() if found else None

    def by_jionlp(line):
        found = jionlp.ner.extract_time(line, time_base=base.timestamp())
        return found[0]["detail"]["time"][0][:10] if found else None

    results = {}
    for name, parse in (("rules", rules), ("dateparser", by_dateparser), ("jionlp", by_jionlp)):
        t0 = time.perf_counter()
        got = [parse(line) for line in lines]
        seconds = time.perf_counter() - t0
        right = sum(g == expected[line] for g, line in zip(got, lines)) // 20
        results[f"{name} ({right}/{len(ZH_PHRASES)} agree)"] = (seconds, sum(g is not None for g in got) // 20, 0.0)
    print(f"\nChinese phrases ({len(ZH_PHRASES)} × 20 lines), first date found starts on the day listed (rules' conventions)")
    _print_results(results, next(iter(results.values()))[0], len(lines), "ms/line")


def _print_results(results: dict, rules_s: float, count: int, unit: str) -> None:
    print(f"{'parser':<32}{'import s':>9}{'total s':>9}{unit:>9}{'× rules':>9}{'found':>7}")
    for name, (seconds, found, imported) in results.items():
        print(f"{name:<32}{imported:>9.2f}{seconds:>9.3f}{1000 * seconds / count:>9.2f}"
              f"{seconds / rules_s:>9.1f}{found:>7}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("vault", type=Path)
    parser.add_argument("--sample", type=int, default=100)
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--libraries", type=int, default=0, metavar="N")
    parser.add_argument("--all-dated", action="store_true",
                        help="read relative dates in every note, as if each had a reliable date (worst-case cost)")
    args = parser.parse_args()
    run(args.vault.resolve(), args.sample, args.seed, args.out, args.libraries, args.all_dated)


if __name__ == "__main__":
    main()
