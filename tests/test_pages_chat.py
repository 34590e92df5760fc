"""The chat page, driven headless with AppTest against a fake Ollama."""
from __future__ import annotations

import re

import pytest

from memory.errors import NotFoundError
from tests.pages_support import page, page_env, texts  # noqa: F401  (fixture)

REPLY = "You drink an oat latte every morning [m:1]. Anything else?"


def seed(text: str = "I drink an oat latte every morning.") -> int:
    from ui import common

    eng = common.engram()
    eng.remember(text, session_id="seed")
    return eng.recall("oat latte").results[0].unit.id


def chat_text(at) -> str:
    return "\n".join(texts(m.markdown) for m in at.chat_message)


def expander_labels(at) -> list[str]:
    return [e.label for e in at.expander]


def test_empty_store_first_screen(page_env):
    at = page("chat.py").run()
    assert not at.exception
    assert at.title[0].value == "🧠 Engram"
    assert "private, local memory" in texts(at.markdown)
    assert at.button(key="chat_link_sample").label == "Link the sample vault"
    assert "offline recall mode" in texts(at.info)  # no Ollama listens on the configured port
    assert len(at.chat_input) == 1
    assert "Opening your memory" not in texts(at.caption)  # said while it opens, gone once open
    assert at.sidebar.button(key="chat_new_session")
    assert not at.sidebar.toggle(key="chat_as_of_on").value


def test_empty_store_link_sample_vault(page_env):
    from ui import common

    at = page("chat.py").run()
    at.button(key="chat_link_sample").click().run()
    assert not at.exception
    assert common.settings().vault_path == str(common.SAMPLE_VAULT)
    assert common.vault_runner() is not None


def test_first_run_summary_and_a_suggested_question_lead_to_an_answer(page_env):
    from ui import common

    at = page("chat.py").run()
    at.button(key="chat_link_sample").click().run()
    assert common.vault_runner().ready.wait(120)
    at.run()
    assert not at.exception
    summary = texts(at.markdown)
    notes = len(list(common.SAMPLE_VAULT.rglob("*.md")))
    assert f"**Your vault is indexed:** {notes} notes · " in summary and " entities." in summary
    dated = re.search(r"(\d+) dated facts?", summary)
    assert dated and int(dated[1]) > 0  # the sample vault's job, move and study lines
    suggested = [b for b in at.button if b.key and b.key.startswith("chat_suggested_")]
    assert 3 <= len(suggested) <= 5, [b.label for b in suggested]
    assert "ollama serve" in texts(at.info) + "".join(c.value for c in at.code)  # the setup steps: once, here
    lisbon = next(b for b in suggested if "Lisbon" in b.label)
    lisbon.click().run()
    assert not at.exception
    reply = chat_text(at)
    assert lisbon.label in reply and "Offline recall mode" in reply and "TP1351" in reply
    assert "ollama serve" not in reply
    assert "obsidian://open?vault=sample_vault&file=Trips%2FLisbon%202026" in texts(at.caption)
    assert not [b for b in at.button if b.key and b.key.startswith("chat_suggested_")]  # asked: the offer is gone


def test_first_questions_make_way_for_a_typed_question(page_env):
    from ui import common

    common.link_vault(common.SAMPLE_VAULT)
    assert common.vault_runner().ready.wait(120)
    at = page("chat.py").run()
    assert [b for b in at.button if b.key and b.key.startswith("chat_suggested_")]
    at.chat_input[0].set_value("When is my Lisbon flight?").run()
    assert not at.exception and "TP1351" in chat_text(at)
    assert "Your vault is indexed" not in texts(at.markdown)
    assert not [b for b in at.button if b.key and b.key.startswith("chat_suggested_")]


def test_empty_store_offline_question(page_env):
    at = page("chat.py").run()
    at.chat_input[0].set_value("What do I drink?").run()
    assert not at.exception
    reply = chat_text(at)
    assert "Offline recall mode" in reply
    assert "Memories used (0)" in expander_labels(at)


def test_reply_streams_from_ollama_with_memories(page_env, fake_ollama, monkeypatch):
    monkeypatch.setenv("ENGRAM_OLLAMA_URL", fake_ollama.url)
    memory_id = seed()
    fake_ollama.reply = REPLY.replace("[m:1]", f"[m:{memory_id}]")
    at = page("chat.py").run()
    assert not at.exception
    assert not [i for i in at.info if "offline" in i.value]  # the model answers: no offline notice
    assert "private, local memory" not in texts(at.markdown)

    at.chat_input[0].set_value("What do I drink in the morning?").run()
    assert not at.exception
    assert "oat latte every morning" in chat_text(at)
    assert "Offline recall mode" not in chat_text(at)
    prompts = [m["content"] for body in fake_ollama.requests_to("/api/chat") for m in body["messages"]]
    assert any("oat latte" in p and f"m:{memory_id}" in p for p in prompts)  # recalled into the prompt
    labels = [label for label in expander_labels(at) if label.startswith("Memories used")]
    assert labels and labels[0] != "Memories used (0)"
    assert f"**m:{memory_id}**" in texts(at.markdown)
    assert "seed" in texts(at.caption)  # the source: chat session "seed"

    # the reply is history now; the session shows in the sidebar
    at.run()
    assert "What do I drink in the morning?" in chat_text(at)
    assert any("What do I drink" in b.label for b in at.sidebar.button)


