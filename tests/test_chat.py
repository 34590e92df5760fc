"""Chat turns through the real llama-index Ollama client against a fake Ollama on 127.0.0.1."""
import json
import re

import pytest

from memory.chat import Chat, OFFLINE_HEADER
from memory.context import ExecutionContext
from memory.llm import ChatModel
from memory.profile import TAG_SENTENCES
from tests.helpers import at, open_engram


@pytest.fixture
def eng():
    engram = open_engram()
    yield engram
    engram.close()


def chat_with(eng, server, **kw) -> Chat:
    model = ChatModel(server.url, "qwen2.5:7b", context_window=kw.pop("window", 4096),
                      request_timeout=kw.pop("timeout", 5.0))
    return Chat(eng, model, context_window=model.context_window, llm_extraction=False, **kw)


def stored_texts(eng) -> list[str]:
    rows = eng.store.query("SELECT content FROM memories UNION ALL SELECT text FROM events "
                           "UNION ALL SELECT coalesce(summary, '') FROM sessions")
    return [r[0] or "" for r in rows]


def test_payload_carries_memories_anchor_and_execution_block(eng, fake_ollama):
    eng.remember("My name is Ada.", at=at("2026-01-02T09:00:00"))
    eng.remember("remember that the staging database is db-stage-07", at=at("2026-01-03T09:00:00"))
    fake_ollama.reply = "The staging database is db-stage-07 [m:ID]."
    chat = chat_with(eng, fake_ollama, window=6000)
    prepared = chat.turn("which staging database do we use?", session_id="s1",
                         execution=ExecutionContext(current_tool="deploy", tool_args={"env": "staging"}))
    chunks = list(prepared.stream())
    assert len(chunks) >= 1 and "".join(chunks).startswith("The staging database")
    payload = fake_ollama.last("/api/chat")
    assert payload["options"]["num_ctx"] == 6000
    text = "\n".join(m["content"] for m in payload["messages"])
    assert "db-stage-07" in text and "User's name is Ada" in text
    system = payload["messages"][0]["content"]
    block = re.search(r"<execution_context>(.*?)</execution_context>", system).group(1)
    assert json.loads(block)["current_tool"] == "deploy"
    assert payload["messages"][-1]["content"] == "which staging database do we use?"
    assert not prepared.outcome.offline


def test_streaming_arrives_in_chunks_and_is_stored(eng, fake_ollama):
    fake_ollama.reply = ["Hello. ", "Nice to ", "see you again. ", "Bye."]
    chat = chat_with(eng, fake_ollama)
    prepared = chat.turn("hi there", session_id="s1")
    chunks = list(prepared.stream())
    assert len(chunks) >= 2 and "".join(chunks) == "Hello. Nice to see you again. Bye."
    turns = chat.session_turns("s1")
    assert [t.role for t in turns] == ["user", "assistant"]


@pytest.mark.parametrize("mode", ["down", "slow", "http500", "cut", "malformed"])
def test_model_failures_end_in_offline_recall_mode(eng, fake_ollama, mode):
    eng.remember("I drink Americano.", at=at("2026-03-02T08:00:00"))
    eng.remember("I switched to oat latte.", at=at("2026-05-03T08:00:00"))
    chat = chat_with(eng, fake_ollama, timeout=1.0)
    if mode == "down":
        fake_ollama.close()
    else:
        fake_ollama.mode = mode
        fake_ollama.delay = 3.0
    prepared = chat.turn("what do I drink?", session_id="s1")
    reply = "".join(prepared.stream())
    assert prepared.outcome.offline and OFFLINE_HEADER in reply
    assert "ollama serve" not in reply  # the setup steps are shown once by the app or the CLI, not per reply
    header = next(line for line in reply.splitlines() if OFFLINE_HEADER in line)
    assert header.endswith(").") and ".)." not in header  # "(… unreachable)." ends once
    assert reply.index("oat latte") < reply.index("Americano")
    assert "history (2026-03-02 to 2026-05-03, then m:" in reply.split("Americano")[0].rsplit("\n", 1)[-1] + reply.split("Americano")[1].split("\n")[0]
    user_turns = [t for t in chat.session_turns("s1") if t.role == "user"]
    assert user_turns and user_turns[-1].content == "what do I drink?"


