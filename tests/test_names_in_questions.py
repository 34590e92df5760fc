"""The entities a question names (recall's name rule), looked up in memory: found by name or alias in any case,
and following every change to the entities (new ones, aliases, a forget that orphans one, a rolled-back write)."""
import numpy as np
import pytest

from memory.entity_names import EntityNames
from memory.model import MemoryUnit
from memory.store import Store
from tests.helpers import at

WHEN = at("2026-03-01T09:00:00")


def test_names_and_aliases_are_found_inside_a_question_whatever_their_case():
    names = EntityNames([(1, "Tomás Silva", "PERSON", ["Tomás"], None), (2, "Northwind", "ORG", [], None),
                         (3, "May 2024", "DATE", [], None), (4, "$40", "MONEY", None, None), (5, "Al", "PERSON", ["Bo"], None),
                         (6, "北京", "GPE", None, None), (7, "Ravi", None, [], None)])
    assert names.named_in("what did TOMÁS say about northwind in May 2024, for $40?") == [
        (1, "Tomás Silva"), (2, "Northwind")]
    assert names.named_in("Al and Bo flew to 北京 with Ravi") == [(6, "北京")]  # two Latin letters name too much
    assert names.named_in("") == [] and names.named_in("北") == []


def test_a_name_with_marks_is_found_without_them_and_the_other_way_round():
    names = EntityNames([(1, "Tomás Silva", "PERSON", ["Tomás"], None), (2, "Zoe Muller", "PERSON", ["Zoe"], None)])
    assert names.named_in("what did Tomas say") == [(1, "Tomás Silva")]
    assert names.named_in("is Zoë coming?") == [(2, "Zoe Muller")]


@pytest.fixture
def store(tmp_path):
    opened = Store(tmp_path / "engram.duckdb")
    yield opened
    opened.close()


def named(store: Store, text: str) -> list[str]:
    return [name for _, name in store.entities_named_in(text)]


def test_the_names_follow_new_entities_and_aliases(store):
    assert named(store, "lunch with Ravi at Northwind") == []
    with store.transaction():
        store.entity_ids([("Ravi Patel", "PERSON", None), ("Northwind Studio", "ORG", None),
                          ("Harbor Museum", "ORG", None)], at=WHEN)
    assert named(store, "lunch with Ravi at Northwind") == []
    assert named(store, "lunch with ravi patel") == ["Ravi Patel"]
    with store.transaction():
        store.set_entity_aliases("Ravi Patel", "PERSON", ["Ravi"], at=WHEN)
    assert named(store, "lunch with Ravi at Northwind") == ["Ravi Patel"]
    with store.transaction():
        store.set_entities_aliases({"Northwind Studio": ["Northwind"], "Harbor Museum": ["the Harbor"]}, "ORG",
                                   at=WHEN)
    assert named(store, "lunch with Ravi at Northwind") == ["Ravi Patel", "Northwind Studio"]


def test_a_rolled_back_entity_is_not_named(store):
    assert named(store, "coffee with Mei Lin") == []
    with pytest.raises(RuntimeError), store.transaction():
        store.entity_ids([("Mei Lin", "PERSON", None)], at=WHEN)
        assert named(store, "coffee with Mei Lin") == ["Mei Lin"]  # the open transaction sees its own entity
        raise RuntimeError("the write fails after the entity was made")
    assert named(store, "coffee with Mei Lin") == []


def test_an_entity_orphaned_by_a_forget_is_no_longer_named(store):
    unit = MemoryUnit(content="Lunch with Ravi Patel", type="fact_reference", valid_from=WHEN, recorded_at=WHEN,
                      id=store.next_ids("memories", 1)[0])
    with store.transaction():
        store.insert_memories([unit], ["lunch ravi patel"], np.zeros((1, 8), dtype=np.float32))
        (ravi,) = store.entity_ids([("Ravi Patel", "PERSON", None)], at=WHEN)
        store.insert_memory_entities([(unit.id, ravi)])
    assert named(store, "what did Ravi Patel say") == ["Ravi Patel"]
    assert store.delete_memories([unit]) == [ravi]
    assert named(store, "what did Ravi Patel say") == []
