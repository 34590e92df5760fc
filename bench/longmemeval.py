"""LongMemEval long-haystack retrieval through Engram's CLI, beside a plain BM25 over the same turns.

    python bench/longmemeval.py ../shared/data/longmemeval_oracle.json [--questions N] [--groups N]
        [--group-size 10] [--others 45] [--keys both|all|user] [--as-of none|question] [--subprocess]
        [--keep DIR]

The oracle file holds, per question, only its evidence sessions. Questions (abstention `_abs` skipped)
are shuffled with a fixed seed and grouped; one store serves a group and holds the group's evidence
sessions plus sessions drawn from questions outside the group, all with their own dates, sorted:
enough that every question sees at least `--others` (45) sessions that are not its evidence.

Two key sets, each imported into its own store with `python -m memory import-chat`:
  all  — every turn, user and assistant: what Engram stores from a real chat;
  user — user turns only: the published LongMemEval retrieval protocol.
Questions go through `python -m memory recall --batch --json` (50 results each). Metrics, per question type:
  session recall_all@k — every answer session is among the first k distinct sessions of the ranking, a
    session ranked by its best turn (LongMemEval's session-level recall; LoCoMo's R@k counts distinct
    message ids the same way);
  turn-session recall_all@k — every answer session is among the sessions of the top-k *turns* (stricter:
    two turns of one session take two of the k places);
  turn recall_all@10 / recall_any@10 — all / any turns flagged has_answer (within the key set)
  are among the top-10 results' messages (questions with no flagged turn in the key set are left out).
The baseline is Okapi BM25 (rank_bm25's formula) over the same turns with Engram's own tokenizer.
Message ids are `<session_id>#<turn index>`, so every result maps back to (session, turn).
"""
from __future__ import annotations

import argparse
import io
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from contextlib import redirect_stdout
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from memory.extract import tokenize_for_search

SEED = 20240611
RECALL_K = 50
SESSION_KS = (5, 10)
TURN_K = 10
TURN_SECONDS = 30  # turns of a session are spaced this far apart after the session's date
TYPES = ("single-session-user", "single-session-assistant", "single-session-preference",
         "multi-session", "knowledge-update", "temporal-reasoning")


# ------------------------------------------------------------------ data
@dataclass
class Session:
    id: str
    at: datetime
    turns: list[dict]


@dataclass
class Question:
    id: str
    type: str
    text: str
    date: datetime
    answer_sessions: set[str]
    evidence_turns: set[str]  # message ids of turns flagged has_answer


def parse_date(text: str) -> datetime:
    """'2023/05/21 (Sun) 19:50' → an aware UTC datetime."""
    day, _, clock = text.partition(") ")
    return datetime.strptime(f"{day[:10]} {clock}", "%Y/%m/%d %H:%M").replace(tzinfo=UTC)


def as_of(q: Question) -> datetime:
    """The question's moment for `--as-of question`: a day's slack, as 43 questions have evidence hours later."""
    return q.date + timedelta(days=1)


def message_id(session_id: str, turn: int) -> str:
    return f"{session_id}#{turn}"


def load(path: Path) -> tuple[list[Question], dict[str, Session]]:
    """Non-abstention questions and every distinct session (a few are shared between questions)."""
    questions, sessions = [], {}
    for item in json.loads(path.read_text(encoding="utf-8")):
        for sid, date, turns in zip(item["haystack_session_ids"], item["haystack_dates"],
                                    item["haystack_sessions"]):
            sessions.setdefault(sid, Session(sid, parse_date(date), turns))
        if item["question_id"].endswith("_abs"):
            continue
        evidence = {message_id(sid, n)
                    for sid, turns in zip(item["haystack_session_ids"], item["haystack_sessions"])
                    for n, turn in enumerate(turns) if turn.get("has_answer")}
        questions.append(Question(item["question_id"], item["question_type"], item["question"],
                                  parse_date(item["question_date"]), set(item["answer_session_ids"]), evidence))
    return questions, sessions


def shuffled(questions: list[Question], seed: int) -> list[Question]:
    order = sorted(questions, key=lambda q: q.id)
    random.Random(seed).shuffle(order)
    return order


