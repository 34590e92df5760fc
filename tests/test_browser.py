"""End to end in a real browser: `streamlit run app.py` against a fake Ollama, driven by Debian's chromium.

One app process (seeded with a knowledge update and a memory to forget) serves the module; every test
gets a fresh browser context, so a new Streamlit session. Screenshots go to test-output/browser/.
"""
from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect, sync_playwright

from tests.browser_support import (
    AMERICANO_DAY,
    PAGES,
    BETWEEN_DAY,
    CHROMIUM_ARGS,
    LATTE_DAY,
    LISBON_REPLY,
    ROOT,
    SCREENSHOTS,
    TODAY,
    answer,
    chromium_path,
    closed_port,
    screenshot,
    seed_home,
    settle,
    streamlit_app,
)
from tests.fixtures.fake_ollama import FakeOllama

TIMEOUT_MS = 30_000
REPLY_TIMEOUT_MS = 60_000
SAMPLE_NOTES = len(list((ROOT / "sample_vault").rglob("*.md")))

# Records every text the newest assistant message shows, so a test can tell a streamed reply
# (seen growing) from one that arrived whole.
WATCH_REPLIES = """() => {
    window.__replyTexts = [];
    setInterval(() => {
        const replies = [...document.querySelectorAll('[data-testid="stChatMessage"]')]
            .filter(m => m.querySelector('[data-testid="stChatMessageAvatarAssistant"]'));
        const last = replies.at(-1)?.querySelector('[data-testid="stChatMessageContent"]');
        const text = last ? last.innerText.trim() : '';
        if (window.__replyTexts.at(-1) !== text) window.__replyTexts.push(text);
    }, 25);
}"""


@dataclass
class App:
    url: str
    fake: FakeOllama
    home: Path


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> App:
    home = tmp_path_factory.mktemp("browser") / "engram-home"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with FakeOllama(reply=answer, chunks=6, chunk_delay=0.3) as fake:
        env = {k: v for k, v in os.environ.items()
               if k not in ("ENGRAM_VAULT", "OLLAMA_HOST", "ENGRAM_MODEL")}
        env.update(ENGRAM_HOME=str(home), ENGRAM_EMBEDDER="hash", ENGRAM_OLLAMA_URL=fake.url, HF_HUB_OFFLINE="1")
        seed_home(home)
        with streamlit_app(env, SCREENSHOTS / "streamlit.log") as url:
            yield App(url, fake, home)


@pytest.fixture(scope="module")
def browser() -> Browser:
    executable = chromium_path()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(browser: Browser, request) -> Page:
    """A fresh browser context: a new Streamlit session per test (a screenshot when the test fails)."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    expect.set_options(timeout=TIMEOUT_MS)
    failed_before = request.session.testsfailed
    page = context.new_page()
    try:
        yield page
        if request.session.testsfailed > failed_before:
            screenshot(page, f"failed-{request.node.name}")
    finally:
        context.close()


# ------------------------------------------------------------------ helpers
def open_page(page: Page, url: str) -> None:
    page.goto(url)
    expect(page.get_by_test_id("stApp")).to_be_attached()
    expect(page.get_by_test_id("stMainBlockContainer").get_by_role("heading").first).to_be_visible()
    settle(page)


def link_sample_vault(page: Page, url: str) -> None:
    """Link the bundled vault on the settings page (a no-op when linked) and wait for its first sync."""
    open_page(page, f"{url}/settings")
    page.get_by_role("button", name="Use the sample vault").click()
    expect(page.get_by_text(re.compile(rf"^Last sync: {SAMPLE_NOTES} notes"))).to_be_visible(timeout=90_000)
    expect(page.get_by_test_id("stMetric").filter(has_text="Notes")).to_contain_text(str(SAMPLE_NOTES))
    settle(page)


def ask(page: Page, question: str) -> Locator:
    """Send a chat message; the assistant's reply (its content) once the turn has finished."""
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill(question)
    box.press("Enter")
    expect(page.get_by_test_id("stChatMessage").filter(has_text=question).last).to_be_visible()
    return finished_reply(page)


