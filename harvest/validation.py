"""Validation of every SIPP response: error pages served with 200 and wrong-case pages.

SIPP answers many failures with status 200: a CodeIgniter database error, a PHP notice block,
``ERROR PERKARA NOT FOUND!``, the list page instead of a detail (the one-shot session value was
missing), another case's detail (the session was clobbered), or a tab fragment rendered in a
session that never loaded a full page (party labels replaced by ``Error, Pihak Not Found!!!``).

``SippValidationMiddleware`` sits between RetryMiddleware (550) and RedirectMiddleware (600), so
it judges the final page of a redirect chain and its retries share Scrapy's retry budget
(``RETRY_TIMES`` / ``meta["max_retry_times"]``). A bad page is retried like a 5xx, in a fresh
session when the session is the cause. When the budget is spent the response is passed on with
``meta["harvest_page_error"]`` set to the reason; :func:`raise_for_page_error` (called first in
every spider callback) turns that into a :class:`harvest.errors.PageError`, which the outcome
tracking records as the request's error.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.downloadermiddlewares.retry import get_retry_request
from scrapy.http import TextResponse

from harvest.errors import ErrorPageServed, PageError, WrongCase
from harvest.identity import normalise_case_number
from harvest.sessions import META_FORCE_WARM, META_IS_WARMUP
from harvest.sipp import ParseError, page_error, parse_detail_page

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

#: Request meta: what the page must be ("list", "detail" or "tab").
META_EXPECT = "sipp_expect"
#: Request meta: the normalised case number a detail page must show.
META_CASE = "sipp_case"
#: Request/response meta set when retries are spent: the reason the page is bad.
META_PAGE_ERROR = "harvest_page_error"
META_PAGE_ERROR_KIND = "harvest_page_error_kind"

#: Reasons caused by the session (retry in a freshly warmed session).
_SESSION_REASONS = ("session", "list page instead of detail", "wrong case")


def judge(response: Response, expect: str, case_number: str | None) -> tuple[str, str] | None:
    """Why ``response`` is not the page we asked for, as ``(kind, reason)``, or ``None``.

    ``kind`` is ``"error-page"`` or ``"wrong-case"``. Pure: no I/O, no state.
    """
    if not isinstance(response, TextResponse):
        return ("error-page", f"not an HTML page ({response.headers.get('Content-Type', b'')!r})")
    text = response.text
    reason = page_error(text, expect=expect)
    if reason is not None:
        kind = "wrong-case" if reason == "list page instead of detail" else "error-page"
        return (kind, reason)
    if expect == "detail" and case_number:
        try:
            detail = parse_detail_page(text, response.url)
        except ParseError as exc:
            return ("error-page", f"malformed detail page: {exc}")
        got = normalise_case_number(detail.nomor_perkara)
        if got != case_number:
            return ("wrong-case", f"wrong case: page shows {got!r}")
    return None


class SippValidationMiddleware:
    """Retry SIPP error pages and wrong-case pages like a 5xx; flag them when retries are spent."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Request | Response:
        expect = request.meta.get(META_EXPECT)
        if not expect or request.meta.get(META_IS_WARMUP) or response.status != 200:
            return response
        verdict = judge(response, expect, request.meta.get(META_CASE))
        if verdict is None:
            return response
        kind, reason = verdict
        stats = self.crawler.stats
        if stats is not None:
            stats.inc_value(f"harvest/validation/{kind}")
        assert self.crawler.spider is not None
        retry = get_retry_request(request, spider=self.crawler.spider, reason=f"sipp: {reason}")
        if retry is not None:
            if reason.startswith(_SESSION_REASONS):
                retry.meta[META_FORCE_WARM] = True
            return retry
        logger.warning("giving up on %s: %s", request.url, reason)
        request.meta[META_PAGE_ERROR] = reason
        request.meta[META_PAGE_ERROR_KIND] = kind
        return response


def raise_for_page_error(response: Response) -> None:
    """Raise the :class:`PageError` the validation middleware recorded on ``response``, if any."""
    reason = response.meta.get(META_PAGE_ERROR)
    if reason is None:
        return
    exc: type[PageError] = (
        WrongCase if response.meta.get(META_PAGE_ERROR_KIND) == "wrong-case" else ErrorPageServed
    )
    raise exc(reason, response.url)
