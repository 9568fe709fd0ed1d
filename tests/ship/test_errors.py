"""harvest.shipping.errors: exit statuses of the expected errors, and the token scrubber."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest

from harvest.shipping.cli import main
from harvest.shipping.errors import (
    SHIPPED_OUTCOMES,
    AuthError,
    BreakerOpen,
    ConfigError,
    EndpointUnusable,
    ExitStatus,
    Interrupted,
    Outcome,
    RetryAfterTooLong,
    Scrubber,
    ShipLogError,
    UsageError,
    WorkspaceLocked,
)


def test_each_expected_error_has_its_documented_exit_status() -> None:
    assert {
        cls.__name__: cls.exit_status.value
        for cls in (
            UsageError, ConfigError, EndpointUnusable, AuthError, BreakerOpen, RetryAfterTooLong,
            WorkspaceLocked, ShipLogError, Interrupted,
        )
    } == {
        "UsageError": 64, "ConfigError": 78, "EndpointUnusable": 78, "AuthError": 77,
        "BreakerOpen": 75, "RetryAfterTooLong": 75, "WorkspaceLocked": 75, "ShipLogError": 74,
        "Interrupted": 130,
    }  # fmt: skip
    assert ExitStatus.OK == 0
    assert ExitStatus.SOME_FAILED == 1
    assert {o.value for o in SHIPPED_OUTCOMES} == {"ok", "skipped-duplicate", "stale"}
    assert Outcome.STALE.value == "stale"


def test_the_scrubber_hides_the_token_as_is_and_percent_encoded() -> None:
    scrub = Scrubber("ab/c+d=e")
    assert scrub("x ab/c+d=e y ab%2Fc%2Bd%3De z ab/c%2Bd%3De") == "x <token> y <token> z <token>"
    assert scrub.clip("t" * 600) == "t" * 499 + "…"
    assert scrub.clip(None) is None
    assert Scrubber(None)("ab/c+d=e") == "ab/c+d=e"


def test_as_a_logging_filter_it_scrubs_messages_args_and_tracebacks() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(Scrubber("tok-123456"))
    log = logging.getLogger("tests.ship.scrub")
    log.addHandler(handler)
    log.propagate = False
    try:
        log.error("answer: %s", "redirect to /login?t=tok-123456")
        try:
            raise ValueError("tok-123456 in an exception")
        except ValueError:
            log.exception("failed")
    finally:
        log.removeHandler(handler)
    text = stream.getvalue()
    assert "tok-123456" not in text
    assert "answer: redirect to /login?t=<token>" in text
    assert "ValueError: <token> in an exception" in text


def test_an_unexpected_error_is_exit_70_with_a_scrubbed_traceback(
    tmp_path, monkeypatch, capsys
) -> None:
    from harvest.shipping import cli

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom near tok-abcdef123456")

    monkeypatch.setattr(cli, "open_documents", broken)
    ws = tmp_path / "ws"
    ws.mkdir()
    status = cli.main(
        ["--workspace", str(ws), "--endpoint", "http://127.0.0.1:9"],
        env={"INGEST_TOKEN": "tok-abcdef123456"},
    )
    err = capsys.readouterr().err
    assert status == ExitStatus.SOFTWARE == 70
    assert "unexpected error (a bug in ship.py; please report it)" in err
    assert "RuntimeError: boom near <token>" in err
    assert "tok-abcdef123456" not in err


def test_the_scrubber_replaces_whole_tokens_only() -> None:
    """A token that happens to occur inside a longer word leaves the word alone (issue 24)."""
    scrub = Scrubber("ingest2026api")
    assert scrub("token=ingest2026api; reingest2026apis stays; (ingest2026api).") == (
        "token=<token>; reingest2026apis stays; (<token>)."
    )
    slashy = Scrubber("ab/c+d=e")
    assert slashy("x=ab%2Fc%2Bd%3De&y") == "x=<token>&y"
    assert slashy("zab/c+d=ez") == "zab/c+d=ez"


@pytest.mark.parametrize("token", ["ship", "secret", "tok-123456", "a" * 15])
def test_a_token_too_short_to_be_secret_is_refused_with_one_line(
    token: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(
        ["--endpoint", "http://127.0.0.1:9/", "--workspace", str(tmp_path)],
        env={"INGEST_TOKEN": token},
    )
    err = capsys.readouterr().err
    assert status == 78
    assert f"INGEST_TOKEN has {len(token)} characters: too short to be a secret" in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
