"""The court guard: requests stay on the court, never downgrade to http, and say why they fail.

Two downloader middlewares (harvest/settings.py, scheduler section):

* :class:`CourtGuardMiddleware` (order 30: its ``process_request`` runs before every other
  middleware's, so nothing is fetched, warmed or logged for a refused URL). Only ``http`` and
  ``https`` URLs whose host is the court's (the host of ``spider.base_url``, port included) or a
  host of ``HARVEST_ALLOWED_HOSTS`` are downloaded, whatever page linked to them and whatever
  redirect led there. On an https court a same-host ``http://`` link (SIPP behind a TLS proxy
  writes them, in links and in redirects alike) is upgraded to ``https://``, never fetched in
  clear; a redirect from https to http anywhere else (an allowed host) is refused. A refused
  request fails its row (``refused: ...``, kept as an ``error`` that ``scrapy requeue`` can send
  back once the setting allows the host), is counted (``harvest/guard/refused``) and recorded
  as a ``refused`` notice that ``scrapy status`` shows. Its ``process_exception`` turns a
  certificate that fails verification into a clear reason naming the opt-out, and closes the
  crawl (``harvest_tls_error``) when it is the court's own certificate: nothing can be fetched.
* :class:`RedirectLoopMiddleware` (order 605, just above Scrapy's RedirectMiddleware 600):
  a redirect back to a URL already in the chain, or beyond ``REDIRECT_MAX_TIMES``, fails the row
  with ``redirect loop: a -> b -> a`` (or ``too many redirects``), logs it and records a
  ``redirect_loop`` notice, instead of the silent "max redirections reached" drop.

TLS certificates are verified by Scrapy's ``DOWNLOAD_VERIFY_CERTIFICATES``, which the project
sets to ``True`` (Scrapy's default is ``False``); ``-s DOWNLOAD_VERIFY_CERTIFICATES=False`` is the
per-crawl opt-out, and ``SSL_CERT_FILE`` adds a CA bundle (OpenSSL's own variable).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING
from urllib.parse import SplitResult, urljoin, urlsplit

from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.utils.defer import deferred_from_coro

from harvest.base.close_reasons import TLS_ERROR
from harvest.base.meta import META_KEY
from harvest.base.scrubbing import strip_userinfo
from harvest.errors import PageError

from .outcome import harvest_scheduler

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.settings import BaseSettings

    from .scheduler import HarvestScheduler

__all__ = [
    "DEFAULT_ALLOWED_HOSTS",
    "CourtGuardMiddleware",
    "RedirectLoopMiddleware",
    "RequestRefused",
    "tls_failure",
]

logger = logging.getLogger(__name__)

#: ``HARVEST_ALLOWED_HOSTS``: hosts (``name`` or ``name:port``) allowed besides the court's.
DEFAULT_ALLOWED_HOSTS: tuple[str, ...] = ()
STAT = "harvest/guard/"
_DEFAULT_PORTS = {"http": 80, "https": 443}
_REDIRECT_STATUSES = (301, 302, 303, 307, 308)
_TLS_MARKERS = ("certificate verify failed", "verificationerror", "certificate does not match")


class RequestRefused(PageError):
    """A URL the crawl does not fetch (off the court, not http(s), or a downgrade to http)."""


def _port(scheme: str, port: int | None) -> int:
    return port if port is not None else _DEFAULT_PORTS.get(scheme, 0)


def _host_port(entry: str) -> tuple[str, int | None]:
    host, sep, port = entry.strip().lower().rpartition(":")
    if sep and port.isdigit() and "]" not in port:
        return host.strip("[]"), int(port)
    return entry.strip().lower().strip("[]"), None


def tls_failure(exception: BaseException) -> str | None:
    """The verification failure text if ``exception`` is a TLS certificate failure, else None."""
    texts = [f"{type(exception).__name__}: {exception}"]
    for failure in getattr(exception, "reasons", None) or []:
        value = getattr(failure, "value", failure)
        texts.append(f"{type(value).__name__}: {value}")
    for text in texts:
        if any(marker in text.lower() for marker in _TLS_MARKERS):
            return text
    return None


class CourtGuardMiddleware:
    """Refuses requests off the court; upgrades same-host http links on an https court."""

    def __init__(self, crawler: Crawler, allowed: list[tuple[str, int | None]]) -> None:
        self.crawler = crawler
        self.allowed = allowed
        self._tls_logged: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler, allowed_hosts(crawler.settings))

    # --- the court -------------------------------------------------------------------------------

    def _court(self, spider: Spider | None, request: Request) -> tuple[str, str, int] | None:
        base = getattr(spider, "base_url", None)
        base_url_of = getattr(spider, "base_url_of", None)
        if callable(base_url_of) and getattr(spider, "courts", None):
            base = base_url_of(request.meta)  # a multi-court crawl: the request's own court
        if not isinstance(base, str) or not base:
            return None
        parts = urlsplit(base)
        return parts.scheme, (parts.hostname or "").lower(), _port(parts.scheme, parts.port)

    def _allowed(self, host: str, port: int) -> bool:
        return any(h == host and (p is None or p == port) for h, p in self.allowed)

    # --- requests --------------------------------------------------------------------------------

    def process_request(self, request: Request) -> Request | None:
        parts = urlsplit(request.url)
        scheme = parts.scheme.lower()
        if scheme not in _DEFAULT_PORTS:
            self._refuse(request, f"not an http(s) URL: {strip_userinfo(request.url)}")
        try:
            port = _port(scheme, parts.port)
        except ValueError:
            self._refuse(request, f"bad port in {strip_userinfo(request.url)}")
        host = (parts.hostname or "").lower()
        court = self._court(self.crawler.spider, request)
        if court is None:
            return None
        c_scheme, c_host, c_port = court
        if c_scheme == "https" and scheme == "http" and host == c_host and port in (80, c_port):
            # the court's own http:// links and redirects (SIPP behind a TLS proxy): never
            # fetched in clear, always on the court's https port
            upgraded = parts._replace(scheme="https", netloc=_netloc(parts, c_port)).geturl()
            logger.debug("upgraded %s to %s (https court)", request.url, upgraded)
            self._inc("upgraded")
            return request.replace(url=upgraded)
        if host == c_host and (port == c_port or (scheme == "https" and port == 443)):
            return None
        if self._allowed(host, port):
            redirected_from = str((request.meta.get("redirect_urls") or [""])[-1])
            if scheme == "http" and redirected_from.startswith("https:"):
                self._refuse(
                    request,
                    f"redirect from https to http: {strip_userinfo(redirected_from)} -> "
                    f"{strip_userinfo(request.url)}",
                )
            return None
        self._refuse(
            request,
            f"{strip_userinfo(request.url)} is not on the court ({c_scheme}://{c_host}:{c_port}); "
            "allow a host with -s HARVEST_ALLOWED_HOSTS=host[:port]",
        )
        return None  # unreachable: _refuse raises

    def _refuse(self, request: Request, why: str) -> None:
        reason = f"refused: {why}"
        logger.warning("%s (from %s)", reason, request.meta.get(META_KEY) or "a request")
        self._inc("refused")
        scheduler = _scheduler(self.crawler)
        if scheduler is not None:
            scheduler.note(request, "refused", reason)
        raise RequestRefused(reason)

    # --- TLS -------------------------------------------------------------------------------------

    def process_exception(self, request: Request, exception: Exception) -> None:
        text = tls_failure(exception)
        if text is None:
            return
        parts = urlsplit(request.url)
        netloc = parts.netloc.rpartition("@")[2]
        reason = (
            f"TLS certificate of {netloc} failed verification ({text}); if you trust this "
            "court anyway, crawl with -s DOWNLOAD_VERIFY_CERTIFICATES=False, or add its CA "
            "with SSL_CERT_FILE=/path/to/ca.pem"
        )
        self._inc("tls_error")
        scheduler = _scheduler(self.crawler)
        if scheduler is not None:
            scheduler.fail(request, reason)
        if netloc in self._tls_logged:
            return
        self._tls_logged.add(netloc)
        logger.error("%s", reason)
        if scheduler is not None:
            scheduler.note(request, "tls_error", reason)
        court = self._court(self.crawler.spider, request)
        if court is not None and (parts.hostname or "").lower() == court[1]:
            engine = self.crawler.engine
            if engine is not None and engine.running:
                deferred_from_coro(engine.close_spider_async(reason=TLS_ERROR))

    def _inc(self, name: str) -> None:
        if self.crawler.stats is not None:
            self.crawler.stats.inc_value(STAT + name)


def _scheduler(crawler: Crawler) -> HarvestScheduler | None:
    """The crawl's harvest scheduler, if a crawl is running (none in unit tests)."""
    try:
        return harvest_scheduler(crawler)
    except RuntimeError:  # Crawler.engine before the crawl starts
        return None


