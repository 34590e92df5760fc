"""Recall end to end over a real DuckDB file: knowledge updates, time travel, feedback, forget."""
from datetime import timedelta

import pytest

from memory import ChatMessage, NotFoundError
from tests.helpers import at, by_text, open_engram


@pytest.fixture
def eng():
    engram = open_engram()
    yield engram
    engram.close()


def ids(result):
    return [r.unit.id for r in result.results]


def test_knowledge_update_english(eng):
    eng.remember("I drink Americano every morning.", at=at("2026-03-02T08:00:00"))
    eng.remember("I switched to oat latte.", at=at("2026-05-03T08:00:00"))
    now = eng.recall("what coffee do I drink")
    said, first = now.results[:2]  # the user's message, then the fact read from it
    assert said.unit.content == "I switched to oat latte." and said.valid
    assert "latte" in first.unit.content.lower() and first.valid and first.unit.type == "user_profile"
    americano = [r for r in now.results if "americano" in r.unit.content.lower() and r.unit.type != "chat_turn"]
    assert americano and not americano[0].valid and americano[0].unit.superseded_by == first.unit.id
    assert not by_text(now.results, "Americano every morning").valid  # the message it was read from, too
    assert now.confident

    april = eng.recall("what coffee do I drink", as_of=at("2026-04-15T00:00:00"))
    assert "americano" in april.results[0].unit.content.lower() and april.results[0].valid
    assert all("latte" not in r.unit.content.lower() for r in april.results)


def test_knowledge_update_chinese(eng):
    eng.remember("我喝美式咖啡。", at=at("2026-03-02T08:00:00"))
    eng.remember("我改喝拿铁了。", at=at("2026-05-03T08:00:00"))
    now = eng.recall("我现在喝什么咖啡")
    assert "拿铁" in now.results[0].unit.content and now.results[0].valid
    old = [r for r in now.results if "美式" in r.unit.content and r.unit.type != "chat_turn"]
    assert old and not old[0].valid
    april = eng.recall("我喝什么咖啡", as_of=at("2026-04-15T00:00:00"))
    assert "美式" in april.results[0].unit.content and april.results[0].valid


def test_restating_a_value_confirms_instead_of_superseding(eng):
    eng.remember("I drink Americano.", at=at("2026-03-02T08:00:00"))
    report = eng.remember("I drink americano.", at=at("2026-03-09T08:00:00"))
    assert report.confirmations == 1 and report.superseded == 0
    holders = eng.store.open_slot_holders("user", "drink_preference")
    assert len(holders) == 1


def test_provenance_points_at_the_message(eng):
    eng.remember("remember that the staging server is db-stage-07", at=at("2026-02-01T10:00:00"),
                 session_id="ops", message_id="msg-42")
    result = eng.recall("which staging server")
    top = result.results[0]
    assert top.provenance.kind == "chat" and top.provenance.ref == "ops"
    assert top.provenance.message_id == "msg-42"


def test_exact_id_rule_beats_similar_text(eng):
    eng.remember("Order ORD-2024-0042 was refunded on Monday.", at=at("2026-01-05T10:00:00"))
    eng.remember("Order ORD-2024-0043 shipped to Berlin.", at=at("2026-01-05T11:00:00"))
    result = eng.recall("what happened to ORD-2024-0043")
    assert "0043" in result.results[0].unit.content
    assert any("exact id" in why for why in result.results[0].why)


def test_feedback_changes_relevance_within_bounds(eng):
    eng.remember("I prefer short answers.", at=at("2026-01-05T10:00:00"))
    memory_id = eng.store.open_slot_holders("user", "answer_style")[0].id
    for _ in range(15):
        relevance = eng.feedback(memory_id, used=True)
    assert relevance == 2.0
    for _ in range(10):
        relevance = eng.feedback(memory_id, wrong=True)
    assert relevance == 0.1
    assert eng.store.memory(memory_id).use_count == 15


