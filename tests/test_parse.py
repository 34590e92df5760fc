"""vault_sync.parse: Obsidian markdown text in, ParsedNote out."""
from __future__ import annotations

import dataclasses
import re
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from vault_sync.parse import Chunk, Heading, ParsedNote, Task, WikiLink, parse_note, resolve_link

VAULT = Path(__file__).parent / "fixtures" / "vault"
SAMPLE_VAULT = Path(__file__).parent.parent / "sample_vault"


def note(rel: str, **kwargs) -> ParsedNote:
    """Parse a note of the fixture vault."""
    return parse_note(rel, (VAULT / rel).read_text(encoding="utf-8"), **kwargs)


def file_line(rel: str, needle: str) -> int:
    """1-based line of the first line of a fixture note that contains `needle`."""
    lines = (VAULT / rel).read_text(encoding="utf-8").split("\n")
    return next(i for i, line in enumerate(lines, 1) if needle in line)


def titles_of(root: Path) -> dict[str, list[str]]:
    """Lower-case note name, alias and attachment file name -> vault paths, as the caller builds it."""
    titles: dict[str, list[str]] = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        names = [path.stem] if path.suffix == ".md" else [path.name]
        if path.suffix == ".md":
            names += parse_note(rel, path.read_text(encoding="utf-8")).aliases
        for name in names:
            titles.setdefault(name.lower(), []).append(rel)
    return titles


def link(target: str, alias=None, heading=None, block=None, embed=False, *, line: int) -> WikiLink:
    return WikiLink(target, alias, heading, block, embed, line)


# ---------------------------------------------------------------------------- the API's shape


def test_dataclass_fields_are_the_documented_api():
    assert [f.name for f in dataclasses.fields(WikiLink)] == ["target", "alias", "heading", "block", "embed", "line"]
    assert [f.name for f in dataclasses.fields(Heading)] == ["level", "text", "line"]
    assert [f.name for f in dataclasses.fields(Task)] == ["text", "done", "line"]
    assert [f.name for f in dataclasses.fields(Chunk)] == ["heading_path", "text", "line_start", "line_end"]
    assert [f.name for f in dataclasses.fields(ParsedNote)] == [
        "path", "title", "frontmatter", "frontmatter_error", "aliases", "tags", "links", "headings",
        "block_ids", "tasks", "chunks", "dates", "extraction_text",
    ]


def test_title_is_the_file_stem():
    assert parse_note("Projects/v1.2 release notes.md", "").title == "v1.2 release notes"
    assert note("中文/技术部周会.md").title == "技术部周会"


# ---------------------------------------------------------------------------- frontmatter


def test_frontmatter_aliases_tags_and_dates():
    home = note("Home.md")
    assert home.frontmatter_error is None
    assert home.aliases == ["Start", "Index"]
    assert home.tags[:2] == ["home", "meta"]  # '#meta' in YAML loses its '#'
    assert home.dates == {
        "created": datetime(2026, 1, 4, tzinfo=timezone.utc),
        "updated": datetime(2026, 3, 1, 8, 30, tzinfo=timezone.utc),  # 09:30+01:00
    }


def test_single_alias_and_tag_list_with_hashes():
    mira = note("People/Mira Chen.md")
    assert mira.aliases == ["Mira"]
    assert mira.tags == ["person", "colleague", "person/designer"]


def test_tags_string_with_commas_and_slash_dates():
    garden = note("Projects/Garden Planner.md")
    assert garden.tags[:2] == ["project", "garden"]
    assert "planning" not in garden.tags  # ' #planning' is a YAML comment
    assert garden.dates == {"date": datetime(2026, 2, 14, tzinfo=timezone.utc)}


