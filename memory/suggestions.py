"""A freshly linked vault: what was indexed, and first questions drawn from its titles, tags, headings and entities."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

if TYPE_CHECKING:
    from .store import Store

CJK = re.compile(r"[\u3400-\u9fff]")
PERSON_LABELS = ("PERSON",)
PLACE_OR_ORG_LABELS = ("ORG", "GPE", "LOC", "FAC")
OUTLINED_NOTES = 200  # the most linked notes are enough to draw five questions from
OUTLINE_CHARS = 4000
NOT_NAMES = ("DATE", "TIME", "MONEY", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "EMAIL", "ID", "TAG", "NOTE")
MIN_MENTIONS = 2  # an entity named once may be a misreading; one named twice is worth asking about


@dataclass(frozen=True)
class NoteOutline:
    """What a question can be drawn from: a note's path, title, tags, headings, how often it is linked, its text."""

    path: str
    title: str
    tags: tuple[str, ...] = ()
    headings: tuple[str, ...] = ()
    links_in: int = 0
    text: str = ""

    @property
    def folder(self) -> str:
        return self.path.rsplit("/", 1)[0].casefold() if "/" in self.path else ""

    def tagged(self, *names: str) -> bool:
        """Carries one of the tags (or a nested tag under it: `project/active` counts as `project`)."""
        return any(tag.casefold().lstrip("#").split("/")[0] in names for tag in self.tags)

    def in_folder(self, *names: str) -> bool:
        return any(part in names for part in self.folder.split("/") if part)

    def has_heading(self, *words: str) -> bool:
        return any(word in heading.casefold() for heading in self.headings for word in words)


HEADING = re.compile(r"(?m)^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")


def headings_of(text: str) -> tuple[str, ...]:
    """The markdown headings in a note's text, in order."""
    return tuple(h.strip() for h in HEADING.findall(text or ""))


def _who(title: str) -> str:
    return f"{title}是谁？" if CJK.search(title) else f"Who is {title}?"


def _trip(note: NoteOutline) -> str:
    return f"When is the {note.title if 'trip' in note.title.casefold() else note.title + ' trip'}?"


def _project(note: NoteOutline) -> str:
    if re.search(r"\b(deadline|due)\b", note.text, re.I):
        return f"What is the deadline for {note.title}?"
    if note.has_heading("task", "todo", "to do"):
        return f"What is still to do for {note.title}?"
    return f"What is the status of {note.title}?"


def _about_me(note: NoteOutline) -> str:
    if note.has_heading("work", "job", "career"):
        return "Where do I work now?"
    if note.has_heading("home", "live"):
        return "Where do I live?"
    return "What do my notes say about me?"


# (which notes, the question) in the order the kinds are offered
KINDS: list[tuple[Callable[[NoteOutline], bool], Callable[[NoteOutline], str]]] = [
    (lambda n: n.tagged("trip", "travel") or n.in_folder("trips", "travel"), _trip),
    (lambda n: (n.tagged("person", "people") or n.in_folder("people", "persons")) and not n.tagged("me"),
     lambda n: _who(n.title)),
    (lambda n: n.tagged("project") or n.in_folder("projects"), _project),
    (lambda n: n.tagged("me") or n.title.casefold() in ("about me", "me"), _about_me),
    (lambda n: n.tagged("reading", "books") or n.has_heading("reading now", "currently reading"),
     lambda n: "Which book am I reading right now?"),
    (lambda n: n.tagged("recipe", "recipes") or n.in_folder("recipes"), lambda n: f"How do I make {n.title}?"),
]


@dataclass(frozen=True)
class Suggestion:
    """A question to start with, and the note it was drawn from (None when drawn from an entity)."""

    question: str
    note: str | None = None


def suggested_questions(notes: Sequence[NoteOutline], entities: Iterable[tuple[str, str, int]] = (),
                        limit: int = 5) -> list[Suggestion]:
    """Up to `limit` questions a newcomer can ask about this vault, one per kind of note first (a trip, a
    person, a project, the owner, reading, a recipe), the most linked note of each kind; then the most
    mentioned people, organisations and places; then the most linked notes. No note is asked about twice."""
    ranked = sorted(notes, key=lambda n: (-n.links_in, n.path))
    chosen: list[Suggestion] = []

    def add(question: str, note: NoteOutline | None = None) -> None:
        taken = {c.question.casefold() for c in chosen} | {c.note for c in chosen if c.note}
        if len(chosen) < limit and question.casefold() not in taken and (note is None or note.path not in taken):
            chosen.append(Suggestion(question, note.path if note else None))

    for matches, ask in KINDS:
        found = next((n for n in ranked if matches(n)), None)
        if found is not None:
            add(ask(found), found)
    titles = {n.title.casefold() for n in ranked}
    mentioned = sorted((e for e in entities if e[2] >= MIN_MENTIONS), key=lambda e: (-e[2], e[0]))
    for name, label, _ in mentioned:
        if name.casefold() in titles:
            continue  # its note is offered below, as a note
        if label in PERSON_LABELS and " " in name.strip():
            add(_who(name))
        elif label in PLACE_OR_ORG_LABELS:
            add(f"What do my notes say about {name}?")
    for note in ranked:
        add(f"What is in my note {note.title}?", note)
    return chosen


@dataclass(frozen=True)
class VaultSummary:
    """What indexing produced: live notes, their memories, the dated facts among them, entities."""

    notes: int
    memories: int
    dated_facts: int
    entities: int


def vault_summary(store: "Store") -> VaultSummary:
    memories, dated = store.note_memory_counts()
    return VaultSummary(store.live_note_count(), memories, dated, store.count("entities"))


def note_outlines(store: "Store", limit: int = OUTLINED_NOTES) -> list[NoteOutline]:
    """The most linked live notes, outlined for suggested_questions."""
    return [NoteOutline(ref, title or ref.rsplit("/", 1)[-1].removesuffix(".md"), tuple(tags), headings_of(text),
                        links, text[:OUTLINE_CHARS])
            for ref, title, links, tags, text in store.note_outline_rows(limit)]


def questions_for(store: "Store", limit: int = 5) -> list[Suggestion]:
    """Suggested questions for the vault in the store."""
    return suggested_questions(note_outlines(store), store.entity_mention_counts(NOT_NAMES), limit)