def test_forget_removes_everywhere_and_audits_without_content(eng):
    eng.remember("remember that my locker code is 7312", at=at("2026-01-05T10:00:00"))
    hit = eng.recall("locker code").results[0]
    eng.forget(hit.unit.id, reason="user asked")
    assert hit.unit.id not in ids(eng.recall("locker code"))
    with pytest.raises(NotFoundError):
        eng.store.memory(hit.unit.id)
    audit = eng.store.query("SELECT action, target, detail FROM audit")
    assert ("forget", f"memory:{hit.unit.id}") in [(a, t) for a, t, _ in audit]
    assert all("7312" not in detail for _, _, detail in audit)


def test_archived_memories_are_kept_but_not_recalled(eng):
    eng.remember("I drink Americano.", at=at("2026-03-02T08:00:00"))
    americano = eng.store.open_slot_holders("user", "drink_preference")[0].id
    eng.remember("I switched to oat latte.", at=at("2026-05-03T08:00:00"))
    archived = eng.archive_stale()
    assert archived == 1  # the superseded Americano
    kept = eng.store.memory(americano)  # still stored: archiving never deletes
    assert kept.archived and "Americano" in kept.content
    april = at("2026-04-01T00:00:00")  # when the Americano was still true
    assert americano not in ids(eng.recall("coffee Americano", as_of=april))
    assert americano in ids(eng.recall("coffee Americano", as_of=april, include_archived=True))


def test_session_state_ttl_and_dual_extension(eng):
    from memory.changes import Changes, NewMemory
    from memory.model import ExtractedEntity, MemoryUnit
    start = at("2026-06-01T09:00:00")
    unit = MemoryUnit(content="Working on the Atlas migration", type="session_state", valid_from=start,
                      recorded_at=start, valid_until=start + timedelta(minutes=30), session_id="s1")
    eng.apply(Changes(memories=[NewMemory(unit, unit.content, [ExtractedEntity("Atlas", "PROJECT")])]))
    assert not eng.recall("Atlas migration", as_of=start + timedelta(hours=2)).results
    for minute in range(3):
        eng.writer.note_mentions("s1", {"Atlas"}, start + timedelta(minutes=minute))
    later = eng.recall("Atlas migration", as_of=start + timedelta(hours=2))
    assert later.results and later.results[0].unit.id == unit.id


def test_nonsense_query_is_not_confident(eng):
    eng.remember("I drink Americano.", at=at("2026-03-02T08:00:00"))
    result = eng.recall("zxqv wobble frumious")
    assert not result.confident


def test_store_survives_reopen_with_index_rebuilt(tmp_path):
    first = open_engram(tmp_path / "h")
    first.remember("I live in Lisbon.", at=at("2026-01-01T00:00:00"))
    first.close()
    second = open_engram(tmp_path / "h")
    assert "Lisbon" in second.recall("where do I live").results[0].unit.content
    second.close()


def test_time_in_the_question_answers_for_that_time(eng):
    eng.remember("I live in York, near the Minster.", at=at("2024-05-01T09:00:00"), session_id="a")
    eng.remember("We finally moved into the flat in Leeds two weeks ago!", at=at("2024-06-20T09:00:00"), session_id="b")
    may = eng.recall("where did I live in May 2024", k=3).results
    assert "York" in may[0].unit.content and any("May 2024" in why for why in may[0].why)
    assert "Leeds" in eng.recall("where did I live in July 2024", k=3).results[0].unit.content
    assert "Leeds" in eng.recall("where do I live", k=3).results[0].unit.content


@pytest.mark.parametrize("turns, query, as_of, expected", [
    ([("Went hiking in the Dales with Priya.", "2025-03-08"), ("Went hiking in Snowdonia with Tom.", "2025-07-08"),
      ("Hiking plans for autumn: maybe the Lakes.", "2025-09-08")],
     "who did I go hiking with last March", "2026-01-10", "Priya"),
    ([("周日和老王去爬了泰山。", "2025-02-16"), ("周六和小李去爬了香山。", "2025-03-08"),
      ("下次想去爬黄山。", "2025-03-12")],
     "上周我和谁去爬山了", "2025-03-12T20:00:00", "小李"),
], ids=["english", "chinese"])
def test_a_period_in_the_question_ranks_memories_of_that_period_first(eng, turns, query, as_of, expected):
    for n, (text, day) in enumerate(turns):
        eng.remember(text, at=at(f"{day}T10:00:00"), session_id=f"s{n}")
    assert expected in eng.recall(query, as_of=at(as_of), k=3).results[0].unit.content


