"""Redaction: each secret kind is replaced, the rest of the text survives, checksums gate IDs and cards."""
from __future__ import annotations

import time
from datetime import date

import pytest
from stdnum import luhn

from memory.errors import BadInputError
from memory.number_detectors import cn_resident_id_ok
from memory.privacy import Finding, RedactionSettings, Redactor, settings_from_dict

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
    assert redactor.scrub(f"key:\n{pem}\nend") == "key:\n[REDACTED:private_key]\n\n\n\nend"  # lines kept


def test_a_path_holding_a_secret_is_stored_redacted_with_a_fingerprint(redactor: Redactor) -> None:
    secret = "notes/AKIAIOSFODNN7EXAMPLE keys.md"
    ref = redactor.path_ref(secret)
    assert "AKIAIOSFODNN7EXAMPLE" not in ref and ref.startswith("notes/[REDACTED:api_key] keys.md #")
    assert ref == redactor.path_ref(secret) != redactor.path_ref("notes/AKIAIOSFODNN7EXAMPLF keys.md")
    assert redactor.path_ref("notes/plain.md") == "notes/plain.md"


def test_chinese_national_id_with_valid_checksum(redactor: Redactor) -> None:
    assert cn_resident_id_ok(VALID_CN_ID) and cn_resident_id_ok(VALID_CN_ID_X)
    assert redactor.scrub(f"身份证号{VALID_CN_ID}，请保管") == "身份证号[REDACTED:national_id]，请保管"
    assert redactor.scrub(f"ID {VALID_CN_ID_X.lower()} ok") == "ID [REDACTED:national_id] ok"


def test_chinese_id_with_bad_checksum_or_date_is_kept(redactor: Redactor) -> None:
    bad_checksum = VALID_CN_ID[:-1] + "4"
    bad_date = "110101199002304577"  # 30 February
    assert not cn_resident_id_ok(bad_checksum)
    for text in (f"number {bad_checksum} here", f"number {bad_date} here"):
        assert redactor.scrub(text) == text


def test_old_fifteen_digit_id_and_other_national_ids(redactor: Redactor) -> None:
    assert redactor.scrub("旧身份证 110101900307457 。") == "旧身份证 [REDACTED:national_id] 。"
    assert redactor.scrub("SSN 123-45-6789, ok") == "SSN [REDACTED:national_id], ok"
    assert redactor.scrub("NI number AB 12 34 56 C.") == "NI number [REDACTED:national_id]."
    assert redactor.scrub("area 000 is never issued: 000-12-3456") == "area 000 is never issued: 000-12-3456"


@pytest.mark.parametrize(
    "card",
    ["4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111", "6222021234567890128",
     "6222 0212 3456 7890 128", "3782 822463 10005"],
    ids=["visa-spaces", "visa-dashes", "visa-plain", "unionpay", "unionpay-groups", "amex"],
)
def test_luhn_valid_cards_are_redacted(redactor: Redactor, card: str) -> None:
    assert luhn.is_valid(card.replace(" ", "").replace("-", ""))
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
    assert redactor.scrub("call (212) 555-0123 now") == "call [REDACTED:phone] now"
    assert redactor.scrub("座机 010-12345678。") == "座机 [REDACTED:phone]。"
    assert redactor.scrub("on 2024-03-15 at 09:30") == "on 2024-03-15 at 09:30"
    assert redactor.scrub("call (555) 123-4567 now") == "call (555) 123-4567 now"  # no such area code


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


# --- issue 9: labelled numbers, IBAN, values to the end of the token, every place a secret hides ---

