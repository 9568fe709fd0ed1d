"""Passing a court's JavaScript challenge with a real browser, then crawling with plain HTTP.

Some courts sit behind a Cloudflare-like challenge: the first answer is a page whose script sets
a clearance cookie and reloads. The cookie is bound to the User-Agent and the client IP
(docs/sipp.md §5.3); the SIPP pages themselves need no JavaScript. So the browser is used
only for the challenge:

1. :class:`ClearanceMiddleware` (downloader order 585) recognises a challenge page in any
   response (:func:`harvest.sipp.page_error` says ``"js challenge"``), whatever its status. The
   order is the only one that works: responses reach it after HttpCompressionMiddleware (590)
   has decoded the body (servers gzip challenge pages too) and before page validation (580),
   meta refresh (580) and retries (550) act on it; requests pass it before the session
   middleware (700) merges ``request.cookies`` into the case's jar.
2. With ``SIPP_BROWSER = "challenge"`` it fetches that URL once in Chromium through
   scrapy-playwright (``meta["playwright"]``, out of band via ``crawler.engine.download_async``),
   in a fresh browser context whose User-Agent is the one the crawl sends, waits until the
   clearance cookie (``SIPP_BROWSER_COOKIES``) appears, and closes the page and its context.
3. The clearance cookies are kept per host, in memory only. Every later request to that host
   carries them (added to ``request.cookies`` just before the session middleware merges them into
   the case's cookie jar, and taken off again when the request comes back, so a retried request
   stored in ``state.sqlite`` does not carry them; a redirect drops ``request.cookies`` by
   itself). The challenged request is sent again by plain HTTP.
4. One browser pass at a time per host: requests to a host whose pass is running wait for it; a
   challenge on a request sent before the latest pass is simply re-sent with the new cookies.

Failures are recorded as the request's error (:class:`ChallengeNotPassed`, a
:class:`harvest.errors.PageError`) and stick to the host for the rest of the run, so a blocked
court fails fast instead of hammering its WAF:

* browser off: ``court behind a JavaScript challenge: run with -s SIPP_BROWSER=challenge``;
* no clearance cookie within ``SIPP_BROWSER_TIMEOUT`` (or the browser failed);
* the server challenges again a request that carried a fresh clearance before any request with
  it succeeded: it does not accept the browser's cookie (different User-Agent or outgoing IP).

A failure is delivered by re-queueing the request with a marker that makes
:meth:`ClearanceMiddleware.process_request` raise before anything is sent: an exception raised in
``process_request`` reaches every ``process_exception`` (the outcome middleware records it),
one raised in ``process_response`` would reach none. The marker names this process, so a request
persisted with it and resumed by a later run is simply sent.

The browser stays on the court, in two layers:

* every request the challenge page makes (images, scripts, ``fetch()``, frames, navigations)
  goes through :meth:`ClearanceMiddleware.off_court`, and whatever is not on the challenged
  request's own host and port is aborted before Chromium connects (counted as
  ``harvest/browser/aborted_off_court``, each host logged once); WebSockets off the court are
  closed unopened and service workers are blocked;
* Chromium itself (its update checks, Google account and time services, which no flag turns off
  in Debian's build) is launched with a proxy auto-config script (:func:`confining_pac`) that
  sends the court's hosts direct (or to the browser proxy ``PLAYWRIGHT_LAUNCH_OPTIONS`` names,
  its ``bypass`` hosts direct) and everything else to a local port that refuses connections.

Cookie values are never logged. Stats: ``harvest/browser/...``.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import logging
import os
import socket
import time
import uuid
import weakref
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from scrapy import Request, signals
from scrapy.http import TextResponse
from scrapy.utils.httpobj import urlparse_cached

from harvest import suffix_list
from harvest.base.meta import (
    META_BROWSER_PASS,
    META_COURT,
    META_FAIL,
    META_GENERATION,
    META_RESENDS,
)
from harvest.base.settings_error import SettingsError
from harvest.errors import PageError
from harvest.sipp import page_error
from harvest.sipp.error_pages import JS_CHALLENGE

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.settings import BaseSettings

__all__ = [
    "MODE_CHALLENGE",
    "MODE_OFF",
    "OFF_REASON",
    "BrowserConfig",
    "ChallengeNotPassed",
    "ClearanceMiddleware",
    "is_challenge",
]

logger = logging.getLogger(__name__)

# the crawl's cookie middleware (Scrapy's, under this middleware) decides public suffixes offline
suffix_list.install()

MODE_OFF = "off"
MODE_CHALLENGE = "challenge"
MODES = (MODE_OFF, MODE_CHALLENGE)

#: Default of ``SIPP_BROWSER``.
DEFAULT_MODE = MODE_OFF
#: Default of ``SIPP_BROWSER_TIMEOUT``: seconds to wait for the clearance cookie (and for the
#: browser's navigation to the challenge page).
DEFAULT_TIMEOUT = 30.0
#: Default of ``SIPP_BROWSER_EXECUTABLE``: Debian's chromium (no ``playwright install`` needed).
DEFAULT_EXECUTABLE = "/usr/bin/chromium"
#: Default of ``SIPP_BROWSER_COOKIES``: names of the clearance cookies copied from the browser:
#: Cloudflare's. A court behind another gate (the replica's sets ``sipp_clearance``) names its own.
DEFAULT_COOKIES = ("cf_clearance",)
#: Chromium arguments used unless ``PLAYWRIGHT_LAUNCH_OPTIONS`` gives ``args``.
DEFAULT_LAUNCH_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
#: A request is re-sent after a challenge at most this many times (each time after a browser
#: pass of its host); then it fails. A guard against a server that keeps challenging.
MAX_RESENDS = 3
#: Seconds between two looks at the browser's cookies.
POLL_INTERVAL = 0.1
#: Seconds a pass may take beyond its two ``SIPP_BROWSER_TIMEOUT`` waits (navigation, cookie):
#: launching Chromium, opening a context. Past that the pass fails instead of hanging the crawl.
PASS_SLACK = 60.0
#: Seconds allowed for closing a page, or the browser at the end of the crawl.
CLOSE_TIMEOUT = 30.0

#: The recorded reason when a challenge is seen and the browser is off (exact text: tests and
#: operators grep for it).
OFF_REASON = "court behind a JavaScript challenge: run with -s SIPP_BROWSER=challenge"

STAT = "harvest/browser/"
#: URL schemes a page uses without the network (never aborted).
LOCAL_SCHEMES = ("data", "blob", "about")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class ChallengeNotPassed(PageError):
    """The court answered with a JavaScript challenge that this run could not (or may not) pass."""


@dataclasses.dataclass(frozen=True)
class BrowserConfig:
    """The ``SIPP_BROWSER*`` settings, parsed and validated once."""

    mode: str = DEFAULT_MODE
    timeout: float = DEFAULT_TIMEOUT
    executable: str = DEFAULT_EXECUTABLE
    cookie_names: tuple[str, ...] = DEFAULT_COOKIES
    #: Effective Chromium launch options: our defaults, updated by ``PLAYWRIGHT_LAUNCH_OPTIONS``.
    launch_options: Mapping[str, Any] = dataclasses.field(
        default_factory=lambda: MappingProxyType({})
    )

    @property
    def enabled(self) -> bool:
        """Whether challenges are passed with the browser."""
        return self.mode == MODE_CHALLENGE

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> BrowserConfig:
        """Parse and check the settings; raises :class:`SettingsError` naming the setting.

        With the browser on, the Chromium executable must exist (unless scrapy-playwright is told
        to connect to a remote browser with ``PLAYWRIGHT_CDP_URL``/``PLAYWRIGHT_CONNECT_URL``).
        """
        raw_mode = settings.get("SIPP_BROWSER", DEFAULT_MODE)
        mode = str(raw_mode if raw_mode is not None else DEFAULT_MODE).strip().lower()
        if mode not in MODES:
            raise SettingsError(
                f"SIPP_BROWSER must be one of {', '.join(repr(m) for m in MODES)}, not "
                f"{raw_mode!r}: 'challenge' passes JavaScript challenges with a browser"
            )
        try:
            timeout = settings.getfloat("SIPP_BROWSER_TIMEOUT", DEFAULT_TIMEOUT)
        except ValueError as exc:
            raise SettingsError(
                f"SIPP_BROWSER_TIMEOUT must be a number of seconds, not "
                f"{settings.get('SIPP_BROWSER_TIMEOUT')!r}"
            ) from exc
        if not timeout > 0:
            raise SettingsError(
                f"SIPP_BROWSER_TIMEOUT must be more than 0 seconds (got {timeout:g}); "
                f"default {DEFAULT_TIMEOUT:g}"
            )
        executable = str(settings.get("SIPP_BROWSER_EXECUTABLE") or DEFAULT_EXECUTABLE)
        names = tuple(
            n.strip()
            for n in settings.getlist("SIPP_BROWSER_COOKIES", list(DEFAULT_COOKIES))
            if n.strip()
        )
        if not names:
            raise SettingsError(
                "SIPP_BROWSER_COOKIES names no cookie: give the clearance cookie name(s) the "
                f"challenge sets, default {','.join(DEFAULT_COOKIES)}"
            )
        launch: dict[str, Any] = {
            "executable_path": executable,
            "args": list(DEFAULT_LAUNCH_ARGS),
            "headless": True,
        }
        launch.update(settings.getdict("PLAYWRIGHT_LAUNCH_OPTIONS"))
        remote = settings.get("PLAYWRIGHT_CDP_URL") or settings.get("PLAYWRIGHT_CONNECT_URL")
        path = str(launch.get("executable_path") or "")
        if mode == MODE_CHALLENGE and not remote and not os.access(path, os.X_OK):
            raise SettingsError(
                f"SIPP_BROWSER=challenge needs Chromium, but {path!r} is not an executable file: "
                "install it (apt-get install chromium) or set SIPP_BROWSER_EXECUTABLE to its path"
            )
        return cls(
            mode=mode,
            timeout=timeout,
            executable=executable,
            cookie_names=names,
            launch_options=MappingProxyType(launch),
        )


def is_challenge(response: Response) -> bool:
    """Whether ``response`` is a JavaScript challenge page (any status)."""
    if not isinstance(response, TextResponse):
        return False
    return page_error(response.text, expect="list") == JS_CHALLENGE


@dataclasses.dataclass
class _Host:
    """Clearance state of one host (in memory only)."""

    lock: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock)
    #: Number of browser passes that produced the current cookies (0: none yet).
    generation: int = 0
    #: ``request.cookies`` entries (name, value, path) of the current clearance.
    cookies: tuple[dict[str, str], ...] = ()
    #: A request carrying the current clearance got a page that is not a challenge.
    accepted: bool = False
    #: Why every request to this host fails for the rest of the run.
    failure: str | None = None


class ClearanceMiddleware:
    """Detects JavaScript challenges, passes them in a browser, shares the clearance per host."""

    def __init__(self, config: BrowserConfig, *, crawler: Crawler, browser: Any = None) -> None:
        self.config = config
        self.crawler = crawler
        #: scrapy-playwright's download handler (only when the browser is on).
        self.browser = browser
        self._hosts: dict[str, _Host] = {}
        self._token = uuid.uuid4().hex
        self._passes = 0
        self._attached: weakref.WeakKeyDictionary[Request, Any] = weakref.WeakKeyDictionary()
        #: (host, port) of every court whose challenge the browser was sent to: all it may reach
        self._origins: set[tuple[str, int]] = set()
        #: hosts off the court the browser was kept from (each logged once)
        self._aborted_hosts: set[str] = set()
        #: the bound, never listening socket Chromium's off-court traffic is sent to
        self._nowhere: socket.socket | None = None
        #: the courts whose requests may take the browser pass (None: every court, as
        #: SIPP_BROWSER says); a host's clearance is kept per host as always
        self.only_courts: frozenset[str] | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        config = BrowserConfig.from_settings(crawler.settings)
        # a multi-court crawl of registered courts: the browser pass for the courts whose
        # check said "challenge" only (docs/national.md), whatever SIPP_BROWSER says
        courts: dict[str, Any] = dict(getattr(crawler.spider, "courts", None) or {})
        gated = {c for c, court in courts.items() if getattr(court, "access", None) == "challenge"}
        only: frozenset[str] | None = None
        if gated and not config.enabled:
            config = BrowserConfig.from_settings(_with_browser(crawler.settings))
            only = frozenset(gated)
        browser = _start_browser(crawler, config) if config.enabled else None
        middleware = cls(config, crawler=crawler, browser=browser)
        middleware.only_courts = only
        if browser is not None:
            browser.abort_request = middleware.off_court
            crawler.signals.connect(middleware.close_browser, signal=signals.engine_stopped)
        return middleware

    async def close_browser(self) -> None:
        """Close the browser and scrapy-playwright's handler (at ``engine_stopped``)."""
        if self.browser is None:
            return
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT):
                await self.browser.close()
        except TimeoutError:
            logger.warning("the browser did not close within %g s; leaving it", CLOSE_TIMEOUT)
        finally:
            if self._nowhere is not None:
                self._nowhere.close()

    def _confine_browser(self, host: str) -> None:
        """Before Chromium is launched: only the crawl's courts are reachable from it.

        Adds a proxy auto-config script to the launch options that scrapy-playwright reads when
        it launches the browser (at the first pass). A browser on a remote endpoint
        (``PLAYWRIGHT_CDP_URL``/``_CONNECT_URL``) is not launched here and keeps its own network.
        """
        options = getattr(getattr(self.browser, "config", None), "launch_options", None)
        if self._nowhere is not None or not isinstance(options, dict):
            return
        self._nowhere = socket.socket()
        self._nowhere.bind(("127.0.0.1", 0))  # bound, never listening: connections refused
        courts = {host, *_court_hosts(self.crawler.spider)}
        proxy = options.pop("proxy", None)
        if isinstance(proxy, dict) and (proxy.get("username") or proxy.get("password")):
            # Playwright answers the proxy's authentication only through its own option
            options["proxy"] = proxy
            logger.warning(
                "the browser proxy needs credentials: it is kept as Playwright's proxy, so only "
                "the page's requests (not Chromium's own) are held to the court"
            )
            return
        pac = confining_pac(
            sorted(courts),
            nowhere=int(self._nowhere.getsockname()[1]),
            proxy=str(proxy.get("server") or "") if isinstance(proxy, dict) else "",
            bypass=str(proxy.get("bypass") or "") if isinstance(proxy, dict) else "",
        )
        encoded = base64.b64encode(pac.encode()).decode()
        options["args"] = [
            *(a for a in options.get("args") or () if not str(a).startswith("--proxy-")),
            f"--proxy-pac-url=data:application/x-ns-proxy-autoconfig;base64,{encoded}",
        ]

    # --- the browser stays on the court ---------------------------------------------------------

    def off_court(self, playwright_request: Any) -> bool:
        """Whether the browser must not send ``playwright_request`` (scrapy-playwright's
        ``abort_request`` hook: it sees every request of the page, subresources included)."""
        return self._off_court_url(str(playwright_request.url))

    def _off_court_url(self, url: str) -> bool:
        try:
            parts = urlsplit(url)
            scheme = parts.scheme.lower()
            if scheme in LOCAL_SCHEMES:
                return False
            origin = ((parts.hostname or "").lower(), _port_of(scheme, parts.port))
        except ValueError:  # a malformed URL (bad port, broken IPv6 literal): never sent
            origin, scheme = ("", 0), ""
        if scheme in _DEFAULT_PORTS and origin in self._origins:
            return False
        self._inc("aborted_off_court")
        host = origin[0] or url[:80]
        if host not in self._aborted_hosts:
            self._aborted_hosts.add(host)
            logger.warning(
                "the challenge page asked the browser for %s, off the court: not sent (the "
                "browser only talks to the court's own host)",
                _without_query(url),
            )
        return True

    async def _init_page(self, page: Any, request: Request) -> None:
        """``playwright_page_init_callback`` of a pass: WebSockets off the court stay closed."""

        async def refuse(socket: Any) -> None:
            await socket.close()

        await page.route_web_socket(self._off_court_url, refuse)

    # --- requests ------------------------------------------------------------------------------

    async def process_request(self, request: Request) -> Response | None:
        if request.meta.get(META_BROWSER_PASS):
            # Our own out-of-band pass: fetched by the browser, not by the HTTP handler.
            return cast("Response", await self.browser.download_request(request))
        failure = request.meta.pop(META_FAIL, None)
        if isinstance(failure, tuple) and len(failure) == 2 and failure[0] == self._token:
            raise ChallengeNotPassed(str(failure[1]), request.url)
        host = _host_of(request)
        state = self._hosts.get(host)
        if state is None:
            request.meta[META_GENERATION] = 0
            return None
        if state.lock.locked():
            async with state.lock:  # a browser pass of this host is running: wait for it
                pass
        if state.failure is not None:
            raise ChallengeNotPassed(state.failure, request.url)
        request.meta[META_GENERATION] = state.generation
        if state.cookies:
            self._attach(request, state.cookies)
        return None

    async def process_response(self, request: Request, response: Response) -> Request | Response:
        if request.meta.get(META_BROWSER_PASS):
            return response
        self._detach(request)
        host = _host_of(request)
        state = self._hosts.get(host)
        if not is_challenge(response):
            if state is not None and request.meta.get(META_GENERATION) == state.generation:
                state.accepted = True
            return response
        self._inc("challenges")
        if state is None:
            state = self._hosts[host] = _Host()
        if not self._browser_for(request):
            if state.failure is None:
                state.failure = self._off_reason(request)
                logger.error(
                    "%s answered %s with a JavaScript challenge and the browser is off: run "
                    "with -s SIPP_BROWSER=challenge (docs/browser.md); every request to this "
                    "host fails until then",
                    host,
                    request.url,
                )
            return self._fail(request, state.failure)
        async with state.lock:
            if state.failure is not None:
                return self._fail(request, state.failure)
            resends = int(request.meta.get(META_RESENDS, 0))
            if resends >= MAX_RESENDS:
                return self._fail(
                    request,
                    f"JavaScript challenge again after {resends} browser clearances of {host}",
                )
            if request.meta.get(META_GENERATION, 0) == state.generation:
                if state.cookies and not state.accepted:
                    state.failure = (
                        f"{host} does not accept the browser's clearance cookie (challenged "
                        "again with it): the crawl must send the browser's User-Agent from the "
                        "browser's IP (same proxy, if any)"
                    )
                    logger.error("%s", state.failure)
                    self._inc("rejected")
                    return self._fail(request, state.failure)
                try:
                    cookies = await self._pass_challenge(request, host)
                except ChallengeNotPassed as exc:
                    state.failure = exc.reason
                    return self._fail(request, exc.reason)
                state.generation += 1
                state.cookies = cookies
                state.accepted = False
        self._inc("resent")
        resend = request.replace(dont_filter=True)
        resend.meta[META_RESENDS] = resends + 1
        return resend

    def process_exception(self, request: Request, exception: Exception) -> None:
        self._detach(request)

    def _browser_for(self, request: Request) -> bool:
        """Whether a challenge of this request may be passed in the browser."""
        if not self.config.enabled:
            return False
        return self.only_courts is None or request.meta.get(META_COURT) in self.only_courts

    def _off_reason(self, request: Request) -> str:
        if self.only_courts is None:
            return OFF_REASON
        court = request.meta.get(META_COURT)
        return (
            f"court {court} answered with a JavaScript challenge but its check did not say "
            "challenge: run scrapy courts check again (the browser pass is for the courts "
            "whose check says challenge)"
        )

    # --- the browser pass ----------------------------------------------------------------------

    async def _pass_challenge(self, request: Request, host: str) -> tuple[dict[str, str], ...]:
        """Open ``request.url`` in a fresh browser context; return the clearance cookies.

        Raises :class:`ChallengeNotPassed` on any failure (the cause is chained and logged).
        """
        self._passes += 1
        self._inc("passes")
        self._confine_browser(host)
        user_agent = request.headers.get("User-Agent")
        # service workers make requests the page's routing does not see: none at all
        context_kwargs: dict[str, Any] = {"ignore_https_errors": True, "service_workers": "block"}
        parts = urlsplit(request.url)
        self._origins.add((host, _port_of(parts.scheme.lower(), parts.port)))
        if user_agent:
            context_kwargs["user_agent"] = user_agent.decode("latin-1")
        timeout_ms = self.config.timeout * 1000.0
        browser_request = Request(
            request.url,
            dont_filter=True,
            priority=request.priority,
            meta={
                META_BROWSER_PASS: True,
                "playwright": True,
                "playwright_include_page": True,
                "playwright_context": f"harvest-clearance-{self._passes}",
                "playwright_context_kwargs": context_kwargs,
                "playwright_page_init_callback": self._init_page,
                # "commit": return as soon as the challenge page arrives; its script then
                # runs, sets the cookie and reloads while we watch the cookies.
                "playwright_page_goto_kwargs": {"timeout": timeout_ms, "wait_until": "commit"},
                "dont_retry": True,
                "dont_redirect": True,
                "dont_merge_cookies": True,
                "handle_httpstatus_all": True,
            },
        )
        logger.info(
            "passing the JavaScript challenge of %s in the browser (%s)", host, request.url
        )
        started = time.monotonic()
        budget = 2 * self.config.timeout + PASS_SLACK
        try:
            async with asyncio.timeout(budget):
                try:
                    await self.crawler.engine.download_async(browser_request)
                except Exception:
                    # The challenge reloads the page by itself, so reading the page's content
                    # can fail while it navigates. What counts is the cookie: look for it anyway.
                    if browser_request.meta.get("playwright_page") is None:
                        raise
                    logger.debug(
                        "browser fetch of %s ended in an error", request.url, exc_info=True
                    )
                page = browser_request.meta.get("playwright_page")
                if page is None:
                    raise ChallengeNotPassed("the browser returned no page", request.url)
                cookies = await self._await_clearance(page, request.url)
        except TimeoutError as exc:
            self._inc("passes/failed")
            reason = (
                f"the browser did not finish the JavaScript challenge of {host} in {budget:g} s"
            )
            logger.error("%s", reason)
            raise ChallengeNotPassed(reason, request.url) from exc
        except ChallengeNotPassed as exc:
            self._inc("passes/failed")
            logger.error("JavaScript challenge of %s not passed: %s", host, exc.reason)
            raise
        except Exception as exc:  # the browser, its driver or the page failed in any way
            self._inc("passes/failed")
            reason = f"browser failed on the JavaScript challenge of {host}: {type(exc).__name__}"
            logger.exception("%s", reason)
            raise ChallengeNotPassed(reason, request.url) from exc
        finally:
            await _close_page(browser_request.meta.get("playwright_page"))
        seconds = time.monotonic() - started
        self._inc("passes/ok")
        if self.crawler.stats is not None:
            self.crawler.stats.max_value(STAT + "pass_seconds_max", round(seconds, 3))
        logger.info(
            "JavaScript challenge of %s passed in %.1f s; clearance cookies: %s",
            host,
            seconds,
            ", ".join(c["name"] for c in cookies),
        )
        return cookies

    async def _await_clearance(self, page: Any, url: str) -> tuple[dict[str, str], ...]:
        """Poll the page's context until a clearance cookie for ``url`` exists."""
        names = self.config.cookie_names
        deadline = time.monotonic() + self.config.timeout
        while True:
            found = [c for c in await page.context.cookies([url]) if c.get("name") in names]
            if found:
                return tuple(
                    {
                        "name": str(c["name"]),
                        "value": str(c["value"]),
                        "path": c.get("path") or "/",
                    }
                    for c in found
                )
            if time.monotonic() >= deadline:
                raise ChallengeNotPassed(
                    f"no clearance cookie ({', '.join(names)}) after {self.config.timeout:g} s "
                    "in the browser: the challenge was not passed (a CAPTCHA needs a human; a "
                    "slow challenge needs a larger SIPP_BROWSER_TIMEOUT)",
                    url,
                )
            await asyncio.sleep(POLL_INTERVAL)

    # --- helpers -------------------------------------------------------------------------------

    def _attach(self, request: Request, cookies: tuple[dict[str, str], ...]) -> None:
        """Add the clearance to ``request.cookies``, remembering what was there."""
        if request in self._attached:
            return
        original = request.cookies
        self._attached[request] = original
        current: list[Any] = (
            [{"name": k, "value": v} for k, v in original.items()]
            if isinstance(original, dict)
            else list(original)
        )
        request.cookies = current + [dict(c) for c in cookies]
        self._inc("cleared_requests")

    def _detach(self, request: Request) -> None:
        """Give ``request`` its own cookies back (the clearance stays in the case's jar only)."""
        if request in self._attached:
            request.cookies = self._attached.pop(request)

    def _fail(self, request: Request, reason: str) -> Request:
        """A copy of ``request`` that :meth:`process_request` fails with ``reason`` (no I/O)."""
        self._inc("failed_requests")
        failing = request.replace(dont_filter=True)
        failing.meta[META_FAIL] = (self._token, reason)
        return failing

    def _inc(self, name: str) -> None:
        if self.crawler.stats is not None:
            self.crawler.stats.inc_value(STAT + name)


