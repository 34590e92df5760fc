"""Entities, memory units, compression and search tokens, with the real spaCy models and the Chinese segmenter."""
from __future__ import annotations

import re
import threading
from datetime import datetime, timezone

import pytest

from memory.extract import Extractor, compress, tokenize_for_search
from memory.extract.facts import find_statements
from memory.model import MEMORY_TYPES


@pytest.fixture(scope="module")
def ex() -> Extractor:
    extractor = Extractor()
    extractor.add_known(["Project Alpha", "周报", "王小明", "Al"], "NOTE")
    extractor.add_known(["Alice"], "PERSON")
    extractor.entities("warm up the pipelines")
    return extractor


def pairs(ex: Extractor, text: str) -> set[tuple[str, str]]:
    return {(e.key, e.label) for e in ex.entities(text)}


def slots(ex: Extractor, text: str) -> list[tuple[str | None, str | None]]:
    return [(m.attribute, m.value) for m in ex.memories(text)]


# --- entities: regex rules -------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Order ORD-2024-0042 shipped.", ("ORD-2024-0042", "ID")),
        ("See ticket #4521 please", ("#4521", "ID")),
        ("Incident INC123456 is open", ("INC123456", "ID")),
        ("Fixed in ABC-123 today", ("ABC-123", "ID")),
        ("订单号：20240042 已取消", ("20240042", "ID")),
        ("It cost ¥1,200 in total", ("¥1,200", "MONEY")),
        ("Lunch was $35.50.", ("$35.50", "MONEY")),
        ("一共300元", ("300元", "MONEY")),
        ("预算是1.2万元。", ("1.2万元", "MONEY")),
        ("about 20 USD each", ("20 USD", "MONEY")),
        ("Due 2026-03-01 at noon", ("2026-03-01", "DATE")),
        ("We met on March 3 at the office", ("March 3", "DATE")),
        ("我们3月5日见面", ("3月5日", "DATE")),
        ("计划在2026年3月上线", ("2026年3月", "DATE")),
        ("Write to alice@example.com today", ("alice@example.com", "EMAIL")),
        ("联系alice@example.com", ("alice@example.com", "EMAIL")),
        ("Call +86 138 0013 8000 now", ("+86 138 0013 8000", "PHONE")),
        ("Office: (555) 123-4567", ("(555) 123-4567", "PHONE")),
        ("手机13800138000随时打", ("13800138000", "PHONE")),
        ("Tagged #project/alpha here", ("project/alpha", "TAG")),
        ("See [[Weekly Review#Goals|review]] for more", ("Weekly Review", "NOTE")),
    ],
)
def test_rule_entities(ex: Extractor, text: str, expected: tuple[str, str]) -> None:
    assert expected in pairs(ex, text)


def test_rule_spans_point_into_the_text(ex: Extractor) -> None:
    text = "Pay ¥1,200 for ORD-2024-0042 by 2026-03-01."
    for ent in ex.entities(text):
        assert text[ent.start : ent.end] == ent.text


def test_rules_win_over_ner_and_spans_do_not_overlap(ex: Extractor) -> None:
    ents = ex.entities("Please pay $35.50 by March 3 for ORD-2024-0042 to Bob Smith.")
    assert ("$35.50", "MONEY") in {(e.text, e.label) for e in ents}
    assert "35.50" not in {e.text for e in ents}
    spans = sorted((e.start, e.end) for e in ents)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))


def test_a_hash_with_a_word_is_a_tag_not_an_id(ex: Extractor) -> None:
    labels = {e.text: e.label for e in ex.entities("#4521 and #todo")}
    assert labels == {"#4521": "ID", "todo": "TAG"}


# --- entities: NER, Chinese titles and organisations, known names ----------------------------


def test_english_ner(ex: Extractor) -> None:
    found = pairs(ex, "I talked to Bob Smith from Google in Paris yesterday.")
    assert ("Google", "ORG") in found and ("Paris", "GPE") in found
    assert ("Bob Smith@Google", "PERSON") in found


