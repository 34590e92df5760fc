"""Redaction cost per MB of realistic text, against the redactor of a baseline commit in the same run.

    python bench/redaction.py ../shared [--baseline-rev 4a9c259] [--repeat 3]

Corpora: every note of <shared>/vaults/obsidian-hub, every chat turn of <shared>/data/locomo10.json
(one call per turn), and the notes' titles and tags (one call per short string: the per-call cost
the write path pays for titles, tags and frontmatter values; then `scrub_many` in batches).
The baseline redactor is memory/privacy.py as it was at --baseline-rev (loaded from git), run on
the same texts in the same process.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
import types
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memory.privacy import RedactionSettings, Redactor  # noqa: E402

_TAG = re.compile(r"(?<![\w#])#[\w/-]+")
BATCH = 16  # about the titles, tags and frontmatter values of one note


def load_corpora(shared: Path) -> dict[str, list[str]]:
    notes_dir = shared / "vaults" / "obsidian-hub"
    paths = sorted(notes_dir.rglob("*.md"))
    notes = [path.read_text(encoding="utf-8", errors="replace") for path in paths]
    sessions = json.loads((shared / "data" / "locomo10.json").read_text(encoding="utf-8"))
    turns = [turn["text"] for sample in sessions for key, value in sample["conversation"].items()
             if key.startswith("session_") and isinstance(value, list) for turn in value]
    short = [path.stem for path in paths] + sorted({tag for note in notes for tag in _TAG.findall(note)})
    return {"hub notes": notes, "locomo turns": turns, "titles+tags": short}


def baseline_module(rev: str) -> types.ModuleType:
    """memory/privacy.py at `rev`, imported as memory._privacy_baseline."""
    source = subprocess.run(["git", "show", f"{rev}:memory/privacy.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    module = types.ModuleType("memory._privacy_baseline")
    module.__package__ = "memory"
    sys.modules[module.__name__] = module
    exec(compile(source, f"{rev}:memory/privacy.py", "exec"), module.__dict__)
    return module


def timed(scrub, texts: list[str], repeat: int) -> tuple[float, list[str]]:
    best, out = float("inf"), []
    for _ in range(repeat):
        started = time.perf_counter()
        out = [scrub(text) for text in texts]
        best = min(best, time.perf_counter() - started)
    return best, out


def kinds(outputs: list[str]) -> Counter:
    return Counter(kind for text in outputs for kind in re.findall(r"\[REDACTED:(\w+)\]", text))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("shared", type=Path, help="folder holding vaults/obsidian-hub and data/locomo10.json")
    parser.add_argument("--baseline-rev", default="4a9c259", help="commit whose memory/privacy.py is the baseline")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the fastest counts")
    args = parser.parse_args()

    corpora = load_corpora(args.shared)
    old = baseline_module(args.baseline_rev)
    configs = {"default": {}, "all kinds": {"emails": True, "phones": True}}
    print(f"baseline: memory/privacy.py at {args.baseline_rev}; fastest of {args.repeat} runs\n")
    print(f"{'corpus':<13} {'settings':<10} {'MB':>6} {'calls':>6} {'base MB/s':>9} {'new MB/s':>9} "
          f"{'new/base':>8} {'base s':>7} {'new s':>7} {'new us/call':>11}")
    found = {}
    for name, texts in corpora.items():
        megabytes = sum(len(text.encode()) for text in texts) / 1e6
        for label, options in configs.items():
            base = old.Redactor(old.RedactionSettings(**options))
            new = Redactor(RedactionSettings(**options))
            new.scrub("warm up the detectors")
            base_s, base_out = timed(base.scrub, texts, args.repeat)
            new_s, new_out = timed(new.scrub, texts, args.repeat)
            found[name, label] = (kinds(base_out), kinds(new_out))
            print(f"{name:<13} {label:<10} {megabytes:6.2f} {len(texts):6d} {megabytes / base_s:9.2f} "
                  f"{megabytes / new_s:9.2f} {base_s / new_s:7.2f}x {base_s:7.2f} {new_s:7.2f} "
                  f"{new_s / len(texts) * 1e6:11.1f}")
    short = corpora["titles+tags"]
    batches = [short[i : i + BATCH] for i in range(0, len(short), BATCH)]
    new = Redactor()
    many_s, many_out = timed(lambda batch: new.scrub_many(batch), batches, args.repeat)
    assert [text for batch in many_out for text in batch] == [new.scrub(text) for text in short]
    print(f"{'titles+tags':<13} {'default':<10} scrub_many in batches of {BATCH}: "
          f"{many_s / len(short) * 1e6:.1f} us per text")
    print("\nfindings by kind (baseline -> new)")
    for (name, label), (base_kinds, new_kinds) in found.items():
        every = sorted(set(base_kinds) | set(new_kinds))
        summary = ", ".join(f"{kind} {base_kinds[kind]}->{new_kinds[kind]}" for kind in every) or "none"
        print(f"  {name:<13} {label:<10} {summary}")


if __name__ == "__main__":
    main()
