"""The chat-model seam against a fake Ollama server, through the real llama-index client."""
from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from memory.errors import BadInputError, ModelUnavailableError
from memory.llm import (
    ChatModel,
    OllamaEmbedder,
    how_to_start_ollama,
    normalise_url,
    ollama_settings_from_env,
)
from tests.fixtures.fake_ollama import FakeOllama

ROOT = Path(__file__).resolve().parents[1]
HELLO = [{"role": "user", "content": "Hello?"}]
MakeChat = Callable[..., ChatModel]
MakeEmbedder = Callable[..., OllamaEmbedder]


@pytest.fixture
def make_chat() -> Iterator[MakeChat]:
    """Build ChatModels and close their connections after the test."""
    built: list[ChatModel] = []

    def make(*args, **kwargs) -> ChatModel:
        built.append(ChatModel(*args, **kwargs))
        return built[-1]

    yield make
    for chat in built:
        chat.close()


@pytest.fixture
def make_embedder() -> Iterator[MakeEmbedder]:
    """Build OllamaEmbedders and close their connections after the test."""
    built: list[OllamaEmbedder] = []

    def make(*args, **kwargs) -> OllamaEmbedder:
        built.append(OllamaEmbedder(*args, **kwargs))
        return built[-1]

    yield make
    for embedder in built:
        embedder.close()


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def assert_unavailable_message(error: pytest.ExceptionInfo, url: str, *phrases: str) -> None:
    message = str(error.value)
    for expected in (url, "qwen2.5:7b", "ollama serve", "ENGRAM_OLLAMA_URL", *phrases):
        assert expected in message


# streaming and payloads


def test_stream_yields_the_scripted_chunks_in_order(
    fake_ollama: FakeOllama, make_chat: MakeChat
) -> None:
    fake_ollama.reply = ["Hel", "lo, ", "Engram", "!"]
    chat = make_chat(fake_ollama.url, context_window=4096)

    assert list(chat.stream(HELLO)) == ["Hel", "lo, ", "Engram", "!"]


def test_stream_delivers_chunks_as_they_arrive(
    fake_ollama: FakeOllama, make_chat: MakeChat
) -> None:
    fake_ollama.reply = ["one ", "two ", "three"]
    fake_ollama.chunk_delay = 0.2
    arrivals = [time.monotonic() for _ in make_chat(fake_ollama.url).stream(HELLO)]

    assert len(arrivals) == 3
    assert arrivals[-1] - arrivals[0] >= 0.3


def test_a_string_reply_is_split_into_several_chunks(
    fake_ollama: FakeOllama, make_chat: MakeChat
) -> None:
    fake_ollama.reply = "the quick brown fox jumps over the lazy dog"
    fake_ollama.chunks = 3
    deltas = list(make_chat(fake_ollama.url).stream(HELLO))

    assert len(deltas) == 3
    assert "".join(deltas) == "the quick brown fox jumps over the lazy dog"


def test_chat_payload_carries_our_messages_and_context_window(
    fake_ollama: FakeOllama, make_chat: MakeChat
) -> None:
    messages = [
        {"role": "system", "content": "You are Engram."},
        {"role": "user", "content": "What do I drink?"},
    ]
    chat = make_chat(fake_ollama.url, "qwen2.5:7b", context_window=4096, temperature=0.1)
    list(chat.stream(messages))

    payload = fake_ollama.last("/api/chat")
    assert payload["model"] == "qwen2.5:7b"
    assert payload["stream"] is True
    assert payload["messages"] == messages
    assert payload["options"]["num_ctx"] == 4096
    assert payload["options"]["temperature"] == 0.1
    assert fake_ollama.requests_to("/api/show") == []  # an explicit window needs no lookup


def test_complete_returns_a_reply_computed_from_the_messages(
    fake_ollama: FakeOllama, make_chat: MakeChat
) -> None:
    fake_ollama.reply = lambda messages: f"echo: {messages[-1]['content']}"

    assert make_chat(fake_ollama.url).complete(HELLO) == "echo: Hello?"
    assert fake_ollama.last("/api/chat")["stream"] is False


def test_an_unknown_role_is_bad_input(fake_ollama: FakeOllama, make_chat: MakeChat) -> None:
    with pytest.raises(BadInputError, match="'wizard'"):
        list(make_chat(fake_ollama.url).stream([{"role": "wizard", "content": "hi"}]))


# models


def test_list_models_and_status(fake_ollama: FakeOllama, make_chat: MakeChat) -> None:
    chat = make_chat(fake_ollama.url)
    status = chat.available()

    assert chat.list_models() == ["qwen2.5:7b", "bge-m3:latest"]
    assert status.ok and status.reachable and status.model_present
    assert status.models == ("qwen2.5:7b", "bge-m3:latest")
    assert status.error == "" and status.hint == ""


def test_status_says_when_the_model_is_not_pulled(
    fake_ollama: FakeOllama, make_chat: MakeChat
) -> None:
    status = make_chat(fake_ollama.url, "llama3.1:8b").available()

    assert status.reachable and not status.model_present and not status.ok
    assert "ollama pull llama3.1:8b" in status.error
    assert "ollama pull llama3.1:8b" in status.hint