def make_groups(order: list[Question], sessions: dict[str, Session], *, size: int, others: int,
                seed: int) -> list[tuple[list[Question], list[Session]]]:
    """Questions in groups of `size`; a group's haystack = its evidence + sessions from outside, by date.

    Enough outside sessions are drawn that every member sees at least `others` sessions that are not
    its own evidence (the other members' evidence included).
    """
    groups = []
    for number, start in enumerate(range(0, len(order), size)):
        members = order[start:start + size]
        own = set().union(*(q.answer_sessions for q in members))
        already = min(len(own - q.answer_sessions) for q in members)  # other members' evidence counts too
        pool = sorted(sid for sid in sessions if sid not in own)
        drawn = random.Random(f"{seed}:{number}").sample(pool, min(max(0, others - already), len(pool)))
        haystack = sorted((sessions[sid] for sid in own | set(drawn)), key=lambda s: (s.at, s.id))
        groups.append((members, haystack))
    return groups


def chat_lines(haystack: list[Session], keys: str) -> list[dict]:
    """import-chat JSONL records for the key set ('all' turns or 'user' turns only)."""
    lines = []
    for session in haystack:
        for n, turn in enumerate(session.turns):
            if keys == "user" and turn["role"] != "user":
                continue
            lines.append({"session_id": session.id, "role": turn["role"], "content": turn["content"],
                          "at": (session.at + timedelta(seconds=TURN_SECONDS * n)).isoformat(),
                          "id": message_id(session.id, n)})
    return lines


