"""Changes told in a few more ways: an end that acts on what a yes/no question asks about ("cancelled the membership,
was paying $40 a month" for "do i still have a gym membership?"); someone who paired the user with someone new; a new
one bought, named in Latin letters ("最后还是入了Kindle")."""
import pytest

from tests.helpers import check_latest_first_and_earlier_behind, remember_daily, results_after_all


@pytest.fixture
def engram(minilm_engram):  # the latest word's rules read MiniLM's cosines
    return minilm_engram


# a reader switched for one named in Latin letters, told with 入了 ("bought in")
READERS = ["我这个掌阅的阅读器用了四年了 翻页越来越卡",
           "电子书阅读器一般能用几年啊",
           "纠结了一个月 最后还是入了Kindle 这阅读器看书眼睛舒服多了",
           "新的阅读器要不要买保护套"]


def test_an_end_of_what_a_yes_no_question_asks_about_is_the_latest_word(engram):
    check_latest_first_and_earlier_behind(
        engram, ["signed up at Crunch near the office, new year new me",
                 "is it better to stretch before or after lifting at the gym?",
                 "cancelled the membership today, was paying $40 a month to feel guilty. running outside now",
                 "what's a good stretch for tight calves after a run"],
        "do i still have a gym membership?", "cancelled the membership", "Crunch")


def test_a_partner_someone_else_paired_the_user_with_is_the_latest_word(engram):
    check_latest_first_and_earlier_behind(
        engram, ["bridge night at the club, me and Gerald partnered again, he never counts trumps",
                 "what's the best reply to a 1NT opening in bridge?",
                 "the director reshuffled the pairings this month and stuck me with Beatrice, a retired accountant so "
                 "no pressure lol",
                 "how do you keep track of cards in bridge without staring"],
        "who do i partner with at bridge these days?", "Beatrice", "Gerald", session_id="chat")


def test_a_new_one_bought_named_in_latin_letters_leaves_the_old_one_before_the_change(engram):
    remember_daily(engram, READERS)
    found = results_after_all(engram, "我换现在这个阅读器之前用的是啥")
    assert "掌阅" in found[0].unit.content
    assert found[0].valid is False


def test_a_new_one_bought_named_in_latin_letters_is_the_latest_word(engram):
    check_latest_first_and_earlier_behind(engram, READERS, "我现在用的是哪个阅读器", "Kindle", "掌阅")
