"""Engram side by side with what a user would pick instead: LlamaIndex, Chroma and plain BM25.

    python -m venv --system-site-packages ../venv-bench
    ../venv-bench/bin/pip install -c requirements.txt -r requirements-bench.txt
    ../venv-bench/bin/python bench/peers.py ../shared/data/locomo10.json ../shared/vaults/obsidian-hub \
        [--conversations N] [--notes 300] [--systems engram,llamaindex,chroma,bm25] [--embedder local]

Every system runs in its own subprocess, once for LoCoMo and once for the vault, so its peak RSS
is its own; the systems run one after another, never side by side. Every system that embeds gets
the vectors of `memory.embed.make_embedder(--embedder)`, loaded and warmed up before the clock
starts (the load is reported apart): what they store through `memory.embed.embed_documents`, as Engram does
(on a CPU with VNNI the graph quantised per token), a query through `embed`:

- engram      `memory.Engram` (a fresh home on disk): `import_messages` + `graph()`, then `recall`;
              the vault through `vault_sync.sync.VaultIndexer.sync_all`.
- llamaindex  `VectorStoreIndex` (its default in-memory store, default embed batch of 10) over one
              `TextNode` per turn; `as_retriever(similarity_top_k=k)`. The vault:
              `SimpleDirectoryReader` + the default splitter (`Settings.node_parser`) + `VectorStoreIndex`.
- chroma      `chromadb.PersistentClient` (telemetry off, default HNSW space), one collection per
              conversation, an embedding function around the same embedder; the vault: LlamaIndex's
              chunks, each with the very text LlamaIndex embedded.
- bm25        `bm25s` with English stop words and the Snowball stemmer; hits scoring 0 are dropped.

LoCoMo: each conversation in its own index; a turn is "<speaker>: <text>" (the text Engram itself
indexes), evidence rules and turn parsing are bench/locomo.py's. R@k = share of a question's
evidence turns among the first k distinct turns of a top-25 search. Latency is one search call,
query embedding included. Ratios are against Engram (or the first system listed without it).
The full run (10 conversations, 300 notes) took 70 min on 2 shared cores.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from locomo import CATEGORIES, conversation_messages, normalise_evidence

from memory import ChatMessage, Engram
from memory.clock import parse_when
from memory.embed import embed_documents, make_embedder
from vault_sync.sync import VaultIndexer

KS = (5, 10, 25)
SYSTEMS = ("engram", "llamaindex", "chroma", "bm25")
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
QUIET_ENV = {"HF_HUB_DISABLE_PROGRESS_BARS": "1", "TRANSFORMERS_VERBOSITY": "error"}


# ----------------------------------------------------------------------------- shared by workers
def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def helper_peak_rss_mb() -> float:
    """Peak RSS of Engram's NER helper process while it runs (a second process beside the worker's own)."""
    from memory.extract.ner_helper import helper_pid

    pid = helper_pid()
    try:
        status = Path(f"/proc/{pid}/status").read_text() if pid else ""
    except OSError:
        return 0.0
    return next((int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith("VmHWM:")), 0.0)


def turn_text(message) -> str:
    """What a turn says, as Engram indexes it: the speaker's name first."""
    return f"{message.speaker}: {message.content}" if message.speaker else message.content


def distinct(ids) -> list[str]:
    seen, out = set(), []
    for item in ids:
        if item and item not in seen:
            seen.add(item)
            out.append(item)
    return out


def llamaindex_embedding(embedder):
    """A LlamaIndex `BaseEmbedding` that hands over the given embedder's vectors unchanged."""
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from pydantic import PrivateAttr

    class SameVectors(BaseEmbedding):
        _embedder = PrivateAttr()

        def __init__(self, inner) -> None:
            super().__init__(model_name=inner.name)
            self._embedder = inner

        def _get_query_embedding(self, query: str) -> list[float]:
            return self._embedder.embed([query])[0].tolist()

        def _get_text_embedding(self, text: str) -> list[float]:
            return embed_documents(self._embedder, [text])[0].tolist()

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return embed_documents(self._embedder, list(texts)).tolist()

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

    return SameVectors(embedder)


