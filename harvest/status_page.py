"""``scrapy status --html FILE``: the request state as one self-contained page.

One HTML file, no network: inline CSS, inline SVG charts, no script. It shows, per court, the
cases complete / known and the requests by status, the court's requests done over time (from the
``events`` table), the failed requests grouped by reason (with an example URL each), the HTTP
exchanges per minute over time (from ``url_log``), and the recent runs (live, dead or ended).
:func:`gather` reads what the plain report lacks; :func:`render_page` is pure.
"""

from __future__ import annotations

import dataclasses
import html
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from extensions.state_queries import (
    CourtProgress,
    ErrorGroup,
    connect_readonly,
    court_progress,
    error_groups,
    lease_liveness,
    progress_timeline,
    run_liveness,
    throughput_timeline,
)
from harvest.national_status import NATIONAL_CSS, NationalCourt, national_courts, render_national

if TYPE_CHECKING:
    from collections.abc import Sequence

    from extensions.store import CourtRecord, StatusReport

__all__ = ["StatusExtra", "gather", "render_page"]

#: Series colours (colour-blind safe, Okabe-Ito).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")


@dataclasses.dataclass(frozen=True)
class StatusExtra:
    """What ``scrapy status`` adds to the store's report."""

    courts: list[CourtProgress]
    error_groups: list[ErrorGroup]  # the most frequent reasons (at most --limit)
    error_groups_total: int  # how many reasons in all
    run_states: dict[int, str]
    progress: dict[str, list[tuple[str, int]]]
    throughput: list[tuple[str, int, float]]
    #: every registered court with its access and progress (docs/national.md)
    national: list[NationalCourt] = dataclasses.field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "courts": [c.as_dict() for c in self.courts],
            "national": [c.as_dict() for c in self.national],
            "error_groups": [g.as_dict() for g in self.error_groups],
            "error_groups_total": self.error_groups_total,
            "run_states": {str(k): v for k, v in self.run_states.items()},
        }


def gather(
    state: Path | str,
    *,
    court: str | None,
    limit: int,
    runs: list[dict[str, Any]],
    registered: Sequence[CourtRecord] = (),
    charts: bool = True,
) -> StatusExtra:
    """Read the extra parts of the status from ``state`` (read-only): ``state.sqlite``, or
    the ``postgresql://`` URL of the state database (run liveness from its court leases);
    ``registered``: the registered courts, for the national view; ``charts``: also the page's
    timelines (they read every ``ok`` event and exchange: only the HTML page shows them)."""
    conn = connect_readonly(state)
    try:
        conn.execute("BEGIN")  # one snapshot
        courts = court_progress(conn, court)
        groups = error_groups(conn, court)
        progress = progress_timeline(conn, court) if charts else {}
        throughput = throughput_timeline(conn) if charts else []
        leases = lease_liveness(conn, runs) if isinstance(state, str) else None
        chosen = [r for r in registered if court is None or r.court == court]
        national = national_courts(conn, chosen, courts)
        conn.execute("COMMIT")
    finally:
        conn.close()
    for r in runs:
        r["state"] = (
            leases[int(r["id"])] if leases is not None else run_liveness(r, Path(state).parent)
        )
    return StatusExtra(
        courts=courts,
        error_groups=groups[: max(limit, 1)],
        error_groups_total=len(groups),
        run_states={int(r["id"]): str(r["state"]) for r in runs},
        progress=progress,
        throughput=throughput,
        national=national,
    )


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _ts(at: str) -> float:
    return datetime.fromisoformat(at).timestamp()


def _hhmm(at: str) -> str:
    return datetime.fromisoformat(at).strftime("%H:%M:%S")


def _when(at: str | None) -> str:
    """``2026-11-30 15:57:37`` (UTC) from a stored timestamp."""
    return datetime.fromisoformat(at).strftime("%Y-%m-%d %H:%M:%S") if at else ""


