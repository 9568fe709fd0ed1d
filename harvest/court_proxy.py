"""A court's own proxy (the ``proxy`` column of its court list; docs/national.md).

:class:`CourtProxyMiddleware` (downloader order 745, just before Scrapy's HttpProxyMiddleware
750) sets ``meta["proxy"]`` of each request of a court that has a proxy, resolved at that
moment (``env:NAME``: the environment variable's value, which may carry credentials), and takes
it off again, with the ``Proxy-Authorization`` header HttpProxyMiddleware derives from it,
when the request comes back (answer or exception). The request a retry or a redirect makes
from it, and the copy the request state stores, therefore never carry the proxy's
credentials; they exist in the environment and in this process's memory only, never logged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.exceptions import NotConfigured

from harvest.base.meta import META_COURT
from harvest.courts import CourtListError, resolve_proxy

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

__all__ = ["CourtProxyMiddleware"]

#: meta key marking a proxy this middleware set (so it takes off its own only)
META_SET = "_harvest_court_proxy"
_TAKEN_OFF = ("proxy", "_auth_proxy", META_SET)


class CourtProxyMiddleware:
    """Each court's requests through its own proxy (see the module docstring)."""

    def __init__(self, proxies: dict[str, str]) -> None:
        self.proxies = proxies  # court id -> resolved proxy URL

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        courts: dict[str, Any] = dict(getattr(crawler.spider, "courts", None) or {})
        proxies: dict[str, str] = {}
        for court_id, court in courts.items():
            try:
                url = resolve_proxy(getattr(court, "proxy", None))
            except CourtListError as exc:
                raise CourtListError(f"court {court_id}: {exc}") from None
            if url:
                proxies[court_id] = url
        if not proxies:
            raise NotConfigured  # no court has a proxy (no message: Scrapy logs none then)
        return cls(proxies)

    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        court = request.meta.get(META_COURT)
        url = self.proxies.get(court) if isinstance(court, str) else None
        if url is not None and "proxy" not in request.meta:
            request.meta["proxy"] = url
            request.meta[META_SET] = True

    def _take_off(self, request: Request) -> None:
        if request.meta.get(META_SET):
            for key in _TAKEN_OFF:
                request.meta.pop(key, None)
            request.headers.pop(b"Proxy-Authorization", None)

    def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Response:
        self._take_off(request)
        return response

    def process_exception(
        self, request: Request, exception: Exception, spider: Spider | None = None
    ) -> None:
        self._take_off(request)
