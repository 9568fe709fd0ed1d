"""``scrapy status``: what is done, what is waiting, what failed and why, and the recent runs.

Reads ``<HARVEST_WORKSPACE>/state.sqlite`` read-only (safe while crawls run; one consistent
snapshot): request counts by court x kind x status, the requests waiting longest, the latest
errors with URL and reason, the latest runs, and the parse warnings (what pages currently
carry, per court, page kind or tab, label and kind, with a page count and an example URL).
``--json`` prints the same as one JSON object (format ``version`` :data:`JSON_VERSION`,
docs/status.md). ``--check`` adds the alert thresholds (:mod:`harvest.status_check`): it exits
1 when a court exceeds one, with one line per failure on stderr.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from extensions.config import SchedulerConfig
from extensions.state_queries import read_errors
from extensions.store import NOTICES, RequestStore, StateError, Status, StatusReport
from harvest.base.clock import utc_now
from harvest.base.settings_error import SettingsError
from harvest.base.workspace import (
    ITEMS_DB,
    WORKSPACE_ENV,
    WorkspaceError,
    open_private,
    resolve_workspace,
)
from harvest.refresh.planner import RefreshConfig
from harvest.refresh.report import refresh_report, utc_today
from harvest.status_check import Thresholds, failures
from harvest.status_page import StatusExtra, gather, render_page
from pipelines.item_backends import open_item_store
from pipelines.store import ItemStoreError

if TYPE_CHECKING:
    import argparse

    from scrapy.settings import BaseSettings

DEFAULT_LIMIT = 10
#: The version of the ``--json`` document (docs/status.md): grows when a field changes meaning
#: or goes; new fields may appear within a version.
JSON_VERSION = 1
#: Exit status of ``--check`` when a court exceeds a threshold.
CHECK_FAILED = 1
_STATUSES = [s.value for s in Status]


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return (
            "[--json] [--html FILE] [--court COURT_ID] [--limit N] [--check [--max-paused MIN] "
            "[--max-error-share F] [--max-warnings-per-page N]]"
        )

    def short_desc(self) -> str:
        return "Show the request state: done, waiting and failed requests, recent runs"

    def long_desc(self) -> str:
        return (
            "Show the request state of the workspace (HARVEST_WORKSPACE, state.sqlite): complete "
            "cases per court, counts by court, kind and status (pending, inflight, ok, error), "
            "errors grouped by reason with an example URL, the requests waiting longest, the "
            "latest errors, the latest runs, each live, dead (killed) or ended, the notices, the "
            "ok requests whose parts are missing, and the parse warnings per page and label. "
            "--html FILE "
            "writes the same as one self-contained page with charts. Read-only; safe while a "
            "crawl is running. On a scrapyd host run it in the directory holding the project's "
            "scrapy.cfg, or set SCRAPY_SETTINGS_MODULE=harvest.settings (README.md, 'scrapyd')."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        group = parser.add_argument_group(title="Status Options")
        group.add_argument("--json", action="store_true", help="print one JSON object")
        group.add_argument(
            "--html",
            metavar="FILE",
            default=None,
            help="write a self-contained status page (charts, no network) to FILE",
        )
        group.add_argument("--court", metavar="COURT_ID", default=None, help="only this court")
        group.add_argument(
            "--limit",
            metavar="N",
            type=int,
            default=DEFAULT_LIMIT,
            help=f"rows in each list (waiting, errors, runs, warnings); default {DEFAULT_LIMIT}",
        )
        defaults = Thresholds()
        group.add_argument(
            "--check",
            action="store_true",
            help="exit 1 when a court exceeds a threshold below (one line each on stderr)",
        )
        group.add_argument(
            "--max-paused",
            metavar="MINUTES",
            type=float,
            default=defaults.max_paused_minutes,
            help="a court paused longer fails --check (default 0: any paused court)",
        )
        group.add_argument(
            "--max-error-share",
            metavar="FRACTION",
            type=float,
            default=defaults.max_error_share,
            help="failed / ended requests of a court above this fails --check "
            f"(default {defaults.max_error_share:g})",
        )
        group.add_argument(
            "--max-warnings-per-page",
            metavar="N",
            type=float,
            default=defaults.max_warnings_per_page,
            help="parse warnings per ok page of a court above this fails --check (a template "
            f"change; default {defaults.max_warnings_per_page:g})",
        )
        group.add_argument(
            "--no-parts-check",
            action="store_true",
            help="skip the cross-check with items.sqlite (~10 s per million ok requests)",
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.settings is not None
        if args:
            raise UsageError(f"unexpected arguments {args!r}; see scrapy status -h")
        if opts.limit < 0:
            raise UsageError(f"--limit must be 0 or more, got {opts.limit}", print_help=False)
        try:
            config = SchedulerConfig.from_settings(self.settings)
            store = config.open_store(readonly=True)
        except (WorkspaceError, StateError, SettingsError) as exc:
            sys.stderr.write(f"scrapy status: {exc}\n")
            self.exitcode = 1
            return
        try:
            report = store.status_report(court=opts.court, limit=opts.limit)
            registered = store.courts()
            path = store.path
            parts = (
                {"skipped": True}
                if opts.no_parts_check
                else cross_check(store, self.settings, opts.court)
            )
            refresh = refreshes(store, self.settings, opts.court, config.database_url)
            pauses = [p for p in store.court_pauses() if opts.court in (None, p.court)]
            # every parse warning (the report lists the first --limit): what --check counts
            all_warnings = (
                store.status_report(court=opts.court, limit=1_000_000).warnings
                if opts.check
                else []
            )
        except SettingsError as exc:
            sys.stderr.write(f"scrapy status: {exc}\n")
            self.exitcode = 1
            return
        finally:
            store.close()
        try:
            # the state database's URL (PostgreSQL), else state.sqlite
            state = config.database_url or Path(path)
            extra = gather(
                state,
                court=opts.court,
                limit=opts.limit,
                runs=report.runs,
                registered=registered,
                charts=bool(opts.html),
            )
        except read_errors() as exc:
            sys.stderr.write(f"scrapy status: cannot read {path}: {exc}\n")
            self.exitcode = 1
            return
        if opts.html:
            try:
                page = render_page(path, report, extra, generated_at=utc_now(), refresh=refresh)
                # 0600 like the workspace: the page names the court's failing URLs
                fd = open_private(Path(opts.html), os.O_WRONLY | os.O_TRUNC)
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    out.write(page)
            except OSError as exc:
                sys.stderr.write(f"scrapy status: cannot write {opts.html}: {exc}\n")
                self.exitcode = 1
                return
            sys.stderr.write(f"scrapy status: status page written to {opts.html}\n")
        checks = (
            failures(
                Thresholds(opts.max_paused, opts.max_error_share, opts.max_warnings_per_page),
                extra.courts,
                pauses,
                all_warnings,
                now=dt.datetime.now(dt.UTC),
            )
            if opts.check
            else None
        )
        if opts.json:
            doc = {
                "version": JSON_VERSION,
                "state": path,
                **report.as_dict(),
                **extra.as_dict(),
                "parts": parts,
                "refresh": refresh,
                "pauses": [p.as_dict() for p in pauses],
            }
            if checks is not None:
                doc["checks"] = checks
            sys.stdout.write(json.dumps(doc, indent=1) + "\n")
        elif not opts.html:
            sys.stdout.write(
                format_report(report, path, extra)
                + format_pauses(pauses)
                + format_hardening(report, parts)
                + format_refresh(refresh)
            )
        if checks:
            for failure in checks:
                sys.stderr.write(f"scrapy status --check: FAIL {failure['message']}\n")
            self.exitcode = CHECK_FAILED
        elif checks is not None:
            sys.stderr.write("scrapy status --check: ok (no court exceeds a threshold)\n")


def format_pauses(pauses: list[Any]) -> str:
    """The paused courts (docs/multi-court.md, "Courts that come back by themselves")."""
    lines = ["", f"paused courts ({len(pauses)}):"]
    for p in pauses:
        lines.append(
            f"  {p.court}: paused {p.paused_at}, due again {p.paused_until} (pause "
            f"{p.pause_count} in a row): {p.pause_reason}"
        )
    return "\n".join(lines) + "\n"


def format_report(report: StatusReport, path: str, extra: StatusExtra | None = None) -> str:
    """The human-readable form of a status report."""
    lines = [f"request state: {path}", ""]
    if extra is not None:
        lines.append("cases per court (complete = detail and every tab ok):")
        for p in extra.courts:
            share = f" ({100.0 * p.cases_complete / p.cases_known:.1f}%)" if p.cases_known else ""
            lines.append(
                f"  {p.court}: {p.cases_complete}/{p.cases_known} complete{share}; requests "
                f"{p.ok} ok, {p.waiting} waiting, {p.error} failed"
            )
        if not extra.courts:
            lines.append("  (nothing crawled yet)")
        lines.append("")
        if extra.national:
            lines.append("registered courts (access by scrapy courts check; docs/national.md):")
            for c in extra.national:
                status = "" if c.http_status is None else f" HTTP {c.http_status}"
                crawl = "crawled" if c.crawled else "not crawled"
                lines.append(
                    f"  {c.court_id}: {c.access}{status}, {crawl}; {c.cases_complete}/"
                    f"{c.cases_listed} complete; {c.reason or '-'}"
                )
                if c.advice:
                    lines.append(f"      {c.advice}")
            lines.append("")
    table: dict[tuple[str, str], dict[str, int]] = {}
    for row in report.counts:
        table.setdefault((row["court"], row["kind"]), dict.fromkeys(_STATUSES, 0))[
            row["status"]
        ] = row["count"]
    header = ["court", "kind", *_STATUSES, "total"]
    body = [
        [court, kind, *(str(c[s]) for s in _STATUSES), str(sum(c.values()))]
        for (court, kind), c in sorted(table.items())
    ]
    totals = report.totals()
    body.append(["all", "", *(str(totals[s]) for s in _STATUSES), str(sum(totals.values()))])
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    for cells in [header, *body]:
        lines.append(
            "  ".join(
                cell.ljust(w) if i < 2 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
            ).rstrip()
        )
    lines += ["", f"waiting longest ({len(report.oldest_pending)}):"]
    for r in report.oldest_pending:
        lines.append(f"  {r['updated_at']}  {r['key']}  attempts={r['attempts']}  {r['url']}")
    if extra is not None:
        shown, total = len(extra.error_groups), extra.error_groups_total
        lines += ["", f"errors by reason ({shown if shown == total else f'{shown} of {total}'}):"]
        for g in extra.error_groups:
            lines.append(f"  {g.count:>6}  {g.reason}  [{', '.join(g.kinds)}]")
            lines.append(f"          e.g. {g.example_url}")
    lines += ["", f"latest errors ({len(report.latest_errors)}):"]
    for r in report.latest_errors:
        lines.append(f"  {r['updated_at']}  {r['key']}  attempts={r['attempts']}")
        lines.append(f"      {r['url']}")
        lines.append(f"      {r['last_error']}")
    lines += ["", f"recent runs ({len(report.runs)}):"]
    states = extra.run_states if extra is not None else {}
    for r in report.runs:
        state = states.get(r["id"], "")
        end = r["ended_at"] or {
            "live": "running (live: its process holds the crawl lock)",
            "dead": "dead: killed or crashed (the next crawl of the court takes over)",
            "unknown": "running or killed (on another host: cannot tell from here)",
        }.get(state, "running (or killed: the next crawl of the court will tell)")
        lines.append(
            f"  #{r['id']}  {r['court']}  pid {r['pid']}@{r['host']}  job {r['job'] or '-'}  "
            f"{r['started_at']} -> {end}  {r['close_reason'] or ''}".rstrip()
        )
    lines += ["", f"parse warnings, kept generically ({len(report.warnings)}):"]
    for w in report.warnings:
        lines.append(
            f"  {w['pages']} pages ({w['count']}x)  {w['court']}  {w['page']}  {w['kind']} "
            f"{w['label']!r}"
        )
        lines.append(f"      e.g. {w['example_url']}")
    return "\n".join(lines) + "\n"


def cross_check(store: RequestStore, settings: BaseSettings, court: str | None) -> dict[str, Any]:
    """The stores' cross-check, read-only: ``ok`` requests whose parts the item store lacks."""
    try:
        items = resolve_workspace(settings.get(WORKSPACE_ENV) or "") / ITEMS_DB
        check = store.check_parts(items, court=court)
    except (StateError, WorkspaceError) as exc:
        return {"error": str(exc)}
    return {"missing": check.missing, "items": check.items, "sample": check.sample}


