"""``scrapy export --changed-since TIME|GENERATION``: which documents changed since a point.

A document changed since a time when it was created or its content changed at or after it
(its ``cases.updated_at``, the ``version`` the shipper sends; a re-fetch that found the same
data does not move it). A generation number ``N`` stands for the time refresh generation ``N``
of each court began (``scrapy status`` lists them): the documents that generation, or anything
after it, created or changed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from harvest.base.clock import format_utc

__all__ = ["ChangedSince", "ChangedSinceError", "parse_time"]


class ChangedSinceError(ValueError):
    """A ``--changed-since`` value that names no time or no generation."""


class _Generation(Protocol):
    @property
    def court(self) -> str: ...

    @property
    def number(self) -> int: ...

    @property
    def started_at(self) -> str: ...


def parse_time(value: str) -> str:
    """An ISO 8601 time or date (UTC unless it has an offset) as :mod:`harvest.base.clock` text."""
    text = value.strip()
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError as exc:
        raise ChangedSinceError(
            f"--changed-since {value!r}: not a time (2026-11-30, 2026-11-30T01:02:03Z) "
            "nor a generation number"
        ) from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return format_utc(moment)


def _millis(text: str) -> int:
    moment = dt.datetime.fromisoformat(text)
    return int(moment.timestamp() * 1000)


@dataclass(frozen=True)
class ChangedSince:
    """The threshold per court (``None`` key: every court)."""

    thresholds: Mapping[str | None, str] = field(default_factory=dict)

    @classmethod
    def at(cls, time: str) -> ChangedSince:
        return cls({None: time})

    @classmethod
    def of_generation(cls, number: int, generations: Sequence[_Generation]) -> ChangedSince:
        found: dict[str | None, str] = {
            g.court: g.started_at for g in generations if g.number == number
        }
        if not found:
            known = sorted({g.number for g in generations})
            raise ChangedSinceError(
                f"--changed-since {number}: no court has generation {number} (known: "
                f"{', '.join(map(str, known)) or 'none'})"
            )
        return cls(found)

    @property
    def earliest(self) -> str:
        return min(self.thresholds.values())

    def select(
        self, documents: Iterable[Mapping[str, Any]], *, keep_version: bool
    ) -> Iterator[Mapping[str, Any]]:
        """The documents (read with ``versions=True``) changed since their court's threshold;
        documents of a court without one are left out."""
        millis = {court: _millis(time) for court, time in self.thresholds.items()}
        for document in documents:
            court = document["source_type"].removeprefix("sipp.")
            threshold = millis.get(court, millis.get(None))
            if threshold is None or document["version"] < threshold:
                continue
            if keep_version:
                yield document
            else:
                yield {k: v for k, v in document.items() if k != "version"}
