"""First run: what indexing a vault produced, and suggested questions that each lead to an answer."""
from pathlib import Path

import pytest

from memory.suggestions import NoteOutline, Suggestion, questions_for, suggested_questions, vault_summary
from tests.helpers import open_engram
from vault_sync.sync import VaultIndexer

ROOT = Path(__file__).resolve().parents[1]
VAULTS = [ROOT / "sample_vault", ROOT / "tests" / "fixtures" / "vault"]


def notes_in(vault: Path) -> int:
    return sum(1 for p in vault.rglob("*.md") if not any(part.startswith(".") for part in p.relative_to(vault).parts))


@pytest.mark.parametrize("vault", VAULTS, ids=lambda v: v.name)
def test_each_suggested_question_recalls_the_note_it_was_drawn_from(vault):
    with open_engram() as eng:
        VaultIndexer(eng, vault).sync_all()
        suggestions = questions_for(eng.store)
        assert 3 <= len(suggestions) <= 5, suggestions
        assert len({s.question for s in suggestions}) == len(suggestions)
        drawn = [s.note for s in suggestions if s.note]
        assert len(drawn) == len(set(drawn)), suggestions  # no note asked about twice
        for suggestion in suggestions:
            found = [r.provenance.ref for r in eng.recall(suggestion.question, k=3).results]
            assert found, suggestion
            if suggestion.note:
                assert suggestion.note in found, (suggestion, found)


def test_the_summary_counts_what_indexing_produced():
    vault = VAULTS[0]
    with open_engram() as eng:
        VaultIndexer(eng, vault).sync_all()
        summary = vault_summary(eng.store)
        open_note_memories = eng.store.query(
            "SELECT count(*) FROM memories m JOIN sources s ON s.id = m.source_id "
            "WHERE s.kind = 'note' AND m.superseded_at IS NULL")[0][0]
        assert summary.notes == notes_in(vault)
        assert summary.memories == open_note_memories >= summary.notes
        dated = eng.store.query("SELECT count(*) FROM memories WHERE attribute LIKE 'dated:%'")[0][0]
        assert 0 < summary.dated_facts == dated < summary.memories
        assert summary.entities == eng.store.count("entities") > 0
        eng.remember("I drink oat latte")  # a chat memory is not part of the vault's summary
        assert vault_summary(eng.store).memories == summary.memories


def test_one_question_per_kind_of_note_then_entities_then_notes():
    notes = [
        NoteOutline("Trips/Kyoto.md", "Kyoto", tags=("travel",), links_in=1),
        NoteOutline("People/Ana Reis.md", "Ana Reis", tags=("person",), links_in=5),
        NoteOutline("People/Bo.md", "Bo", tags=("person",), links_in=1),
        NoteOutline("人物/王芳.md", "王芳", tags=("people",), links_in=0),
        NoteOutline("Projects/Shed.md", "Shed", tags=("project/active",), text="Deadline: 1 June"),
        NoteOutline("Inbox.md", "Inbox", links_in=9),
    ]
    entities = [("Porto", "GPE", 4), ("Ana Reis", "PERSON", 7), ("Once Only", "ORG", 1), ("Redesign", "PERSON", 3)]
    got = suggested_questions(notes, entities, limit=5)
    assert got == [
        Suggestion("When is the Kyoto trip?", "Trips/Kyoto.md"),
        Suggestion("Who is Ana Reis?", "People/Ana Reis.md"),  # the most linked person
        Suggestion("What is the deadline for Shed?", "Projects/Shed.md"),
        Suggestion("What do my notes say about Porto?"),  # a place named often; one-word "people" are not asked
        Suggestion("What is in my note Inbox?", "Inbox.md"),
    ]
    assert [s.question for s in suggested_questions(notes[3:4], limit=3)] == ["王芳是谁？"]  # Chinese names, a Chinese question
    assert suggested_questions([], limit=5) == []
