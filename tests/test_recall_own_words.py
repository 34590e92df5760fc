"""A memory the rules distilled from a chat message stands in recall as the message itself: the user's own words,
dated and whole, valid only while the distilled memory is."""
import pytest

from tests.helpers import AFTER_ALL, at, by_text

@pytest.fixture
def engram(minilm_engram):  # the latest word's rules read MiniLM's cosines
    return minilm_engram


def test_a_slot_answer_is_shown_as_the_message_it_was_read_from(engram):
    engram.remember("每天至少两杯美式，不喝就没精神", at=at("2023-04-03T09:00:00"))
    engram.remember("咖啡渍怎么洗掉啊 白衬衫上的", at=at("2023-07-21T09:00:00"))
    engram.remember("咖啡戒了快一个月了，现在只喝茶，睡眠好多了", at=at("2023-11-10T09:00:00"))
    found = engram.recall("我还喝咖啡吗？", as_of=AFTER_ALL).results
    assert found[0].unit.type == "chat_turn"
    assert "咖啡戒了" in found[0].unit.content
    assert found[1].unit.type == "user_profile" and found[1].unit.event_id == found[0].unit.event_id  # read from it
    assert not by_text(found, "两杯美式").valid


def test_a_message_whose_distilled_value_was_replaced_is_shown_as_history(engram):
    engram.remember("I work at Deloitte, mostly audit", at=at("2023-02-01T09:00:00"))
    engram.remember("I work at Monzo now, started in March", at=at("2024-03-10T09:00:00"))
    found = engram.recall("where do I work these days?", as_of=AFTER_ALL).results
    assert found[0].unit.type == "chat_turn" and "Monzo" in found[0].unit.content
    assert found[1].unit.content == "User works at Monzo." and found[1].valid
    said = [r for r in found if "Deloitte" in r.unit.content]
    assert {r.unit.type for r in said} == {"chat_turn", "user_profile"} and not any(r.valid for r in said)



def test_a_memory_with_a_time_of_its_own_stands_for_itself(engram):
    engram.remember("We finally moved into the flat in Leeds two weeks ago!", at=at("2024-06-20T09:00:00"))
    found = engram.recall("where do I live", as_of=at("2024-06-10T00:00:00")).results
    moved = next(r for r in found if "Leeds" in r.unit.content)
    assert moved.unit.type == "user_profile" and moved.valid  # since the 6th, though told on the 20th

