"""DuckDB store: schema, named migrations, transactions, queries. The source of truth."""
from __future__ import annotations

import json
import math
import os
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

import duckdb
import numpy as np

from .clock import ensure_utc, utc_now
from .entity_names import EntityNames
from .errors import NotFoundError, StoreDamagedError, StoreLockedError, StoreReadOnlyError
from .files import open_private, private_file
from .model import ASSISTANT_MARK, Event, MemoryUnit, Source
from .shown_rows import Shown, ShownRows
from .temporal import true_at_sql

if TYPE_CHECKING:
    import pyarrow as pa

    from .changes import NewSource

MEMORY_COLUMNS = (
    "id", "content", "type", "valid_from", "valid_until", "recorded_at", "superseded_at",
    "superseded_by", "relevance", "subject", "attribute", "value", "session_id", "source_id",
    "event_id", "message_id", "line_start", "line_end", "archived", "use_count", "last_used_at",
)
EVENT_COLUMNS = ("id", "kind", "occurred_at", "recorded_at", "role", "session_id", "message_id", "text", "source_id")
_TIME_FIELDS = {"valid_from", "valid_until", "recorded_at", "superseded_at", "last_used_at"}
#: a value replaced by a newer one in the world (not a corrected record)
REPLACED = "(superseded_by IS NOT NULL AND superseded_at IS NULL)"
#: a value whose world interval ends with no successor (expiry, a deleted note, a closed session state)
ENDED_ALONE = "(superseded_by IS NULL AND superseded_at IS NULL AND valid_until IS NOT NULL)"


def db_time(value: datetime | None) -> datetime | None:
    """DuckDB TIMESTAMP columns hold naive UTC."""
    return ensure_utc(value).replace(tzinfo=None) if value is not None else None


def py_time(value: datetime | None) -> datetime | None:
    return ensure_utc(value) if value is not None else None


def sql_literal(value: Any) -> str | None:
    """`value` as a SQL literal, or None when it is not one of the plain kinds written safely as literals:
    NULL, a boolean, a whole number, a finite float, text, bytes, a naive timestamp, a list of whole numbers
    or of texts."""
    kind = type(value)
    if value is None:
        return "NULL"
    if kind is bool:
        return "TRUE" if value else "FALSE"
    if kind is int:
        return str(value)
    if kind is float:
        return f"'{value!r}'::DOUBLE" if math.isfinite(value) else None  # parsed from text: the same double
    if kind is str:
        return "'" + value.replace("'", "''") + "'" if "\x00" not in value else None  # '' is the only escape
    if kind is bytes:
        return f"from_hex('{value.hex()}')"
    if kind is datetime and value.tzinfo is None:
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    if kind is list and all(type(v) is int for v in value):
        return "[" + ", ".join(map(str, value)) + "]::BIGINT[]"
    if kind is list and all(type(v) is str and "\x00" not in v for v in value):
        return "[" + ", ".join("'" + v.replace("'", "''") + "'" for v in value) + "]::VARCHAR[]"
    return None


def inline_params(sql: str, params: list) -> str | None:
    """`sql` with each `?` replaced by its parameter as a SQL literal (`sql_literal`), or None when one is
    not a plain value.

    DuckDB's Python binding imports pandas (about half a second) the first time it binds any value, so
    statements pass literals: a command that reads, or writes a few rows, never loads pandas."""
    literals = [sql_literal(value) for value in params]
    pieces = sql.split("?")
    if None in literals or len(pieces) != len(literals) + 1:
        return None
    return "".join(piece + literal for piece, literal in zip(pieces, literals)) + pieces[-1]


def run_sql(conn: duckdb.DuckDBPyConnection, sql: str, params: list) -> duckdb.DuckDBPyConnection:
    """Execute with literal parameters where they are plain values, else bound ones (see inline_params)."""
    inlined = inline_params(sql, params) if params else sql
    return conn.execute(inlined) if inlined is not None else conn.execute(sql, params)


#: Up to this many rows are inserted as literal VALUES; more go through an Arrow table (pyarrow imports pandas).
LITERAL_ROWS = 64


def bulk_insert(conn: duckdb.DuckDBPyConnection, table: str, columns: tuple[str, ...], rows: list[list]) -> None:
    """Insert many rows in one statement: a few as literals, many through an Arrow table (executemany is ~5×
    slower)."""
    if not rows:
        return
    names = ", ".join(columns)
    if len(rows) <= LITERAL_ROWS:
        values = [[sql_literal(value) for value in row] for row in rows]
        if not any(None in row for row in values):
            conn.execute(f"INSERT INTO {table} ({names}) VALUES " + ", ".join(f"({', '.join(row)})" for row in values))
            return
    import pyarrow as pa

    arrays = {}
    for i, name in enumerate(columns):
        values = [row[i] for row in rows]
        arrays[name] = pa.nulls(len(values)) if all(v is None for v in values) else pa.array(values)
    view = f"_bulk_{table}"
    conn.register(view, pa.table(arrays))
    try:
        conn.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM {view}")
    finally:
        conn.unregister(view)


def m001_create_core(conn: duckdb.DuckDBPyConnection) -> None:
    for name in ("sources", "events", "entities", "memories"):
        conn.execute(f"CREATE SEQUENCE seq_{name} START 1")
    conn.execute("CREATE TABLE meta (key VARCHAR, value VARCHAR)")
    conn.execute(
        """CREATE TABLE sources (
            id BIGINT, kind VARCHAR, ref VARCHAR, fingerprint VARCHAR, mtime TIMESTAMP,
            title VARCHAR, created_at TIMESTAMP, deleted_at TIMESTAMP, meta VARCHAR)"""
    )
    conn.execute(
        """CREATE TABLE events (
            id BIGINT, kind VARCHAR, occurred_at TIMESTAMP, recorded_at TIMESTAMP, role VARCHAR,
            session_id VARCHAR, message_id VARCHAR, text VARCHAR, source_id BIGINT)"""
    )
    conn.execute(
        """CREATE TABLE entities (
            id BIGINT, name VARCHAR, label VARCHAR, qualifier VARCHAR, aliases VARCHAR[],
            first_seen TIMESTAMP)"""
    )
    conn.execute(
        """CREATE TABLE memories (
            id BIGINT, content VARCHAR, type VARCHAR, valid_from TIMESTAMP, valid_until TIMESTAMP,
            recorded_at TIMESTAMP, superseded_at TIMESTAMP, superseded_by BIGINT,
            relevance DOUBLE, subject VARCHAR, attribute VARCHAR, value VARCHAR,
            session_id VARCHAR, source_id BIGINT, event_id BIGINT, message_id VARCHAR,
            line_start INTEGER, line_end INTEGER, archived BOOLEAN, use_count INTEGER,
            last_used_at TIMESTAMP, tokens VARCHAR)"""
    )
    conn.execute("CREATE TABLE embeddings (memory_id BIGINT, vector BLOB)")
    conn.execute("CREATE TABLE memory_entities (memory_id BIGINT, entity_id BIGINT)")
    conn.execute(
        """CREATE TABLE edges (
            src VARCHAR, dst VARCHAR, kind VARCHAR, valid_from TIMESTAMP, valid_until TIMESTAMP,
            recorded_at TIMESTAMP)"""
    )
    conn.execute("CREATE TABLE audit (logged_at TIMESTAMP, action VARCHAR, target VARCHAR, detail VARCHAR)")
    conn.execute(
        """CREATE TABLE recall_log (
            logged_at TIMESTAMP, session_id VARCHAR, returned BIGINT[], used BIGINT[],
            latency_ms DOUBLE, confident BOOLEAN)"""
    )


def m002_chat_sessions(conn: duckdb.DuckDBPyConnection) -> None:
    conn.execute(
        """CREATE TABLE sessions (
            id VARCHAR, title VARCHAR, started_at TIMESTAMP, summary VARCHAR,
            summary_upto BIGINT, topic VARCHAR)"""
    )


def m003_vault_notes(conn: duckdb.DuckDBPyConnection) -> None:
    conn.execute("ALTER TABLE sources ADD COLUMN size BIGINT")
    conn.execute("ALTER TABLE memories ADD COLUMN embed_text VARCHAR")
    conn.execute(
        """CREATE TABLE note_links (
            source_id BIGINT, target VARCHAR, kind VARCHAR, line INTEGER, resolved_id BIGINT)"""
    )


def m004_lookup_indexes(conn: duckdb.DuckDBPyConnection) -> None:
    """Point-lookup indexes (not unique: DuckDB checks unique ones too eagerly on update)."""
    for table, column in (("memories", "id"), ("memories", "source_id"), ("embeddings", "memory_id"),
                          ("memory_entities", "memory_id"), ("edges", "src"), ("note_links", "source_id"),
                          ("sources", "ref"), ("events", "id")):
        conn.execute(f"CREATE INDEX idx_{table}_{column} ON {table} ({column})")


def m005_chinese_character_tokens(conn: duckdb.DuckDBPyConnection) -> None:
    """Chinese search tokens gain their characters (see search_tokens._chinese_tokens)."""
    rows = conn.execute("SELECT id, tokens FROM memories WHERE regexp_matches(tokens, '[\u4e00-\u9fff]')").fetchall()
    if not rows:
        return  # a new store: the tokenizer (and its patterns) need not load
    from .extract.search_tokens import with_han_characters

    for memory_id, tokens in rows:
        run_sql(conn, "UPDATE memories SET tokens = ? WHERE id = ?", [" ".join(with_han_characters(tokens.split())), memory_id])


def m006_vector_pending(conn: duckdb.DuckDBPyConnection) -> None:
    """A memory may be stored before its vector: keyword-searchable at once, embedded by the vector filler."""
    conn.execute("ALTER TABLE memories ADD COLUMN vector_pending BOOLEAN")


def m007_assistant_turn_mark(conn: duckdb.DuckDBPyConnection) -> None:
    """The assistant's chat turns carry a search token that says so (`ASSISTANT_MARK`, a literal of ours)."""
    conn.execute(
        f"""UPDATE memories SET tokens = trim(coalesce(tokens, '') || ' {ASSISTANT_MARK}')
            WHERE type = 'chat_turn' AND event_id IN (SELECT id FROM events WHERE role = 'assistant')
              AND NOT list_contains(string_split(coalesce(tokens, ''), ' '), '{ASSISTANT_MARK}')""")