def test_a_turn_that_answers_by_rule_is_not_hidden_behind_another_fact_from_it(eng):
    """A message may state a new job and, in passing, something else the rules distil into a fact of its own."""
    from memory.recall import Pool, _collapse_turns

    def collapsed(ids: list[int], rule: list[bool]) -> list[int]:
        pool = Pool.of(eng.index, ids, [1.0] * len(ids), rule)
        return pool.ids[_collapse_turns(eng.index, pool)].tolist()

    eng.remember("I just started as a nurse at St Mary's, and my sister Ana is visiting next week.", at=at("2026-05-03T08:00:00"))
    rows = eng.store.query("SELECT id, type FROM memories ORDER BY id")
    turn = next(i for i, kind in rows if kind == "chat_turn")
    facts = [i for i, kind in rows if kind != "chat_turn"]
    assert facts, "the message should also yield a distilled memory"
    assert collapsed([turn, *facts], [True] + [False] * len(facts)) == [turn]  # the rule's answer stays; unrelated facts go
    assert collapsed([turn, *facts], [False] * (1 + len(facts))) == [turn]  # whichever ranks first stands for the message
    assert collapsed([*facts, turn], [False] * (1 + len(facts))) == facts  # a distilled memory ranked first stands for it


def test_the_rerank_weighs_recency_exactly_as_the_time_rules_do():
    """The rerank weighs every candidate at once; each weight is `recency_weight` of its valid_from."""
    import numpy as np

    from memory.clock import from_epoch, to_epoch
    from memory.recall import _recency
    from memory.temporal import recency_weight

    as_of = at("2026-05-03T08:00:00")
    moments = [at("2024-02-29T23:59:59") + timedelta(days=d, microseconds=u) for d, u in
               ((0, 0), (1, 1), (100, 999_999), (700, 123_456), (800, 500_001))]
    epochs = np.array([to_epoch(m) for m in moments] + [-np.inf, np.inf])
    expected = [recency_weight(from_epoch(e), as_of) for e in epochs[:-2]] + [1.0, 1.0]
    assert _recency(epochs, as_of).tolist() == expected  # equal to the last bit: rankings do not move
    assert expected[0] < expected[3] < 1.0 and expected[-3] == 1.0  # older weighs less; the future is fresh


def test_each_result_says_how_it_was_found_and_results_come_best_first(eng):
    eng.remember("My greyhound Biscuit loves the beach at Ocean Beach.", at=at("2026-03-02T08:00:00"))
    eng.remember("The quarterly tax return is due in April.", at=at("2026-03-03T08:00:00"))
    result = eng.recall("greyhound beach")
    first = result.results[0]
    assert "Biscuit" in first.unit.content
    assert "keywords (rank 1)" in first.why and any(why.startswith("meaning (cosine ") for why in first.why)
    assert [r.score for r in result.results] == sorted((r.score for r in result.results), reverse=True)


def test_a_recalled_memory_lists_the_entities_it_names_in_the_order_they_became_known(eng):
    eng.remember("Priya and Tomás Silva went hiking on Mount Tamalpais with Ana.", at=at("2026-03-02T08:00:00"))
    turn = eng.recall("hiking on Mount Tamalpais").results[0].unit
    expected = [name for (name,) in eng.store.query(
        """SELECT e.name FROM memory_entities me JOIN entities e ON e.id = me.entity_id
           WHERE me.memory_id = ? ORDER BY e.id""", [turn.id])]
    assert len(expected) >= 2 and turn.entities == expected


def test_memories_sharing_a_rare_entity_with_the_best_hits_join_them_at_a_discount(eng):
    from memory.index import Filters
    from memory.recall import HOP_DISCOUNT, Pool, _graph_hop

    eng.remember("I met Zoltan Kovacs at the bakery on Elm Street.", at=at("2026-03-02T08:00:00"))
    eng.remember("Zoltan Kovacs plays the cello on Sundays.", at=at("2026-03-05T08:00:00"))
    rows = eng.store.query("SELECT id, content FROM memories WHERE type = 'chat_turn' ORDER BY id")
    bakery, cello = (next(i for i, text in rows if word in text) for word in ("bakery", "cello"))
    now = at("2026-04-01T00:00:00")
    ranked = _graph_hop(eng.graph(), Pool.of(eng.index, [bakery], [0.8]), now, Filters(as_of=now.timestamp()),
                        eng.index)
    assert ranked.ids.tolist()[0] == bakery and cello in ranked.ids.tolist()
    joined = ranked.ids.tolist().index(cello)
    assert ranked.scores[joined] == pytest.approx(0.8 * HOP_DISCOUNT)
    assert ranked.graph_why[cello].startswith("graph: shares ") and ranked.rows[joined] == eng.index.row_of[cello]


