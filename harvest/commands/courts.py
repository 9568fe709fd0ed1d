"""``scrapy courts add FILE`` / ``scrapy courts list``: the courts of ``-a courts=registered``.

``add`` reads a court list (CSV: ``base_url``, ``court_id``, optional ``listing`` and ``tabs``;
docs/multi-court.md) and registers its courts in the request state (the workspace's
``state.sqlite``, or the PostgreSQL database of ``HARVEST_DATABASE_URL``): a new court is
added, a known one gets the file's values. ``list`` prints the registered courts, one a line:
``court_id<TAB>base_url<TAB>listing<TAB>tabs<TAB>added_at`` (``-`` for an empty value).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from extensions.config import SchedulerConfig
from extensions.store import CourtRecord, StateError
from harvest.courts import CourtListError, read_courts
from harvest.settings_error import SettingsError
from harvest.workspace import WorkspaceError

if TYPE_CHECKING:
    import argparse


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return "add FILE | list"

    def short_desc(self) -> str:
        return "Register courts for -a courts=registered (add FILE), or list them"

    def long_desc(self) -> str:
        return (
            "scrapy courts add FILE registers the courts of a CSV court list (columns base_url, "
            "court_id, listing, tabs) in the request state; scrapy courts list prints them. "
            "scrapy crawl sipp -a courts=registered crawls every registered court "
            "(docs/multi-court.md)."
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.settings is not None
        if not args or args[0] not in ("add", "list"):
            raise UsageError("give a subcommand: scrapy courts add FILE, or scrapy courts list")
        if args[0] == "add" and len(args) != 2:
            raise UsageError("scrapy courts add takes one court list file (CSV)")
        if args[0] == "list" and len(args) != 1:
            raise UsageError(f"unexpected arguments {args[1:]!r}; see scrapy courts -h")
        try:
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
                    [CourtRecord(e.court_id, e.base_url, e.listing, e.tabs) for e in entries]
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
