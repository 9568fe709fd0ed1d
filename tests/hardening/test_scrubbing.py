"""Secrets are scrubbed by one module (harvest/base/scrubbing.py): each way a secret is kept out
of a
text, on concrete texts."""

from __future__ import annotations

from harvest.base.dburl import scrub
from harvest.base.scrubbing import (
    MASK,
    REDACTED_HEADER,
    SECRET_HEADERS,
    TOKEN_MASK,
    hide,
    mask_userinfo,
    redact_url,
    scrub_credentials,
    strip_userinfo,
    token_pattern,
)


def test_the_masks_and_the_secret_headers() -> None:
    assert (MASK, TOKEN_MASK, REDACTED_HEADER) == ("***", "<token>", "REDACTED")
    assert sorted(SECRET_HEADERS) == [
        "authorization",
        "cookie",
        "proxy-authorization",
        "set-cookie",
    ]


def test_a_urls_userinfo_is_cut_out_or_masked() -> None:
    assert strip_userinfo("http://bob:pw@127.0.0.1:8080/x?a=1") == "http://127.0.0.1:8080/x?a=1"
    assert strip_userinfo("http://127.0.0.1/a@b") == "http://127.0.0.1/a@b"
    assert mask_userinfo("  https://bob:pw@court.example/  ") == "https://***@court.example/"
    assert mask_userinfo("bob:pw@court.example/") == "***@court.example/"
    assert mask_userinfo("https://court.example/a@b") == "https://court.example/a@b"


def test_credentials_in_a_reason_text_are_masked() -> None:
    text = (
        "GET http://u:p@127.0.0.1/x?token=abc&page=2 failed; "
        "Proxy-Authorization: Basic dXNlcjpwdw== and api_key=k1"
    )
    assert scrub_credentials(text) == (
        "GET http://127.0.0.1/x?token=***&page=2 failed; Proxy-Authorization: *** and api_key=***"
    )


def test_a_database_password_is_hidden_in_the_url_and_in_a_drivers_message() -> None:
    url = "postgresql://harvest:s3cret@127.0.0.1:5432/h?password=s3cret&sslmode=disable"
    assert redact_url(url) == (
        "postgresql://harvest:***@127.0.0.1:5432/h?password=***&sslmode=disable"
    )
    assert redact_url("postgresql://127.0.0.1/h") == "postgresql://127.0.0.1/h"
    assert redact_url("postgresql://[::1/h") == "(a database URL that cannot be parsed)"
    assert hide('FATAL: password "s3cret" rejected', "s3cret") == 'FATAL: password "***" rejected'
    assert hide("nothing to hide", None) == "nothing to hide"
    assert scrub("auth failed for s3cret", url) == "auth failed for ***"


def test_a_token_is_found_as_is_and_percent_encoded_as_a_whole_word_only() -> None:
    forms, pattern = token_pattern("ab/c+d")
    assert forms == ("ab%2Fc%2Bd", "ab%2fc%2bd", "ab/c%2Bd", "ab/c+d")  # longest first
    assert pattern.sub(TOKEN_MASK, "t=ab%2Fc%2Bd x ab/c+d xab/c+dx") == (
        "t=<token> x <token> xab/c+dx"
    )
