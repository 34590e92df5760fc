"""Example sentences' vectors kept on disk: a cold command reads them instead of embedding ~100 texts."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from memory.embed import HashingEmbedder
from memory.embed_cache import cached_embeddings

ROOT = Path(__file__).resolve().parents[1]
TEXTS = ["I moved to Leeds", "I work as a nurse", "I drink oat milk now"]


def test_the_vectors_are_the_embedders_and_are_kept(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    first = cached_embeddings(embedder, TEXTS, tmp_path)
    assert np.allclose(first, embedder.embed(TEXTS))
    assert len(list(tmp_path.glob("vectors-*.npy"))) == 1
    assert np.array_equal(cached_embeddings(embedder, TEXTS, tmp_path), first)
    cached_embeddings(embedder, TEXTS[:2], tmp_path)  # other texts, another file
    assert len(list(tmp_path.glob("vectors-*.npy"))) == 2


def test_a_file_that_does_not_match_the_model_is_rebuilt(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    cached_embeddings(embedder, TEXTS, tmp_path)
    (path,) = tmp_path.glob("vectors-*.npy")
    wrong = np.random.default_rng(1).normal(size=(len(TEXTS), embedder.dim)).astype(np.float32)
    np.save(path, wrong / np.linalg.norm(wrong, axis=1, keepdims=True))
    assert np.allclose(cached_embeddings(embedder, TEXTS, tmp_path), embedder.embed(TEXTS))
    path.write_bytes(b"not a numpy file")
    assert np.allclose(cached_embeddings(embedder, TEXTS, tmp_path), embedder.embed(TEXTS))
    assert np.allclose(np.load(path), embedder.embed(TEXTS))


def test_an_unwritable_cache_only_costs_time(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder should be")
    embedder = HashingEmbedder()
    assert np.allclose(cached_embeddings(embedder, TEXTS, blocked / "cache"), embedder.embed(TEXTS))


def test_a_second_process_classes_questions_without_loading_onnx_runtime(tmp_path: Path) -> None:
    code = ("import sys; from memory.embed import make_embedder; "
            "from memory.extract.prototypes import PrototypeClassifier; e = make_embedder('local'); "
            "c = PrototypeClassifier(e); "
            "print(c.question_attribute('where do I live these days', e.embed(['where do I live these days'])[0]), "
            "'onnxruntime' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=str(ROOT), ENGRAM_CACHE=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                           check=True).stdout.split() for _ in range(2)]
    assert runs[0][0] == runs[1][0] != "None"  # the same class, read from the same example vectors
    assert runs[0][1] == "True" and runs[1][1] == "False"  # the first embeds the examples, the second reads them
