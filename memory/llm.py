"""The chat-model seam: Ollama through llama-index (Ollama embeddings live in embed.py).

Every failure of the model server surfaces as ModelUnavailableError with a hint how to start it.
Nothing here touches llama-index's global `Settings`, so nothing can fall back to OpenAI.
"""
from __future__ import annotations

import http.client
import os
import socket
from contextlib import closing
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Iterator, Mapping, Sequence
from urllib.parse import urlsplit

from .embed import OllamaEmbedder  # noqa: F401  (re-exported from its old home)
from .errors import BadInputError, ModelUnavailableError

if TYPE_CHECKING:  # the clients load when a model is first reached: commands that never chat skip them
    from llama_index.core.base.llms.types import ChatMessage
    from llama_index.llms.ollama import Ollama
    from ollama import Client

DEFAULT_URL = "http://127.0.0.1:11434"
DEFAULT_MODEL = "qwen2.5:7b"
DEFAULT_CONTEXT_WINDOW = 8192
DEFAULT_TIMEOUT = 120.0
PROBE_TIMEOUT = 3.0
OLLAMA_PORT = 11434

_ROLES = {"system", "user", "assistant", "tool"}


@lru_cache(maxsize=1)
def client_failures() -> tuple[type[BaseException], ...]:
    """What the ollama client and httpx raise when the server is missing, slow or answers badly;
    ValueError covers json.JSONDecodeError and pydantic.ValidationError."""
    import httpx
    from ollama import ResponseError

    return (OSError, httpx.HTTPError, ResponseError, ValueError, KeyError, TypeError)


def ollama_client(base_url: str, timeout: float) -> "Client":
    """The ollama package's HTTP client (imported on first use)."""
    from ollama import Client

    return Client(host=base_url, timeout=timeout)


@dataclass(frozen=True)
class OllamaSettings:
    """Where Ollama is and which chat model to use."""

    base_url: str
    model: str


def normalise_url(value: str) -> str:
    """'host', 'host:port' or a URL -> 'scheme://host[:port]'; a bare host gets http and 11434."""
    value = value.strip()
    has_scheme = "://" in value
    parts = urlsplit(value if has_scheme else f"http://{value}")
    host = parts.hostname or "127.0.0.1"
    # A server's bind address (OLLAMA_HOST=0.0.0.0) is not an address to connect to.
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port or (None if has_scheme else OLLAMA_PORT)
    except ValueError:
        raise BadInputError(f"Ollama URL {value!r} has an invalid port") from None
    netloc = f"{host}:{port}" if port else host
    return f"{parts.scheme}://{netloc}{parts.path.rstrip('/')}"


def ollama_settings_from_env() -> OllamaSettings:
    """ENGRAM_OLLAMA_URL, else OLLAMA_HOST, else the local default; ENGRAM_MODEL for the model."""
    url = _env("ENGRAM_OLLAMA_URL") or _env("OLLAMA_HOST")
    model = _env("ENGRAM_MODEL") or DEFAULT_MODEL
    return OllamaSettings(base_url=normalise_url(url) if url else DEFAULT_URL, model=model)


def _env(name: str) -> str:
    return os.environ.get(name, "").strip()


def how_to_start_ollama(model: str = DEFAULT_MODEL) -> str:
    """Step-by-step text for getting a local model running."""
    return (
        "To chat with a local model:\n"
        "  1. Install Ollama: https://ollama.com/download\n"
        "  2. Start the server: ollama serve\n"
        f"  3. Pull the model: ollama pull {model}\n\n"
        "Or point Engram at a running server: set ENGRAM_OLLAMA_URL (e.g. http://127.0.0.1:11434)."
    )