# ------------------------------------------------------------------ the CLI
def run_cli(argv: list[str], *, subprocess_mode: bool) -> str:
    """`python -m memory ARGV`: in this process through the CLI entry, or as a real child process."""
    if subprocess_mode:
        done = subprocess.run([sys.executable, "-m", "memory", *argv], cwd=REPO, capture_output=True,
                              text=True, encoding="utf-8", check=False)
        if done.returncode:
            raise SystemExit(f"memory {argv[0]} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
        return done.stdout
    from memory.__main__ import main

    out = io.StringIO()
    with redirect_stdout(out):
        code = main(argv)
    if code:
        raise SystemExit(f"memory {argv[0]} failed with exit code {code}")
    return out.getvalue()


# ------------------------------------------------------------------ plain BM25
class PlainBM25:
    """Okapi BM25 as in rank_bm25.BM25Okapi (k1 1.5, b 0.75, negative idf floored at epsilon × mean idf)."""

    def __init__(self, documents: list[list[str]], k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25):
        self.k1, self.b = k1, b
        self.lengths = [len(d) for d in documents]
        self.avgdl = sum(self.lengths) / max(1, len(documents))
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for row, doc in enumerate(documents):
            for term, count in Counter(doc).items():
                self.postings[term].append((row, count))
        n = len(documents)
        idf = {t: math.log(n - len(p) + 0.5) - math.log(len(p) + 0.5) for t, p in self.postings.items()}
        floor = epsilon * (sum(idf.values()) / len(idf)) if idf else 0.0
        self.idf = {t: (v if v >= 0 else floor) for t, v in idf.items()}

    def top(self, query: list[str], k: int) -> list[int]:
        scores: dict[int, float] = defaultdict(float)
        for term in query:
            for row, tf in self.postings.get(term, ()):
                norm = self.k1 * (1 - self.b + self.b * self.lengths[row] / self.avgdl)
                scores[row] += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
        return sorted(scores, key=lambda row: (-scores[row], row))[:k]


# ------------------------------------------------------------------ metrics
def session_of(mid: str | None) -> str | None:
    return mid.rpartition("#")[0] if mid and "#" in mid else None


def ranked_sessions(ranking: list[str | None]) -> list[str]:
    """Sessions in the order of their best-ranked turn (each once), as LongMemEval ranks sessions."""
    seen: dict[str, None] = {}
    for mid in ranking:
        session = session_of(mid)
        if session is not None:
            seen.setdefault(session)
    return list(seen)


def score(q: Question, ranking: list[str | None], keyed: set[str]) -> dict[str, float]:
    """Session and turn metrics for one ranked list of message ids (None = a result with no message)."""
    row = {}
    sessions = ranked_sessions(ranking)
    for k in SESSION_KS:
        row[f"session all@{k}"] = float(q.answer_sessions <= set(sessions[:k]))
    for k in SESSION_KS:
        found = {session_of(m) for m in ranking[:k]}
        row[f"turn-session all@{k}"] = float(q.answer_sessions <= found)
    evidence = q.evidence_turns & keyed
    if evidence:
        top = set(ranking[:TURN_K])
        row[f"turn all@{TURN_K}"] = float(evidence <= top)
        row[f"turn any@{TURN_K}"] = float(bool(evidence & top))
    return row


METRICS = ([f"session all@{k}" for k in SESSION_KS] + [f"turn-session all@{k}" for k in SESSION_KS]
           + [f"turn all@{TURN_K}", f"turn any@{TURN_K}"])


# ------------------------------------------------------------------ one group
def run_group(members: list[Question], haystack: list[Session], keys: str, args, timing: dict,
              number: int) -> dict:
    """Import the group's haystack (or reuse the store `--keep` kept), recall its questions; per question and
    system, the metric row."""
    lines = chat_lines(haystack, keys)
    keyed = {line["id"] for line in lines}
    rows: dict[tuple[str, str], dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="lme-") as scratch:
        chat, batch = Path(scratch, "chat.jsonl"), Path(scratch, "batch.jsonl")
        home = args.keep / f"{keys}-{number}" if args.keep else Path(scratch, "home")
        imported = home / "imported"
        chat.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
        queries = [{"query": q.text, "k": RECALL_K} for q in members]
        if args.as_of == "question":
            for query, q in zip(queries, members):
                query["as_of"] = as_of(q).isoformat()
        batch.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in queries), encoding="utf-8")
        common = ["--home", str(home), "--json", "--embedder", args.embedder]
        started = time.perf_counter()
        if not imported.exists():
            run_cli(["import-chat", str(chat), *common], subprocess_mode=args.subprocess)
            if args.keep:
                imported.write_text("imported\n")
        timing[f"{keys} import"] += time.perf_counter() - started
        started = time.perf_counter()
        out = run_cli(["recall", "--batch", str(batch), *common], subprocess_mode=args.subprocess)
        timing[f"{keys} recall"] += time.perf_counter() - started
    answers = [json.loads(line) for line in out.splitlines() if line.strip()]
    if len(answers) != len(members):
        raise SystemExit(f"recall --batch gave {len(answers)} answers for {len(members)} questions")
    started = time.perf_counter()
    bm25 = PlainBM25([tokenize_for_search(line["content"]) for line in lines])
    timing[f"{keys} bm25"] += time.perf_counter() - started
    for q, answer in zip(members, answers):
        engram = [(r.get("source") or {}).get("message_id") for r in answer["results"]]
        started = time.perf_counter()
        ranked = bm25.top(tokenize_for_search(q.text), len(lines))
        if args.as_of == "question":  # the baseline sees what Engram sees then
            ranked = [row for row in ranked if datetime.fromisoformat(lines[row]["at"]) <= as_of(q)]
        plain = [lines[row]["id"] for row in ranked[:RECALL_K]]
        timing[f"{keys} bm25"] += time.perf_counter() - started
        rows[(q.id, "engram")] = score(q, engram, keyed)
        rows[(q.id, "bm25")] = score(q, plain, keyed)
    timing["turns"] += len(lines)
    return rows


