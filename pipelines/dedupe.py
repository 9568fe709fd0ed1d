"""The dedupe pipeline: every case part the spider yields is upserted into the item store.

Each part gets its dedupe key (``sipp.<court>:<normalised case number>``), is canonicalised and
written to ``<HARVEST_WORKSPACE>/items.sqlite`` on ``(dedupe_key, part)`` by
:class:`pipelines.store.ItemStore`, committed before :meth:`DedupePipeline.process_item` returns
(data first, then the request's checkpoint). Nothing is remembered in memory.

Stats: ``harvest/items/created``, ``harvest/items/updated``, ``harvest/items/unchanged``,
``harvest/items/dropped/<reason>`` (bad input, see :func:`pipelines.store.validate_part`) and
``harvest/items/store_error`` (the database failed; the crawl is then closed).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem, NotConfigured

from harvest.base.close_reasons import ITEM_STORE_ERROR
from harvest.base.dburl import DATABASE_URL_ENV, database_url
from harvest.base.workspace import (
    ITEMS_DB,
    WORKSPACE_ENV,
    WorkspaceError,
    ensure_workspace,
    resolve_workspace,
)
from harvest.fatal import close_fatal
from pipelines.item_backends import open_item_store
from pipelines.store import InvalidPart, ItemStore, ItemStoreError

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings
    from scrapy.statscollectors import StatsCollector

__all__ = ["DEFAULT_DEDUPE_ENABLED", "DedupeConfig", "DedupePipeline"]

logger = logging.getLogger(__name__)

#: ``DEDUPE_ENABLED``: store every part in the workspace item store.
DEFAULT_DEDUPE_ENABLED = True

STAT_PREFIX = "harvest/items"


@dataclass(frozen=True)
class DedupeConfig:
    """The pipeline's settings, read once: ``DEDUPE_ENABLED`` and ``HARVEST_WORKSPACE``."""

    enabled: bool
    workspace: Path
    #: ``HARVEST_DATABASE_URL``: the item store is that PostgreSQL database (never in a repr)
    database_url: str | None = field(default=None, repr=False)

    @property
    def store_path(self) -> Path:
        return self.workspace / ITEMS_DB

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> Self:
        """Parse and validate; raises :class:`WorkspaceError` when the workspace is unusable."""
        try:
            enabled = settings.getbool("DEDUPE_ENABLED", DEFAULT_DEDUPE_ENABLED)
        except ValueError as exc:
            raise ValueError(
                f"DEDUPE_ENABLED={settings.get('DEDUPE_ENABLED')!r} is not a boolean; "
                "use True/False (or 1/0)"
            ) from exc
        raw = settings.get(WORKSPACE_ENV)
        if raw is not None and not isinstance(raw, str | Path):
            raise WorkspaceError(f"{WORKSPACE_ENV}={raw!r} is not a path")
        return cls(
            enabled=enabled,
            workspace=resolve_workspace(raw),
            database_url=database_url(settings.get(DATABASE_URL_ENV)),
        )


class DedupePipeline:
    """Upsert each :class:`~harvest.base.items.CasePart` into ``items.sqlite``; drop bad parts
    loudly."""

    #: The scheduler cross-checks ``ok`` requests against the parts of ``items.sqlite`` on open
    #: when an enabled pipeline says it stores them (docs/scheduler.md, "Stores cross-check").
    STORES_PARTS = True

    def __init__(
        self, config: DedupeConfig, stats: StatsCollector, crawler: Crawler | None = None
    ) -> None:
        self.config = config
        self._stats = stats
        self._crawler = crawler
        self._store: ItemStore | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        config = DedupeConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("DEDUPE_ENABLED is off: parts are not stored")
        assert crawler.stats is not None
        return cls(config, crawler.stats, crawler)

    def open_spider(self) -> None:
        """Create the workspace (``0700``) and open or create ``items.sqlite`` (``0600``).

        Not for a spider that names no ``court_id`` (``scrapy shell``, ``fetch``, ``view`` run
        Scrapy's ``DefaultSpider``): those never touch the workspace.
        """
        spider = self._crawler.spider if self._crawler is not None else None
        if spider is not None and not getattr(spider, "court_id", None):
            return
        ensure_workspace(self.config.workspace)
        self._store = open_item_store(self.config.workspace, database_url=self.config.database_url)
        logger.info(
            "Item store %s: %d cases (%d complete), %d parts",
            self._store.location,
            self._store.count_documents(),
            self._store.count_documents(complete_only=True),
            self._store.count_parts(),
        )

    def close_spider(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def process_item(self, item: Any) -> Any:
        """Store the part (committed on return) and count it; bad parts raise :class:`DropItem`."""
        if self._store is None:
            spider = self._crawler.spider if self._crawler is not None else None
            if spider is not None and not getattr(spider, "court_id", None):
                return item  # not a harvest crawl (scrapy shell): nothing is stored
            raise RuntimeError("DedupePipeline.process_item() called before open_spider()")
        adapter = ItemAdapter(item)
        # Any: validated by the store, which drops what is missing or of the wrong type.
        court: Any = adapter.get("court")
        number: Any = adapter.get("nomor_perkara")
        part: Any = adapter.get("part")
        try:
            result = self._store.upsert_part(
                court=court,
                case_number=number,
                part=part,
                data=adapter.get("data"),
                url=str(adapter.get("url") or ""),
                fetched_at=str(adapter.get("fetched_at") or ""),
            )
        except InvalidPart as exc:
            self._stats.inc_value(f"{STAT_PREFIX}/dropped/{exc.reason}")
            raise DropItem(
                f"bad case part dropped ({exc.reason}): {exc}; "
                f"court={court!r} nomor_perkara={number!r} part={part!r}"
            ) from exc
        except ItemStoreError as exc:
            self._stats.inc_value(f"{STAT_PREFIX}/store_error")
            # one ERROR line for the crawl (the first part that cannot be stored), the rest at
            # DEBUG; no request is marked done without its data
            close_fatal(
                self._crawler,
                ITEM_STORE_ERROR,
                f"Cannot store part {part!r} of case {number!r} ({court}): {exc}",
                log=logger,
            )
            raise
        self._stats.inc_value(f"{STAT_PREFIX}/{result.value}")
        return item
