"""Entity names as a person reads them: a short name merged into the full one the text gives, and
qualifiers only from an organisation or place ("Alice from Finance"), never from a title ("Book of …")."""
import pytest

from memory.extract import Extractor


@pytest.fixture(scope="module")
def ex() -> Extractor:
    extractor = Extractor()
    extractor.add_known(["Tomás Silva", "Tomás", "Ana Reis", "Ana Lopes", "Ana"], "NOTE")
    return extractor


def names(ex: Extractor, text: str) -> list[str]:
    return [e.key for e in ex.entities(text) if e.label in ("PERSON", "NOTE")]


def test_a_short_name_takes_the_full_name_the_text_gives(ex):
    assert names(ex, "# Tomás Silva\n\nLisbon tips from Tomás: go early.") == ["Tomás Silva", "Tomás Silva"]
    assert names(ex, "I met Maria Santos in Porto. Later Maria called.") == ["Maria Santos", "Maria Santos"]


def test_a_short_name_stays_when_the_text_does_not_say_which(ex):
    assert names(ex, "Lunch with Tomás.") == ["Tomás"]
    assert names(ex, "Ana Reis and Ana Lopes came; Ana left early.") == ["Ana Reis", "Ana Lopes", "Ana"]


@pytest.mark.parametrize("text", ["Redesign of the Harbor Museum website for Northwind Studio.",
                                  "*The Book of Disquiet* by Fernando Pessoa, to read in Lisbon."])
def test_the_head_of_a_title_is_not_a_qualified_person(ex, text):
    found = ex.entities(text)
    assert not [e.key for e in found if e.qualifier], [e.key for e in found]
    assert not {"Redesign", "Book"} & {e.text for e in found}


def test_people_are_still_qualified_by_their_organisation(ex):
    assert names(ex, "Ask Carol from Finance.") == ["Carol@Finance"]


def test_a_notes_aliases_name_its_one_entity_across_the_vault(tmp_path):
    """`aliases: [Tomás]` in "Tomás Silva.md": "Lunch with Tomás" elsewhere is about that one entity."""
    from tests.helpers import open_engram
    from vault_sync.sync import VaultIndexer

    vault = tmp_path / "vault"
    (vault / "People").mkdir(parents=True)
    (vault / "People" / "Tomás Silva.md").write_text(
        "---\naliases: [Tomás, Tomas Silva]\n---\n# Tomás Silva\n\nProject lead at Northwind Studio.\n", encoding="utf-8")
    (vault / "Trips.md").write_text("# Trips\n\nLunch with Tomás: book the Sintra train early.\n", encoding="utf-8")
    with open_engram(tmp_path / "home") as eng:
        VaultIndexer(eng, vault).sync_all()
        rows = eng.store.query("SELECT name, aliases FROM entities WHERE name LIKE 'Tom%'")
        assert rows == [("Tomás Silva", ["Tomás", "Tomas Silva"])]  # one entity, not three
        trips = eng.recall("Sintra train", k=1).results[0]
        assert trips.provenance.ref == "Trips.md" and "Tomás Silva" in trips.unit.entities
        assert [name for _, name in eng.store.entities_named_in("what did Tomás say")] == ["Tomás Silva"]
