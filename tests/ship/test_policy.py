"""harvest.shipping.policy: the contract table, strict success, Retry-After, backoff, breaker."""

from __future__ import annotations

import json

import pytest

from harvest.shipping.errors import ConfigError
from harvest.shipping.policy import RetryPolicy, classify, parse_retry_after
from harvest.shipping.transport import Answer


def test_parse_retry_after_seconds_and_http_date() -> None:
    assert parse_retry_after("120", now=0) == 120
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470) == 10
    assert parse_retry_after("garbage", now=0) is None
    assert parse_retry_after(None, now=0) is None
    assert parse_retry_after("-5", now=0) == 0


def test_classify_follows_the_contract_table() -> None:
    kinds = {
        status: classify(Answer(status, b"{}")).kind.value
        for status in (400, 408, 409, 410, 411, 413, 415, 422, 425, 429, 500, 503, 504, 302)
    }
    assert kinds == {
        400: "reject", 408: "retry", 409: "retry", 410: "endpoint", 411: "client-bug",
        413: "reject", 415: "client-bug", 422: "reject", 425: "retry", 429: "retry",
        500: "retry", 503: "retry", 504: "retry", 302: "endpoint",
    }  # fmt: skip


def test_retry_policy_validates() -> None:
    with pytest.raises(ConfigError, match="--max-attempts"):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ConfigError, match="--backoff-cap"):
        RetryPolicy(backoff_cap=float("nan"))


KEY = "sipp.pn-x:1/Pdt.G/2024/PN X"
HASH = "sha256:" + "ab" * 32


def contract(result: str, **changes: object) -> bytes:
    payload = {"key": KEY, "result": result, "version": 1, "content_hash": HASH, **changes}
    return json.dumps(payload).encode()


@pytest.mark.parametrize(
    ("status", "result", "kind"),
    [
        (201, "created", "shipped"),
        (200, "updated", "shipped"),
        (200, "unchanged", "duplicate"),
        (200, "stale", "stale"),
    ],
)
def test_a_success_is_the_contracts_answer_naming_the_key_and_echoing_the_hash(
    status: int, result: str, kind: str
) -> None:
    verdict = classify(Answer(status, contract(result)), key=KEY, content_hash=HASH)
    assert (verdict.kind.value, verdict.result, verdict.error) == (kind, result, None)


@pytest.mark.parametrize(
    ("body", "content_type", "reason"),
    [
        (
            b"<!doctype html><title>Sign in</title><form>...</form>",
            "text/html; charset=utf-8",
            "the body is not JSON (text/html; charset=utf-8, 53 bytes: '<!doctype html>",
        ),
        (b"", None, "the body is not JSON (no Content-Type, 0 bytes: '')"),
        (b"[1, 2]", "application/json", "the body is JSON but not an object: '[1, 2]'"),
        (
            contract("created", key="sipp.pn-x:2/Pdt.G/2024/PN X"),
            "application/json",
            (
                "the answer names key 'sipp.pn-x:2/Pdt.G/2024/PN X', not "
                "'sipp.pn-x:1/Pdt.G/2024/PN X'"
            ),
        ),
        (
            contract("created", content_hash="sha256:" + "00" * 32),
            "application/json",
            f"the answer's content_hash 'sha256:{'00' * 32}' does not echo '{HASH}'",
        ),
        (contract("accepted"), "application/json", "unknown result 'accepted'"),
        (b'{"result": "created"}', "application/json", "the answer names key None"),
    ],
)
def test_any_other_2xx_is_a_failure_with_the_reason_never_a_success(
    body: bytes, content_type: str | None, reason: str
) -> None:
    for status in (200, 201, 204):
        verdict = classify(
            Answer(status, body, content_type=content_type), key=KEY, content_hash=HASH
        )
        assert verdict.kind.value == "endpoint"
        assert verdict.result is None
        assert verdict.error is not None
        assert verdict.error.startswith(f"answered {status} but not the ingest API's answer: ")
        assert reason in verdict.error


def test_the_breaker_opens_after_n_failed_in_a_row_and_a_success_resets_it() -> None:
    from harvest.shipping.policy import Breaker

    breaker = Breaker(3)
    assert [breaker.failed(), breaker.failed()] == [False, False]
    breaker.succeeded()
    assert [breaker.failed(), breaker.failed(), breaker.failed()] == [False, False, True]
    assert breaker.in_a_row == 3


def test_full_jitter_backoff_is_bounded_by_the_cap() -> None:
    import random

    policy = RetryPolicy(backoff_base=0.5, backoff_cap=4)
    rng = random.Random(1)
    waits = [policy.backoff(n, rng) for n in range(1, 60)]
    assert all(0 <= w <= 4 for w in waits)
    assert max(waits[:1]) <= 0.5