def finished_reply(page: Page) -> Locator:
    """The last assistant reply's content, once its turn has finished (its "Memories used" line shows)."""
    reply = (page.get_by_test_id("stChatMessage")
             .filter(has=page.get_by_test_id("stChatMessageAvatarAssistant")).last
             .get_by_test_id("stChatMessageContent"))
    expect(reply.get_by_text(re.compile(r"^Memories used \(\d+\)$"))).to_be_visible(timeout=REPLY_TIMEOUT_MS)
    settle(page)
    return reply


def drag_slider(page: Page, slider: Locator, day: date) -> date:
    """Drag a date slider's thumb to `day` with the mouse; the day it landed on.

    Dragging commits once, on release; each arrow key would commit (and rerun the page) on its own."""
    widget = page.get_by_test_id("stSlider").filter(has=slider)
    track = widget.locator('[role="group"] > div').first
    thumb = widget.locator('div:has(> div > input[type="range"])')
    low, high = int(slider.get_attribute("min")), int(slider.get_attribute("max"))  # microseconds
    target = high - (date.fromisoformat(slider.get_attribute("aria-valuetext")) - day).days * 86_400_000_000
    box, knob = track.bounding_box(), thumb.bounding_box()
    x = box["x"] + box["width"] * (target - low) / (high - low)
    y = knob["y"] + knob["height"] / 2
    page.mouse.move(knob["x"] + knob["width"] / 2, y)
    page.mouse.down()
    page.mouse.move(x, y, steps=15)
    page.mouse.up()
    return date.fromisoformat(slider.get_attribute("aria-valuetext"))


def last_prompt(fake: FakeOllama) -> str:
    """The latest answer prompt the app sent to the model (not a memory-extraction request)."""
    prompts = [body["messages"] for body in fake.requests_to("/api/chat")
               if body["messages"] and body["messages"][0]["role"] == "system"]
    assert prompts, "the app sent no chat prompt to the fake Ollama"
    return "\n".join(m["content"] for m in prompts[-1])


def memories_used(reply: Locator) -> Locator:
    """Open the reply's "Memories used" expander; its details."""
    expander = reply.get_by_test_id("stExpander")
    details = expander.get_by_test_id("stExpanderDetails")
    if not details.is_visible():
        expander.get_by_text(re.compile(r"^Memories used")).click()
    expect(details).to_be_visible()
    return details


# -------------------------------------------------------------------- tests
def expect_page(page: Page, title: str) -> None:
    """The page shows its own title, the app's navigation (and not the pages/ folder's file list), wide."""
    main = page.get_by_test_id("stMainBlockContainer")
    expect(main.get_by_role("heading", level=1).first).to_contain_text("Engram" if title == "Chat" else title)
    nav = page.get_by_test_id("stSidebarUserContent").get_by_test_id("stPageLink")
    expect(nav).to_have_text([re.compile(re.escape(name)) for _, name in PAGES])
    expect(page.get_by_test_id("stSidebarNav")).to_have_count(0)  # Streamlit's own list never shows
    assert main.bounding_box()["width"] > 1000, f"{page.url} is not laid out wide: {main.bounding_box()}"