def test_chinese_titles_and_organisations(ex: Extractor) -> None:
    found = pairs(ex, "腾讯公司的李总和人力资源部的王老师去了北京大学第三医院。")
    assert {("腾讯公司", "ORG"), ("人力资源部", "ORG"), ("北京大学第三医院", "ORG")} <= found
    assert {("李总@腾讯公司", "PERSON"), ("王老师@人力资源部", "PERSON")} <= found


def test_words_ending_in_bu_that_are_not_departments(ex: Extractor) -> None:
    assert not {label for _, label in pairs(ex, "全部内部资料都在这里")} & {"ORG"}


@pytest.mark.parametrize("text", ["技术部的张经理说可以", "张经理（技术部）说可以", "技术部张经理说可以"])
def test_chinese_qualifier_forms(ex: Extractor, text: str) -> None:
    people = [e for e in ex.entities(text) if e.label == "PERSON"]
    assert [(e.text, e.qualifier, e.key) for e in people] == [("张经理", "技术部", "张经理@技术部")]


def test_same_name_people_are_told_apart(ex: Extractor) -> None:
    ents = ex.entities("技术部的张经理和财务部的张经理开会，张经理（技术部）先发言。")
    keys = [e.key for e in ents if e.label == "PERSON"]
    assert keys == ["张经理@技术部", "张经理@财务部", "张经理@技术部"]


def test_a_qualifier_carries_to_later_mentions(ex: Extractor) -> None:
    ents = ex.entities("财务部的张经理来了。张经理说预算不够。")
    assert [e.key for e in ents if e.label == "PERSON"] == ["张经理@财务部", "张经理@财务部"]


@pytest.mark.parametrize("text", ["Alice from Finance approved it.", "Alice (Finance) approved it."])
def test_english_qualifier_forms(ex: Extractor, text: str) -> None:
    people = [e for e in ex.entities(text) if e.label == "PERSON"]
    assert [(e.text, e.qualifier) for e in people] == [("Alice", "Finance")]


def test_english_qualifier_without_known_names() -> None:
    people = [e for e in Extractor().entities("Ask Carol from Finance.") if e.label == "PERSON"]
    assert [e.key for e in people] == ["Carol@Finance"]


def test_known_names_inside_unsegmented_chinese(ex: Extractor) -> None:
    found = pairs(ex, "我在Project Alpha里写周报，王小明也在。")
    assert {("Project Alpha", "NOTE"), ("周报", "NOTE"), ("王小明", "NOTE")} <= found


def test_known_names_are_matched_case_insensitively_and_keep_their_spelling(ex: Extractor) -> None:
    assert ("Project Alpha", "NOTE") in pairs(ex, "notes about project alpha are late")


def test_known_names_never_match_inside_a_latin_word(ex: Extractor) -> None:
    texts = {e.text for e in ex.entities("我和Alice聊了聊")}
    assert "Al" not in texts and "Alice" in texts


def test_known_names_are_whole_tokens_and_not_pieces_of_a_link() -> None:
    ex = Extractor()
    ex.add_known(["Home", "C++", "Obsidian Sync", "--"], "NOTE")
    found = [e.text for e in ex.entities("See https://example.com/home.html, my C++ notes and Obsidian's sync -- "
                                         "then obsidian  sync again from Home.") if e.label == "NOTE"]
    assert found == ["C++", "Obsidian Sync", "Home"]


def test_known_names_keep_their_place_after_a_letter_whose_lower_case_is_longer() -> None:
    ex = Extractor()
    ex.add_known(["İzmir Trip", "Home"], "NOTE")
    text = "İZMIR TRIP notes, back Home"
    found = [(e.text, text[e.start : e.end]) for e in ex.entities(text) if e.label == "NOTE"]
    assert found == [("İzmir Trip", "İZMIR TRIP"), ("Home", "Home")]


def test_known_names_belong_to_their_extractor(ex: Extractor) -> None:
    assert ("周报", "NOTE") not in pairs(Extractor(), "我在写周报")


def test_entities_of_empty_text(ex: Extractor) -> None:
    assert ex.entities("") == [] and ex.entities("   ") == []


