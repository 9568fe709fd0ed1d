"""``scrapy status --check``: the alert thresholds a cron job or a scrapyd schedule tests.

Each court is checked against three thresholds (docs/status.md, "Alerts"):

* ``--max-paused MINUTES`` (default 0): a court paused (down, refusing, 5xx for a whole attempt
  budget; docs/multi-court.md) for longer than this fails; with 0 any paused court fails.
* ``--max-error-share FRACTION`` (default 0.1): failed requests over the court's ended requests
  (ok + failed) above this fails.
* ``--max-warnings-per-page N`` (default 0.5): the parse warnings the court's pages carry (what
  the parsers kept generically: an unknown label, an unexpected table) over its ok pages above
  this fails: the court's template changed.

Pure: the status command gathers the numbers, :func:`failures` names what fails.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

__all__ = ["Thresholds", "failures"]


class _Court(Protocol):
    @property
    def court(self) -> str: ...

    @property
    def ok(self) -> int: ...

    @property
    def error(self) -> int: ...


class _Pause(Protocol):
    @property
    def court(self) -> str: ...

    @property
    def paused_at(self) -> str: ...

    @property
    def paused_until(self) -> str: ...

    @property
    def pause_reason(self) -> str: ...

    @property
    def pause_count(self) -> int: ...


@dataclasses.dataclass(frozen=True)
class Thresholds:
    max_paused_minutes: float = 0.0
    max_error_share: float = 0.1
    max_warnings_per_page: float = 0.5


def _when(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


def failures(
    thresholds: Thresholds,
    courts: Sequence[_Court],
    pauses: Iterable[_Pause],
    warnings: Iterable[Mapping[str, Any]],
    *,
    now: dt.datetime,
) -> list[dict[str, Any]]:
    """Every threshold a court exceeds: ``{"court", "check", "value", "limit", "message"}``."""
    out: list[dict[str, Any]] = []
    for p in pauses:
        minutes = (now - _when(p.paused_at)).total_seconds() / 60.0
        if minutes > thresholds.max_paused_minutes or thresholds.max_paused_minutes == 0:
            out.append(
                {
                    "court": p.court,
                    "check": "paused",
                    "value": round(minutes, 1),
                    "limit": thresholds.max_paused_minutes,
                    "message": (
                        f"court {p.court} paused for {minutes:.1f} min (pause {p.pause_count} in "
                        f"a row: {p.pause_reason}); tried again at {p.paused_until}"
                    ),
                }
            )
    per_court: dict[str, int] = {}
    for w in warnings:
        per_court[str(w["court"])] = per_court.get(str(w["court"]), 0) + int(w["count"])
    for c in courts:
        ended = c.ok + c.error
        share = c.error / ended if ended else 0.0
        if share > thresholds.max_error_share:
            out.append(
                {
                    "court": c.court,
                    "check": "error_share",
                    "value": round(share, 4),
                    "limit": thresholds.max_error_share,
                    "message": (
                        f"court {c.court}: {c.error} of {ended} ended requests failed "
                        f"({100 * share:.1f}% > {100 * thresholds.max_error_share:g}%)"
                    ),
                }
            )
        warned = per_court.get(c.court, 0)
        per_page = warned / c.ok if c.ok else 0.0
        if per_page > thresholds.max_warnings_per_page:
            out.append(
                {
                    "court": c.court,
                    "check": "warnings_per_page",
                    "value": round(per_page, 4),
                    "limit": thresholds.max_warnings_per_page,
                    "message": (
                        f"court {c.court}: {warned} parse warnings on {c.ok} ok pages "
                        f"({per_page:.2f} per page > {thresholds.max_warnings_per_page:g}): "
                        "its pages changed (scrapy status lists the labels)"
                    ),
                }
            )
    return out