def _host_of(request: Request) -> str:
    return (urlparse_cached(request).hostname or "").lower()


def _court_hosts(spider: Any) -> set[str]:
    """The hosts of every court of the crawl (one court, or a court list's)."""
    urls = [getattr(spider, "base_url", "")]
    urls += [getattr(c, "base_url", "") for c in (getattr(spider, "courts", None) or {}).values()]
    hosts = set()
    for url in urls:
        try:
            name = urlsplit(str(url or "")).hostname
        except ValueError:
            continue
        if name:
            hosts.add(name.lower())
    return hosts


def _pac_proxy(server: str) -> str:
    """A Playwright proxy ``server`` (``http://h:p``, ``socks5://h:p``, ``h:p``) as a PAC
    directive."""
    scheme, sep, rest = server.partition("://")
    if not sep:
        scheme, rest = "http", server
    kind = {"http": "PROXY", "https": "HTTPS", "socks5": "SOCKS5", "socks4": "SOCKS"}.get(
        scheme.lower(), "PROXY"
    )
    return f"{kind} {rest.rstrip('/')}"


def confining_pac(courts: list[str], *, nowhere: int, proxy: str = "", bypass: str = "") -> str:
    """A proxy auto-config script: ``courts`` direct (or through ``proxy``, with the hosts of
    its comma-separated ``bypass`` list direct), every other host to 127.0.0.1:``nowhere``."""
    direct = sorted({h.strip().lower().strip("[]") for h in bypass.split(",") if h.strip()})
    court = _pac_proxy(proxy) if proxy else "DIRECT"
    return (
        "function FindProxyForURL(url, host) {\n"
        "  host = host.toLowerCase().replace(/^\\[|\\]$/g, '');\n"
        f"  var courts = {json.dumps(courts)};\n"
        f"  var direct = {json.dumps(direct)};\n"
        "  if (courts.indexOf(host) < 0) {\n"
        f"    return {json.dumps(f'PROXY 127.0.0.1:{nowhere}')};\n"
        "  }\n"
        "  for (var i = 0; i < direct.length; i++) {\n"
        "    var d = direct[i];\n"
        "    if (host === d || (d.charAt(0) === '.' && host.slice(-d.length) === d)) {\n"
        "      return 'DIRECT';\n"
        "    }\n"
        "  }\n"
        f"  return {json.dumps(court)};\n"
        "}\n"
    )