def test_knowledge_update_through_chat_in_english_and_chinese(eng):
    chat = Chat(eng, None)
    chat.ask("I drink Americano.", session_id="a")
    chat.ask("Actually I switched to oat latte.", session_id="a")
    outcome = chat.ask("what do I drink?", session_id="a")
    first = [r for r in outcome.recall.results if r.unit.type != "chat_turn"][0]
    assert "latte" in first.unit.content and first.valid
    assert any("Americano" in r.unit.content and not r.valid for r in outcome.recall.results)
    chat.ask("我喝美式。", session_id="b")
    chat.ask("我改喝拿铁了。", session_id="b")
    outcome = chat.ask("我喝什么？", session_id="b")
    assert "拿铁" in outcome.reply.split("美式")[0]


def test_secrets_said_in_chat_are_never_stored_or_shown(eng, fake_ollama):
    key = "sk-proj-AbCdEf0123456789GhIjKlMnOpQrStUvWx"
    card = "4111 1111 1111 1111"
    fake_ollama.reply = f"Got it: I will not keep {card}. Noted the key {key}. Anything else?"
    chat = chat_with(eng, fake_ollama)
    outcome = chat.ask(f"My OpenAI key is {key} and my card is {card}, remember that I bank with Nordea.",
                       session_id="s")
    assert key not in outcome.reply and card not in outcome.reply
    for text in stored_texts(eng):
        assert key not in text and card not in text and "4111111111111111" not in text
    assert any("Nordea" in text for text in stored_texts(eng))


def test_sixty_turn_conversation_keeps_key_facts_within_budget(eng, fake_ollama):
    facts = {
        "My name is Ada Lovelace.": "Ada Lovelace",
        "I drink oat latte.": "oat latte",
        "I live in Lisbon.": "Lisbon",
        "remember that my order number is ORD-2026-0042": "ORD-2026-0042",
        "I work at Calder Labs.": "Calder Labs",
    }
    fake_ollama.reply = "Sure, happy to chat about that."
    chat = chat_with(eng, fake_ollama, window=3072)
    small_talk = ["The weather is nice today.", "I watched a film about whales.", "Lunch was a sandwich.",
                  "My cat sleeps all day.", "Traffic was slow this morning.", "I like the sound of rain."]
    for n in range(60):
        text = list(facts)[n] if n < len(facts) else small_talk[n % len(small_talk)] + f" (turn {n + 1})"
        prepared = chat.turn(text, session_id="long")
        list(prepared.stream())
        if n + 1 in (30, 60):
            prompt = prepared.outcome.prompt
            assert prompt.tokens <= prompt.budget
            text_sent = "\n".join(m["content"] for m in fake_ollama.last("/api/chat")["messages"])
            for needle in facts.values():
                assert needle in text_sent, f"turn {n + 1} lost {needle}"


def test_wrong_lowers_the_memories_the_answer_cited(eng, fake_ollama):
    eng.remember("I live in Porto.", at=at("2026-01-01T00:00:00"))
    memory_id = eng.store.open_slot_holders("user", "home_location")[0].id
    fake_ollama.reply = f"You live in Porto [m:{memory_id}]."
    chat = chat_with(eng, fake_ollama)
    chat.ask("where do I live?", session_id="s")
    assert eng.store.memory(memory_id).relevance == pytest.approx(1.1)
    fake_ollama.reply = "Sorry about that. Where do you live now?"
    chat.ask("that's wrong", session_id="s")
    assert eng.store.memory(memory_id).relevance == pytest.approx(0.8)
    health = eng.health()
    assert health["hit_rate"] is not None


def test_long_task_progress_supersedes(eng):
    chat = Chat(eng, None)
    first = chat.record_progress("s", "resize photos", 3, 10, "IMG_0003.jpg")
    second = chat.record_progress("s", "resize photos", 4, 10, "IMG_0004.jpg")
    assert eng.store.memory(first).superseded_by == second
    result = eng.recall("how far are we with resize photos")
    assert "4/10" in result.results[0].unit.content


def test_profile_tags_from_scripted_sessions_and_pins(eng):
    chat = Chat(eng, None)
    for n, text in enumerate(["Just give me the command to restart nginx.", "Do it: delete the temp files.",
                              "Give me the steps, short.", "Run the backup now.", "Just do the deploy."]):
        chat.ask(text, session_id=f"exec{n // 3}")
    tags = {t.name: t for t in chat.profile_tags()}
    assert "executive" in tags and tags["executive"].evidence
    eng.set_profile_choice("exploratory", pinned=True)
    tags = {t.name: t for t in chat.profile_tags()}
    assert tags["exploratory"].pinned
    prefix = chat.profile_prefix()
    assert prefix.startswith(TAG_SENTENCES["exploratory"]) and TAG_SENTENCES["executive"] in prefix
