"""The ``sipp`` spider: routing only. List pages -> each case's detail -> each of its tabs.

Parsing lives in :mod:`harvest.sipp` (pure functions; their parse warnings are counted and
recorded through :mod:`harvest.parse_report`), page validation in
:mod:`harvest.validation`, sessions in :mod:`harvest.sessions`, request state in
:mod:`extensions`. Every request carries the logical key and group of docs/contracts.md.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from scrapy import Request, Spider
from scrapy.exceptions import CloseSpider
from scrapy.http import Response

from extensions.config import SchedulerConfig
from extensions.store import StateError
from harvest import identity
from harvest.clock import utc_now
from harvest.courts import REGISTERED, CourtEntry, read_courts
from harvest.dburl import DATABASE_URL_ENV, database_url
from harvest.exit_status import BAD_LISTING
from harvest.items import CasePart, RowProblem
from harvest.meta import (
    META_CASE,
    META_COOKIEJAR,
    META_COURT,
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
from harvest.spider_args import ALL_CASES, MULTI_ARGUMENTS, SippArgs, SpiderArgumentError
from harvest.validation import raise_for_page_error
from harvest.workspace import resolve_workspace
from pipelines.store import ItemStoreError

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

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


#: ``spider.court_id`` of a multi-court crawl (its courts: ``spider.courts``).
MULTI_COURT_ID = "multi"


@dataclasses.dataclass
class CourtCrawl:
    """One court of the crawl: its arguments, generation and refresh planner."""

    args: SippArgs
    #: the court's generation this crawl works in, set by the scheduler (on_generation)
    generation: Generation | None = None
    #: the refresh walk's planner: only in a refresh generation (number > 0)
    planner: RefreshPlanner | None = None

    @property
    def court_id(self) -> str:
        return self.args.court_id

    @property
    def base_url(self) -> str:
        return self.args.base_url


class SippSpider(Spider):
    """``scrapy crawl sipp -a base_url=<court SIPP root>`` (see README for every argument), or
    ``-a courts=FILE|registered`` for many courts in one crawl (docs/multi-court.md)."""

    name = "sipp"

    def __init__(self, **kwargs: Any) -> None:
        # Every -a argument is checked before any request: an unknown name (a typo such as
        # max_case) or value stops the crawl (exit 1) with the closest valid name or the values.
        given = {k: v for k, v in kwargs.items() if k not in MULTI_ARGUMENTS}
        source = kwargs.get("courts")
        #: the courts of a multi-court crawl by id (empty: one court, ``-a base_url``)
        self.courts: dict[str, CourtCrawl] = {}
        #: ``-a max_courts``: a worker's limit of courts open at once (None: every court)
        self.max_courts: int | None = None
        #: ``-a courts=``: a court list file or ``registered`` ("" for one court)
        self.courts_source = ""
        if source is None and kwargs.get("max_courts") is not None:
            raise SpiderArgumentError("-a max_courts needs -a courts=FILE or -a courts=registered")
        if source is not None:
            self.courts_source = str(source).strip()
            if given.get("base_url") or given.get("court_id"):
                raise SpiderArgumentError(
                    "-a courts=... and -a base_url/court_id both name the courts: give one "
                    "(a court list, or a single court)"
                )
            self.max_courts = SippArgs.positive("max_courts", kwargs.get("max_courts"))
            # the shared arguments, checked with a placeholder court
            self.args = SippArgs.from_arguments({**given, "base_url": "http://courts.invalid/"})
            if self.courts_source.lower() != REGISTERED:
                self.courts = self._courts_of(read_courts(self.courts_source))
            # registered: read from the state in from_crawler (the settings name the store)
        else:
            self.args = SippArgs.from_arguments(given)
        super().__init__(**{k: v for k, v in kwargs.items() if k.startswith("_")})
        self._single = CourtCrawl(self.args)
        multi = source is not None
        self.court_id = self.args.court_id if not multi else MULTI_COURT_ID
        self.base_url = self.args.base_url if not multi else ""
        #: read by the scheduler when it opens the court's generation (docs/refresh.md)
        self.refresh_policy = self.args.refresh
        self._refresh_config: RefreshConfig | None = None

    def _courts_of(self, entries: Sequence[CourtEntry]) -> dict[str, CourtCrawl]:
        if not entries:
            raise SpiderArgumentError(
                f"-a courts={self.courts_source}: no court to crawl; register courts with "
                "scrapy courts add FILE (docs/multi-court.md)"
            )
        shared = self.args
        out: dict[str, CourtCrawl] = {}
        for entry in entries:
            args = dataclasses.replace(
                shared,
                base_url=entry.base_url,
                court_id=entry.court_id,
                listing=(entry.listing or shared.listing).strip() or ALL_CASES,
                tabs=SippArgs.tab_set(entry.tabs) if entry.tabs else shared.tabs,
            )
            out[entry.court_id] = CourtCrawl(args)
        return out

    def _registered_courts(self, settings: BaseSettings) -> list[CourtEntry]:
        """The courts registered in the state (``scrapy courts add FILE``)."""
        config = SchedulerConfig.from_settings(settings)
        try:
            store = config.open_store(readonly=True)
        except StateError:
            return []  # no state yet: nothing registered
        try:
            records = store.courts()
        finally:
            store.close()
        return [CourtEntry(r.court, r.base_url, r.listing, r.tabs) for r in records]

    # --- the courts ------------------------------------------------------------------------

    def court_of(self, meta: Any) -> CourtCrawl:
        """The court a request or response belongs to (``meta["harvest_court"]``)."""
        if self.courts:
            court = meta.get(META_COURT)
            if court in self.courts:
                return self.courts[court]
            raise KeyError(f"request names no court of this crawl (meta {META_COURT}={court!r})")
        return self._single

    def base_url_of(self, meta: Any) -> str | None:
        """The court's SIPP root for a request's meta (``extensions.guard``); None: unknown."""
        try:
            return self.court_of(meta).base_url
        except KeyError:
            return None

    @property
    def generation(self) -> Generation | None:
        """The generation of the (single) court."""
        return self._single.generation

    @generation.setter
    def generation(self, value: Generation | None) -> None:
        self._single.generation = value

    @property
    def planner(self) -> RefreshPlanner | None:
        """The refresh planner of the (single) court."""
        return self._single.planner

    @planner.setter
    def planner(self, value: RefreshPlanner | None) -> None:
        self._single.planner = value

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        spider = super().from_crawler(crawler, *args, **kwargs)
        if getattr(spider, "courts_source", "").lower() == REGISTERED:
            spider.courts = spider._courts_of(spider._registered_courts(crawler.settings))
            spider.court_id = MULTI_COURT_ID
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
        court = self.courts.get(generation.court, self._single)
        court.generation = generation
        if generation.number == 0 or generation.policy not in ("due", "all"):
            return
        workspace = resolve_workspace(self.settings.get("HARVEST_WORKSPACE"))
        url = database_url(self.settings.get(DATABASE_URL_ENV))
        try:
            court.planner = RefreshPlanner.load(
                court=court.court_id,
                generation=generation,
                generations=store.generations(court.court_id),
                case_rows=store.row_states(court.court_id, "case"),
                documents=lambda: court_documents(workspace, url, court.court_id),
                config=self.refresh_config,
            )
        except ItemStoreError as exc:
            # one line and exit 1, like every store that cannot be used at the start
            raise StateError(f"cannot plan the refresh of {court.court_id}: {exc}") from exc

    async def start(self) -> AsyncIterator[Request]:
        if self.courts:
            # a multi-court crawl: the scheduler asks for a court's first requests when it
            # opens the court (start_court), so a worker starts only the courts it claims
            return
        for request in self.start_court(self.court_id):
            yield request

    def start_court(self, court_id: str) -> Iterator[Request]:
        """The first requests of one court: its first list page, or its menu."""
        court = self.courts[court_id] if self.courts else self._single
        if court.args.listing == ALL_CASES:
            yield self._list_request(court, court.base_url + "list_perkara", page=1, template=None)
        else:
            # The listing is a menu entry: read the menu from the court's root page first.
            yield Request(
                court.base_url,
                callback=self.parse_menu,
                priority=PRIORITY_LIST,
                meta=self._list_meta(court, page=0),
            )

    # --- routing ------------------------------------------------------------------------------

    def parse_menu(self, response: Response) -> Iterator[Request]:
        raise_for_page_error(response)
        court = self.court_of(response.meta)
        page = parsed(self, response, lambda: parse_list_page(response.text, response.url))
        wanted = court.args.listing.casefold()
        for entry in page.menu:
            if entry.label.strip().casefold() == wanted:
                yield self._list_request(court, entry.url, page=1, template=None)
                return
        labels = ", ".join(sorted({e.label for e in page.menu})) or "(no menu found)"
        menu = f"the menu of {court.court_id}" if self.courts else "the court's menu"
        message = (
            f"-a listing={court.args.listing!r} is not in {menu}; choose one of: all, {labels}"
        )
        logger.error("%s", message)
        raise BadListing(message)

    def parse_list(self, response: Response) -> Iterator[Request | RowProblem]:
        raise_for_page_error(response)
        court = self.court_of(response.meta)
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
            if court.args.max_cases is not None and index >= court.args.max_cases:
                stop = True
                break
            if row.registered is not None:
                if court.args.until is not None and row.registered > court.args.until:
                    continue
                if court.args.since is not None and row.registered < court.args.since:
                    stop = True  # newest first: everything after this is older
                    break
            if court.planner is not None and court.planner.decide(key, row.data) is None:
                continue
            yield self._case_request(court, row)
        if court.planner is not None and not self._refresh_page_done(court):
            logger.info(
                "refresh walk of %s stops after list page %d: every row known and unchanged, "
                "no due case left to meet",
                court.court_id,
                number,
            )
            stop = True
        self._note_published(court, page.total_cases)
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
            court, template.format(page=number + 1), page=number + 1, template=template
        )

    def parse_case(self, response: Response) -> Iterator[CasePart | Request]:
        raise_for_page_error(response)
        court = self.court_of(response.meta)
        context = response.meta[META_PARSE_CONTEXT]
        part, detail = parsed(
            self,
            response,
            lambda: build_case_part(
                court.court_id, context, response.text, response.url, utc_now()
            ),
        )
        yield part
        raw_number: str = context["case_raw"]
        for tab in detail.tabs:
            if tab.available and court.args.wants_tab(tab.slug):
                yield self._tab_request(
                    court,
                    raw_number,
                    tab.slug,
                    tab.url,
                    labels_missing=detail.party_labels_missing,
                )

    def parse_tab(self, response: Response) -> Iterator[CasePart]:
        raise_for_page_error(response)
        court = self.court_of(response.meta)
        context = response.meta[META_PARSE_CONTEXT]
        yield parsed(
            self,
            response,
            lambda: build_tab_part(
                court.court_id, context, response.text, response.url, utc_now()
            ),
        )

    def _note_published(self, court: CourtCrawl, total: int | None) -> None:
        """The court's published case count for this crawl (``Total : N Perkara``, capped by
        ``-a max_cases``) as the stat ``harvest/list/published_cases/<court>``: the progress
        line's denominator. Unknown with ``since``/``until`` (a date window of the list)."""
        stats = self.crawler.stats if getattr(self, "crawler", None) is not None else None
        if stats is None or total is None or court.args.since or court.args.until:
            return
        if court.args.max_cases is not None:
            total = min(total, court.args.max_cases)
        stats.max_value(f"harvest/list/published_cases/{court.court_id}", total)

    def _refresh_page_done(self, court: CourtCrawl) -> bool:
        """A list page of a refresh walk is decided: whether to walk on; the planner's counts
        of this run become the stats ``harvest/refresh/<name>`` (summed over the courts)."""
        planner = court.planner
        assert planner is not None
        walk_on = planner.end_page()
        if not walk_on:
            planner.counts["stopped"] = planner.counts.get("stopped", 0) + 1
        stats = self.crawler.stats if getattr(self, "crawler", None) is not None else None
        if stats is not None:
            planners = [c.planner for c in self.courts.values()] if self.courts else [planner]
            totals: dict[str, int] = {}
            for each in planners:
                for name, count in (each.counts if each is not None else {}).items():
                    totals[name] = totals.get(name, 0) + count
            for name, count in totals.items():
                stats.set_value(REFRESH_STAT + name, count)
        return walk_on

    # --- requests -----------------------------------------------------------------------------

    def _generation_meta(self, court: CourtCrawl) -> dict[str, Any]:
        meta: dict[str, Any] = {}
        if self.courts:
            # routes the request to its court's scheduler lane and politeness slot
            meta[META_COURT] = court.court_id
            meta["download_slot"] = court.court_id
        if court.generation is not None:
            meta[META_REFRESH_GENERATION] = court.generation.number
        return meta

    def _list_meta(self, court: CourtCrawl, page: int) -> dict[str, Any]:
        return {
            META_KEY: identity.list_key(court.court_id, court.args.listing, page),
            META_COOKIEJAR: f"{court.court_id}|list",
            META_EXPECT: "list",
            META_FULL_PAGE: True,
            "sipp_page": page,
            **self._generation_meta(court),
        }

    def _list_request(
        self, court: CourtCrawl, url: str, *, page: int, template: str | None
    ) -> Request:
        meta = self._list_meta(court, page)
        if template is not None:
            meta["sipp_template"] = template
        return Request(url, callback=self.parse_list, priority=PRIORITY_LIST, meta=meta)

    def _case_request(self, court: CourtCrawl, row: ListRow) -> Request:
        number = identity.normalise_case_number(row.nomor_perkara)
        group = identity.case_group(court.court_id, number)
        return Request(
            row.detail_url,
            callback=self.parse_case,
            priority=PRIORITY_CASE,
            # show_* redirects to one fixed URL for every case: never filter by URL.
            dont_filter=True,
            meta={
                META_KEY: identity.case_key(court.court_id, number),
                META_GROUP: group,
                META_COOKIEJAR: group,
                META_EXPECT: "detail",
                META_CASE: number,
                META_FULL_PAGE: True,
                META_PARSE_CONTEXT: case_context(row),
                **self._generation_meta(court),
            },
        )

    def _tab_request(
        self, court: CourtCrawl, raw_number: str, slug: str, url: str, *, labels_missing: bool
    ) -> Request:
        number = identity.normalise_case_number(raw_number)
        group = identity.case_group(court.court_id, number)
        return Request(
            url,
            callback=self.parse_tab,
            priority=PRIORITY_TAB,
            dont_filter=True,
            meta={
                META_KEY: identity.tab_key(court.court_id, number, slug),
                META_GROUP: group,
                META_COOKIEJAR: group,
                META_EXPECT: "tab",
                META_NEEDS_WARM: True,
                META_WARMUP_URL: court.base_url,
                META_LABELS_MISSING: labels_missing,
                META_PARSE_CONTEXT: tab_context(raw_number, slug),
                **self._generation_meta(court),
            },
        )
