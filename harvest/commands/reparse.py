"""``scrapy reparse``: rebuild the workspace's items from its page archive, without the court.

See :mod:`harvest.archive.reparse` and docs/archive.md. Exit status 0 when every page parsed,
1 when some failed (listed on stderr with their reasons; their stored parts are untouched) or
the archive / item store cannot be opened.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from harvest.archive.reparse import KINDS, format_progress, reparse
from harvest.archive.store import ArchiveError
from harvest.base.dburl import DATABASE_URL_ENV, database_url
from harvest.base.workspace import WORKSPACE_ENV, WorkspaceError, resolve_workspace
from pipelines.store import ItemStoreError

if TYPE_CHECKING:
    import argparse


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return "[--court ID] [--kind case|tab] [--tab SLUG] [--dry-run] [--json]"

    def short_desc(self) -> str:
        return "Re-parse the archived pages with today's parsers into the item store (no network)"

    def long_desc(self) -> str:
        return (
            "For each request key in the workspace's page archive (archive/index.sqlite), read "
            "its latest archived page, parse it with today's parsers and upsert its parts into "
            "items.sqlite exactly as a crawl would; print how many parts were created, unchanged "
            "and updated, and every page that no longer parses with the reason (its stored parts "
            "stay). Sends no request. --dry-run counts without writing."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        group = parser.add_argument_group(title="Reparse Options")
        group.add_argument("--court", metavar="ID", default=None, help="only this court")
        group.add_argument("--kind", choices=KINDS, default=None, help="only detail or tab pages")
        group.add_argument("--tab", metavar="SLUG", default=None, help="only this tab's pages")
        group.add_argument("--dry-run", action="store_true", help="count, write nothing")
        group.add_argument("--json", action="store_true", help="print the report as JSON")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.settings is not None
        if args:
            raise UsageError(f"unexpected arguments {args!r}; see scrapy reparse -h")
        if opts.tab is not None and opts.kind == "case":
            raise UsageError("--tab SLUG selects tab pages: it cannot go with --kind case")

        def progress(done: int, total: int, elapsed: float) -> None:
            sys.stderr.write(format_progress(done, total, elapsed) + "\n")

        try:
            workspace = resolve_workspace(self.settings.get(WORKSPACE_ENV))
            report = reparse(
                workspace,
                court=opts.court,
                kind=opts.kind,
                tab=opts.tab,
                dry_run=opts.dry_run,
                progress=progress,
                database_url=database_url(self.settings.get(DATABASE_URL_ENV)),
            )
        except (WorkspaceError, ArchiveError, ItemStoreError) as exc:
            sys.stderr.write(f"scrapy reparse: {exc}\n")
            self.exitcode = 1
            return
        for failure in report.failed:
            sys.stderr.write(f"FAILED {failure.key} ({failure.url}): {failure.reason}\n")
        if opts.json:
            sys.stdout.write(json.dumps(report.as_dict(), indent=1) + "\n")
        else:
            rate = report.pages / report.seconds if report.seconds > 0 else 0.0
            sys.stdout.write(
                f"{'would reparse' if report.dry_run else 'reparsed'} {report.pages} pages in "
                f"{report.seconds:.1f}s ({rate:.0f} pages/s): {report.created} created, "
                f"{report.unchanged} unchanged, {report.updated} updated, "
                f"{len(report.failed)} failed\n"
            )
        if report.failed:
            self.exitcode = 1