def chroma_embedding(embedder):
    """A Chroma embedding function around the given embedder (Chroma's own would download ONNX), for what is
    stored; `ChromaSide.search` embeds the query itself."""
    from chromadb import Documents, EmbeddingFunction, Embeddings

    class SameVectors(EmbeddingFunction[Documents]):
        def __init__(self, inner) -> None:
            self.inner = inner

        def __call__(self, input: Documents) -> Embeddings:
            return list(embed_documents(self.inner, list(input)))

        @staticmethod
        def name() -> str:
            return "engram-same-vectors"

        def get_config(self) -> dict:
            return {"embedder": self.inner.name}

        @staticmethod
        def build_from_config(config: dict):
            return SameVectors(make_embedder(config.get("embedder", "local").split(":")[0]))

    return SameVectors(embedder)


def chroma_client(path: Path):
    import chromadb
    from chromadb.config import Settings

    return chromadb.PersistentClient(path=str(path), settings=Settings(anonymized_telemetry=False))


def chroma_add(collection, ids: list[str], documents: list[str], batch: int) -> None:
    for start in range(0, len(ids), batch):
        collection.add(ids=ids[start:start + batch], documents=documents[start:start + batch])


def vault_chunks(folder: Path):
    """LlamaIndex's documents and its default splitter's nodes for a folder of notes."""
    from llama_index.core import Settings, SimpleDirectoryReader

    documents = SimpleDirectoryReader(str(folder), recursive=True, required_exts=[".md"]).load_data()
    return documents, Settings.node_parser.get_nodes_from_documents(documents)


def embedded_text(node) -> str:
    from llama_index.core.schema import MetadataMode

    return node.get_content(metadata_mode=MetadataMode.EMBED)


class Bm25:
    """Plain BM25 (bm25s), English stop words, Snowball stems."""

    def __init__(self, ids: list[str], texts: list[str]) -> None:
        import bm25s
        import snowballstemmer

        self.bm25s = bm25s
        self.stemmer = snowballstemmer.stemmer("english")
        self.ids = ids
        self.retriever = bm25s.BM25()
        self.retriever.index(self._tokens(texts), show_progress=False)

    def _tokens(self, texts: list[str]) -> list[list[str]]:
        return self.bm25s.tokenize(texts, stopwords="en", stemmer=self.stemmer, show_progress=False,
                                   return_ids=False)

    def search(self, query: str, k: int) -> list[str]:
        rows, scores = self.retriever.retrieve(self._tokens([query]), k=min(k, len(self.ids)), show_progress=False)
        return [self.ids[int(row)] for row, score in zip(rows[0], scores[0]) if score > 0]


# ----------------------------------------------------------------------------- one system, one task
class EngramSide:
    def __init__(self, embedder, scratch: Path) -> None:
        self.embedder, self.scratch, self.eng = embedder, scratch, None
        self.helper_rss_mb = 0.0

    def index_turns(self, name: str, messages) -> int:
        self.eng = Engram(self.scratch / name, embedder=self.embedder)
        self.eng.import_messages(messages)
        self.eng.graph()
        self.helper_rss_mb = max(self.helper_rss_mb, helper_peak_rss_mb())
        return len(messages)

    def search(self, query: str, k: int) -> list[str]:
        return distinct(r.unit.message_id for r in self.eng.recall(query, k=k).results)

    def done_with_turns(self) -> None:
        self.eng.close()

    def index_vault(self, name: str, folder: Path) -> int:
        with Engram(self.scratch / f"vault-{name}", embedder=self.embedder) as eng:
            report = VaultIndexer(eng, folder).sync_all()
        return report.chunks


