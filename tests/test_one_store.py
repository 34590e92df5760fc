"""One store, two front ends: while the app or `watch` holds the DuckDB file, CLI commands run through it.

Real processes throughout: `streamlit run app.py` driven by Debian's chromium, `python -m memory watch`,
and CLI commands in subprocesses against the same data folder. No model: chat answers in offline mode.
"""
from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from memory import Engram
from memory.embed import make_embedder
from memory.forward import LOCK_WAIT_S

from tests.browser_support import CHROMIUM_ARGS, ROOT, SCREENSHOTS, chromium_path, settle, streamlit_app

TIMEOUT_MS = 60_000
LOCKER = "My locker code word is Zanzibar"


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "OLLAMA_"))}
    env.update(ENGRAM_HOME=str(tmp_path / "home"), ENGRAM_EMBEDDER="hash", HF_HUB_OFFLINE="1",
               ENGRAM_OLLAMA_URL="http://127.0.0.1:9",  # nothing listens there: offline recall mode
               PYTHONFAULTHANDLER="1")  # a holder that will not stop is aborted: its threads' stacks say where it hung
    return env


@pytest.fixture
def vault(tmp_path) -> Path:
    copy = tmp_path / "vault"
    shutil.copytree(ROOT / "sample_vault", copy)
    return copy


