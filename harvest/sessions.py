"""SIPP sessions: a small pool of warm cookie jars per court, one request at a time per jar.

SIPP serves details and tabs through a one-shot value in the server-side PHP session, and tab
fragments only carry party labels when that session has rendered a full page before
(docs/sipp.md, Sessions). The tokens in the URLs do not depend on the session, so any warm
session can serve any case, as long as it serves one ``show_*`` request (with its redirect) at a
time.

This middleware replaces Scrapy's ``CookiesMiddleware`` with three changes:

* **A pool of sessions per court.** A request of a case (``meta["harvest_group"]`` set) leases a
  jar of its court's pool for the whole exchange, its redirects included, and gives it back when
  the final response or exception arrives; the next case reuses it. A court has at most as many
  jars as requests it may have in flight (``CONCURRENT_REQUESTS_PER_DOMAIN``, or
  ``CONCURRENT_REQUESTS_PER_IP`` when set): a request finding them all leased waits for one.
  So never two requests of one jar are in flight, and after a restart the warm-ups are bounded
  by the court's concurrency, not by the number of started cases. A lease lost without an
  outcome (a middleware's ``process_response`` raised) comes back when its requests are
  dropped. Other requests (list pages: ``meta["cookiejar"] = "<court>|list"``) keep their jar.
* **Bounded jars.** Jars live in an LRU map of at most ``SIPP_SESSION_MAX_JARS`` entries; memory
  stays flat over any number of cases.
* **Warm-up.** A request flagged ``meta["sipp_needs_warm_session"]`` (tab fragments) whose jar
  has not rendered a full page in this process first fetches ``meta["sipp_warmup_url"]`` (the
  court's root list page) in the same jar, out of band (it is not a request row; the URL log still
  sees it). A jar counts as warm after any full page (list or detail) answered 200 in it. A retry
  "in a fresh session" (``meta["sipp_force_warm"]``) drops its jar from the pool.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy.downloadermiddlewares.cookies import CookiesMiddleware
from scrapy.exceptions import NotConfigured
from scrapy.http.cookies import CookieJar

from harvest import suffix_list
from harvest.base.meta import (
    META_COOKIEJAR,
    META_COURT,
    META_FORCE_WARM,
    META_FULL_PAGE,
    META_GROUP,
    META_IS_WARMUP,
    META_NEEDS_WARM,
    META_SESSION_LEASE,
    META_WARMUP_URL,
)
from harvest.errors import StoppedBeforeSending

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

# public suffixes from tldextract's bundled list: no fetch from publicsuffix.org, no cache file
suffix_list.install()

#: Default of ``SIPP_SESSION_MAX_JARS``: cookie jars kept at once (least recently used dropped).
DEFAULT_MAX_JARS = 256
#: Seconds between two looks at "is the engine closing?" of a request waiting for a jar.
STOP_POLL = 0.25


def _never() -> bool:
    return False


class BoundedJars(OrderedDict[Any, CookieJar]):
    """A mapping of cookie jars that creates jars on demand and keeps only the newest ``limit``,
    with a "warm" flag per jar (its session has loaded a full page) that leaves with the jar."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.evicted = 0
        self._warm: set[Any] = set()

    def __getitem__(self, key: Any) -> CookieJar:
        if key in self:
            self.move_to_end(key)
            return super().__getitem__(key)
        jar = CookieJar()
        self[key] = jar
        while len(self) > self.limit:
            old, _ = self.popitem(last=False)
            self._warm.discard(old)
            self.evicted += 1
        return jar

    def is_warm(self, key: Any) -> bool:
        return key in self._warm and key in self

    def mark_warm(self, key: Any) -> None:
        if key in self:
            self._warm.add(key)

    def forget(self, key: Any) -> None:
        """Drop a jar and its warm flag (the next request starts a fresh session)."""
        self.pop(key, None)
        self._warm.discard(key)


_REDIRECTS = frozenset({301, 302, 303, 307, 308})


class Lease:
    """One request chain's hold on a pooled jar (kept in ``meta``; never pickled: a retry held
    in memory keeps it, a request read back from the state has none)."""

    __slots__ = ("__weakref__", "id", "jar", "pool")

    def __init__(self, pool: SessionPool, jar: str, lease_id: int) -> None:
        self.pool = pool
        self.jar = jar
        self.id = lease_id

    def __reduce__(self) -> Any:  # a pickled request simply has no lease
        return (type(None), ())

    @property
    def active(self) -> bool:
        return self.pool.holder(self.jar) == self.id


