"""The generalisation suite: hand-written update / profile / state-question cases, through the CLI.

    python bench/scenarios.py bench/scenarios/tune.jsonl        # pass rates + every failure
    python bench/scenarios.py bench/scenarios/heldout.jsonl     # pass rates only
    python bench/scenarios.py --split bench/scenarios/cases.jsonl   # rewrite the two halves
    python bench/scenarios.py bench/scenarios/tune.jsonl --keep DIR # stores kept; a second run only asks again

Each case gets a fresh `--home`; its messages are written one by one with `python -m memory remember
TEXT --at AT` (or all at once with `import-chat`, `--write import`), then its question goes through
`python -m memory recall QUESTION --json [--as-of]`. A case passes when the top result's content
contains one of `expect_first`, none of `expect_not_first`, and every `expect_history` item is in a
result marked not valid (history). `--split` halves the cases by a hash of their id, balanced per
language and class; a case counts as tune only when its id is in bench/scenarios/tune.jsonl, and
failures are printed for tune cases only, so held-out cases can be scored without being tuned on.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import redirect_stdout
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CLASSES = ("update", "negation", "greeting", "paraphrase", "past", "secret")
LANGS = ("en", "zh")
K = 10
SPLIT_DIR = REPO / "bench" / "scenarios"


def id_hash(case_id: str) -> int:
    return int(hashlib.sha256(case_id.encode("utf-8")).hexdigest(), 16)


def read_cases(path: Path) -> list[dict]:
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                cases.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise SystemExit(f"{path}:{number}: malformed JSON ({exc.msg})") from None
    return cases


def write_split(cases_path: Path) -> None:
    """Halves balanced per (language, class): within each, cases ordered by the hash of their id alternate.

    Re-running after cases were added may move old cases between halves: add new cases to both
    files by hand instead once held-out scores have been reported.
    """
    strata: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for case in read_cases(cases_path):
        strata[(case["lang"], case["class"])].append(case)
    halves = {"tune": [], "heldout": []}
    start = 0  # odd-sized strata give their spare case to tune and held-out in turn
    for key in sorted(strata):
        for position, case in enumerate(sorted(strata[key], key=lambda c: id_hash(c["id"])), start=start):
            halves["tune" if position % 2 == 0 else "heldout"].append(case)
        start = (start + len(strata[key])) % 2
    for name, members in halves.items():
        target = cases_path.with_name(f"{name}.jsonl")
        target.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in members), encoding="utf-8")
        print(f"{target}: {len(members)} cases")


def tune_ids() -> set[str]:
    """Ids of the tune half; every other case counts as held out (its failures are never printed)."""
    path = SPLIT_DIR / "tune.jsonl"
    return {c["id"] for c in read_cases(path)} if path.exists() else set()


# ------------------------------------------------------------------ the CLI
def run_cli(argv: list[str], *, subprocess_mode: bool) -> str:
    """`python -m memory ARGV`: in this process through the CLI entry, or as a real child process."""
    if subprocess_mode:
        done = subprocess.run([sys.executable, "-m", "memory", *argv], cwd=REPO, capture_output=True,
                              text=True, encoding="utf-8", check=False)
        if done.returncode:
            raise RuntimeError(f"memory {argv[0]} failed ({done.returncode}): {done.stderr.strip()[-1000:]}")
        return done.stdout
    from memory.__main__ import main

    out = io.StringIO()
    with redirect_stdout(out):
        code = main(argv)
    if code:
        raise RuntimeError(f"memory {argv[0]} failed with exit code {code}")
    return out.getvalue()


def run_case(case: dict, args) -> dict:
    """Write the case's messages into a fresh store, ask its question; the recall JSON. With `--keep DIR` the
    store stays in DIR/<id>/<write mode>, and a store already there is asked again without writing."""
    if args.keep:
        home = args.keep / case["id"] / args.write
        return _write_and_ask(case, args, home, write=not home.exists())
    with tempfile.TemporaryDirectory(prefix="scenario-") as scratch:
        return _write_and_ask(case, args, Path(scratch, "home"), write=True)


def _write_and_ask(case: dict, args, home: Path, *, write: bool) -> dict:
    common = ["--home", str(home), "--json", "--embedder", args.embedder]
    if write and args.write == "import":
        with tempfile.TemporaryDirectory(prefix="scenario-") as scratch:
            chat = Path(scratch, "chat.jsonl")
            chat.write_text("".join(json.dumps({"session_id": case["id"], "role": "user", "content": m["text"],
                                                "at": m["at"], "id": f"{case['id']}#{n}"}, ensure_ascii=False)
                                    + "\n" for n, m in enumerate(case["messages"])), encoding="utf-8")
            run_cli(["import-chat", str(chat), *common], subprocess_mode=args.subprocess)
    elif write:
        for n, message in enumerate(case["messages"]):
            run_cli(["remember", message["text"], "--at", message["at"], "--session", case["id"],
                     "--id", f"{case['id']}#{n}", *common], subprocess_mode=args.subprocess)
    query = ["recall", case["question"], "--k", str(K), *common]
    if case.get("as_of"):
        query += ["--as-of", case["as_of"]]
    return json.loads(run_cli(query, subprocess_mode=args.subprocess))


def judge(case: dict, answer: dict) -> tuple[bool, str]:
    """Pass or fail, with the reason."""
    results = answer.get("results") or []
    if not results:
        return False, "no results"
    top = results[0]["content"].casefold()
    if not any(s.casefold() in top for s in case["expect_first"]):
        return False, "top result lacks every expected answer"
    wrong = [s for s in case.get("expect_not_first", []) if s.casefold() in top]
    if wrong:
        return False, f"top result holds {wrong}"
    history = [r["content"].casefold() for r in results if r.get("valid") is False]
    missing = [s for s in case.get("expect_history") or [] if not any(s.casefold() in h for h in history)]
    if missing:
        return False, f"not shown as history: {missing}"
    return True, ""


# ------------------------------------------------------------------ report
def rate(outcomes: list[bool]) -> str:
    return f"{sum(outcomes)}/{len(outcomes)} ({sum(outcomes) / len(outcomes):.0%})" if outcomes else "–"


def print_scores(split: str, members: list[str], outcomes: dict[str, bool], cases: dict[str, dict]) -> None:
    if not members:
        return
    table: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for cid in members:
        case = cases[cid]
        for cls in (case["class"], "overall"):
            for lang in (case["lang"], "all"):
                table[(cls, lang)].append(outcomes[cid])
    print(f"\n### {split}: {len(members)} cases\n")
    print("| class | en | zh | all |")
    print("|---|---|---|---|")
    for cls in (*CLASSES, "overall"):
        if table[(cls, "all")]:
            print(f"| {cls} | " + " | ".join(rate(table[(cls, lang)]) for lang in (*LANGS, "all")) + " |")


def print_failure(case: dict, answer: dict, reason: str) -> None:
    print(f"\nFAIL {case['id']} [{case['class']}] {case['question']!r}"
          + (f" as of {case['as_of']}" if case.get("as_of") else "") + f": {reason}")
    print(f"  expect_first {case['expect_first']}, not_first {case.get('expect_not_first', [])}"
          + (f", history {case['expect_history']}" if case.get("expect_history") else ""))
    for number, r in enumerate((answer.get("results") or [])[:3], start=1):
        flag = "" if r.get("valid", True) else " (history)"
        print(f"  {number}. [{r['type']}]{flag} {r['content'][:110]!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", type=Path, help="a JSONL file of cases (tune.jsonl, heldout.jsonl or cases.jsonl)")
    parser.add_argument("--split", action="store_true", help="write tune.jsonl and heldout.jsonl beside CASES")
    parser.add_argument("--write", choices=["remember", "import"], default="remember",
                        help="one `remember` per message (default) or one `import-chat` per case")
    parser.add_argument("--embedder", default="local")
    parser.add_argument("--only", help="only cases whose id contains this text")
    parser.add_argument("--subprocess", action="store_true",
                        help="run every CLI call as its own `python -m memory` process (default: in-process)")
    parser.add_argument("--keep", type=Path,
                        help="keep each case's store in KEEP/<id>/<write mode>; a store kept there is only asked again "
                             "(for a change of recall alone: stores built by other write rules, or a run stopped "
                             "halfway through a case, give other answers)")
    args = parser.parse_args()
    if args.split:
        write_split(args.cases)
        return

    load_before = os.getloadavg()
    cases = {c["id"]: c for c in read_cases(args.cases) if not args.only or args.only in c["id"]}
    tune = tune_ids()
    split_of = {cid: "tune" if cid in tune else "heldout" for cid in cases}
    outcomes: dict[str, bool] = {}
    failures = []
    started = time.perf_counter()
    for case in cases.values():
        answer = run_case(case, args)
        passed, reason = judge(case, answer)
        outcomes[case["id"]] = passed
        if not passed and split_of[case["id"]] == "tune":
            failures.append((case, answer, reason))
    wall = time.perf_counter() - started

    print(f"\n## Scenario suite — {args.cases.name}, writes by `{args.write}`, top-{K} recall")
    for case, answer, reason in failures:
        print_failure(case, answer, reason)
    for split in ("tune", "heldout"):
        print_scores(split, [cid for cid in outcomes if split_of[cid] == split], outcomes, cases)
    hidden = sum(1 for cid, ok in outcomes.items() if not ok and split_of[cid] == "heldout")
    if hidden:
        print(f"\n({hidden} held-out failures not shown.)")
    messages = sum(len(c["messages"]) for c in cases.values())
    print(f"\nTiming ({'a process per CLI call' if args.subprocess else 'CLI entry in-process'}): "
          f"{wall:.0f} s for {len(cases)} cases, {messages} messages ({wall / max(1, len(cases)):.2f} s/case). "
          f"Machine: {os.cpu_count()} cores, shared; load average {load_before[0]:.1f} at start, "
          f"{os.getloadavg()[0]:.1f} at end.")


if __name__ == "__main__":
    main()