# ------------------------------------------------------------------ report
def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def print_table(keys: str, questions: list[Question], rows: dict) -> None:
    title = {"all": "all turns stored (what Engram keeps from a chat)",
             "user": "user turns only (the published LongMemEval protocol)"}[keys]
    print(f"\n### Keys: {title}\n")
    print("| type | n | " + " | ".join(METRICS) + " |")
    print("|---|---|" + "---|" * len(METRICS))
    by_type = defaultdict(list)
    for q in questions:
        by_type[q.type].append(q)
    for group in ("overall", *TYPES):
        members = questions if group == "overall" else by_type.get(group, [])
        if not members:
            continue
        cells = []
        for metric in METRICS:
            values = {system: [rows[(q.id, system)][metric] for q in members if metric in rows[(q.id, system)]]
                      for system in ("engram", "bm25")}
            e, b = mean(values["engram"]), mean(values["bm25"])
            ratio = f"{e / b:.2f}×" if b else "–"
            n = f" [n {len(values['engram'])}]" if len(values["engram"]) != len(members) else ""
            cells.append(f"{e:.3f} / {b:.3f} ({ratio}){n}")
        print(f"| {group} | {len(members)} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("oracle", type=Path, help="path to longmemeval_oracle.json")
    parser.add_argument("--questions", type=int, help="only the first N questions of the shuffled order")
    parser.add_argument("--groups", type=int, help="only the first N groups")
    parser.add_argument("--group-size", type=int, default=10, help="questions sharing one haystack store")
    parser.add_argument("--others", type=int, default=45,
                        help="sessions that are not its evidence every question sees, at least")
    parser.add_argument("--keys", choices=["both", "all", "user"], default="both")
    parser.add_argument("--as-of", choices=["none", "question"], default="none",
                        help="recall as of now (default), or as of each question's date plus one day "
                             "(distractors dated later are then hidden)")
    parser.add_argument("--embedder", default="local")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--keep", type=Path, help="keep each group's store in this folder and reuse it on the "
                        "next run with the same arguments (recall only; the import time then reads 0)")
    parser.add_argument("--subprocess", action="store_true",
                        help="run every CLI call as its own `python -m memory` process (default: in-process)")
    args = parser.parse_args()

    load_before = os.getloadavg()
    questions, sessions = load(args.oracle)
    groups = make_groups(shuffled(questions, args.seed)[:args.questions], sessions,
                         size=args.group_size, others=args.others, seed=args.seed)[:args.groups]
    asked = [q for members, _ in groups for q in members]
    others = [sum(1 for s in haystack if s.id not in q.answer_sessions
                  and (args.as_of == "none" or s.at <= as_of(q)))
              for members, haystack in groups for q in members]
    variants = ["all", "user"] if args.keys == "both" else [args.keys]

    timing: dict[str, float] = defaultdict(float)
    rows = {keys: {} for keys in variants}
    started = time.perf_counter()
    for number, (members, haystack) in enumerate(groups, start=1):
        for keys in variants:
            rows[keys].update(run_group(members, haystack, keys, args, timing, number))
        print(f"  group {number}/{len(groups)}: {len(members)} questions, {len(haystack)} sessions "
              f"({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
    wall = time.perf_counter() - started

    print(f"\n## LongMemEval long haystack (oracle file) — {len(asked)} questions in {len(groups)} groups, "
          f"seed {args.seed}, recall as of {'each question date + 1 day' if args.as_of == 'question' else 'now'}\n")
    print(f"Each store: a group of ≤ {args.group_size} questions' evidence sessions + sessions from outside the "
          f"group, sorted by their own dates; {mean([len(h) for _, h in groups]):.1f} sessions per store; sessions "
          f"that are not a question's evidence{' (dated before its as_of)' if args.as_of == 'question' else ''}: "
          f"min {min(others)}, mean {mean(others):.1f}. Types: "
          + ", ".join(f"{t} {n}" for t, n in sorted(Counter(q.type for q in asked).items())))
    print(f"Session all@k: every answer session among the first k distinct sessions of the ranking (a session "
          f"ranked by its best turn, LongMemEval's session recall); turn-session all@k: every answer session "
          f"among the sessions of the top-k turns (the older, stricter count); turn all/any@{TURN_K}: all / any "
          f"has_answer turns among the top-{TURN_K} results' messages. Each system ranks {RECALL_K} turns. "
          "bm25 = Okapi BM25 over each stored turn with Engram's tokenizer. Cells: engram / bm25 (ratio).")
    for keys in variants:
        print_table(keys, asked, rows[keys])
    print(f"\nTiming ({'a process per CLI call' if args.subprocess else 'CLI entry in-process'}): "
          f"wall {wall:.0f} s for {int(timing['turns'])} imported turns; "
          + "; ".join(f"{keys}: import {timing[f'{keys} import']:.0f} s, recall {timing[f'{keys} recall']:.1f} s "
                      f"({timing[f'{keys} recall'] / len(asked) * 1000:.0f} ms/question incl. store open), "
                      f"bm25 {timing[f'{keys} bm25']:.1f} s" for keys in variants))
    load_after = os.getloadavg()
    print(f"Machine: {os.cpu_count()} cores, shared; load average {load_before[0]:.1f} at start, "
          f"{load_after[0]:.1f} at end.")


if __name__ == "__main__":
    main()
