"""The one clock: UTC wall time, and the one text form every stored or logged time takes.

Every time the project writes (request state, events and runs, the item store, the ship-log, the
crawl and ship lock holders, ``scrapy requeue --older-than``) is :func:`format_utc` text:
``2026-11-30T01:02:03.456Z``, UTC with milliseconds. It sorts as text in time order, so a
comparison in SQL (``updated_at < ?``) is a comparison of times.

Imports nothing of the project (a base module: see ``[tool.importlinter]`` in pyproject.toml).
"""

from __future__ import annotations

import datetime as dt
import math
import time

__all__ = ["format_utc", "utc_now"]


def format_utc(moment: float | dt.datetime) -> str:
    """``moment`` (seconds since the epoch, or an aware datetime) as ``YYYY-MM-DDTHH:MM:SS.mmmZ``.

    Milliseconds are truncated, never rounded up: a time is never written later than it was.
    A number is split into whole seconds and microseconds exactly as
    ``datetime.fromtimestamp`` rounds it (half to even), and the text of its second is kept
    from the previous call in the same second (a crawl formats the same second many times): the
    text equals ``datetime.fromtimestamp(moment, UTC).strftime(...)`` (tested).
    """
    if isinstance(moment, dt.datetime):
        if moment.tzinfo is None:
            raise ValueError(f"format_utc needs an aware datetime (tzinfo=UTC), got {moment!r}")
        when = moment.astimezone(dt.UTC)
        return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"
    fraction, whole = math.modf(moment)
    micros = round(fraction * 1e6)
    second = int(whole)
    if micros >= 1_000_000:
        second += 1
        micros -= 1_000_000
    elif micros < 0:
        second -= 1
        micros += 1_000_000
    cached = _second
    if cached[0] != second:
        text = dt.datetime.fromtimestamp(second, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.")
        cached = _cache_second(second, text)
    return f"{cached[1]}{micros // 1000:03d}Z"


#: The last second :func:`format_utc` wrote, and its text (one tuple: replaced atomically).
_second: tuple[int | None, str] = (None, "")


def _cache_second(second: int, text: str) -> tuple[int, str]:
    global _second
    _second = (second, text)
    return _second


def utc_now() -> str:
    """The current UTC time as :func:`format_utc` text."""
    return format_utc(time.time())
