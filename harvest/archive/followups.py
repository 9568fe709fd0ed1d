"""Pages a harvest of an older release fetched but did not follow: the bankruptcy follow-up
menus (tab ``setelah_putusan_pernyataan_pailit``) whose ``sub_*`` pages were never requested
(a release before they were fetched). Read back from the page archive when a court's crawl
opens, so the spider asks for just those sub pages (harvest/spiders/sipp.py ``on_generation``)
without fetching the menu again."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from scrapy.http import HtmlResponse

from harvest.archive.store import ARCHIVE_DIR, INDEX_DB, ArchiveError, ArchiveIndex, read_entry
from harvest.sipp.pailit import MENU_SLUG, SUB_SLUG_PREFIX

__all__ = ["ArchivedMenu", "menus_not_followed"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ArchivedMenu:
    """One archived menu fragment: its request key, URL, HTML and case number as listed."""

    key: str
    url: str
    html: str
    case_raw: str


def menus_not_followed(workspace: Path, tab_rows: list[tuple[str, str]]) -> list[ArchivedMenu]:
    """The archived menu pages among ``tab_rows`` (``(key, status)`` of a court's tab rows)
    that are done while no sub page of their case has a row. A menu the archive does not hold
    (archive off, or lost) is skipped with a warning: it is followed when the case is fetched
    again."""
    keys = {key for key, _status in tab_rows}
    followed = {
        k.rsplit("|", 1)[0] for k in keys if k.rsplit("|", 1)[-1].startswith(SUB_SLUG_PREFIX)
    }
    wanted = sorted(
        key
        for key, status in tab_rows
        if status == "ok"
        and key.rsplit("|", 1)[-1] == MENU_SLUG
        and key.rsplit("|", 1)[0] not in followed
    )
    if not wanted:
        return []
    root = workspace / ARCHIVE_DIR
    index_path = root / INDEX_DB
    if not index_path.exists():
        logger.warning(
            "%d bankruptcy menus were never followed and no archive holds them", len(wanted)
        )
        return []
    out: list[ArchivedMenu] = []
    index = ArchiveIndex.open(index_path, readonly=True)
    try:
        for key in wanted:
            entry = index.get(key)
            if entry is None:
                logger.warning("the bankruptcy menu %s is not archived: not followed", key)
                continue
            try:
                page = read_entry(root, entry)
            except ArchiveError as exc:
                logger.warning("the archived bankruptcy menu %s cannot be read: %s", key, exc)
                continue
            parse = page.context.get("parse")
            if not isinstance(parse, dict) or not isinstance(parse.get("case_raw"), str):
                logger.warning("the archived bankruptcy menu %s has no parse context", key)
                continue
            response = HtmlResponse(
                entry.url,
                status=page.status,
                headers={k: v for k, v in page.headers if k.lower() == "content-type"},
                body=page.body,
            )
            out.append(ArchivedMenu(key, entry.url, response.text, parse["case_raw"]))
    finally:
        index.close()
    return out