class LlamaIndexSide:
    def __init__(self, embedder, scratch: Path) -> None:
        from llama_index.core import Settings

        self.embed_model = llamaindex_embedding(embedder)
        Settings.embed_model = self.embed_model  # never the OpenAI default
        self.retriever = None

    def index_turns(self, name: str, messages) -> int:
        from llama_index.core import VectorStoreIndex
        from llama_index.core.schema import TextNode

        nodes = [TextNode(id_=m.message_id, text=turn_text(m)) for m in messages]
        index = VectorStoreIndex(nodes, embed_model=self.embed_model)
        self.retriever = index.as_retriever(similarity_top_k=max(KS))
        return len(nodes)

    def search(self, query: str, k: int) -> list[str]:
        return distinct(hit.node.node_id for hit in self.retriever.retrieve(query))[:k]

    def done_with_turns(self) -> None:
        self.retriever = None

    def index_vault(self, name: str, folder: Path) -> int:
        from llama_index.core import SimpleDirectoryReader, VectorStoreIndex

        documents = SimpleDirectoryReader(str(folder), recursive=True, required_exts=[".md"]).load_data()
        index = VectorStoreIndex.from_documents(documents, embed_model=self.embed_model)
        return len(index.index_struct.nodes_dict)


class ChromaSide:
    def __init__(self, embedder, scratch: Path) -> None:
        self.embedder = embedder
        self.function = chroma_embedding(embedder)
        self.scratch = scratch
        self.client = None

    def _collection(self, name: str):
        if self.client is None:
            self.client = chroma_client(self.scratch / "chroma")
        return self.client.create_collection(name=name, embedding_function=self.function)

    def index_turns(self, name: str, messages) -> int:
        self.collection = self._collection(f"locomo-{name}")
        chroma_add(self.collection, [m.message_id for m in messages], [turn_text(m) for m in messages],
                   self.client.get_max_batch_size())
        return len(messages)

    def search(self, query: str, k: int) -> list[str]:
        hits = self.collection.query(query_embeddings=self.embedder.embed([query]),
                                     n_results=min(k, self.collection.count()), include=[])
        return distinct(hits["ids"][0])

    def done_with_turns(self) -> None:
        self.collection = None

    def index_vault(self, name: str, folder: Path) -> int:
        _, nodes = vault_chunks(folder)
        collection = self._collection(f"vault-{name}")
        chroma_add(collection, [n.node_id for n in nodes], [embedded_text(n) for n in nodes],
                   self.client.get_max_batch_size())
        return collection.count()


class Bm25Side:
    def __init__(self, embedder, scratch: Path) -> None:
        self.index = None

    def index_turns(self, name: str, messages) -> int:
        self.index = Bm25([m.message_id for m in messages], [turn_text(m) for m in messages])
        return len(messages)

    def search(self, query: str, k: int) -> list[str]:
        return distinct(self.index.search(query, k))

    def done_with_turns(self) -> None:
        self.index = None

    def index_vault(self, name: str, folder: Path) -> int:
        _, nodes = vault_chunks(folder)
        return len(Bm25([n.node_id for n in nodes], [embedded_text(n) for n in nodes]).ids)


SIDES = {"engram": EngramSide, "llamaindex": LlamaIndexSide, "chroma": ChromaSide, "bm25": Bm25Side}


def warm_up(side, task: str, scratch: Path) -> None:
    """Load what each system loads once per process (models, tokenisers, clients) before any clock starts."""
    at = parse_when("2023-05-08")
    messages = [ChatMessage(content=text, role="user", session_id="warm-up", at=at, message_id=f"W:{n}",
                            speaker="Ada") for n, text in enumerate(
                                ["I moved to Lisbon in May.", "My sister Grace paints birds."])]
    if task == "locomo":
        side.index_turns("warm-up", messages)
        side.search("Where did Ada move?", 2)
        side.done_with_turns()
        return
    notes = scratch / "warm-up-vault"
    notes.mkdir()
    (notes / "Birds.md").write_text("# Birds\n\nGrace paints [[Lisbon]] birds. #art\n", encoding="utf-8")
    side.index_vault("warm-up", notes)


def locomo_task(side, data: Path, conversations: int | None, label: str) -> dict:
    samples = json.loads(data.read_text(encoding="utf-8"))[:conversations]
    out = {"ingest_s": 0.0, "turns": 0, "questions": []}
    for sample in samples:
        messages = conversation_messages(sample["conversation"])
        started = time.perf_counter()
        out["turns"] += side.index_turns(sample["sample_id"], messages)
        seconds = time.perf_counter() - started
        out["ingest_s"] += seconds
        for qa in sample["qa"]:
            evidence, _ = normalise_evidence(qa.get("evidence", []))
            if not evidence:
                continue
            t0 = time.perf_counter()
            ranking = side.search(qa["question"], max(KS))
            ms = (time.perf_counter() - t0) * 1000
            out["questions"].append({
                "category": CATEGORIES.get(qa.get("category"), str(qa.get("category"))), "ms": ms,
                "recall": [len(evidence & set(ranking[:k])) / len(evidence) for k in KS]})
        side.done_with_turns()
        print(f"  [{label}] {sample['sample_id']}: {len(messages)} turns in {seconds:.1f} s",
              file=sys.stderr, flush=True)
    return out


