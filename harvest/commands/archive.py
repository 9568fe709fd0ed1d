"""``scrapy archive``: what the page archive holds; ``--prune`` drops superseded entries.

Status, per court: WARC files and their bytes on disk, indexed entries (by kind), the oldest and
newest fetch. ``--prune [--court ID]`` keeps the latest entry of every request key and removes
the rest safely (:func:`harvest.archive.store.prune`); files a running crawl writes are left
alone. See docs/archive.md.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from harvest.archive.store import ARCHIVE_DIR, INDEX_DB, ArchiveError, ArchiveIndex, prune, status
from harvest.base.workspace import WORKSPACE_ENV, WorkspaceError, resolve_workspace

if TYPE_CHECKING:
    import argparse


#: Days a superseded archive record is kept by ``--prune`` (docs/privacy.md, retention).
RETENTION_SETTING = "HARVEST_ARCHIVE_RETENTION_DAYS"


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return "[--json] [--prune [--court ID]]"

    def short_desc(self) -> str:
        return "Show the page archive (size per court, records, oldest/newest); --prune it"

    def long_desc(self) -> str:
        return (
            "Show the workspace's page archive (archive/): per court the WARC files and bytes on "
            "disk, the indexed records by kind and the oldest and newest fetch. --prune keeps the "
            "latest record of every request key and deletes older files safely (rewritten, "
            "re-indexed, then deleted); files a running crawl writes are left alone."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        group = parser.add_argument_group(title="Archive Options")
        group.add_argument("--json", action="store_true", help="print one JSON object")
        group.add_argument("--prune", action="store_true", help="drop superseded records")
        group.add_argument("--court", metavar="ID", default=None, help="prune only this court")
        group.add_argument(
            "--retention-days",
            metavar="DAYS",
            type=float,
            default=None,
            help="with --prune: also keep superseded records fetched within DAYS (default: "
            f"the setting {RETENTION_SETTING}, 0: the latest record of each key only)",
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.settings is not None
        if args:
            raise UsageError(f"unexpected arguments {args!r}; see scrapy archive -h")
        retention = opts.retention_days
        if retention is None:
            try:
                retention = self.settings.getfloat(RETENTION_SETTING, 0.0)
            except ValueError as exc:
                raise UsageError(
                    f"{RETENTION_SETTING} must be a number of days, got "
                    f"{self.settings.get(RETENTION_SETTING)!r}",
                    print_help=False,
                ) from exc
        if retention < 0:
            raise UsageError("the archive retention must be 0 days or more", print_help=False)
        try:
            root = resolve_workspace(self.settings.get(WORKSPACE_ENV)) / ARCHIVE_DIR
            with ArchiveIndex.open(root / INDEX_DB, readonly=not opts.prune) as index:
                pruned = (
                    prune(root, index, court=opts.court, retention_days=retention)
                    if opts.prune
                    else None
                )
                report = status(root, index)
        except (WorkspaceError, ArchiveError, OSError) as exc:
            sys.stderr.write(f"scrapy archive: {exc}\n")
            self.exitcode = 1
            return
        if pruned is not None:
            report["pruned"] = pruned.__dict__
        if opts.json:
            sys.stdout.write(json.dumps(report, indent=1) + "\n")
            return
        out = [f"archive {report['archive']}"]
        out.append(
            f"{'court':<24} {'files':>6} {'MiB':>9} {'records':>8}  {'oldest':<24} {'newest':<24}"
        )
        for court, info in report["courts"].items():
            out.append(
                f"{court:<24} {info['files']:>6} {info['bytes'] / 2**20:>9.2f} "
                f"{info['records']:>8}  {info['oldest'] or '-':<24} {info['newest'] or '-':<24}"
            )
            kinds = ", ".join(f"{k} {n}" for k, n in sorted(info["kinds"].items()))
            if kinds:
                out.append(f"{'':<24} {kinds}")
        if pruned is not None:
            out.append(
                f"pruned: {pruned.files_removed} files removed, {pruned.files_written} written, "
                f"{pruned.entries_moved} records moved; {pruned.bytes_before} -> "
                f"{pruned.bytes_after} bytes"
                + (
                    f"; left busy files alone: {len(pruned.files_busy)}"
                    if pruned.files_busy
                    else ""
                )
            )
        sys.stdout.write("\n".join(out) + "\n")