def describe_failure(exc: BaseException, model: str, timeout: float) -> str:
    """A short sentence saying what went wrong talking to Ollama."""
    if isinstance(exc, TimeoutError):  # the probe's (standard library) errors first: no client is loaded for them
        return f"no answer within {timeout:g} s (timed out)"
    if isinstance(exc, TagsHTTPError):
        return f"the server answered HTTP {exc.status_code}: {exc.error}"
    if isinstance(exc, OSError):  # refused, unreachable, no such host, reset
        return "could not connect (connection refused or host unreachable)"
    if isinstance(exc, http.client.IncompleteRead):
        return "the connection closed before the reply was complete"
    if isinstance(exc, http.client.HTTPException):
        return f"the server's reply was not valid HTTP ({type(exc).__name__})"
    if isinstance(exc, (ValueError, KeyError, TypeError)):  # pydantic's ValidationError is a ValueError
        first_line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return f"the reply was not valid Ollama JSON ({first_line})"
    import httpx
    from ollama import ResponseError

    if isinstance(exc, httpx.TimeoutException):
        return f"no answer within {timeout:g} s (timed out)"
    if isinstance(exc, httpx.ConnectError):
        return "could not connect (connection refused or host unreachable)"
    if isinstance(exc, ResponseError):
        if exc.status_code == 404:
            return f"the server has no model {model!r} ({exc.error}); run `ollama pull {model}`"
        if exc.status_code == -1:
            return f"the server reported an error mid-reply: {exc.error}"
        return f"the server answered HTTP {exc.status_code}: {exc.error}"
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
        return "the connection closed before the reply was complete"
    return f"{type(exc).__name__}: {exc}"


def unavailable(base_url: str, model: str, what: str, when: str = "") -> ModelUnavailableError:
    """The error to raise, naming the server and model, with the how-to-start hint."""
    where = f"Ollama at {base_url} (model {model!r})"
    hint = how_to_start_ollama(model)
    return ModelUnavailableError(f"{where} is unavailable{when}: {what}.\n{hint}")


def model_matches(wanted: str, names: Sequence[str]) -> bool:
    """True if `wanted` is pulled; an untagged name means ':latest' as in Ollama."""
    return wanted in names or (":" not in wanted and f"{wanted}:latest" in names)


class TagsHTTPError(OSError):
    """GET /api/tags answered with an HTTP error status."""

    def __init__(self, status_code: int, error: str) -> None:
        super().__init__(f"HTTP {status_code}: {error}")
        self.status_code, self.error = status_code, error


# what fetch_models raises (no client is imported to catch them)
PROBE_FAILURES = (OSError, http.client.HTTPException, ValueError, KeyError, TypeError)


def fetch_models(base_url: str, timeout: float) -> list[str]:
    """Names of the pulled models, from GET /api/tags. With the standard library: the chat page probes on its
    first view, and the ollama client (httpx, pydantic) is loaded only for a reply. Raises PROBE_FAILURES."""
    import json
    import urllib.error
    import urllib.request

    # no proxy: the probe asks the Ollama server itself, on this machine or the local network
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with direct.open(f"{base_url}/api/tags", timeout=timeout) as response:
            data = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        body = exc.read().decode("utf-8", "replace").strip()
        try:
            error = json.loads(body).get("error") or body
        except (ValueError, AttributeError):
            error = body
        raise TagsHTTPError(exc.code, error or str(exc.reason)) from None
    except urllib.error.URLError as exc:  # the reason is the socket's own error (refused, timed out)
        raise exc.reason if isinstance(exc.reason, OSError) else exc from None
    models = data["models"]
    if not isinstance(models, list) or not all(isinstance(m, dict) for m in models):
        raise ValueError("/api/tags did not list models")
    return [m.get("model") or m["name"] for m in models]


def to_chat_messages(messages: Sequence[Mapping[str, str]]) -> list[ChatMessage]:
    """[{role, content}] -> llama-index ChatMessages; an unknown role is bad input."""
    from llama_index.core.base.llms.types import ChatMessage, MessageRole

    converted = []
    for message in messages:
        role = message.get("role")
        if role not in _ROLES:
            raise BadInputError(f"message role {role!r} is not one of {sorted(_ROLES)}")
        converted.append(ChatMessage(role=MessageRole(role), content=message.get("content", "")))
    return converted


@dataclass(frozen=True)
class ModelStatus:
    """Whether Ollama answers at base_url and has the chat model pulled."""

    base_url: str
    model: str
    reachable: bool
    model_present: bool
    models: tuple[str, ...] = ()
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.reachable and self.model_present

    @property
    def hint(self) -> str:
        """How to fix it, or '' when the model is ready."""
        return "" if self.ok else how_to_start_ollama(self.model)