@pytest.mark.parametrize(
    "yaml_tags, expected",
    [
        ('tags: "one two, #three"', ["one", "two", "three"]),
        ("tag: solo", ["solo"]),
        ("tags: [a/b, '#c/d', 42, null]", ["a/b", "c/d"]),
        ("tags:\n  - x\n  -\n  - X", ["x"]),
    ],
)
def test_frontmatter_tag_forms(yaml_tags, expected):
    assert parse_note("n.md", f"---\n{yaml_tags}\n---\n").tags == expected


def test_dates_are_utc_aware_and_unreadable_dates_are_skipped():
    text = "---\ncreated: 2026-03-03T10:00:00+08:00\nmodified: 2026-03-04 12:00\nupdated: soon\n---\n"
    dates = parse_note("n.md", text).dates
    assert dates == {
        "created": datetime(2026, 3, 3, 2, 0, tzinfo=timezone.utc),
        "modified": datetime(2026, 3, 4, 12, 0, tzinfo=timezone.utc),
    }
    assert all(d.tzinfo is timezone.utc for d in dates.values())


def test_broken_yaml_is_reported_with_its_line_and_the_body_is_still_indexed():
    broken = note("Broken YAML.md")
    assert broken.frontmatter == {}
    assert broken.frontmatter_error.startswith("invalid YAML frontmatter at line 4")
    assert "line 2" in broken.frontmatter_error  # where the unclosed quote starts
    assert broken.tags == ["rescued"]
    assert [l.target for l in broken.links] == ["Home"]
    assert broken.headings == [Heading(1, "Still Readable", 5)]
    assert broken.chunks[0].line_start == 5 and "still indexed" in broken.chunks[0].text


def test_frontmatter_that_is_not_a_mapping():
    parsed = parse_note("n.md", "---\n- a\n- b\n---\nBody #kept\n")
    assert parsed.frontmatter == {}
    assert "lines 1-4" in parsed.frontmatter_error and "list" in parsed.frontmatter_error
    assert parsed.tags == ["kept"]
    assert parsed.chunks[0].line_start == 5


def test_empty_frontmatter_is_not_an_error():
    parsed = parse_note("n.md", "---\n---\nBody\n")
    assert (parsed.frontmatter, parsed.frontmatter_error) == ({}, None)
    assert parsed.chunks == [Chunk(("n",), "Body", 3, 3)]


def test_unclosed_frontmatter_is_body_text():
    parsed = parse_note("n.md", "---\ntitle: x\nno closing line\n")
    assert parsed.frontmatter == {} and parsed.frontmatter_error is None
    assert parsed.chunks[0].line_start == 1


def test_yaml_alias_bomb_is_rejected_quickly():
    bomb = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in "bcdefghi":
        previous = chr(ord(level) - 1)
        bomb.append(f"{level}: &{level} [{','.join(['*' + previous] * 9)}]")
    text = "---\n" + "\n".join(bomb) + "\n---\nThe body survives. #ok\n"
    started = time.perf_counter()
    parsed = parse_note("bomb.md", text)
    assert time.perf_counter() - started < 1
    assert parsed.frontmatter == {}
    assert "aliases" in parsed.frontmatter_error and "line 3" in parsed.frontmatter_error
    assert parsed.tags == ["ok"]


def test_a_few_yaml_aliases_are_fine_but_recursive_ones_are_not():
    assert parse_note("n.md", "---\na: &x [1]\nb: *x\n---\n").frontmatter == {"a": [1], "b": [1]}
    assert "recursive alias" in parse_note("n.md", "---\na: &x [*x]\n---\n").frontmatter_error


@pytest.mark.parametrize(
    "source, message",
    [
        ("a: " + "[" * 5000 + "]" * 5000, "nested"),
        ("a: " + "x" * 70_000, "too large"),
        ("a: " + "9" * 5000, "ValueError"),  # longer than Python's int digit limit
        ("a:\n  " + "- " * 30_000 + "x", "RecursionError"),  # crashes libyaml's C composer
    ],
)
def test_hostile_frontmatter_is_refused(source, message):
    parsed = parse_note("n.md", f"---\n{source}\n---\nbody\n")
    assert parsed.frontmatter == {} and message in parsed.frontmatter_error
    assert parsed.chunks[0].text == "body"