def test_feedback_and_forget_buttons(page_env, fake_ollama, monkeypatch):
    from ui import common

    monkeypatch.setenv("ENGRAM_OLLAMA_URL", fake_ollama.url)
    memory_id = seed()
    fake_ollama.reply = "Oat latte."
    at = page("chat.py").run()
    at.chat_input[0].set_value("What do I drink in the morning?").run()
    before = common.engram().store.memory(memory_id).relevance

    at.button(key=f"chat_used_{memory_id}").click().run()
    assert not at.exception
    assert "marked as helpful" in texts(at.success)
    assert common.engram().store.memory(memory_id).relevance > before

    at.button(key=f"chat_wrong_{memory_id}").click().run()
    assert "marked as wrong" in texts(at.success)

    at.button(key=f"chat_forget_{memory_id}").click().run()
    assert "for good" in texts(at.warning)
    assert common.engram().store.memory(memory_id).id == memory_id  # not yet (marked wrong, its turn now ranks first)
    at.button(key=f"chat_forget_yes_{memory_id}").click().run()
    assert not at.exception
    assert f"Forgotten m:{memory_id}" in texts(at.success)
    assert memory_id not in {r.unit.id for r in common.engram().recall("oat latte").results}
    with pytest.raises(NotFoundError):
        common.engram().store.memory(memory_id)
    assert not [b for b in at.button if b.key == f"chat_used_{memory_id}"]


def test_offline_mode_when_ollama_is_down(page_env):
    seed()
    at = page("chat.py").run()
    assert "offline recall mode" in texts(at.info)
    at.chat_input[0].set_value("What do I drink in the morning?").run()
    assert not at.exception
    reply = chat_text(at)
    assert "Offline recall mode" in reply
    assert "oat latte" in reply


def test_new_session_and_as_of(page_env):
    seed()
    at = page("chat.py").run()
    first = at.session_state.chat_session
    at.chat_input[0].set_value("What do I drink?").run()
    at.sidebar.button(key="chat_new_session").click().run()
    assert at.session_state.chat_session != first
    assert "What do I drink?" not in chat_text(at)
    # resume the earlier session from the sidebar
    at.sidebar.button(key=f"chat_session_{first}").click().run()
    assert at.session_state.chat_session == first
    assert "What do I drink?" in chat_text(at)

    at.sidebar.toggle(key="chat_as_of_on").set_value(True).run()
    assert not at.exception
    assert at.sidebar.date_input(key="chat_as_of_day")
    assert "Chatting with the past" in texts(at.warning)


def test_app_opens_on_chat(page_env):
    from streamlit.testing.v1 import AppTest

    from tests.pages_support import ROOT, TIMEOUT

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception
    assert at.title[0].value == "🧠 Engram"
    assert len(at.chat_input) == 1


def test_a_question_asked_before_the_memory_opens_is_kept_and_answered(page_env):
    """The input box is drawn before the memory opens: a question that arrives while it cannot open waits,
    said so, and is answered on the run where it can (here: after restoring a damaged store)."""
    from tests.test_pages_recovery import damaged_with_a_backup

    damaged_with_a_backup(page_env)
    at = page("chat.py").run()
    assert "damaged" in texts(at.error) and len(at.chat_input) == 1
    assert "Opening your memory" not in texts(at.caption)  # the error says why it is not
    at.chat_input[0].set_value("Where does my sister Mara live?").run()
    assert not at.exception
    assert "kept and answered here once your memory opens" in texts(at.caption)
    assert not at.chat_message
    at.run()  # still damaged: still kept
    assert "kept and answered" in texts(at.caption)
    at.button(key="restore_last_backup").click().run()
    assert not at.exception
    assert "Where does my sister Mara live?" in chat_text(at)
    assert "Lisbon" in chat_text(at)  # the offline reply names the memory it found
    at.run()
    assert chat_text(at).count("Where does my sister Mara live?") == 1  # answered once, then history


FIRST_PAGE = """
import profile  # the standard library's, before AppTest puts pages/ (which has a profile.py) on sys.path
import sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=60).run()
heavy = ("pandas", "memory.chat", "memory.extract", "memory.recall", "memory.writer", "vault_sync.runner", "ollama",
         "httpx")
print(" ".join(name for name in heavy if name in sys.modules) or "-", "EXCEPTION" if at.exception else "ok")
at.chat_input[0].set_value("Anything about my dentist?").run()
print("ANSWERED" if any("Anything about my dentist?" in m.markdown[0].value for m in at.chat_message) else "LOST")
"""


def test_the_first_page_loads_no_extraction_recall_or_chat_until_asked(page_env):
    """A new memory's first page needs the store, not the modules that write, recall or chat (they compile
    hundreds of patterns; pandas comes with DuckDB's bound parameters): they load with the first question."""
    import os
    import subprocess
    import sys

    from tests.pages_support import ROOT

    out = subprocess.run([sys.executable, "-c", FIRST_PAGE, str(ROOT / "pages" / "chat.py")], cwd=ROOT,
                         env=os.environ.copy(), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    first, answered = out.stdout.splitlines()[-2:]
    assert first == "- ok"
    assert answered == "ANSWERED"