def test_a_name_in_a_question_lifts_the_few_memories_that_mention_it_not_a_name_said_everywhere(eng):
    from memory.recall import NAME_MAX_MEMORIES

    eng.import_messages([ChatMessage(content=f"Zoltan Kovacs fixed bike number {n} today.", role="user",
                                     session_id="bikes", at=at(f"2026-03-{n % 28 + 1:02d}T08:00:00"),
                                     message_id=f"b{n}") for n in range(NAME_MAX_MEMORIES + 1)])
    eng.remember("Marguerite Okafor painted the shed blue.", at=at("2026-03-02T08:00:00"))
    eng.remember("Marguerite Okafor sold the old canoe.", at=at("2026-03-05T08:00:00"))
    eng.graph()  # the name rule reads the graph once it is built
    rare = eng.recall("what did Marguerite Okafor do", k=5)
    named = [r for r in rare.results if any(why.startswith("names Marguerite") for why in r.why)]
    assert len(named) == 2
    common = eng.recall("what did Zoltan Kovacs do", k=5)
    assert common.results and not any(why.startswith("names Zoltan") for r in common.results for why in r.why)


def test_the_memories_about_an_entity_are_those_valid_then_and_none_past_the_limit(eng):
    from memory.graph import entity_node

    eng.remember("Marguerite Okafor painted the shed blue.", at=at("2026-03-02T08:00:00"))
    eng.remember("Marguerite Okafor sold the old canoe.", at=at("2026-03-05T08:00:00"))
    graph = eng.graph()
    entity_id = next(i for i, name in eng.store.entities_named_in("Marguerite Okafor") if "Marguerite" in name)
    both = graph.memories_about(entity_id, at("2026-04-01T00:00:00"))
    assert len(both) == 2
    assert graph.memories_about(entity_id, at("2026-03-03T00:00:00")) == both[:1]  # the canoe was not yet said
    assert graph.memories_about(entity_id, at("2026-04-01T00:00:00"), most=2) == both
    assert graph.memories_about(entity_id, at("2026-04-01T00:00:00"), most=1) is None
    node = entity_node(entity_id)
    edges = graph.g.degree(node)
    assert edges >= 2 and graph.degree_over(node, edges - 1) and not graph.degree_over(node, edges)


def test_for_a_question_about_the_user_their_own_words_outrank_the_assistants_reply(eng):
    """The assistant's reply repeats the user's words; asked about themselves, the user's turn comes first.
    Asked what the assistant said, the reply does."""
    eng.remember("I volunteered at the Riverside food bank on Saturday.", at=at("2025-03-08T10:00:00"),
                 session_id="s1", message_id="u1")
    eng.remember("Volunteering on a Saturday? Saturday volunteers are the best volunteers!",
                 at=at("2025-03-08T10:01:00"), session_id="s1", role="assistant", message_id="a1")
    for n, chatter in enumerate(["The weather turned cold.", "Bought new running shoes.", "Watched a film."]):
        eng.remember(chatter, at=at(f"2025-03-0{n + 1}T09:00:00"), session_id=f"c{n}")
    mine = eng.recall("Where did I volunteer on Saturday?", as_of=at("2025-03-10T00:00:00"))
    assert mine.results[0].unit.message_id == "u1"
    theirs = eng.recall("What did you tell me about volunteering on Saturday?", as_of=at("2025-03-10T00:00:00"))
    assert theirs.results[0].unit.message_id == "a1"


@pytest.mark.parametrize("question, about_user", [
    ("Where did I volunteer on Saturday?", True),
    ("How many charity events did we go to?", True),
    ("我上周六去哪儿做志愿者了？", True),
    ("What did you tell me about food banks?", False),
    ("你给我推荐过什么书？", False),
    ("When is the food bank open?", False),
])
def test_a_question_in_the_first_person_not_about_the_assistant_is_about_the_user(question, about_user):
    from memory.recall import _about_user

    assert _about_user(question) is about_user


