"""``scrapy export``: the merged case documents of the workspace item store as JSON Lines,
or as flat tables (``--format parquet|csv``, docs/export.md).

JSON Lines: one document per line (docs/contracts.md, Items), canonical JSON (sorted keys, no
whitespace, UTF-8), in dedupe-key order, so that two exports of the same store are
byte-identical. Parquet / CSV: one file per entity table in the ``--out`` directory
(:mod:`harvest.flat`). ``--changed-since TIME|GENERATION`` keeps the documents created or
changed since a time or since a refresh generation began; ``--redact-names`` replaces the names
of private persons (docs/privacy.md). Reads the item store read-only: safe while a crawl is
running (it sees one consistent snapshot).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TextIO

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from extensions.config import SchedulerConfig
from extensions.store import StateError
from harvest.base.canonical import canonical_json
from harvest.base.dburl import DATABASE_URL_ENV, database_url
from harvest.base.identity import IdentityError, validate_court_id
from harvest.base.settings_error import SettingsError
from harvest.base.workspace import WORKSPACE_ENV, WorkspaceError, resolve_workspace
from harvest.flat.changed import ChangedSince, ChangedSinceError, parse_time
from harvest.flat.writers import FORMATS, write_tables
from harvest.schema.privacy import redact_names
from pipelines.item_backends import open_item_store
from pipelines.store import ItemStoreError

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterable, Iterator, Mapping

    from pipelines.store import ShippedDocument


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return (
            "[--format jsonl|parquet|csv] [--out FILE|DIR] [--complete-only] [--court COURT_ID]"
            " [--changed-since TIME|GENERATION] [--redact-names] [--no-hash]"
        )

    def short_desc(self) -> str:
        return "Write the harvested case documents as JSON Lines, one per case"

    def long_desc(self) -> str:
        return (
            "Write the merged case documents of the workspace item store (items.sqlite) as JSON "
            "Lines, one canonical JSON object per case in dedupe-key order, to --out or stdout. "
            "The workspace is HARVEST_WORKSPACE (-s HARVEST_WORKSPACE=DIR). Safe while a crawl "
            "is running."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        group = parser.add_argument_group(title="Export Options")
        group.add_argument(
            "-o",
            "--out",
            metavar="FILE",
            default=None,
            help="write to FILE (replaced atomically when done, mode 0600); default: stdout",
        )
        group.add_argument(
            "--complete-only",
            action="store_true",
            help="only cases whose case part and every available tab are harvested",
        )
        group.add_argument(
            "--court", metavar="COURT_ID", default=None, help="only cases of this court id"
        )
        group.add_argument(
            "--format",
            choices=("jsonl", *FORMATS),
            default="jsonl",
            help="jsonl (default): one document per line; parquet or csv: one file per entity "
            "table (cases, parties, hearings, verdicts, amar, appeals, notices, costs, generic) "
            "in the --out directory",
        )
        group.add_argument(
            "--changed-since",
            metavar="TIME|GENERATION",
            default=None,
            help="only documents created or changed since TIME (ISO 8601, UTC unless it has an "
            "offset) or since refresh generation GENERATION of their court began",
        )
        group.add_argument(
            "--redact-names",
            action="store_true",
            help="replace the names of parties and other private persons by [disamarkan] "
            "(judges and clerks kept; docs/privacy.md)",
        )
        group.add_argument(
            "--no-hash",
            action="store_true",
            help="leave out content_hash (the form of the replica's --truth file)",
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.settings is not None
        if args:
            raise UsageError(f"unexpected arguments {args!r}; see scrapy export -h")
        court = None
        if opts.court is not None:
            try:
                court = validate_court_id(opts.court)
            except IdentityError as exc:
                raise UsageError(f"--court: {exc}", print_help=False) from exc
        flat = opts.format != "jsonl"
        if flat and opts.out in (None, "-"):
            raise UsageError(f"--format {opts.format} needs --out DIR", print_help=False)
        try:
            since = self._changed_since(opts.changed_since, court)
        except ChangedSinceError as exc:
            self._fail(str(exc))
            return
        try:
            store = open_item_store(
                resolve_workspace(self.settings.get(WORKSPACE_ENV)),
                database_url=database_url(self.settings.get(DATABASE_URL_ENV)),
                readonly=True,
            )
        except (WorkspaceError, ItemStoreError) as exc:
            self._fail(str(exc))
            return
        try:
            merged: Iterator[ShippedDocument] = store.iter_documents(
                complete_only=opts.complete_only,
                court=court,
                versions=flat or since is not None,
                changed_since=since.earliest if since is not None else None,
            )
            documents: Iterable[Mapping[str, Any]] = merged
            if since is not None:
                documents = since.select(documents, keep_version=flat)
            if opts.redact_names:
                documents = (redact_names(document) for document in documents)
            if opts.no_hash:
                documents = _without_hash(documents)
            if flat:
                counts = write_tables(documents, Path(opts.out), opts.format)
                count = counts["cases"]
                target = f"{opts.out}/ ({', '.join(f'{k} {v}' for k, v in counts.items())})"
            elif opts.out in (None, "-"):
                count = _write_lines(documents, sys.stdout)
                sys.stdout.flush()
                target = "stdout"
            else:
                count = _write_file_atomically(documents, Path(opts.out))
                target = opts.out
        except ItemStoreError as exc:
            self._fail(str(exc))
            return
        except BrokenPipeError:
            # The reader (e.g. `| head`) went away: not an error of ours.
            _silence_stdout()
            return
        except OSError as exc:
            self._fail(f"cannot write {opts.out!r}: {exc.strerror or exc}")
            return
        finally:
            store.close()
        changed = f" changed since {opts.changed_since}" if since is not None else ""
        sys.stderr.write(
            f"exported {count} {'complete ' if opts.complete_only else ''}case documents"
            f"{f' of court {court}' if court else ''}{changed} from {store.location} to "
            f"{target}\n"
        )

    def _changed_since(self, value: str | None, court: str | None) -> ChangedSince | None:
        """``--changed-since``: a time, or a generation looked up in the request store."""
        if value is None:
            return None
        if not value.strip().isdigit():
            return ChangedSince.at(parse_time(value))
        assert self.settings is not None
        try:
            state = SchedulerConfig.from_settings(self.settings).open_store(readonly=True)
        except (WorkspaceError, StateError, SettingsError) as exc:
            raise ChangedSinceError(f"--changed-since {value}: {exc}") from exc
        try:
            generations = state.generations(court)
        finally:
            state.close()
        return ChangedSince.of_generation(int(value), generations)

    def _fail(self, message: str) -> None:
        sys.stderr.write(f"scrapy export: {message}\n")
        self.exitcode = 1


def _without_hash(documents: Iterable[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    for document in documents:
        yield {name: value for name, value in document.items() if name != "content_hash"}


def _write_lines(documents: Iterable[Mapping[str, Any]], out: TextIO) -> int:
    count = 0
    for document in documents:
        out.write(canonical_json(document))
        out.write("\n")
        count += 1
    return count


def _write_file_atomically(documents: Iterable[Mapping[str, Any]], path: Path) -> int:
    """Write to a private temporary file beside ``path``, then rename it over ``path``."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            count = _write_lines(documents, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return count


def _silence_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