def _update_tokens(conn: duckdb.DuckDBPyConnection, changed: list[list]) -> None:
    """Write [id, tokens] pairs in one statement (through a temporary table)."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS token_updates (id BIGINT, tokens VARCHAR)")
    conn.execute("DELETE FROM token_updates")
    bulk_insert(conn, "token_updates", ("id", "tokens"), changed)
    conn.execute("UPDATE memories SET tokens = u.tokens FROM token_updates u WHERE memories.id = u.id")


def m008_statement_marks(conn: duckdb.DuckDBPyConnection) -> None:
    """The user's chat turns are marked again by the statement rules, which learnt new classes (smoking,
    children) and new wordings; a turn whose marks are unchanged is not written. When the rules learn
    again, list this function once more under a new migration name."""
    rows = conn.execute(
        """SELECT m.id, m.tokens, e.text FROM memories m JOIN events e ON e.id = m.event_id
           WHERE m.type = 'chat_turn' AND e.role = 'user'""").fetchall()
    if not rows:
        return  # a new store: the statement rules need not load
    from .extract.attributes import STATEMENT_MARK, statement_marks

    changed = []
    for memory_id, tokens, text in rows:
        words = (tokens or "").split()
        marked = [w for w in words if not w.startswith(STATEMENT_MARK)] + statement_marks(text or "")
        if marked != words:
            changed.append([memory_id, " ".join(marked)])
    _update_tokens(conn, changed)


def m009_folded_search_tokens(conn: duckdb.DuckDBPyConnection) -> None:
    """Search tokens of Latin letters with marks are stored folded ("café" as "cafe"; see memory/latin.py)."""
    rows = conn.execute(
        r"SELECT id, tokens FROM memories WHERE regexp_matches(tokens, '[\x{00C0}-\x{024F}\x{1E00}-\x{1EFF}]')"
    ).fetchall()
    if not rows:
        return  # a new store, or one with no such word: the tokenizer need not load
    from .extract.search_tokens import fold_stored_token

    changed = []
    for memory_id, tokens in rows:
        folded = [token for token in map(fold_stored_token, tokens.split()) if token is not None]
        changed.append([memory_id, " ".join(folded)])
    _update_tokens(conn, changed)


def m012_one_word_form(conn: duckdb.DuckDBPyConnection) -> None:
    """Search tokens of British spellings and chat shorthand are stored in the one form the tokenizer gives
    them now ("colour" as "color", "bday" as "birthday"; see extract/word_forms.py)."""
    if conn.execute("SELECT 1 FROM memories LIMIT 1").fetchone() is None:
        return  # a new store: the tokenizer need not load
    from .extract.search_tokens import STORED_VARIANTS, one_word_form

    pattern = "(^|[ ^])(" + "|".join(sorted(STORED_VARIANTS)) + ")( |$)"
    rows = conn.execute(f"SELECT id, tokens FROM memories WHERE regexp_matches(tokens, '{pattern}')").fetchall()
    changed = [[memory_id, " ".join(map(one_word_form, tokens.split()))] for memory_id, tokens in rows]
    _update_tokens(conn, changed)


def m020_someone_elses_properties(conn: duckdb.DuckDBPyConnection) -> None:
    """A fact that is a property of someone else ("User's brother's birthday is june 3") is marked as about them."""
    rows = conn.execute("SELECT id, tokens, attribute FROM memories WHERE attribute IS NOT NULL").fetchall()
    if not rows:
        return
    from .extract.relations import OTHERS_MARK, someone_elses_attribute

    _update_tokens(conn, [[memory_id, f"{tokens or ''} {OTHERS_MARK}".strip()] for memory_id, tokens, attribute in rows
                          if someone_elses_attribute(attribute) and OTHERS_MARK not in (tokens or "").split()])


MIGRATIONS: list[tuple[str, Callable[[duckdb.DuckDBPyConnection], None]]] = [
    ("m001_create_core", m001_create_core),
    ("m002_chat_sessions", m002_chat_sessions),
    ("m003_vault_notes", m003_vault_notes),
    ("m004_lookup_indexes", m004_lookup_indexes),
    ("m005_chinese_character_tokens", m005_chinese_character_tokens),
    ("m006_vector_pending", m006_vector_pending),
    ("m007_assistant_turn_mark", m007_assistant_turn_mark),
    ("m008_statement_marks", m008_statement_marks),
    ("m009_folded_search_tokens", m009_folded_search_tokens),
    ("m010_statement_marks", m008_statement_marks),  # the rules learnt work modes, value nouns as modifiers, …
    ("m011_statement_marks", m008_statement_marks),  # … consequences, transfers, "as a <job>", 搬家 alone, milestones in tens
    ("m012_one_word_form", m012_one_word_form),
    ("m013_statement_marks", m008_statement_marks),  # messages about someone else: `§others`, and none of the user's topics
    # messages that only ask (`§asks`); gym, bank, language, medication, mobile network; "moved my money" is no move;
    # "Mum keeps asking me …" is about someone else
    ("m014_statement_marks", m008_statement_marks),
    # the employer: "today was day one at Skyscanner", "starting at Brightwell", "accepted the offer", night shifts at a
    # named place; the partner: "been together"; a child: 我女儿 without 的; no news: "moving house is the worst"; what
    # a message tells before it asks ("刚送完我女儿朵朵去幼儿园，今天天气怎么样？"); a thing 新买的 is the user's; allergies
    ("m015_statement_marks", m008_statement_marks),
    # about someone else after the questions a message opens with, on someone's behalf, by a friend's name, the
    # neighbour's things; a relation without 我 ("表妹在学钢琴"), "my buddy"; lead words ("for the record"); milestones;
    # "first full week at Pulse Health"
    ("m016_statement_marks", m008_statement_marks),
    # a question of what to do ("how often should I change the oil?") and 要不要 only ask; the team at work; a switch
    # that names its kind ("switched dentists"); a job by a first week as it; Chinese commutes, cars sold, 搬家啦
    ("m017_statement_marks", m008_statement_marks),
    # chat as it is typed: dropped subjects ("smoking like half a pack a day", "biking to work every day now"), "im",
    # habits by rate ("4 espressos a day"), lower-case cars ("my mazda3"), "iPhone15", a ride every morning, English
    # cues inside Chinese ("我的iPhone"), a reported word is not the user's ("doc says …"), "living room" is no home;
    # movers, a major, "bumped me up to", "seeing this guy", an "acct"; 搬完家, 在杭州住了, 当牙医, 在新东方教,
    # 每天挤10号线, 开车上班, 约会, 办了张年卡
    ("m018_statement_marks", m008_statement_marks),
    ("m019_statement_marks", m008_statement_marks),  # 啥 and 咋 ask ("奶茶里的珍珠到底是啥做的啊")
    ("m020_someone_elses_properties", m020_someone_elses_properties),
    # someone else's without "my": "neighbour's tesla blocking our drive"; what is asked for someone else ("… asking for my
    # mum who still lives up there") tells none of the user's topics; a partner as chat tells it ("me and marcus called it
    # quits", "been seeing this guy Idris"), and not a therapist one sees
    ("m021_statement_marks", m008_statement_marks),
    # Chinese chat as it is typed: a space ends a clause ("宣布 烟戒了!!!"), questions without a question mark ("瑜伽垫买多厚的
    # 比较好", "该复习还是休息啊"), a job said as 我是幼儿园老师 or 当幼儿园老师; "me and maya made it official"; a message whose
    # every sentence asks though it names the user (`§questions`: "how do I tell my parents we're not doing christmas?");
    # the user only reacting to someone else is about them (`§others`: "my friend has three kids, idk how she does it")
    ("m022_statement_marks", m008_statement_marks),
    # chat asks without a question mark ("any tips for selling shoes on vinted", "…正常吗 崩溃"); a request tells nothing
    # by itself ("recommend me a thriller", "帮我写个生日祝福"), and a clause of the user's own after a question does
    # ("帮我看看这个表对不对 我是湖南常德人 …"); a greeting before news ("heyyy just turned 37"); 另一半 is a partner;
    # "£48 this month??" is disbelief, no question; idioms of ending and change ("said goodbye to", 卸载了, 投奔, 转粉);
    # news told with "had to" ("had to switch dentists")
    ("m023_statement_marks", m008_statement_marks),
    # idioms of ending ("the uke's gathering dust", "dumped my gym membership", 吉他吃灰); a space before Chinese ends a
    # clause ("吉他吃灰一年了hhh 最近迷上了架子鼓": the drums are news, not only an ending)
    ("m024_statement_marks", m008_statement_marks),
    # a relation after a modifier of its own is the subject: "老家的亲戚又在群里发养生文章" is about the relatives
    ("m025_statement_marks", m008_statement_marks),
    # a reminder before someone else's news is about them: "need to remember my mom's bday is june 12"
    ("m026_statement_marks", m008_statement_marks),
    # who the user reports to ("i report to marcus now", "直属leader是刘姐"); leaving a band or a team, 退群, 戒奶茶, 还清,
    # 到期没续, "paused hellofresh indefinitely" end something; "resident of", "办了乐刻的月卡", "坐14号线" name their attribute
    ("m027_statement_marks", m008_statement_marks),
    # news after an interjection ("ok big news, moved down to bristol"); a job at a place in any case ("i'm an auditor at
    # deloitte", 在字节做产品); 我住望京这边; a membership cancelled ("cancelled my gym membership", 会员我退了); a classmate,
    # a nephew or a landlord is someone else (我同学, 我侄子, 我房东); "GOT THE KEYS!!", "keys collected for the new place";
    # 调到产品部 is a team; a clause that opens with 把 is the user's own action ("前天把号携号转网转到电信了"); a question
    # asked in the user's role tells the role ("quick one — as a vet, how do I explain pet insurance?"); "been teetotal
    # since august" ends drinking; a pet by its breed ("Mochi, my shiba", "my siamese")
    ("m028_statement_marks", m008_statement_marks),
    # a milestone counted by its day ("day 30 with no vape"); "with zero caffeine" ends it; 没碰烟; going with the ymca;
    # "my 2014 honda civic"; "started piano lessons"; a streaming service named ("we're a disney+ household now");
    # 全部赎回, 清仓 end a holding; "pulled the plug on netflix" opens news
    ("m029_statement_marks", m008_statement_marks),
    # an insurer, a barber and a dentist are words on their own attributes ("our house is covered by Allstate", "got a
    # fresh cut at barbería don chuy", "had my cleaning with Dr. Okafor"); a bouldering hall is a gym; one thing left
    # for another is a switch ("ditched voda for giffgaff"); "renewed" and "dumped" open news; 烟我戒了
    ("m030_statement_marks", m008_statement_marks),
    # who looks after the user's child, the landlord and the blood type are words on their own attributes ("starts at
    # little acorns nursery", "my landlord is a guy called derek", "my blood type is o negative"); "been with lloyds",
    # a current account, "i'm on ee", a 30gb plan; a barber's by its kind of name ("going to fade factory now"); an
    # emoji ends a sentence; Chinese said topic first ("车险一直是平安的", "今年车险续的人保") or by its rate ("每天两杯美式")
    ("m031_statement_marks", m008_statement_marks),
    # joining a place is a word on the employer ("joining deliveroo on the 4th"), a state with "I'm" dropped one on its
    # attribute ("fully vegan as of jan 1st"); what comes before news without a subject of the user's is someone else's
    # ("marco moved to florida 😢 ended up going with …"); Chinese that drops the 我 of 我女儿 is about the user's child,
    # and who looks after a child is the user's arrangement, not news of someone else's ("女儿在阳光幼儿园上小班"); lessons
    # ("钢琴课", 钢琴课退了) and what the user does for a child ("给儿子报了…"); a fund held or cashed out (易方达, 全部赎回)
    ("m032_statement_marks", m008_statement_marks),
    # a therapist, a vet, where the user volunteers and the broadband are words on their own attributes ("took Biscuit
    # to Dr. Okafor at Riverbend Animal Clinic", "家里装了电信的宽带", "宽带转到联通了"); "the new place in Astoria", "开我那辆
    # 小polo上班", "respiratory therapist life", "third week at Deloitte", "starting at a fintech called Ramp",
    # "给朵朵转到金色摇篮了"; "took", "starting", "helping out" and "sorry" open news
    ("m033_statement_marks", m008_statement_marks),
    # a vet by what a visit was for ("for her shots"), a job by its suffix as a way of life ("sonographer life"), a gym by
    # its name (超级猩猩, 乐刻), 携转, "中国移动38块的套餐", "一直找…剪头", 改去; "back from" opens news; 最近想 is no change
    ("m034_statement_marks", m008_statement_marks),
    # where the user rents a desk (WeWork, a hot desk) and comes from (老家, "grew up in"); "signed the lease in Astoria",
    # "租的房子在望京", "一根都没碰"; 年后, 改开, 从…回来 open news in Chinese, and so does a clause after ～; "i'm brazilian"
    ("m035_statement_marks", m008_statement_marks),
    # the thing first, "my" dropped ("car insurance renewed with Geico", "building got sold … new owner is"); "cancelled
    # the old policy" is a switch; "2 years together", "car-free"; a clause after …, 入了, 用的还是, 转到人保 (an insurer by
    # name), 办了…千兆; "我房东是个上海阿姨" says who the landlord is; a child's school is the child's care ("年后闺女转到实验二小了");
    # 私教, 跟的是, 前阵子, "在4S店卖车真的累"; "porting done", "keys handed back", "an Evanston resident", standing desks,
    # 一包红塔山, 戒不掉 (no quitting), 统一办的招商银行
    ("m036_statement_marks", m008_statement_marks),
    # a lead-in before the news ("well it's official, sold it …", "a brief update: …"), a greeting that asks nothing
    # ("在吗在吗 最近忙疯了…"), 好几个 asks nothing; a job's hours or title at a name ("pulling doubles at Crumb & Co", "as a
    # structural engineer at Arup", "long shift at the fire station"), "being a veterinary nurse", "made me head pastry
    # chef", a program at a named school, "moved my desk to Canopy", "fully off the sertraline", "rent now goes to …",
    # "opened my checking at …", a tabla class, "walking Biscuit" is no commute, a labmate is someone else; 手机号是移动的,
    # 号码携号转网了, 当住院医, 轮转到急诊科, 那个班我退了, 提车, 朗逸开了五年, 我是AB型; "first session at …", "officially" and
    # "since the move" tell a change
    ("m037_statement_marks", m008_statement_marks),
    # stop 47: a hedge is no question ("so pescatarian I guess?"), an emoji ends a sentence that tells before a request,
    # shopping before asking which only asks ("need a van that fits a ladder, any recs?"), 前几天 is no question, a
    # title's full stop ends no clause ("seeing Dr. Hanna Weiss … for my anxiety"), "my team at Duolingo", "being a
    # court stenographer", "went w Progressive", what someone says of the user ("dr said we're bumping it up to
    # 100mg"), "first session at …", a car by its model year, 在上海静安租了个一室户
    ("m038_statement_marks", m008_statement_marks),
    # stop 48: an emoji before a space ends a clause ("sold the outback 😢 picked up a used Mazda CX-5"), "finaly
    # switched", "moved my desk over to …" (no home), "unpacked the last box" and "been working out of …" are news,
    # "mine" is the user's own ("make sure mine has zero peanuts bc allergy"), "ended up buying" names the new one,
    # "i'm bouldering at depot" (a gym), 戒奶茶第30天, 在深圳南山租房, 那几年 is no question
    ("m039_statement_marks", m008_statement_marks),
    # stop 49: one of the user's people with "my" dropped ("dentist is Dr. Lindqvist"), "here in Duluth", "seeing Dr.
    # Okafor for the anxiety stuff", "I'm out of the band", "stepped down from", "the dose has gone up", "moves to" and
    # "pulled her out of" tell a change, someone else's news with only the user's feeling after it ("… I'm torn"), a
    # grandson, the user's news after what someone else did ("房东要卖房 只能搬了 现在住回龙观"), a question with only an
    # aside after it ("who won the football last night? missed it")
    ("m040_statement_marks", m008_statement_marks),
    # stop 50: "found a new guy tho" and "年后又搬了" tell the user's news, so does "最近在做心理咨询"; "my stylist" is who
    # does the user's hair; what 把 moves is a thing ("把照片全迁到阿里云盘了" is no move of the user's)
    ("m041_statement_marks", m008_statement_marks),
    # stop 51: "found someone new", "the iPhone 15 arrived", "driving for Metro Transit", "having a ciggie", "送去表姐家养了",
    # 出掉 and 入了台, 续了, "烟又抽到一天一包", "去二中当语文老师"; "moved my cover over to …" names an insurer and moves no
    # home; a sentence that exclaims does not ask ("did my usual shift …!"), one that tells only a wish before it asks
    # does ("周末想去露营，带什么装备")
    ("m042_statement_marks", m008_statement_marks),
    # stop 52: dropping lessons, a class or a course ends them ("had to drop the lessons"), so does giving all away
    # ("鱼都送给楼下小孩了")
    ("m043_statement_marks", m008_statement_marks),
    # stop 53: moving again (又搬了) or back (搬回) is a move, also in the clause that tells what the user had to do
    # ("房东要卖房 没办法又搬了"); a card closed (销了, 注销) ends it
    ("m044_statement_marks", m008_statement_marks),
    # stop 54: a couple's own occasions are words on the partner ("third date with Priya", "our anniversary trip"); a
    # question followed only by not knowing ("… go in?? i always forget") only asks; a move done (搬完了) or a home
    # begun (开始住) is where the user lives, also after an ellipsis that ends what someone else did ("……只能又搬了"); a
    # closing that tells a new state from today ("… covered by admiral from today") is the user's word, not only a closing
    ("m045_statement_marks", m008_statement_marks),
    # stop 54: more chat shorthand in one form ("insta" as "instagram", "footy" as "football", "meds" as "medication")
    ("m046_one_word_form", m012_one_word_form),
    # stop 55: a dropped "my" before a lower-case title ("dentist is dr. okafor"), one sentence across "dr."; seeing a
    # doctor is no partner ("im seeing a Dr. Lindqvist now"); an emoji ends a clause ("… 😤 we're on YouTube TV now" is
    # the user's); not renewing, a profile deactivated, 出掉了 end things; a business account is a bank's; 医疗险 is
    # insurance; 呢 after a statement and "谁顶得住" ask nothing
    ("m047_statement_marks", m008_statement_marks),
    # stop 55: "tix" in one form with "tickets", grandpa and granny with grandfather and grandmother
    ("m048_one_word_form", m012_one_word_form),
    # stop 56: 不怎么 ("not very") asks nothing ("反正最近也不怎么追剧了")
    ("m049_statement_marks", m008_statement_marks),
    # stop 57: "when's", "who's" and a clause-ending 几 ask; 我们家住, 落脚在, 跟着搬了 and "porting my number" are where
    # the user lives and their network; 退掉 ends a card; "我们只能搬" is the user's news after someone else's doing
    ("m050_statement_marks", m008_statement_marks),
    # stop 58: more ways to tell an end ("cancelled prime today", "hung up my boots", "bowed out of …", "帐篷送给我表弟了",
    # "那个云盘订阅我退了") and a new state ("ended up going with …", "signed up at …", "… going forward"); the point of a
    # number ends no sentence ("… at 1.5x bad for comprehension? be honest" asks); someone the user knows by what they
    # do for them is someone else ("the kid i tutor says his dentist …")
    ("m051_statement_marks", m008_statement_marks),
    # stop 59: a verb before no subject but an adverb tells ("Can barely hold my tea this morning"); more ways to tell
    # an end ("gave my kayak away", "handed my saturday class over to …", "cancelled the astro society membership",
    # "那个课我退了", "出给同事了"); "new address as of saturday: Portobello" is where the user lives; "… so Visible is my
    # carrier now" is the user's own news after someone else's doing
    ("m052_statement_marks", m008_statement_marks),
    # stop 60: "based on …" says where nothing is ("based on a 2k/month budget how much should I save")
    ("m053_statement_marks", m008_statement_marks),
    # stop 61: a message that opens by asking and only then tells is marked so (`§asks_first`: "any VPN provider
    # recommendations? my work one is awful"); living somewhere from a time on, the 我 dropped, is where the user lives
    # ("上个月起就住苏州园区了"), and so is where a forced move ended ("房东要卖房 被迫搬家…结果落脚在静安了")
    ("m054_statement_marks", m008_statement_marks),
    # stop 63: someone else's doing that moved the user is a change ("she referred me to her", "my sister added me to her
    # family plan"), and so is a state from last or this week on ("light rail to the office as of this month",
    # "这周起住回龙观了"); 不 ending a Chinese clause asks ("剑馆一般周末人多不"); settling somewhere is where the user lives
    # ("终于在成都安顿下来"), and a pet brought home is a pet ("接了只柯基回家")
    ("m055_statement_marks", m008_statement_marks),
    # stop 64: 几 and a word before 啊 or 呀 asks how many ("入门大概要几节课啊"); 出手了 a thing is sold it ("车出手了");
    # "landed in a 1br in fremont" and "officially boise people" are where the user lives; what someone got the user is
    # the user's own ("我妈…给我换了台mate60"); more carriers by name ("on cricket rn", "tello"); a phone plan is the
    # network's, not the phone's
    ("m056_statement_marks", m008_statement_marks),
    # stop 65: someone who took the user along or gave them something leaves the message the user's own ("朋友拉我去了…",
    # "mom added me to her family plan", "老公…送了我一台海氏的"); the last of something ends it ("last season was my
    # last one"), and so does a thing let go ("let the abbey road go on discogs"); the old one passed on, a number
    # ported, 这俩月 and 携号转网 tell a change; a shift ended at a name is where the user works ("just got off the
    # overnight at Mercy General")
    ("m057_statement_marks", m008_statement_marks),
    # stop 66: a greeting before a question does not keep it from only asking ("hiya, how long do you boil an egg");
    # "my buddies" are someone else; "100 days smoke free" ends smoking, a juul pod a day is smoking; "入了iPhone 15"
    # tells a change
    ("m058_statement_marks", m008_statement_marks),
    # stop 67: words chat puts before a question ("roughly how much does …", "random q, can u …") keep it a question;
    # 几 after 了 counts ("去那边打了几次"), it does not ask; "终于搬了！！" is a move
    ("m059_statement_marks", m008_statement_marks),
    # stop 68: asking for ideas or tips by naming them ("puzzle ideas for a 7 year old") only asks; kin with the "my"
    # dropped ("sister wants to …") are someone else; "pulled out of the saturday thing", "my grain shop shut its doors",
    # "officially off pred", "楼下那家店突然关门了", "协会那边我退了" and "周五那个局散了" end something; "the practice handed
    # everyone over to dr …", "ended up ordering …", "上了台杜卡迪", "只好去了…" and "就一直在那下单了" tell a change; an
    # ellipsis ends a clause ("那家店倒闭了…现在改去超级猩猩")
    ("m060_statement_marks", m008_statement_marks),
    # stop 69: a grandparent called by the word of the family's other language ("my babcia", "nonna", "opa") in one form
    # with grandmother and grandfather
    ("m061_one_word_form", m012_one_word_form),
    # stop 69: such a grandparent is someone else; a terrace, maisonette or bedsit is a home ("we ended up in a little
    # terrace in headington"); a car by a model no other thing is called ("my old Corolla"); a child starting the first
    # school ("Priya started kindergarten") and a dog walked by name ("walking Biscuit", "刚遛完豆包回来")
    ("m062_statement_marks", m008_statement_marks),
    # stop 70: a card of a place one trains at ("游泳卡退了"); 剩下几个 counts, it does not ask; a car by its MOT ("the old Golf
    # failed its MOT") or as the first EV; overtime at a place is work there ("今天又在字节加班到十点"); a sport given up
    # ("hung up the boots for good")
    ("m063_statement_marks", m008_statement_marks),
    # how the user sees (glasses, lenses, laser surgery) and heats their home are attributes; a stretch of work told by
    # how it went ("long week as a teaching assistant at …"), "on giffgaff now", "had lasik done", "boiler's GONE" are
    # news with the subject dropped; "did my first saturday shift" tells; what someone else did that took the user along
    # is the user's ("我妈把我拉进她的联通亲情号了"); 开的还是那辆…, 这次在…租了, 找小林剪 are the user's own
    ("m064_statement_marks", m008_statement_marks),
    # mum, mom and mother are one word in search, as are dad and father
    ("m065_one_word_form", m012_one_word_form),
]


COPY_CHUNK = 8 * 1024 * 1024
_LOCK_SIGNS = ("could not set lock", "conflicting lock")
_DAMAGE_SIGNS = (  # what DuckDB says about a file that is not (or no longer) a whole database
    ("not a valid duckdb database file", "not a valid DuckDB database file"),
    ("could not read enough bytes", "the file is truncated"),
    ("corrupt database file", "a block of the file fails its checksum"),
    ("checksum", "a block of the file fails its checksum"),
)
EXPORT_TABLES = ("memories", "events", "sources", "entities", "memory_entities", "edges", "audit")
REQUIRED_TABLES = ("migrations", "meta", "memories", "events", "sources", "entities", "embeddings")


def damage_reason(exc: Exception) -> str | None:
    """A short reason when a DuckDB error means the database file is damaged; None for any other error."""
    if not isinstance(exc, (duckdb.IOException, duckdb.SerializationException, duckdb.InternalException)):
        return None
    text = str(exc).lower()
    if any(sign in text for sign in _LOCK_SIGNS):
        return None
    for sign, reason in _DAMAGE_SIGNS:
        if sign in text:
            return reason
    return "its contents cannot be read" if isinstance(exc, duckdb.SerializationException) else None


def _quiet(conn: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """No progress bar: DuckDB draws one on stdout for a query over about 2 s, inside `--json` output."""
    conn.execute("SET enable_progress_bar = false")
    return conn


def open_connection(path: Path | None, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open the DuckDB file; a lock held by another process becomes StoreLockedError, a damaged file
    StoreDamagedError."""
    if path is None:
        return _quiet(duckdb.connect(":memory:"))
    try:
        return _quiet(duckdb.connect(str(path), read_only=read_only))
    except duckdb.Error as exc:
        if any(sign in str(exc).lower() for sign in _LOCK_SIGNS):
            raise StoreLockedError(
                f"the memory store {path} is in use by another Engram process (the app or "
                f"`python -m memory watch`); stop it or use a different --home. ({exc})"
            ) from None
        reason = damage_reason(exc)
        if reason:
            raise StoreDamagedError(path, reason) from None
        raise


