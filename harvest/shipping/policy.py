"""Retry and back-off policy: what an answer means (the contract table), waits, the breaker.

:func:`classify` maps one answer to a :class:`Verdict` (docs/shipping.md, "What is retried").
A 2xx counts as delivered only when it is the ingest contract's answer: a JSON object whose
``key`` is the document's dedupe key, whose ``content_hash`` echoes the document's hash and
whose ``result`` is ``created``, ``updated``, ``unchanged`` or ``stale``. Any other 2xx (an HTML
login page, a default virtual host, a proxy's page) is a failure with the reason, and the
endpoint is retired for the run like one answering 404.
"""

from __future__ import annotations

import enum
import json
import math
import random
import threading
from dataclasses import dataclass
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Any

from harvest.shipping.errors import ConfigError
from harvest.shipping.transport import Answer

__all__ = [
    "Breaker",
    "Kind",
    "RetryPolicy",
    "Verdict",
    "classify",
    "parse_retry_after",
    "problem_text",
]

DEFAULT_MAX_ATTEMPTS = 6
DEFAULT_MAX_ITEM_SECONDS = 300.0
DEFAULT_BACKOFF_BASE = 0.5
DEFAULT_BACKOFF_CAP = 30.0
DEFAULT_RETRY_AFTER_CAP = 300.0
DEFAULT_BREAKER = 5

#: The ``result`` values of the ingest contract's success answer.
RESULTS = ("created", "updated", "unchanged", "stale")


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds of the per-document retry loop and the run-level breaker.

    ``max_attempts`` attempts and ``max_item_seconds`` per document; full-jitter exponential
    backoff ``U(0, min(backoff_cap, backoff_base * 2**(n-1)))`` before retry ``n``; a
    ``Retry-After`` is waited out (plus ``U(0, backoff_base)``) when at most ``retry_after_cap``,
    and stops the run otherwise; ``breaker`` documents failing in a row stop the run.
    """

    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    max_item_seconds: float = DEFAULT_MAX_ITEM_SECONDS
    backoff_base: float = DEFAULT_BACKOFF_BASE
    backoff_cap: float = DEFAULT_BACKOFF_CAP
    retry_after_cap: float = DEFAULT_RETRY_AFTER_CAP
    breaker: int = DEFAULT_BREAKER

    def __post_init__(self) -> None:
        for name in ("max_attempts", "breaker"):
            if getattr(self, name) < 1:
                raise ConfigError(f"--{name.replace('_', '-')} must be at least 1")
        for name in ("max_item_seconds", "backoff_base", "backoff_cap", "retry_after_cap"):
            value = getattr(self, name)
            if not (value >= 0 and math.isfinite(value)):
                raise ConfigError(f"--{name.replace('_', '-')} must be a number >= 0")

    def backoff(self, retry: int, rng: random.Random) -> float:
        """Full-jitter sleep before retry number ``retry`` (1 for the first retry)."""
        ceiling = min(self.backoff_cap, self.backoff_base * 2.0 ** min(retry - 1, 60))
        return rng.uniform(0.0, ceiling)


class Breaker:
    """Counts documents ``failed`` in a row (in the order they finish); thread-safe."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_a_row = 0
        self._lock = threading.Lock()

    def failed(self) -> bool:
        """Note a failed document; True when the breaker opens (the run must stop)."""
        with self._lock:
            self.in_a_row += 1
            return self.in_a_row >= self.limit

    def succeeded(self) -> None:
        with self._lock:
            self.in_a_row = 0


class Kind(enum.Enum):
    SHIPPED = "shipped"
    DUPLICATE = "duplicate"
    STALE = "stale"
    REJECT = "reject"
    AUTH = "auth"
    RETRY = "retry"
    ENDPOINT = "endpoint"
    CLIENT_BUG = "client-bug"


@dataclass(frozen=True)
class Verdict:
    kind: Kind
    result: str | None = None
    error: str | None = None
    retry_after: str | None = None


def problem_text(body: bytes) -> str:
    """A short text of an RFC 9457 problem body (title/detail and each ``errors`` entry)."""
    try:
        problem = json.loads(body)
    except ValueError:
        return body[:200].decode("utf-8", "replace")
    if not isinstance(problem, dict):
        return str(problem)[:200]
    text = str(problem.get("detail") or problem.get("title") or "")
    errors = problem.get("errors")
    if isinstance(errors, list) and errors:
        parts = [
            f"{e.get('pointer', '?')} {e.get('detail', '')}".strip()
            for e in errors
            if isinstance(e, dict)
        ]
        text = f"{text}: {'; '.join(parts)}" if text else "; ".join(parts)
    return text


def _not_the_contract(answer: Answer, key: str, content_hash: str) -> str | None:
    """Why a 2xx answer is not the ingest contract's success answer for this document."""
    try:
        payload: Any = json.loads(answer.body)
    except ValueError:
        head = answer.body[:80].decode("utf-8", "replace").split("\n")[0]
        kind = answer.content_type or "no Content-Type"
        return f"the body is not JSON ({kind}, {len(answer.body)} bytes: {head!r})"
    if not isinstance(payload, dict):
        return f"the body is JSON but not an object: {str(payload)[:80]!r}"
    if payload.get("key") != key:
        return f"the answer names key {payload.get('key')!r}, not {key!r}"
    if payload.get("content_hash") != content_hash:
        return (
            f"the answer's content_hash {payload.get('content_hash')!r} does not echo "
            f"{content_hash!r}"
        )
    if payload.get("result") not in RESULTS:
        return f"unknown result {payload.get('result')!r}"
    return None


def classify(answer: Answer, *, key: str = "", content_hash: str = "") -> Verdict:
    """What an answer to the POST of (``key``, ``content_hash``) means under the contract."""
    status = answer.status
    if 200 <= status < 300:
        wrong = _not_the_contract(answer, key, content_hash)
        if wrong is not None:
            return Verdict(
                Kind.ENDPOINT,
                error=f"answered {status} but not the ingest API's answer: {wrong}",
            )
        result = json.loads(answer.body)["result"]
        if result == "unchanged":
            return Verdict(Kind.DUPLICATE, result=result)
        if result == "stale":
            return Verdict(Kind.STALE, result=result)
        return Verdict(Kind.SHIPPED, result=result)
    if status in (401, 403):
        return Verdict(Kind.AUTH, error=f"{status} {problem_text(answer.body)}".strip())
    if status in (408, 409, 425, 429) or status >= 500:
        return Verdict(
            Kind.RETRY,
            error=f"{status} {problem_text(answer.body)}".strip(),
            retry_after=answer.retry_after,
        )
    if 300 <= status < 400:
        return Verdict(
            Kind.ENDPOINT,
            error=f"answered {status} (redirect to {answer.location or '?'}); POSTs are never "
            "redirected: point the endpoint at the new address",
        )
    if status in (404, 405, 410, 421):
        return Verdict(
            Kind.ENDPOINT, error=f"answered {status} to POST /items: not an ingest API there"
        )
    if status in (411, 415):
        return Verdict(Kind.CLIENT_BUG, error=f"{status} {problem_text(answer.body)}".strip())
    if 400 <= status < 500:
        return Verdict(Kind.REJECT, error=f"{status} {problem_text(answer.body)}".strip())
    return Verdict(Kind.RETRY, error=f"unexpected status {status}")


def parse_retry_after(value: str | None, *, now: float) -> float | None:
    """Seconds to wait for a ``Retry-After`` (delay-seconds or HTTP-date); None if absent/bad."""
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return max(0.0, when.timestamp() - now)
    return max(0.0, seconds) if math.isfinite(seconds) else None