def test_an_untagged_model_name_means_latest(fake_ollama: FakeOllama, make_chat: MakeChat) -> None:
    assert make_chat(fake_ollama.url, "bge-m3").available().model_present


def test_chat_with_a_model_not_pulled_raises(fake_ollama: FakeOllama, make_chat: MakeChat) -> None:
    with pytest.raises(ModelUnavailableError, match="ollama pull llama3.1:8b"):
        list(make_chat(fake_ollama.url, "llama3.1:8b").stream(HELLO))


# failures


def test_server_down_raises_with_a_hint(make_chat: MakeChat) -> None:
    url = closed_port_url()
    chat = make_chat(url)

    with pytest.raises(ModelUnavailableError) as error:
        list(chat.stream(HELLO))
    assert_unavailable_message(error, url, "could not connect")
    with pytest.raises(ModelUnavailableError, match="could not connect"):
        chat.complete(HELLO)
    with pytest.raises(ModelUnavailableError, match="could not connect"):
        chat.list_models()


OFFLINE_REPLY = """
import sys
from memory.errors import ModelUnavailableError
from memory.llm import ChatModel
try:
    list(ChatModel(sys.argv[1]).stream([{"role": "user", "content": "Hello?"}]))
except ModelUnavailableError as exc:
    print("UNAVAILABLE", exc)
print("LOADED", sorted(name for name in sys.modules if name.split(".")[0] in {"llama_index", "ollama", "httpx"}))
"""