def test_two_threads_share_the_pipelines(ex: Extractor) -> None:
    texts = ["Bob Smith from Google paid $35.50.", "技术部的张经理在Project Alpha里。"] * 10
    expected = [pairs(ex, t) for t in texts]
    results: dict[int, list[set[tuple[str, str]]]] = {}

    def work(n: int) -> None:
        results[n] = [pairs(ex, t) for t in texts]

    threads = [threading.Thread(target=work, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {0: expected, 1: expected}


# --- memories ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, attribute, value",
    [
        ("My name is Carol.", "name", "Carol"),
        ("Call me Dave.", "name", "Dave"),
        ("I'm called Eve", "name", "Eve"),
        ("I drink Americano every morning.", "drink_preference", "Americano"),
        ("I usually drink green tea.", "drink_preference", "green tea"),
        ("I switched to oat latte.", "drink_preference", "oat latte"),
        ("I now drink flat white", "drink_preference", "flat white"),
        ("I prefer tea over coffee.", "drink_preference", "tea"),
        ("I prefer short answers", "answer_style", "short answers"),
        ("I live in Berlin with my wife.", "home_location", "Berlin"),
        ("I moved to San Francisco last year.", "home_location", "San Francisco"),
        ("I work at Acme Corp.", "employer", "Acme Corp"),
        ("I joined Google last month.", "employer", "Google"),
        ("My favourite colour is blue.", "favourite_colour", "blue"),
        ("my favorite color is red", "favourite_colour", "red"),
        ("My birthday is May 3.", "birthday", "May 3"),
        ("Remember that my sister's name is Ana.", "sister_name", "Ana"),
        ("My company is Acme.", "employer", "Acme"),  # an alias from memory/slots.py
        ("My phone number is 555-123-4567.", "phone", "555-123-4567"),
    ],
)
def test_english_memory_slots(ex: Extractor, text: str, attribute: str, value: str) -> None:
    [memory] = ex.memories(text)
    assert (memory.type, memory.subject) == ("user_profile", "user")
    assert (memory.attribute, memory.value) == (attribute, value)
    assert memory.content.startswith("User") and memory.content.endswith(".")


@pytest.mark.parametrize(
    "text, attribute, value, content",
    [
        ("我叫张三", "name", "张三", "用户的名字是张三。"),
        ("我的名字是李四", "name", "李四", "用户的名字是李四。"),
        ("我喝美式。", "drink_preference", "美式", "用户喝美式。"),
        ("我改喝拿铁了", "drink_preference", "拿铁", "用户改喝拿铁。"),
        ("我现在喝燕麦拿铁", "drink_preference", "燕麦拿铁", "用户喝燕麦拿铁。"),
        ("我更喜欢茶而不是咖啡", "drink_preference", "茶", "用户偏好茶而不是咖啡。"),
        ("我偏好简洁的回答", "answer_style", "简洁的回答", "用户偏好简洁的回答。"),
        ("我住在北京朝阳区", "home_location", "北京朝阳区", "用户住在北京朝阳区。"),
        ("我搬到上海了", "home_location", "上海", "用户搬到了上海。"),
        ("我在腾讯工作", "employer", "腾讯", "用户在腾讯工作。"),
        ("请记住我的生日是5月3日", "birthday", "5月3日", "用户的生日是5月3日。"),
        ("我最喜欢的颜色是蓝色", "favourite_colour", "蓝色", "用户最喜欢的颜色是蓝色。"),
    ],
)
def test_chinese_memory_slots(ex: Extractor, text: str, attribute: str, value: str, content: str) -> None:
    [memory] = ex.memories(text)
    assert (memory.subject, memory.attribute, memory.value, memory.content) == ("user", attribute, value, content)


def test_likes_without_a_category_have_no_slot(ex: Extractor) -> None:
    memories = ex.memories("I like hiking in the Alps, and I hate traffic.")
    assert [(m.content, m.attribute) for m in memories] == [
        ("User likes hiking in the Alps.", None),
        ("User hates traffic.", None),
    ]
    assert [m.content for m in ex.memories("我喜欢爬山，我不喜欢香菜。")] == ["用户喜欢爬山。", "用户不喜欢香菜。"]


def test_a_message_gives_several_memories(ex: Extractor) -> None:
    assert slots(ex, "My name is Carol and I live in Berlin. I drink water.") == [
        ("name", "Carol"),
        ("home_location", "Berlin"),
        ("drink_preference", "water"),
    ]
    assert slots(ex, "我叫张三，在技术部工作。") == [("name", "张三"), ("employer", "技术部")]


def test_each_memory_lists_its_own_entities(ex: Extractor) -> None:
    home, work = ex.memories("I moved to San Francisco last year and I work at Acme Corp.")
    assert "San Francisco" in {e.text for e in home.entities}
    assert not any("Acme" in e.text for e in home.entities)
    assert any("Acme" in e.text for e in work.entities)


def test_change_negations_keep_the_slot_and_state_the_negation(ex: Extractor) -> None:
    """A negation fills its slot with no value: it closes the value before it, and is never the answer."""
    for text, content in [
        ("I don't drink coffee anymore.", "User no longer drinks coffee."),
        ("I stopped drinking coffee", "User no longer drinks coffee."),
        ("我不喝咖啡了", "用户不再喝咖啡。"),
    ]:
        [memory] = ex.memories(text)
        assert (memory.attribute, memory.content, memory.value) == ("drink_preference", content, None)


def test_plain_negations_give_a_memory_without_a_slot(ex: Extractor) -> None:
    assert [(m.content, m.attribute) for m in ex.memories("I don't drink alcohol.")] == [
        ("User does not drink alcohol.", None)
    ]
    assert [(m.content, m.attribute) for m in ex.memories("我不喝酒")] == [("用户不喝酒。", None)]


def test_remembered_statements_are_retold_in_third_person(ex: Extractor) -> None:
    [appointment] = ex.memories("Remember that I have a dentist appointment on March 3 with Dr. Lee.")
    assert appointment.content == "User has a dentist appointment on March 3 with Dr. Lee."
    assert appointment.type == "user_profile" and appointment.attribute is None
    assert "March 3" in {e.text for e in appointment.entities}
    [wifi] = ex.memories("Please remember that the wifi password is in the drawer.")
    assert (wifi.content, wifi.type) == ("The wifi password is in the drawer.", "fact_reference")
    [trip] = ex.memories("记住我下周三去上海出差")
    assert (trip.content, trip.attribute) == ("用户下周三去上海出差。", None)


def test_a_title_typed_in_lower_case_does_not_end_the_sentence(ex: Extractor) -> None:
    [gp] = ex.memories("registered with the surgery on mill road, my gp is dr. fenwick, seems nice but talks fast")
    assert (gp.attribute, gp.value) == ("gp", "dr. fenwick")
    [dentist] = ex.memories("my dentist is mrs. okafor")
    assert dentist.value == "mrs. okafor"


def test_a_bare_remember_is_advice_unless_it_is_about_the_user(ex: Extractor) -> None:
    assert ex.memories("But remember, it's important to believe in yourself.") == []
    assert [m.content for m in ex.memories("Remember, I'm allergic to nuts.")] == ["User is allergic to nuts."]
    assert [m.content for m in ex.memories("Remember: the gate code is 4521.")] == ["The gate code is 4521."]


def test_my_x_is_y_needs_an_attribute_like_value(ex: Extractor) -> None:
    assert ex.memories("My kids are so excited about summer break.") == []
    assert ex.memories("My veggie patch is coming along.") == []
    assert slots(ex, "My favorite is a park with a forest trail - it's so calming.") == [
        ("favourite", "a park with a forest trail")
    ]


def test_liked_things_are_retold_in_third_person(ex: Extractor) -> None:
    [memory] = ex.memories("I love spending time with the friends I have.")
    assert memory.content == "User loves spending time with the friends the user has."


def test_switching_to_something_that_is_not_a_drink(ex: Extractor) -> None:
    [memory] = ex.memories("I switched to Linux last year.")
    assert (memory.content, memory.attribute) == ("User switched to Linux.", None)


@pytest.mark.parametrize(
    "text",
    [
        "Do I like coffee?",
        "what do I drink",
        "Do you remember my name?",
        "Is my birthday in May?",
        "我喝什么?",
        "我喝什么",
        "你记得我住在哪里吗",
        "我叫什么名字？",
    ],
)
def test_questions_give_no_memories(ex: Extractor, text: str) -> None:
    assert ex.memories(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "If I drink coffee at night I can't sleep.",
        "Remember to buy milk.",
        "call me when you can",
        "他告诉我喝水",
        "I love it!",
    ],
)
def test_statements_that_are_not_memories(ex: Extractor, text: str) -> None:
    assert ex.memories(text) == []


