"""Redaction: each secret kind is replaced, the rest of the text survives, checksums gate IDs and cards."""
from __future__ import annotations

import time

import pytest

from memory.errors import BadInputError
from memory.privacy import (
    Finding,
    RedactionSettings,
    Redactor,
    cn_id_checksum_ok,
    luhn_ok,
    settings_from_dict,
)

# Fake credentials are assembled from pieces so they are obviously not real.
OPENAI = "sk-" + "a1B2c3D4" * 6
OPENAI_PROJECT = "sk-proj-" + "Xy9_Zw8-" * 6
ANTHROPIC = "sk-ant-api03-" + "Qr7St6Uv" * 8
GITHUB = "ghp_" + "Ab1Cd2Ef3G" * 3 + "h4Ij5K"
GITHUB_PAT = "github_pat_" + "11ABCDEFG0" * 4
AWS_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
SLACK = "xoxb-" + "1234567890-" * 2 + "AbCdEfGhIjKl"
GOOGLE = "AIza" + "SyD-" + "a1b2C3d4e5" * 3 + "f"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
VALID_CN_ID = "11010119900307457" + "3"
VALID_CN_ID_X = "44030419851231002X"


@pytest.fixture
def redactor() -> Redactor:
    return Redactor()


@pytest.mark.parametrize(
    "secret",
    [OPENAI, OPENAI_PROJECT, ANTHROPIC, GITHUB, GITHUB_PAT, AWS_ID, SLACK, GOOGLE],
    ids=["openai", "openai-project", "anthropic", "github", "github-pat", "aws-id", "slack", "google"],
)
def test_provider_keys_are_replaced_and_the_sentence_survives(redactor: Redactor, secret: str) -> None:
    text = f"Please use {secret} for the staging box, thanks."
    result = redactor.redact(text)
    assert result.text == "Please use [REDACTED:api_key] for the staging box, thanks."
    assert result.found == [Finding("api_key", 11, 11 + len(secret))]


def test_jwt_and_bearer_tokens(redactor: Redactor) -> None:
    assert redactor.scrub(f"cookie {JWT} expired") == "cookie [REDACTED:token] expired"
    header = "Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0."
    assert redactor.scrub(header) == "Authorization: Bearer [REDACTED:token]."


def test_labelled_aws_secret_key(redactor: Redactor) -> None:
    text = f"aws_secret_access_key = {AWS_SECRET}\nregion = eu-west-1"
    assert redactor.scrub(text) == "aws_secret_access_key = [REDACTED:secret]\nregion = eu-west-1"
    assert redactor.scrub(f"my AWS secret key is {AWS_SECRET}.") == "my AWS secret key is [REDACTED:secret]."


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("login with password=hunter2 tomorrow", "login with password=[REDACTED:password] tomorrow"),
        ("DB_PASSWORD: 'correct horse' here", "DB_PASSWORD: '[REDACTED:password]' here"),
        ("passwd=Tr0ub4dor&3; pwd=s3cret!x", "passwd=[REDACTED:password]; pwd=[REDACTED:password]"),
        ("my password is Tr0ub4dor&3 ok", "my password is [REDACTED:password] ok"),
        ("api_key=abcd1234efgh5678, go", "api_key=[REDACTED:api_key], go"),
        ("client_secret: Zm9vYmFyYmF6cXV4 end", "client_secret: [REDACTED:secret] end"),
        ('{"access_token": "a8f5f167f44f4964e6c998dee827110c"}', '{"access_token": "[REDACTED:token]"}'),
        ("我的密码是abc123，别告诉别人", "我的密码是[REDACTED:password]，别告诉别人"),
        ("wifi 密码：Pa55word。", "wifi 密码：[REDACTED:password]。"),
    ],
)
def test_assignments_redact_the_value_only(redactor: Redactor, text: str, expected: str) -> None:
    assert redactor.scrub(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "the password is too weak",
        "We used 1200 tokens: fine",
        "max_tokens=4096 and temperature=0.2",
        "token is abc",
        "the bearer of bad news",
        "密码是什么来着？",
        "password=[REDACTED:password]",
    ],
)
def test_prose_about_secrets_is_left_alone(redactor: Redactor, text: str) -> None:
    assert redactor.scrub(text) == text


def test_pem_private_key_block(redactor: Redactor) -> None:
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc+/=\n-----END RSA PRIVATE KEY-----"
    assert redactor.scrub(f"key:\n{pem}\nend") == "key:\n[REDACTED:private_key]\nend"


def test_chinese_national_id_with_valid_checksum(redactor: Redactor) -> None:
    assert cn_id_checksum_ok(VALID_CN_ID) and cn_id_checksum_ok(VALID_CN_ID_X)
    assert redactor.scrub(f"身份证号{VALID_CN_ID}，请保管") == "身份证号[REDACTED:national_id]，请保管"
    assert redactor.scrub(f"ID {VALID_CN_ID_X.lower()} ok") == "ID [REDACTED:national_id] ok"


def test_chinese_id_with_bad_checksum_or_date_is_kept(redactor: Redactor) -> None:
    bad_checksum = VALID_CN_ID[:-1] + "4"
    bad_date = "110101199002304577"  # 30 February
    assert not cn_id_checksum_ok(bad_checksum)
    for text in (f"number {bad_checksum} here", f"number {bad_date} here"):
        assert redactor.scrub(text) == text