def test_in_a_store_of_a_few_memories_the_one_least_like_the_question_is_still_found(tmp_path):
    """Meaning scores run from the store's least similar memory (0) to the best match: with three memories and no
    shared word, the answer may be the least similar one by MiniLM's reckoning, and it must not be dropped."""
    from memory.embed import make_embedder

    with open_engram(tmp_path / "home", embedder=make_embedder("local")) as small:
        for text in ("I spend my days fixing people's boilers and radiators.", "Winter is my busy season.",
                     "My van smells of flux."):
            small.remember(text)
        found = [r.unit.content for r in small.recall("What's my trade?").results]
    assert len(found) == 3 and any("boilers" in text for text in found)


def test_a_question_that_adds_up_finds_a_hit_in_each_conversation_before_a_second_in_one(eng):
    """"How many …" spans conversations: the best hit of each comes before a second hit from any one. A question
    that adds nothing up, or asks for the time between two events, keeps one conversation's several hits together."""
    for n, text in enumerate(["Hiked up Snowdon with the hiking club, what a hike.",
                              "The hike down from Snowdon with the hiking club took hours."]):
        eng.remember(text, at=at(f"2025-03-01T10:0{n}:00"), session_id="march", message_id=f"m{n}")
    eng.remember("Another hike with the hiking club, this time in the Peak District.", at=at("2025-04-05T10:00:00"),
                 session_id="april", message_id="a0")
    for n, chatter in enumerate(["Painted the kitchen blue.", "The printer jammed again.", "Made a lentil soup."]):
        eng.remember(chatter, at=at(f"2025-05-0{n + 1}T09:00:00"), session_id=f"c{n}")
    as_of = at("2025-06-01T00:00:00")
    together = eng.recall("Which hike did I do with the hiking club?", as_of=as_of, k=2)
    assert {r.unit.message_id for r in together.results} == {"m0", "m1"}
    spread = eng.recall("How many hikes did I do with the hiking club?", as_of=as_of, k=2)
    assert [r.unit.session_id for r in spread.results] == ["march", "april"]
    between = eng.recall("How many days passed between the hikes with the hiking club?", as_of=as_of, k=2)
    assert {r.unit.message_id for r in between.results} == {"m0", "m1"}  # two moments, not a sum


def test_a_recalled_memory_shows_its_entities_with_their_qualifiers_and_new_ones_at_once(eng):
    """The names come from the table of entities kept in memory: a qualified one shows as name@qualifier, and an
    entity first met after the table was read shows on the next recall."""
    eng.remember("Ask Carol from Finance about the Northwind invoice.", at=at("2026-03-02T08:00:00"))
    first = eng.recall("Northwind invoice").results[0].unit
    assert "Carol@Finance" in first.entities
    eng.remember("Carol from Finance met Dmitri Volkov about the Northwind invoice.", at=at("2026-03-03T08:00:00"))
    shown = {r.unit.content: r.unit.entities for r in eng.recall("Northwind invoice Dmitri").results}
    met = shown["Carol from Finance met Dmitri Volkov about the Northwind invoice."]
    assert "Dmitri Volkov" in met and "Carol@Finance" in met


def test_in_a_small_store_a_small_gap_in_cosine_is_not_the_whole_difference(minilm_engram):
    """A new user's store holds a few memories: the least similar is then close to the best, and a min-max over
    them alone made a small gap in cosine the whole difference, so a question the user once asked outranked their
    own word on their home. The floor is at most cosine 0, as in a big store."""
    minilm_engram.remember("my neighbour's house has a huge garden, so jealous", at=at("2024-05-01T09:00:00"))
    minilm_engram.remember("our flat's up on the 12th floor, the lift is always broken", at=at("2024-05-02T09:00:00"))
    minilm_engram.remember("how tall is the tallest building in london?", at=at("2024-05-03T09:00:00"))
    result = minilm_engram.recall("How high up is my home?", as_of=at("2024-06-01T00:00:00"))
    assert "12th floor" in result.results[0].unit.content
