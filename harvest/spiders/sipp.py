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

from scrapy import Request, Spider, signals
from scrapy.exceptions import CloseSpider
from scrapy.http import FormRequest, HtmlResponse, Response

from extensions.config import SchedulerConfig
from extensions.store import StateError
from harvest.archive.followups import menus_not_followed
from harvest.base import identity
from harvest.base.clock import utc_now
from harvest.base.close_reasons import BAD_LISTING
from harvest.base.dburl import DATABASE_URL_ENV, database_url
from harvest.base.items import CasePart, RowProblem
from harvest.base.meta import (
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
    META_SHOWN_LABELS,
    META_WARMUP_URL,
)
from harvest.base.workspace import resolve_workspace
from harvest.court_check import CRAWLED, check_courts, recheck_after, stale
from harvest.courts import REGISTERED, CourtEntry, read_courts
from harvest.errors import PageError
from harvest.parse_report import parsed
from harvest.parts import build_case_part, build_tab_part, case_context, tab_context
from harvest.refresh.planner import STAT as REFRESH_STAT
from harvest.refresh.planner import RefreshConfig, RefreshPlanner, calendar_days, court_documents
from harvest.sipp import ListRow, ParseError, parse_list_page
from harvest.sipp.calendar_page import next_calendar_page, parse_calendar_page
from harvest.sipp.list_page import by_case_number, listing_enc
from harvest.sipp.pailit import MENU_SLUG, sub_page_links, sub_page_slug
from harvest.spider_args import ALL_CASES, MULTI_ARGUMENTS, SippArgs, SpiderArgumentError
from harvest.validation import raise_for_page_error
from pipelines.store import ItemStoreError

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings
    from twisted.python.failure import Failure

    from extensions.store import Generation, RequestStore

logger = logging.getLogger(__name__)

