"""Exit statuses, ship-log outcomes, the expected errors of a run, and token scrubbing."""

from __future__ import annotations

import enum
import logging
import re
from typing import ClassVar

from harvest.base.scrubbing import TOKEN_MASK, token_pattern

__all__ = [
    "SHIPPED_OUTCOMES",
    "AuthError",
    "BreakerOpen",
    "ConfigError",
    "EndpointUnusable",
    "ExitStatus",
    "Interrupted",
    "Outcome",
    "RetryAfterTooLong",
    "Scrubber",
    "ShipError",
    "ShipLogError",
    "TempFail",
    "UsageError",
    "WorkspaceLocked",
]

#: Longest ``error`` text of a ship-log line.
MAX_ERROR_CHARS = 500


class ExitStatus(enum.IntEnum):
    """Exit codes of ``ship.py`` (sysexits.h numbers where one fits)."""

    OK = 0  #: every document was shipped, found unchanged or stale, or skipped (already shipped)
    SOME_FAILED = 1  #: the run finished, but some documents were rejected or failed
    USAGE = 64  #: bad command line
    IOERR = 74  #: the ship-log or its lock cannot be written (disk full, permissions)
    TEMPFAIL = 75  #: stopped early, try again later: breaker, Retry-After too long, locked
    NOPERM = 77  #: the ingest API refused the token (401/403)
    CONFIG = 78  #: configuration: endpoint, token, workspace, or an endpoint that is no API
    INTERRUPTED = 130  #: SIGINT/SIGTERM
    SOFTWARE = 70  #: an unexpected error (a bug): its traceback is logged, scrubbed


class Outcome(enum.StrEnum):
    """The ``outcome`` of one ship-log line."""

    OK = "ok"  #: 201 created / 200 updated (final)
    SKIPPED_DUPLICATE = "skipped-duplicate"  #: 200 unchanged (final)
    STALE = "stale"  #: 200 stale: the server holds a newer version of the key (final)
    REJECTED = "rejected"  #: 400/413/422/other 4xx, or invalid before sending (final)
    RETRY = "retry"  #: a transient failure; another attempt follows (not final)
    FAILED = "failed"  #: transient failures until the attempts or time ran out (final)
    AUTH_FAILED = "auth-failed"  #: 401/403; the run stops (final)
    ABORTED = "aborted"  #: the run stopped while this document was being sent (final)


#: Outcomes whose final line means "the server has decided on this content": the skip rule.
SHIPPED_OUTCOMES = frozenset({Outcome.OK, Outcome.SKIPPED_DUPLICATE, Outcome.STALE})


class ShipError(Exception):
    """An expected reason to stop; ``main`` maps it to ``exit_status`` and prints the message."""

    exit_status: ClassVar[ExitStatus] = ExitStatus.CONFIG


class UsageError(ShipError):
    exit_status = ExitStatus.USAGE


class ConfigError(ShipError):
    """A setting (option, environment variable, workspace) that cannot work."""

    exit_status = ExitStatus.CONFIG


class EndpointUnusable(ConfigError):
    """Every endpoint answered like something that is not this ingest API (3xx, 404, HTML...)."""


class AuthError(ShipError):
    exit_status = ExitStatus.NOPERM


class TempFail(ShipError):
    """The run stopped early; what is left stays pending for the next run."""

    exit_status = ExitStatus.TEMPFAIL


class WorkspaceLocked(TempFail):
    """Another ``ship.py`` holds the workspace's ship-log lock."""


class BreakerOpen(TempFail):
    """Too many documents in a row failed after all their retries."""


class RetryAfterTooLong(TempFail):
    """The server asked to wait longer than ``--retry-after-cap``."""


class ShipLogError(ShipError):
    exit_status = ExitStatus.IOERR


class Interrupted(ShipError):
    exit_status = ExitStatus.INTERRUPTED


class Scrubber(logging.Filter):
    """Replaces the token (as is, and percent-encoded) by ``<token>`` in any text.

    Only whole occurrences: one inside a longer run of letters and digits (the token ``abc123``
    in ``xabc1234``) is another word and stays, so no message is garbled by a partial match.

    Used on every path a server's text can take: ship-log ``error`` members (:meth:`clip`), the
    messages of raised errors, and, as a logging filter on ship.py's handler, every log record.
    """

    def __init__(self, secret: str | None = None) -> None:
        super().__init__()
        self.forms: tuple[str, ...] = ()
        self._pattern: re.Pattern[str] | None = None
        self.set(secret)

    def set(self, secret: str | None) -> None:
        if not secret:
            self.forms = ()
            self._pattern = None
            return
        self.forms, self._pattern = token_pattern(secret)

    def __call__(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(TOKEN_MASK, text)

    def clip(self, text: str | None) -> str | None:
        """``text`` scrubbed and cut to at most :data:`MAX_ERROR_CHARS` characters."""
        if text is None:
            return None
        text = self(text)
        return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"

    def filter(self, record: logging.LogRecord) -> bool:
        if self.forms:
            message = record.getMessage()
            scrubbed = self(message)
            if record.exc_info and record.exc_info[1] is not None:
                record.exc_text = self(logging.Formatter().formatException(record.exc_info))
                record.exc_info = None
            if scrubbed != message:
                record.msg, record.args = scrubbed, None
        return True
