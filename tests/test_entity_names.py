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
