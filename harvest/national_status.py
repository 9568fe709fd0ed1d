"""The national view of ``scrapy status``: every registered court with its access and progress.

For each court registered in the state (``scrapy courts add``): the directory's facts (kind,
province, ...), its access by its last check (``scrapy courts check``) and why, whether it is
crawled, its cases complete / listed, its pace (pages a minute between its first and last page
fetched), its last page fetched and its failed requests by reason. :func:`national_courts`
reads them (one snapshot, with the rest of ``scrapy status``); :func:`render_national` is the
HTML section of the status page (pure; no script). docs/national.md.
"""

from __future__ import annotations

import dataclasses
import html
from collections import Counter, defaultdict
from datetime import datetime
from typing import TYPE_CHECKING, Any

from extensions.state_queries import reason_group
from harvest.court_check import ADVICE, CRAWLED
from harvest.courts import kind_of

if TYPE_CHECKING:
    from collections.abc import Sequence

    from extensions.state_queries import CourtProgress, StateReader
    from extensions.store import CourtRecord

__all__ = ["NationalCourt", "national_courts", "render_national"]

#: The access of a court never checked.
UNCHECKED = "unchecked"
_ACCESS_CLASS = {
    "ok": "a-ok", "redirected": "a-ok", "challenge": "a-warn", UNCHECKED: "a-none",
}  # fmt: skip


@dataclasses.dataclass(frozen=True)
class NationalCourt:
    """One registered court as the national status shows it."""

    court_id: str
    kind: str | None
    name: str | None
    city: str | None
    province: str | None
    high_court: str | None
    base_url: str
    effective_base_url: str | None
    access: str
    http_status: int | None
    reason: str | None
    checked_at: str | None
    crawled: bool
    advice: str | None
    cases_listed: int
    cases_complete: int
    requests_ok: int
    requests_waiting: int
    requests_failed: int
    pace_per_minute: float | None
    last_fetched_at: str | None
    failures: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _pace(n: int, first: str | None, last: str | None) -> float | None:
    if n < 2 or not first or not last:
        return None
    span = (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()
    return round(60.0 * (n - 1) / span, 1) if span > 0 else None


def national_courts(
    conn: StateReader, registered: Sequence[CourtRecord], progress: Sequence[CourtProgress]
) -> list[NationalCourt]:
    """The registered courts (in their order) with their progress, read from ``conn``."""
    if not registered:
        return []
    by_court = {p.court: p for p in progress}
    failures: dict[str, Counter[str]] = defaultdict(Counter)
    for court, reason, n in conn.execute(
        "SELECT court, last_error, count(*) FROM requests WHERE status = 'error' "
        "GROUP BY court, last_error"
    ):
        failures[str(court)][reason_group(reason)] += int(n)
    fetched: dict[str, tuple[int, str | None, str | None]] = {}
    for court, n, first, last in conn.execute(
        "SELECT court, count(*), min(succeeded_at), max(succeeded_at) FROM requests "
        "WHERE status = 'ok' AND succeeded_at IS NOT NULL GROUP BY court"
    ):
        fetched[str(court)] = (int(n), first, last)
    out = []
    for r in registered:
        p = by_court.get(r.court)
        n, first, last = fetched.get(r.court, (0, None, None))
        access = r.access or UNCHECKED
        crawled = r.access is None or r.access in CRAWLED
        out.append(
            NationalCourt(
                court_id=r.court,
                kind=r.kind or kind_of(r.court),
                name=r.name,
                city=r.city,
                province=r.province,
                high_court=r.high_court,
                base_url=r.base_url,
                effective_base_url=r.effective_base_url,
                access=access,
                http_status=r.http_status,
                reason=r.reason,
                checked_at=r.checked_at,
                crawled=crawled,
                advice=None if crawled else ADVICE.get(access),
                cases_listed=p.cases_known if p else 0,
                cases_complete=p.cases_complete if p else 0,
                requests_ok=p.ok if p else 0,
                requests_waiting=p.waiting if p else 0,
                requests_failed=p.error if p else 0,
                pace_per_minute=_pace(n, first, last),
                last_fetched_at=last,
                failures=dict(sorted(failures.get(r.court, Counter()).items())),
            )
        )
    return out


def _e(value: object) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _slug(court_id: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in court_id)


def _when(at: str | None) -> str:
    return datetime.fromisoformat(at).strftime("%Y-%m-%d %H:%M") if at else "-"


def _short(at: str | None) -> str:
    """``12-02 02:25`` (UTC): a row's last page, the full time in its title."""
    return datetime.fromisoformat(at).strftime("%m-%d %H:%M") if at else "-"


def _tally(courts: Sequence[NationalCourt], key: str) -> str:
    """A table of the courts grouped by ``key`` (kind or province): courts, crawled, cases."""
    groups: dict[str, list[NationalCourt]] = defaultdict(list)
    for c in courts:
        groups[str(getattr(c, key) or "-")].append(c)
    rows = []
    for name in sorted(groups):
        members = groups[name]
        crawled = sum(1 for c in members if c.crawled)
        complete = sum(c.cases_complete for c in members)
        listed = sum(c.cases_listed for c in members)
        access = Counter(c.access for c in members)
        rows.append(
            f'<tr data-{key}="{_e(name)}"><td>{_e(name)}</td>'
            f'<td class="num" data-field="courts">{len(members)}</td>'
            f'<td class="num" data-field="crawled">{crawled}</td>'
            f'<td class="num" data-field="complete">{complete}/{listed}</td>'
            f"<td>{_e(', '.join(f'{n} {a}' for a, n in sorted(access.items())))}</td></tr>"
        )
    return (
        f"<table><tr><th>{_e(key)}</th><th>courts</th><th>crawled</th>"
        f"<th>complete / listed</th><th>access</th></tr>{''.join(rows)}</table>"
    )


def _row(c: NationalCourt) -> str:
    share = 100.0 * c.cases_complete / c.cases_listed if c.cases_listed else 0.0
    failed = sum(c.failures.values())
    pace = f"{c.pace_per_minute:g}/min" if c.pace_per_minute is not None else "-"
    cls = _ACCESS_CLASS.get(c.access, "a-bad")
    return (
        f'<tr id="row-{_slug(c.court_id)}" data-court="{_e(c.court_id)}">'
        f'<td><a href="#court-{_slug(c.court_id)}">{_e(c.court_id)}</a></td>'
        f"<td>{_e(c.kind or '-')}</td><td>{_e(c.province or '-')}</td>"
        f'<td><span class="access {cls}" data-field="access">{_e(c.access)}</span></td>'
        f'<td class="num" data-field="complete">{c.cases_complete}/{c.cases_listed}</td>'
        f'<td><div class="bar"><div style="width:{share:.1f}%"></div></div></td>'
        f'<td class="num" data-field="pace">{_e(pace)}</td>'
        f'<td class="when" title="{_e(_when(c.last_fetched_at))} UTC">'
        f"{_e(_short(c.last_fetched_at))}</td>"
        f'<td class="num" data-field="failed">{failed}</td></tr>'
    )


def _detail(c: NationalCourt) -> str:
    failures = "".join(
        f'<li><span class="num">{n}</span> {_e(reason)}</li>' for reason, n in c.failures.items()
    )
    requests = f"{c.requests_ok} ok, {c.requests_waiting} waiting, {c.requests_failed} failed"
    facts = [
        ("name", c.name), ("kind", c.kind), ("city", c.city), ("province", c.province),
        ("high court", c.high_court), ("registered URL", c.base_url),
        ("effective URL", c.effective_base_url), ("access", c.access),
        ("HTTP status", c.http_status), ("reason", c.reason), ("checked", c.checked_at),
        ("crawled", "yes" if c.crawled else "no"), ("what to do", c.advice),
        ("requests", requests),
    ]  # fmt: skip
    rows = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in facts if v is not None)
    return (
        f'<div class="court" id="court-{_slug(c.court_id)}"><h3>{_e(c.court_id)}</h3>'
        f"<dl>{rows}</dl>"
        + (f"<p>failed requests by reason:</p><ul>{failures}</ul>" if failures else "")
        + '<p><a href="#national">back to the courts</a></p></div>'
    )