# ---------------------------------------------------------------------------- tags


def test_inline_and_nested_tags():
    assert note("Home.md").tags == ["home", "meta", "home/dashboard", "idea"]
    garden = note("Projects/Garden Planner.md")
    assert garden.tags == ["project", "garden", "project/garden/beds", "project/garden/paths"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("# Heading\n#tag", ["tag"]),
        ("#123 and #2026/04 are numbers, #y2026 is not", ["y2026"]),
        ("http://x.org/a#anchor issue#42 [[Note#Heading]] [t](#anchor)", []),
        ("#Tag then #tag again, #a-b_c, #emoji🎉, end #trail.", ["Tag", "a-b_c", "emoji🎉", "trail"]),
        ("中文标签 #项目/发布，后文", ["项目/发布"]),
        ("`#code` %% #comment %%\n```\n#fenced\n```", []),
    ],
)
def test_inline_tag_rules(text, expected):
    assert parse_note("n.md", text).tags == expected


# ---------------------------------------------------------------------------- links


def test_wikilink_forms_markdown_links_and_embeds():
    rel = "Home.md"
    assert note(rel).links == [
        link("Projects/Garden Planner", "the garden app", line=file_line(rel, "the garden app")),
        link("People/Mira Chen", heading="Contact", line=file_line(rel, "seedlings")),
        link("Daily/2026-03-02", block="standup", line=file_line(rel, "Stand-up")),
        link("Projects/Reading List", "my list", line=file_line(rel, "Reading%20List")),
        link("Recipes/Lentil Soup", "soup", heading="Ingredients", line=file_line(rel, "Reading%20List")),
        link("Images/pixel.png", embed=True, line=file_line(rel, "![[Images/pixel.png]]")),
        link("Recipes/Lentil Soup", heading="Ingredients", embed=True, line=file_line(rel, "![[Recipes")),
        link("Images/pixel.png", "a pixel", embed=True, line=file_line(rel, "![a pixel]")),
    ]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[[#Local heading]]", link("Folder/Self", heading="Local heading", line=1)),
        ("[[#^blk|see]]", link("Folder/Self", "see", block="blk", line=1)),
        ("| [[Note\\|Shown]] |", link("Note", "Shown", line=1)),
        ("[[Note.md|x]]", link("Note.md", "x", line=1)),
        ("![[Doc.pdf#page=3]]", link("Doc.pdf", heading="page=3", embed=True, line=1)),
        ("[a](../Other/Note%20Two.md#Part%20B)", link("../Other/Note Two", "a", heading="Part B", line=1)),
        ('[t](<My Note.md> "title")', link("My Note", "t", line=1)),
    ],
)
def test_link_details(text, expected):
    assert parse_note("Folder/Self.md", text).links == [expected]


def test_links_that_are_not_notes_are_ignored():
    text = "[web](https://x.org/a.md) [mail](mailto:a@b.md) [page](page.html) [top](#top) [[ ]] [[unclosed"
    assert parse_note("n.md", text).links == []


def test_code_and_comments_hide_links_tags_and_blocks():
    snippets = note("Code Snippets.md")
    assert snippets.links == [link("Home", line=file_line("Code Snippets.md", "After the comment"))]
    assert snippets.tags == ["real-tag"]
    assert snippets.block_ids == []
    assert [h.text for h in snippets.headings] == ["Code Snippets"]


