"""A chat turn is also found by the words of the turns before it, as context keys: a second, lighter
BM25 field, so a long earlier turn cannot outweigh what a turn says itself."""
import numpy as np
import pytest

from memory.index import CONTEXT_WEIGHT, Filters, HybridIndex, context_key, document_length
from tests.helpers import at, open_engram


def two_rows() -> HybridIndex:
    """Row 1 says 'greyhound' and follows 'walk'; row 2 says 'walk' and follows 'greyhound'."""
    index = HybridIndex(dim=1)
    for memory_id, tokens in ((1, ["greyhound", context_key("walk")]), (2, ["walk", context_key("greyhound")])):
        index.add(memory_id=memory_id, type_="chat_turn", tokens=tokens, vector=np.ones(1, np.float32),
                  valid_from=0, valid_until=np.inf, recorded=0, superseded=np.inf)
    return index


def test_a_turns_own_word_outranks_the_same_word_in_its_context():
    index = two_rows()
    keep = index.mask(Filters(as_of=10))
    greyhound = dict(index.bm25(["greyhound"], keep, 5))
    walk = dict(index.bm25(["walk"], keep, 5))
    assert set(greyhound) == {1, 2} and greyhound[1] > greyhound[2]  # found by context, ranked below
    assert set(walk) == {1, 2} and walk[2] > walk[1]
    assert index.term_coverage(2, ["greyhound"]) == 1.0


def test_context_keys_count_lighter_in_a_turns_length():
    tokens = ["thanks", *(context_key(w) for w in ["walk", "greyhound", "leash", "park"])]
    assert document_length(tokens) == pytest.approx(1 + 4 * CONTEXT_WEIGHT)
    assert CONTEXT_WEIGHT < 1


def conversation(eng) -> None:
    """A statement, then later a question answered by a long reply that repeats the question's words."""
    turns = [
        ("s1", "user", "I adopted a greyhound called Pixel last spring."),
        ("s1", "assistant", "Congratulations on the new family member!"),
        ("s2", "user", "Any tips for walking a greyhound on a lead in a busy city park?"),
        ("s2", "assistant", "Sighthounds chase: keep yours on a lead near roads, use a martingale collar because "
                            "a greyhound's neck is wider than its head, walk early when the park is quiet, and "
                            "bring water, treats and a warm coat in winter."),
        ("s2", "user", "Thanks, that helps a lot."),
    ]
    for n, (session, role, text) in enumerate(turns):
        eng.remember(text, role=role, session_id=session, at=at(f"2026-03-0{n + 1}T08:00:00"),
                     message_id=f"{session}-{n}")


def test_a_reply_is_found_by_what_was_asked_before_it(tmp_path):
    with open_engram(tmp_path) as eng:
        conversation(eng)
        stored = dict(eng.store.query("SELECT message_id, tokens FROM memories WHERE type = 'chat_turn'"))
        thanks = stored["s2-4"].split()
        (collar,) = eng.tokenize("martingale")
        assert context_key(collar) in thanks and collar not in thanks
        assert context_key("greyhound") in thanks and "greyhound" not in thanks
        found = [r.unit.message_id for r in eng.recall("martingale collar", k=5).results]
        assert found[0] == "s2-3" and "s2-4" in found  # the reply itself first, the turn after it found too


def keyword_ranking(eng, query: str) -> list[str]:
    keep = eng.index.mask(Filters(as_of=at("2026-04-01T00:00:00").timestamp(), types=("chat_turn",)))
    message = dict(eng.store.query("SELECT id, message_id FROM memories"))
    return [message[i] for i, _ in eng.index.bm25(eng.tokenize(query), keep, 10)]


def test_a_long_earlier_turn_does_not_outweigh_a_statement(tmp_path):
    with open_engram(tmp_path) as eng:
        conversation(eng)
        ranked = keyword_ranking(eng, "greyhound")
        assert ranked.index("s1-0") < ranked.index("s2-4")  # the user's statement above "thanks, that helps"
    with open_engram(tmp_path) as eng:  # the same from the index read back on reopening
        assert keyword_ranking(eng, "greyhound") == ranked


def burst_chat() -> list:
    """Two people in a chat app: a question, then the answer sent as a burst of short messages."""
    from memory import ChatMessage

    said = [("Ben", "Did you hear back about the job interview?"), ("Ana", "omg"), ("Ana", "yes!!"),
            ("Ana", "Arup said yes, I start in March"), ("Ben", "Amazing, congrats"), ("Ana", "thanks!")]
    return [ChatMessage(content=text, role="user", speaker=speaker, session_id="app", message_id=f"m{n}",
                        at=at(f"2026-03-01T08:00:{n:02d}")) for n, (speaker, text) in enumerate(said)]


def stored_tokens(eng) -> dict[str, list[str]]:
    return {m: t.split() for m, t in eng.store.query("SELECT message_id, tokens FROM memories WHERE type = 'chat_turn'")}


def test_a_message_sent_in_a_burst_is_found_by_the_question_the_burst_answers(tmp_path):
    with open_engram(tmp_path) as eng:
        eng.import_messages(burst_chat())
        tokens = stored_tokens(eng)
        # Ana's third message continues her turn: read against its first two messages and Ben's question
        assert context_key("job") in tokens["m3"] and context_key("interview") in tokens["m3"]
        assert "m3" in keyword_ranking(eng, "job interview")  # it says neither word itself
        # Ben's reply starts a turn: read against Ana's turn and his own question, not only her last words
        assert context_key("arup") in tokens["m4"] and context_key("job") in tokens["m4"]
        # Ana's "thanks!" answers Ben's turn and her own before it; his question is two turns back
        (congrats,) = eng.tokenize("congrats")
        assert context_key(congrats) in tokens["m5"] and context_key("job") not in tokens["m5"]


def test_a_turn_split_over_two_imports_has_the_context_of_one(tmp_path):
    chat = burst_chat()
    with open_engram(tmp_path / "one") as eng:
        eng.import_messages(chat)
        whole = stored_tokens(eng)
    with open_engram(tmp_path / "two") as eng:
        eng.import_messages(chat[:2])
        eng.import_messages(chat[2:])
        assert stored_tokens(eng) == whole


def test_a_session_with_one_speaker_is_read_message_by_message(tmp_path):
    """A chat exported with only the user's side: no reply between the messages, so no turns to tell apart."""
    from memory import ChatMessage

    said = ["Planning a trip to Lisbon in May.", "Which neighbourhood is best for food?", "Booked the flights!",
            "Also need a gift for my sister."]
    with open_engram(tmp_path) as eng:
        eng.import_messages([ChatMessage(content=text, role="user", session_id="mine", message_id=f"u{n}",
                                         at=at(f"2026-03-01T08:0{n}:00")) for n, text in enumerate(said)])
        tokens = stored_tokens(eng)
        assert context_key("lisbon") in tokens["u2"]  # two messages back
        assert context_key("lisbon") not in tokens["u3"] and context_key("flight") in tokens["u3"]