FAILING_LUHN_19 = "6222021234567890127"  # a 19-digit UnionPay-shaped number whose checksum fails


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"卡号{FAILING_LUHN_19}", "卡号[REDACTED:bank_card]"),
        ("卡号：6222 0212 3456 7890 127，谢谢", "卡号：[REDACTED:bank_card]，谢谢"),
        (f"我的银行卡是{FAILING_LUHN_19}", "我的银行卡是[REDACTED:bank_card]"),
        ("信用卡号为 1234-5678-9012-3456", "信用卡号为 [REDACTED:bank_card]"),
        ("收款账号 6217 0000 1234 5678", "收款账号 [REDACTED:bank_account]"),
        ("账户（工行）：12345678901", "账户（工行）：[REDACTED:bank_account]"),
        ("card number: 1234 5678 9012 3456 7.", "card number: [REDACTED:bank_card]."),
        ("Card no. 12345678 expires", "Card no. [REDACTED:bank_card] expires"),
        ("credit card 1234567812345678", "credit card [REDACTED:bank_card]"),
        ("account no. 12-34-56 12345678", "account no. [REDACTED:bank_account]"),
        ("Account number is 0012345678, branch 7", "Account number is [REDACTED:bank_account], branch 7"),
        ("acct #12345678", "acct #[REDACTED:bank_account]"),
        ("IBAN: DE89 3704 0044 0532 0130 01 (typo)", "IBAN: [REDACTED:iban] (typo)"),
        ("身份证号110101199003074574", "身份证号[REDACTED:national_id]"),
        ("passport no. E12345678", "passport no. [REDACTED:national_id]"),
    ],
)
def test_labelled_numbers_are_redacted_whatever_their_checksum(redactor: Redactor, text: str, expected: str) -> None:
    assert redactor.scrub(text) == expected


@pytest.mark.parametrize(
    "text",
    ["card 2 of 10", "account 2023 review", "尾号1234的卡", "the card game 1999", "账号已冻结", "acct: ****1234"],
)
def test_labels_without_a_long_number_are_left_alone(redactor: Redactor, text: str) -> None:
    assert redactor.scrub(text) == text


def test_labelled_numbers_follow_the_settings() -> None:
    text = f"卡号{FAILING_LUHN_19}, 身份证号110101199003074574"
    assert Redactor(RedactionSettings(bank_cards=False, national_ids=False)).scrub(text) == text
    only_cards = Redactor(RedactionSettings(national_ids=False))
    assert only_cards.scrub(text) == "卡号[REDACTED:bank_card], 身份证号110101199003074574"


@pytest.mark.parametrize(("text", "expected"), [
    ("my irish passport 🇮🇪 numbers PA4827193, for the esta form",
     "my irish passport 🇮🇪 numbers [REDACTED:national_id], for the esta form"),
    ("signed up with bupa 🙌 membership no. BP-88213407, keep forgetting it",
     "signed up with bupa 🙌 membership no. [REDACTED:member_id], keep forgetting it"),
    ("policy number: 99887766 with aviva", "policy number: [REDACTED:member_id] with aviva"),
    ("nhs number 943 476 5919", "nhs number [REDACTED:member_id]"),
    # letters before and after the digits, and "#" for the number
    ("went with lemonade, policy # LMN-4482-9917-X in case i need it",
     "went with lemonade, policy # [REDACTED:member_id] in case i need it"),
    ("insurance ID: QWE-99887766-Z", "insurance ID: [REDACTED:member_id]"),
    ("customer number: 1234-5678-AB thx", "customer number: [REDACTED:member_id] thx"),
    ("my policy # is HX 2231 9981 22", "my policy # is [REDACTED:member_id]"),
    ("my membership number was 88213407", "my membership number was [REDACTED:member_id]"),  # a word is no lead
    # no number after the label, or too short to identify anyone
    ("my passport expires in 2031", "my passport expires in 2031"),
    ("the membership fee is £120 a year", "the membership fee is £120 a year"),
    ("the policy # changed in 2021", "the policy # changed in 2021"),
])
def test_passport_membership_and_policy_numbers_as_chat_writes_them(redactor: Redactor, text: str, expected: str) -> None:
    assert redactor.scrub(text) == expected
    assert Redactor(RedactionSettings(national_ids=False)).scrub(text) == text


@pytest.mark.parametrize(
    "iban",
    ["DE89 3704 0044 0532 0130 00", "DE89370400440532013000", "GB82 WEST 1234 5698 7654 32", "NL91ABNA0417164300"],
)
def test_iban_with_a_valid_mod97_check_is_redacted_unlabelled(redactor: Redactor, iban: str) -> None:
    assert redactor.scrub(f"pay to {iban}. Thanks") == "pay to [REDACTED:iban]. Thanks"
    assert redactor.scrub(f"转账到{iban}，谢谢") == "转账到[REDACTED:iban]，谢谢"


