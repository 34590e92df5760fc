"""A vault's template blocks: chunks whose text recurs in many notes.

Notes made from a template repeat its blocks: a footer of "edit this note" links, a row of badges, a
weekly "pending plugins" paragraph. On obsidian-hub 9,641 of 19,338 chunks are 16 such blocks. Each
copy was embedded with its note's title in front, so each cost an embedding (over a quarter of the hub's
vector time) and each ranked by meaning for its note's title ("how to sync obsidian with git" put two
footers 3rd and 4th). A block that every note says tells nothing of the note it is in, so a template's
block is found by its words only, like a note too large for meaning search; had the copies been given
the block's own vector instead, every copy would tie for any query near it and crowd the meaning side.

A block is a template's when its text, links read as their words, is in `TEMPLATE_NOTES` or more notes
of one bulk pass. What a bulk pass finds is kept in the store's meta (`META_KEY`), so a note the
watcher sees later is read the same way. Only a hash of each block is kept.
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Iterable

from memory.embed import meaning_text

TEMPLATE_NOTES = 3
KEPT_BLOCKS = 1000  # the most frequent, should a vault have more
META_KEY = "vault_template_blocks"


def block_key(text: str) -> str:
    """The same for every copy of a block: what a model reads of it (links as their words), whitespace
    and case folded, hashed."""
    return hashlib.sha1(" ".join(meaning_text(text).casefold().split()).encode("utf-8")).hexdigest()[:20]


class TemplateBlocks:
    """The keys of a vault's template blocks."""

    def __init__(self, keys: Iterable[str] = ()) -> None:
        self.keys = set(keys)

    @classmethod
    def from_meta(cls, value: str | None) -> "TemplateBlocks":
        try:
            keys = json.loads(value) if value else []
        except ValueError:
            keys = []  # a damaged value: the next bulk pass finds the blocks again
        return cls(k for k in keys if isinstance(k, str)) if isinstance(keys, list) else cls()

    def as_meta(self) -> str:
        return json.dumps(sorted(self.keys))

    def learn(self, notes: Iterable[Iterable[str]]) -> None:
        """Count each chunk text once per note (of the notes' chunk texts) and keep the blocks found in
        TEMPLATE_NOTES or more."""
        counts: Counter[str] = Counter()
        for chunks in notes:
            counts.update({block_key(text) for text in chunks})
        found = [key for key, n in counts.most_common(KEPT_BLOCKS) if n >= TEMPLATE_NOTES]
        self.keys = set(found) | set(sorted(self.keys - set(found))[: max(0, KEPT_BLOCKS - len(found))])

    def holds(self, chunk_text: str) -> bool:
        """Is this chunk a template's block?"""
        return bool(self.keys) and block_key(chunk_text) in self.keys