def refreshes(
    store: RequestStore, settings: BaseSettings, court: str | None, database_url: str | None
) -> list[Any]:
    """Per court: the last generation, cases due now, refreshed and changed in it
    (harvest/refresh/report.py); ``[]`` for a state without generations."""
    config = RefreshConfig.from_settings(settings.get, utc_today=utc_today())
    try:
        workspace = resolve_workspace(settings.get(WORKSPACE_ENV) or "")
    except WorkspaceError:
        return []
    try:
        items = open_item_store(workspace, database_url=database_url, readonly=True)
    except ItemStoreError:
        # nothing stored yet (the crawl's cross-check line says more when it is damaged)
        return refresh_report(store, None, config, court=court)
    with items:
        return refresh_report(store, items, config, court=court)


def _why(why: dict[str, int]) -> str:
    """`` (back-off 3, hearing 2)``: the due cases by reason; empty when none is due."""
    return f" ({', '.join(f'{k} {n}' for k, n in why.items())})" if why else ""


def format_refresh(refresh: list[dict[str, Any]]) -> str:
    """The refresh lines of ``scrapy status`` (one per court)."""
    lines = ["", "refresh per court (docs/refresh.md):"]
    for r in refresh:
        last = r["last"]
        end = f"finished {last['finished_at']}" if last["finished_at"] else "unfinished"
        lines.append(
            f"  {r['court']}: generation {last['generation']} ({last['policy']}, today "
            f"{last['today']}), started {last['started_at']}, {end}; {r['refreshed']} cases "
            f"fetched in it, {r['changed']} changed, {r['new']} new; {r['due_now']} due as of "
            f"{r['today']}{_why(r.get('due_why') or {})}"
        )
    if not refresh:
        lines.append("  (no generation recorded yet)")
    return "\n".join(lines) + "\n"


def format_hardening(report: StatusReport, parts: dict[str, Any]) -> str:
    """Notices (row errors, number clashes, refused URLs, redirect loops, TLS failures) and the
    stores' cross-check, in human-readable form."""
    counts = ", ".join(f"{e} {report.notices.get(e, 0)}" for e in NOTICES)
    lines = ["", f"notices: {counts}"]
    for r in report.latest_notices:
        lines.append(f"  {r['at']}  {r['event']}  {r['key'] or '-'}")
        lines.append(f"      {r['detail']}")
    if parts.get("skipped"):
        lines += ["", "item store cross-check skipped (--no-parts-check)"]
    elif "error" in parts:
        lines += ["", f"item store cross-check failed: {parts['error']}"]
    elif parts["missing"]:
        lines += [
            "",
            (
                f"ok requests whose parts are missing from items.sqlite ({parts['items']}): "
                f"{parts['missing']} (the next crawl rebuilds them from the page archive and "
                "fetches what it lacks)"
            ),
        ]
        lines += [f"  {key} -> {part}" for key, part in parts["sample"]]
    else:
        lines += ["", "every ok request has its parts in items.sqlite"]
    return "\n".join(lines) + "\n"