def vault_task(side, folder: Path, label: str) -> dict:
    started = time.perf_counter()
    units = side.index_vault("notes", folder)
    seconds = time.perf_counter() - started
    print(f"  [{label}] vault: {units} units in {seconds:.1f} s", file=sys.stderr, flush=True)
    return {"ingest_s": seconds, "units": units}


def worker(system: str, task: str, data: Path, conversations: int | None, embedder_spec: str, out: Path) -> None:
    """Runs in its own process: load, warm up, then one task for one system; writes JSON to `out`."""
    started = time.perf_counter()
    embedder = None
    if system != "bm25":
        embedder = make_embedder(embedder_spec)
        embedder.embed(["warm up the model before the clock starts"])
    with tempfile.TemporaryDirectory(prefix=f"peers-{system}-") as scratch:
        side = SIDES[system](embedder, Path(scratch))
        warm_up(side, task, Path(scratch))
        result = {"load_s": time.perf_counter() - started, "rss_loaded_mb": peak_rss_mb(),
                  "embedder": getattr(embedder, "name", "none")}
        label = f"{system}/{task}"
        if task == "locomo":
            result.update(locomo_task(side, data, conversations, label))
        else:
            result.update(vault_task(side, data, label))
        result["helper_rss_mb"] = getattr(side, "helper_rss_mb", 0.0)
    out.write_text(json.dumps(result), encoding="utf-8")


# ----------------------------------------------------------------------------- the parent
def run_worker(system: str, task: str, data: Path, args, scratch: Path) -> dict:
    """One system, one task, in a child process; its peak RSS from the kernel's account of that child."""
    out = scratch / f"{system}-{task}.json"
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", system, "--task", task,
               "--embedder", args.embedder, "--data", str(data), "--out", str(out)]
    if args.conversations is not None:
        command += ["--conversations", str(args.conversations)]
    env = dict(os.environ, **OFFLINE_ENV, **QUIET_ENV)
    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=ROOT, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{system}/{task} failed with exit code {child.returncode}")
    result = json.loads(out.read_text(encoding="utf-8"))
    result.update(peak_rss_mb=usage.ru_maxrss / 1024, wall_s=time.perf_counter() - started)
    return result


def first_notes(vault: Path, count: int, into: Path) -> int:
    """Copy the first `count` notes (sorted vault-relative paths, hidden folders skipped) into `into`."""
    notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md")
                    if not any(part.startswith(".") for part in p.relative_to(vault).parts))[:count]
    for rel in notes:
        target = into / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(vault / rel, target)
    return len(notes)


def percentile(values: list[float], q: float) -> float:
    import numpy as np

    return float(np.percentile(values, q)) if values else float("nan")


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def ratio(value: float, base: float) -> str:
    return f"{value / base:.2f}×" if base else "–"


