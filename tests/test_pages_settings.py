"""The vault & settings page: linking a vault, live sync status, Ollama, embedder, redaction."""
from __future__ import annotations

import json

from tests.pages_support import page, page_env, texts  # noqa: F401  (fixture)


def saved(home) -> dict:
    path = home / "settings.json"
    return json.loads(path.read_text()) if path.exists() else {}


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_empty_store(page_env):
    at = page("settings.py").run()
    assert not at.exception
    assert at.title[0].value == "⚙️ Vault & settings"
    assert at.text_input(key="settings_vault_path").value == ""
    assert at.button(key="settings_sample")
    assert "No vault linked yet" in texts(at.info)
    assert at.text_input(key="settings_ollama_url")
    assert at.button(key="settings_test")
    assert "offline recall mode" in texts(at.warning)  # nothing listens on the configured port
    assert at.checkbox(key="settings_redact_secrets").value is True
    assert at.checkbox(key="settings_redact_emails").value is False
    assert str(page_env) in texts(at.markdown)
    assert metric(at, "Memories") == "0"
    assert metric(at, "Database size").endswith("MB")


def test_invalid_vault_path_is_an_error(page_env, tmp_path):
    at = page("settings.py").run()
    at.text_input(key="settings_vault_path").set_value(str(tmp_path / "nowhere")).run()
    at.button(key="settings_link").click().run()
    assert not at.exception
    assert "does not exist" in texts(at.error)

    a_file = tmp_path / "note.md"
    a_file.write_text("# not a vault")
    at.text_input(key="settings_vault_path").set_value(str(a_file)).run()
    at.button(key="settings_link").click().run()
    assert "is not a folder" in texts(at.error)
    assert "vault_path" not in saved(page_env) or saved(page_env)["vault_path"] is None


def test_link_sample_vault_syncs_and_sync_now(page_env):
    from ui import common

    at = page("settings.py").run()
    at.button(key="settings_sample").click().run()
    assert not at.exception
    assert "Linked" in texts(at.success)
    assert saved(page_env)["vault_path"] == str(common.SAMPLE_VAULT)
    assert saved(page_env).get("embedder") is None  # no choice made (the env's is not baked in)
    assert at.text_input(key="settings_vault_path").value == str(common.SAMPLE_VAULT)

    runner = common.vault_runner()
    assert runner is not None
    assert runner.ready.wait(60), "the first sync did not finish"
    assert runner.error is None
    at.run()
    assert not at.exception
    assert int(metric(at, "Notes")) >= 10
    assert metric(at, "Watching") in ("live (inotify)", "polling")
    assert "chunks" in texts(at.markdown)

    at.button(key="settings_sync_now").click().run()
    assert not at.exception
    assert "unchanged" in texts(at.success)
    assert metric(at, "Memories") != "0"


def test_link_own_vault(page_env, tmp_path):
    from ui import common

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Coffee.md").write_text("# Coffee\nI like my flat white with oat milk.\n")
    at = page("settings.py").run()
    at.text_input(key="settings_vault_path").set_value(str(vault)).run()
    at.button(key="settings_link").click().run()
    assert not at.exception
    runner = common.vault_runner()
    assert runner.ready.wait(60) and runner.error is None
    assert any("flat white" in r.unit.content for r in common.engram().recall("flat white").results)


def test_redaction_toggle_saves_and_applies(page_env):
    from ui import common

    before = common.engram()
    at = page("settings.py").run()
    at.checkbox(key="settings_redact_emails").check()
    at.button(key="FormSubmitter:settings_redaction-Save privacy settings").click().run()
    assert not at.exception
    assert "Privacy settings saved" in texts(at.success)
    assert saved(page_env)["redaction"]["emails"] is True
    assert at.checkbox(key="settings_redact_emails").value is True
    after = common.engram()
    assert after is not before
    assert "[REDACTED" in after.redact("write to ada@example.org")

    at.text_area(key="settings_redact_patterns").set_value("([unclosed")
    at.button(key="FormSubmitter:settings_redaction-Save privacy settings").click().run()
    assert not at.exception
    assert "Not saved" in texts(at.error)


def test_ollama_models_listed_and_saved(page_env, fake_ollama, monkeypatch):
    from ui import common

    monkeypatch.delenv("ENGRAM_OLLAMA_URL")
    (page_env).mkdir(parents=True, exist_ok=True)
    (page_env / "settings.json").write_text(json.dumps({"ollama_url": fake_ollama.url}))
    at = page("settings.py").run()
    assert not at.exception
    assert at.selectbox(key="settings_model").options == ["qwen2.5:7b", "bge-m3:latest"]
    assert "is ready" in texts(at.success)
    old_model = common.chat().model

    at.number_input(key="settings_window").set_value(4096)
    at.button(key="settings_save_model").click().run()
    assert not at.exception
    assert saved(page_env)["context_window"] == 4096
    assert saved(page_env)["ollama_url"] == fake_ollama.url
    assert common.chat().model is not old_model  # the cached chat model was rebuilt

    fake_ollama.models = ["llama3.2:3b"]
    at.button(key="settings_test").click().run()
    assert "not pulled" in texts(at.warning)


def test_embedder_change_offers_reembed(page_env, fake_ollama, monkeypatch):
    from ui import common

    monkeypatch.delenv("ENGRAM_EMBEDDER")
    monkeypatch.setenv("ENGRAM_OLLAMA_URL", fake_ollama.url)
    (page_env).mkdir(parents=True, exist_ok=True)
    (page_env / "settings.json").write_text(json.dumps({"embedder": "hash"}))
    common.engram().remember("I drink an oat latte every morning.")
    at = page("settings.py").run()
    assert not at.exception
    assert not at.selectbox(key="settings_embedder").disabled
    assert any(option.startswith("local-static — ") for option in at.selectbox(key="settings_embedder").options)
    at.selectbox(key="settings_embedder").set_value("ollama:bge-m3:latest").run()
    assert not at.exception
    assert saved(page_env)["embedder"] == "ollama:bge-m3:latest"
    assert "Re-embed" in texts(at.info)
    assert "another embedder" in texts(at.warning)
    assert common.engram().embedder_mismatch

    at.button(key="settings_reembed").click().run()
    assert not at.exception
    assert "Re-embedded" in texts(at.success)
    assert common.engram().embedder_mismatch is None
    assert fake_ollama.requests_to("/api/embed")


def test_with_no_embedder_chosen_the_memory_opens_with_its_own(page_env, monkeypatch):
    """A memory built with another embedder (say `ingest --embedder local-static`) opens with it, unrefused."""
    from memory import Engram
    from memory.embed import HashingEmbedder
    from ui import common

    monkeypatch.delenv("ENGRAM_EMBEDDER")
    built = Engram(page_env, embedder=HashingEmbedder(64))
    built.remember("I drink an oat latte every morning.")
    built.close()
    at = page("settings.py").run()
    assert not at.exception
    assert at.selectbox(key="settings_embedder").value is None  # "as built"
    assert "In use: **hash:64** (64 dimensions)." in texts(at.caption)
    assert "another embedder" not in texts(at.warning)
    assert common.engram().embedder.name == "hash:64" and common.engram().embedder_mismatch is None
    assert "oat latte" in common.engram().recall("what do I drink").results[0].unit.content


def test_reached_through_navigation(page_env):
    from streamlit.testing.v1 import AppTest

    from tests.pages_support import ROOT, TIMEOUT

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("pages/settings.py").run()
    assert not at.exception
    assert at.title[0].value == "⚙️ Vault & settings"
