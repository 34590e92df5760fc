"""What classing the user's statements by example sentences costs a state question on a big index.

    python bench/state_question_cost.py [--rows 100000] [--statements 2000]

An index of random unit vectors (only the cost is measured, not the answers): the classifier's one
product over the statement rows (`PrototypeClassifier.statement_rows`) against the way it first
ran, one full-index `cosine` scan per example sentence, in the same process.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from memory.extract.prototypes import PrototypeClassifier  # noqa: E402
from memory.index import HybridIndex  # noqa: E402

DIM = 384


class RandomExamples:
    """Stands in for MiniLM's vectors of the example sentences: the cost does not depend on them."""

    name = "local:all-MiniLM-L6-v2"

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def embed(self, texts):
        matrix = self.rng.standard_normal((len(texts), DIM)).astype(np.float32)
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--statements", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    index = HybridIndex(dim=DIM, capacity=args.rows)
    vectors = rng.standard_normal((args.rows, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for i in range(args.rows):
        index.add(memory_id=i, type_="chat_turn", tokens=["x"], vector=vectors[i], valid_from=0,
                  valid_until=np.inf, recorded=0, superseded=np.inf)
    classifier = PrototypeClassifier(RandomExamples(rng))
    statements = np.zeros(index.size, bool)
    statements[rng.choice(args.rows, args.statements, replace=False)] = True
    examples = np.vstack([ex for ex, _ in classifier._vectors().values()])
    classifier.statement_rows(index, "diet", statements)
    t0 = time.perf_counter()
    for _ in range(args.runs):
        classifier.statement_rows(index, "diet", statements)
    product = (time.perf_counter() - t0) / args.runs
    t0 = time.perf_counter()
    for _ in range(args.runs):
        for vector in examples:
            index.cosine(vector, statements, 40)
    scans = (time.perf_counter() - t0) / args.runs
    print(f"\n{args.rows:,} rows, {args.statements:,} statement rows, {len(examples)} example sentences, "
          f"{args.runs} runs\n")
    print("| way | ms per state question | × |")
    print("|---|---|---|")
    print(f"| one full-index scan per example (before) | {scans * 1000:.1f} | 1.00× |")
    print(f"| one product over the statement rows (now) | {product * 1000:.1f} | {product / scans:.3f}× |")


if __name__ == "__main__":
    main()
