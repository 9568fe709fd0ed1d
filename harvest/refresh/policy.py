"""The due policy of a refresh: which known cases are fetched again (docs/refresh.md).

Pure functions over what the item store holds for a case (its merged document) and the days
involved; nothing here reads a clock, a file or the network.

* A **closed** case (:func:`is_closed`: verdict and minutasi done, no appeal pending) keeps the
  back-off below while the post-verdict steps its documents show are pending
  (:func:`pending_steps`: a notice, a verdict copy, Barang Bukti, a grasi file without its
  date, an appeal period not over) and it has not been quiet for ``MAX`` days; once either
  ends it is *settled*: only a change of its list row brings it back (the planner checks that
  on every walk).
* An **open** case is due when a hearing date of its Jadwal Sidang lies in
  ``[last fetch day, today)`` (a hearing was held since the case was fetched: its outcome is
  new data), else when ``today >= last fetch day + clamp(quiet days, MIN, MAX)`` where *quiet
  days* = ``last fetch day - last change day``: a case that had been quiet for a long time when
  it was fetched is looked at again later (back-off), one that had just changed soon.
* **Last change day** (:func:`last_change_day`): the newest date, not after the last fetch
  day, that the case's own data shows anywhere (registration, Riwayat Perkara, hearings,
  verdict, minutasi, notices, appeals, Barang Bukti, ...). The data, not the crawl, so that a
  first harvest of an old court already backs off on quiet cases.
* Every answer has a ``kind`` (:data:`KINDS`) for ``scrapy status``: ``hearing``,
  ``back-off``, ``post-verdict`` (a closed case's back-off), ``never-fetched``; not due:
  ``waiting`` (in its back-off) or ``settled``.
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
    "DEFAULT_STEP_DAYS",
    "KINDS",
    "CaseFacts",
    "Due",
    "appeal_pending",
    "case_facts",
    "due",
    "hearing_dates",
    "is_closed",
    "last_change_day",
    "pending_steps",
]

#: The back-off's bounds in days (``HARVEST_REFRESH_MIN_DAYS``, ``HARVEST_REFRESH_MAX_DAYS``,
#: read by :class:`harvest.refresh.planner.RefreshConfig`; harvest/settings.py has no line for
#: them): an open case is due again ``clamp(quiet days, MIN, MAX)`` days after its last fetch.
DEFAULT_MIN_DAYS = 1
DEFAULT_MAX_DAYS = 30
#: The longest back-off of a case whose documents show a step still to come (a closed case's
#: post-verdict step, an open case's appeal before the higher court).
DEFAULT_STEP_DAYS = 7
#: Tabs of an appeal; one with a request (``pemohon``) and no verdict (``tanggal_putusan``)
#: keeps the case open.
APPEAL_TABS = ("banding", "kasasi", "pk")
#: A withdrawn appeal prints ``Permohonan ... Telah Dicabut Pada <date>`` (docs/item-format.md).
_WITHDRAWN = "dicabut"
#: Tabs whose undated steps keep a closed case's back-off going (:func:`pending_steps`).
POST_VERDICT_TABS = ("putusan", "barang_bukti", "grasi", *APPEAL_TABS)
#: Days after a verdict during which an appeal may still be lodged (KUHAP art. 233: 7 days
#: for banding in criminal cases; 14 days in civil ones and for kasasi): the longest counts.
APPEAL_PERIOD_DAYS = 14
#: ``Due.kind`` values: why a case is due, or why not.
KINDS = ("hearing", "back-off", "post-verdict", "never-fetched", "waiting", "settled")


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
    #: :func:`pending_steps` (only looked at for a closed case)
    pending: tuple[str, ...] = ()
    #: an appeal lodged and not decided yet (:func:`appeal_pending`)
    appeal_pending: bool = False


@dataclass(frozen=True)
class Due:
    """The policy's answer for one case: ``due`` and why (``reason``, for logs and status;
    ``kind``, one of :data:`KINDS`); ``next_day``: the first day it is due by back-off
    (``None`` when not by back-off)."""

    due: bool
    reason: str
    next_day: dt.date | None = None
    kind: str = ""


def due(
    facts: CaseFacts,
    today: dt.date,
    *,
    min_days: int,
    max_days: int,
    step_days: int = DEFAULT_STEP_DAYS,
) -> Due:
    """Whether a known case is due on ``today`` (see the module docstring)."""
    if min_days < 1 or max_days < min_days or step_days < 1:
        raise ValueError(
            f"refresh back-off needs 1 <= min_days <= max_days and step_days >= 1, got "
            f"{min_days}, {max_days} and {step_days}"
        )
    if facts.last_fetch is None:
        return Due(True, "never fetched", kind="never-fetched")
    quiet = (facts.last_fetch - facts.last_change).days if facts.last_change else max_days
    if facts.closed:
        if not facts.pending:
            return Due(False, "closed, post-verdict steps done", kind="settled")
        if quiet >= max_days:
            return Due(False, f"closed, quiet for {quiet} days", kind="settled")
        wait = min(max(quiet, min_days), max_days, max(step_days, min_days))
        next_day = facts.last_fetch + dt.timedelta(days=wait)
        step = facts.pending[0]
        if today >= next_day:
            return Due(True, f"post-verdict step pending ({step}), back-off of {wait} days over",
                       next_day, kind="post-verdict")  # fmt: skip
        return Due(False, f"post-verdict step pending ({step}): due on {next_day.isoformat()}",
                   next_day, kind="waiting")  # fmt: skip
    held = sorted(d for d in facts.hearings if facts.last_fetch <= d < today)
    if held:
        return Due(True, f"hearing {held[-1].isoformat()} held since the last fetch",
                   kind="hearing")  # fmt: skip
    wait = min(max(quiet, min_days), max_days)
    if facts.appeal_pending:
        wait = min(wait, max(step_days, min_days))
    next_day = facts.last_fetch + dt.timedelta(days=wait)
    if today >= next_day and facts.appeal_pending:
        return Due(True, f"appeal pending, back-off of {wait} days over", next_day,
                   kind="post-verdict")  # fmt: skip
    if today >= next_day:
        return Due(True, f"back-off of {wait} days over", next_day, kind="back-off")
    return Due(False, f"back-off of {wait} days: due on {next_day.isoformat()}", next_day,
               kind="waiting")  # fmt: skip


def case_facts(
    case: Mapping[str, Any] | None, tabs: Mapping[str, Any], last_fetch: dt.date | None
) -> CaseFacts:
    """The facts of a case from its merged document's ``case`` and ``tabs``."""
    closed = is_closed(tabs)
    return CaseFacts(
        last_fetch=last_fetch,
        last_change=last_change_day(case, tabs, last_fetch),
        hearings=tuple(hearing_dates(tabs)),
        closed=closed,
        pending=tuple(pending_steps(tabs, last_fetch)) if closed else (),
        appeal_pending=appeal_pending(tabs),
    )