def cli(env: dict, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memory", *args], cwd=cwd, env=dict(env, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=300)


def holder_file(env: dict) -> Path:
    return Path(env["ENGRAM_HOME"]) / "service.json"


def wait_for_holder(env: dict, kind: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            data = json.loads(holder_file(env).read_text())
            if data["kind"] == kind:
                return data
        except (OSError, ValueError):
            pass
        time.sleep(0.2)
    raise AssertionError(f"no {kind} service in {holder_file(env)} after {timeout} s")


def start_watch(env: dict, vault: Path, *, ctrl_c: bool = True) -> subprocess.Popen:
    """`watch` as run in a terminal, where Ctrl+C (SIGINT) stops it; with `ctrl_c` False, as started in the
    background by a script, which leaves SIGINT ignored (so does a test run launched that way, without this)."""
    sigint = signal.SIG_DFL if ctrl_c else signal.SIG_IGN
    return subprocess.Popen([sys.executable, "-m", "memory", "watch", str(vault)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, sigint))


def indexed(watch: subprocess.Popen) -> None:
    """Wait for `watch` to finish its first sync (it serves CLI commands from the start, before that too)."""
    line = watch.stdout.readline()
    assert line.startswith("indexed "), line + watch.stderr.read() if watch.poll() is not None else line


def stop(process: subprocess.Popen) -> tuple[str, str]:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
    try:
        return process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        return hung(process)


def hung(process: subprocess.Popen) -> tuple[str, str]:
    """Stop a process that does not stop: SIGABRT, so that (with PYTHONFAULTHANDLER) every thread's stack is
    printed to its stderr, which the failing assertion shows."""
    process.send_signal(signal.SIGABRT)
    try:
        return process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.communicate(timeout=30)


def post(service: dict, path: str = "/v1/run", body: bytes | None = None, headers: dict | None = None,
         method: str = "POST") -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", service["port"], timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def listening_on_loopback_only(port: int) -> bool:
    """Every listening socket on `port` is bound to 127.0.0.1 (read from /proc/net/tcp{,6})."""
    local = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            address, port_hex = fields[1].rsplit(":", 1)
            if int(port_hex, 16) == port and fields[3] == "0A":  # LISTEN
                local.append(address)
    return local == ["0100007F"]


def recall_json(env: dict, query: str) -> dict:
    done = cli(env, "recall", query, "--json", "--k", "5")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser) -> Page:
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    expect.set_options(timeout=TIMEOUT_MS)
    return page


def ask(page: Page, question: str):
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill(question)
    box.press("Enter")
    return (page.get_by_test_id("stChatMessage").filter(has=page.get_by_test_id("stChatMessageAvatarAssistant"))
            .last.get_by_test_id("stChatMessageContent"))


# ---------------------------------------------------------------------------------------------- the app
def test_cli_commands_run_through_the_open_app_and_it_sees_their_writes(env, browser, tmp_path):
    with Engram(env["ENGRAM_HOME"], embedder=make_embedder("hash")) as eng:  # a first turn, before the app
        eng.remember("My dentist is Dr. Okafor on Rua Augusta")
    with streamlit_app(env, tmp_path / "streamlit.log") as url:
        page = new_page(browser)
        page.goto(url)  # the first page opens the store in the app's process, and its service
        expect(page.get_by_test_id("stChatInputTextArea")).to_be_visible()
        service = wait_for_holder(env, "app")
        assert holder_file(env).stat().st_mode & 0o777 == 0o600
        assert listening_on_loopback_only(service["port"])

        done = cli(env, "remember", LOCKER)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("remembered: ") and "the Engram app" in done.stderr
        found = recall_json(env, "what is my locker code word")
        assert "Zanzibar" in found["results"][0]["content"]
        health = cli(env, "health", "--json")
        assert health.returncode == 0 and json.loads(health.stdout)["chat_turns"] == 2
        bad = cli(env, "recall", "   ")  # the same message and exit code as a local run
        assert bad.returncode == 2 and "the query is empty" in bad.stderr
        export = cli(env, "export", "out", cwd=tmp_path)  # a relative path means the caller's folder
        assert export.returncode == 0, export.stderr
        assert "Zanzibar" in (tmp_path / "out" / "memories.jsonl").read_text()

        reply = ask(page, "What is my locker code word?")  # the app's own Engram has it: no restart
        expect(reply).to_contain_text("Zanzibar")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "one-store-app.png"))

        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {service['token']}",
                   "Host": f"127.0.0.1:{service['port']}"}
        body = json.dumps({"argv": ["health", "--json"], "cwd": str(tmp_path), "home": env["ENGRAM_HOME"]}).encode()
        assert post(service, body=body, headers={"Content-Type": "application/json"})[0] == 401
        assert post(service, body=body, headers=dict(headers, Authorization="Bearer " + "x" * 43))[0] == 403
        assert post(service, body=body, headers=dict(headers, **{"Content-Type": "text/plain"}))[0] == 415
        assert post(service, body=body, headers=dict(headers, Origin=url))[0] == 403
        assert post(service, body=body, headers=dict(headers, Host="engram.example"))[0] == 403
        assert post(service, method="GET")[0] == 405
        assert post(service, "/v1/release", b"{}", headers)[0] == 409  # the app does not hand over
        status, answer = post(service, body=body, headers=headers)
        frames = [json.loads(line) for line in answer.decode().splitlines()]
        assert status == 200 and frames[-1] == {"exit": 0}
        assert json.loads("".join(f.get("stdout", "") for f in frames))["chat_turns"] >= 3
    assert not holder_file(env).exists()  # a clean exit takes the file with it
    local = cli(env, "recall", "locker code word", "--json")  # the store is free again: this runs here
    assert local.returncode == 0 and "holds the memory store" not in local.stderr
    assert any("Zanzibar" in r["content"] for r in json.loads(local.stdout)["results"])


