"""Vectors of fixed texts (the example sentences), kept on disk so a cold command need not embed them.

Embedding the ~100 example sentences loads ONNX Runtime and costs a fresh process about 3 s; reading
them back costs milliseconds. The file is named by the embedder and the texts, and checked on every
read against the first text embedded now (one text goes through the light query path): weights that
changed under the same name give other vectors, and the file is rebuilt.
"""
from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Sequence

import numpy as np

from .minilm import cache_dir

__all__ = ["cached_embeddings"]

log = logging.getLogger(__name__)
SAME_VECTOR = 0.999  # cosine between the stored and a fresh vector of the same text by the same model


def cached_embeddings(embedder, texts: Sequence[str], folder: Path | None = None) -> np.ndarray:
    """`embedder.embed(texts)`, from the cache folder when a checked copy is there."""
    texts = list(texts)
    key = hashlib.sha256("\n".join([embedder.name, str(embedder.dim), *texts]).encode()).hexdigest()[:20]
    path = (folder or cache_dir()) / f"vectors-{key}.npy"
    stored = _read(path, (len(texts), embedder.dim))
    if stored is not None and texts:
        fresh = np.asarray(embedder.embed(texts[:1]), dtype=np.float32)[0]
        if float(fresh @ stored[0]) >= SAME_VECTOR:
            return stored
    matrix = np.asarray(embedder.embed(texts), dtype=np.float32)
    _write(path, matrix)
    return matrix


def _read(path: Path, shape: tuple[int, int]) -> np.ndarray | None:
    try:
        matrix = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    return matrix if matrix.shape == shape and matrix.dtype == np.float32 else None


def _write(path: Path, matrix: np.ndarray) -> None:
    """Atomically (a concurrent reader never sees half a file); an unwritable cache is only slower."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".part", delete=False) as part:
            np.save(part, matrix, allow_pickle=False)
        os.replace(part.name, path)
    except OSError as exc:
        log.debug("vectors not cached at %s: %s", path, exc)
