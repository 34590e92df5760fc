"""Real-browser test support: a seeded Engram home, the app under `streamlit run`, Debian's chromium."""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memory import Engram
from memory.clock import parse_when
from memory.embed import make_embedder

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "test-output" / "browser"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-gpu",
    "--disable-quic",
]
STARTUP_SECONDS = 90

# Seeded before the app opens the store (DuckDB lets one process write at a time).
# Dates are relative to today so the "knowledge update" is always in the past.
TODAY = datetime.now(UTC).date()  # the app's days are UTC days
AMERICANO_DAY = TODAY - timedelta(days=270)
LATTE_DAY = TODAY - timedelta(days=120)
BETWEEN_DAY = TODAY - timedelta(days=195)  # Americano valid, oat latte not yet
SEED = [
    ("I drink Americano", AMERICANO_DAY),
    ("I switched to oat latte", LATTE_DAY),
    ("My dentist is Dr. Okafor on Rua Augusta", TODAY - timedelta(days=300)),
]
LISBON_REPLY = "Your Lisbon flight is TP1351 on 12 May 2026"
# (address, title) of every page of the app, in the navigation's order
PAGES = [("", "Chat"), ("graph", "Memory graph"), ("time_travel", "Time travel"), ("freshness", "Freshness"),
         ("profile", "Profile"), ("memories", "Memories"), ("settings", "Vault & settings")]

_MEMORY = re.compile(r"^\[m:(\d+)\][^\n]*\n((?:>[^\n]*\n?)*)", re.MULTILINE)


def answer(messages: list[dict]) -> str:
    """The fake model's reply: the Lisbon flight with a citation when a recalled memory holds it,
    else a citation of the first recalled memory."""
    last = messages[-1]["content"] if messages else ""
    if last.startswith("Extract durable facts"):
        return "[]"
    prompt = "\n".join(m.get("content") or "" for m in messages)
    recalled = [(int(i), " ".join(line.lstrip("> ") for line in body.splitlines()))
                for i, body in _MEMORY.findall(prompt)]
    for memory_id, text in recalled:
        if "TP1351" in text:
            return f"{LISBON_REPLY} [m:{memory_id}]. It leaves Amsterdam at 06:55. Have a good trip!"
    if recalled:  # cite without quoting: the stored reply must not repeat a memory a test forgets
        return f"You told me about that before [m:{recalled[0][0]}]. Ask me for the details."
    return "I could not find that in your memories."


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


closed_port = free_port  # bound, then released: nothing listens there (no Ollama)


def seed_home(home: Path) -> None:
    """Write the knowledge update (and a memory to forget) with the hashing embedder, as
    `python -m memory remember TEXT --at DAY --embedder hash` does, then close the store for the app.
    (In this process: three CLI processes cost ~20 s of CPU and test nothing the CLI tests do not.)"""
    engram = Engram(home, embedder=make_embedder("hash"))
    try:
        for text, day in SEED:
            engram.remember(text, at=parse_when(day.isoformat(), what="--at date"))
    finally:
        engram.close()


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.status == 200 and response.read().strip() == b"ok"
    except OSError:
        return False


@contextmanager
def streamlit_app(env: dict[str, str], log: Path) -> Iterator[str]:
    """`streamlit run app.py` on a free port; yields its URL once /_stcore/health answers ok."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
               "--server.address", "127.0.0.1", "--server.headless", "true",
               "--browser.gatherUsageStats", "false", "--client.toolbarMode", "minimal"]
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + STARTUP_SECONDS
            while not _healthy(url):
                if process.poll() is not None:
                    raise RuntimeError(f"streamlit exited with {process.returncode}:\n{log.read_text()[-3000:]}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"streamlit did not answer {url}/_stcore/health within "
                                       f"{STARTUP_SECONDS} s:\n{log.read_text()[-3000:]}")
                time.sleep(0.3)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=15)


def chromium_path() -> str:
    """Debian's chromium; a clear failure (not a skip) when it is missing."""
    path = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if not path:
        raise RuntimeError("chromium is not installed: the browser tests need Debian's chromium at "
                           f"{CHROMIUM} (`apt-get install chromium`; scripts/test.sh does this)")
    return path


def settle(page, quiet: float = 0.6, timeout: float = 60) -> None:
    """Wait until Streamlit has stopped running the script for `quiet` seconds."""
    app = page.get_by_test_id("stApp")
    deadline, since = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        if app.get_attribute("data-test-script-state") == "notRunning":
            since = since or time.monotonic()
            if time.monotonic() - since >= quiet:
                return
        else:
            since = None
        page.wait_for_timeout(100)
    raise AssertionError(f"the Streamlit script was still running after {timeout} s on {page.url}")


def screenshot(page, name: str) -> Path:
    """A full-page screenshot. Streamlit scrolls inside its main block, not the page, so the
    viewport is grown to the content's height first (and restored afterwards)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    size = page.viewport_size
    try:
        height, last = size["height"], None
        for _ in range(20):  # wait for expanders and charts to finish growing, then fit them
            needed = min(page.evaluate("""() => Math.max(0, ...[...document.querySelectorAll(
                '.stMain, [data-testid="stSidebarContent"]')].map(e => e.scrollHeight))"""), 5000)
            if needed == last and needed <= height:
                break
            if needed > height:
                height = needed
                page.set_viewport_size({"width": size["width"], "height": height})
            last = needed
            page.wait_for_timeout(300)
        page.evaluate("""() => document.querySelectorAll('.stMain').forEach(e => { e.scrollTop = 0; })""")
        page.wait_for_timeout(300)
        page.screenshot(path=str(path), full_page=True)
    finally:
        page.set_viewport_size(size)
    return path