def _netloc(parts: SplitResult, port: int) -> str:
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    return host if port == 443 else f"{host}:{port}"


def allowed_hosts(settings: BaseSettings) -> list[tuple[str, int | None]]:
    """``HARVEST_ALLOWED_HOSTS`` parsed: ``[(host, port or None)]``."""
    raw = settings.getlist("HARVEST_ALLOWED_HOSTS", list(DEFAULT_ALLOWED_HOSTS))
    out = []
    for entry in raw:
        if not str(entry).strip():
            continue
        if "/" in str(entry):
            raise NotConfigured(
                f"HARVEST_ALLOWED_HOSTS entry {entry!r} is not a host; write host or host:port"
            )
        out.append(_host_port(str(entry)))
    return out


class RedirectLoopMiddleware:
    """Records a redirect loop (or an over-long chain) as the row's error, with the chain."""

    def __init__(self, crawler: Crawler, max_times: int) -> None:
        self.crawler = crawler
        self.max_times = max_times

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.getbool("REDIRECT_ENABLED", True):
            raise NotConfigured("REDIRECT_ENABLED is off")
        return cls(crawler, crawler.settings.getint("REDIRECT_MAX_TIMES", 20))

    def process_response(self, request: Request, response: Response) -> Response:
        if response.status not in _REDIRECT_STATUSES or b"Location" not in response.headers:
            return response
        if request.meta.get("dont_redirect") or request.meta.get("handle_httpstatus_all"):
            return response
        if response.status in request.meta.get("handle_httpstatus_list", ()):
            return response
        location = response.headers[b"Location"]
        assert location is not None
        target = urljoin(request.url, location.decode("latin-1"))
        chain = [*(str(u) for u in request.meta.get("redirect_urls", [])), request.url]
        if target in chain:
            loop = [*chain[chain.index(target) :], target]
            reason = "redirect loop: " + " -> ".join(strip_userinfo(u) for u in loop)
        elif len(chain) > self.max_times:
            reason = (
                f"too many redirects ({len(chain) - 1}, REDIRECT_MAX_TIMES {self.max_times}): "
                + " -> ".join(strip_userinfo(u) for u in [chain[0], "...", target])
            )
        else:
            return response
        logger.warning("%s (%s)", reason, request.meta.get(META_KEY) or "a request")
        if self.crawler.stats is not None:
            self.crawler.stats.inc_value(STAT + "redirect_loop")
        scheduler = _scheduler(self.crawler)
        if scheduler is not None:
            scheduler.fail(request, reason, http_status=response.status)
            scheduler.note(request, "redirect_loop", reason)
        raise IgnoreRequest(reason)
