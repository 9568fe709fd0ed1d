"""``scrapy find (--party NAME | --number NUMBER) [--court ID] [--json]``: cases across courts
by party name (accents, case and spacing ignored) or by case number (docs/case-history.md)."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from harvest.base.dburl import DATABASE_URL_ENV, database_url
from harvest.base.identity import IdentityError, normalise_case_number, validate_court_id
from harvest.base.workspace import WORKSPACE_ENV, WorkspaceError, resolve_workspace
from harvest.lookup import Match, find_by_party
from pipelines.item_backends import open_item_store
from pipelines.store import ItemStoreError

if TYPE_CHECKING:
    import argparse


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return "(--party NAME | --number NUMBER) [--court COURT_ID] [--json]"

    def short_desc(self) -> str:
        return "Find cases across courts by party name or case number"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        group = parser.add_argument_group(title="Find Options")
        what = group.add_mutually_exclusive_group()
        what.add_argument("--party", metavar="NAME", help="a party's or lawyer's name (part)")
        what.add_argument("--number", metavar="NUMBER", help="a case number")
        group.add_argument("--court", metavar="COURT_ID", default=None, help="only this court")
        group.add_argument("--json", action="store_true", help="print one JSON array")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.settings is not None
        if args or (opts.party is None and opts.number is None):
            raise UsageError("give --party NAME or --number NUMBER", print_help=False)
        court = None
        if opts.court is not None:
            try:
                court = validate_court_id(opts.court)
            except IdentityError as exc:
                raise UsageError(f"--court: {exc}", print_help=False) from exc
        try:
            store = open_item_store(
                resolve_workspace(self.settings.get(WORKSPACE_ENV)),
                database_url=database_url(self.settings.get(DATABASE_URL_ENV)),
                readonly=True,
            )
        except (WorkspaceError, ItemStoreError) as exc:
            sys.stderr.write(f"scrapy find: {exc}\n")
            self.exitcode = 1
            return
        try:
            matches: list[Match]
            if opts.party is not None:
                matches = list(find_by_party(store.iter_case_parts(court), opts.party))
            else:
                number = normalise_case_number(opts.number)
                matches = []
                for key in store.find_by_number(number):
                    found_court = key.split(":", 1)[0].removeprefix("sipp.")
                    if court is None or found_court == court:
                        matches.append(Match(key, found_court, number, "", ""))
        except ItemStoreError as exc:
            sys.stderr.write(f"scrapy find: {exc}\n")
            self.exitcode = 1
            return
        finally:
            store.close()
        if opts.json:
            print(json.dumps([asdict(m) for m in matches], ensure_ascii=False))
        else:
            for m in matches:
                who = f"  {m.label}: {m.name}" if m.name else ""
                print(f"{m.court}\t{m.nomor_perkara}{who}")
        sys.stderr.write(f"{len(matches)} case(s) found\n")