def _progress_chart(series: dict[str, list[tuple[str, int]]]) -> str:
    width, height, left, bottom, top, right = 720, 260, 56, 30, 14, 150
    if not series:
        return '<p class="muted">No request has finished yet.</p>'
    points = [p for s in series.values() for p in s]
    t0 = min(_ts(a) for a, _ in points)
    t1 = max(_ts(a) for a, _ in points)
    span = max(t1 - t0, 1.0)
    ymax = max(n for _, n in points) or 1
    plot_w, plot_h = width - left - right, height - top - bottom
    parts = [
        (
            f'<svg viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
            'aria-label="requests done over time, per court">'
        )
    ]
    for i in range(5):
        y = top + plot_h * i / 4
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" class="grid"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" class="axis" text-anchor="end">'
            f"{round(ymax * (4 - i) / 4)}</text>"
        )
    first = min(points, key=lambda p: _ts(p[0]))[0]
    last = max(points, key=lambda p: _ts(p[0]))[0]
    parts.append(
        f'<text x="{left}" y="{height - 8}" class="axis">{_e(_hhmm(first))}</text>'
        f'<text x="{left + plot_w}" y="{height - 8}" class="axis" text-anchor="end">'
        f"{_e(_hhmm(last))} UTC</text>"
    )
    for k, (court, pts) in enumerate(series.items()):
        colour = PALETTE[k % len(PALETTE)]
        coords = [
            (left + plot_w * (_ts(a) - t0) / span, top + plot_h * (1 - n / ymax)) for a, n in pts
        ]
        if len(coords) == 1:
            coords.insert(0, (left, top + plot_h))
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        parts.append(
            f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2.5"/>'
        )
        ly = top + 14 + 18 * k
        parts.append(
            f'<rect x="{left + plot_w + 14}" y="{ly - 9}" width="12" height="12" '
            f'fill="{colour}"/><text x="{left + plot_w + 32}" y="{ly + 1}" class="legend">'
            f"{_e(court)}: {pts[-1][1]}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _error_chart(groups: list[ErrorGroup]) -> str:
    if not groups:
        return '<p class="ok">No failed requests.</p>'
    width, bar, gap, label_w = 720, 22, 8, 330
    height = len(groups) * (bar + gap) + gap
    top_count = max(g.count for g in groups)
    parts = [
        (
            f'<svg viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
            'aria-label="failed requests by reason">'
        )
    ]
    for i, g in enumerate(groups):
        y = gap + i * (bar + gap)
        w = max(2.0, (width - label_w - 60) * g.count / top_count)
        reason = g.reason if len(g.reason) <= 48 else g.reason[:47] + "…"
        parts.append(
            f'<text x="{label_w - 8}" y="{y + 15}" class="label" text-anchor="end">'
            f"<title>{_e(g.reason)}</title>{_e(reason)}</text>"
            f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar}" fill="#D55E00"/>'
            f'<text x="{label_w + w + 6:.1f}" y="{y + 15}" class="value">{g.count}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _throughput_chart(buckets: list[tuple[str, int, float]]) -> str:
    if not buckets:
        return '<p class="muted">No HTTP exchange logged yet.</p>'
    width, height, left, bottom, top = 720, 200, 56, 30, 14
    plot_w, plot_h = width - left - 10, height - top - bottom
    ymax = max(r for _, _, r in buckets) or 1.0
    step = plot_w / len(buckets)
    parts = [
        (
            f'<svg viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
            'aria-label="HTTP exchanges per minute over time">'
        )
    ]
    for i in range(3):
        y = top + plot_h * i / 2
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" class="grid"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" class="axis" text-anchor="end">'
            f"{ymax * (2 - i) / 2:.0f}</text>"
        )
    for i, (_, count, rate) in enumerate(buckets):
        h = plot_h * rate / ymax
        parts.append(
            f'<rect x="{left + i * step + 1:.1f}" y="{top + plot_h - h:.1f}" '
            f'width="{max(step - 2, 1):.1f}" height="{h:.1f}" fill="#0072B2">'
            f"<title>{count} exchanges</title></rect>"
        )
    parts.append(
        f'<text x="{left}" y="{height - 8}" class="axis">{_e(_hhmm(buckets[0][0]))}</text>'
        f'<text x="{left + plot_w}" y="{height - 8}" class="axis" text-anchor="end">'
        f"{_e(_hhmm(buckets[-1][0]))} UTC</text></svg>"
    )
    return "".join(parts)


def _court_rows(courts: list[CourtProgress]) -> str:
    rows = []
    for p in courts:
        share = 100.0 * p.cases_complete / p.cases_known if p.cases_known else 0.0
        rows.append(
            f"<tr><td>{_e(p.court)}</td>"
            f'<td class="num">{p.cases_complete}/{p.cases_known}</td>'
            f'<td><div class="bar"><div style="width:{share:.1f}%"></div></div>'
            f'<span class="pct">{share:.1f}%</span></td>'
            f'<td class="num">{p.ok}</td><td class="num">{p.waiting}</td>'
            f'<td class="num">{p.error}</td></tr>'
        )
    return "".join(rows) or '<tr><td colspan="6">Nothing crawled yet.</td></tr>'


_CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;
margin:0;background:#f4f6f9}
main{max-width:780px;margin:0 auto;padding:24px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:17px;margin:0 0 10px}
section{background:#fff;border:1px solid #dde2ea;border-radius:8px;padding:16px 18px;
margin:16px 0}
.muted{color:#667085}.ok{color:#067647}
table{border-collapse:collapse;width:100%}th,td{padding:5px 8px;border-bottom:1px solid #eceff4;
text-align:left;vertical-align:top}th{font-size:13px;color:#475467}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.bar{display:inline-block;width:140px;height:10px;background:#e4e7ec;border-radius:5px;
vertical-align:middle;margin-right:6px}.bar div{height:10px;background:#009E73;border-radius:5px}
.pct{font-size:13px}
svg text{font:12px system-ui,sans-serif;fill:#344054}.grid{stroke:#eaecf0}
.legend{font-size:13px}.value{font-weight:600}
code,.url{font:12px ui-monospace,monospace;word-break:break-all;color:#475467}
"""


def _refresh_rows(refresh: Sequence[dict[str, Any]]) -> str:
    """Per court: the last generation, cases fetched / changed / new in it, due now."""
    rows = []
    for r in refresh:
        last = r["last"]
        end = _when(last["finished_at"]) if last["finished_at"] else "unfinished"
        rows.append(
            f'<tr><td>{_e(r["court"])}</td><td class="num">{last["generation"]}</td>'
            f"<td>{_e(last['policy'])}, {_e(last['today'])}</td>"
            f"<td>{_e(_when(last['started_at']))}</td><td>{_e(end)}</td>"
            f'<td class="num">{r["refreshed"]}</td><td class="num">{r["changed"]}</td>'
            f'<td class="num">{r["new"]}</td><td class="num">{r["due_now"]}</td></tr>'
        )
    return "".join(rows) or '<tr><td colspan="9">No generation recorded yet.</td></tr>'


def render_page(
    state: str,
    report: StatusReport,
    extra: StatusExtra,
    *,
    generated_at: str,
    refresh: Sequence[dict[str, Any]] = (),
) -> str:
    """The status page (see the module docstring); ``refresh``: harvest/refresh/report.py."""
    totals = report.totals()
    groups = "".join(
        f'<tr><td class="num">{g.count}</td><td>{_e(g.reason)}<br>'
        f'<span class="url">{_e(g.example_url)}</span></td>'
        f"<td>{_e(', '.join(g.kinds))}</td></tr>"
        for g in extra.error_groups
    )
    runs = "".join(
        f"<tr><td>#{r['id']}</td><td>{_e(r['court'])}</td>"
        f"<td>{_e(extra.run_states.get(int(r['id']), ''))}</td>"
        f"<td>{_e(_when(r['started_at']))}</td><td>{_e(_when(r['ended_at']))}</td>"
        f"<td>{_e(r['close_reason'] or '')}</td><td>{_e(r['job'] or '')}</td></tr>"
        for r in report.runs
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>harvest status</title><style>{_CSS}{NATIONAL_CSS}</style></head>
<body><main>
<h1>harvest status</h1>
<p class="muted">{_e(state)} &middot; generated {_e(generated_at)} &middot;
requests: <span id="total-ok">{totals["ok"]}</span> ok,
<span id="total-waiting">{totals["pending"] + totals["inflight"]}</span> waiting,
<span id="total-error">{totals["error"]}</span> failed</p>
{render_national(extra.national)}<section id="courts"><h2>Cases per court</h2>
<table><tr><th>court</th><th>complete / known</th><th>progress</th><th>ok</th>
<th>waiting</th><th>failed</th></tr>{_court_rows(extra.courts)}</table></section>
<section id="refresh"><h2>Last refresh per court</h2>
<table><tr><th>court</th><th>generation</th><th>policy, day</th><th>started</th><th>finished</th>
<th>fetched</th><th>changed</th><th>new</th><th>due now</th></tr>{_refresh_rows(refresh)}</table>
<p class="muted">fetched: cases whose detail was fetched in the generation; changed: documents
whose content changed in it; due now: what -a refresh=due would fetch besides new and changed
cases (docs/refresh.md).</p></section>
<section id="progress"><h2>Requests done over time</h2>{_progress_chart(extra.progress)}
</section>
<section id="errors"><h2>Failed requests by reason</h2>{_error_chart(extra.error_groups)}
{
        f"<table><tr><th>count</th><th>reason, example URL</th><th>kinds</th></tr>{groups}</table>"
        if groups
        else ""
    }</section>
<section id="throughput"><h2>Throughput (HTTP exchanges per minute)</h2>
{_throughput_chart(extra.throughput)}</section>
<section id="runs"><h2>Recent runs</h2>
<table><tr><th>run</th><th>court</th><th>state</th><th>started</th><th>ended</th>
<th>close reason</th><th>job</th></tr>{runs}</table>
<p class="muted">Times are UTC. live: its process holds the court's crawl lock; dead: killed or
crashed (the next crawl of the court takes over).</p></section>
</main></body></html>
"""