def test_old_fifteen_digit_id_and_other_national_ids(redactor: Redactor) -> None:
    assert redactor.scrub("旧身份证 110101900307457 。") == "旧身份证 [REDACTED:national_id] 。"
    assert redactor.scrub("SSN 123-45-6789, ok") == "SSN [REDACTED:national_id], ok"
    assert redactor.scrub("NI number AB 12 34 56 C.") == "NI number [REDACTED:national_id]."
    assert redactor.scrub("not an SSN: 000-12-3456") == "not an SSN: 000-12-3456"


@pytest.mark.parametrize(
    "card",
    ["4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111", "6222021234567890128",
     "6222 0212 3456 7890 128", "3782 822463 10005"],
    ids=["visa-spaces", "visa-dashes", "visa-plain", "unionpay", "unionpay-groups", "amex"],
)
def test_luhn_valid_cards_are_redacted(redactor: Redactor, card: str) -> None:
    assert luhn_ok(card.replace(" ", "").replace("-", ""))
    assert redactor.scrub(f"卡号{card}，谢谢") == "卡号[REDACTED:bank_card]，谢谢"
    assert redactor.scrub(f"Card: {card}. Thanks") == "Card: [REDACTED:bank_card]. Thanks"


def test_card_followed_by_another_number_is_still_found(redactor: Redactor) -> None:
    assert redactor.scrub("pay 4111 1111 1111 1111 2 times") == "pay [REDACTED:bank_card] 2 times"


@pytest.mark.parametrize(
    "text",
    [
        "order 4111 1111 1111 1112 shipped",  # fails Luhn
        "order ORD-2024-0042 placed on 2024-03-15 at 09:30",
        "total ¥1,234,567.89 or $ 1234567890123.50",
        "call 555-123-4567 or 13800138000 or +86 138 0013 8000",
        "timestamp 1712345678901 and invoice 20240315000123",
        "version 1.2.3, year 2024, 42 items",
    ],
)
def test_ordinary_numbers_are_not_redacted(redactor: Redactor, text: str) -> None:
    assert redactor.scrub(text) == text


def test_settings_toggle_kinds() -> None:
    text = f"card 4111 1111 1111 1111, id {VALID_CN_ID}, key {OPENAI}, mail ann@example.com, tel 13800138000"
    nothing = Redactor(RedactionSettings(secrets=False, national_ids=False, bank_cards=False))
    assert nothing.scrub(text) == text
    everything = Redactor(RedactionSettings(emails=True, phones=True))
    assert everything.scrub(text) == (
        "card [REDACTED:bank_card], id [REDACTED:national_id], key [REDACTED:api_key], "
        "mail [REDACTED:email], tel [REDACTED:phone]"
    )
    only_secrets = Redactor(RedactionSettings(national_ids=False, bank_cards=False))
    assert only_secrets.scrub(text).count("[REDACTED") == 1


def test_phones_when_enabled() -> None:
    redactor = Redactor(RedactionSettings(phones=True))
    assert redactor.scrub("call +86 138 0013 8000 now") == "call [REDACTED:phone] now"
    assert redactor.scrub("call (555) 123-4567 now") == "call [REDACTED:phone] now"
    assert redactor.scrub("on 2024-03-15 at 09:30") == "on 2024-03-15 at 09:30"


def test_custom_patterns_redact_matches_or_their_value_group() -> None:
    settings = RedactionSettings(custom_patterns=[r"PRJ-\d{4}", r"room (?P<value>\d+)"])
    assert Redactor(settings).scrub("PRJ-1234 in room 42.") == "[REDACTED:custom] in room [REDACTED:custom]."


def test_findings_point_into_the_original_text(redactor: Redactor) -> None:
    text = f"a {AWS_ID} b 4111 1111 1111 1111 c"
    result = redactor.redact(text)
    assert [text[f.start : f.end] for f in result.found] == [AWS_ID, "4111 1111 1111 1111"]
    assert [f.kind for f in result.found] == ["api_key", "bank_card"]


def test_redaction_is_idempotent(redactor: Redactor) -> None:
    text = f"password=hunter2 key {OPENAI} card 4111111111111111 id {VALID_CN_ID}"
    once = redactor.scrub(text)
    assert redactor.scrub(once) == once


def test_settings_round_trip_and_validation() -> None:
    settings = RedactionSettings(emails=True, custom_patterns=[r"\bX-\d+\b"])
    assert settings_from_dict(settings.as_dict()) == settings
    assert settings_from_dict({}) == RedactionSettings()
    assert settings_from_dict({"phones": True, "future_option": 1}).phones is True
    with pytest.raises(BadInputError, match="bank_cards"):
        settings_from_dict({"bank_cards": "yes"})
    with pytest.raises(BadInputError, match=r"\(unclosed"):
        settings_from_dict({"custom_patterns": ["(unclosed"]})


def test_long_pathological_input_is_fast(redactor: Redactor) -> None:
    started = time.perf_counter()
    for text in ("1-" * 5000 + "x", "-----BEGIN PRIVATE KEY-----" * 500, "a_" * 5000 + "=", "1 " * 5000):
        assert redactor.scrub(text) == text
    assert time.perf_counter() - started < 2.0