def _hold_open(path: Path | None) -> int | None:
    """A descriptor of the database file, kept open while DuckDB has it: DuckDB's lock is a POSIX record lock,
    which the process loses when it closes *any* descriptor of the file, so the file is only ever read through
    this one (a backup), never opened and closed again while the store is open."""
    return None if path is None else os.open(path, os.O_RDONLY)


def _copy_from(held: int, target: Path) -> None:
    """Copy the whole file behind the descriptor `held` to a new private file `target`."""
    offset = 0
    with open_private(target, overwrite=True) as out:
        while chunk := os.pread(held, COPY_CHUNK, offset):
            out.buffer.write(chunk)
            offset += len(chunk)


def folder_problem(folder: Path) -> str | None:
    """Why nothing can be written in `folder` (made 0700 when missing), or None."""
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise StoreReadOnlyError(f"cannot create the data folder {folder}: {exc.strerror}; make its parent "
                                 f"writable or choose another --home") from None
    try:
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return f"the data folder {folder} is read-only"
    return None


def write_problem(path: Path) -> str | None:
    """Why the database at `path` cannot be written (a read-only folder or file), or None."""
    problem = folder_problem(path.parent)
    if problem:
        return problem
    if not path.exists() or os.access(path, os.W_OK):  # not opened: closing it would drop a lock (_hold_open)
        return None
    return f"the database file {path} is read-only"