def test_extraction_text_drops_code_comments_and_frontmatter_and_keeps_line_numbers():
    snippets = note("Code Snippets.md")
    hidden = ["Fake Link", "Tilde Fenced", "Quoted Code Link", "Nested Fake", "Commented Link", "commented-tag", "hidden", "inline"]
    assert not [word for word in hidden if word in snippets.extraction_text]
    after = file_line("Code Snippets.md", "After the comment")
    assert snippets.extraction_text.split("\n")[after - 1].startswith("After the comment: [[Home]]")
    assert "Mixed line: visible   visible again." in snippets.extraction_text

    home = note("Home.md")
    assert "aliases" not in home.extraction_text and "Secret" not in home.extraction_text
    assert "Not A Link" not in home.extraction_text
    lines = home.extraction_text.split("\n")
    assert lines[file_line("Home.md", "Welcome to my test vault") - 1].startswith("Welcome")


def test_chunks_keep_code_but_drop_comments():
    text = " ".join(c.text for c in note("Code Snippets.md").chunks)
    assert "[[Fake Link]]" in text and "[[Nested Fake]]" in text
    assert "Commented Link" not in text and "hidden" not in text


def test_unclosed_comment_runs_to_the_end_of_the_note():
    parsed = parse_note("n.md", "Seen [[A]]\n%% from here on\n[[B]] #b\n")
    assert [l.target for l in parsed.links] == ["A"] and parsed.tags == []


def test_inline_code_and_fences_follow_commonmark_run_lengths():
    text = "``a ` [[In]] b`` [[Out]] ` lone\n```js\n[[Code]]\n````\nafter [[Tail]]\n~~~~\n[[Open]]\n~~~"
    parsed = parse_note("n.md", text)
    assert [l.target for l in parsed.links] == ["Out", "Tail"]


# ---------------------------------------------------------------------------- headings, blocks, tasks


def test_headings_with_levels_and_lines():
    assert note("Projects/Garden Planner.md").headings == [
        Heading(1, "Garden Planner", 6),
        Heading(2, "Goals", 10),
        Heading(3, "Version 1", 12),
        Heading(3, "Version 2", 17),
        Heading(2, "Team", 21),
        Heading(2, "Empty heading", 25),
        Heading(2, "Nested tags", 27),
    ]


def test_heading_syntax_details():
    parsed = parse_note("n.md", "## Closed ##\n#NotHeading\n####### seven\n### The `parse` call\n#\n")
    assert parsed.headings == [Heading(2, "Closed", 1), Heading(3, "The `parse` call", 4)]


def test_block_ids():
    assert note("Projects/Garden Planner.md").block_ids == ["goal"]
    assert note("Daily/2026-03-02.md").block_ids == ["standup"]
    assert parse_note("n.md", "| a |\n^table-1\nx^no\n").block_ids == ["table-1"]


def test_tasks():
    home = note("Home.md")
    assert home.tasks == [
        Task("Water the tomatoes", False, 29),
        Task("Order compost", True, 30),
        Task("Call the plumber", True, 31),  # [X], and the ^plumber block id is not text
        Task("Half-done task", False, 32),
    ]
    daily = note("Daily/2026-03-02.md")
    assert daily.tasks[-1] == Task("Ask about the `--dry-run` flag", False, 13)  # in a callout
    assert parse_note("n.md", "1. [ ] numbered\n- [x]no-space\n```\n- [ ] code\n```").tasks == [Task("numbered", False, 1)]


# ---------------------------------------------------------------------------- chunks


def assert_chunk_lines_match_file(rel: str, chunks: list[Chunk]) -> None:
    lines = [re.sub("%%.*?%%", " ", line) for line in (VAULT / rel).read_text(encoding="utf-8").split("\n")]
    for chunk in chunks:
        assert chunk.text.split("\n")[0].strip() in lines[chunk.line_start - 1], chunk
        assert chunk.text.split("\n")[-1].strip() in lines[chunk.line_end - 1], chunk