def pending_steps(tabs: Mapping[str, Any], last_fetch: dt.date | None) -> list[str]:
    """The post-verdict steps a case's documents show as not done yet, as dotted paths.

    * every date field (a key ``tanggal`` or ``tanggal_*``) left empty in a post-verdict tab
      (:data:`POST_VERDICT_TABS`: the verdict's notices and copies, Barang Bukti handed over,
      a grasi file sent, an appeal's notices), e.g. ``putusan.pemberitahuan_putusan.tanggal``;
    * ``appeal period``: the verdict is less than :data:`APPEAL_PERIOD_DAYS` days older than
      the last fetch (an appeal may still come).
    """
    found: list[str] = []
    for slug in POST_VERDICT_TABS:
        if slug in tabs:
            _empty_dates(tabs[slug], slug, found)
    verdict = tabs.get("putusan")
    day = _date(verdict.get("tanggal_putusan")) if isinstance(verdict, Mapping) else None
    if day and last_fetch and (last_fetch - day).days < APPEAL_PERIOD_DAYS:
        found.append("appeal period")
    return sorted(set(found), key=found.index)


def _empty_dates(value: Any, path: str, found: list[str]) -> None:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            if (key == "tanggal" or key.startswith("tanggal_")) and inner in (None, ""):
                found.append(f"{path}.{key}")
            else:
                _empty_dates(inner, f"{path}.{key}", found)
    elif isinstance(value, list):
        for inner in value:
            _empty_dates(inner, path, found)


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
    return not appeal_pending(tabs)


def appeal_pending(tabs: Mapping[str, Any]) -> bool:
    """An appeal tab (``banding``, ``kasasi``, ``pk``) shows a request (``pemohon`` with a row
    whose ``keterangan`` does not say it was withdrawn, ``Dicabut``) without its own
    ``tanggal_putusan``: the higher court has not decided yet."""
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
            return True
    return False


def hearing_dates(tabs: Mapping[str, Any]) -> list[dt.date]:
    """The dates of the Jadwal Sidang rows (``tanggal``), page order, unreadable ones left out."""
    rows = tabs.get("jadwal_sidang")
    if not isinstance(rows, list):
        return []
    return [d for d in (_date(r.get("tanggal")) for r in rows if isinstance(r, Mapping)) if d]


def last_change_day(
    case: Mapping[str, Any] | None, tabs: Mapping[str, Any], not_after: dt.date | None
) -> dt.date | None:
    """The newest date the case's data shows anywhere (the ``case`` part, every tab), not
    after ``not_after`` (the last fetch day; a hearing scheduled for later is no change yet):
    registration, Riwayat Perkara, Jadwal Sidang, verdict, minutasi, notices, appeals,
    Barang Bukti, ..."""
    found: list[dt.date] = []
    _all_dates(case, found)
    _all_dates(tabs, found)
    if not_after is not None:
        found = [d for d in found if d <= not_after]
    return max(found, default=None)


def _all_dates(value: Any, found: list[dt.date]) -> None:
    if isinstance(value, str):
        day = _date(value)
        if day:
            found.append(day)
    elif isinstance(value, Mapping):
        for inner in value.values():
            _all_dates(inner, found)
    elif isinstance(value, list):
        for inner in value:
            _all_dates(inner, found)


def _dates(values: Iterable[Any]) -> list[dt.date]:
    return [d for d in (_date(v) for v in values) if d]


def _date(value: Any) -> dt.date | None:
    if not isinstance(value, str) or len(value) != 10:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None
