"""The ``sipp`` spider: routing only. List pages -> each case's detail -> each of its tabs.

Parsing lives in :mod:`harvest.sipp` (pure functions; their parse warnings are counted and
recorded through :mod:`harvest.parse_report`), page validation in
:mod:`harvest.validation`, sessions in :mod:`harvest.sessions`, request state in
:mod:`extensions`. Every request carries the logical key and group of docs/contracts.md.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from scrapy import Request, Spider
from scrapy.exceptions import CloseSpider
from scrapy.http import Response

from extensions.store import StateError
from harvest import identity
from harvest.clock import utc_now
from harvest.dburl import DATABASE_URL_ENV, database_url
from harvest.exit_status import BAD_LISTING
from harvest.items import CasePart, RowProblem
from harvest.meta import (
    META_CASE,
    META_COOKIEJAR,
    META_EXPECT,
    META_FULL_PAGE,
    META_GROUP,
    META_KEY,
    META_LABELS_MISSING,
    META_NEEDS_WARM,
    META_PARSE_CONTEXT,
    META_REFRESH_GENERATION,
    META_WARMUP_URL,
)
from harvest.parse_report import parsed
from harvest.parts import build_case_part, build_tab_part, case_context, tab_context
from harvest.refresh.planner import STAT as REFRESH_STAT
from harvest.refresh.planner import RefreshConfig, RefreshPlanner, court_documents
from harvest.sipp import ListRow, parse_list_page
from harvest.spider_args import ALL_CASES, SippArgs
from harvest.validation import raise_for_page_error
from harvest.workspace import resolve_workspace
from pipelines.store import ItemStoreError

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler

    from extensions.store import Generation, RequestStore

logger = logging.getLogger(__name__)

#: Rows per list page (fixed by SIPP).
PAGE_SIZE = 20
#: Dispatch order: tabs of started cases, then details, then new list pages.
PRIORITY_TAB = 20
PRIORITY_CASE = 10
PRIORITY_LIST = 0


class BadListing(CloseSpider):
    """``-a listing`` names no entry of the court's menu: the crawl closes (exit status 1) and
    the menu request's error says which entries there are."""

    def __init__(self, message: str) -> None:
        super().__init__(BAD_LISTING)
        self.message = message

    def __str__(self) -> str:
        return self.message