def test_assistant_messages_give_no_memories(ex: Extractor) -> None:
    assert ex.memories("I drink tea and my name is Bot.", role="assistant") == []


def test_memory_types_and_lengths(ex: Extractor) -> None:
    long_like = "I like " + ", ".join(f"the song number {n} from the album {n + 1}" for n in range(40))
    for memory in ex.memories("I drink tea. " + long_like + ". 记住我下周三去上海出差"):
        assert memory.type in MEMORY_TYPES
        assert len(memory.content) <= 300


# --- compress ------------------------------------------------------------------------------


def test_compress_leaves_short_text_alone() -> None:
    assert compress("The error was 503.") == "The error was 503."
    assert compress("  spaces\n and   lines ") == "spaces and lines"


def test_compress_never_cuts_a_word_or_number() -> None:
    text = "The deploy failed with error 503 on server ORD-2024-0042, costing $1,234.56 in credits. " * 5
    words = {w.strip(",.") for w in text.split()}
    for limit in range(20, 300, 7):
        out = compress(text, limit_latin=limit, limit_cjk=limit // 2)
        assert len(out) <= limit
        assert all(w.strip(",.") in words for w in out.rstrip("…").split()), (limit, out)


def test_compress_prefers_sentence_and_clause_boundaries() -> None:
    text = "First sentence has error 503 in it. Second sentence is much longer and keeps going on and on."
    assert compress(text, limit_latin=60) == "First sentence has error 503 in it."
    clause = "The server returned error 503 for every request, then it restarted and was slow"
    assert compress(clause, limit_latin=60) == "The server returned error 503 for every request…"


def test_compress_chinese_at_sentence_and_word_boundaries() -> None:
    text = "昨天部署失败，服务器返回错误503，订单ORD-2024-0042受影响。技术部的张经理正在排查原因，预计明天恢复。"
    assert compress(text, limit_latin=80, limit_cjk=40) == "昨天部署失败，服务器返回错误503，订单ORD-2024-0042受影响。"
    for limit in range(8, 40, 3):
        out = compress(text, limit_latin=2 * limit, limit_cjk=limit)
        assert "503" in out or "50" not in out, out
        assert "ORD-2024-0042" in out or "ORD" not in out, out


def test_compress_segments_chinese_only_where_it_cuts() -> None:
    """The segmenter loads on first use: a snippet cut in its Latin part, or short enough, never loads it."""
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys; from memory.extract import compress; "
            "compress('我们周末去爬香山了。 ' + 'and then we walked home along the river ' * 20); "
            "print('rjieba' in sys.modules); compress('English first, ' * 3 + '我们周末去爬香山了，风景很好' * 20); "
            "print('rjieba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[1],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]


def test_compress_counts_cjk_characters_against_their_own_limit() -> None:
    text = "用户喜欢喝咖啡。" * 30
    out = compress(text, limit_latin=300, limit_cjk=150)
    assert out.endswith("。") and len(out) <= 150


def test_compress_a_single_overlong_token() -> None:
    out = compress("x" * 500, limit_latin=100)
    assert out.endswith("…") and len(out) == 100


# --- tokenize_for_search ---------------------------------------------------------------------


def test_tokenize_english() -> None:
    assert tokenize_for_search("The user's Answers are in the boxes, stories and classes!") == [
        "user",
        "answer",
        "box",
        "stori",
        "class",
    ]


def test_tokenize_ids_amounts_and_emails() -> None:
    tokens = tokenize_for_search("Order ORD-2024-0042 refunded ¥1,200 to alice@example.com, v3.5")
    assert ["ord-2024-0042", "ord", "2024", "0042"] == tokens[1:5]
    assert "1200" in tokens and "alice@example.com" in tokens and "exampl" in tokens
    assert "v3.5" in tokens and "3.5" not in tokens


def test_tokenize_chinese() -> None:
    tokens = tokenize_for_search("技术部的张经理说订单已经发货了。")
    assert {"技术部", "经理", "订单", "发货"} <= set(tokens)
    assert not {"的", "了", "。"} & set(tokens)


def test_tokenize_mixed() -> None:
    tokens = tokenize_for_search("我在Project Alpha里用Python写代码，订单ORD-7")
    assert {"project", "alpha", "python", "代码", "ord-7", "订单"} <= set(tokens)
    assert all(t == t.lower() for t in tokens)


def test_tokenize_full_width_and_empty() -> None:
    assert tokenize_for_search("ＡＢＣ１２３") == ["abc123"]
    assert tokenize_for_search("") == [] and tokenize_for_search("the of and") == []


def test_latin_letters_with_marks_are_the_same_words_without_them() -> None:
    assert tokenize_for_search("Zoë's café near the Straße, naïve résumés") == tokenize_for_search(
        "Zoe's cafe near the Strasse, naive resumes")
    assert tokenize_for_search("José-María Muñoz") == ["jose-maria", "jose", "maria", "munoz"]
    # marks on letters of other scripts are part of the letter
    assert tokenize_for_search("がぎ 한국어 Ελλάδα 北京") == ["がぎ", "한국어", "ελλάδα", "北京", "北", "京"]


@pytest.mark.parametrize("written, searched", [
    ("My fave colour is grey", "favorite color gray"),
    ("Organised the neighbourhood BBQ at the theatre", "organized neighborhood barbecue theater"),
    ("bday pics from the uni convo", "birthday pictures university conversation"),
    ("see u tmrw, appt with Dr Patel in 5 mins", "tomorrow appointment doctor Patel minutes"),
    ("my mum's favourites", "mother favorites"),
    ("mom and daddy", "mother father"),  # the user's own people by any of their names
    ("my dad's mam", "father mother"),
    ("grandpa got us season tix", "grandfather tickets"),
    ("granny and gramps", "grandmother grandfather"),
])
def test_british_spellings_and_chat_shorthand_are_searched_as_one_word(written, searched) -> None:
    assert set(tokenize_for_search(searched)) <= set(tokenize_for_search(written))


@pytest.mark.parametrize("word, kin", [
    *((word, "grandmother") for word in ("babcia", "nonna", "abuela", "oma", "yiayia", "bubbe")),
    *((word, "grandfather") for word in ("dziadek", "nonno", "abuelo", "opa", "zayde", "papou")),
])
def test_a_grandparent_called_by_the_familys_other_language_is_searched_as_one(word, kin) -> None:
    assert tokenize_for_search(f"my {word}'s recipe") == tokenize_for_search(f"my {kin}'s recipe")


def test_words_with_one_meaning_only_are_given_one_form() -> None:
    # "hr" is hours or human resources, "doc" a doctor or a document: left as written
    assert tokenize_for_search("HR doc") == ["hr", "doc"]
    # a stem the forms cover covers its inflections: coloured, colouring, colours
    assert {tokenize_for_search(w)[0] for w in ("coloured", "colouring", "colours", "color")} == {"color"}


def test_tokens_stored_before_one_word_form_are_given_it() -> None:
    from memory.extract.search_tokens import one_word_form

    assert [one_word_form(t) for t in "favourit colour ^bday pic §said walk 北京".split()] == [
        "favorit", "color", "^birthday", "pictur", "§said", "walk", "北京"]


def test_tokens_stored_before_folding_are_folded_as_the_tokenizer_gives_them() -> None:
    from memory.extract.search_tokens import fold_stored_token

    for word in ("cafés", "Müller", "José-María", "naïve"):
        stored = word.lower()  # how the tokenizer kept a word with marks: lower-cased, not stemmed
        assert fold_stored_token(stored) == tokenize_for_search(word)[0]
    assert fold_stored_token("^café") == "^cafe"  # a context key keeps its mark
    assert fold_stored_token("à") is None  # folds into a stop word
    assert [fold_stored_token(t) for t in ("§said", "walk", "北京")] == ["§said", "walk", "北京"]


def test_tokens_are_words_not_fragments() -> None:
    assert not any(re.fullmatch(r"[a-z]", t) for t in tokenize_for_search("I'm a user, it's a test"))


def test_two_slots_cannot_claim_one_alias() -> None:
    from memory.slots import Slot, _unique_keys

    rows = [Slot("employer", aliases=("company",)), Slot("school", aliases=("company",))]
    with pytest.raises(ValueError, match="'company' appears twice"):
        _unique_keys([(alias, s.name) for s in rows for alias in s.aliases], "alias")


def test_being_with_a_company_is_no_partner():
    """"I'm with Vodafone" names a provider or an employer; a partner needs a word that says so."""
    from memory.extract.facts import find_statements

    assert not [f for f in find_statements("I'm with Vodafone on a 24-month contract.") if f.attribute == "partner"]
    assert not [f for f in find_statements("I'm with Ortega Logistics, dispatch team.") if f.attribute == "partner"]
    assert [(f.attribute, f.value) for f in find_statements("I'm dating Sam.")] == [("partner", "Sam")]


WRITTEN = datetime(2024, 6, 1, 9, tzinfo=timezone.utc)  # when the statements below were written


@pytest.mark.parametrize("text, expected", [
    ("Started at Meridian Press on Monday.", [("employer", "Meridian Press")]),
    ("Bought a Skoda Octavia last week after all.", [("car", "Skoda Octavia")]),
    ("We lived in Norwich for years.", [("home_location", "Norwich")]),
    ("Treated myself to a Pixel 9 in the sales, loving the camera.", [("phone_model", "Pixel 9")]),
    ("My doctor told me to drop caffeine, so it's been rooibos every morning for a month.",
     [("drink_preference", "rooibos every morning")]),
    ("No car for me any more, it's bike and bus now that I've sold it.", [("commute", "bike and bus")]),
    # no value of these classes at all: a commute, a new partner, a favourite food
    ("I drive to work every day, forty minutes each way.", []),
    ("Jonas moved out in March. I've since started seeing someone new, Aiko.", []),
    ("Japanese food is my favourite.", []),
    ("I switched banks to Monzo.", []),  # a bank the user banks with, not an employer
    ("I drive my wife mad with my snoring.", []),
    ("I teach myself guitar from YouTube videos.", []),
    ("I started the new Murakami book last night.", []),
    ("I started therapy last month.", []),
    ("I drink way too much coffee when I'm stressed.", [("drink_preference", "coffee")]),
    ("I drive a taxi in Leeds.", [("occupation", "driving a taxi in Leeds")]),
    ("I've taken up climbing.", [("hobby", "climbing")]),
])
def test_a_value_is_what_was_said_without_when_or_how_it_came_about(text, expected):
    assert [(f.attribute, f.value) for f in find_statements(text, WRITTEN)] == expected


@pytest.mark.parametrize("text, expected", [
    # what one leaves, quits or moves out of, followed by an object or a place, ends nothing
    ("I left London at 6am for the meeting.", []),
    ("I left Tom a voicemail.", []),
    ("I left Amazon a bad review.", []),
    ("I left Spotify for Apple Music.", []),
    ("I broke up with my old routine.", []),
    ("I moved out of the spare room into the master bedroom.", []),
    # … and what ends a job, a school, a home or a partner still does
    ("I left Deloitte after six years.", [("employer", "Deloitte")]),
    ("I've left my job at Acme.", [("employer", "Acme")]),
    ("I dropped out of UCL in my second year.", [("school", "UCL")]),
    ("I moved out of London.", [("home_location", "London")]),
    ("We broke up last night.", [("partner", None)]),
])
def test_a_closing_names_what_ended_and_nothing_else_is_one(text, expected):
    assert [(f.attribute, f.ends) for f in find_statements(text, WRITTEN)] == expected