def render_national(courts: Sequence[NationalCourt]) -> str:
    """The page's national section (empty when no court is registered)."""
    if not courts:
        return ""
    access = Counter(c.access for c in courts)
    crawled = sum(1 for c in courts if c.crawled)
    complete = sum(c.cases_complete for c in courts)
    listed = sum(c.cases_listed for c in courts)
    tiles = "".join(
        f'<span class="tile" data-access="{_e(a)}"><b>{n}</b> {_e(a)}</span>'
        for a, n in sorted(access.items())
    )
    return f"""<section id="national"><h2>Courts of the country</h2>
<p><span id="national-courts">{len(courts)}</span> courts registered,
<span id="national-crawled">{crawled}</span> crawled,
<span id="national-complete">{complete}</span> of
<span id="national-listed">{listed}</span> listed cases complete.</p>
<p class="tiles">{tiles}</p>
<h3>By kind</h3>{_tally(courts, "kind")}
<h3>By province</h3>{_tally(courts, "province")}
<h3>Every court</h3>
<table id="national-table"><tr><th>court</th><th>kind</th><th>province</th><th>access</th>
<th>complete / listed</th><th>progress</th><th>pace</th><th>last page</th><th>failed</th></tr>
{"".join(_row(c) for c in courts)}</table>
<p class="muted">access: by the court's last check (scrapy courts check); refused, unreachable,
tls_error, server_error and not_sipp courts are not crawled (a court's detail says what to do).
pace: pages a minute between its first and last page fetched.</p></section>
<section id="national-detail"><h2>Court details</h2>
{"".join(_detail(c) for c in courts)}</section>
"""


NATIONAL_CSS = """
.tiles .tile{display:inline-block;margin:0 8px 6px 0;padding:4px 10px;border-radius:12px;
background:#eef2f6;font-size:13px}
.access{padding:1px 7px;border-radius:9px;font-size:12px}.a-ok{background:#d1fadf}
.a-warn{background:#fef0c7}.a-bad{background:#fee4e2}.a-none{background:#eaecf0}
h3{font-size:15px;margin:14px 0 6px}.court dl{display:grid;grid-template-columns:9em 1fr;
margin:0}.court dt{color:#475467}.court dd{margin:0;word-break:break-all}
.court{border-top:1px solid #eceff4;padding-top:6px}
#national-table .bar{width:64px}#national-table td.when,#national-table td.num{white-space:nowrap}
"""
