"""The due policy of a refresh: which known cases are fetched again (docs/refresh.md).

Pure functions over what the item store holds for a case (its merged document) and the days
involved; nothing here reads a clock, a file or the network.

* A **closed** case (:func:`is_closed`) is never due by the policy: only a change of its list
  row brings it back (the planner checks that on every walk).
* An **open** case is due when a hearing date of its Jadwal Sidang lies in
  ``[last fetch day, today)`` (a hearing was held since the case was fetched: its outcome is
  new data), else when ``today >= last fetch day + clamp(quiet days, MIN, MAX)`` where *quiet
  days* = ``last fetch day - last change day``: a case that had been quiet for a long time when
  it was fetched is looked at again later (back-off), one that had just changed soon.
* **Last change day** (:func:`last_change_day`): the newest date, not after the last fetch
  day, that the case's own data shows: its registration date, the dates of its Riwayat
  Perkara, its hearings, its verdict and minutasi. The data, not the crawl, so that a first
  harvest of an old court already backs off on quiet cases.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "APPEAL_TABS",
    "DEFAULT_MAX_DAYS",
    "DEFAULT_MIN_DAYS",
    "CaseFacts",
    "Due",
    "case_facts",
    "due",
    "hearing_dates",
    "is_closed",
    "last_change_day",
]

DEFAULT_MIN_DAYS = 1
DEFAULT_MAX_DAYS = 30
#: Tabs of an appeal; one with a request (``pemohon``) and no verdict (``tanggal_putusan``)
#: keeps the case open.
APPEAL_TABS = ("banding", "kasasi", "pk")
#: A withdrawn appeal prints ``Permohonan ... Telah Dicabut Pada <date>`` (docs/item-format.md).
_WITHDRAWN = "dicabut"


@dataclass(frozen=True)
class CaseFacts:
    """What the policy needs of one known case."""

    #: the policy day of the generation that last fetched the case's detail (``None``: never)
    last_fetch: dt.date | None
    #: :func:`last_change_day`
    last_change: dt.date | None
    #: the hearing dates of its Jadwal Sidang
    hearings: tuple[dt.date, ...]
    #: :func:`is_closed`
    closed: bool


@dataclass(frozen=True)
class Due:
    """The policy's answer for one case: ``due`` and why (``reason``, for logs and status);
    ``next_day``: the first day it is due by back-off (``None`` when not by back-off)."""

    due: bool
    reason: str
    next_day: dt.date | None = None


def due(facts: CaseFacts, today: dt.date, *, min_days: int, max_days: int) -> Due:
    """Whether a known case is due on ``today`` (see the module docstring)."""
    if min_days < 1 or max_days < min_days:
        raise ValueError(
            f"refresh back-off needs 1 <= min_days <= max_days, got {min_days} and {max_days}"
        )
    if facts.closed:
        return Due(False, "closed")
    if facts.last_fetch is None:
        return Due(True, "never fetched")
    held = sorted(d for d in facts.hearings if facts.last_fetch <= d < today)
    if held:
        return Due(True, f"hearing {held[-1].isoformat()} held since the last fetch")
    quiet = (facts.last_fetch - facts.last_change).days if facts.last_change else max_days
    wait = min(max(quiet, min_days), max_days)
    next_day = facts.last_fetch + dt.timedelta(days=wait)
    if today >= next_day:
        return Due(True, f"back-off of {wait} days over", next_day)
    return Due(False, f"back-off of {wait} days: due on {next_day.isoformat()}", next_day)


def case_facts(
    case: Mapping[str, Any] | None, tabs: Mapping[str, Any], last_fetch: dt.date | None
) -> CaseFacts:
    """The facts of a case from its merged document's ``case`` and ``tabs``."""
    return CaseFacts(
        last_fetch=last_fetch,
        last_change=last_change_day(case, tabs, last_fetch),
        hearings=tuple(hearing_dates(tabs)),
        closed=is_closed(tabs),
    )


def is_closed(tabs: Mapping[str, Any]) -> bool:
    """Verdict and minutasi done, no appeal pending.

    Closed when the ``putusan`` tab has a ``tanggal_putusan`` and a ``tanggal_minutasi``, and
    no appeal tab (``banding``, ``kasasi``, ``pk``) shows a request (``pemohon`` with a row
    whose ``keterangan`` does not say it was withdrawn, ``Dicabut``) without its own
    ``tanggal_putusan``.
    """
    verdict = tabs.get("putusan")
    if not isinstance(verdict, Mapping):
        return False
    if not _date(verdict.get("tanggal_putusan")) or not _date(verdict.get("tanggal_minutasi")):
        return False
    for slug in APPEAL_TABS:
        appeal = tabs.get(slug)
        if not isinstance(appeal, Mapping):
            continue
        requests = [
            p
            for p in appeal.get("pemohon") or []
            if isinstance(p, Mapping) and _WITHDRAWN not in str(p.get("keterangan") or "").lower()
        ]
        if requests and not _date(appeal.get("tanggal_putusan")):
            return False
    return True


def hearing_dates(tabs: Mapping[str, Any]) -> list[dt.date]:
    """The dates of the Jadwal Sidang rows (``tanggal``), page order, unreadable ones left out."""
    rows = tabs.get("jadwal_sidang")
    if not isinstance(rows, list):
        return []
    return [d for d in (_date(r.get("tanggal")) for r in rows if isinstance(r, Mapping)) if d]


def last_change_day(
    case: Mapping[str, Any] | None, tabs: Mapping[str, Any], not_after: dt.date | None
) -> dt.date | None:
    """The newest date the case's data shows, not after ``not_after`` (the last fetch day; a
    hearing scheduled for later is no change yet): registration (``list_row.tanggal_register``),
    Riwayat Perkara, Jadwal Sidang, the verdict and the minutasi."""
    found: list[dt.date] = []
    if isinstance(case, Mapping) and isinstance(case.get("list_row"), Mapping):
        found += _dates([case["list_row"].get("tanggal_register")])
    history = tabs.get("riwayat_perkara")
    if isinstance(history, list):
        found += _dates(r.get("tanggal") for r in history if isinstance(r, Mapping))
    found += hearing_dates(tabs)
    verdict = tabs.get("putusan")
    if isinstance(verdict, Mapping):
        found += _dates([verdict.get("tanggal_putusan"), verdict.get("tanggal_minutasi")])
    if not_after is not None:
        found = [d for d in found if d <= not_after]
    return max(found, default=None)


def _dates(values: Iterable[Any]) -> list[dt.date]:
    return [d for d in (_date(v) for v in values) if d]


def _date(value: Any) -> dt.date | None:
    if not isinstance(value, str) or len(value) != 10:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None