def test_chunks_follow_headings_with_paths_and_file_line_ranges():
    chunks = note("Projects/Garden Planner.md").chunks
    assert [(c.heading_path, c.line_start, c.line_end) for c in chunks] == [
        (("Garden Planner", "Garden Planner"), 6, 8),
        (("Garden Planner", "Garden Planner", "Goals", "Version 1"), 12, 15),
        (("Garden Planner", "Garden Planner", "Goals", "Version 2"), 17, 19),
        (("Garden Planner", "Garden Planner", "Team"), 21, 23),
        (("Garden Planner", "Garden Planner", "Nested tags"), 27, 30),
    ]  # "Goals" and "Empty heading" have no text of their own
    assert_chunk_lines_match_file("Projects/Garden Planner.md", chunks)


def test_text_before_the_first_heading_and_notes_without_headings():
    mira = note("People/Mira Chen.md")
    assert mira.chunks[0] == Chunk(("Mira Chen",), "Mira Chen is a product designer. She prefers tea to coffee.", 7, 7)
    reading = note("Projects/Reading List.md")
    assert [(c.heading_path, c.line_start, c.line_end) for c in reading.chunks] == [(("Reading List",), 6, 9)]


def test_every_fixture_chunk_points_at_its_lines():
    for path in VAULT.rglob("*.md"):
        rel = path.relative_to(VAULT).as_posix()
        assert_chunk_lines_match_file(rel, note(rel, max_chunk_chars=80).chunks)


def test_long_sections_split_at_paragraphs_then_sentences_never_inside_words():
    paragraphs = [" ".join(f"word{p}x{i}" for i in range(30)) + "." for p in range(6)]
    sentences = " ".join(f"Sentence number {i} is here." for i in range(40))
    text = "# Long\n\n" + "\n\n".join(paragraphs) + "\n\n" + sentences + "\n"
    chunks = parse_note("n.md", text, max_chunk_chars=300).chunks
    assert all(len(c.text) <= 300 for c in chunks)
    words = set(re.findall(r"\S+", text))
    assert all(set(re.findall(r"\S+", c.text)) <= words for c in chunks)
    assert all(c.heading_path == ("n", "Long") for c in chunks)
    assert [c.text.split(" ")[0] for c in chunks[1:7]] == [f"word{p}x0" for p in range(1, 6)] + ["Sentence"]
    assert all(c.text.endswith(".") for c in chunks)
    lines = text.split("\n")
    for c in chunks:
        assert c.text.split("\n")[0] in lines[c.line_start - 1] and c.text.split("\n")[-1] in lines[c.line_end - 1]


def test_chinese_text_is_chunked_at_sentence_ends():
    parsed = note("中文/技术部周会.md", max_chunk_chars=60)
    notes = [c for c in parsed.chunks if c.heading_path == ("技术部周会", "技术部周会", "备注")]
    assert len(notes) > 2 and all(len(c.text) <= 60 for c in notes)
    assert all(c.text.endswith("。") for c in notes)  # the lone "## 备注" line is not a chunk
    assert "".join(c.text for c in notes) in (VAULT / "中文/技术部周会.md").read_text(encoding="utf-8")
    assert all(c.line_start == c.line_end == 17 for c in notes)
    first = parsed.chunks[0]
    assert "张经理在技术部主持了本周的例会" in first.text and first.line_start == 6
    assert parsed.tags == ["会议", "技术部", "项目/发布"]
    assert parsed.aliases == ["周会记录"]


def test_empty_and_blank_notes_have_no_chunks():
    assert parse_note("n.md", "").chunks == []
    assert parse_note("n.md", "---\ntags: [a]\n---\n\n  \n%% only a comment %%\n").chunks == []


def test_crlf_and_bom_keep_line_numbers():
    parsed = parse_note("n.md", "\ufeff---\r\ntags: [a]\r\n---\r\n# H\r\n\r\nText [[L]]\r\n")
    assert parsed.tags == ["a"]
    assert parsed.headings == [Heading(1, "H", 4)]
    assert parsed.links[0].line == 6
    assert parsed.chunks == [Chunk(("n", "H"), "# H\n\nText [[L]]", 4, 6)]


