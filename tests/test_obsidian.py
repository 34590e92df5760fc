"""Sources you can open: obsidian:// links, wikilinks as links, a memory's quoted lines read from the note."""
from pathlib import Path

import pytest

from memory.errors import BadInputError
from memory.obsidian import (
    inline_markdown, note_file, note_markdown, obsidian_url, quoted_lines, snippet, wikilinks_streamed,
    wikilinks_to_markdown,
)

VAULT = Path(__file__).parent / "fixtures" / "vault"


def test_obsidian_url_names_the_vault_folder_and_the_note_without_md():
    assert obsidian_url("/home/me/My Vault", "Trips/Lisbon 2026.md") == \
        "obsidian://open?vault=My%20Vault&file=Trips%2FLisbon%202026"
    assert obsidian_url(Path("/v/notes"), "人物/王芳.md") == \
        "obsidian://open?vault=notes&file=%E4%BA%BA%E7%89%A9%2F%E7%8E%8B%E8%8A%B3"
    assert obsidian_url("/v/notes", "a&b=c#d.md").endswith("file=a%26b%3Dc%23d")


def test_wikilinks_become_links_that_read_as_their_alias_or_target():
    text = "See [[Mira Chen]], [[Garden Planner#Goals|the goals]] and ![[photo.png]]."
    assert wikilinks_to_markdown(text, "/v/vault") == (
        "See [Mira Chen](obsidian://open?vault=vault&file=Mira%20Chen), "
        "[the goals](obsidian://open?vault=vault&file=Garden%20Planner) and "
        "[photo.png](obsidian://open?vault=vault&file=photo.png).")
    assert wikilinks_to_markdown(text, None) == "See Mira Chen, the goals and photo.png."


def test_note_markdown_keeps_structure_and_escapes_what_is_not_markdown():
    shown = note_markdown("# Stay\nCost $120 per *night*, with [[Lena Vogel]]\n- [ ] pack", "/v/vault")
    assert shown.startswith("**Stay**")
    assert "\\$120" in shown and "*night*" in shown and "- [ ] pack" in shown
    assert "[Lena Vogel](obsidian://open?vault=vault&file=Lena%20Vogel)" in shown
    line = inline_markdown("## Plan\n> **Day 1**: walk_with [[Tomás Silva|Tomás]]", None)
    assert line == "Plan Day 1: walk\\_with Tomás"


def test_snippet_is_short_and_plain():
    text = "# Garden Planner\n\nA small app with [[Mira Chen]]. " + "More words here. " * 40
    short = snippet(text, 120, 60)
    assert short.startswith("Garden Planner: A small app with Mira Chen.") and len(short) <= 125
    assert "[[" not in short and "#" not in short


def test_quoted_lines_come_from_the_note_in_the_vault(tmp_path):
    file = note_file(VAULT, "Projects/Garden Planner.md")
    assert file == (VAULT / "Projects" / "Garden Planner.md").resolve()
    assert quoted_lines(file, (6, 8)) == "# Garden Planner\n\nA small app that plans which vegetables go where. ^goal"
    assert note_file(VAULT, "../../conftest.py") is None  # never outside the vault
    assert note_file(VAULT, "Projects/Moved away.md") is None
    with pytest.raises(BadInputError, match="not a range"):
        quoted_lines(file, (5, 2))


def test_a_redacted_path_is_found_by_what_it_was_stored_as(tmp_path):
    (tmp_path / "keys").mkdir()
    secret = tmp_path / "keys" / "token sk-abc.md"
    secret.write_text("one\ntwo\n", encoding="utf-8")

    def path_ref(relative: str) -> str:
        return "keys/token [REDACTED:key] #1a2b" if "sk-abc" in relative else relative

    assert note_file(tmp_path, "keys/token [REDACTED:key] #1a2b", path_ref) == secret.resolve()
    assert note_file(tmp_path, "keys/token [REDACTED:key] #ffff", path_ref) is None


def test_a_card_is_cut_at_a_word_and_never_inside_a_wikilink():
    text = "# Trip\n" + "word " * 10 + "with [[Tomás Silva|Tomás]] and more " + "tail " * 50
    card = inline_markdown(text, "/v/vault", limit=70)  # the cut falls inside the link
    assert card.endswith("[Tomás](obsidian://open?vault=vault&file=Tom%C3%A1s%20Silva)…"), card
    assert inline_markdown(text, None, limit=30) == "Trip word word word word word…"
    assert inline_markdown("short", None, limit=30) == "short"


def test_a_streamed_reply_gets_its_links_even_when_a_wikilink_is_split():
    parts = ["Ask [[Lena", " Vogel]] about", " it; [[Tomás", "]] too. [[unclosed"]
    shown = list(wikilinks_streamed(parts, "/v/vault"))
    assert "".join(shown) == ("Ask [Lena Vogel](obsidian://open?vault=vault&file=Lena%20Vogel) about it; "
                              "[Tomás](obsidian://open?vault=vault&file=Tom%C3%A1s) too. [[unclosed")
    assert shown[0] == "Ask "  # the text before a link is not held back
