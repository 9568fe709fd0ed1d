"""``scrapy courts add|list|check``: the courts of ``-a courts=registered``.

``add FILE`` reads a court list (CSV: ``base_url``, ``court_id``, optional ``listing``,
``tabs``, ``proxy`` and the directory's facts; docs/multi-court.md) and registers its courts in
the request state (the workspace's ``state.sqlite``, or the PostgreSQL database of
``HARVEST_DATABASE_URL``): a new court is added, a known one gets the file's values. ``add
--directory [PATH] [--kind K] [--province P]`` registers the courts of the court directory
(the one shipped with the project, or PATH; docs/national.md). ``list`` prints the registered
courts, one a line: ``court_id<TAB>base_url<TAB>listing<TAB>tabs<TAB>added_at`` (``-`` for an
empty value). ``check [COURT_ID ...]`` probes the registered courts (or those named) and
records each one's access (:mod:`harvest.court_check`): a table, or ``--json`` lines.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from extensions.config import SchedulerConfig
from extensions.store import CourtCheck, CourtRecord, StateError
from harvest.base.settings_error import SettingsError
from harvest.base.workspace import WorkspaceError
from harvest.court_check import check_courts
from harvest.courts import CourtListError, read_courts, read_directory

if TYPE_CHECKING:
    import argparse


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return (
            "add FILE | add --directory [PATH] [--kind K] [--province P] | list | "
            "check [COURT_ID ...] [--json]"
        )

    def short_desc(self) -> str:
        return "Register courts for -a courts=registered (add), list them, check their access"

    def long_desc(self) -> str:
        return (
            "scrapy courts add FILE registers the courts of a CSV court list (columns base_url, "
            "court_id, listing, tabs, proxy) in the request state; scrapy courts add --directory "
            "registers the court directory's courts (--kind pn|pa|ptun|militer, --province); "
            "scrapy courts list prints them; scrapy courts check probes each one once (its "
            "root page) and records its access: ok, redirected, challenge, refused, "
            "unreachable, tls_error, server_error or not_sipp. scrapy crawl sipp -a "
            "courts=registered crawls the registered courts that can be crawled "
            "(docs/multi-court.md, docs/national.md)."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        group = parser.add_argument_group(title="Courts Options")
        group.add_argument(
            "--directory",
            nargs="?",
            const="",
            default=None,
            metavar="PATH",
            help="add: the court directory (the project's, or the one at PATH)",
        )
        group.add_argument("--kind", default=None, help="add --directory: only this court kind")
        group.add_argument("--province", default=None, help="add --directory: only this province")
        group.add_argument("--json", action="store_true", help="check: one JSON object a line")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.settings is not None
        if not args or args[0] not in ("add", "list", "check"):
            raise UsageError(
                "give a subcommand: scrapy courts add FILE, add --directory, list or check"
            )
        directory = getattr(opts, "directory", None)
        if args[0] == "add" and directory is None and len(args) != 2:
            raise UsageError("scrapy courts add takes one court list file (CSV), or --directory")
        if args[0] == "add" and directory is not None and len(args) != 1:
            raise UsageError("scrapy courts add --directory [PATH] takes no other file")
        if args[0] != "add" and (directory is not None or opts.kind or opts.province):
            raise UsageError("--directory, --kind and --province go with scrapy courts add")
        if args[0] == "add" and directory is None and (opts.kind or opts.province):
            raise UsageError("--kind and --province filter the directory: add --directory")
        if args[0] == "list" and len(args) != 1:
            raise UsageError(f"unexpected arguments {args[1:]!r}; see scrapy courts -h")
        if args[0] == "check":
            self._check(args[1:], json_lines=bool(opts.json))
            return
        try:
            if args[0] == "add" and directory is not None:
                entries = read_directory(directory or None, kind=opts.kind, province=opts.province)
            else:
                entries = read_courts(args[1]) if args[0] == "add" else []
            config = SchedulerConfig.from_settings(self.settings)
            store = config.open_store(readonly=args[0] == "list")
        except StateError as exc:
            if args[0] == "list":  # no state yet: nothing registered
                sys.stdout.write("no court registered (scrapy courts add FILE)\n")
                return
            sys.stderr.write(f"scrapy courts: {exc}\n")
            self.exitcode = 1
            return
        except (CourtListError, WorkspaceError, SettingsError) as exc:
            sys.stderr.write(f"scrapy courts: {exc}\n")
            self.exitcode = 1
            return
        try:
            if args[0] == "add":
                added, changed = store.add_courts(
                    [
                        CourtRecord(
                            e.court_id,
                            e.base_url,
                            e.listing,
                            e.tabs,
                            kind=e.kind,
                            name=e.name,
                            city=e.city,
                            province=e.province,
                            high_court=e.high_court,
                            proxy=e.proxy,
                        )
                        for e in entries
                    ]
                )
                total = len(store.courts())
                sys.stdout.write(
                    f"{added} courts added, {changed} changed, "
                    f"{len(entries) - added - changed} unchanged; {total} registered\n"
                )
                return
            courts = store.courts()
        except StateError as exc:
            sys.stderr.write(f"scrapy courts: {exc}\n")
            self.exitcode = 1
            return
        finally:
            store.close()
        if not courts:
            sys.stdout.write("no court registered (scrapy courts add FILE)\n")
        for c in courts:
            sys.stdout.write(
                "\t".join((c.court, c.base_url, c.listing or "-", c.tabs or "-", c.added_at))
                + "\n"
            )

    # --- check ----------------------------------------------------------------------------------

    def _check(self, wanted: list[str], *, json_lines: bool) -> None:
        assert self.settings is not None
        try:
            config = SchedulerConfig.from_settings(self.settings)
            store = config.open_store()
        except (StateError, WorkspaceError, SettingsError) as exc:
            sys.stderr.write(f"scrapy courts: {exc}\n")
            self.exitcode = 1
            return
        try:
            courts = store.courts()
            if not courts:
                sys.stdout.write("no court registered (scrapy courts add FILE)\n")
                return
            known = {c.court for c in courts}
            unknown = [w for w in wanted if w not in known]
            if unknown:
                sys.stderr.write(
                    f"scrapy courts: not registered: {', '.join(unknown)} (scrapy courts list)\n"
                )
                self.exitcode = 1
                return
            chosen = [c for c in courts if not wanted or c.court in wanted]
            results = check_courts(chosen, self.settings)
            for court, check in results:
                store.record_court_check(court.court, check)
        except (StateError, CourtListError) as exc:
            sys.stderr.write(f"scrapy courts: {exc}\n")
            self.exitcode = 1
            return
        finally:
            store.close()
        _print_checks(results, json_lines=json_lines)


def _print_checks(results: list[tuple[CourtRecord, CourtCheck]], *, json_lines: bool) -> None:
    if json_lines:
        for court, check in results:
            line = {
                "court_id": court.court,
                "access": check.access,
                "base_url": check.effective_base_url or court.base_url,
                "http_status": check.http_status,
                "reason": check.reason,
                "checked_at": check.checked_at,
            }
            sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
        return
    rows = [("court_id", "access", "http", "base_url", "reason")]
    for court, check in results:
        status = "-" if check.http_status is None else str(check.http_status)
        url = check.effective_base_url or court.base_url
        rows.append((court.court, check.access, status, url, check.reason))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:4])]
        sys.stdout.write("  ".join([*cells, row[4]]).rstrip() + "\n")
    counts: dict[str, int] = {}
    for _, check in results:
        counts[check.access] = counts.get(check.access, 0) + 1
    summary = ", ".join(f"{n} {access}" for access, n in sorted(counts.items()))
    sys.stdout.write(f"{len(results)} courts checked: {summary}\n")