def _port_of(scheme: str, port: int | None) -> int:
    return port if port is not None else _DEFAULT_PORTS.get(scheme, 0)


def _without_query(url: str) -> str:
    """``url`` without its query and fragment (a page may put the cookie it stole there)."""
    return url.split("?", 1)[0].split("#", 1)[0][:200]


def _with_browser(settings: BaseSettings) -> BaseSettings:
    """A copy of ``settings`` with ``SIPP_BROWSER = "challenge"`` (checked as such)."""
    from scrapy.settings import Settings

    return Settings({**settings.copy_to_dict(), "SIPP_BROWSER": MODE_CHALLENGE})


def _start_browser(crawler: Crawler, config: BrowserConfig) -> Any:
    """scrapy-playwright's download handler, launching ``config``'s Chromium.

    Built here rather than registered in ``DOWNLOAD_HANDLERS`` so that
    ``-s SIPP_BROWSER=challenge`` alone turns it on, and plain requests keep Scrapy's own HTTP
    handler. It starts Playwright at
    ``engine_started``; Chromium itself is launched by the first browser pass.
    """
    try:
        from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler
    except ImportError as exc:
        raise SettingsError(
            "SIPP_BROWSER=challenge needs scrapy-playwright, which is not importable "
            f"({exc}): run scripts/bootstrap (it is a dependency in pyproject.toml)"
        ) from exc
    handler = ScrapyPlaywrightDownloadHandler.from_crawler(crawler)
    handler.config = dataclasses.replace(
        handler.config, launch_options=dict(config.launch_options)
    )
    return handler


async def _close_page(page: Any) -> None:
    """Close a pass's page and its browser context (a context per pass: no stale cookies)."""
    if page is None:
        return
    try:
        async with asyncio.timeout(CLOSE_TIMEOUT):
            if not page.is_closed():
                await page.close()
            await page.context.close()
    except Exception:  # a crashed page, a disconnected or stuck browser: nothing more to do
        logger.debug("closing a browser page failed", exc_info=True)
