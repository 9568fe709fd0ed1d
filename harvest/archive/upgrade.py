"""The upgrade step of a crawl's start: parts of an older item format rebuilt from the archive.

A workspace (or database) written by an older harvest holds parts of an older item format
(``parts.schema_version`` below :data:`harvest.base.canonical.ITEM_SCHEMA_VERSION`). Exporting them
as they are would ship old-format data as current. When a crawl of a court starts, with its
crawl lock (or lease) held and before the stores' cross-check, :func:`rebuild_older_parts`
re-parses the archived page of every such part with today's parsers, as ``scrapy reparse``
does (no request to the court). The cross-check that follows counts a part still of an older
format as missing and sends its request back to pending: only what the archive lacks (or what
no longer parses) is fetched again (docs/archive.md, "Upgrades").
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from harvest.archive.reparse import reparse
from harvest.archive.store import ARCHIVE_DIR, INDEX_DB, ArchiveError
from harvest.base.identity import case_key, tab_key
from harvest.base.items import CASE_PART, TAB_PART_PREFIX
from pipelines.item_backends import open_item_store
from pipelines.store import ItemStoreError

__all__ = ["Rebuilt", "rebuild_older_parts"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Rebuilt:
    """What :func:`rebuild_older_parts` did for one court."""

    older: int  # parts of an older format found
    rebuilt: int  # of them, made again from their archived page
    pages_failed: int  # archived pages that no longer parse (their requests are fetched again)


def _request_key(court: str, source_id: str, part: str) -> str:
    if part == CASE_PART:
        return case_key(court, source_id)
    return tab_key(court, source_id, part[len(TAB_PART_PREFIX) :])


def rebuild_older_parts(workspace: Path, court: str, *, database_url: str | None) -> Rebuilt:
    """Re-parse from the archive the court's parts of an older item format (module doc).

    The caller holds the court's crawl lock. Raises :class:`ItemStoreError` when the item
    store fails; no archive (or none for the court) rebuilds nothing.
    """
    try:
        store = open_item_store(workspace, database_url=database_url)
    except ItemStoreError:
        if database_url is None and not (workspace / "items.sqlite").exists():
            return Rebuilt(0, 0, 0)
        raise
    try:
        older = store.older_parts(court)
    finally:
        store.close()
    if not older or not (workspace / ARCHIVE_DIR / INDEX_DB).is_file():
        return Rebuilt(len(older), 0, 0)
    keys = {_request_key(court, source_id, part) for source_id, part in older}
    try:
        report = reparse(
            workspace,
            court=court,
            keys=keys,
            take_crawl_lock=False,
            database_url=database_url,
        )
    except ArchiveError as exc:
        logger.warning(
            "court %s: %d parts are of an older item format and the archive cannot be read "
            "(%s): their pages are fetched again",
            court,
            len(older),
            exc,
        )
        return Rebuilt(len(older), 0, 0)
    store = open_item_store(workspace, database_url=database_url, readonly=True)
    try:
        left = len(store.older_parts(court))
    finally:
        store.close()
    rebuilt = len(older) - left
    logger.info(
        "court %s: %d parts were of an older item format: %d rebuilt from the archive "
        "(no request), %d to be fetched again",
        court,
        len(older),
        rebuilt,
        left,
    )
    return Rebuilt(len(older), rebuilt, len(report.failed))