def test_iban_shapes_that_fail_mod97_are_left_alone_unless_labelled(redactor: Redactor) -> None:
    text = "ref DE89 3704 0044 0532 0130 01 and GB00 WEST 1234 5698 7654 32"
    assert redactor.scrub(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("password: X!", "password: [REDACTED:password]"),
        ("password=X! then", "password=[REDACTED:password] then"),
        ("my password is hunter2!", "my password is [REDACTED:password]"),
        ('password: "X!"!', 'password: "[REDACTED:password]"!'),
        ("(password: hunter2)", "(password: [REDACTED:password])"),
        ("Server=db;Password=abc;Database=app", "Server=db;Password=[REDACTED:password];Database=app"),
        ("(zoom.us/j/9?pwd=aUUxNzF0ak81czZHaUk0SUlTTjVDUT09)", "(zoom.us/j/9?pwd=[REDACTED:password])"),
        ("[link](zoom.us/j/9?pwd=aUUxNzF0ak81czZHaUk0SUlTTjVDUT09)", "[link](zoom.us/j/9?pwd=[REDACTED:password])"),
        ("**Password**: hunter2", "**Password**: [REDACTED:password]"),
        ("| password | hunter2 |", "| password | [REDACTED:password] |"),
        ("Password:\n  Tr0ub4dor&3\nnext line", "Password:\n  [REDACTED:password]\nnext line"),
        ("password: |\n  correct horse 9\nuser: ann", "password: |\n  [REDACTED:password]\nuser: ann"),
        ("PIN码：123456", "PIN码：[REDACTED:password]"),
        ("password for gmail: hunter2!", "password for gmail: [REDACTED:password]"),
        ("door code for the villa is 4471 — ok so", "door code for the villa is [REDACTED:password] — ok so"),
        ("wifi pw for the airbnb is Sunset!2024", "wifi pw for the airbnb is [REDACTED:password]"),
        ("gate code at my mum's is 1990#", "gate code at my mum's is [REDACTED:password]"),
        ("token for api.github.com = " + GITHUB[4:], "token for api.github.com = [REDACTED:token]"),
        ("wifi pw: corgi-2024", "wifi pw: [REDACTED:password]"),
        ("银行口令是Zx9#k2，记住", "银行口令是[REDACTED:password]，记住"),
        ("token是abc123xyz789", "token是[REDACTED:token]"),
        ("令牌：eyJzdWIi0123456789", "令牌：[REDACTED:token]"),
        ("API key：Zm9vYmFyYmF6cXV4", "API key：[REDACTED:api_key]"),
        ("my AWS secret key is " + AWS_SECRET + ".", "my AWS secret key is [REDACTED:secret]."),
    ],
)
def test_label_values_run_to_the_end_of_the_token(redactor: Redactor, text: str, expected: str) -> None:
    assert redactor.scrub(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "- [[simple-password|Simple Password]]: Protect your vault",
        "[[Plugins/simple-password|simple-password]]",
        "## Reset your password:\nGo to the settings",
        "the secret: practice daily.",
        "hotkey: Ctrl+Shift+K",
        "pass: 3",
        "password: none",
        "password: ********",
        "the password for the account is too weak",
        "tokens for each request: 500",
    ],
)
def test_more_prose_about_secrets_is_left_alone(redactor: Redactor, text: str) -> None:
    assert redactor.scrub(text) == text


STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
SENDGRID = "SG." + "abcdefghijklmnopqrstuv" + "." + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"
TELEGRAM = "123456789:" + "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw8"
GITLAB = "glpat-" + "xY9z" * 5
HUGGING_FACE = "hf_" + "AbCdEfGh12" * 3 + "Ij"


@pytest.mark.parametrize("secret", [STRIPE, SENDGRID, TELEGRAM, GITLAB, HUGGING_FACE],
                         ids=["stripe", "sendgrid", "telegram", "gitlab", "hugging-face"])
def test_more_provider_tokens(redactor: Redactor, secret: str) -> None:
    assert redactor.scrub(f"use {secret} here") == "use [REDACTED:api_key] here"


