"""``scrapy case NUMBER [--court ID] [--json]``: one case's history (docs/case-history.md).

Every fetch of the case's parts (by the generation it belonged to), every version of its
document with what changed from the version before, and the archived WARC entry behind each
changed part (file, offset, length, payload digest), re-parsed with today's parsers to check
that its bytes give that version's data again. Reads the item store, the request store and the
archive read-only.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from extensions.config import SchedulerConfig
from extensions.store import StateError
from harvest.archive.reparse import PageFailed, parts_of_entry
from harvest.archive.store import ARCHIVE_DIR, INDEX_DB, ArchiveError, ArchiveIndex, IndexEntry
from harvest.base.dburl import DATABASE_URL_ENV, database_url
from harvest.base.identity import (
    IdentityError,
    dedupe_key,
    normalise_case_number,
    validate_court_id,
)
from harvest.base.settings_error import SettingsError
from harvest.base.workspace import WORKSPACE_ENV, WorkspaceError, resolve_workspace
from harvest.case_history import Fetch, Version, build_history
from pipelines.item_backends import open_item_store
from pipelines.store import ItemStoreError

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Mapping, Sequence
    from pathlib import Path

    from pipelines.store import ItemStore


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return "NUMBER [--court COURT_ID] [--json]"

    def short_desc(self) -> str:
        return "Show one case's fetches, versions, changes and archived pages"

    def long_desc(self) -> str:
        return (
            "Show every generation in which case NUMBER was fetched, every version of its "
            "document and what changed between them, and the archived WARC entry behind each "
            "change (file, offset, digest; re-parsed to check it reproduces the version). "
            "Without --court, the case number is looked up in every court."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        group = parser.add_argument_group(title="Case Options")
        group.add_argument("--court", metavar="COURT_ID", default=None, help="the case's court")
        group.add_argument("--json", action="store_true", help="print one JSON object")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.settings is not None
        if len(args) != 1 or not args[0].strip():
            raise UsageError("give one case number, e.g. scrapy case '12/Pdt.G/2024/PN Rpk'")
        number = normalise_case_number(args[0])
        court = None
        if opts.court is not None:
            try:
                court = validate_court_id(opts.court)
            except IdentityError as exc:
                raise UsageError(f"--court: {exc}", print_help=False) from exc
        try:
            workspace = resolve_workspace(self.settings.get(WORKSPACE_ENV))
            store = open_item_store(
                workspace,
                database_url=database_url(self.settings.get(DATABASE_URL_ENV)),
                readonly=True,
            )
        except (WorkspaceError, ItemStoreError) as exc:
            self._fail(str(exc))
            return
        try:
            keys = [dedupe_key(court, number)] if court else store.find_by_number(number)
            reports = [r for r in (self._report(store, workspace, key) for key in keys) if r]
        except (ItemStoreError, ArchiveError) as exc:
            self._fail(str(exc))
            return
        finally:
            store.close()
        if not reports:
            where = f"court {court}" if court else "any court"
            self._fail(f"no case {number!r} of {where} in {store.location}")
            return
        if opts.json:
            print(json.dumps(reports if len(reports) > 1 else reports[0], ensure_ascii=False))
        else:
            sys.stdout.write("\n".join(render(report) for report in reports))

    def _report(self, store: ItemStore, workspace: Path, key: str) -> dict[str, Any] | None:
        document = store.get_document(key)
        if document is None:
            return None
        court = document["source_type"].removeprefix("sipp.")
        generations = self._generations(court)
        history: Callable[[str], Sequence[IndexEntry]] | None = None
        reproduce: Callable[[Any], Mapping[str, Any] | str] | None = None
        root = workspace / ARCHIVE_DIR
        index = None
        if (root / INDEX_DB).exists():
            index = ArchiveIndex.open(root / INDEX_DB, readonly=True)
            history = index.history

            def reproduce(entry: Any) -> Mapping[str, Any] | str:
                try:
                    return {p.part: p.data for p in parts_of_entry(root, entry)}
                except PageFailed as exc:
                    return str(exc)

        try:
            fetches, versions = build_history(
                dedupe_key=key,
                source_type=document["source_type"],
                source_id=document["source_id"],
                fetches=store.part_history(key),
                generations=generations,
                archive_history=history,
                reproduce=reproduce,
            )
        finally:
            if index is not None:
                index.close()
        return {
            "dedupe_key": key,
            "court": court,
            "content_hash": document["content_hash"],
            "archive": index is not None,
            "generations": [g.number for g in generations],
            "fetches": [asdict(f) for f in fetches],
            "versions": [_version_dict(v) for v in versions],
        }

    def _generations(self, court: str) -> list[Any]:
        assert self.settings is not None
        try:
            state = SchedulerConfig.from_settings(self.settings).open_store(readonly=True)
        except (WorkspaceError, StateError, SettingsError):
            return []  # no request state: fetches are listed without their generation
        try:
            return list(state.generations(court))
        finally:
            state.close()

    def _fail(self, message: str) -> None:
        sys.stderr.write(f"scrapy case: {message}\n")
        self.exitcode = 1


def _version_dict(version: Version) -> dict[str, Any]:
    out = asdict(version)
    out.pop("document")
    return out


def _generation_summary(fetches: list[dict[str, Any]]) -> list[str]:
    by: dict[int | None, dict[str, int]] = {}
    for fetch in fetches:
        counts = by.setdefault(fetch["generation"], {})
        counts[fetch["result"]] = counts.get(fetch["result"], 0) + 1
    lines = []
    for generation, counts in by.items():
        name = "generation ?" if generation is None else f"generation {generation}"
        detail = ", ".join(f"{n} {result}" for result, n in sorted(counts.items()))
        lines.append(f"  {name}: {sum(counts.values())} part fetches ({detail})")
    return lines


def render(report: Mapping[str, Any]) -> str:
    """The text form of one case's report."""
    fetches: list[dict[str, Any]] = report["fetches"]
    lines = [f"case {report['dedupe_key']} (court {report['court']})"]
    lines.append(f"fetched in {len({f['generation'] for f in fetches})} generation(s):")
    lines += _generation_summary(fetches)
    if not fetches:
        lines.append("  (no part history: stored before the history existed)")
    lines.append(f"{len(report['versions'])} version(s):")
    for version in report["versions"]:
        generation = version["generation"]
        lines.append(
            f"version {version['number']}: stored {version['seen_at']}"
            f"{'' if generation is None else f' in generation {generation}'},"
            f" {version['content_hash']}; parts {', '.join(version['changed_parts'])}"
        )
        for change in version["changes"]:
            lines.append(f"    {change}")
        for part, record in version["records"].items():
            if record is None:
                lines.append(f"  {part}: no archived page")
                continue
            check = {True: "reproduces this version", False: "does NOT reproduce this version"}
            verdict = check.get(record["reproduces"], f"not checked: {record['problem']}")
            lines.append(
                f"  {part}: archive {record['file']} offset {record['offset']} length "
                f"{record['length']} digest {record['digest']} fetched {record['fetched_at']}"
                f" ({verdict})"
            )
    return "\n".join(lines) + "\n"


__all__ = ["Command", "Fetch", "render"]
