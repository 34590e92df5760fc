"""LoCoMo turn-level evidence recall: Engram's hybrid recall vs BM25 alone vs vectors alone.

    python bench/locomo.py ../shared/data/locomo10.json [--conversations N] [--embedder local] [--bursts]

Each conversation is imported into its own store (session dates as message times, dia_ids as
message ids); every question is recalled and R@k = share of its evidence turns found in the top k.

`--bursts` sends each turn as people send messages in a chat app: one message per sentence, the
shared photo as a message of its own (ids `D1:3.1`, `D1:3.2`, …; a turn is found when any of its
messages is). LoCoMo's speakers strictly alternate, real chats do not.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory import ChatMessage, Engram  # noqa: E402
from memory.embed import make_embedder  # noqa: E402
from memory.index import Filters, HybridIndex  # noqa: E402

KS = (5, 10, 25, 50)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


def parse_session_time(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' → an aware UTC datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def normalise_evidence(raw: list[str]) -> tuple[set[str], int]:
    """Evidence ids as D<session>:<turn>; malformed strings ('D8:6; D9:17', 'D:11:26', 'D30:05') fixed."""
    found, repaired = set(), 0
    for item in raw:
        matches = EVIDENCE.findall(str(item))
        canonical = {f"D{int(a)}:{int(b)}" for a, b in matches}
        if len(matches) != 1 or canonical != {str(item).strip()}:
            repaired += 1
        found |= canonical
    return found, repaired


SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


def turn_parts(turn: dict, bursts: bool) -> list[str]:
    """What one turn is sent as: the whole turn, or (bursts) a message per sentence and one per photo."""
    caption = f"[shares a photo: {turn['blip_caption']}]" if turn.get("blip_caption") else None
    if not bursts:
        return [f"{turn['text']} {caption}" if caption else turn["text"]]
    parts = [part for part in SENTENCE_END.split(turn["text"].strip()) if part]
    return parts + [caption] if caption else parts


def conversation_messages(conv: dict, bursts: bool = False) -> list[ChatMessage]:
    speaker_a = conv["speaker_a"]
    messages = []
    session = 1
    while f"session_{session}" in conv:
        at = parse_session_time(conv[f"session_{session}_date_time"])
        for turn in conv[f"session_{session}"]:
            parts = turn_parts(turn, bursts)
            for number, text in enumerate(parts, start=1):
                messages.append(ChatMessage(
                    content=text, role="user" if turn["speaker"] == speaker_a else "assistant",
                    session_id=f"session_{session}", at=at,
                    message_id=f"{turn['dia_id']}.{number}" if len(parts) > 1 else turn["dia_id"],
                    speaker=turn["speaker"],
                ))
                at += timedelta(seconds=30 if number == len(parts) else 5)
        session += 1
    return messages


def ranked_message_ids(ids_in_order: list[str | None]) -> list[str]:
    """Distinct turn ids in rank order (a message of a turn sent in bursts stands for its turn)."""
    seen, out = set(), []
    for message_id in ids_in_order:
        message_id = message_id.split(".")[0] if message_id else message_id
        if message_id and message_id not in seen:
            seen.add(message_id)
            out.append(message_id)
    return out


def plain_bm25_index(eng: Engram) -> tuple[HybridIndex, dict[int, str]]:
    """BM25 over each turn's own words only (no context turns), the usual baseline."""
    index = HybridIndex(dim=1)
    message_of = {}
    for row, (message_id, content) in enumerate(eng.store.query(
            "SELECT message_id, content FROM memories WHERE type = 'chat_turn' ORDER BY id")):
        index.add(memory_id=row, type_="chat_turn", tokens=eng.tokenize(content), vector=np.zeros(1, np.float32),
                  valid_from=0, valid_until=np.inf, recorded=0, superseded=np.inf)
        message_of[row] = message_id
    return index, message_of


def baseline_rankings(eng: Engram, question: str, message_of: dict[int, str],
                      plain: tuple[HybridIndex, dict[int, str]]) -> dict[str, list[str]]:
    keep = eng.index.mask(Filters(as_of=time.time(), types=("chat_turn",)))
    terms = eng.tokenize(question)
    bm25 = eng.index.bm25(terms, keep, max(KS))
    vectors, _ = eng.index.cosine(eng.embedder.embed([question])[0], keep, max(KS))
    plain_index, plain_ids = plain
    plain_hits = plain_index.bm25(terms, plain_index.mask(Filters(as_of=1.0)), max(KS))
    return {
        "bm25": ranked_message_ids([message_of.get(i) for i, _ in bm25]),
        "bm25-plain": ranked_message_ids([plain_ids.get(i) for i, _ in plain_hits]),
        "vectors": ranked_message_ids([message_of.get(i) for i, _ in vectors]),
    }


