"""The app's first page on a fresh server: from `streamlit run` to the chat box in a real browser.

    python bench/app_start.py [--home DIR] [--runs 5] [--compare TREE]

Each run starts a new `streamlit run app.py` process on a free port (a new data folder unless
`--home` names one) while chromium (Debian's, through playwright) is already open, and times until
the Chat page's input box is on screen, and then until the page is complete (the sessions list, drawn
last: the memory is open and the chat model probed). The input box is drawn before the memory opens;
a question typed meanwhile is answered once it is open. The baseline, run interleaved, is the floor
under the same conditions: a two-line Streamlit app with a title and a chat input. Prints median and
best seconds with the ratio to the floor's input box. `--compare` adds another checkout's app (e.g. an
older commit, `git archive COMMIT | tar -x -C TREE`), run from its own folder in the same rounds.
"""
from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
CHAT_BOX = '[data-testid="stChatInput"] textarea'
PAGE_COMPLETE = ".st-key-chat_new_session button"  # the sessions list, the chat page's last part
FLOOR_APP = 'import streamlit as st\nst.title("floor")\nst.chat_input("Ask…")\n'


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_shown(page, selector: str, timeout: float) -> None:
    """Wait until an element matching `selector` takes up space on the page, checked at every animation frame.

    Playwright's `wait_for_selector` checks again after 0, 20, 100, 100 and then every 500 ms: an element drawn just
    after one of its later checks was timed up to half a second late, which made one app look 0.5 s slower than
    another in about half the runs."""
    page.wait_for_function("selector => { const found = document.querySelector(selector);"
                           " return found !== null && found.getBoundingClientRect().height > 0; }",
                           arg=selector, polling="raf", timeout=timeout * 1000)


def first_page_seconds(browser, script: Path, env: dict, complete: str | None = None,
                       timeout: float = 120.0, cwd: Path = HERE) -> tuple[float, float | None]:
    """Seconds from starting the server to the chat box being visible in a new browser page, and to the
    `complete` selector being visible (None without one)."""
    port = free_port()
    argv = [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true",
            "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
    started = time.perf_counter()
    server = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.1:{port}/"
        while True:
            if server.poll() is not None:
                raise SystemExit(f"streamlit exited: {server.stderr.read().decode()[-400:]}")
            if time.perf_counter() - started > timeout:
                raise SystemExit(f"no answer on {url} after {timeout:.0f} s")
            try:
                urllib.request.urlopen(url + "_stcore/health", timeout=1).read()
                break
            except OSError:
                time.sleep(0.05)
        page = browser.new_page()
        page.goto(url)
        wait_until_shown(page, CHAT_BOX, timeout)
        box = time.perf_counter() - started
        done = None
        if complete:
            wait_until_shown(page, complete, timeout)
            done = time.perf_counter() - started
        page.close()
        return box, done
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, help="an existing Engram data folder (default: a new one per run)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--compare", type=Path, help="another checkout of Engram, timed to its chat box alongside")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    scratch = Path(tempfile.mkdtemp(prefix="engram-app-start-"))
    floor_script = scratch / "floor_app.py"
    floor_script.write_text(FLOOR_APP)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "OLLAMA_HOST": f"127.0.0.1:{free_port()}"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as on a user's machine
    load_before = os.getloadavg()[0]
    other = f"engram at {args.compare}" if args.compare else None
    times: dict[str, list[float]] = {"engram": [], "engram, page complete": [],
                                     **({other: [], f"{other}, page complete": []} if other else {}), "floor": []}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            for run in range(args.runs + 1):  # the first, untimed, leaves compiled modules and warm caches
                home = args.home or scratch / f"home-{run}"
                engram, complete = first_page_seconds(browser, HERE / "app.py", {**env, "ENGRAM_HOME": str(home)},
                                                      PAGE_COMPLETE)
                if other:
                    compared, compared_complete = first_page_seconds(
                        browser, args.compare / "app.py", {**env, "ENGRAM_HOME": str(scratch / f"compare-{run}")},
                        PAGE_COMPLETE, cwd=args.compare)
                    if run:
                        times[other].append(compared)
                        times[f"{other}, page complete"].append(compared_complete)
                floor, _ = first_page_seconds(browser, floor_script, env)
                if run:
                    times["engram"].append(engram)
                    times["engram, page complete"].append(complete)
                    times["floor"].append(floor)
            browser.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    load = f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    print(f"\nApp first page on a fresh server, {args.runs} runs, interleaved (seconds; {load})\n")
    print("| app | median | best | × floor (median) |")
    print("|---|---|---|---|")
    floor_median = statistics.median(times["floor"])
    for name in times:
        values = times[name]
        print(f"| {name} | {statistics.median(values):.2f} | {min(values):.2f} | "
              f"{statistics.median(values) / floor_median:.2f}× |")


if __name__ == "__main__":
    main()
