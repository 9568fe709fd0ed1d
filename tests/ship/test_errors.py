"""harvest.shipping.errors: exit statuses of the expected errors, and the token scrubber."""

from __future__ import annotations

import io
import logging

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
