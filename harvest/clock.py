"""The one clock: UTC wall time, and the one text form every stored or logged time takes.

Every time the project writes (request state, events and runs, the item store, the ship-log, the
crawl and ship lock holders, ``scrapy requeue --older-than``) is :func:`format_utc` text:
``2026-11-30T01:02:03.456Z``, UTC with milliseconds. It sorts as text in time order, so a
comparison in SQL (``updated_at < ?``) is a comparison of times.

Imports nothing of the project (a base module: see ``[tool.importlinter]`` in pyproject.toml).
"""

from __future__ import annotations

import datetime as dt
import time

__all__ = ["format_utc", "utc_now"]


def format_utc(moment: float | dt.datetime) -> str:
    """``moment`` (seconds since the epoch, or an aware datetime) as ``YYYY-MM-DDTHH:MM:SS.mmmZ``.

    Milliseconds are truncated, never rounded up: a time is never written later than it was.
    """
    if isinstance(moment, dt.datetime):
        if moment.tzinfo is None:
            raise ValueError(f"format_utc needs an aware datetime (tzinfo=UTC), got {moment!r}")
        when = moment.astimezone(dt.UTC)
    else:
        when = dt.datetime.fromtimestamp(moment, dt.UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def utc_now() -> str:
    """The current UTC time as :func:`format_utc` text."""
    return format_utc(time.time())
