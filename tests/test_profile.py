"""The profile layer: turn features, explainable tags with cold start, pins and removals, the prefix."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memory.profile import (
    COLD_START_TURNS,
    TAG_SENTENCES,
    ProfileTag,
    TurnFeatures,
    compile_prefix,
    derive_tags,
    features_for_turn,
    interests,
)

T0 = datetime(2026, 4, 1, 9, 0, tzinfo=timezone.utc)

EXPLORATORY_TURNS = [
    "What are the alternatives to PostgreSQL for a small local app, and why would I pick one over another?",
    "Why is DuckDB faster for analytical queries than SQLite when the data fits in memory on a laptop?",
    "And what about concurrency — how do the alternatives compare when two processes write at once?",
    "Could you compare the pros and cons of embedding models for English and Chinese notes?",
    "What if I used a graph database instead; what are the trade-offs compared with a relational store?",
    "Tell me more about why HNSW recall drops and which options exist to improve it?",
    "Which is better for a personal wiki, markdown files or a database, and why do people disagree?",
]
EXECUTIVE_TURNS = [
    "Give me the command to list open ports.",
    "Just do it.",
    "Fix it.",
    "Run the migration.",
    "Write a bash one-liner to count lines.",
    "Rename the file to notes.md.",
    "Give me the steps to install duckdb.",
]
CAUTIOUS_TURNS = [
    "Is it safe to delete the WAL file? I don't want to lose data.",
    "Before we migrate, should I make a backup first?",
    "No, I meant the other database — please double-check which one.",
    "What are the risks of running this on production?",
    "Can you confirm this won't overwrite my notes?",
    "That's wrong, it is not the config file. Are you sure it is reversible?",
]
CHATTY_TURNS = [
    "I had a lovely walk by the river this morning.",
    "The weather in Lisbon is warm this week.",
    "My sister visited on Sunday with her two kids.",
    "I finished reading a novel about lighthouses.",
]


def session_features(texts: list[str], sessions: int = 2) -> list[TurnFeatures]:
    """Features of `texts` spread over `sessions` consecutive chat sessions, a minute apart."""
    history: dict[str, list[str]] = {}
    features = []
    for index, text in enumerate(texts):
        session_id = f"s{index * sessions // len(texts)}"
        features.append(
            features_for_turn(
                text,
                at=T0 + timedelta(minutes=index),
                session_id=session_id,
                previous_user_texts_in_session=list(history.get(session_id, [])),
                earlier_session_ids=[sid for sid in history if sid != session_id],
            )
        )
        history.setdefault(session_id, []).append(text)
    return features


def tag_names(tags: list[ProfileTag]) -> list[str]:
    return [tag.name for tag in tags]


# --- features -----------------------------------------------------------------------------


def features(text: str, previous: list[str] | None = None) -> TurnFeatures:
    return features_for_turn(text, at=T0, session_id="s1", previous_user_texts_in_session=previous or [])


def test_features_read_english_cues() -> None:
    correction = features("No, I meant the staging server, that's wrong.")
    assert correction.correction and correction.negation and not correction.is_question
    assert features("As we discussed last time, use the old vault.").cross_session_ref
    assert features("Just do it and give me the command.").asks_for_steps_or_action
    assert features("What are the alternatives, and why?").asks_for_options_or_why
    assert features("Is it safe? Should I take a backup and double-check?").hedging_or_risk
    assert features("I don’t want that").negation
    assert features("Thanks for that. What's the next step for the migration").is_question
    assert not features("Can you remember that I moved to Lisbon.").is_question  # a request
    plain = features("I like tea.")
    assert not any([plain.is_question, plain.negation, plain.correction, plain.follow_up, plain.cross_session_ref,
                    plain.asks_for_steps_or_action, plain.asks_for_options_or_why, plain.hedging_or_risk])


def test_features_read_chinese_cues() -> None:
    assert features("不对，我是说另一个文件。").correction
    assert features("上次我们聊过这个，之前说过要用 DuckDB。").cross_session_ref
    assert features("直接告诉我步骤。").asks_for_steps_or_action
    assert features("为什么这样做？有哪些方案？").asks_for_options_or_why
    assert features("删除安全吗？请先确认风险。").hedging_or_risk
    assert features("这个能用吗").is_question
    assert features("删除安全吗？请先确认风险。").is_question  # one sentence of the turn asks


def test_follow_up_needs_an_earlier_turn_in_the_session() -> None:
    assert not features("What about the backup schedule?").follow_up
    assert features("What about the backup schedule?", previous=["How do I back up my vault?"]).follow_up
    assert features("Which schedule works for vault backups?", previous=["How often should vault backups run?"]).follow_up
    assert features("那如果数据很大呢？", previous=["怎么备份？"]).follow_up


def test_earlier_session_id_mentioned_counts_as_cross_session() -> None:
    turn = features_for_turn("Continue from chat-0412 please", at=T0, session_id="chat-0415",
                             previous_user_texts_in_session=[], earlier_session_ids={"chat-0412"})
    assert turn.cross_session_ref


def test_features_are_utc_and_carry_a_short_snippet() -> None:
    naive = datetime(2026, 4, 1, 9, 0)
    turn = features_for_turn("word " * 40, at=naive, session_id="s", previous_user_texts_in_session=[])
    assert turn.at == T0 and turn.at.tzinfo is not None
    assert turn.snippet.endswith("…") and len(turn.snippet) <= 60 and "wor…" not in turn.snippet
    assert turn.question_length == 40
    assert features("请帮我写一个脚本").question_length == 4  # CJK characters count half a word


# --- tags ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("turns", "expected", "evidence_start"),
    [
        (EXPLORATORY_TURNS, "exploratory", "7 of 7 turns ask for options or reasons"),
        (EXECUTIVE_TURNS, "executive", "7 of 7 turns ask for steps, commands or an action"),
        (CAUTIOUS_TURNS, "cautious", "6 of 6 turns mention risk, safety, backups or confirmation"),
    ],
)
def test_each_style_gets_its_tag_with_evidence(turns: list[str], expected: str, evidence_start: str) -> None:
    tags = derive_tags(session_features(turns))
    assert tag_names(tags) == [expected]
    tag = tags[0]
    assert 0.4 <= tag.score <= 1.0 and not tag.pinned
    assert tag.evidence[0] == evidence_start
    assert any(line.startswith('e.g. "') for line in tag.evidence)


def test_exploratory_evidence_reports_follow_ups_and_length() -> None:
    tag = derive_tags(session_features(EXPLORATORY_TURNS))[0]
    assert any("turns are follow-ups" in line for line in tag.evidence)
    assert any("are long" in line for line in tag.evidence)
    assert any(line.startswith("median question length") for line in tag.evidence)


def test_chinese_sessions_get_tags() -> None:
    exploratory = ["为什么向量检索在中文笔记上效果不好？有哪些其他方案可以对比一下？",
                   "那如果用jieba分词再做关键词检索，优缺点分别是什么？",
                   "还有什么办法能提高召回率？为什么bge-m3会更好？",
                   "比较一下这几种方案的区别，各自适合什么场景？"]
    executive = ["直接给我命令。", "帮我把文件改成markdown。", "给我安装步骤。", "直接执行迁移。"]
    cautious = ["这样做安全吗？会不会丢数据？", "不对，我是说另一个数据库。先备份一下吧。",
                "请确认一下风险，我不想出错。", "删除之前要不要先备份？有什么风险？"]
    assert tag_names(derive_tags(session_features(exploratory))) == ["exploratory"]
    assert tag_names(derive_tags(session_features(executive))) == ["executive"]
    assert tag_names(derive_tags(session_features(cautious))) == ["cautious"]


def test_small_talk_gets_no_tag() -> None:
    assert derive_tags(session_features(CHATTY_TURNS)) == []


def test_cold_start_is_neutral() -> None:
    few = session_features(EXECUTIVE_TURNS)[: COLD_START_TURNS - 1]
    assert derive_tags(few) == []
    assert derive_tags([]) == []
    assert tag_names(derive_tags(session_features(EXECUTIVE_TURNS)[:COLD_START_TURNS])) == ["executive"]


def test_cold_start_still_shows_pinned_tags() -> None:
    few = session_features(EXECUTIVE_TURNS)[:1]
    [tag] = derive_tags(few, pins={"cautious"})
    assert tag.name == "cautious" and tag.pinned
    assert "neutral" in tag.evidence[0]


def test_pinned_tag_survives_contrary_evidence() -> None:
    tags = derive_tags(session_features(EXECUTIVE_TURNS), pins={"exploratory", "night owl"})
    assert set(tag_names(tags)) == {"executive", "exploratory", "night owl"}
    pinned = {tag.name: tag for tag in tags if tag.pinned}
    assert set(pinned) == {"exploratory", "night owl"}
    assert pinned["exploratory"].evidence[0].startswith("pinned by you")
    assert "0 of 7 turns ask for options or reasons" in pinned["exploratory"].evidence
    assert tag_names(tags)[:2] == ["exploratory", "night owl"]  # pinned first


def test_pinning_a_derived_tag_marks_it() -> None:
    [tag] = derive_tags(session_features(CAUTIOUS_TURNS), pins={"cautious"})
    assert tag.pinned and tag.evidence[0].startswith("6 of 6")


def test_removed_tag_is_hidden_even_with_evidence_or_a_pin() -> None:
    turns = session_features(CAUTIOUS_TURNS)
    assert derive_tags(turns, removed={"cautious"}) == []
    assert derive_tags(turns, pins={"cautious"}, removed={"cautious"}) == []


def test_tags_follow_recent_behaviour_order_independent() -> None:
    turns = session_features(EXECUTIVE_TURNS)
    assert derive_tags(list(reversed(turns))) == derive_tags(turns)


# --- interests and prefix -----------------------------------------------------------------


def test_interests_merge_entities_and_tags() -> None:
    ranked = interests({"Python": 5, "DuckDB": 3, "张经理": 2, "nobody": 0}, {"#python": 4, "#ai": 3}, top=4)
    assert ranked == [("Python", 9), ("ai", 3), ("DuckDB", 3), ("张经理", 2)]
    assert interests({"a": 1}, {}, top=0) == []


def test_compile_prefix_from_tags_and_preferences() -> None:
    tags = [ProfileTag("executive", 0.9)]
    prefix = compile_prefix(tags, ["prefers short answers", "drinks oat latte."])
    assert prefix == (
        "The user prefers concise, actionable answers (executive). "
        "Stated preferences: prefers short answers; drinks oat latte."
    )
    assert compile_prefix([], []) == ""
    assert compile_prefix([], ["likes tea", "likes tea"]) == "Stated preferences: likes tea."


@pytest.mark.parametrize("max_chars", [30, 45, 80, 120, 200, 400])
def test_compile_prefix_stays_within_bounds_and_never_cuts_words(max_chars: int) -> None:
    tags = [ProfileTag("exploratory", 0.8), ProfileTag("cautious", 0.5)]
    preferences = ["answers in British English", "uses Obsidian daily for journaling and project notes " * 3]
    prefix = compile_prefix(tags, preferences, max_chars=max_chars)
    assert len(prefix) <= max_chars
    source = " ".join([*TAG_SENTENCES.values(), "Stated preferences:", *preferences])
    assert set(_words(prefix)) <= set(_words(source))


def _words(text: str) -> list[str]:
    return text.replace("…", " ").replace(";", " ").replace(".", " ").split()


def test_compile_prefix_clips_chinese_at_punctuation() -> None:
    prefix = compile_prefix([], ["喜欢简短的回答，不要长篇大论，最好直接给出结论和命令"], max_chars=40)
    assert prefix == "Stated preferences: 喜欢简短的回答，不要长篇大论…"
