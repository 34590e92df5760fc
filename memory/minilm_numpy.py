"""all-MiniLM-L6-v2 in plain numpy, for a few short texts (a recall query) when ONNX Runtime is not loaded.

Starting ONNX Runtime costs about a second (its import and a session over 90 MB of weights); this
reads the same safetensors weights through a memory map (only the word rows a query uses are paged
in) and runs the same BERT + mean pooling as the graph `memory.minilm.build_graph` writes, so a
command that embeds one query is ready in a few milliseconds. The vectors match the ONNX ones to
float32 rounding (tests/test_embed.py). Bulk embedding stays on ONNX Runtime, which batches faster.
"""
from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .minilm import HIDDEN, MAX_TOKENS, BertShape, weights_dir

_SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def map_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file as read-only arrays over one memory map (no copy, no import)."""
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    length = int(raw[:8].view("<u8")[0])
    header = json.loads(bytes(raw[8: 8 + length]))
    header.pop("__metadata__", None)
    base = 8 + length
    tensors = {}
    for name, info in header.items():
        start, end = info["data_offsets"]
        dtype = np.dtype(_SAFETENSORS_DTYPES[info["dtype"]]).newbyteorder("<")
        tensors[name] = raw[base + start: base + end].view(dtype).reshape(info["shape"])
    return tensors


def _erf(x: np.ndarray) -> np.ndarray:
    """erf with an error below 1.2e-7 (Numerical Recipes' Chebyshev fit of erfc): numpy has none of its own."""
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = (-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277)))))))))
    erfc = t * np.exp(poly)
    return np.where(x >= 0, 1.0 - erfc, erfc - 1.0)


class NumpyMiniLM:
    """Tokeniser + BERT forward pass in numpy; `encode` returns unit rows (one text at a time, no padding)."""

    def __init__(self, model_dir: Path | None = None, *, max_tokens: int = MAX_TOKENS) -> None:
        from threadpoolctl import ThreadpoolController
        from tokenizers import Tokenizer

        model_dir = model_dir or weights_dir()
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_tokens)
        self.shape = BertShape.from_config(json.loads((model_dir / "config.json").read_text()))
        self.w = map_safetensors(model_dir / "model.safetensors")
        self.positions = (self.w["embeddings.position_embeddings.weight"]
                          + self.w["embeddings.token_type_embeddings.weight"][0]).astype(np.float32)
        self._lock = threading.Lock()
        self._blas = ThreadpoolController()  # finds the BLAS libraries once (each limit() call would again)
        self._warm = False

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text, in the given order."""
        out = np.zeros((len(texts), HIDDEN), dtype=np.float32)
        # Matrices this small run ten times slower when BLAS spreads them over threads on a busy machine.
        with self._lock, self._blas.limit(limits=1, user_api="blas"):
            for row, encoding in enumerate(self.tokenizer.encode_batch(list(texts))):
                out[row] = self._forward(np.asarray(encoding.ids, np.int64))
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def warm(self) -> None:
        """Read the layer weights into memory now (the first query would otherwise wait for the disk)."""
        if not self._warm:
            self.encode(["warm up"])
            self._warm = True

    def _forward(self, ids: np.ndarray) -> np.ndarray:
        """BERT over one unpadded sequence, mean-pooled: the graph of `build_graph` for a batch of one."""
        w, shape = self.w, self.shape
        heads, size = shape.heads, shape.hidden // shape.heads
        n = len(ids)
        x = self._norm(w["embeddings.word_embeddings.weight"][ids] + self.positions[:n], "embeddings.LayerNorm")
        for i in range(shape.layers):
            p = f"encoder.layer.{i}."
            q = self._linear(x, p + "attention.self.query").reshape(n, heads, size).transpose(1, 0, 2)
            k = self._linear(x, p + "attention.self.key").reshape(n, heads, size).transpose(1, 2, 0)
            v = self._linear(x, p + "attention.self.value").reshape(n, heads, size).transpose(1, 0, 2)
            scores = (q @ k) * np.float32(1.0 / np.sqrt(size))
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(1, 0, 2).reshape(n, shape.hidden)
            x = self._norm(self._linear(context, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            hidden = self._linear(x, p + "intermediate.dense")
            hidden = hidden * np.float32(0.5) * (np.float32(1.0) + _erf(hidden / np.float32(np.sqrt(2.0))))
            x = self._norm(self._linear(hidden.astype(np.float32), p + "output.dense") + x, p + "output.LayerNorm")
        return x.mean(axis=0)

    def _linear(self, x: np.ndarray, prefix: str) -> np.ndarray:
        return x @ self.w[prefix + ".weight"].T + self.w[prefix + ".bias"]

    def _norm(self, x: np.ndarray, prefix: str) -> np.ndarray:
        mean = x.mean(axis=-1, keepdims=True)
        centred = x - mean
        variance = (centred * centred).mean(axis=-1, keepdims=True)
        return centred / np.sqrt(variance + np.float32(self.shape.eps)) * self.w[prefix + ".weight"] + self.w[prefix + ".bias"]