def test_newcomer_opens_any_address_links_the_sample_vault_and_asks(page: Page, tmp_path):
    """A freshly started server, no Ollama: /graph first, then every page by its address; link the sample
    vault from the chat; the indexing summary and a suggested question lead to an answer with openable sources."""
    env = {k: v for k, v in os.environ.items() if k not in ("ENGRAM_VAULT", "OLLAMA_HOST", "ENGRAM_MODEL")}
    env.update(ENGRAM_HOME=str(tmp_path / "engram-home"), ENGRAM_EMBEDDER="hash", HF_HUB_OFFLINE="1",
               ENGRAM_OLLAMA_URL=f"http://127.0.0.1:{closed_port()}")
    with streamlit_app(env, SCREENSHOTS / "streamlit-newcomer.log") as url:
        for address, title in [("graph", "Memory graph"), *[(a, t) for a, t in PAGES if a != "graph"]]:
            open_page(page, f"{url}/{address}")
            expect_page(page, title)
        open_page(page, f"{url}/common")  # a helper module, not a page: the app's default page answers
        expect(page.get_by_role("dialog")).to_contain_text("Page not found")
        page.get_by_role("dialog").get_by_role("button", name="Close").click()
        expect_page(page, "Chat")

        page.get_by_role("button", name="Link the sample vault").click()
        first = page.locator(".st-key-chat_first_questions")
        expect(first).to_contain_text(re.compile(rf"Your vault is indexed: {SAMPLE_NOTES} notes · \d+ memories"
                                                 r" · \d+ dated facts? · \d+ entities\."), timeout=90_000)
        settle(page)
        questions = first.get_by_role("button")
        assert 3 <= questions.count() <= 5, questions.all_inner_texts()
        expect(page.get_by_text("No language model is answering")).to_have_count(1)
        screenshot(page, "first_run")

        question = questions.filter(has_text="Lisbon").first
        asked = question.inner_text()
        question.click()
        expect(page.get_by_test_id("stChatMessage").filter(has_text=asked)).to_be_visible()
        reply = finished_reply(page)
        expect(reply).to_contain_text("Offline recall mode")
        expect(reply).to_contain_text("TP1351")
        expect(reply).not_to_contain_text("ollama serve")  # the banner says it, once
        expect(reply).not_to_contain_text("[[")  # wikilinks read as links
        expect(page.get_by_text("No language model is answering")).to_have_count(1)

        details = memories_used(reply)
        note = details.get_by_role("link", name=re.compile(r"Trips.Lisbon 2026\.md, lines \d+–\d+"))
        expect(note.first).to_have_attribute("href", re.compile(r"^obsidian://open\?vault=sample_vault&file=Trips%2FLisbon%202026$"))
        links = details.get_by_role("link")
        assert all(href.startswith("obsidian://") for href in (a.get_attribute("href") for a in links.all())), \
            [a.get_attribute("href") for a in links.all()]
        lines = details.get_by_text(re.compile(r"^Lines \d+–\d+ in the note$")).first
        lines.click()
        settle(page)
        expect(details.get_by_test_id("stCode").first).to_contain_text("flight TP1351 from Amsterdam")
        screenshot(page, "chat_sources")


def test_a_question_typed_as_soon_as_the_box_shows_on_a_fresh_server_is_answered(page: Page, tmp_path):
    """The chat box is drawn before the memory opens: a question sent the moment it shows is answered once
    (offline recall mode, from the seeded memories), not lost and not asked twice."""
    home = tmp_path / "engram-home"
    seed_home(home)
    env = {k: v for k, v in os.environ.items() if k not in ("ENGRAM_VAULT", "OLLAMA_HOST", "ENGRAM_MODEL")}
    env.update(ENGRAM_HOME=str(home), ENGRAM_EMBEDDER="hash", HF_HUB_OFFLINE="1",
               ENGRAM_OLLAMA_URL=f"http://127.0.0.1:{closed_port()}")
    question = "Who is my dentist?"
    with streamlit_app(env, SCREENSHOTS / "streamlit-early-question.log") as url:
        page.goto(url)
        box = page.get_by_test_id("stChatInputTextArea")
        box.fill(question)  # as soon as it is there
        box.press("Enter")
        asked = page.get_by_test_id("stChatMessage").filter(has_text=question)
        expect(asked).to_be_visible(timeout=REPLY_TIMEOUT_MS)
        reply = finished_reply(page)
        expect(reply).to_contain_text("Okafor")
        expect(asked).to_have_count(1)
        page.reload()
        expect(page.get_by_test_id("stChatInputTextArea")).to_be_visible()
        settle(page)
        expect(page.get_by_test_id("stChatMessage")).to_have_count(0)  # a new session: nothing asked again


