"""Chat's typos in the words that tell a change are read as meant; words of their own one slip away are not."""
import pytest

from memory.extract.attributes import statement_marks, tells_a_change
from memory.extract.typos import typed_right


@pytest.mark.parametrize("typed, meant", [
    ("swichted to progressive lol", "switched to progressive lol"),  # letters shuffled
    ("mila startd at Bright Horizons", "mila started at Bright Horizons"),  # a letter missed
    ("joind PureMotion near my flat instaed", "joined PureMotion near my flat instead"),
    ("finaly did it", "finally did it"),
    ("swtiched banks", "switched banks"),  # two neighbours swapped
    ("offically a londoner", "officially a londoner"),
])
def test_a_typo_of_a_word_that_tells_a_change_is_read_as_meant(typed, meant):
    assert typed_right(typed) == meant


@pytest.mark.parametrize("text", ["she stated that", "I was staring at it", "the switches are off",
                                  "got charged twice", "the starter was cold"])
def test_a_word_of_its_own_one_slip_away_is_left_as_it_is(text):
    assert typed_right(text) == text


def test_a_switch_typed_with_a_slip_is_a_change_of_the_attribute_it_names():
    assert tells_a_change("swichted to progressive lol, saves me like 30 bucks a month on the civic")
    assert tells_a_change("mila startd at Bright Horizons on Monroe this week, the waitlist cleared")
    assert "§mobile_network" in statement_marks("swichted carriers, on Visible now")


@pytest.mark.parametrize("text", ["had to change dentists, the new one is dr park", "the changes are big", "cancel it",
                                  "she joins us later", "upgrade soon"])
def test_another_form_of_a_word_that_tells_a_change_is_no_typo(text):
    assert typed_right(text) == text