def open_store(sample: dict, embedder, keep_dir: Path | None, scratch: str, bursts: bool) -> Engram:
    """The conversation's store: reused from keep_dir when it was imported before."""
    home = keep_dir / sample["sample_id"] if keep_dir else Path(scratch)
    reuse = keep_dir is not None and (home / "engram.duckdb").exists()
    eng = Engram(home, embedder=embedder)
    if not reuse:
        eng.import_messages(conversation_messages(sample["conversation"], bursts))
    return eng


def run(path: Path, conversations: int | None, embedder_spec: str, keep_dir: Path | None = None,
        bursts: bool = False) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))[:conversations]
    embedder = make_embedder(embedder_spec)
    hits: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    stats = {"questions": 0, "skipped_no_evidence": 0, "repaired_evidence": 0, "turns": 0,
             "import_s": 0.0, "recall_ms": []}
    for sample in data:
        with tempfile.TemporaryDirectory() as scratch:
            messages = conversation_messages(sample["conversation"], bursts)
            started = time.perf_counter()
            eng = open_store(sample, embedder, keep_dir, scratch, bursts)
            eng.graph()
            stats["import_s"] += time.perf_counter() - started
            stats["turns"] += len(messages)
            message_of = {mid: msg for mid, msg in eng.store.query("SELECT id, message_id FROM memories")}
            plain = plain_bm25_index(eng)
            for qa in sample["qa"]:
                evidence, repaired = normalise_evidence(qa.get("evidence", []))
                stats["repaired_evidence"] += repaired
                if not evidence:
                    stats["skipped_no_evidence"] += 1
                    continue
                stats["questions"] += 1
                t0 = time.perf_counter()
                result = eng.recall(qa["question"], k=max(KS))
                stats["recall_ms"].append((time.perf_counter() - t0) * 1000)
                rankings = {"engram": ranked_message_ids([r.unit.message_id for r in result.results])}
                rankings.update(baseline_rankings(eng, qa["question"], message_of, plain))
                category = CATEGORIES.get(qa.get("category"), str(qa.get("category")))
                for system, ranking in rankings.items():
                    for k in KS:
                        score = len(evidence & set(ranking[:k])) / len(evidence)
                        hits[(system, "overall")][k].append(score)
                        hits[(system, category)][k].append(score)
            eng.close()
        print(f"  {sample['sample_id']}: {len(messages)} turns", file=sys.stderr, flush=True)
    return {"hits": hits, "stats": stats}


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def print_table(outcome: dict) -> None:
    hits, stats = outcome["hits"], outcome["stats"]
    groups = ["overall"] + list(CATEGORIES.values())
    print(f"\nLoCoMo turn-level evidence recall — {stats['questions']} questions, {stats['turns']} turns "
          f"({stats['skipped_no_evidence']} without evidence skipped, {stats['repaired_evidence']} "
          f"malformed evidence strings repaired)\n")
    print("bm25 = Engram's keyword index alone (each turn indexed with its two preceding turns as context keys); "
          "bm25-plain = BM25 over each turn's own words; vectors = all-MiniLM-L6-v2 alone.\n")
    print("| group | n | system | R@5 | R@10 | R@25 | R@50 | R@10 vs bm25-plain |")
    print("|---|---|---|---|---|---|---|---|")
    for group in groups:
        base = mean(hits[("bm25-plain", group)][10])
        for system in ("engram", "bm25", "bm25-plain", "vectors"):
            row = hits[(system, group)]
            if not row[10]:
                continue
            values = " | ".join(f"{mean(row[k]):.3f}" for k in KS)
            ratio = mean(row[10]) / base if base else float("nan")
            print(f"| {group} | {len(row[10])} | {system} | {values} | {ratio:.2f}× |")
    latencies = sorted(stats["recall_ms"])
    if latencies:
        p50 = latencies[len(latencies) // 2]
        p95 = latencies[int(len(latencies) * 0.95) - 1]
        print(f"\nimport (or reopen): {stats['import_s']:.1f} s for {stats['turns']} turns "
              f"({stats['turns'] / stats['import_s']:.0f} turns/s); recall p50 {p50:.1f} ms, p95 {p95:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("locomo", type=Path, help="path to locomo10.json")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--embedder", default="local")
    parser.add_argument("--keep", type=Path, default=None,
                        help="keep each conversation's store in this folder and reuse it on the next run")
    parser.add_argument("--bursts", action="store_true",
                        help="send each turn as a message per sentence (and per shared photo), as in a chat app")
    args = parser.parse_args()
    print_table(run(args.locomo, args.conversations, args.embedder, args.keep, args.bursts))


if __name__ == "__main__":
    main()