#: Rows per list page (fixed by SIPP).
PAGE_SIZE = 20
#: The listing key suffix of a day search (``list|<court>|<listing> day <YYYY-MM-DD>|<page>``).
DAY_SEARCH = " day "
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
    #: the court's access by its last check (``scrapy courts check``; None: not checked)
    access: str | None = None
    #: the court's proxy (a URL without credentials or ``env:NAME``; None: none)
    proxy: str | None = None
    #: the hearing calendar days a due refresh reads before its walk (docs/refresh.md)
    calendar_days: list[dt.date] = dataclasses.field(default_factory=list)
    #: calendar days not read yet: the walk starts when none is left
    calendar_waiting: int = 0
    #: the list rows this walk has met, by normalised case number (the overlap check)
    walk_rows: set[str] = dataclasses.field(default_factory=set)
    #: registration days searched by this walk because a row showed up twice
    days_searched: set[str] = dataclasses.field(default_factory=set)
    #: requests the court's crawl starts with besides its walk: the sub pages of bankruptcy
    #: menus an older release fetched without following (harvest/archive/followups.py)
    followups: list[Request] = dataclasses.field(default_factory=list)

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
        #: registered courts' access by their last check (those crawled; None: not checked)
        self.court_access: dict[str, str | None] = {}
        #: registered courts left out by their check: court id -> access
        self.not_crawled: dict[str, str] = {}
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
            out[entry.court_id] = CourtCrawl(
                args, access=self.court_access.get(entry.court_id), proxy=entry.proxy
            )
        return out

    def _registered_courts(self, settings: BaseSettings) -> list[CourtEntry]:
        """The registered courts (``scrapy courts add FILE``) this crawl takes: those whose
        last check (``scrapy courts check``; again first when older than
        ``HARVEST_COURTS_RECHECK_AFTER`` seconds) allows a crawl, or that were never checked,
        at their effective base URL (docs/national.md)."""
        config = SchedulerConfig.from_settings(settings)
        recheck = recheck_after(settings)
        try:
            store = config.open_store(readonly=not recheck)
        except StateError:
            if recheck:
                raise
            return []  # no state yet: nothing registered
        try:
            records = store.courts()
            if recheck:
                now = dt.datetime.now(dt.UTC)
                due = [r for r in records if stale(r, recheck, now)]
                if due:
                    logger.info(
                        "checking %d courts first (HARVEST_COURTS_RECHECK_AFTER)", len(due)
                    )
                    for record, check in check_courts(due, settings):
                        store.record_court_check(record.court, check)
                    records = store.courts()
        finally:
            store.close()
        out: list[CourtEntry] = []
        for r in records:
            if r.access is not None and r.access not in CRAWLED:
                self.not_crawled[r.court] = r.access
                logger.info(
                    "court %s is not crawled: its check (%s) says %s: %s",
                    r.court, r.checked_at, r.access, r.reason or "",
                )  # fmt: skip
                continue
            self.court_access[r.court] = r.access
            out.append(CourtEntry(r.court, r.crawl_url, r.listing, r.tabs, proxy=r.proxy))
        return out

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
            entries = spider._registered_courts(crawler.settings)
            if spider.not_crawled:
                crawler.signals.connect(spider._count_not_crawled, signal=signals.spider_opened)
            if not entries and spider.not_crawled:
                raise SpiderArgumentError(
                    f"-a courts=registered: none of the {len(spider.not_crawled)} registered "
                    "courts can be crawled by their check (scrapy status shows why; scrapy "
                    "courts check to check again)"
                )
            spider.courts = spider._courts_of(entries)
            spider.court_id = MULTI_COURT_ID
        # HARVEST_REFRESH_* checked before the engine starts: a bad value refuses the crawl in
        # one line (SettingsError, exit 1), like every other setting
        spider.refresh_config  # noqa: B018
        return spider

    def rebuild_from_archive(self, court: str) -> int:
        """Rebuild the parts of ``court`` that the item store lacks from the page archive.

        Called by the scheduler at the start of a court's crawl, holding its crawl lock, when
        ok requests are found without their parts (a lost or truncated item store): what the
        archive holds is re-parsed (``scrapy reparse`` semantics, no network), so that only
        what it lacks is sent back to be fetched again. Returns the parts written (0: no
        archive).
        """
        from harvest.archive.reparse import reparse
        from harvest.archive.store import ARCHIVE_DIR, INDEX_DB

        workspace = resolve_workspace(self.settings.get("HARVEST_WORKSPACE"))
        if not (workspace / ARCHIVE_DIR / INDEX_DB).exists():
            return 0
        report = reparse(
            workspace,
            court=court,
            take_crawl_lock=False,
            database_url=database_url(self.settings.get(DATABASE_URL_ENV)),
        )
        logger.info(
            "rebuilt %d parts of %s from the page archive (%d pages read, %d failed)",
            report.created + report.updated,
            court,
            report.pages,
            len(report.failed),
        )
        return report.created + report.updated

    def _count_not_crawled(self) -> None:
        """Stat ``harvest/courts/not_crawled``: registered courts left out by their check."""
        stats = self.crawler.stats
        if stats is not None:
            stats.set_value("harvest/courts/not_crawled", len(self.not_crawled))

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

    def rebuild_older_parts(self, court_id: str) -> None:
        """Called by the scheduler at the start of a court's crawl, with its lock held: parts
        of an older item format are re-parsed from the page archive (harvest/archive/upgrade)."""
        from harvest.archive.upgrade import rebuild_older_parts

        workspace = resolve_workspace(self.settings.get("HARVEST_WORKSPACE"))
        url = database_url(self.settings.get(DATABASE_URL_ENV))
        try:
            done = rebuild_older_parts(workspace, court_id, database_url=url)
        except ItemStoreError as exc:
            raise StateError(f"cannot upgrade the parts of {court_id}: {exc}") from exc
        stats = self.crawler.stats if getattr(self, "crawler", None) is not None else None
        if stats is not None and done.older:
            stats.inc_value("harvest/upgrade/older_parts", done.older)
            stats.inc_value("harvest/upgrade/rebuilt_from_archive", done.rebuilt)

    def on_generation(self, generation: Generation, store: RequestStore) -> None:
        """Called by the scheduler once it knows the court's generation: a refresh generation
        (number > 0, policy due or all) plans its walk from the stored rows and items."""
        court = self.courts.get(generation.court, self._single)
        court.generation = generation
        workspace = resolve_workspace(self.settings.get("HARVEST_WORKSPACE"))
        # bankruptcy menus done by an older release, which did not fetch their sub pages
        rows = [(r.key, str(r.status)) for r in store.row_states(court.court_id, "tab")]
        for menu in menus_not_followed(workspace, rows):
            court.followups.extend(
                self._sub_page_requests(court, menu.case_raw, menu.html, menu.url)
            )
        if court.followups:
            logger.info(
                "%d bankruptcy sub pages of menus an older harvest did not follow are fetched",
                len(court.followups),
            )
        if generation.number == 0 or generation.policy not in ("due", "all"):
            return
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
        fresh = not any(
            r.generation >= generation.number for r in store.row_states(court.court_id, "list")
        )
        if generation.policy == "due" and self.refresh_config.calendar and fresh:
            # only the run that begins the generation reads the calendar (a resumed one
            # carries on with the rows it left: docs/refresh.md "Limits")
            court.calendar_days = calendar_days(
                store.generations(court.court_id), generation, self.refresh_config.max_days
            )

    async def start(self) -> AsyncIterator[Request]:
        if self.courts:
            # a multi-court crawl: the scheduler asks for a court's first requests when it
            # opens the court (start_court), so a worker starts only the courts it claims
            return
        for request in self.start_court(self.court_id):
            yield request

    def start_court(self, court_id: str) -> Iterator[Request]:
        """The first requests of one court: its first list page, or its menu; in a due
        refresh first the hearing calendar of the days since the last one (the walk starts
        once they are read)."""
        court = self.courts[court_id] if self.courts else self._single
        followups, court.followups = court.followups, []
        yield from followups
        if court.calendar_days and court.planner is not None:
            court.calendar_waiting = len(court.calendar_days)
            for day in court.calendar_days:
                url = f"{court.base_url}list_jadwal_sidang/search/1/{day:%d/%m/%Y}"
                yield self._calendar_request(court, url, day=day, page=1)
            return
        yield from self._walk_start(court)

    def _walk_start(self, court: CourtCrawl) -> Iterator[Request]:
        # a new walk: the overlap check starts with nothing met
        court.walk_rows.clear()
        court.days_searched.clear()
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

    def parse_calendar(self, response: Response) -> Iterator[Request]:
        """One page of one day's hearing calendar: its cases heard since their last fetch
        become due; the day's next page, or, after the last day, the walk."""
        court = self.court_of(response.meta)
        day = dt.date.fromisoformat(response.meta["sipp_calendar_day"])
        number: int = response.meta["sipp_calendar_page"]
        planner = court.planner
        assert planner is not None
        try:
            raise_for_page_error(response)
            page = parse_calendar_page(response.text, response.url)
        except (ParseError, PageError) as exc:
            yield from self._calendar_day_done(court, day, failed=str(exc))
            return
        planner.counts["calendar_pages"] = planner.counts.get("calendar_pages", 0) + 1
        for case_number in page.numbers:
            planner.heard(case_number, day)
        following = next_calendar_page(page, number)
        if following is not None and page.page_url_template:
            url = page.page_url_template.format(page=following)
            yield self._calendar_request(court, url, day=day, page=following)
            return
        yield from self._calendar_day_done(court, day)

    def calendar_failed(self, failure: Failure) -> Iterator[Request]:
        """A calendar page that failed for good (the court may not serve the calendar)."""
        request = failure.request  # type: ignore[attr-defined]
        court = self.court_of(request.meta)
        day = dt.date.fromisoformat(request.meta["sipp_calendar_day"])
        yield from self._calendar_day_done(court, day, failed=failure.getErrorMessage())

    def _calendar_day_done(
        self, court: CourtCrawl, day: dt.date, *, failed: str | None = None
    ) -> Iterator[Request]:
        planner = court.planner
        assert planner is not None
        if failed is not None:
            planner.counts["calendar_failed"] = planner.counts.get("calendar_failed", 0) + 1
            logger.warning(
                "hearing calendar of %s for %s not read (%s): its hearings are left to the "
                "due policy",
                court.court_id,
                day.isoformat(),
                failed,
            )
        court.calendar_waiting -= 1
        if court.calendar_waiting == 0:
            logger.info(
                "hearing calendar of %s read (%d days): %d known cases heard since their last "
                "fetch are due",
                court.court_id,
                len(court.calendar_days),
                planner.counts.get("calendar_due", 0),
            )
            yield from self._walk_start(court)

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
        repeated_days: set[str] = set()
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
            if key in court.walk_rows:
                # met on an earlier page: the day's cases are ordered differently per request
                # (tglPendaftaran DESC alone), so one of that day may have been skipped
                self._count_stat(court, "repeated_rows")
                if row.registered is not None:
                    repeated_days.add(row.registered)
                continue
            court.walk_rows.add(key)
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
        for day in sorted(repeated_days - court.days_searched):
            court.days_searched.add(day)
            yield from self._day_search(court, response.url, day, template)
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

    def parse_day_search(self, response: Response) -> Iterator[Request]:
        """A page of one registration day's cases (a keyword search for the day, searched
        because a row of that day showed up twice in the walk): its cases the walk has not
        met. More than a page of them: every page again ordered by case number (``col/1``),
        an order that cannot skip or repeat (docs/sipp.md "Same-day cases across pages")."""
        raise_for_page_error(response)
        court = self.court_of(response.meta)
        page = parsed(self, response, lambda: parse_list_page(response.text, response.url))
        day: str = response.meta["sipp_day"]
        number: int = response.meta["sipp_page"]
        if number == 0 and page.total_cases and page.total_cases > PAGE_SIZE:
            if page.page_url_template is None:
                logger.warning("day search %s of %s has no paging template", day, court.court_id)
            else:
                ordered = by_case_number(page.page_url_template)
                for k in range(1, -(-page.total_cases // PAGE_SIZE) + 1):
                    yield self._day_request(court, ordered.format(page=k), day=day, page=k)
        for row in page.rows:
            key = identity.normalise_case_number(row.nomor_perkara)
            if row.registered != day or key in court.walk_rows:
                continue
            court.walk_rows.add(key)
            self._count_stat(court, "found_by_day_search")
            if court.args.until is not None and day > court.args.until:
                continue
            if court.args.since is not None and day < court.args.since:
                continue
            if court.planner is not None and court.planner.decide(key, row.data) is None:
                continue
            yield self._case_request(court, row)

    def _day_search(
        self, court: CourtCrawl, url: str, day: str, template: str | None
    ) -> Iterator[Request]:
        """The keyword search of one registration day in the walk's listing: the list page's
        own search form (``search_keyword`` matches ``tglPendaftaran``, perkara_m.php:188;
        ``enc`` keeps the listing's flow, list_perkara.php:71)."""
        enc = listing_enc(template)
        if enc is None:
            logger.warning(
                "a case of %s showed up twice on the list of %s but the list has no search "
                "form to search the day with: a case of that day may be missed",
                day,
                court.court_id,
            )
            return
        self._count_stat(court, "day_searches")
        search = url.split("/list_perkara", 1)[0] + "/list_perkara/search"
        meta = self._list_meta(court, page=0)
        meta.update(
            {
                META_KEY: identity.list_key(
                    court.court_id, court.args.listing + DAY_SEARCH + day, 0
                ),
                "sipp_day": day,
            }
        )
        yield FormRequest(
            search,
            formdata={"search_keyword": day, "enc": enc},
            callback=self.parse_day_search,
            priority=PRIORITY_LIST,
            dont_filter=True,
            meta=meta,
        )

    def _day_request(self, court: CourtCrawl, url: str, *, day: str, page: int) -> Request:
        meta = self._list_meta(court, page=page)
        meta.update(
            {
                META_KEY: identity.list_key(
                    court.court_id, court.args.listing + DAY_SEARCH + day, page
                ),
                "sipp_day": day,
            }
        )
        return Request(url, callback=self.parse_day_search, priority=PRIORITY_LIST, meta=meta)

    def _count_stat(self, court: CourtCrawl, name: str) -> None:
        stats = self.crawler.stats if getattr(self, "crawler", None) is not None else None
        if stats is not None:
            stats.inc_value(f"harvest/list/{name}")

    def parse_case(self, response: Response) -> Iterator[CasePart | Request]:
        raise_for_page_error(response)
        court = self.court_of(response.meta)
        context = response.meta[META_PARSE_CONTEXT]
        # the show_detil/<tok> URL: a page the app cut short builds its tab URLs from it
        show_url: str = (response.meta.get("redirect_urls") or [response.url])[0]
        part, detail = parsed(
            self,
            response,
            lambda: build_case_part(
                court.court_id,
                context,
                response.text,
                response.url,
                utc_now(),
                show_url=show_url,
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
                    shown_labels=detail.party_labels,
                )

    def parse_tab(self, response: Response) -> Iterator[CasePart | Request]:
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
        if context.get("tab") == MENU_SLUG:
            # the bankruptcy follow-up menu: each sub page it links is a request of the case
            yield from self._sub_page_requests(
                court, context["case_raw"], response.text, response.url
            )

    def _sub_page_requests(
        self, court: CourtCrawl, raw_number: str, html: str, url: str
    ) -> Iterator[Request]:
        for link in sub_page_links(html, url):
            yield self._tab_request(
                court, raw_number, sub_page_slug(link.route), link.url, labels_missing=False
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

    def request_from_row(self, kind: str, key: str, url: str, method: str) -> Request | None:
        """A stored request rebuilt from its row, for the scheduler when its pickle cannot be
        read (written by an older harvest in another format): the request this spider makes
        for that key, at the row's URL. A case's list row (its parse context) comes from its
        archived detail page, else from the court's archived list pages; without either the
        case is rebuilt without it (the list-only fields stay unknown until the next refresh).
        ``None`` for a key of another court or kind."""
        parts = key.split("|")
        if method != "GET" or len(parts) < 3:
            return None
        court_id = parts[1]
        court = self.courts.get(court_id) if self.courts else self._single
        if court is None or court.court_id != court_id:
            return None
        if kind == "list" and len(parts) == 4 and DAY_SEARCH in parts[2] and parts[3].isdigit():
            # a col/1 page of a day search (its first request is a POST: not rebuilt)
            day = parts[2].rsplit(DAY_SEARCH, 1)[1]
            return self._day_request(court, url, day=day, page=int(parts[3]))
        if kind == "list" and len(parts) == 4 and parts[3].isdigit():
            page = int(parts[3])
            if page == 0:
                return Request(
                    url,
                    callback=self.parse_menu,
                    priority=PRIORITY_LIST,
                    meta=self._list_meta(court, page=0),
                )
            return self._list_request(court, url, page=page, template=None)
        if kind == "tab" and len(parts) == 4:
            return self._tab_request(court, parts[2], parts[3], url, labels_missing=False)
        if kind == "case" and len(parts) == 3:
            row = self._archived_list_row(court, parts[2])
            if row is not None:
                return self._case_request(court, dataclasses.replace(row, detail_url=url))
            request = self._case_request(court, ListRow(parts[2], url, None, {}))
            request.meta[META_PARSE_CONTEXT] = {"case_raw": parts[2]}  # no list row known
            return request
        return None

    def _archived_list_row(self, court: CourtCrawl, number: str) -> ListRow | None:
        """The list row of case ``number`` as the court's archive holds it, if it does."""
        from harvest.archive.store import INDEX_DB, ArchiveError, ArchiveIndex, read_entry

        root = resolve_workspace(self.settings.get("HARVEST_WORKSPACE")) / "archive"
        try:
            with ArchiveIndex.open(root / INDEX_DB, readonly=True) as index:
                entry = index.get(identity.case_key(court.court_id, number))
                if entry is not None:
                    parse = read_entry(root, entry).context.get("parse")
                    if isinstance(parse, dict) and isinstance(parse.get("row"), dict):
                        return ListRow(**parse["row"])
                for each in index.entries(court=court.court_id, kinds=["list"]):
                    page = read_entry(root, each)
                    html = HtmlResponse(
                        each.url,
                        headers={k: v for k, v in page.headers if k.lower() == "content-type"},
                        body=page.body,
                    ).text
                    for row in parse_list_page(html, each.url).rows:
                        if identity.normalise_case_number(row.nomor_perkara) == number:
                            return row
        except (ArchiveError, OSError, ValueError, TypeError, ParseError):
            return None
        return None

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

    def _calendar_request(
        self, court: CourtCrawl, url: str, *, day: dt.date, page: int
    ) -> Request:
        meta = {
            META_KEY: identity.list_key(court.court_id, f"jadwal_sidang {day.isoformat()}", page),
            META_COOKIEJAR: f"{court.court_id}|list",
            META_EXPECT: "list",
            META_FULL_PAGE: True,
            "sipp_calendar_day": day.isoformat(),
            "sipp_calendar_page": page,
            **self._generation_meta(court),
        }
        return Request(
            url,
            callback=self.parse_calendar,
            errback=self.calendar_failed,
            priority=PRIORITY_LIST,
            meta=meta,
        )

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
        self,
        court: CourtCrawl,
        raw_number: str,
        slug: str,
        url: str,
        *,
        labels_missing: bool,
        shown_labels: tuple[str, ...] = (),
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
                META_SHOWN_LABELS: list(shown_labels),
                META_PARSE_CONTEXT: tab_context(raw_number, slug),
                **self._generation_meta(court),
            },
        )