# --------------------------------------------------------------------------------------------- watch
def test_watch_serves_cli_commands_and_no_write_is_lost(env, vault, tmp_path):
    watch = start_watch(env, vault)
    try:
        wait_for_holder(env, "watch")
        indexed(watch)
        found = recall_json(env, "Which city do I live in?")
        assert any("Utrecht" in r["content"] for r in found["results"])

        facts = [f"My gym locker number {n} holds the blue towel {n}" for n in range(6)]
        writers = [subprocess.Popen([sys.executable, "-m", "memory", "remember", fact, "--id", f"w{n}"], cwd=ROOT,
                                    env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                   for n, fact in enumerate(facts)]
        for writer in writers:
            out, err = writer.communicate(timeout=300)
            assert writer.returncode == 0, err
        batch = tmp_path / "queries.jsonl"
        batch.write_text("".join(json.dumps({"query": f"blue towel {n}", "k": 20}) + "\n" for n in range(6)))
        done = cli(env, "recall", "--batch", str(batch))
        assert done.returncode == 0, done.stderr
        for n, line in enumerate(done.stdout.splitlines()):
            assert any(f"towel {n}" in r["content"] for r in json.loads(line)["results"]), n
        again = cli(env, "remember", facts[0], "--id", "w0")  # the same message id: stored once
        assert again.returncode == 0 and "already remembered" in again.stdout

        (tmp_path / "chat.jsonl").write_text("".join(json.dumps(m) + "\n" for m in [
            {"session_id": "s1", "role": "user", "content": "My sister Ines lives in Porto", "at": "2026-03-01"},
            {"session_id": "s1", "role": "assistant", "content": "Noted.", "at": "2026-03-01T00:01:00"}]))
        imported = cli(env, "import-chat", "chat.jsonl", "--json", cwd=tmp_path)  # a path of the caller's folder
        assert imported.returncode == 0 and json.loads(imported.stdout)["turns"] == 2, imported.stderr
        answer = cli(env, "ask", "Where does my sister live?")  # offline recall mode, streamed back
        assert answer.returncode == 0 and "Porto" in answer.stdout, answer.stdout + answer.stderr
        served = cli(env, "recall", "Which city do I live in?")

        ingest = cli(env, "ingest", str(vault))
        assert ingest.returncode == 1 and "already" in ingest.stderr
        reembed = cli(env, "reembed")
        assert reembed.returncode == 1 and "Ctrl+C" in reembed.stderr and str(watch.pid) in reembed.stderr
        check = cli(env, "check")
        assert check.returncode == 0 and check.stdout.startswith("consistent"), check.stdout + check.stderr
    finally:
        out, err = stop(watch)
    assert watch.returncode == 0, err
    assert not holder_file(env).exists()
    health = json.loads(cli(env, "health", "--json").stdout)  # local again, nothing lost
    assert health["chat_turns"] == 6 + 2 + 1  # remembered, imported, the question asked (an offline reply is not)
    local = cli(env, "recall", "Which city do I live in?")
    assert "holds the memory store" in served.stderr and "holds the memory store" not in local.stderr
    assert served.stdout.splitlines()[1:] == local.stdout.splitlines()[1:]  # the same results, as printed


def test_kill_stops_watch_as_ctrl_c_does(env, tmp_path):
    (tmp_path / "empty-vault").mkdir()
    watch = start_watch(env, tmp_path / "empty-vault")
    wait_for_holder(env, "watch")
    indexed(watch)
    watch.terminate()  # `kill PID`, as the refusal messages suggest
    out, err = watch.communicate(timeout=60)
    assert watch.returncode == 0, err
    assert not holder_file(env).exists()


def test_a_file_left_by_a_killed_holder_is_ignored(env, vault):
    watch = start_watch(env, vault)
    try:
        wait_for_holder(env, "watch")
    finally:
        watch.kill()
        watch.communicate(timeout=30)
    assert holder_file(env).exists()  # kill -9: no chance to clean up
    done = cli(env, "remember", LOCKER)
    assert done.returncode == 0 and "holds the memory store" not in done.stderr, done.stderr
    assert f"pid {watch.pid}), which is no longer running" in done.stderr and "runs here" in done.stderr
    assert not holder_file(env).exists()  # the command served while it ran, then took its own file away
    assert "Zanzibar" in recall_json(env, "locker code word")["results"][0]["content"]


def test_only_the_token_opens_the_service_and_the_holder_keeps_the_store_to_itself(env, tmp_path):
    (tmp_path / "empty-vault").mkdir()
    watch = start_watch(env, tmp_path / "empty-vault")
    try:
        service = wait_for_holder(env, "watch")
        indexed(watch)
        assert holder_file(env).stat().st_mode & 0o777 == 0o600
        assert listening_on_loopback_only(service["port"])
        assert cli(env, "backup").returncode == 0  # taken by `watch`: the file is read while DuckDB has it open
        database = Path(env["ENGRAM_HOME"]) / "engram.duckdb"
        second = subprocess.run([sys.executable, "-c", f"import duckdb; duckdb.connect({str(database)!r})"],
                                env=env, capture_output=True, text=True, timeout=60)
        assert second.returncode != 0 and "lock" in second.stderr.lower(), second.stderr  # no second writer

        headers = {"Content-Type": "application/json", "Host": f"127.0.0.1:{service['port']}"}
        body = json.dumps({"argv": ["remember", "My PIN is 4711"], "cwd": str(tmp_path),
                           "home": env["ENGRAM_HOME"]}).encode()
        assert post(service, body=body, headers=headers)[0] == 401
        assert post(service, body=body, headers=dict(headers, Authorization="Bearer " + "x" * 43))[0] == 403
        assert post(service, body=body, headers=dict(headers, Authorization=service["token"]))[0] == 401

        forged = dict(service, token="not-" + service["token"])
        holder_file(env).write_text(json.dumps(forged))  # the same private file, another token
        refused = cli(env, "remember", "My PIN is 4711")
        assert refused.returncode == 1 and "refused the command (403: wrong token)" in refused.stderr, refused.stderr
        holder_file(env).write_text(json.dumps(service))
        assert "4711" not in cli(env, "recall", "PIN", "--json").stdout  # nothing was written
    finally:
        out, err = stop(watch)
    assert watch.returncode == 0, err


HOLD_TWICE = """
import sys, time
from memory import Engram
from memory.embed import make_embedder
first = Engram(sys.argv[1], embedder=make_embedder("hash"))
second = Engram(sys.argv[1], embedder=make_embedder("hash"), allow_embedder_change=True)  # as the app reopens it
print("open", flush=True)
time.sleep(120)
"""


def test_the_store_stays_locked_when_its_process_opens_it_again(env, tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLD_TWICE, env["ENGRAM_HOME"]], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "open\n", holder.stderr.read()
        database = Path(env["ENGRAM_HOME"]) / "engram.duckdb"
        second = subprocess.run([sys.executable, "-c", f"import duckdb; duckdb.connect({str(database)!r})"],
                                env=env, capture_output=True, text=True, timeout=60)
        assert second.returncode != 0 and "lock" in second.stderr.lower(), second.stderr
    finally:
        holder.kill()
        holder.communicate(timeout=30)


def test_a_holder_whose_service_does_not_answer_is_named(env, tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLD_TWICE, env["ENGRAM_HOME"]], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "open\n", holder.stderr.read()
        with socket.socket() as closed:  # a port nothing listens on once this block ends
            closed.bind(("127.0.0.1", 0))
            port = closed.getsockname()[1]
        with os.fdopen(os.open(holder_file(env), os.O_WRONLY | os.O_CREAT, 0o600), "w") as out:
            json.dump({"pid": holder.pid, "port": port, "token": "t", "kind": "app", "label": "the Engram app",
                       "started_at": "2026-01-01T00:00:00+00:00"}, out)
        started = time.monotonic()
        done = cli(env, "recall", "anything")
        assert done.returncode == 1, done.stderr
        assert (f"the Engram app (pid {holder.pid}) holds the memory store, but its service on 127.0.0.1:{port} "
                f"does not answer") in done.stderr
        assert time.monotonic() - started < LOCK_WAIT_S  # a port that refuses will not answer: no long wait
    finally:
        holder.kill()
        holder.communicate(timeout=30)


def test_a_watch_started_in_the_background_hands_the_store_over_when_asked(env, tmp_path):
    """A script's `python -m memory watch VAULT &` ignores Ctrl+C; asked to hand over, it still stops."""
    from memory.forward import ask_to_release
    from memory.service import find_holder

    (tmp_path / "empty-vault").mkdir()
    watch = start_watch(env, tmp_path / "empty-vault", ctrl_c=False)
    try:
        wait_for_holder(env, "watch")
        indexed(watch)
        ask_to_release(find_holder(env["ENGRAM_HOME"]))
        out, err = watch.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        out, err = hung(watch)
    finally:
        if watch.poll() is None:  # the test failed before the hand-over: leave no watch behind
            hung(watch)
    assert watch.returncode == 0 and "hands it over" in err, err
    assert not holder_file(env).exists()


def test_a_watch_that_is_alive_but_does_not_answer_is_not_taken_for_gone(monkeypatch):
    """Take over asks `watch` to stop; a slow answer must not read as "it has gone, the store is free"."""
    from memory import forward
    from memory.errors import EngramError
    from memory.service import Holder

    monkeypatch.setattr(forward, "RELEASE_WAIT_S", 1.0)
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    alive = Holder(pid=os.getpid(), port=port, token="t", kind="watch", label="`watch`", started_at="")
    with pytest.raises(EngramError, match=rf"`watch` \(pid {os.getpid()}\) did not answer the request"):
        forward.ask_to_release(alive)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    forward.ask_to_release(Holder(pid=int(gone.stdout), port=port, token="t", kind="watch", label="`watch`",
                                  started_at=""))  # a holder that has ended: nothing to ask, no error


def test_the_app_opened_while_watch_runs_searches_through_it_and_can_take_over(env, vault, browser, tmp_path):
    watch = start_watch(env, vault)
    try:
        wait_for_holder(env, "watch")
        assert cli(env, "remember", LOCKER).returncode == 0
        with streamlit_app(env, tmp_path / "streamlit.log") as url:
            page = new_page(browser)
            page.goto(url)
            banner = page.get_by_test_id("stAlert").filter(has_text="open in another Engram process")
            expect(banner).to_contain_text(f"pid {watch.pid}")
            expect(banner).to_contain_text("Ctrl+C")
            page.get_by_label("Search your memory").fill("what is my locker code word")
            page.get_by_label("Search your memory").press("Enter")
            expect(page.get_by_text("locker code word is Zanzibar").first).to_be_visible()
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / "one-store-held-by-watch.png"))

            settle(page)  # a click while the script still runs may be lost in its rerun
            page.get_by_role("button", name="Take over here").click()
            try:
                out, err = watch.communicate(timeout=90)
            except subprocess.TimeoutExpired:
                shown = page.locator("body").inner_text()[-1500:]
                pytest.fail("`watch` still runs 90 s after Take over here; the page shows:\n" + shown
                            + "\nthe app's log ends:\n" + (tmp_path / "streamlit.log").read_text()[-1500:]
                            + "\nwatch's stacks:\n" + hung(watch)[1][-6000:])
            assert watch.returncode == 0 and "hands it over" in err
            expect(page.get_by_test_id("stChatInputTextArea")).to_be_visible()
            assert wait_for_holder(env, "app")["pid"] != watch.pid
            settings = json.loads((Path(env["ENGRAM_HOME"]) / "settings.json").read_text())
            assert Path(settings["vault_path"]) == vault.resolve()  # the app follows the vault now
            (vault / "Parking.md").write_text("# Parking\n\nMy car is parked on level 4, spot 27.\n")
            deadline = time.monotonic() + 60
            while not any("spot 27" in r["content"] for r in recall_json(env, "where is my car parked")["results"]):
                assert time.monotonic() < deadline, "the app did not pick up the new note"
                time.sleep(1)
            expect(ask(page, "What is my locker code word?")).to_contain_text("Zanzibar")
    finally:
        stop(watch)