class SessionPool:
    """The jars of one court: at most ``size`` exist, each leased to one request at a time."""

    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self.size = size
        self.idle: deque[str] = deque()
        self._holders: dict[str, int] = {}  # jar -> lease id
        self._jars = 0  # jars in the pool (idle + leased)
        self._serial = itertools.count(1)
        self._names = itertools.count(1)
        self._waiters: deque[asyncio.Future[None]] = deque()

    def holder(self, jar: str) -> int | None:
        return self._holders.get(jar)

    @property
    def leased(self) -> int:
        return len(self._holders)

    async def lease(
        self, warm: Any, stopping: Callable[[], bool] = _never, poll: float = STOP_POLL
    ) -> Lease:
        """A jar for one request chain: an idle warm one first, else an idle one, else a new
        one while the pool is below ``size``, else wait for a release. Raises
        :class:`StoppedBeforeSending` once ``stopping()`` (looked at every ``poll`` seconds
        while waiting) says the crawl is closing: the release it waits for may never come."""
        while True:
            if stopping():
                raise StoppedBeforeSending()
            if self.idle:
                jar = next((j for j in self.idle if warm(j)), self.idle[0])
                self.idle.remove(jar)
                return self._hand_out(jar)
            if self._jars < self.size:
                self._jars += 1
                return self._hand_out(f"{self.name}|session-{next(self._names)}")
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await asyncio.wait((waiter,), timeout=poll)
            if not waiter.done():  # not woken: withdraw, so no release is handed to nobody
                self._waiters.remove(waiter)
                waiter.cancel()

    def _hand_out(self, jar: str) -> Lease:
        lease = Lease(self, jar, next(self._serial))
        self._holders[jar] = lease.id
        # a lease whose requests are all dropped without an outcome comes back by itself
        weakref.finalize(lease, self.give_back, jar, lease.id)
        return lease

    def give_back(self, jar: str, lease_id: int, *, discard: bool = False) -> None:
        """End lease ``lease_id`` of ``jar`` (no-op if it already ended); ``discard``: the
        session is spoilt, the jar leaves the pool (a new one may be made)."""
        if self._holders.get(jar) != lease_id:
            return
        del self._holders[jar]
        if discard:
            self._jars -= 1
        else:
            self.idle.append(jar)
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                break