class ChatModel:
    """A chat model served by Ollama, reached through llama-index's Ollama client."""

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        *,
        context_window: int = DEFAULT_CONTEXT_WINDOW,
        request_timeout: float = DEFAULT_TIMEOUT,
        temperature: float = 0.7,
        probe_timeout: float = PROBE_TIMEOUT,
    ) -> None:
        if context_window <= 0:
            raise BadInputError(f"context_window must be positive, got {context_window}")
        env = ollama_settings_from_env()
        self.base_url = normalise_url(base_url) if base_url else env.base_url
        self.model = model or env.model
        self.context_window = context_window
        self.request_timeout = request_timeout
        self.temperature = temperature
        self.probe_timeout = probe_timeout
        self._ollama: "Client | None" = None  # built with the first reply, as llama-index is
        self._llm: "Ollama | None" = None  # built on the first reply: an offline turn never loads llama-index

    @property
    def _client(self) -> "Client":
        if self._ollama is None:
            self._ollama = ollama_client(self.base_url, self.request_timeout)
        return self._ollama

    def close(self) -> None:
        """Close the HTTP connections to Ollama."""
        if self._ollama is not None:
            self._ollama.close()

    def __enter__(self) -> "ChatModel":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def llm(self) -> "Ollama":
        """The llama-index LLM, for components that need one passed explicitly."""
        if self._llm is None:
            from llama_index.llms.ollama import Ollama

            # An explicit context_window keeps llama-index from asking /api/show and sending
            # the model's full context length as num_ctx.
            self._llm = Ollama(model=self.model, base_url=self.base_url, context_window=self.context_window,
                               request_timeout=self.request_timeout, temperature=self.temperature,
                               client=self._client)
        return self._llm

    def _check_listening(self, when: str) -> None:
        """Before the first reply loads llama-index (≈ 2 s), see that something listens at the server's address:
        with no server, an offline answer comes without that wait."""
        if self._llm is not None:
            return
        parts = urlsplit(self.base_url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            socket.create_connection((parts.hostname or "127.0.0.1", port), timeout=self.probe_timeout).close()
        except OSError as exc:
            raise self._unavailable(exc, when, self.probe_timeout) from exc

    def stream(self, messages: Sequence[Mapping[str, str]]) -> Iterator[str]:
        """Yield the reply's text deltas; a failure, even midway, raises ModelUnavailableError."""
        self._check_listening(" while streaming a reply")
        chat_messages = to_chat_messages(messages)
        done = False
        try:
            with closing(self.llm.stream_chat(chat_messages)) as responses:
                for response in responses:
                    done = bool((response.raw or {}).get("done"))
                    if response.delta:
                        yield response.delta
        except client_failures() as exc:
            raise self._unavailable(exc, " while streaming a reply") from exc
        if not done:
            what = "the reply stream ended before Ollama marked it done"
            raise unavailable(self.base_url, self.model, what, " while streaming a reply")

    def complete(self, messages: Sequence[Mapping[str, str]]) -> str:
        """The whole reply as one string."""
        self._check_listening(" while generating a reply")
        chat_messages = to_chat_messages(messages)
        try:
            response = self.llm.chat(chat_messages)
        except client_failures() as exc:
            raise self._unavailable(exc, " while generating a reply") from exc
        if (response.raw or {}).get("done") is False:
            what = "the reply came back without Ollama marking it done"
            raise unavailable(self.base_url, self.model, what, " while generating a reply")
        return response.message.content or ""

    def list_models(self) -> list[str]:
        """Names of the models pulled on the server."""
        try:
            return fetch_models(self.base_url, self.probe_timeout)
        except PROBE_FAILURES as exc:
            raise self._unavailable(exc, " while listing models", self.probe_timeout) from exc

    def available(self) -> ModelStatus:
        """Probe GET /api/tags with a short timeout; never raises."""
        url, model = self.base_url, self.model
        try:
            models = tuple(fetch_models(url, self.probe_timeout))
        except PROBE_FAILURES as exc:
            error = f"Ollama at {url}: {describe_failure(exc, model, self.probe_timeout)}"
            return ModelStatus(url, model, False, False, (), error)
        present = model_matches(model, models)
        missing = f"model {model!r} is not pulled at {url}; run `ollama pull {model}`"
        return ModelStatus(url, model, True, present, models, "" if present else missing)

    def _unavailable(
        self, exc: BaseException, when: str, timeout: float | None = None
    ) -> ModelUnavailableError:
        what = describe_failure(exc, self.model, timeout or self.request_timeout)
        return unavailable(self.base_url, self.model, what, when)

