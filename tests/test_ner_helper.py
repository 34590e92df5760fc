"""spaCy's NER on a big batch shared with a helper process: the same entities, and a helper that fails
costs nothing but time."""
from __future__ import annotations

import logging
import os
import signal
import time

import pytest

from memory.extract import prefetch_entities
from memory.extract.entities import ner_rows
from memory.extract.ner_helper import (MIN_SEGMENTS, helper_chunks, helper_pid, shared_ner, stop_helper,
                                       usable_cores)

PEOPLE = ["Alice Moreno", "Bob Chen", "Priya Natarajan", "Tomasz Kowalski", "Fatima Haddad", "Kenji Watanabe"]
PLACES = ["Lisbon", "Toronto", "Nairobi", "Melbourne", "Oslo", "Bogotá"]
# the helper's own rule: with one usable core there is no helper, and these tests have nothing to watch
needs_two_cores = pytest.mark.skipif(usable_cores() < 2, reason="a helper process needs a second usable core")
FIRMS = ["Google", "Deloitte", "the Red Cross", "Siemens", "Unilever"]


def sentences(count: int, seed: int) -> list[str]:
    """Distinct sentences with people, places and organisations for spaCy's NER to find."""
    out = []
    for n in range(count):
        i = n + seed
        out.append(f"{PEOPLE[i % 6]} met {PEOPLE[(i // 6) % 6]} in {PLACES[(i // 3) % 6]} to talk about "
                   f"{FIRMS[i % 5]} on day {i} of the trip.")
    return out


@pytest.fixture(autouse=True)
def fresh_helper(monkeypatch):
    monkeypatch.delenv("ENGRAM_NER_HELPER", raising=False)
    stop_helper()
    yield
    stop_helper()


def shared_until_the_helper_answers(seed: int) -> tuple[list[str], list]:
    """A batch shared with the helper; a helper still loading its model may answer none of the first."""
    before = helper_chunks()
    for attempt in range(8):
        segments = sentences(2 * MIN_SEGMENTS, seed + 1000 * attempt)
        rows = shared_ner(segments, ner_rows)
        if helper_chunks() > before:
            return segments, rows
    pytest.fail("the helper process answered no chunk in 8 batches")


@needs_two_cores
def test_a_big_batch_shared_with_the_helper_finds_what_one_process_finds():
    segments, rows = shared_until_the_helper_answers(seed=0)
    assert helper_pid() is not None
    assert rows == ner_rows(segments)
    assert any(label == "PERSON" for found in rows for _, _, label, _ in found)


@needs_two_cores
def test_prefetching_a_chat_import_uses_the_helper():
    before = helper_chunks()
    for attempt in range(8):
        prefetch_entities(sentences(2 * MIN_SEGMENTS, 50_000 + 1000 * attempt))
        if helper_chunks() > before:
            break
    assert helper_chunks() > before


@needs_two_cores
def test_a_helper_that_dies_leaves_the_batch_whole_and_is_not_started_again(caplog):
    shared_until_the_helper_answers(seed=100_000)
    os.kill(helper_pid(), signal.SIGKILL)
    time.sleep(0.2)
    segments = sentences(2 * MIN_SEGMENTS, 200_000)
    with caplog.at_level(logging.WARNING, logger="memory.extract.ner_helper"):
        rows = shared_ner(segments, ner_rows)
        deadline = time.monotonic() + 10
        while "NER helper process failed" not in caplog.text and time.monotonic() < deadline:  # its feeder's word
            time.sleep(0.05)
    assert "NER helper process failed" in caplog.text
    assert rows == ner_rows(segments)
    answered = helper_chunks()
    assert shared_ner(sentences(2 * MIN_SEGMENTS, 300_000), ner_rows)
    assert helper_pid() is None and helper_chunks() == answered


def test_small_batches_and_the_off_switch_keep_ner_in_this_process(monkeypatch):
    small = sentences(MIN_SEGMENTS - 1, 400_000)
    assert shared_ner(small, ner_rows) == ner_rows(small)
    assert helper_pid() is None
    monkeypatch.setenv("ENGRAM_NER_HELPER", "off")
    big = sentences(2 * MIN_SEGMENTS, 500_000)
    assert shared_ner(big, ner_rows) == ner_rows(big)
    assert helper_pid() is None
