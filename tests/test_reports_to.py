"""Who the user reports to at work, and the words of ending and of home that chat uses."""
import pytest

from memory.extract.attributes import names_attribute, statement_marks, tells_a_change
from tests.helpers import at, open_engram


@pytest.fixture
def engram(tmp_path):
    return open_engram(tmp_path)


def by_content(result) -> dict:
    return {r.unit.content: r for r in result.results}


def test_the_latest_manager_answers_and_the_earlier_one_is_history(engram):
    engram.remember("my manager priya is great tbh, she actually reads my design docs", at=at("2024-02-05T09:00:00"))
    engram.remember("team offsite is next thursday, need to book a train", at=at("2024-03-12T09:00:00"))
    engram.remember("big reorg today, priya moved over to the payments org so i report to marcus now",
                    at=at("2024-04-01T09:00:00"))
    result = engram.recall("who's my boss at the moment?", as_of=at("2024-05-01T00:00:00"))
    assert "report to marcus" in result.results[0].unit.content
    assert "user.manager" in " ".join(result.results[0].why)
    assert not by_content(result)["my manager priya is great tbh, she actually reads my design docs"].valid


def test_a_chinese_manager_by_the_words_for_one_and_a_boss_in_passing_is_no_statement(engram):
    engram.remember("我们组长老王人挺好的，从来不甩锅", at=at("2024-02-26T09:00:00"))
    engram.remember("开会的时候领导一直点我名字 好紧张啊", at=at("2024-03-14T09:00:00"))
    engram.remember("前天组织架构调整，我被调到数据平台组了，现在直属leader是刘姐", at=at("2024-04-18T09:00:00"))
    result = engram.recall("我现在归谁管？", as_of=at("2024-05-01T00:00:00"))
    assert "刘姐" in result.results[0].unit.content
    assert not by_content(result)["我们组长老王人挺好的，从来不甩锅"].valid
    assert "§manager" not in statement_marks("开会的时候领导一直点我名字 好紧张啊")  # 领导 in passing: not who it is


@pytest.mark.parametrize("text, mark", [
    ("my manager priya is great tbh", "§manager"),  # about her, and so about whom the user reports to
    ("i report to marcus now", "§manager"),
    ("told the guys i'm leaving the band, can't do tuesdays anymore", "§instrument~no"),  # a band is played in
    ("new year new me, officially a resident of denver now haha", "§home_location"),
    ("我们组长老王人挺好的", "§manager"),
    ("paused hellofresh indefinitely. honestly cooking from scratch is cheaper and i like planning meals", "§said~no"),
    ("公司搬去望京了！现在坐14号线一趟直达", "§commute"),  # a subway line is a way to work
])
def test_statement_marks_of_reporting_leaving_and_residence(text, mark):
    assert mark in statement_marks(text)


def test_a_change_of_subway_line_names_the_commute():
    assert names_attribute("每天10号线转4号线上班，早高峰挤成照片", "commute")


@pytest.mark.parametrize("text, changed", [
    ("膝盖受伤了，医生说半年不能跑，跑团群也退了，唉", True),
    ("退出了读书会，实在没时间", True),
    ("烧终于退了", False),  # a fever going down ends nothing of the user's
    ("戒奶茶第40天！掉了三斤", True),
    ("房贷提前还清了！！从今天起无债一身轻", True),
    ("爱奇艺会员到期没续", True),
    ("周末把照片都迁到阿里云盘了", True),
    ("买了个新戒指", True),  # 新 tells news, though a ring (戒指) ends nothing
    ("戒指好像有点紧", False),
    ("told the guys i'm leaving the band", True),
    ("leaving the house at 8 tomorrow", False),
])
def test_leaving_a_group_tells_a_change(text, changed):
    assert tells_a_change(text) is changed


def test_a_smoker_asked_of_in_chinese_slang_is_the_smoking_slot(engram):
    engram.remember("烟瘾越来越大了，一天差不多一包", at=at("2023-11-20T09:00:00"))
    engram.remember("最近老咳嗽，是不是北方太干了", at=at("2023-12-02T09:00:00"))
    engram.remember("戒烟第30天打卡！！身上终于没味儿了", at=at("2024-01-22T09:00:00"))
    result = engram.recall("我现在还是烟民吗？", as_of=at("2024-02-01T00:00:00"))
    assert "戒烟第30天" in result.results[0].unit.content
    assert not by_content(result)["烟瘾越来越大了，一天差不多一包"].valid