def print_locomo(results: dict[str, dict], baseline: str) -> None:
    any_result = next(iter(results.values()))
    questions = len(any_result["questions"])
    print(f"\n## LoCoMo turn-level recall — {questions} questions over {any_result['turns']} turns, "
          f"each conversation its own index; ratios against {baseline}\n")
    print("| system | ingest s | × | peak RSS MB | × | load s | RSS after load MB | R@5 | R@10 | R@25 | R@10 × "
          "| p50 ms | × | p95 ms | × |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    base = summarise_locomo(results[baseline])
    for system, result in results.items():
        row = summarise_locomo(result)
        recalls = " | ".join(f"{value:.3f}" for value in row["recall"])
        print(f"| {system} | {row['ingest_s']:.1f} | {ratio(row['ingest_s'], base['ingest_s'])} "
              f"| {result['peak_rss_mb']:.0f} | {ratio(result['peak_rss_mb'], results[baseline]['peak_rss_mb'])} "
              f"| {result['load_s']:.1f} | {result['rss_loaded_mb']:.0f} | {recalls} | {ratio(row['recall'][1], base['recall'][1])} "
              f"| {row['p50']:.1f} | {ratio(row['p50'], base['p50'])} | {row['p95']:.1f} | {ratio(row['p95'], base['p95'])} |")
    for system, result in results.items():
        if result.get("helper_rss_mb"):
            print(f"\n{system}'s NER helper process (a second process during chat imports): peak RSS "
                  f"{result['helper_rss_mb']:.0f} MB, beside the {result['peak_rss_mb']:.0f} MB above.")
    categories = sorted({q["category"] for q in any_result["questions"]})
    print("\nR@10 by question category:\n")
    print("| system | " + " | ".join(f"{c} (n={sum(q['category'] == c for q in any_result['questions'])})"
                                     for c in categories) + " |")
    print("|---|" + "---|" * len(categories))
    for system, result in results.items():
        cells = [mean([q["recall"][1] for q in result["questions"] if q["category"] == c]) for c in categories]
        print(f"| {system} | " + " | ".join(f"{cell:.3f}" for cell in cells) + " |")


def summarise_locomo(result: dict) -> dict:
    questions = result["questions"]
    latencies = [q["ms"] for q in questions]
    return {"ingest_s": result["ingest_s"], "p50": percentile(latencies, 50), "p95": percentile(latencies, 95),
            "recall": [mean([q["recall"][i] for q in questions]) for i in range(len(KS))]}


def print_vault(results: dict[str, dict], baseline: str, notes: int, vault: Path) -> None:
    print(f"\n## Vault ingest — the first {notes} notes of {vault.name}; ratios against {baseline}\n")
    print("| system | units indexed | ingest s | × | notes/s | peak RSS MB | × | load s | RSS after load MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    base = results[baseline]
    for system, result in results.items():
        print(f"| {system} | {result['units']} | {result['ingest_s']:.1f} | {ratio(result['ingest_s'], base['ingest_s'])} "
              f"| {notes / result['ingest_s']:.1f} | {result['peak_rss_mb']:.0f} "
              f"| {ratio(result['peak_rss_mb'], base['peak_rss_mb'])} | {result['load_s']:.1f} "
              f"| {result['rss_loaded_mb']:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("locomo", type=Path, nargs="?", help="path to locomo10.json")
    parser.add_argument("vault", type=Path, nargs="?", help="a vault folder, e.g. .../vaults/obsidian-hub")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N conversations (0: skip)")
    parser.add_argument("--notes", type=int, default=300, help="ingest the first N notes of the vault (0: skip)")
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated, from " + ",".join(SYSTEMS))
    parser.add_argument("--embedder", default="local", help="make_embedder spec given to every system")
    parser.add_argument("--worker", choices=SYSTEMS, help=argparse.SUPPRESS)
    parser.add_argument("--task", choices=("locomo", "vault"), help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)
    if args.worker:
        worker(args.worker, args.task, args.data, args.conversations, args.embedder, args.out)
        return
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = set(systems) - set(SYSTEMS)
    if unknown or not systems:
        parser.error(f"unknown systems {sorted(unknown)}; choose from {','.join(SYSTEMS)}")
    baseline = "engram" if "engram" in systems else systems[0]
    if baseline != "engram":
        systems.remove(baseline)
        systems.insert(0, baseline)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start; "
          f"python {sys.executable}", flush=True)
    with tempfile.TemporaryDirectory(prefix="peers-") as scratch_name:
        scratch = Path(scratch_name)
        if args.locomo and args.conversations != 0:
            print_locomo({s: run_worker(s, "locomo", args.locomo, args, scratch) for s in systems}, baseline)
        if args.vault and args.notes:
            folder = scratch / "vault"
            notes = first_notes(args.vault, args.notes, folder)
            print_vault({s: run_worker(s, "vault", folder, args, scratch) for s in systems},
                        baseline, notes, args.vault)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end; model load and warm-up not counted in ingest.")


if __name__ == "__main__":
    main()