class SippSpider(Spider):
    """``scrapy crawl sipp -a base_url=<court SIPP root>`` (see README for every argument)."""

    name = "sipp"

    def __init__(self, **kwargs: Any) -> None:
        # Every -a argument is checked before any request: an unknown name (a typo such as
        # max_case) or value stops the crawl (exit 1) with the closest valid name or the values.
        self.args = SippArgs.from_arguments(kwargs)
        super().__init__(**{k: v for k, v in kwargs.items() if k.startswith("_")})
        self.court_id = self.args.court_id
        self.base_url = self.args.base_url
        #: read by the scheduler when it opens the court's generation (docs/refresh.md)
        self.refresh_policy = self.args.refresh
        #: the court's generation this crawl works in, set by the scheduler (on_generation)
        self.generation: Generation | None = None
        #: the refresh walk's planner: only in a refresh generation (number > 0)
        self.planner: RefreshPlanner | None = None
        self._refresh_config: RefreshConfig | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        spider = super().from_crawler(crawler, *args, **kwargs)
        # HARVEST_REFRESH_* checked before the engine starts: a bad value refuses the crawl in
        # one line (SettingsError, exit 1), like every other setting
        spider.refresh_config  # noqa: B018
        return spider

    @property
    def refresh_config(self) -> RefreshConfig:
        """``HARVEST_REFRESH_*`` (checked once; a bad value is a SettingsError, exit 1)."""
        if self._refresh_config is None:
            self._refresh_config = RefreshConfig.from_settings(
                self.settings.get, utc_today=dt.datetime.now(dt.UTC).date()
            )
        return self._refresh_config

    @property
    def refresh_today(self) -> str:
        """The refresh policy's day, read by the scheduler for a new generation."""
        return self.refresh_config.today.isoformat()

    def on_generation(self, generation: Generation, store: RequestStore) -> None:
        """Called by the scheduler once it knows the court's generation: a refresh generation
        (number > 0, policy due or all) plans its walk from the stored rows and items."""
        self.generation = generation
        if generation.number == 0 or generation.policy not in ("due", "all"):
            return
        workspace = resolve_workspace(self.settings.get("HARVEST_WORKSPACE"))
        url = database_url(self.settings.get(DATABASE_URL_ENV))
        try:
            self.planner = RefreshPlanner.load(
                court=self.court_id,
                generation=generation,
                generations=store.generations(self.court_id),
                case_rows=store.row_states(self.court_id, "case"),
                documents=lambda: court_documents(workspace, url, self.court_id),
                config=self.refresh_config,
            )
        except ItemStoreError as exc:
            # one line and exit 1, like every store that cannot be used at the start
            raise StateError(f"cannot plan the refresh of {self.court_id}: {exc}") from exc

    async def start(self) -> AsyncIterator[Request]:
        if self.args.listing == ALL_CASES:
            yield self._list_request(self.base_url + "list_perkara", page=1, template=None)
        else:
            # The listing is a menu entry: read the menu from the court's root page first.
            yield Request(
                self.base_url,
                callback=self.parse_menu,
                priority=PRIORITY_LIST,
                meta=self._list_meta(page=0),
            )

    # --- routing ------------------------------------------------------------------------------

    def parse_menu(self, response: Response) -> Iterator[Request]:
        raise_for_page_error(response)
        page = parsed(self, response, lambda: parse_list_page(response.text, response.url))
        wanted = self.args.listing.casefold()
        for entry in page.menu:
            if entry.label.strip().casefold() == wanted:
                yield self._list_request(entry.url, page=1, template=None)
                return
        labels = ", ".join(sorted({e.label for e in page.menu})) or "(no menu found)"
        message = (
            f"-a listing={self.args.listing!r} is not in the court's menu; "
            f"choose one of: all, {labels}"
        )
        logger.error("%s", message)
        raise BadListing(message)

    def parse_list(self, response: Response) -> Iterator[Request | RowProblem]:
        raise_for_page_error(response)
        page = parsed(self, response, lambda: parse_list_page(response.text, response.url))
        number: int = response.meta["sipp_page"]
        for bad in page.row_errors:  # one bad row never fails the page
            yield RowProblem("row_error", response.url, bad.row, bad.problem)
        bad_rows = {bad.row for bad in page.row_errors}
        positions = [p for p in range(1, len(page.rows) + len(bad_rows) + 1) if p not in bad_rows]
        seen: dict[str, tuple[int, str]] = {}  # normalised number -> (row, raw number)
        stop = False
        for offset, row in enumerate(page.rows):
            key = identity.normalise_case_number(row.nomor_perkara)
            if key in seen:
                if seen[key][1] != row.nomor_perkara:
                    yield RowProblem(
                        "number_clash",
                        response.url,
                        positions[offset],
                        f"case numbers {seen[key][1]!r} (row {seen[key][0]}) and "
                        f"{row.nomor_perkara!r} (row {positions[offset]}) normalise to one "
                        f"key {key!r}: only the first is crawled",
                    )
                continue
            seen[key] = (positions[offset], row.nomor_perkara)
            index = (number - 1) * PAGE_SIZE + offset
            if self.args.max_cases is not None and index >= self.args.max_cases:
                stop = True
                break
            if row.registered is not None:
                if self.args.until is not None and row.registered > self.args.until:
                    continue
                if self.args.since is not None and row.registered < self.args.since:
                    stop = True  # newest first: everything after this is older
                    break
            if self.planner is not None and self.planner.decide(key, row.data) is None:
                continue
            yield self._case_request(row)
        if self.planner is not None and not self._refresh_page_done():
            logger.info(
                "refresh walk of %s stops after list page %d: every row known and unchanged, "
                "no due case left to meet",
                self.court_id,
                number,
            )
            stop = True
        template = page.page_url_template or response.meta.get("sipp_template")
        more = (page.total_cases is None or number * PAGE_SIZE < page.total_cases) and bool(
            page.rows or page.row_errors
        )
        if stop or page.no_data or not more:
            return
        if template is None:
            logger.warning(
                "no paging template on %s; stopping after page %d", response.url, number
            )
            return
        yield self._list_request(
            template.format(page=number + 1), page=number + 1, template=template
        )

    def parse_case(self, response: Response) -> Iterator[CasePart | Request]:
        raise_for_page_error(response)
        context = response.meta[META_PARSE_CONTEXT]
        part, detail = parsed(
            self,
            response,
            lambda: build_case_part(
                self.court_id, context, response.text, response.url, utc_now()
            ),
        )
        yield part
        raw_number: str = context["case_raw"]
        for tab in detail.tabs:
            if tab.available and self.args.wants_tab(tab.slug):
                yield self._tab_request(
                    raw_number, tab.slug, tab.url, labels_missing=detail.party_labels_missing
                )

    def parse_tab(self, response: Response) -> Iterator[CasePart]:
        raise_for_page_error(response)
        context = response.meta[META_PARSE_CONTEXT]
        yield parsed(
            self,
            response,
            lambda: build_tab_part(self.court_id, context, response.text, response.url, utc_now()),
        )

    def _refresh_page_done(self) -> bool:
        """A list page of a refresh walk is decided: whether to walk on; the planner's counts
        of this run become the stats ``harvest/refresh/<name>``."""
        assert self.planner is not None
        walk_on = self.planner.end_page()
        if not walk_on:
            self.planner.counts["stopped"] = self.planner.counts.get("stopped", 0) + 1
        stats = self.crawler.stats if getattr(self, "crawler", None) is not None else None
        if stats is not None:
            for name, count in self.planner.counts.items():
                stats.set_value(REFRESH_STAT + name, count)
        return walk_on

    # --- requests -----------------------------------------------------------------------------

    def _generation_meta(self) -> dict[str, Any]:
        if self.generation is None:
            return {}
        return {META_REFRESH_GENERATION: self.generation.number}

    def _list_meta(self, page: int) -> dict[str, Any]:
        return {
            META_KEY: identity.list_key(self.court_id, self.args.listing, page),
            META_COOKIEJAR: f"{self.court_id}|list",
            META_EXPECT: "list",
            META_FULL_PAGE: True,
            "sipp_page": page,
            **self._generation_meta(),
        }

    def _list_request(self, url: str, *, page: int, template: str | None) -> Request:
        meta = self._list_meta(page)
        if template is not None:
            meta["sipp_template"] = template
        return Request(url, callback=self.parse_list, priority=PRIORITY_LIST, meta=meta)

    def _case_request(self, row: ListRow) -> Request:
        number = identity.normalise_case_number(row.nomor_perkara)
        group = identity.case_group(self.court_id, number)
        return Request(
            row.detail_url,
            callback=self.parse_case,
            priority=PRIORITY_CASE,
            # show_* redirects to one fixed URL for every case: never filter by URL.
            dont_filter=True,
            meta={
                META_KEY: identity.case_key(self.court_id, number),
                META_GROUP: group,
                META_COOKIEJAR: group,
                META_EXPECT: "detail",
                META_CASE: number,
                META_FULL_PAGE: True,
                META_PARSE_CONTEXT: case_context(row),
                **self._generation_meta(),
            },
        )

    def _tab_request(
        self, raw_number: str, slug: str, url: str, *, labels_missing: bool
    ) -> Request:
        number = identity.normalise_case_number(raw_number)
        group = identity.case_group(self.court_id, number)
        return Request(
            url,
            callback=self.parse_tab,
            priority=PRIORITY_TAB,
            dont_filter=True,
            meta={
                META_KEY: identity.tab_key(self.court_id, number, slug),
                META_GROUP: group,
                META_COOKIEJAR: group,
                META_EXPECT: "tab",
                META_NEEDS_WARM: True,
                META_WARMUP_URL: self.base_url,
                META_LABELS_MISSING: labels_missing,
                META_PARSE_CONTEXT: tab_context(raw_number, slug),
                **self._generation_meta(),
            },
        )