def database_problem(path: Path) -> str | None:
    """Why the file at `path` is not a usable Engram store, or None when it opens, has the tables and every
    table reads to the end (so every block passes its checksum). Read-only; a lock becomes StoreLockedError."""
    try:
        conn = open_connection(path, read_only=True)
    except StoreDamagedError as exc:
        return exc.reason
    except duckdb.Error as exc:
        return str(exc)
    try:
        tables = {row[0] for row in conn.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        missing = [t for t in REQUIRED_TABLES if t not in tables]
        if missing:
            return f"not an Engram store (no {', '.join(missing)} table)"
        for table in sorted(tables):
            for _ in conn.execute(f'SELECT * FROM "{table}"').fetch_record_batch(65536):
                pass
        return None
    except duckdb.Error as exc:
        return damage_reason(exc) or str(exc)
    finally:
        conn.close()


class Store:
    """All reads and writes of the DuckDB file. Safe to share between threads (one lock)."""

    def __init__(self, path: str | Path | None = None, *, read_only: bool = False) -> None:
        self.path = Path(path) if path is not None else None
        self.read_only_reason = write_problem(self.path) if self.path is not None and not read_only else None
        self.read_only = read_only or self.read_only_reason is not None
        if self.read_only_reason and not self.path.exists():
            raise StoreReadOnlyError(f"{self.read_only_reason} and holds no memory store yet; make it "
                                     f"writable (chmod u+w) or choose another --home")
        self._lock = threading.RLock()
        self._in_tx = False
        self._entity_cache: dict[tuple[str, str | None], int] | None = None
        self._entity_staged: dict[tuple[str, str | None], int] = {}  # created in the open transaction
        self._entity_names: EntityNames | None = None  # built on first use, dropped when entities change
        #: calls that may have changed memory rows or vectors (the index follows them; see WritePath)
        self.memory_writes = 0
        self._shown: ShownRows | None = None  # built at the second read of memories by id, see _shown_rows
        self._reads_by_id = 0
        self.conn = open_connection(self.path, read_only=self.read_only)
        self._held = _hold_open(self.path)
        try:
            with self.explained_errors():
                if not self.read_only:
                    self._migrate()
        except BaseException:
            self.close()  # nothing may hold the file while a restore replaces it in this process
            raise

    # ----------------------------------------------------------------- plumbing
    @contextmanager
    def explained_errors(self) -> Iterator[None]:
        """DuckDB's words for a damaged file become StoreDamagedError, for a write to a read-only store
        StoreReadOnlyError; both name the file."""
        try:
            yield
        except duckdb.Error as exc:
            if self.read_only and "read-only mode" in str(exc):
                self.check_writable()
            reason = damage_reason(exc)
            if reason is None or self.path is None:
                raise
            raise StoreDamagedError(self.path, reason) from None

    def _migrate(self) -> None:
        """Apply the pending migrations in one transaction: a store is upgraded whole or not at all (and a new
        file is written once). Values go in as literals, so creating a store never loads pandas (see run_sql)."""
        conn = self.conn
        conn.execute("CREATE TABLE IF NOT EXISTS migrations (name VARCHAR, applied_at TIMESTAMP)")
        done = {row[0] for row in conn.execute("SELECT name FROM migrations").fetchall()}
        pending = [(name, fn) for name, fn in MIGRATIONS if name not in done]
        if not pending:
            return
        if done and self.path is not None:
            self._backup(before=pending[0][0])
        # A function listed under several names (the statement marks, once for each time the rules learnt) does the
        # same work each time it runs, so a pass runs it once, at its last place, not once for each of its names.
        last_place = {migrate: place for place, (_, migrate) in enumerate(pending)}
        with self.transaction():
            for place, (_, migrate) in enumerate(pending):
                if last_place[migrate] == place:
                    migrate(conn)
            applied_at = db_time(utc_now())
            names = [[name, applied_at] for name, _ in pending]
            for start in range(0, len(names), LITERAL_ROWS):  # as literals: no Arrow import when a store opens
                bulk_insert(conn, "migrations", ("name", "applied_at"), names[start:start + LITERAL_ROWS])

    def _backup(self, *, before: str) -> None:
        self.backup_to(self.path.with_name(f"{self.path.name}.before-{before}.bak"))

    def backup_to(self, target: Path) -> None:
        """A whole copy of the database file at `target` (0600): CHECKPOINT, then copy, under the lock, so no
        write of this process falls between them (DuckDB lets no other process write)."""
        with self._lock:
            if self._in_tx:
                raise RuntimeError("a backup cannot be taken inside a transaction")
            if not self.read_only:
                self.conn.execute("CHECKPOINT")
            partial = target.with_name(target.name + ".partial")
            _copy_from(self._held, partial)
            os.replace(partial, target)

    def check_writable(self) -> None:
        """Raise StoreReadOnlyError, naming the folder or file, when this store cannot be changed."""
        if self.read_only:
            why = self.read_only_reason or f"the memory store {self.path} was opened read-only"
            raise StoreReadOnlyError(f"cannot change the memory: {why}. Make it writable (chmod u+w) or use "
                                     f"another --home; recall, health and export still work.") from None

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the store's lock: no other thread reads or writes until the block ends."""
        with self._lock:
            yield

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """One transaction; nested use joins the outer one. Rolls back on any error."""
        with self._lock:
            if self._in_tx:
                yield self.conn
                return
            self.check_writable()
            self.conn.execute("BEGIN TRANSACTION")
            self._in_tx = True
            try:
                yield self.conn
                self.conn.execute("COMMIT")
                if self._entity_cache is not None:
                    self._entity_cache.update(self._entity_staged)
            except BaseException:
                self.conn.execute("ROLLBACK")
                self._entity_names = None
                self._shown = None
                raise
            finally:
                self._in_tx = False
                self._entity_staged.clear()

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        with self._lock, self.explained_errors():
            return run_sql(self.conn, sql, list(params)).fetchall()

    def query_dicts(self, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]:
        with self._lock, self.explained_errors():
            cursor = run_sql(self.conn, sql, list(params))
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, row)) for row in cursor.fetchall()]

    def execute(self, sql: str, params: Iterable[Any] = ()) -> None:
        """Any statement: counted as a possible change to memories (what it changes is not known here)."""
        with self._lock:
            self.memory_writes += 1
            run_sql(self.conn, sql, list(params))

    def next_ids(self, table: str, count: int) -> list[int]:
        if count <= 0:
            return []
        rows = self.query(f"SELECT nextval('seq_{table}') FROM range(?)", [count])
        return [row[0] for row in rows]

    def close(self) -> None:
        with self._lock:
            self.conn.close()
            if self._held is not None:
                os.close(self._held)
                self._held = None

    # --------------------------------------------------------------------- meta
    def get_meta(self, key: str) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key = ?", [key])
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction():
            run_sql(self.conn, "DELETE FROM meta WHERE key = ?", [key])
            run_sql(self.conn, "INSERT INTO meta VALUES (?, ?)", [key, value])

    # ------------------------------------------------------------------ sources
    def insert_sources(self, sources: list["NewSource"]) -> None:
        """Insert source rows (ids already assigned)."""
        bulk_insert(self.conn, "sources", ("id", "kind", "ref", "fingerprint", "mtime", "title", "created_at",
                                           "deleted_at", "meta", "size"),
                    [[n.source.id, n.source.kind, n.source.ref, n.source.fingerprint, db_time(n.source.mtime),
                      n.source.title, db_time(n.source.created_at or utc_now()), db_time(n.source.deleted_at),
                      n.meta, n.size] for n in sources])

    def update_sources(self, updates: dict[int, dict[str, Any]]) -> None:
        with self.transaction() as conn:
            for source_id, fields in updates.items():
                assignments = ", ".join(f"{name} = ?" for name in fields)
                values = [db_time(v) if isinstance(v, datetime) else v for v in fields.values()]
                run_sql(conn, f"UPDATE sources SET {assignments} WHERE id = ?", values + [source_id])

    def insert_events(self, events: list[Event]) -> None:
        bulk_insert(self.conn, "events", EVENT_COLUMNS,
                    [[e.id, e.kind, db_time(e.at), db_time(e.recorded_at), e.role, e.session_id, e.message_id,
                      e.text, e.source_id] for e in events])

    def chat_source_id(self, session_id: str) -> int | None:
        """The id of a chat session's Source row, if there is one."""
        rows = self.query("SELECT id FROM sources WHERE kind = 'chat' AND ref = ? ORDER BY id LIMIT 1", [session_id])
        return rows[0][0] if rows else None

    def source(self, source_id: int) -> Source:
        rows = self.query_dicts("SELECT * FROM sources WHERE id = ?", [source_id])
        if not rows:
            raise NotFoundError(f"no source with id {source_id}")
        return source_from_row(rows[0])

    def sources_by_id(self, ids: Iterable[int]) -> dict[int, Source]:
        ids = sorted({i for i in ids if i is not None})
        if not ids:
            return {}
        rows = self.query_dicts("SELECT * FROM sources WHERE id IN (SELECT unnest(?))", [ids])
        return {row["id"]: source_from_row(row) for row in rows}

    # ------------------------------------------------------------------- events
    def events_by_id(self, ids: Iterable[int]) -> dict[int, Event]:
        ids = sorted({i for i in ids if i is not None})
        if not ids:
            return {}
        rows = self.query_dicts("SELECT * FROM events WHERE id IN (SELECT unnest(?))", [ids])
        return {row["id"]: event_from_row(row) for row in rows}

    # ----------------------------------------------------------------- entities
    def entity_ids(self, names: Iterable[tuple[str, str, str | None]], *, at: datetime | list[datetime]) -> list[int]:
        """Ids of (name, label, qualifier) entities, created when missing (first seen `at`, or at the time
        given for its first occurrence when `at` is a list beside `names`). Call inside a transaction."""
        with self._lock:
            self._load_entity_cache()
            names = list(names)
            times = at if isinstance(at, list) else [at] * len(names)
            known = lambda key: self._entity_cache.get(key) or self._entity_staged.get(key)  # noqa: E731
            first_seen: dict[tuple[str, str, str | None], datetime] = {}
            for key, when in zip(names, times):
                if known((key[0], key[2])) is None:
                    first_seen.setdefault(key, when)
            missing = list(first_seen)
            new = []
            for (name, label, qualifier), entity_id in zip(missing, self.next_ids("entities", len(missing))):
                if known((name, qualifier)) is None:
                    self._entity_staged[(name, qualifier)] = entity_id
                    new.append([entity_id, name, label, qualifier, [], db_time(first_seen[(name, label, qualifier)])])
            ids = [known((n, q)) for n, _, q in names]
            bulk_insert(self.conn, "entities", ("id", "name", "label", "qualifier", "aliases", "first_seen"), new)
            if new:
                self._entity_names = None
            if not self._in_tx:
                self._entity_cache.update(self._entity_staged)
                self._entity_staged.clear()
            return ids

    def _load_entity_cache(self) -> None:
        """(name, qualifier) -> entity id; a note's alias names its note's entity, before any entity of that name."""
        if self._entity_cache is None:
            rows = self.conn.execute("SELECT id, name, qualifier, aliases FROM entities ORDER BY id").fetchall()
            self._entity_cache = {(n, q): i for i, n, q, _ in rows}
            self._entity_cache.update({(a, None): i for i, _, _, aliases in rows for a in aliases or ()})

    def set_entities_aliases(self, aliases_of: dict[str, list[str]], label: str, *, at: datetime) -> None:
        """`set_entity_aliases` for many entities in two statements. Inside a transaction."""
        if len(aliases_of) <= 1:
            for name, aliases in aliases_of.items():
                self.set_entity_aliases(name, label, aliases, at=at)
            return
        import pyarrow as pa

        with self._lock:
            names = list(aliases_of)
            ids = self.entity_ids([(name, label, None) for name in names], at=at)
            view = "_entity_aliases"
            self.conn.register(view, pa.table({"id": pa.array(ids, pa.int64()),
                                               "aliases": pa.array([aliases_of[n] for n in names],
                                                                   pa.list_(pa.string()))}))
            try:
                self.conn.execute(f"UPDATE entities SET aliases = u.aliases FROM {view} u WHERE entities.id = u.id")
            finally:
                self.conn.unregister(view)
            for name, entity_id in zip(names, ids):
                for alias in aliases_of[name]:
                    self._entity_staged[(alias, None)] = entity_id
            self._entity_names = None

    def set_entity_aliases(self, name: str, label: str, aliases: list[str], *, at: datetime) -> int:
        """Give the entity `name` its aliases (mentions of an alias then resolve to it). Inside a transaction."""
        with self._lock:
            entity_id = self.entity_ids([(name, label, None)], at=at)[0]
            run_sql(self.conn, "UPDATE entities SET aliases = ? WHERE id = ?", [aliases, entity_id])
            for alias in aliases:
                self._entity_staged[(alias, None)] = entity_id
            self._entity_names = None
            return entity_id

    def insert_memory_entities(self, pairs: list[tuple[int, int]]) -> None:
        if not pairs:
            return
        self.memory_writes += 1
        with self.transaction() as conn:
            bulk_insert(conn, "memory_entities", ("memory_id", "entity_id"), [list(p) for p in pairs])
            self._shown_changed({memory_id for memory_id, _ in pairs})

    # ----------------------------------------------------------------- memories
    def insert_memories(self, units: list[MemoryUnit], tokens: list[str], vectors: np.ndarray,
                        embed_texts: list[str | None] | None = None, pending: list[bool] | None = None) -> None:
        """Insert units (ids already assigned) with their search tokens, vectors and embedded text; a unit
        marked `pending` is stored without a vector (vector_pending), for the vector filler."""
        self.memory_writes += 1
        embed_texts = embed_texts or [None] * len(units)
        pending = pending or [False] * len(units)
        rows = [
            [u.id, u.content, u.type, db_time(u.valid_from), db_time(u.valid_until),
             db_time(u.recorded_at), db_time(u.superseded_at), u.superseded_by, u.relevance,
             u.subject, u.attribute, u.value, u.session_id, u.source_id, u.event_id,
             u.message_id, u.line_start, u.line_end, u.archived, u.use_count,
             db_time(u.last_used_at), tok, text if text != u.content else None, True if later else None]
            for u, tok, text, later in zip(units, tokens, embed_texts, pending)
        ]
        with self.transaction() as conn:
            bulk_insert(conn, "memories", MEMORY_COLUMNS + ("tokens", "embed_text", "vector_pending"), rows)
            bulk_insert(conn, "embeddings", ("memory_id", "vector"),
                        [[u.id, np.asarray(v, dtype=np.float32).tobytes()]
                         for u, v, later in zip(units, vectors, pending) if not later])
            self._shown_changed(u.id for u in units)

    def pending_vector_texts(self, limit: int) -> list[tuple[int, str]]:
        """(id, text to embed) of up to `limit` memories still waiting for their vector, oldest first."""
        return self.query("SELECT id, coalesce(embed_text, content) FROM memories WHERE vector_pending "
                          "ORDER BY id LIMIT ?", [limit])

    def pending_vector_ids(self) -> set[int]:
        return {r[0] for r in self.query("SELECT id FROM memories WHERE vector_pending")}

    def pending_vector_count(self) -> int:
        """Memories stored without their vector yet (keyword-searchable; the vector filler embeds them)."""
        return self.query("SELECT count(*) FROM memories WHERE vector_pending")[0][0]

    def fill_vectors(self, vectors: dict[int, np.ndarray]) -> list[int]:
        """Store the vectors of memories still pending (one forgotten or filled meanwhile is passed over);
        returns the ids filled."""
        if not vectors:
            return []
        self.memory_writes += 1
        with self.transaction() as conn:
            ids = [r[0] for r in run_sql(
                conn, "SELECT id FROM memories WHERE vector_pending AND id IN (SELECT unnest(?)) ORDER BY id",
                [sorted(vectors)]).fetchall()]
            bulk_insert(conn, "embeddings", ("memory_id", "vector"),
                        [[i, np.asarray(vectors[i], dtype=np.float32).tobytes()] for i in ids])
            run_sql(conn, "UPDATE memories SET vector_pending = NULL WHERE id IN (SELECT unnest(?))", [ids])
            self._shown_changed(())  # (a vector is not shown)
        return ids

    def update_memories(self, updates: dict[int, dict[str, Any]], tokens: dict[int, str] | None = None,
                        vectors: dict[int, np.ndarray] | None = None) -> None:
        """Set fields of stored memories; a content edit also replaces its search tokens and vector."""
        self.memory_writes += 1
        tokens, vectors = tokens or {}, vectors or {}
        with self.transaction() as conn:
            groups: dict[tuple[str, ...], list[int]] = {}
            for memory_id, fields in updates.items():
                groups.setdefault(tuple(sorted(fields)), []).append(memory_id)
            for names, ids in groups.items():
                unknown = set(names) - set(MEMORY_COLUMNS)
                if unknown:
                    raise ValueError(f"unknown memory fields {sorted(unknown)}")
                rows = [[memory_id] + [_db_value(n, updates[memory_id][n]) for n in names] for memory_id in ids]
                if len(rows) == 1:
                    assignments = ", ".join(f"{n} = ?" for n in names)
                    run_sql(conn, f"UPDATE memories SET {assignments} WHERE id = ?", rows[0][1:] + [rows[0][0]])
                    continue
                view = "_memory_updates"
                import pyarrow as pa

                conn.register(view, pa.table({"id": [r[0] for r in rows],
                                              **{n: _arrow_column([r[i + 1] for r in rows])
                                                 for i, n in enumerate(names)}}))
                try:
                    assignments = ", ".join(f"{n} = u.{n}" for n in names)
                    conn.execute(f"UPDATE memories SET {assignments} FROM {view} u WHERE memories.id = u.id")
                finally:
                    conn.unregister(view)
            for memory_id, text in tokens.items():
                run_sql(conn, "UPDATE memories SET tokens = ?, embed_text = NULL WHERE id = ?", [text, memory_id])
            for memory_id, vector in vectors.items():  # a pending memory gains its vector with the edit
                run_sql(conn, "DELETE FROM embeddings WHERE memory_id = ?", [memory_id])
                run_sql(conn, "INSERT INTO embeddings VALUES (?, ?)",
                        [memory_id, np.asarray(vector, dtype=np.float32).tobytes()])
            if vectors:
                run_sql(conn, "UPDATE memories SET vector_pending = NULL WHERE vector_pending "
                              "AND id IN (SELECT unnest(?))", [sorted(vectors)])
            self._shown_changed(updates)

    def delete_memories(self, units: list[MemoryUnit]) -> list[int]:
        """Forget: the rows, their vectors, entity links and edges go, a chat turn's event text too, and
        entities no other memory or edge refers to. Returns the ids of those entities."""
        if not units:
            return []
        self.memory_writes += 1
        with self.transaction() as conn:
            orphans = _delete_memories(conn, units)
            self._shown_changed(u.id for u in units)
            if orphans:
                self._entity_cache = None
                self._entity_names = None
            return orphans

    def compact(self) -> None:
        """Rewrite the database file from its live rows, so nothing deleted can be read from it (forget)."""
        if self.path is None or self.read_only:
            return
        with self._lock:
            _rewrite_compacted(self.conn, self.path)
            self.conn = open_connection(self.path)
            os.close(self._held)  # the replaced file's
            self._held = _hold_open(self.path)
            self._entity_cache = None
            self._entity_names = None  # (the shown rows stay: the rows are the same)

    def close_edges_from(self, src: str, at: datetime, kind: str | None = None) -> None:
        """End the open edges leaving a node (of one kind, or all)."""
        where = " AND kind = ?" if kind else ""
        self.memory_writes += 1
        with self.transaction() as conn:
            run_sql(conn, f"UPDATE edges SET valid_until = ? WHERE src = ? AND valid_until IS NULL{where}",
                    [db_time(at), src] + ([kind] if kind else []))
            self._shown_changed(())

    def close_edges_from_many(self, sources: list[tuple[str, datetime]], kind: str) -> None:
        """End the open edges of one kind leaving each node, each at its own time (one statement)."""
        if len(sources) <= 1:
            for src, at in sources:
                self.close_edges_from(src, at, kind)
            return
        self.memory_writes += 1
        with self.transaction() as conn:
            conn.execute("CREATE TEMP TABLE IF NOT EXISTS closing_edges (src VARCHAR, closed_at TIMESTAMP)")
            conn.execute("DELETE FROM closing_edges")
            bulk_insert(conn, "closing_edges", ("src", "closed_at"), [[src, db_time(at)] for src, at in sources])
            run_sql(conn, "UPDATE edges SET valid_until = c.closed_at FROM closing_edges c WHERE edges.src = c.src "
                          "AND edges.valid_until IS NULL AND edges.kind = ?", [kind])
            self._shown_changed(())

    def replace_note_links(self, source_id: int, links: list[tuple[str, str, int]]) -> None:
        self.replace_notes_links({source_id: links})

    def replace_notes_links(self, links_of: dict[int, list[tuple[str, str, int]]]) -> None:
        """Each source's wikilink rows replaced by the given ones."""
        if not links_of:
            return
        with self.transaction() as conn:
            run_sql(conn, "DELETE FROM note_links WHERE source_id IN (SELECT unnest(?))", [sorted(links_of)])
            bulk_insert(conn, "note_links", ("source_id", "target", "kind", "line"),
                        [[source_id, target, kind, line] for source_id, links in links_of.items()
                         for target, kind, line in links])

    def resolve_note_links(self, resolutions: list[tuple[int, int | None]]) -> None:
        """Set the resolved source of link rows, given as (rowid, source id or None)."""
        if not resolutions:
            return
        with self.transaction() as conn:
            conn.execute("CREATE TEMP TABLE IF NOT EXISTS link_updates (rid BIGINT, resolved BIGINT)")
            conn.execute("DELETE FROM link_updates")
            bulk_insert(conn, "link_updates", ("rid", "resolved"), [list(r) for r in resolutions])
            conn.execute("UPDATE note_links SET resolved_id = u.resolved FROM link_updates u "
                         "WHERE note_links.rowid = u.rid")

    def audit_many(self, lines: list[tuple[str, str, str]]) -> None:
        now = db_time(utc_now())
        bulk_insert(self.conn, "audit", ("logged_at", "action", "target", "detail"),
                    [[now, action, target, detail] for action, target, detail in lines])

    def memory(self, memory_id: int) -> MemoryUnit:
        units = self.memories_by_id([memory_id])
        if memory_id not in units:
            raise NotFoundError(f"no memory with id {memory_id}")
        return units[memory_id]

    def memories_by_id(self, ids: Iterable[int]) -> dict[int, MemoryUnit]:
        """The memories with these ids (those that exist), in id order."""
        ids = sorted({int(i) for i in ids})
        if not ids:
            return {}
        with self._lock:
            shown = self._shown_rows()
            found, missing = shown.get(ids) if shown is not None else ({}, ids)
            if missing:
                read = self._read_shown(missing)
                if shown is not None:
                    shown.keep(read)
                found.update(read)
        names = self._names() if any(entities for _, entities in found.values()) else None
        units: dict[int, MemoryUnit] = {}
        for memory_id in ids:
            if memory_id in found:
                row, entities = found[memory_id]
                units[memory_id] = unit = memory_from_row(row)
                unit.entities = [name for e in entities if (name := names.shown(e)) is not None]
        return units

    def _shown_rows(self) -> ShownRows | None:
        """The table of shown fields, built at the store's second read (a command that reads once does not pay
        for it), and again at the next read after it was dropped: when a write went by that did not name its
        memories."""
        if self._shown is not None and self._shown.writes != self.memory_writes:
            self._shown = None
        self._reads_by_id += 1
        if self._shown is None and self._reads_by_id >= 2:
            with self.explained_errors():
                rows = self.conn.execute(
                    f"SELECT {', '.join(MEMORY_COLUMNS)} FROM memories ORDER BY id").to_arrow_table()
                links = self.conn.execute(
                    "SELECT memory_id, entity_id FROM memory_entities ORDER BY memory_id, entity_id").to_arrow_table()
            self._shown = ShownRows(rows, links, self.memory_writes)
        return self._shown

    def _shown_changed(self, memory_ids: Iterable[int]) -> None:
        """Called inside a write's transaction, after its SQL and one count in `memory_writes`."""
        if self._shown is None:
            return
        if self._shown.writes == self.memory_writes - 1:
            self._shown.changed(memory_ids, self.memory_writes)
        else:  # another write went by since
            self._shown = None

    def _read_shown(self, ids: list[int]) -> dict[int, Shown]:
        listed = ", ".join(map(str, ids))  # whole numbers as a literal list: half the time of IN (unnest(?))
        # one statement (a recall's last step): the memories' rows, then a row per entity a memory names, its
        # memory columns empty but the id; the entities' names come from the table kept in memory (a join with
        # the entities table would scan every entity)
        blanks = ", ".join(["NULL"] * (len(MEMORY_COLUMNS) - 1))
        rows = self.query(
            f"""SELECT {', '.join(MEMORY_COLUMNS)}, NULL FROM memories WHERE id IN ({listed})
                UNION ALL
                SELECT memory_id, {blanks}, entity_id FROM memory_entities WHERE memory_id IN ({listed})"""
        )
        width = len(MEMORY_COLUMNS)
        read = {row[0]: (dict(zip(MEMORY_COLUMNS, row)), []) for row in rows if row[width] is None}
        for entity_id, memory_id in sorted((row[width], row[0]) for row in rows if row[width] is not None):
            if memory_id in read:
                read[memory_id][1].append(entity_id)
        return read

    def open_slot_holders(self, subject: str, attribute: str) -> list[MemoryUnit]:
        """Values of a slot whose world interval is still open (not corrected), oldest first."""
        rows = self.query_dicts(
            f"""SELECT {', '.join(MEMORY_COLUMNS)} FROM memories
                WHERE subject = ? AND attribute = ? AND valid_until IS NULL AND superseded_at IS NULL
                ORDER BY valid_from, id""",
            [subject, attribute],
        )
        return [memory_from_row(row) for row in rows]

    def open_values(self, subject: str) -> dict[str, list[str]]:
        """The values of the subject's slots that hold now (open and not corrected), by attribute."""
        held: dict[str, list[str]] = {}
        for attribute, value in self.query(
                """SELECT attribute, value FROM memories WHERE subject = ? AND value IS NOT NULL
                   AND valid_until IS NULL AND superseded_at IS NULL AND NOT coalesce(archived, false)
                   ORDER BY valid_from, id""", [subject]):
            held.setdefault(attribute, []).append(value)
        return held

    def slot_timeline(self, subject: str, attribute: str) -> list[MemoryUnit]:
        """Every value a slot held (corrected records left out), in world-time order."""
        rows = self.query_dicts(
            f"""SELECT {', '.join(MEMORY_COLUMNS)} FROM memories
                WHERE subject = ? AND attribute = ? AND superseded_at IS NULL ORDER BY valid_from, id""",
            [subject, attribute],
        )
        return [memory_from_row(row) for row in rows]

    def slot_history(self, subject: str, attribute: str) -> list[MemoryUnit]:
        rows = self.query_dicts(
            f"""SELECT {', '.join(MEMORY_COLUMNS)} FROM memories
                WHERE subject = ? AND attribute = ? ORDER BY valid_from""",
            [subject, attribute],
        )
        return [memory_from_row(row) for row in rows]

    def add_edges(self, edges: list[tuple[str, str, str, datetime | None, datetime | None]]) -> None:
        now = db_time(utc_now())
        bulk_insert(self.conn, "edges", ("src", "dst", "kind", "valid_from", "valid_until", "recorded_at"),
                    [[s, d, k, db_time(f), db_time(u), now] for s, d, k, f, u in edges])

    def log_recall(self, *, returned: list[int], used: list[int], latency_ms: float, confident: bool,
                   session_id: str | None = None) -> None:
        """One chat recall: what was returned and what the answer used (for the hit rate)."""
        with self.transaction() as conn:
            run_sql(conn, "INSERT INTO recall_log VALUES (?, ?, ?, ?, ?, ?)",
                    [db_time(utc_now()), session_id, returned, used, latency_ms, confident])

    # ------------------------------------------------- named reads (write side, recall)
    def recent_turns(self, session_id: str, limit: int) -> list[tuple[str, str, str]]:
        """The session's last chat turns, oldest first: (role, stored content, the message's own text)."""
        rows = self.query(
            """SELECT e.role, m.content, e.text FROM memories m JOIN events e ON e.id = m.event_id
               WHERE m.type = 'chat_turn' AND m.session_id = ?
               ORDER BY m.valid_from DESC, m.id DESC LIMIT ?""",
            [session_id, limit],
        )
        return [tuple(r) for r in reversed(rows)]

    def open_session_state_about(self, session_id: str, entity_keys: set[str],
                                 at: datetime) -> list[tuple[int, datetime]]:
        """(id, valid_from) of the session's open session_state memories mentioning one of the entities."""
        rows = self.query(
            """SELECT DISTINCT m.id, m.valid_from FROM memories m
               JOIN memory_entities me ON me.memory_id = m.id JOIN entities e ON e.id = me.entity_id
               WHERE m.type = 'session_state' AND m.session_id = ? AND m.superseded_at IS NULL
                 AND (m.valid_until IS NULL OR m.valid_until > ?)
                 AND (CASE WHEN e.qualifier IS NULL THEN e.name ELSE e.name || '@' || e.qualifier END)
                     IN (SELECT unnest(?))""",
            [session_id, db_time(at), sorted(entity_keys)],
        )
        return [(memory_id, py_time(valid_from)) for memory_id, valid_from in rows]

    def user_profile_facts(self, as_of: datetime, limit: int) -> list[str]:
        """The user's profile facts true at `as_of`, most relevant first."""
        valid, params = true_at_sql(as_of)
        rows = self.query(
            f"""SELECT content FROM memories WHERE type = 'user_profile' AND subject = 'user' AND NOT archived
                  AND {valid} ORDER BY relevance DESC, valid_from DESC LIMIT ?""",
            params + [limit],
        )
        return [r[0] for r in rows]

    def recent_user_turns(self, limit: int) -> list[tuple[str, datetime, str]]:
        """(text, time, session) of the last user chat turns, oldest first."""
        rows = self.query(
            """SELECT text, occurred_at, session_id FROM events WHERE kind = 'chat_turn' AND role = 'user'
               ORDER BY occurred_at DESC, id DESC LIMIT ?""",
            [limit],
        )
        return [(text, py_time(at), session) for text, at, session in reversed(rows)]

    def session_turns(self, session_id: str) -> list[tuple[str, str, datetime, bool]]:
        """(role, text, time, offline reply?) of a session's user and assistant turns, in order."""
        rows = self.query(
            """SELECT role, text, occurred_at, kind = 'offline_reply' FROM events
               WHERE kind IN ('chat_turn', 'offline_reply') AND session_id = ?
                 AND role IN ('user', 'assistant') ORDER BY occurred_at, id""",
            [session_id],
        )
        return [(role, text, py_time(at), offline) for role, text, at, offline in rows]

    def session_summary(self, session_id: str) -> tuple[str | None, int] | None:
        """(summary, number of turns it covers) of a session, if one was saved."""
        rows = self.query("SELECT summary, summary_upto FROM sessions WHERE id = ?", [session_id])
        return (rows[0][0], rows[0][1]) if rows else None

    def save_session_summary(self, session_id: str, *, started: datetime, summary: str, upto: int) -> None:
        with self.transaction() as conn:
            run_sql(conn, "DELETE FROM sessions WHERE id = ?", [session_id])
            run_sql(conn, "INSERT INTO sessions VALUES (?, ?, ?, ?, ?, NULL)",
                    [session_id, session_id, db_time(started), summary, upto])

    def last_used_memories(self, session_id: str) -> list[int]:
        """The memories the session's last answer used (from the recall log)."""
        rows = self.query("SELECT used FROM recall_log WHERE session_id = ? ORDER BY logged_at DESC LIMIT 1",
                          [session_id])
        return list(rows[0][0] or []) if rows else []

    def open_session_state(self, session_id: str, now: datetime) -> list[int]:
        """Ids of the session's session_state memories still open at `now`."""
        rows = self.query(
            """SELECT id FROM memories WHERE type = 'session_state' AND session_id = ?
                 AND superseded_at IS NULL AND (valid_until IS NULL OR valid_until > ?) ORDER BY id""",
            [session_id, db_time(now)],
        )
        return [r[0] for r in rows]

    # vault sources
    def note_sources(self) -> list[tuple[int, str, str | None, datetime | None, int | None, datetime | None]]:
        """(id, ref, fingerprint, mtime, size, deleted_at) of every note source, oldest first."""
        rows = self.query("SELECT id, ref, fingerprint, mtime, size, deleted_at FROM sources "
                          "WHERE kind = 'note' ORDER BY id")
        return [(i, ref, fp, py_time(mtime), size, py_time(deleted)) for i, ref, fp, mtime, size, deleted in rows]

    def attachment_sources(self) -> dict[str, tuple[int, datetime | None]]:
        """Attachment sources by path: (id, deleted_at)."""
        rows = self.query("SELECT id, ref, deleted_at FROM sources WHERE kind = 'attachment' ORDER BY id")
        return {ref: (i, py_time(deleted)) for i, ref, deleted in rows}

    def linkable_sources(self) -> list[tuple[int, str, str, str | None]]:
        """(id, kind, ref, meta) of the notes and attachments a wikilink may point to."""
        return self.query("SELECT id, kind, ref, meta FROM sources WHERE kind IN ('note', 'attachment') "
                          "AND deleted_at IS NULL ORDER BY id")

    def note_link_rows(self, *, unresolved_only: bool) -> list[tuple[int, str, str, int | None]]:
        """(row, target, linking note's path, resolved source) of the links of live notes."""
        where = "WHERE l.resolved_id IS NULL" if unresolved_only else ""
        return self.query(
            f"""SELECT l.rowid, l.target, s.ref, l.resolved_id FROM note_links l
                JOIN sources s ON s.id = l.source_id AND s.deleted_at IS NULL {where}"""
        )

    def current_note_memories(self, source_id: int) -> list[tuple[str, int, str]]:
        """(content, id, 'chunk' or 'fact') of what a note's last version holds, newest first: its open
        chunks, and its dated facts and owner facts (subject set) whatever their world interval."""
        return self.query(
            """SELECT content, id, CASE WHEN subject IS NULL THEN 'chunk' ELSE 'fact' END FROM memories
               WHERE source_id = ? AND superseded_at IS NULL AND (valid_until IS NULL OR subject IS NOT NULL)
               ORDER BY id DESC""",
            [source_id],
        )

    def open_memory_ids_of_source(self, source_id: int) -> list[int]:
        rows = self.query("SELECT id FROM memories WHERE source_id = ? AND valid_until IS NULL ORDER BY id",
                          [source_id])
        return [r[0] for r in rows]

    def entity_names(self, labels: tuple[str, ...]) -> list[str]:
        """Names and aliases of the entities with these labels."""
        rows = self.query("""SELECT name FROM entities WHERE label IN (SELECT unnest(?))
                             UNION SELECT unnest(aliases) FROM entities WHERE label IN (SELECT unnest(?))""",
                          [list(labels), list(labels)])
        return [r[0] for r in rows]

    def superseded_by_any(self, ids: list[int]) -> list[int]:
        """Memories whose successor is one of `ids`."""
        if not ids:
            return []
        return [r[0] for r in self.query("SELECT id FROM memories WHERE superseded_by IN (SELECT unnest(?)) "
                                         "ORDER BY id", [ids])]

    def seen_messages(self, session_ids: set[str]) -> set[tuple]:
        """Keys of the chat messages stored in these sessions: ("id", session, message id) and
        ("text", session, role, naive UTC time, text), as the writer makes them."""
        if not session_ids:
            return set()
        rows = self.query(
            """SELECT session_id, message_id, role, occurred_at, text FROM events
               WHERE kind IN ('chat_turn', 'offline_reply') AND session_id IN (SELECT unnest(?))""",
            [sorted(session_ids)],
        )
        keys: set[tuple] = set()
        for session, message_id, role, at, text in rows:
            if message_id is not None:
                keys.add(("id", session, message_id))
            keys.add(("text", session, role, at, text))
        return keys

    def user_slot_attributes(self) -> list[str]:
        rows = self.query("SELECT DISTINCT attribute FROM memories WHERE subject = 'user' AND attribute IS NOT NULL")
        return sorted(r[0] for r in rows)

    def entities_named_in(self, text: str) -> list[tuple[int, str]]:
        """Known entities whose name or alias occurs in `text` (names of 3+ characters, or 2+ CJK), oldest first."""
        return self._names().named_in(text)

    def _names(self) -> EntityNames:
        with self._lock:
            if self._entity_names is None:
                self._entity_names = EntityNames(self.query("SELECT id, name, label, aliases, qualifier FROM entities"))
            return self._entity_names

    def entities_matching(self, text: str, limit: int = 20) -> list[dict]:
        """Entities whose name contains `text`, most mentioned first."""
        return self.query_dicts(
            """SELECT e.id, e.name, e.label, e.qualifier, count(me.memory_id) AS mentions
               FROM entities e LEFT JOIN memory_entities me ON me.entity_id = e.id
               WHERE e.name ILIKE ? GROUP BY ALL ORDER BY mentions DESC, e.name LIMIT ?""",
            [f"%{text}%", limit],
        )

    def archivable_ids(self, now: datetime, unused_since: datetime) -> list[int]:
        """Memories (not chat turns) no longer valid, superseded, or unused since then with low relevance."""
        rows = self.query(
            """SELECT id FROM memories WHERE NOT archived AND type <> 'chat_turn' AND (
                   (valid_until IS NOT NULL AND valid_until <= ?) OR superseded_at IS NOT NULL
                   OR (coalesce(last_used_at, recorded_at) < ? AND relevance < 1.0)) ORDER BY id""",
            [db_time(now), db_time(unused_since)],
        )
        return [r[0] for r in rows]

    def export_tables(self) -> Iterator[tuple[str, list[dict[str, Any]]]]:
        """Every table's rows, for export."""
        for table in EXPORT_TABLES:
            order = " ORDER BY id" if table in ("memories", "events", "sources", "entities") else ""
            yield table, self.query_dicts(f"SELECT * FROM {table}{order}")

    def memory_texts(self) -> list[tuple[int, str]]:
        """(id, the text each memory was embedded from), for re-embedding."""
        return [(i, t) for i, t in self.query("SELECT id, coalesce(embed_text, content) FROM memories ORDER BY id")]

    def replace_all_vectors(self, ids: list[int], matrix: np.ndarray, embedder_key: str) -> None:
        self.memory_writes += 1
        with self.transaction() as conn:
            conn.execute("DELETE FROM embeddings")
            bulk_insert(conn, "embeddings", ("memory_id", "vector"),
                        [[memory_id, vec.tobytes()] for memory_id, vec in zip(ids, matrix)])
            conn.execute("UPDATE memories SET vector_pending = NULL WHERE vector_pending")
            conn.execute("DELETE FROM meta WHERE key = 'embedder'")
            run_sql(conn, "INSERT INTO meta VALUES ('embedder', ?)", [embedder_key])
            self._shown_changed(())

    def graph_rows(self) -> "GraphRows":
        """Everything the graph view is built from."""
        return GraphRows(
            entities=self.query("SELECT id, name, label, qualifier FROM entities ORDER BY id"),
            sources=[(i, kind, ref, title, py_time(deleted)) for i, kind, ref, title, deleted in self.query(
                "SELECT id, kind, ref, title, deleted_at FROM sources ORDER BY id")],
            memories=[(i, type_, py_time(vf), py_time(vu), py_time(rec), py_time(sup), src, ev, arch, label)
                      for i, type_, vf, vu, rec, sup, src, ev, arch, label in self.query(
                          """SELECT id, type, valid_from, valid_until, recorded_at, superseded_at, source_id,
                                    event_id, archived, substr(content, 1, 120) FROM memories ORDER BY id""")],
            mentions=self.query("SELECT memory_id, entity_id FROM memory_entities ORDER BY memory_id, entity_id"),
            edges=[(src, dst, kind, py_time(vf), py_time(vu)) for src, dst, kind, vf, vu in self.query(
                "SELECT src, dst, kind, valid_from, valid_until FROM edges ORDER BY recorded_at, rowid")],
            links=self.resolved_links(),
        )

    def resolved_links(self) -> list[tuple[int, int]]:
        """(linking source, linked source) of every resolved wikilink."""
        return self.query("SELECT DISTINCT source_id, resolved_id FROM note_links WHERE resolved_id IS NOT NULL "
                          "ORDER BY 1, 2")

    def integrity_problems(self) -> list[tuple[str, str]]:
        """Dangling references and impossible values in the store itself, as (kind, description)."""
        checks = {
            "store duplicate id": """SELECT 'memories ' || id FROM memories GROUP BY id HAVING count(*) > 1
                UNION ALL SELECT 'sources ' || id FROM sources GROUP BY id HAVING count(*) > 1
                UNION ALL SELECT 'events ' || id FROM events GROUP BY id HAVING count(*) > 1
                UNION ALL SELECT 'entities ' || id FROM entities GROUP BY id HAVING count(*) > 1""",
            "store missing vector": """SELECT 'memory ' || m.id FROM memories m
                WHERE NOT coalesce(m.vector_pending, false)
                  AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.memory_id = m.id)""",
            "store pending vector present": """SELECT 'memory ' || m.id FROM memories m
                WHERE m.vector_pending AND EXISTS (SELECT 1 FROM embeddings e WHERE e.memory_id = m.id)""",
            "store orphan vector": """SELECT 'memory ' || e.memory_id FROM embeddings e
                WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = e.memory_id)""",
            "store orphan mention": """SELECT 'memory ' || me.memory_id || ' entity ' || me.entity_id
                FROM memory_entities me
                WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = me.memory_id)
                   OR NOT EXISTS (SELECT 1 FROM entities e WHERE e.id = me.entity_id)""",
            "store missing source": """SELECT 'memory ' || m.id || ' source ' || m.source_id FROM memories m
                WHERE m.source_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sources s WHERE s.id = m.source_id)""",
            "store missing event": """SELECT 'memory ' || m.id || ' event ' || m.event_id FROM memories m
                WHERE m.event_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM events v WHERE v.id = m.event_id)""",
            "store missing successor": """SELECT 'memory ' || m.id || ' superseded by ' || m.superseded_by
                FROM memories m WHERE m.superseded_by IS NOT NULL
                  AND NOT EXISTS (SELECT 1 FROM memories n WHERE n.id = m.superseded_by)""",
            "store dangling edge": """SELECT src || ' -> ' || dst || ' (' || kind || ')' FROM edges
                WHERE (src LIKE 'm:%' AND NOT EXISTS (SELECT 1 FROM memories m WHERE 'm:' || m.id = src))
                   OR (dst LIKE 'm:%' AND NOT EXISTS (SELECT 1 FROM memories m WHERE 'm:' || m.id = dst))""",
            "store bad interval": """SELECT 'memory ' || id FROM memories
                WHERE valid_until IS NOT NULL AND valid_until < valid_from""",
        }
        return [(kind, row[0]) for kind, sql in checks.items() for row in self.query(sql)]

    # -------------------------------------------------------------- bulk loads
    def index_columns(self) -> "pa.Table":
        """What the in-memory index holds of every memory, as Arrow columns ordered by id: times as epoch
        microseconds (-2**63 when missing), archived as 0/1, a missing source or event as -1."""
        with self._lock, self.explained_errors():
            return self.conn.execute(
                """SELECT id, coalesce(type, '') AS type, archived::UTINYINT AS archived, session_id,
                          coalesce(source_id, -1) AS source_id, coalesce(event_id, -1) AS event_id,
                          relevance::DOUBLE AS relevance, coalesce(tokens, '') AS tokens,
                          coalesce(epoch_us(valid_from), -9223372036854775808) AS valid_from_us,
                          coalesce(epoch_us(valid_until), -9223372036854775808) AS valid_until_us,
                          coalesce(epoch_us(recorded_at), -9223372036854775808) AS recorded_us,
                          coalesce(epoch_us(superseded_at), -9223372036854775808) AS superseded_us
                   FROM memories ORDER BY id"""
            ).to_arrow_table()

    def index_vectors(self) -> "pa.Table":
        """Every stored vector as Arrow columns (memory_id, vector bytes), in storage order (sorting the
        blobs would cost more than reading them)."""
        with self._lock, self.explained_errors():
            return self.conn.execute("SELECT memory_id, vector FROM embeddings").to_arrow_table()

    def index_fingerprint(self) -> str:
        """A hash over every memory column and vector the index holds: equal fingerprints, equal indexes."""
        with self._lock, self.explained_errors():
            memories = self.conn.execute(
                """SELECT count(*), coalesce(sum(hash(id, type, valid_from, valid_until, recorded_at, superseded_at,
                                                      archived, session_id, source_id, event_id, relevance,
                                                      tokens)::HUGEINT), 0)
                   FROM memories""").fetchone()
            vectors = self.conn.execute(
                "SELECT count(*), coalesce(sum(hash(memory_id, vector)::HUGEINT), 0) FROM embeddings").fetchone()
        return f"memories {memories[0]} {memories[1]} vectors {vectors[0]} {vectors[1]}"

    def iter_index_rows(self, batch: int = 20000) -> Iterator[list[tuple]]:
        """All memories with what the in-memory index needs, in batches, ordered by id."""
        with self._lock:
            cursor = self.conn.execute(
                """SELECT m.id, m.type, m.valid_from, m.valid_until, m.recorded_at, m.superseded_at,
                          m.archived, m.session_id, m.source_id, m.tokens, e.vector, m.event_id, m.relevance
                   FROM memories m LEFT JOIN embeddings e ON e.memory_id = m.id ORDER BY m.id"""
            )
            while True:
                rows = cursor.fetchmany(batch)
                if not rows:
                    break
                yield rows

    def count(self, table: str) -> int:
        return self.query(f"SELECT count(*) FROM {table}")[0][0]

    # ---- named reads (pages, timeline, health)
    def _memories_where(self, where: str, params: list, *, order: str = "valid_from DESC",
                        limit: int = 200, offset: int = 0) -> list[MemoryUnit]:
        """Memories matching `where`, in `order`, with their entities."""
        ids = [r[0] for r in self.query(f"SELECT id FROM memories WHERE {where} ORDER BY {order}, id DESC "
                                        "LIMIT ? OFFSET ?", list(params) + [limit, offset])]
        units = self.memories_by_id(ids)
        return [units[i] for i in ids if i in units]

    def memories_true_at(self, as_of: datetime, *, include_turns: bool = False, limit: int = 50,
                         recorded_by: datetime | None = None) -> list[MemoryUnit]:
        """Unarchived memories true at `as_of` (the time rule), latest valid_from first; with `recorded_by`,
        as Engram held them then (system time)."""
        rule, params = true_at_sql(as_of, recorded_by=recorded_by)
        turns = "" if include_turns else " AND type <> 'chat_turn'"
        return self._memories_where(f"{rule} AND NOT archived{turns}", params, limit=limit)

    def memories_begun_between(self, start: datetime, end: datetime, limit: int = 200) -> list[MemoryUnit]:
        """Memories (not chat turns, not corrected) that became true in (start, end] (world time)."""
        return self._memories_where(
            "type <> 'chat_turn' AND superseded_at IS NULL AND valid_from > ? AND valid_from <= ?",
            [db_time(start), db_time(end)], limit=limit)

    def memories_superseded_between(self, start: datetime, end: datetime, limit: int = 200) -> list[MemoryUnit]:
        """Memories replaced by a newer value in (start, end] (world time), or corrected then (system time)."""
        return self._memories_where(
            f"""({REPLACED} AND valid_until > ? AND valid_until <= ?)
                OR (superseded_at > ? AND superseded_at <= ?)""",
            [db_time(start), db_time(end)] * 2, limit=limit)

    def memories_expired_between(self, start: datetime, end: datetime, limit: int = 200) -> list[MemoryUnit]:
        """Memories whose world interval ended in (start, end] with no successor."""
        return self._memories_where(f"{ENDED_ALONE} AND valid_until > ? AND valid_until <= ?",
                                    [db_time(start), db_time(end)], limit=limit)

    def memories_expiring(self, start: datetime, end: datetime, limit: int = 50) -> list[MemoryUnit]:
        """Unarchived memories whose world interval ends in (start, end] with no successor."""
        return self._memories_where(f"{ENDED_ALONE} AND valid_until > ? AND valid_until <= ? AND NOT archived",
                                    [db_time(start), db_time(end)], limit=limit)

    def browse_memories(self, *, now: datetime, text: str | None = None, types: list[str] | None = None,
                        state: str = "all", limit: int = 200, offset: int = 0) -> list[MemoryUnit]:
        """Memories filtered by words in the content, type and state (valid/superseded/expired/archived), newest first."""
        where, params = ["1 = 1"], []
        if text:
            where.append("content ILIKE ?")
            params.append(f"%{text}%")
        if types:
            where.append("type IN (SELECT unnest(?))")
            params.append(list(types))
        if state == "valid":
            rule, extra = true_at_sql(now)
            where.append(f"NOT archived AND {rule}")
            params += extra
        elif state == "superseded":
            where.append(f"(superseded_at IS NOT NULL OR ({REPLACED} AND valid_until <= ?))")
            params.append(db_time(now))
        elif state == "expired":
            where.append(f"{ENDED_ALONE} AND valid_until <= ?")
            params.append(db_time(now))
        elif state == "archived":
            where.append("archived")
        return self._memories_where(" AND ".join(where), params, order="recorded_at DESC", limit=limit,
                                    offset=offset)

    def archived_or_ended_ids(self, now: datetime) -> list[int]:
        """Ids of memories archived or past the end of their world interval (superseded ones included)."""
        rows = self.query("SELECT id FROM memories WHERE archived OR (valid_until IS NOT NULL AND valid_until <= ?) "
                          "ORDER BY id", [db_time(now)])
        return [r[0] for r in rows]

    def memory_span(self) -> tuple[datetime | None, int]:
        """The earliest valid_from of any memory, and how many memories there are."""
        first, count = self.query("SELECT min(valid_from), count(*) FROM memories")[0]
        return py_time(first), count

    def note_time_span(self) -> tuple[datetime | None, datetime | None, datetime | None]:
        """(earliest world time, latest world time, earliest recorded time) of the live notes' memories."""
        row = self.query("""SELECT min(m.valid_from), max(m.valid_from), min(m.recorded_at) FROM memories m
                            JOIN sources s ON s.id = m.source_id WHERE s.kind = 'note' AND s.deleted_at IS NULL""")[0]
        return py_time(row[0]), py_time(row[1]), py_time(row[2])

    def memory_counts(self, now: datetime, soon: datetime) -> dict[str, int]:
        """Memories (chat turns apart) by state at `now`; `expiring` ends in (now, soon]."""
        rule, params = true_at_sql(now)
        t = db_time(now)
        total, valid, archived, superseded, expired, expiring = self.query(
            f"""SELECT count(*), count(*) FILTER (WHERE NOT archived AND {rule}),
                      count(*) FILTER (WHERE archived),
                      count(*) FILTER (WHERE superseded_at IS NOT NULL OR ({REPLACED} AND valid_until <= ?)),
                      count(*) FILTER (WHERE {ENDED_ALONE} AND valid_until <= ?),
                      count(*) FILTER (WHERE {ENDED_ALONE} AND valid_until > ? AND valid_until <= ?)
               FROM memories WHERE type <> 'chat_turn'""",
            params + [t, t, t, db_time(soon)],
        )[0]
        turns = self.query("SELECT count(*) FROM memories WHERE type = 'chat_turn'")[0][0]
        return {"total": total, "valid": valid, "archived": archived, "superseded": superseded,
                "expired": expired, "expiring": expiring, "chat_turns": turns}

    def freshness_counts(self, at: datetime) -> tuple[int, int]:
        """Memories (chat turns apart) recorded by `at`, and those of them true at `at`."""
        rule, params = true_at_sql(at)
        return self.query(
            f"""SELECT count(*) FILTER (WHERE recorded_at <= ?), count(*) FILTER (WHERE {rule})
                FROM memories WHERE type <> 'chat_turn'""",
            [db_time(at)] + params,
        )[0]

    def recall_totals(self) -> tuple[int, int]:
        """Memories returned by all logged recalls, and those the answers used."""
        return self.query("SELECT coalesce(sum(len(returned)), 0), coalesce(sum(len(used)), 0) FROM recall_log")[0]

    def recent_recall_latencies(self, limit: int = 1000) -> list[float]:
        return [r[0] for r in self.query("SELECT latency_ms FROM recall_log ORDER BY logged_at DESC LIMIT ?", [limit])]

    def recent_recall_returns(self, limit: int) -> list[list[int]]:
        """What the last `limit` logged recalls returned, newest first."""
        return [r[0] or [] for r in self.query("SELECT returned FROM recall_log ORDER BY logged_at DESC LIMIT ?",
                                               [limit])]

    def recent_assistant_replies(self, limit: int) -> list[str]:
        """The text of the last `limit` assistant chat turns, newest first."""
        rows = self.query(
            """SELECT text FROM events WHERE kind IN ('chat_turn', 'offline_reply') AND role = 'assistant'
               ORDER BY occurred_at DESC, id DESC LIMIT ?""", [limit])
        return [r[0] or "" for r in rows]

    def recall_log_by_day(self, since: datetime) -> list[tuple]:
        """Per day since `since`: (day, recalls, returned, used, p95 latency)."""
        return self.query(
            """SELECT date_trunc('day', logged_at) AS day, count(*), sum(len(returned)), sum(len(used)),
                      quantile_cont(latency_ms, 0.95)
               FROM recall_log WHERE logged_at >= ? GROUP BY day ORDER BY day""",
            [db_time(since)],
        )

    def chat_sessions(self, limit: int = 30) -> list[dict[str, Any]]:
        """Chat sessions, latest activity first: session_id, started, last, first (the first user message)."""
        return self.query_dicts(
            """SELECT session_id, min(occurred_at) AS started, max(occurred_at) AS last,
                      arg_min(text, occurred_at) FILTER (WHERE role = 'user') AS first
               FROM events WHERE kind = 'chat_turn' AND session_id IS NOT NULL
               GROUP BY session_id ORDER BY last DESC LIMIT ?""",
            [limit],
        )

    def recent_audit(self, limit: int = 20) -> list[dict[str, Any]]:
        return self.query_dicts(
            "SELECT logged_at, action, target, detail FROM audit ORDER BY logged_at DESC LIMIT ?", [limit])

    def live_note_count(self) -> int:
        """Vault notes in the memory now (deleted notes not counted)."""
        return self.query("SELECT count(*) FROM sources WHERE kind = 'note' AND deleted_at IS NULL")[0][0]

    def note_memory_counts(self) -> tuple[int, int]:
        """Memories of live notes (corrections apart), and the dated facts among them (vault_sync.dated_facts)."""
        return self.query(
            """SELECT count(*), count(*) FILTER (WHERE m.attribute LIKE 'dated:%')
               FROM memories m JOIN sources s ON s.id = m.source_id AND s.kind = 'note' AND s.deleted_at IS NULL
               WHERE m.superseded_at IS NULL""")[0]

    def note_outline_rows(self, limit: int) -> list[tuple[str, str | None, int, list[str], str]]:
        """(path, title, links into it, tags, open memories' text) of the `limit` most linked live notes."""
        return self.query(
            """SELECT s.ref, s.title,
                      (SELECT count(*) FROM note_links l JOIN sources f ON f.id = l.source_id AND f.deleted_at IS NULL
                       WHERE l.resolved_id = s.id) AS links_in,
                      coalesce((SELECT list(DISTINCT e.name) FROM edges ed JOIN entities e ON ed.dst = 'e:' || e.id
                                WHERE ed.src = 's:' || s.id AND ed.kind = 'tagged' AND ed.valid_until IS NULL), []),
                      coalesce((SELECT string_agg(m.content, chr(10) ORDER BY m.line_start) FROM memories m
                                WHERE m.source_id = s.id AND m.superseded_at IS NULL AND m.valid_until IS NULL), '')
               FROM sources s WHERE s.kind = 'note' AND s.deleted_at IS NULL
               ORDER BY links_in DESC, s.ref LIMIT ?""", [limit])

    def entity(self, entity_id: int) -> dict[str, Any] | None:
        """An entity's name, label and qualifier, or None."""
        rows = self.query_dicts("SELECT name, label, qualifier FROM entities WHERE id = ?", [entity_id])
        return rows[0] if rows else None

    def entities_first_seen(self, ids: Iterable[int]) -> dict[int, datetime | None]:
        ids = sorted(set(ids))
        if not ids:
            return {}
        rows = self.query("SELECT id, first_seen FROM entities WHERE id IN (SELECT unnest(?))", [ids])
        return {i: py_time(seen) for i, seen in rows}

    def tag_entities(self) -> list[tuple[int, str]]:
        """(id, name) of every tag entity, by name regardless of case."""
        return self.query("SELECT id, name FROM entities WHERE label = 'TAG' ORDER BY lower(name)")

    def entities_named(self, memory_ids: list[int], labels: tuple[str, ...]) -> dict[int, set[str]]:
        """The entities of these labels (spaCy's: PERSON, GPE, …) each of the memories names, lower-cased; memories
        that name none are left out."""
        if not memory_ids:
            return {}
        found: dict[int, set[str]] = {}
        for memory_id, name in self.query(
                """SELECT me.memory_id, lower(e.name) FROM memory_entities me JOIN entities e ON e.id = me.entity_id
                   WHERE list_contains(?, e.label) AND list_contains(?, me.memory_id)""",
                [list(labels), list(memory_ids)]):
            found.setdefault(memory_id, set()).add(name)
        return found

    def memory_ids_mentioning(self, entity_id: int) -> list[int]:
        """Memories mentioning an entity (corrected records left out: they are no longer what Engram holds)."""
        return [r[0] for r in self.query(
            """SELECT me.memory_id FROM memory_entities me JOIN memories m ON m.id = me.memory_id
               WHERE me.entity_id = ? AND m.superseded_at IS NULL ORDER BY me.memory_id""", [entity_id])]

    def sources_tagged_with(self, entity_id: int) -> list[int]:
        """Sources whose open `tagged` edge points at the entity."""
        rows = self.query("SELECT DISTINCT src FROM edges WHERE dst = ? AND kind = 'tagged' AND valid_until IS NULL",
                          [f"e:{entity_id}"])
        return [int(r[0][2:]) for r in rows if r[0].startswith("s:")]

    def event_ids_of_sources(self, source_ids: Iterable[int], limit: int = 20) -> list[int]:
        """The latest events of the given sources."""
        ids = sorted(set(source_ids))
        if not ids:
            return []
        rows = self.query("SELECT id FROM events WHERE source_id IN (SELECT unnest(?)) "
                          "ORDER BY occurred_at DESC LIMIT ?", [ids, limit])
        return [r[0] for r in rows]

    def memory_ids_of_source(self, source_id: int, limit: int = 200) -> list[int]:
        """A source's memories in reading order (note lines first, then newest)."""
        rows = self.query("SELECT id FROM memories WHERE source_id = ? AND superseded_at IS NULL "
                          "ORDER BY line_start NULLS LAST, valid_from DESC LIMIT ?", [source_id, limit])
        return [r[0] for r in rows]

    def entity_mention_counts(self, exclude_labels: Iterable[str]) -> list[tuple[str, str, int]]:
        """(name, label, memories) over unarchived, unsuperseded memories, the assistant's replies left out."""
        return self.query(
            """SELECT e.name, e.label, count(DISTINCT me.memory_id)
               FROM memory_entities me JOIN entities e ON e.id = me.entity_id JOIN memories m ON m.id = me.memory_id
                    LEFT JOIN events ev ON ev.id = m.event_id
               WHERE NOT m.archived AND m.superseded_at IS NULL AND e.label NOT IN (SELECT unnest(?))
                 AND NOT (m.type = 'chat_turn' AND coalesce(ev.role, '') = 'assistant')
               GROUP BY e.name, e.label""",
            [list(exclude_labels)])

    def tagged_source_counts(self) -> list[tuple[str, int]]:
        """(tag name, sources carrying it now) over open `tagged` edges."""
        return self.query(
            """SELECT e.name, count(DISTINCT ed.src) FROM edges ed JOIN entities e ON ed.dst = 'e:' || e.id
               WHERE ed.kind = 'tagged' AND ed.valid_until IS NULL GROUP BY e.name""")