def test_link_sample_vault_and_ask(page: Page, app: App):
    link_sample_vault(page, app.url)
    open_page(page, app.url)
    expect(page.get_by_text(re.compile("Indexing your vault|Scanning your vault"))).to_have_count(0)
    expect(page.get_by_text("No language model is answering")).to_have_count(0)  # the fake Ollama is up

    page.evaluate(WATCH_REPLIES)
    reply = ask(page, "When is my Lisbon flight?")

    expect(reply).to_contain_text(re.compile(rf"{LISBON_REPLY} \[m:\d+\]\. .* Have a good trip!"))
    cited = int(re.search(r"\[m:(\d+)\]", reply.inner_text()).group(1))
    final = answer([{"role": "system", "content": f"[m:{cited}] (fact_reference)\n> flight TP1351"}])
    seen = page.evaluate("window.__replyTexts")
    assert final in seen, f"the reply shown was not the model's ({final!r}; seen: {seen})"
    partial = [t for t in seen if t and final.startswith(t) and t != final]
    assert partial, f"the reply did not stream: no partial text was shown before {final!r} (seen: {seen})"
    prompt = last_prompt(app.fake)
    assert "When is my Lisbon flight?" in prompt and f"[m:{cited}]" in prompt

    details = memories_used(reply)
    expect(details).to_contain_text("Trips/Lisbon 2026.md")
    expect(details).to_contain_text(f"m:{cited}")
    expect(details.get_by_test_id("stMarkdownContainer").filter(has_text="TP1351").first).to_be_visible()
    screenshot(page, "chat")


def test_graph_page_renders(page: Page, app: App):
    link_sample_vault(page, app.url)
    open_page(page, f"{app.url}/graph")

    summary = page.get_by_text(re.compile(r"^\d+ nodes, \d+ edges around"))
    expect(summary).to_be_visible()
    nodes, edges = map(int, re.match(r"(\d+) nodes, (\d+) edges", summary.inner_text()).groups())
    assert nodes > 1 and edges > 0, summary.inner_text()

    frame = page.frame_locator('iframe[title*="streamlit_cytoscape"]')
    expect(frame.locator("#cy canvas").first).to_be_attached()
    # Cytoscape.js registers its instance on the container element (the component keeps it off window).
    graph = frame.locator("#cy")
    expect(graph).to_be_visible()
    drawn = {}
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        drawn = graph.evaluate("""el => { const cy = el._cyreg && el._cyreg.cy; if (!cy) return {};
            const box = cy.elements().renderedBoundingBox();
            return {nodes: cy.nodes().length, edges: cy.edges().length, width: box.w, height: box.h,
                    canvas: el.querySelector('canvas').width}; }""")
        if drawn.get("nodes") == nodes and drawn.get("width", 0) > 50:
            break
        page.wait_for_timeout(250)
    assert drawn.get("nodes") == nodes and drawn.get("edges") == edges, (drawn, nodes, edges)
    assert drawn["width"] > 50 and drawn["height"] > 50 and drawn["canvas"] > 0, drawn
    panel = page.locator(".st-key-graph_details")
    expect(panel).to_contain_text("Memories")
    cut = panel.evaluate("el => el.scrollHeight - el.clientHeight")
    assert cut <= 1, f"the details panel hides {cut}px of its lists"
    screenshot(page, "graph")


def test_time_travel_slider_changes_results(page: Page, app: App):
    received: list[bytes] = []  # what the server sends the page, as the browser gets it
    page.on("websocket", lambda ws: ws.on(
        "framereceived", lambda data: received.append(data if isinstance(data, bytes) else data.encode())))
    open_page(page, f"{app.url}/time_travel")
    about = page.get_by_label("About (optional)")
    about.fill("drink")
    about.press("Enter")
    settle(page)

    def results(day) -> Locator:
        heading = page.get_by_role("heading", name=f"On {day:%d %b %Y}")
        expect(heading).to_be_visible()
        return page.get_by_test_id("stColumn").filter(has=heading)

    now = results(TODAY)
    expect(now).to_contain_text("User now drinks oat latte.")
    expect(now).not_to_contain_text("Americano")

    slider = page.get_by_role("slider", name="As of")
    expect(slider).to_have_attribute("aria-valuetext", TODAY.isoformat())
    day = drag_slider(page, slider, BETWEEN_DAY)
    assert abs((day - BETWEEN_DAY).days) <= 3 and AMERICANO_DAY < day < LATTE_DAY, day
    then = results(day)
    expect(then).to_contain_text("User drinks Americano.")
    expect(then).not_to_contain_text("oat latte")
    settle(page)
    screenshot(page, "time_travel")

    slider.focus()
    received.clear()
    page.keyboard.press("End")
    expect(results(TODAY)).to_contain_text("User now drinks oat latte.")
    settle(page)
    sent = b"".join(received)
    assert f"On {TODAY:%d %b %Y}".encode() in sent  # the slider's part of the page was redrawn …
    assert b"What changed between two days" not in sent  # … and only that part (st.fragment): not the whole page


