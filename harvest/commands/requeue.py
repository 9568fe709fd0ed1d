"""``scrapy requeue``: send failed requests (status ``error``) back to ``pending``.

Errors are never retried silently (docs/contracts.md): this command is the way back. Filters
combine (all must hold): ``--kind``, ``--court``, ``--reason`` (text in the stored reason,
case-insensitive) and ``--older-than`` (the error is at least that old). Attempts are kept, the
retry budget starts again, and every requeued row gets a ``requeued`` event. The next
``scrapy crawl`` of the court picks them up.
"""

from __future__ import annotations

import datetime as dt
import re
import sys
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from extensions.config import SchedulerConfig
from extensions.store import KINDS, ErrorFilter, StateError
from harvest.base.clock import format_utc
from harvest.base.settings_error import SettingsError
from harvest.base.workspace import WorkspaceError

if TYPE_CHECKING:
    import argparse

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str) -> dt.timedelta:
    """``"90s"``, ``"30m"``, ``"2h"``, ``"1.5d"``, ``"1w"`` -> a timedelta."""
    m = _DURATION.match(text)
    if not m:
        raise ValueError(
            f"{text!r} is not a duration; write a number and a unit s, m, h, d or w (e.g. 2h)"
        )
    return dt.timedelta(seconds=float(m.group(1)) * _UNIT_SECONDS[m.group(2)])


def cutoff(age: dt.timedelta, now: dt.datetime | None = None) -> str:
    """The time ``age`` before ``now``, as the state stores times (:mod:`harvest.base.clock`)."""
    return format_utc((now or dt.datetime.now(dt.UTC)) - age)


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return "[--kind KIND] [--court COURT_ID] [--reason TEXT] [--older-than AGE] [--dry-run]"

    def short_desc(self) -> str:
        return "Send failed requests back to pending (filtered), for the next crawl"

    def long_desc(self) -> str:
        return (
            "Move requests with status error back to pending in the workspace's request state "
            "(HARVEST_WORKSPACE, state.sqlite), optionally only one kind (list, case, tab, "
            "other), one court, those whose reason contains TEXT, or those failed at least AGE "
            "ago (30m, 2h, 1d). Prints how many. The next scrapy crawl of the court fetches them."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        group = parser.add_argument_group(title="Requeue Options")
        group.add_argument("--kind", choices=KINDS, default=None, help="only this kind")
        group.add_argument("--court", metavar="COURT_ID", default=None, help="only this court")
        group.add_argument(
            "--reason", metavar="TEXT", default=None, help="only errors whose reason contains TEXT"
        )
        group.add_argument(
            "--older-than",
            metavar="AGE",
            default=None,
            help="only errors recorded at least AGE ago: a number and s, m, h, d or w",
        )
        group.add_argument(
            "--dry-run", action="store_true", help="count what would be requeued, change nothing"
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.settings is not None
        if args:
            raise UsageError(f"unexpected arguments {args!r}; see scrapy requeue -h")
        older = None
        if opts.older_than is not None:
            try:
                older = cutoff(parse_duration(opts.older_than))
            except ValueError as exc:
                raise UsageError(f"--older-than: {exc}", print_help=False) from exc
        flt = ErrorFilter(
            kind=opts.kind, court=opts.court, reason=opts.reason or None, older_than=older
        )
        try:
            config = SchedulerConfig.from_settings(self.settings)
            store = config.open_store(readonly=opts.dry_run)
        except (WorkspaceError, StateError, SettingsError) as exc:
            sys.stderr.write(f"scrapy requeue: {exc}\n")
            self.exitcode = 1
            return
        try:
            count = store.requeue(flt, dry_run=opts.dry_run)
        finally:
            store.close()
        what = ", ".join(
            f"{name}={value!r}"
            for name, value in (
                ("kind", opts.kind),
                ("court", opts.court),
                ("reason", opts.reason),
                ("older-than", opts.older_than),
            )
            if value
        )
        verb = "would requeue" if opts.dry_run else "requeued"
        sys.stdout.write(
            f"{verb} {count} failed request{'s' if count != 1 else ''}"
            f"{f' ({what})' if what else ''} to pending\n"
        )