def _delete_memories(conn: duckdb.DuckDBPyConnection, units: list[MemoryUnit]) -> list[int]:
    """The SQL of a forget (inside the caller's transaction); returns the entities left orphaned."""
    ids = [u.id for u in units]
    nodes = [f"m:{i}" for i in ids]
    linked = [r[0] for r in run_sql(
        conn, "SELECT DISTINCT entity_id FROM memory_entities WHERE memory_id IN (SELECT unnest(?))", [ids]).fetchall()]
    run_sql(conn, "DELETE FROM memories WHERE id IN (SELECT unnest(?))", [ids])
    run_sql(conn, "DELETE FROM embeddings WHERE memory_id IN (SELECT unnest(?))", [ids])
    run_sql(conn, "DELETE FROM memory_entities WHERE memory_id IN (SELECT unnest(?))", [ids])
    run_sql(conn, "DELETE FROM edges WHERE src IN (SELECT unnest(?)) OR dst IN (SELECT unnest(?))", [nodes, nodes])
    events = [u.event_id for u in units if u.type == "chat_turn" and u.event_id is not None]
    if events:
        run_sql(conn, "UPDATE events SET text = '[forgotten]' WHERE id IN (SELECT unnest(?))", [events])
    orphans = [r[0] for r in run_sql(
        conn, """SELECT e.id FROM entities e WHERE e.id IN (SELECT unnest(?))
             AND NOT EXISTS (SELECT 1 FROM memory_entities me WHERE me.entity_id = e.id)
             AND NOT EXISTS (SELECT 1 FROM edges WHERE dst = 'e:' || e.id OR src = 'e:' || e.id)
           ORDER BY e.id""", [linked]).fetchall()]
    if orphans:
        run_sql(conn, "DELETE FROM entities WHERE id IN (SELECT unnest(?))", [orphans])
    return orphans