def test_credentials_in_urls_and_unsigned_jwts(redactor: Redactor) -> None:
    assert redactor.scrub("clone https://ann:s3cr3t@git.example.com/x.git") == (
        "clone https://ann:[REDACTED:password]@git.example.com/x.git")
    unsigned = "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0In0."
    assert redactor.scrub(f"jwt {unsigned} end") == "jwt [REDACTED:token] end"
    assert redactor.scrub("Authorization: Basic YW5uOnMzY3IzdA==") == "Authorization: Basic [REDACTED:token]"


OPENSSH_KEY = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
               "AAAAC3NzaC1lZDI1NTE5\n-----END OPENSSH PRIVATE KEY-----")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"```\n{OPENSSH_KEY}\n```", "```\n[REDACTED:private_key]\n\n\n\n```"),
        ("> -----BEGIN PGP PRIVATE KEY BLOCK-----\n>\n> lQOYBF0\n> -----END PGP PRIVATE KEY BLOCK-----",
         "> [REDACTED:private_key]\n\n\n"),
        ('{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg\\n-----END PRIVATE KEY-----\\n"}',
         '{"private_key": "[REDACTED:private_key]\\n"}'),
        ("pasted half a key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nqN2Lw+/xZ\n\nthe end",
         "pasted half a key:\n[REDACTED:private_key]\n\n\n\nthe end"),
    ],
    ids=["code-block", "quoted-pgp", "json-escaped", "no-footer"],
)
def test_private_key_blocks_across_lines(redactor: Redactor, text: str, expected: str) -> None:
    assert redactor.scrub(text) == expected


NOTE = f"""---
title: Bank and keys
api_key: abcd1234efgh5678
password: "p@ss w0rd"
tags: [finance, "card {FAILING_LUHN_19}"]
---
# Accounts

```bash
export AWS_SECRET_ACCESS_KEY={AWS_SECRET}
export GITHUB_TOKEN={GITHUB}
curl -H "Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0" https://api.example.com
```

#token/{GITHUB} 卡号 {FAILING_LUHN_19} id {VALID_CN_ID} card 4111 1111 1111 1111 jwt {JWT}
"""
NOTE_SECRETS = ["abcd1234efgh5678", "p@ss w0rd", FAILING_LUHN_19, AWS_SECRET, GITHUB,
                "9f8e7d6c5b4a39281706f5e4d3c2b1a0", VALID_CN_ID, "4111 1111 1111 1111", JWT]


def test_a_note_keeps_no_secret_in_frontmatter_code_tags_or_body(redactor: Redactor) -> None:
    scrubbed = redactor.scrub(NOTE)
    assert [secret for secret in NOTE_SECRETS if secret in scrubbed] == []
    assert scrubbed.startswith("---\ntitle: Bank and keys\napi_key: [REDACTED:api_key]\n")
    assert "#token/[REDACTED:api_key]" in scrubbed and "export GITHUB_TOKEN=[REDACTED:api_key]" in scrubbed
    assert not redactor.needs_redaction(scrubbed)
    assert redactor.needs_redaction(NOTE)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (f"notes_{AWS_ID}_2024.md", "notes_[REDACTED:api_key].md"),  # a token runs to the end of its run
        ("card-4111111111111111.md", "card-[REDACTED:bank_card].md"),
        (f"卡号{FAILING_LUHN_19}.md", "卡号[REDACTED:bank_card].md"),
        ("password=hunter2 notes.md", "password=[REDACTED:password] notes.md"),
        (f"{VALID_CN_ID}_scan.pdf", "[REDACTED:national_id]_scan.pdf"),
    ],
)
def test_titles_and_file_names(redactor: Redactor, name: str, expected: str) -> None:
    assert redactor.scrub(name) == expected


def test_parsed_frontmatter_values_keep_their_key_as_label(redactor: Redactor) -> None:
    frontmatter = {
        "title": "Bank", "password": "hunter2", "card_number": int(FAILING_LUHN_19), "pin": 1234, "pinned": 2,
        "aliases": ["卡号 " + FAILING_LUHN_19, "plain"], "created": date(2024, 3, 15), "done": True,
        "nested": {"token": "abc123xyz789qq"},
    }
    assert redactor.scrub_data(frontmatter) == {
        "title": "Bank", "password": "[REDACTED:password]", "card_number": "[REDACTED:bank_card]",
        "pin": "[REDACTED:password]", "pinned": 2,
        "aliases": ["卡号 [REDACTED:bank_card]", "plain"], "created": date(2024, 3, 15), "done": True,
        "nested": {"token": "[REDACTED:token]"},
    }