def test_a_five_megabyte_note_parses_in_linear_time():
    block = "## Part\n\nSome words with [[Link|alias]] and #tag and `code` here. " * 20 + "\n\n张经理在技术部。\n\n"
    text = block * (5_000_000 // len(block))
    started = time.perf_counter()
    parsed = parse_note("big.md", text)
    elapsed = time.perf_counter() - started
    assert elapsed < 15, elapsed
    assert all(len(c.text) <= 1200 for c in parsed.chunks)
    assert parsed.chunks[-1].line_end == text.count("\n") - 1
    one_line = parse_note("line.md", "x" * 2_000_000 + " `a ``b ```c " * 50_000)
    assert all(len(c.text) <= 1200 for c in one_line.chunks)


# ---------------------------------------------------------------------------- link resolution


def test_same_name_notes_resolve_by_folder_then_shortest_path():
    titles = titles_of(VAULT)
    assert sorted(titles["meeting notes"]) == ["Archive/Meeting Notes.md", "Projects/Meeting Notes.md"]
    assert resolve_link("Meeting Notes", titles, "Projects/Garden Planner.md") == "Projects/Meeting Notes.md"
    assert resolve_link("Meeting Notes", titles, "Archive/Old.md") == "Archive/Meeting Notes.md"
    assert resolve_link("Meeting Notes", titles, "Daily/2026-03-02.md") == "Archive/Meeting Notes.md"  # shorter
    assert resolve_link("Projects/Meeting Notes", titles, "Archive/Old.md") == "Projects/Meeting Notes.md"


def test_resolution_by_path_name_alias_and_attachment():
    titles = titles_of(VAULT)
    assert resolve_link("Projects/Garden Planner.md", titles, "Home.md") == "Projects/Garden Planner.md"
    assert resolve_link("garden planner", titles, "Home.md") == "Projects/Garden Planner.md"
    assert resolve_link("Mira", titles, "Home.md") == "People/Mira Chen.md"  # alias
    assert resolve_link("周会记录", titles, "Home.md") == "中文/技术部周会.md"
    assert resolve_link("pixel.png", titles, "Home.md") == "Images/pixel.png"
    assert resolve_link("../People/Mira Chen", titles, "Projects/Garden Planner.md") == "People/Mira Chen.md"
    assert resolve_link("Nowhere", titles, "Home.md") is None
    assert resolve_link("Wrong/Mira Chen", titles, "Home.md") is None
    assert resolve_link("", titles, "Home.md") is None


def test_exact_path_beats_the_same_folder():
    titles = {"note": ["Note.md", "Sub/Note.md"]}
    assert resolve_link("Note", titles, "Sub/Other.md") == "Note.md"
    assert resolve_link("Sub/Note", titles, "Other.md") == "Sub/Note.md"


@pytest.mark.parametrize("root", [VAULT, SAMPLE_VAULT], ids=["fixture_vault", "sample_vault"])
def test_every_link_in_the_vaults_resolves(root):
    titles = titles_of(root)
    notes = [parse_note(p.relative_to(root).as_posix(), p.read_text(encoding="utf-8")) for p in root.rglob("*.md")]
    assert len(notes) >= 8
    unresolved = [(n.path, l.target) for n in notes for l in n.links if resolve_link(l.target, titles, n.path) is None]
    assert unresolved == []
    assert all(n.frontmatter_error is None for n in notes if n.title != "Broken YAML")


def test_sample_vault_holds_the_demo_facts():
    trip = parse_note("Trips/Lisbon 2026.md", (SAMPLE_VAULT / "Trips/Lisbon 2026.md").read_text(encoding="utf-8"))
    assert "The Lisbon trip is booked for 12 May 2026, flight TP1351" in trip.chunks[0].text
    assert trip.dates["date"] == datetime(2026, 5, 12, tzinfo=timezone.utc)


def test_chunk_size_must_be_positive():
    with pytest.raises(ValueError, match="max_chunk_chars"):
        parse_note("n.md", "text", max_chunk_chars=0)
