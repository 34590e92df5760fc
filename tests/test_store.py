"""The DuckDB store: migrations, transactions, the single-writer lock."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memory import StoreLockedError
from memory.store import LITERAL_ROWS, MIGRATIONS, Store, bulk_insert, sql_literal


def test_migrations_are_named_and_recorded(tmp_path):
    store = Store(tmp_path / "e.duckdb")
    names = [row[0] for row in store.query("SELECT name FROM migrations ORDER BY name")]
    assert names == [name for name, _ in MIGRATIONS]
    store.close()
    again = Store(tmp_path / "e.duckdb")  # idempotent on reopen
    assert again.count("migrations") == len(MIGRATIONS)
    again.close()


def test_rows_written_as_literals_read_back_as_bound_rows_do(tmp_path):
    """A few rows go in as literal VALUES (no pandas), many through Arrow: both store exactly the same values."""
    from datetime import datetime

    store = Store(tmp_path / "e.duckdb")
    store.execute("CREATE TABLE sample (i BIGINT, f DOUBLE, t VARCHAR, b BLOB, ts TIMESTAMP, ids BIGINT[], "
                  "names VARCHAR[], ok BOOLEAN)")
    columns = ("i", "f", "t", "b", "ts", "ids", "names", "ok")
    rows = [
        [1, 0.1 + 0.2, "it's \"quoted\" ? 中文 \\ [REDACTED:x] '' end", b"\x00'\xff" + bytes(range(256)),
         datetime(2026, 3, 1, 9, 30, 15, 123456), [3, -2], ["O'Neil", "?", "中"], True],
        [-(2 ** 62), 1e-300, "", b"", datetime(1970, 1, 1), [], [], False],
        [None, -0.0, None, None, None, None, None, None],
    ]
    assert all(sql_literal(value) is not None for row in rows for value in row)
    bulk_insert(store.conn, "sample", columns, rows)  # literal VALUES
    bulk_insert(store.conn, "sample", columns, rows * (LITERAL_ROWS // len(rows) + 1))  # through Arrow
    stored = store.query("SELECT * FROM sample")
    literal, arrow = stored[: len(rows)], stored[len(rows):]
    assert literal == arrow[: len(rows)]
    assert [list(row) for row in literal] == rows
    store.close()


def test_backup_taken_before_a_new_migration(tmp_path):
    path = tmp_path / "e.duckdb"
    store = Store(path)
    store.execute("DELETE FROM migrations WHERE name = 'm002_chat_sessions'")
    store.execute("DROP TABLE sessions")
    store.close()
    Store(path).close()
    backups = list(tmp_path.glob("e.duckdb.before-m002_chat_sessions.bak"))
    assert len(backups) == 1


def test_a_failed_transaction_leaves_nothing(tmp_path):
    store = Store(tmp_path / "e.duckdb")
    with pytest.raises(RuntimeError):
        with store.transaction() as conn:
            conn.execute("INSERT INTO audit VALUES (now(), 'x', 'y', 'z')")
            raise RuntimeError("crash in the middle")
    assert store.count("audit") == 0


def test_second_process_gets_a_clear_message(tmp_path):
    path = tmp_path / "e.duckdb"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from memory.store import Store
            s = Store({str(path)!r}); print('ready', flush=True); sys.stdin.readline()
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLockedError) as err:
            Store(path)
        assert str(path) in str(err.value) and "another Engram process" in str(err.value)
    finally:
        holder.communicate("\n", timeout=30)


def test_chinese_tokens_stored_before_m005_gain_their_characters(tmp_path):
    from tests.helpers import at, open_engram

    eng = open_engram(tmp_path)
    eng.remember("周六和小李去爬了香山。", at=at("2025-03-08T10:00:00"))
    eng.close()
    store = Store(tmp_path / "engram.duckdb")
    old = "周六 小 李去 爬 香山"  # what jieba alone gave
    store.execute("UPDATE memories SET tokens = ?", [old])
    store.execute("DELETE FROM migrations WHERE name = 'm005_chinese_character_tokens'")
    store.close()
    eng = open_engram(tmp_path)
    try:
        tokens = eng.store.query("SELECT tokens FROM memories")[0][0].split()
        assert tokens[:5] == old.split() and {"香", "山", "周", "李"} <= set(tokens)
        assert "香山" in eng.recall("我和谁去爬山了", as_of=at("2025-03-09T00:00:00")).results[0].unit.content
    finally:
        eng.close()


def stored_before(store: Store, migration: str, where: str, tokens: str) -> None:
    """Put a store back to before `migration`: the memories `where` selects keep `tokens`, and the migration is to
    run again when the store next opens (the store is closed)."""
    store.execute(f"UPDATE memories SET tokens = ? WHERE {where}", [tokens])
    store.execute("DELETE FROM migrations WHERE name = ?", [migration])
    store.close()


def test_words_with_marks_stored_before_m009_are_found_without_them(tmp_path):
    from tests.helpers import at, open_engram

    eng = open_engram(tmp_path)
    eng.remember("Met Zoë at the Café Müller on the Straße for crêpes.", at=at("2025-03-08T10:00:00"))
    eng.remember("Zoe from work asked me for a cafe near the station.", at=at("2025-03-08T11:00:00"))
    eng.close()
    store = Store(tmp_path / "engram.duckdb")
    marked = "SELECT tokens FROM memories WHERE content LIKE 'Met%'"
    assert {"zoe", "cafe", "muller", "strass", "crepe"} <= set(store.query(marked)[0][0].split())
    old = "met zoë café müller straße crêpes"  # how they were kept before: marks and all, not stemmed
    stored_before(store, "m009_folded_search_tokens", "content LIKE 'Met%'", old)
    eng = open_engram(tmp_path)
    try:
        assert eng.store.query(marked)[0][0].split() == ["met", "zoe", "cafe", "muller", "strass", "crepe"]
        found = eng.recall("crepes with zoe at the cafe", as_of=at("2025-03-09T00:00:00")).results
        assert found and found[0].unit.content.startswith("Met Zoë")
    finally:
        eng.close()


@pytest.mark.parametrize("migration, text, before, after, question", [
    # British spellings are found in American spelling
    ("m012_one_word_form", "Painted the spare room in my favourite colour, a soft grey.",
     "paint spare room favourit colour soft grey", "paint spare room favorit color soft gray",
     "what is my favorite color"),
    # chat shorthand is found by the word it stands for
    ("m046_one_word_form", "deleted my insta account for good, don't miss it",
     "delet insta account good miss", "delet instagram account good miss", "am I on instagram these days?"),
    ("m048_one_word_form", "got season tix for the rangers, section 114",
     "got season tix ranger section 114", "got season ticket ranger section 114", "do I have season tickets?"),
    ("m061_one_word_form", "learnt my nonna's ragu recipe at last",
     "learnt nonna ragu recip last", "learnt grandmoth ragu recip last", "what did my grandmother teach me to cook?"),
    ("m065_one_word_form", "posted mum's card early, her bday is the 14th of march",
     "post mom card earli birthday 14th march", "post mother card earli birthday 14th march",
     "when was my mother born?"),  # the user's own people by any of their names
])
def test_words_stored_before_a_one_word_form_migration_are_found_in_that_form(tmp_path, migration, text, before,
                                                                              after, question):
    from tests.helpers import at, open_engram

    eng = open_engram(tmp_path)
    eng.remember(text, at=at("2025-03-08T10:00:00"))
    eng.remember("Bought a new grey kettle for the kitchen.", at=at("2025-03-08T11:00:00"))
    eng.close()
    store = Store(tmp_path / "engram.duckdb")
    first_word = text.split()[0]
    stored = f"SELECT tokens FROM memories WHERE content LIKE '{first_word}%'"
    assert set(after.split()) <= set(store.query(stored)[0][0].split())
    stored_before(store, migration, f"content LIKE '{first_word}%'", before)  # how they were kept before
    eng = open_engram(tmp_path)
    try:
        assert eng.store.query(stored)[0][0].split() == after.split()
        found = eng.recall(question, as_of=at("2025-03-09T00:00:00")).results
        assert found and found[0].unit.content == text
    finally:
        eng.close()


@pytest.mark.parametrize("migration, text, stale", [
    # the rules learnt that "the coffee shop" is no statement about drink
    ("m010_statement_marks", "I met Sam at the coffee shop.", "{} §drink_preference"),
    # … and that "no more early shifts for me" is a change's consequence, not a negation of the news before it
    ("m011_statement_marks", "Passed my probation as a junior developer at Fernleaf today, no more early shifts for me!",
     "§said~no"),
])
def test_user_turns_marked_before_a_rules_migration_are_marked_again_by_the_rules_of_now(tmp_path, migration, text,
                                                                                        stale):
    from tests.helpers import at, open_engram

    eng = open_engram(tmp_path)
    eng.remember(text, at=at("2024-01-01T09:00:00"), message_id="u1")
    eng.close()
    store = Store(tmp_path / "engram.duckdb")
    tokens = "SELECT tokens FROM memories WHERE message_id = 'u1' AND type = 'chat_turn'"
    now = store.query(tokens)[0][0]
    assert "§drink_preference" not in now.split() and "§said" in now.split()
    before = stale.format(now) if "{}" in stale else " ".join(
        [w for w in now.split() if not w.startswith("§")] + [stale])
    stored_before(store, migration, "message_id = 'u1' AND type = 'chat_turn'", before)
    store = Store(tmp_path / "engram.duckdb")
    try:
        assert store.query(tokens)[0][0].split() == now.split() != before.split()
    finally:
        store.close()


def remarked(tmp_path, migration: str, text: str, stale) -> tuple[list[str], list[str]]:
    """A user's message remembered now, its tokens put back to `stale(tokens)` as before `migration`, and the store
    opened again: its tokens as written now, and as the migration left them."""
    from tests.helpers import at, open_engram

    eng = open_engram(tmp_path)
    eng.remember(text, at=at("2024-01-01T09:00:00"), message_id="u1")
    eng.close()
    store = Store(tmp_path / "engram.duckdb")
    tokens = "SELECT tokens FROM memories WHERE message_id = 'u1' AND type = 'chat_turn'"
    now = store.query(tokens)[0][0].split()
    stored_before(store, migration, "message_id = 'u1' AND type = 'chat_turn'", " ".join(stale(now)))
    store = Store(tmp_path / "engram.duckdb")
    try:
        return now, store.query(tokens)[0][0].split()
    finally:
        store.close()


def test_a_message_about_someone_else_stored_before_m013_is_marked_as_such(tmp_path):
    from memory.extract.relations import OTHERS_MARK

    # the brother's job, as the user's
    now, after = remarked(tmp_path, "m013_statement_marks",
                          "My brother just got a new job in Leeds, what's a good congrats gift?",
                          lambda now: [w for w in now if not w.startswith("§")] + ["§occupation", "§said"])
    assert OTHERS_MARK in now and "§occupation" not in now
    assert after == now


@pytest.mark.parametrize("migration, text, mark", [
    ("m014_statement_marks", "is hay fever worse in june or july?", "§asks"),  # a message that only asks
    ("m014_statement_marks", "Joined the David Lloyd by the ring road last week.", "§gym"),
    ("m015_statement_marks", "big news!! today was day one at Skyscanner, backend team", "§employer"),  # a first day
    ("m016_statement_marks", "表妹在学钢琴，考级考到八级了", "§others"),  # a relative, 我 dropped
    ("m017_statement_marks", "how often should I change the oil on an older car?", "§asks"),  # a question of what to do
    ("m018_statement_marks", "smoking like half a pack a day rn, work is insane", "§smoking"),  # a dropped subject
    ("m019_statement_marks", "电动车上牌要带啥材料", "§asks"),  # chat's 啥 asks
    ("m021_statement_marks", "neighbour's tesla blocking our drive again, should i leave a note", "§others"),
    ("m022_statement_marks", "考试前一天该复习还是休息啊", "§asks"),  # a Chinese question without a question mark
    ("m023_statement_marks", "any tips for selling shoes on vinted", "§asks"),  # an English one
    ("m024_statement_marks", "dumped my gym membership, too pricey", "§gym~no"),  # an idiom of ending
    ("m025_statement_marks", "老家的亲戚又在群里发养生文章 服了", "§others"),  # a relation after its modifier
    ("m026_statement_marks", "need to remember my mom's bday is june 12, she wants a plant", "§others"),  # a reminder
    ("m027_statement_marks", "big reorg, i report to marcus now", "§manager"),  # who the user reports to
    ("m028_statement_marks", "ok big news, moved down to bristol last weekend!!", "§home_location"),  # after an interjection
    ("m029_statement_marks", "we're a disney+ household now, cheaper", "§streaming"),  # a streaming service named
    ("m030_statement_marks", "as of this month our house is covered by Allstate", "§insurer"),  # an insurer
    ("m031_statement_marks", "车险一直是平安的，理赔挺快", "§insurer"),  # said topic first, 我 dropped
    ("m032_statement_marks", "我买了5万的易方达蓝筹精选，拿着看看", "§investment"),  # a fund held
    ("m033_statement_marks", "家里装了电信的宽带，500M", "§broadband"),  # who brings the internet in
    ("m034_statement_marks", "这周把号携转到联通了，79的套餐", "§mobile_network"),  # 携转
    ("m035_statement_marks", "我们租的房子在望京，离公司半小时", "§home_location"),  # where the rented flat is
    ("m036_statement_marks", "car insurance renewed with Geico, $1,140 for 6 months", "§insurer"),  # the thing first
    ("m037_statement_marks", "I'm pulling doubles at Crumb & Co this week, send help", "§employer"),  # a job's hours at a name
    ("m038_statement_marks", "happy friday 🎉 done w the sprint, my team at Duolingo shipped it", "§employer"),  # my team at
    ("m039_statement_marks", "戒奶茶第30天！！居然坚持下来了", "§drink_preference~no"),  # days without it
    ("m040_statement_marks", "dentist is Dr. Lindqvist over on Harbor Rd", "§dentist"),  # one of the user's people, "my" dropped
    ("m041_statement_marks", "最近在做心理咨询，咨询师姓林，两周一次", "§therapist"),  # 在做, the user's
    ("m042_statement_marks", "did my usual saturday shift at the pantry, we packed 300 boxes!", "§said"),  # exclaims
    ("m043_statement_marks", "had to drop the lessons, money's tight", "§told~no"),  # dropping lessons ends them
    ("m044_statement_marks", "房东要卖房 没办法又搬了…这次在回龙观", "§home_location"),  # moving again, after a forced turn
    ("m045_statement_marks", "third date with Priya tonight and I think I really like her", "§partner"),  # a couple's occasion
    ("m045_statement_marks", "what order do serum and moisturizer go in?? i always forget", "§questions"),  # not knowing
    ("m047_statement_marks", "dentist is dr. okafor at brightsmile on 5th", "§dentist"),  # a lower-case title
    ("m047_statement_marks", "今年没续那个了 换成众安尊享e生 便宜好几百呢", "§insurer"),  # 呢 after a statement
    ("m050_statement_marks", "when's the best time of year to overseed a lawn", "§asks"),  # "when's" asks
    ("m050_statement_marks", "我们家住闵行的春申花园 小区挺老了", "§home_location"),  # 我们家住
    ("m051_statement_marks", "cancelled prime today, wasnt using the shipping enough", "§told~no"),  # an end
    ("m051_statement_marks", "is listening to audiobooks at 1.5x bad for comprehension? be honest", "§questions"),
    ("m052_statement_marks", "new address as of monday: Morningside. tiny but mine", "§home_location"),  # told first
    ("m052_statement_marks", "my dad put me on his family plan so Visible is my carrier now", "§mobile_network"),
    ("m054_statement_marks", "any VPN provider recommendations? my work one is awful", "§asks_first"),  # asks first
    ("m054_statement_marks", "上个月起就住苏州园区了，房租便宜一半", "§home_location"),  # the 我 dropped
    ("m055_statement_marks", "had my first lesson w Petra today, my old teacher is retiring so she referred me to her. "
                             "feels odd", "§said"),  # someone else's doing moved the user
    ("m055_statement_marks", "这款耳机降噪靠谱不", "§asks"),  # 不 ending a clause asks
    ("m055_statement_marks", "我终于在青岛安顿下来了 离海边走路五分钟", "§home_location"),  # settled somewhere
    ("m055_statement_marks", "上周抱了只小橘猫回家 取名叫橙子", "§pet"),  # a pet brought home
    ("m056_statement_marks", "潜水考证一般要几天啊", "§asks"),  # 几 and a word before 啊
    ("m056_statement_marks", "车出手了 现在骑电驴上班", "§car~no"),  # 出手了 a thing is sold it
    ("m056_statement_marks", "lease ran out and we landed in a 2br in ballard", "§home_location"),
    ("m056_statement_marks", "i'm on tello now, way cheaper", "§mobile_network"),  # a carrier named
    ("m057_statement_marks", "told the coordinator im done, last season was my last one", "§said~no"),  # the last one
    ("m057_statement_marks", "just got off the overnight at Mercy General, wrecked", "§employer"),  # a shift ended
    ("m058_statement_marks", "hiya, how long do you boil an egg for a soft yolk", "§asks"),  # a greeting says nothing
    ("m058_statement_marks", "my buddies want a game night, what card games work for 6?", "§others"),  # buddies
    ("m058_statement_marks", "100 days smoke free today!!", "§smoking~no"),  # a milestone free of it
    ("m059_statement_marks", "roughly how much does an emergency vet visit cost at night", "§asks"),  # a lead word
    ("m059_statement_marks", "终于搬了！！现在在滨江这边 离公司近多了", "§home_location"),  # 搬了 ends a clause
    ("m060_statement_marks", "puzzle ideas for a 7 year old who's bored of easy ones", "§asks"),  # ideas asked for
    ("m060_statement_marks", "sister wants to bring her kids over sunday, what snacks do kids eat", "§others"),  # kin
    ("m060_statement_marks", "we pulled out of the saturday thing, booth fee doubled", "§said~no"),  # an end
    ("m060_statement_marks", "协会那边我退了 会长太爱搞形式主义", "§said~no"),  # the user left what they spoke of
    ("m060_statement_marks", "楼下那家店倒闭了…现在改去超级猩猩上团课", "§gym"),  # an ellipsis ends a clause
    ("m062_statement_marks", "lease ran out so we ended up in a little terrace in jericho", "§home_location"),  # a home
    ("m062_statement_marks", "my old Corolla just passed 180k, thing is unkillable", "§car"),  # a model
    ("m062_statement_marks", "sorry been quiet, Amara started nursery monday", "§children"),  # a child starting school
    ("m062_statement_marks", "早～刚遛完旺财回来 累死", "§pet"),  # a dog walked by name
    ("m063_statement_marks", "游泳卡退了 剩下几个月转给同事了", "§gym~no"),  # a card of a place one trains at
    ("m063_statement_marks", "the old Golf failed its MOT again, brakes this time", "§car"),  # a car by its MOT
    ("m063_statement_marks", "picked up the MG4 today!! first EV", "§car"),  # the first EV
    ("m063_statement_marks", "今天又在字节加班到十点", "§employer"),  # overtime at a place
    ("m063_statement_marks", "hung up the boots for good after the shoulder thing", "§hobby~no"),  # a sport given up
    ("m064_statement_marks", "long week as a teaching assistant at oakfield primary", "§occupation"),  # a work stretch
    ("m064_statement_marks", "on giffgaff now, the 15gb goodybag for a tenner", "§mobile_network"),  # "I'm" dropped
    ("m064_statement_marks", "had lasik done on friday!! dont need specs at all anymore", "§eyewear"),  # a new slot
    ("m064_statement_marks", "boiler's GONE, the heat pump went in yesterday", "§heating"),  # a new slot
    ("m064_statement_marks", "开的还是那辆二手卡罗拉，油耗倒是挺省的", "§car"),  # still driving it
    ("m064_statement_marks", "之前那个老师回老家了 现在找小林剪", "§barber"),  # who cuts the user's hair
    ("m064_statement_marks", "我妈把我拉进她的联通亲情号了 一个月才29", "§mobile_network"),  # taken along
])
def test_a_message_stored_before_a_statement_marks_migration_gets_its_mark(tmp_path, migration, text, mark):
    now, after = remarked(tmp_path, migration, text, lambda now: [w for w in now if w != mark])
    assert mark in now
    assert after == now


@pytest.mark.parametrize("migration, text, mark", [
    ("m049_statement_marks", "到期没续 自动续费也关了 反正最近也不怎么追剧了", "§asks"),  # 不怎么 asks nothing
    ("m050_statement_marks", "房东把房子卖了 我们只能搬 现在落脚在张江这边了", "§others"),  # the user's news after
    ("m051_statement_marks", "signed up at Iron Temple on 5th, $45/mo, no more excuses 💪", "§told~no"),  # a new state
    ("m051_statement_marks", "the kid i tutor says his dentist gives out stickers", "§dentist"),  # the kid's
    ("m052_statement_marks", "Any tips for sore calves? Can barely lift my arms this morning.", "§questions"),  # it tells
    ("m052_statement_marks", "my dad put me on his family plan so Visible is my carrier now", "§others"),  # the user's news
    ("m053_statement_marks", "based on a 2k/month budget how much should I be putting in savings", "§home_location"),
    ("m054_statement_marks", "房东要卖房 被迫搬家…结果落脚在静安了", "§others"),  # the user's news after
    ("m055_statement_marks", "sold the hatchback. light rail to the office as of this month, reading > traffic",
     "§told~no"),  # a switch from a moment on, not only an end
    ("m056_statement_marks", "我爸过年给我换了台小米14 旧的给我妈了", "§others"),  # what someone got the user
    ("m056_statement_marks", "my phone plan is way too expensive lol", "§phone_model"),  # the network's
    ("m057_statement_marks", "mom added me to her family plan on Visible to save money", "§others"),  # took the user
    ("m057_statement_marks", "朋友拉我去了东四一个酒吧的麦 以后就在那儿演了", "§others"),  # along
    ("m057_statement_marks", "老公生日送了我一台咖啡机 现在天天用", "§others"),  # what someone gave the user
    ("m063_statement_marks", "游泳卡退了 剩下几个月转给同事了", "§asks"),  # 剩下几个 counts what is left
    ("m064_statement_marks", "my brother finally talked me into voxi, sim came today", "§others"),  # the user's choice
    ("m064_statement_marks", "房东要卖房 只能又搬 这次在闵行七宝那边租了个两室", "§others"),  # this time, the user's news
    ("m064_statement_marks", "did my first saturday shift at st mark's food bank, knackered", "§questions"),  # told
])
def test_a_message_stored_before_a_statement_marks_migration_loses_a_mark_it_no_longer_has(tmp_path, migration, text,
                                                                                          mark):
    now, after = remarked(tmp_path, migration, text, lambda now: now + [mark])
    assert mark not in now
    assert after == now


def test_a_property_of_someone_else_stored_before_m020_is_marked_as_about_them(tmp_path):
    from memory.extract.relations import OTHERS_MARK as mark
    from tests.helpers import at, open_engram

    eng = open_engram(tmp_path)
    eng.remember("my brother's birthday is june 3 and i need gift ideas", at=at("2024-01-01T09:00:00"))
    eng.close()
    store = Store(tmp_path / "engram.duckdb")
    fact = "attribute = 'brother_birthday'"
    now = store.query(f"SELECT tokens FROM memories WHERE {fact}")[0][0].split()
    assert mark in now
    stored_before(store, "m020_someone_elses_properties", fact, " ".join(w for w in now if w != mark))
    store = Store(tmp_path / "engram.duckdb")
    try:
        assert store.query(f"SELECT tokens FROM memories WHERE {fact}")[0][0].split() == now
    finally:
        store.close()


def test_no_progress_bar_reaches_stdout(tmp_path):
    """DuckDB draws a progress bar on stdout for a query over about 2 s: it would land inside `--json`.
    Read in a process of its own: under pytest's captured stdout DuckDB leaves the bar off anyway."""
    Store(tmp_path / "e.duckdb").close()
    script = textwrap.dedent(f"""
        from memory.store import Store
        for read_only in (False, True):
            store = Store({str(tmp_path / "e.duckdb")!r}, read_only=read_only)
            print(store.conn.execute("SELECT current_setting('enable_progress_bar')").fetchone()[0])
            store.close()
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]


def test_assistant_turns_stored_before_m007_are_marked_as_the_assistants(tmp_path):
    from memory.model import ASSISTANT_MARK
    from tests.helpers import at, open_engram

    eng = open_engram(tmp_path)
    eng.remember("I moved to Leeds.", at=at("2025-03-08T10:00:00"), message_id="u1")
    eng.remember("Leeds is a lovely city!", at=at("2025-03-08T10:01:00"), role="assistant", message_id="a1")
    eng.close()
    store = Store(tmp_path / "engram.duckdb")
    marked = "SELECT message_id FROM memories WHERE list_contains(string_split(tokens, ' '), '§assistant')"
    assert [row[0] for row in store.query(marked)] == ["a1"]
    store.execute("UPDATE memories SET tokens = replace(tokens, ' §assistant', '')")  # as written before m007
    store.execute("DELETE FROM migrations WHERE name = 'm007_assistant_turn_mark'")
    assert store.query(marked) == []
    store.close()
    store = Store(tmp_path / "engram.duckdb")
    try:
        assert [row[0] for row in store.query(marked)] == ["a1"]
        tokens = store.query("SELECT tokens FROM memories WHERE message_id = 'a1'")[0][0].split()
        assert tokens.count(ASSISTANT_MARK) == 1 and len(tokens) > 1
    finally:
        store.close()


def test_user_turns_stored_before_m008_are_marked_by_the_statement_rules_of_now(tmp_path):
    from tests.helpers import at, open_engram

    eng = open_engram(tmp_path)
    eng.remember("I smoke about ten a day.", at=at("2024-01-01T09:00:00"), message_id="u1")
    eng.remember("Six months smoke-free today!", at=at("2024-07-01T09:00:00"), message_id="u2")
    eng.remember("Well done on six months!", at=at("2024-07-01T09:01:00"), role="assistant", message_id="a1")
    eng.close()
    store = Store(tmp_path / "engram.duckdb")
    tokens = "SELECT message_id, tokens FROM memories WHERE type = 'chat_turn' ORDER BY message_id"
    written = {message_id: tokens.split() for message_id, tokens in store.query(tokens)}
    assert "§smoking" in written["u1"] and "§smoking~no" in written["u2"] and "§assistant" in written["a1"]
    store.execute("UPDATE memories SET tokens = regexp_replace(tokens, ' §smoking(~no)?', '', 'g')")  # as before m008
    store.execute("DELETE FROM migrations WHERE name = 'm008_statement_marks'")
    assert not any("§smoking" in t for _, t in store.query(tokens))
    store.close()
    store = Store(tmp_path / "engram.duckdb")
    try:
        assert {message_id: tokens.split() for message_id, tokens in store.query(tokens)} == written
    finally:
        store.close()
    eng = open_engram(tmp_path)
    try:
        assert eng.recall("Do I smoke?", as_of=at("2024-08-01T00:00:00")).results[0].unit.content.startswith("Six months")
    finally:
        eng.close()