def test_scrub_many_matches_scrubbing_each(redactor: Redactor) -> None:
    texts = ["plain", f"card {FAILING_LUHN_19}", "password: X!", "", "#finance", f"key {OPENAI}",
             "-----BEGIN RSA PRIVATE KEY-----\nabc", "def\n-----END RSA PRIVATE KEY-----", "a\x00b"]
    assert redactor.scrub_many(texts) == [redactor.scrub(text) for text in texts]
    assert redactor.scrub_many(texts[:6]) == [redactor.scrub(text) for text in texts[:6]]


def test_pathological_input_stays_linear() -> None:
    redactor = Redactor(RedactionSettings(emails=True, phones=True))
    started = time.perf_counter()
    for text in ("password:" * 3000, "卡号" * 5000 + "1", "key token secret " * 3000, "DE89 " * 5000,
                 "card 1 " * 5000, ("a" * 40 + "_key") * 500 + "=x", "see https://x.org/a " * 5000,
                 "x@y.zz" * 5000, "-----BEGIN PRIVATE KEY-----\n" * 3000, "4111 " * 3000, "1 " * 20000):
        redactor.scrub(text)
    assert time.perf_counter() - started < 4.0


@pytest.mark.parametrize(("text", "expected"), [
    ("is my password Tr0ub4dor&3x! still right?", "is my password [REDACTED:password] still right?"),
    ("password manager is great", "password manager is great"),
    ("reset the password 2 times", "reset the password 2 times"),
    ("a password-protected file", "a password-protected file"),
])
def test_a_password_right_after_its_label_with_no_colon(redactor: Redactor, text: str, expected: str) -> None:
    assert redactor.scrub(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # a PIN as chat writes it: with a space, in lower case, at the end of a sentence
    ("bank PIN 4829. also started volunteering", "bank PIN [REDACTED:password]. also started volunteering"),
    ("my pin is 4829 lol", "my pin is [REDACTED:password] lol"),
    ("pin: 482913", "pin: [REDACTED:password]"),
    ("the pin is bent", "the pin is bent"),  # a pin in lower case labels only a PIN's digits
    ("pin: top", "pin: top"),
    ("pin the poster up at 4pm", "pin the poster up at 4pm"),
    ("PIN 12", "PIN 12"),
    # the code of a door, a gate or an alarm: its digits only
    ("building door code is 4471# btw, putting it here", "building door code is [REDACTED:password] btw, putting it here"),
    ("gate code: 2580", "gate code: [REDACTED:password]"),
    ("the door code changed again", "the door code changed again"),
    ("what's the dress code, zip code is 90210", "what's the dress code, zip code is 90210"),
    # a token right after its label with no colon: token-shaped values only
    ("here's the staging API key sk-live-9f8A2bQ7xLm30 for later", "here's the staging API key [REDACTED:api_key] for later"),
    ("access token ghp_abcdefghij1234567890XYZ.", "access token [REDACTED:token]."),
    ("api key rotation is due", "api key rotation is due"),
    ("the token ERC20 thing", "the token ERC20 thing"),
])
def test_a_pin_or_a_token_right_after_its_label_as_chat_writes_it(redactor: Redactor, text: str, expected: str) -> None:
    assert redactor.scrub(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # the label, a few words of chat, a colon, then the value: password- or token-shaped values only
    ("saving the wifi pw here so i dont lose it: Tr0mbone!Kettle42",
     "saving the wifi pw here so i dont lose it: [REDACTED:password]"),
    ("the password for the shared drive, in case you forget it: hunter2_otter!",
     "the password for the shared drive, in case you forget it: [REDACTED:password]"),
    ("here is the token we talked about: abcdefghijklmnop1234", "here is the token we talked about: [REDACTED:token]"),
    ("the password policy at work is strict: 12 chars minimum", "the password policy at work is strict: 12 chars minimum"),
    ("my password manager says: use a longer one", "my password manager says: use a longer one"),
    ("the key thing to remember: always lock the door", "the key thing to remember: always lock the door"),
])
def test_a_secret_after_its_label_and_a_few_words_of_chat(redactor: Redactor, text: str, expected: str) -> None:
    assert redactor.scrub(text) == expected
