"""A template's block (the same footer in many notes) is found by its words only: no copy is embedded."""
from pathlib import Path

import numpy as np

from memory.chatlog import ChatMessage
from memory.embed import HashingEmbedder
from tests.helpers import at, open_engram
from tests.test_vector_fill import stored_vector
from vault_sync.sync import VaultIndexer

BODY = "The zqword{n} project keeps its notes here. " * 16  # long enough to be a chunk of its own
FOOTER = ("## This note in GitHub\n\n[Edit In GitHub](https://github.dev/hub/Note%20{n}.md) | "
          "[Copy this note](https://raw.githubusercontent.com/hub/Note%20{n}.md)\n")
PAIR = "## Quokkas\n\nOnly two notes hold this paragraph about quokkas on Rottnest Island.\n"


class CountingEmbedder(HashingEmbedder):
    """The hashing embedder, noting every text it is asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def embed(self, texts):
        self.asked += list(texts)
        return super().embed(texts)


def write_note(vault: Path, n: int, *, pair: bool = False) -> None:
    text = f"# Note {n}\n\n{BODY.format(n=n)}\n\n{FOOTER.format(n=n)}"
    (vault / f"Note {n}.md").write_text(text + (f"\n{'x' * 700}\n\n{PAIR}" if pair else ""), encoding="utf-8")


def make_vault(folder: Path, notes: int = 8) -> Path:
    folder.mkdir(parents=True)
    for n in range(notes):
        write_note(folder, n, pair=n < 2)
    return folder


def memories_with(eng, words: str) -> list[int]:
    return [i for i, text in eng.store.memory_texts() if words in text]


def test_a_block_in_many_notes_is_found_by_its_words_and_never_embedded(tmp_path):
    vault = make_vault(tmp_path / "vault")
    embedder = CountingEmbedder()
    with open_engram(embedder=embedder) as eng:
        VaultIndexer(eng, vault, bulk_notes=3).sync_all()  # a bulk pass: 8 notes
        footers = memories_with(eng, "Edit In GitHub")
        assert len(footers) == 8
        assert not any(stored_vector(eng, i).any() for i in footers)  # zero, as for a note too large
        assert not eng.index.vectors[[eng.index.row_of[i] for i in footers]].any()
        assert not [text for text in embedder.asked if "Edit In GitHub" in text]
        assert eng.store.pending_vector_count() == 0
        pairs = memories_with(eng, "quokkas")  # in two notes only: not a template's
        assert len(pairs) == 2 and all(stored_vector(eng, i).any() for i in pairs)
        assert stored_vector(eng, memories_with(eng, "zqword3")[0]).any()
        assert eng.check().clean
        assert "Note 5.md" in [r.provenance.ref for r in eng.recall("Copy this note", k=10).results]


def test_a_note_the_watcher_sees_later_knows_the_blocks(tmp_path):
    vault = make_vault(tmp_path / "vault")
    with open_engram() as eng:
        VaultIndexer(eng, vault, bulk_notes=3).sync_all()
    write_note(vault, 42)
    with open_engram() as eng:  # the blocks a bulk pass found are kept in the store
        VaultIndexer(eng, vault).sync_paths(["Note 42.md"])
        footer = max(memories_with(eng, "Edit In GitHub"))
        assert "Note%2042" in eng.store.memories_by_id([footer])[footer].content
        assert not stored_vector(eng, footer).any()
        assert stored_vector(eng, memories_with(eng, "zqword42")[0]).any()


def test_a_text_given_more_than_once_is_embedded_once(tmp_path):
    embedder = CountingEmbedder()
    with open_engram(embedder=embedder) as eng:
        texts = ["thanks!", "I moved to Leeds in May", "thanks!", "ok", "thanks!"]
        eng.import_messages([ChatMessage(t, session_id="s", at=at(f"2025-01-01T09:0{n}:00"), message_id=f"m{n}")
                             for n, t in enumerate(texts)])
        assert embedder.asked.count("thanks!") == 1
        vectors = {text: stored_vector(eng, eng.store.query("SELECT id FROM memories WHERE message_id = ?",
                                                                [f"m{n}"])[0][0]) for n, text in enumerate(texts)}
        assert np.array_equal(vectors["thanks!"], embedder.embed(["thanks!"])[0])