def test_time_travel_shows_what_the_sample_vault_superseded_and_what_expired(page: Page, app: App):
    """Notes carry their own time: the move supersedes where Maya lived, the old job and a finished season expire."""
    link_sample_vault(page, app.url)
    open_page(page, f"{app.url}/time_travel")
    superseded = page.get_by_role("tab", name=re.compile(r"^Superseded \((\d+)\)"))
    expired = page.get_by_role("tab", name=re.compile(r"^Expired \((\d+)\)"))
    expect(superseded).to_be_visible(timeout=30_000)
    assert int(re.search(r"\((\d+)\)", superseded.inner_text())[1]) >= 1
    assert int(re.search(r"\((\d+)\)", expired.inner_text())[1]) >= 1
    superseded.click()
    expect(page.get_by_role("tabpanel").filter(has_text="User lives in Amsterdam")).to_be_visible()
    expired.click()
    expect(page.get_by_role("tabpanel").filter(has_text="Blue Fern Agency")).to_be_visible()


def test_forget_memory_is_gone_from_recall(page: Page, app: App):
    open_page(page, app.url)
    reply = ask(page, "Who is my dentist?")
    expect(reply).to_contain_text(re.compile(r"\[m:\d+\]"))
    details = memories_used(reply)
    found = re.search(r"m:(\d+) · user_profile · score [\d.]+\s+User's dentist is Dr\. Okafor on Rua Augusta",
                      details.inner_text())
    assert found, details.inner_text()
    memory_id = int(found.group(1))

    settle(page)  # a click while the script still runs (the send box disabled) can be lost in the rerun
    page.locator(f".st-key-chat_forget_{memory_id} button").click()
    expect(page.get_by_text(f"Forget m:{memory_id} for good?")).to_be_visible()
    page.get_by_role("button", name="Yes, forget it").click()
    expect(page.get_by_text(f"Forgotten m:{memory_id} for good.").first).to_be_visible()
    settle(page)
    expect(page.locator(f".st-key-chat_forget_{memory_id}")).to_have_count(0)
    screenshot(page, "forget")

    page.get_by_role("button", name="New session").click()
    settle(page)
    again = memories_used(ask(page, "Who is my dentist?"))
    expect(again).not_to_contain_text(f"m:{memory_id} ·")
    expect(again).not_to_contain_text("User's dentist is Dr. Okafor")
    prompt = last_prompt(app.fake)
    assert "Who is my dentist?" in prompt
    assert not re.search(rf"^\[m:{memory_id}\] \(", prompt, re.MULTILINE), "the forgotten memory was sent to the model"

    open_page(page, f"{app.url}/memories")
    search = page.get_by_role("textbox", name="Search")
    search.fill(f"m:{memory_id}")
    search.press("Enter")
    settle(page)
    # "m:ID" opens that memory when it exists; the words "m:ID" still match replies that cited it
    expect(page.get_by_text(re.compile(r"^\d+ shown of \d+ memories"))).to_be_visible()
    expect(page.get_by_role("heading", name=f"m:{memory_id}", exact=True)).to_have_count(0)
    expect(page.get_by_test_id("stMainBlockContainer")).not_to_contain_text(f"m:{memory_id} · ")
