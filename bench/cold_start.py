"""Cold CLI commands: a new `python -m memory ...` process each time, this checkout against a baseline.

    python bench/cold_start.py VAULT [--baseline ../main] [--runs 5] [--home DIR] [--writes]

Ingests VAULT into a scratch data folder (or uses `--home`, an existing one), then runs each command
`--runs` times as a fresh process, interleaved: this checkout, the `--baseline` checkout (another
git worktree, e.g. main) on the same data folder, and the floor, a Python process that only imports
numpy and duckdb. Prints the median and best wall time per command with ratios to the baseline.
`--writes` adds `remember` (one chat message written, so spaCy's NER and the statement rules load): each
run adds a memory to the data folder.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
COMMANDS = [("recall", ["recall", "garden app meeting"]), ("recall about the user", ["recall", "what phone do I use now"]),
            ("health", ["health"])]
WRITES = [("remember", ["remember", "These days I cycle to work on a blue Brompton"])]
FLOOR = [sys.executable, "-c", "import numpy, duckdb"]


def timed(argv: list[str], cwd: Path, env: dict) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} in {cwd} failed: {done.stderr.strip()[-400:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("vault", type=Path, nargs="?")
    parser.add_argument("--baseline", type=Path, help="another checkout of Engram to compare with")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--home", type=Path, help="an existing data folder (nothing is ingested)")
    parser.add_argument("--writes", action="store_true", help="also time `remember` (adds memories to the folder)")
    args = parser.parse_args()
    commands = COMMANDS + (WRITES if args.writes else [])
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    # As on a user's machine, Python keeps compiled modules: the untimed first run writes them.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    scratch = None
    home = args.home
    if home is None:
        if args.vault is None:
            raise SystemExit("give a VAULT to ingest or --home")
        scratch = tempfile.mkdtemp(prefix="engram-cold-")
        home = Path(scratch) / "home"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "memory", "--home", str(home), "ingest", str(args.vault)],
                       cwd=HERE, env=env, check=True, stdout=subprocess.DEVNULL)
        print(f"ingested {args.vault} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    checkouts = [("this", HERE)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    times: dict[tuple[str, str], list[float]] = {}
    try:
        for name, command in commands:  # one untimed run each: the page cache holds the files, as on a used machine
            for label, cwd in checkouts:
                timed([sys.executable, "-m", "memory", "--home", str(home), *command], cwd, env)
        for _ in range(args.runs):
            times.setdefault(("floor", "import numpy, duckdb"), []).append(timed(FLOOR, HERE, env))
            for name, command in commands:
                for label, cwd in checkouts:
                    argv = [sys.executable, "-m", "memory", "--home", str(home), *command]
                    times.setdefault((label, name), []).append(timed(argv, cwd, env))
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"\nCold commands, {args.runs} fresh processes each, interleaved (seconds; ratio = baseline / this)\n")
    print("| command | this median | this best | baseline median | baseline best | speed-up (median) |")
    print("|---|---|---|---|---|---|")
    for name, _ in commands:
        mine = times[("this", name)]
        base = times.get(("baseline", name))
        cells = [f"{statistics.median(mine):.2f}", f"{min(mine):.2f}"]
        cells += [f"{statistics.median(base):.2f}", f"{min(base):.2f}",
                  f"{statistics.median(base) / statistics.median(mine):.1f}×"] if base else ["-", "-", "-"]
        print(f"| `{name}` | " + " | ".join(cells) + " |")
    floor = times[("floor", "import numpy, duckdb")]
    print(f"| floor: `python -c 'import numpy, duckdb'` | {statistics.median(floor):.2f} | {min(floor):.2f} "
          "| - | - | - |")


if __name__ == "__main__":
    main()