def test_with_no_server_listening_a_reply_fails_without_loading_the_client() -> None:
    """An offline answer does not wait for llama-index (about 2 s) to load only to find nothing listens."""
    done = subprocess.run([sys.executable, "-c", OFFLINE_REPLY, closed_port_url()], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "UNAVAILABLE" in done.stdout and "could not connect" in done.stdout
    assert "LOADED []" in done.stdout


def test_server_down_status_does_not_raise(make_chat: MakeChat) -> None:
    url = closed_port_url()
    status = make_chat(url).available()

    assert not status.reachable and not status.ok
    assert url in status.error and "could not connect" in status.error
    assert "ollama serve" in status.hint


@pytest.mark.parametrize(
    ("mode", "phrase"),
    [
        ("slow", "no answer within 1 s"),
        ("http500", "HTTP 500"),
        ("cut", "closed before the reply was complete"),
        ("malformed", "not valid Ollama JSON"),
        ("no_done", "before Ollama marked it done"),
    ],
)
def test_a_failing_stream_raises_model_unavailable(
    fake_ollama: FakeOllama, mode: str, phrase: str, make_chat: MakeChat
) -> None:
    fake_ollama.mode = mode
    fake_ollama.delay = 3.0
    chat = make_chat(fake_ollama.url, request_timeout=1.0)

    with pytest.raises(ModelUnavailableError) as error:
        list(chat.stream(HELLO))
    assert_unavailable_message(error, fake_ollama.url, phrase, "while streaming a reply")


@pytest.mark.parametrize("mode", ["http500", "cut", "malformed", "no_done"])
def test_a_failing_complete_raises_model_unavailable(
    fake_ollama: FakeOllama, mode: str, make_chat: MakeChat
) -> None:
    fake_ollama.mode = mode

    with pytest.raises(ModelUnavailableError, match="while generating a reply"):
        make_chat(fake_ollama.url).complete(HELLO)


def test_a_stream_cut_midway_raises_after_the_partial_text(
    fake_ollama: FakeOllama, make_chat: MakeChat
) -> None:
    fake_ollama.reply = ["I ", "remember ", "that ", "you "]
    fake_ollama.mode = "cut"
    fake_ollama.cut_after = 2
    shown: list[str] = []

    with pytest.raises(ModelUnavailableError, match="closed before the reply was complete"):
        for delta in make_chat(fake_ollama.url).stream(HELLO):
            shown.append(delta)
    assert shown == ["I ", "remember "]


def test_a_slow_server_does_not_fail_the_status_probe_of_other_paths(
    fake_ollama: FakeOllama, make_chat: MakeChat
) -> None:
    fake_ollama.mode = "slow"  # by default only /api/chat and /api/embed are affected

    assert make_chat(fake_ollama.url, probe_timeout=0.5).available().ok


def test_a_slow_tags_endpoint_makes_the_model_unreachable(
    fake_ollama: FakeOllama, make_chat: MakeChat
) -> None:
    fake_ollama.mode = "slow"
    fake_ollama.affects = {"/api/tags"}
    status = make_chat(fake_ollama.url, probe_timeout=0.3).available()

    assert not status.reachable
    assert "no answer within 0.3 s" in status.error


@pytest.mark.parametrize(("mode", "phrase"), [("http500", "HTTP 500"), ("malformed", "not valid Ollama JSON"),
                                              ("cut", "closed before the reply was complete")])
def test_a_broken_tags_reply_is_named_and_the_probe_does_not_raise(
    fake_ollama: FakeOllama, make_chat: MakeChat, mode: str, phrase: str
) -> None:
    fake_ollama.mode = mode
    fake_ollama.affects = {"/api/tags"}
    status = make_chat(fake_ollama.url).available()

    assert not status.reachable and phrase in status.error, status.error


# settings


def test_settings_default_to_the_local_server() -> None:
    settings = ollama_settings_from_env()

    assert settings.base_url == "http://127.0.0.1:11434"
    assert settings.model == "qwen2.5:7b"


def test_ollama_host_without_scheme_is_normalised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11500")
    monkeypatch.setenv("ENGRAM_MODEL", "llama3.1:8b")

    assert ollama_settings_from_env().base_url == "http://gpu-box:11500"
    assert ollama_settings_from_env().model == "llama3.1:8b"


def test_engram_url_wins_over_ollama_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11500")
    monkeypatch.setenv("ENGRAM_OLLAMA_URL", "https://ollama.example.org/")

    assert ollama_settings_from_env().base_url == "https://ollama.example.org"


@pytest.mark.parametrize(
    ("value", "url"),
    [
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("localhost", "http://localhost:11434"),
        (":7777", "http://127.0.0.1:7777"),
        ("[::1]:9000", "http://[::1]:9000"),
        ("http://10.0.0.5:11434/", "http://10.0.0.5:11434"),
    ],
)
def test_normalise_url(value: str, url: str) -> None:
    assert normalise_url(value) == url


def test_a_bad_port_is_bad_input() -> None:
    with pytest.raises(BadInputError, match="gpu-box:port"):
        normalise_url("gpu-box:port")


def test_chat_model_reads_the_environment_when_built(
    fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{fake_ollama.port}")
    fake_ollama.reply = ["from ", "env"]

    with ChatModel() as chat:
        assert list(chat.stream(HELLO)) == ["from ", "env"]


def test_how_to_start_ollama_names_every_step() -> None:
    text = how_to_start_ollama()

    steps = ("ollama.com/download", "ollama serve", "ollama pull qwen2.5:7b", "ENGRAM_OLLAMA_URL")
    assert all(step in text for step in steps)


# embeddings


def test_embedder_returns_normalised_rows_of_the_server_dim(
    fake_ollama: FakeOllama, make_embedder: MakeEmbedder
) -> None:
    fake_ollama.embed_dim = 48
    embedder = make_embedder("bge-m3", fake_ollama.url, batch_size=2)
    texts = ["I drink latte", "Alice works at Acme", "latte with Alice", "", "x y z"]
    vectors = embedder.embed(texts)

    assert embedder.name == "ollama:bge-m3"
    assert 0.0 < embedder.confident_cosine < 1.0
    assert embedder.dim == 48
    assert vectors.shape == (5, 48) and vectors.dtype == np.float32
    norms = np.linalg.norm(vectors, axis=1)
    assert np.allclose(norms[[0, 1, 2, 4]], 1.0, atol=1e-6)
    assert norms[3] == 0.0  # an empty text has no words to hash
    assert [len(batch["input"]) for batch in fake_ollama.requests_to("/api/embed")] == [2, 2, 1]


def test_embedder_is_deterministic_and_keeps_order(
    fake_ollama: FakeOllama, make_embedder: MakeEmbedder
) -> None:
    embedder = make_embedder("bge-m3", fake_ollama.url)
    first = embedder.embed(["coffee", "tea"])
    second = embedder.embed(["tea", "coffee"])

    assert np.allclose(first, second[::-1])
    assert not np.allclose(first[0], first[1])


def test_embedder_dim_is_discovered_by_a_probe(
    fake_ollama: FakeOllama, make_embedder: MakeEmbedder
) -> None:
    fake_ollama.embed_dim = 16

    assert make_embedder("bge-m3", fake_ollama.url).dim == 16
    assert len(fake_ollama.requests_to("/api/embed")) == 1


@pytest.mark.parametrize("mode", ["http500", "malformed", "cut"])
def test_embedder_failures_raise_model_unavailable(
    fake_ollama: FakeOllama, mode: str, make_embedder: MakeEmbedder
) -> None:
    fake_ollama.mode = mode

    with pytest.raises(ModelUnavailableError, match="while embedding"):
        make_embedder("bge-m3", fake_ollama.url).embed(["hello"])


def test_embedder_with_the_server_down_raises(make_embedder: MakeEmbedder) -> None:
    with pytest.raises(ModelUnavailableError, match="could not connect"):
        make_embedder("bge-m3", closed_port_url()).embed(["hello"])


# the fake server itself


def test_fake_server_shuts_down_cleanly_even_while_a_handler_sleeps() -> None:
    threads_before = threading.active_count()
    fake = FakeOllama(mode="slow", delay=30.0).start()
    url = fake.url
    with ChatModel(url, request_timeout=0.3) as chat, pytest.raises(ModelUnavailableError):
        list(chat.stream(HELLO))
    started = time.monotonic()
    fake.close()
    fake.close()

    assert time.monotonic() - started < 2.0
    assert threading.active_count() == threads_before
    with ChatModel(url) as chat:
        assert not chat.available().reachable