def _rewrite_compacted(conn: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Copy the live rows of `conn`'s database into a fresh file that replaces `path`; closes `conn`."""
    fresh = path.with_name(path.name + ".compacting")
    fresh.unlink(missing_ok=True)
    conn.execute("CHECKPOINT")
    catalog = conn.execute("SELECT current_database()").fetchone()[0]
    conn.execute(f"ATTACH '{fresh}' AS compacted")
    try:
        conn.execute(f'COPY FROM DATABASE "{catalog}" TO compacted')
    finally:
        conn.execute("DETACH compacted")
    conn.close()
    private_file(fresh)
    os.replace(fresh, path)  # atomic: a crash leaves the old file or the new one


def forget_in_copy(path: Path, units: list[MemoryUnit]) -> None:
    """Forget `units` in a copy of the database (a backup) too, and compact it."""
    conn = _quiet(duckdb.connect(str(path)))
    try:
        conn.execute("BEGIN TRANSACTION")
        _delete_memories(conn, [u for u in units if u.id is not None])
        conn.execute("COMMIT")
    except BaseException:
        conn.close()
        raise
    _rewrite_compacted(conn, path)


@dataclass
class GraphRows:
    entities: list[tuple]
    sources: list[tuple]
    memories: list[tuple]
    mentions: list[tuple]
    edges: list[tuple]
    links: list[tuple]


def _db_value(name: str, value: Any) -> Any:
    return db_time(value) if name in _TIME_FIELDS else value


def _arrow_column(values: list) -> Any:
    import pyarrow as pa

    return pa.nulls(len(values)) if all(v is None for v in values) else pa.array(values)


def memory_from_row(row: dict[str, Any]) -> MemoryUnit:
    values = {k: (py_time(v) if k in _TIME_FIELDS else v) for k, v in row.items() if k in MEMORY_COLUMNS}
    values["archived"] = bool(values.get("archived"))
    values["use_count"] = values.get("use_count") or 0
    return MemoryUnit(**values)


def source_from_row(row: dict[str, Any]) -> Source:
    return Source(
        id=row["id"], kind=row["kind"], ref=row["ref"], fingerprint=row["fingerprint"],
        mtime=py_time(row["mtime"]), title=row["title"], created_at=py_time(row["created_at"]),
        deleted_at=py_time(row["deleted_at"]),
    )


def event_from_row(row: dict[str, Any]) -> Event:
    return Event(
        id=row["id"], kind=row["kind"], at=py_time(row["occurred_at"]), recorded_at=py_time(row["recorded_at"]),
        role=row["role"], session_id=row["session_id"], message_id=row["message_id"],
        text=row["text"], source_id=row["source_id"],
    )


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