def court_concurrency(settings: Any) -> int:
    """Requests one court may have in flight: its session pool's size."""
    per_ip = settings.getint("CONCURRENT_REQUESTS_PER_IP", 0)
    return max(1, int(per_ip or settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN", 8)))


class SippSessionMiddleware(CookiesMiddleware):
    """Cookie jars per case (bounded) with a full-page warm-up for cold sessions."""

    def __init__(
        self, debug: bool = False, *, max_jars: int = DEFAULT_MAX_JARS, pool_size: int = 2
    ) -> None:
        super().__init__(debug)
        self._jars = BoundedJars(max_jars)
        self.jars = self._jars  # type: ignore[assignment]
        self.pool_size = pool_size
        self.pools: dict[str, SessionPool] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.getbool("COOKIES_ENABLED"):
            raise NotConfigured
        max_jars = crawler.settings.getint("SIPP_SESSION_MAX_JARS", DEFAULT_MAX_JARS)
        if max_jars < 1:
            raise ValueError(
                f"SIPP_SESSION_MAX_JARS must be at least 1 (got {max_jars}); it bounds the "
                "cookie jars kept at once, default 256"
            )
        pool_size = court_concurrency(crawler.settings)
        o = cls(
            crawler.settings.getbool("COOKIES_DEBUG"),
            # a court's pooled jars must all fit, or they would evict each other's sessions
            max_jars=max(max_jars, pool_size),
            pool_size=pool_size,
        )
        o.crawler = crawler
        return o

    def is_warm(self, jar_key: Any) -> bool:
        return self._jars.is_warm(jar_key)

    def forget(self, jar_key: Any) -> None:
        """Drop a jar and its warm flag (the next request starts a fresh session)."""
        self._jars.forget(jar_key)

    def _pool(self, group: str) -> SessionPool:
        court = group.split("|", 1)[0]
        pool = self.pools.get(court)
        if pool is None:
            pool = self.pools[court] = SessionPool(court, self.pool_size)
        return pool

    async def _lease(self, request: Request) -> Any:
        """The pooled jar of a case's request (leasing one unless its chain holds one)."""
        lease = request.meta.get(META_SESSION_LEASE)
        fresh = request.meta.pop(META_FORCE_WARM, False)
        if isinstance(lease, Lease) and lease.active:
            if not fresh:
                return lease.jar
            lease.pool.give_back(lease.jar, lease.id)
        pool = self._pool(str(request.meta[META_GROUP]))
        try:
            lease = await pool.lease(self.is_warm, self.engine_closing)
        except StoppedBeforeSending:
            raise StoppedBeforeSending(request.url) from None
        if fresh:  # a retry in a fresh session: this jar starts over (cold)
            self.forget(lease.jar)
        request.meta[META_SESSION_LEASE] = lease
        request.meta[META_COOKIEJAR] = lease.jar
        return lease.jar

    def engine_closing(self) -> bool:
        """The engine sends nothing more from the scheduler: it is stopping or closing."""
        crawler = getattr(self, "crawler", None)
        if crawler is None:  # not part of a crawl (a unit test)
            return False
        engine = crawler.engine
        if engine is None:
            return True
        slot = engine._slot  # Scrapy keeps "closing" there; no public accessor
        return not engine.running or slot is None or slot.closing is not None

    def _end_lease(self, request: Request, *, discard: bool = False) -> None:
        lease = request.meta.get(META_SESSION_LEASE)
        if isinstance(lease, Lease):
            lease.pool.give_back(lease.jar, lease.id, discard=discard)

    async def process_request(self, request: Request) -> None:  # type: ignore[override]
        if request.meta.get(META_GROUP) is not None and not request.meta.get(META_IS_WARMUP):
            jar_key = await self._lease(request)
        else:
            jar_key = request.meta.get(META_COOKIEJAR)
            if request.meta.pop(META_FORCE_WARM, False):
                self.forget(jar_key)
        if request.meta.get(META_NEEDS_WARM) and not self.is_warm(jar_key):
            if self.engine_closing():  # a warm-up now would only delay the stop
                self._end_lease(request)
                raise StoppedBeforeSending(request.url)
            await self._warm_up(request, jar_key)
        super().process_request(request)

    async def _warm_up(self, request: Request, jar_key: Any) -> None:
        url = request.meta.get(META_WARMUP_URL)
        if not url:
            return
        warmup = Request(
            url,
            meta={
                META_COOKIEJAR: jar_key,
                META_IS_WARMUP: True,
                META_FULL_PAGE: True,
                # a multi-court crawl: the court's politeness slot and guard (docs/multi-court.md)
                **{k: request.meta[k] for k in (META_COURT, "download_slot") if k in request.meta},
            },
            dont_filter=True,
            priority=request.priority,
        )
        logger.debug("warming session %s with %s before %s", jar_key, url, request.url)
        stats = self.crawler.stats
        assert self.crawler.engine is not None
        # Out of band: the engine downloads it through the downloader middlewares (cookies,
        # retries, URL log) without a scheduler row. A failure propagates as this request's
        # download failure, which is what it is.
        await self.crawler.engine.download_async(warmup)
        if stats is not None:
            stats.inc_value("harvest/session/warmups")

    def process_response(  # type: ignore[override]
        self, request: Request, response: Response
    ) -> Request | Response:
        result = super().process_response(request, response)
        if request.meta.get(META_FULL_PAGE) and response.status == 200:
            self._jars.mark_warm(request.meta.get(META_COOKIEJAR))
        followed = (
            response.status in _REDIRECTS
            and b"Location" in response.headers
            and not request.meta.get("dont_redirect")
        )
        if not followed:  # the chain ends here: the jar serves the next request
            self._end_lease(request)
        return result

    def process_exception(self, request: Request, exception: Exception) -> None:
        # A request that failed here (a timeout above all) may still be running at the court:
        # finishing late, it would set or consume the one-shot value of whatever case uses the
        # session next (a 404 for that case's tab). The session is left to it: the jar leaves
        # the pool and the next request of the court starts a fresh one.
        self._end_lease(request, discard=True)
