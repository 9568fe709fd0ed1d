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

from harvest.base.meta import (
    META_CASE,
    META_CUT,
    META_CUT_DIGEST,
    META_EXPECT,
    META_FORCE_WARM,
    META_IS_WARMUP,
    META_LABELS_MISSING,
    META_PAGE_ERROR,
    META_PAGE_ERROR_KIND,
    META_SHOWN_LABELS,
)
from harvest.errors import ErrorPageServed, PageError, WrongCase
from harvest.sipp import page_error
from harvest.sipp.cut import cut_digest, detail_skeleton, fatal_message
from harvest.sipp.error_pages import TRUNCATED

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Self

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

#: Reasons meaning another page than the one asked for was served (the session's fault).
_WRONG_CASE_REASONS = ("list page instead of", "wrong case", "full page instead of")
#: Reasons caused by the session (retry in a freshly warmed session).
_SESSION_REASONS = ("session", *_WRONG_CASE_REASONS)
#: The reason of a tab's 404 after its show_* redirect: the session's one-shot value was gone.
SESSION_VALUE_LOST = "session value lost: 404 after the show_* redirect"


def judge(
    response: Response,
    expect: str,
    case_number: str | None,
    *,
    party_labels_missing: bool = False,
    shown_labels: Sequence[str] = (),
) -> tuple[str, str] | None:
    """Why ``response`` is not the page we asked for, as ``(kind, reason)``, or ``None``.

    ``kind`` is ``"error-page"`` or ``"wrong-case"``. ``party_labels_missing`` says the case's
    own detail page showed ``Error, Pihak Not Found!!!`` as a label (every PA court): then the
    same text in its tab fragments is the court's data, not a cold session; ``shown_labels``
    the labels its header did show: a fragment showing one of them is warm (the text is then a
    role the court's label table lacks). Pure: no I/O.
    """
    if not isinstance(response, TextResponse):
        return ("error-page", f"not an HTML page ({response.headers.get('Content-Type', b'')!r})")
    reason = page_error(
        response.text,
        expect=expect,
        case_number=case_number,
        party_labels_missing=party_labels_missing,
        shown_labels=shown_labels,
    )
    if reason is None:
        return None
    return ("wrong-case" if reason.startswith(_WRONG_CASE_REASONS) else "error-page", reason)


class SippValidationMiddleware:
    """Retry SIPP error pages and wrong-case pages like a 5xx; flag them when retries are spent."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def _accept_cut(self, request: Request, response: Response, evidence: str) -> Response:
        """A detail page the app cut short, told from a transient truncation by ``evidence``:
        passed on as data (the parser keeps what it shows, with a ``cut`` parse warning)."""
        stats = self.crawler.stats
        if stats is not None:
            stats.inc_value("harvest/validation/cut")
            stats.inc_value(f"harvest/validation/cut/{evidence.replace(' ', '_')}")
        logger.debug("%s is cut short by the app (%s): kept as data", request.url, evidence)
        request.meta[META_CUT] = evidence
        return response

    def process_response(self, request: Request, response: Response) -> Request | Response:
        expect = request.meta.get(META_EXPECT)
        if not expect or request.meta.get(META_IS_WARMUP):
            return response
        verdict: tuple[str, str] | None
        if response.status == 404 and expect == "tab" and request.meta.get("redirect_urls"):
            # show_<tab> redirected here and the controller found no one-shot value in the
            # session (CodeIgniter's show_404, docs/sipp.md §3): a session error, retried in a
            # fresh session like the others (a late request at the court may have taken it)
            verdict = ("session", SESSION_VALUE_LOST)
        elif response.status != 200:
            if response.status == 500 and expect == "detail" and _is_cut(response):
                # a fatal error in a view with display_errors off: PHP answers 500 with what the
                # view printed so far. A network fault never turns a page into a 500: the cut
                # is the app's, the same on every request (harvest/sipp/cut.py)
                return self._accept_cut(request, response.replace(status=200), "status 500")
            return response
        else:
            verdict = judge(
                response,
                expect,
                request.meta.get(META_CASE),
                party_labels_missing=bool(request.meta.get(META_LABELS_MISSING)),
                shown_labels=tuple(request.meta.get(META_SHOWN_LABELS) or ()),
            )
        if verdict is None:
            return response
        kind, reason = verdict
        if reason == TRUNCATED and expect == "detail" and _is_cut(response):
            if fatal_message(response.text) is not None:
                return self._accept_cut(request, response, "php fatal error")
            digest = cut_digest(response.text)
            if request.meta.get(META_CUT_DIGEST) == digest:
                return self._accept_cut(request, response, "same bytes twice")
            request.meta[META_CUT_DIGEST] = digest  # the retry compares its body with this one
        stats = self.crawler.stats
        if stats is not None:
            stats.inc_value(f"harvest/validation/{kind}")
        assert self.crawler.spider is not None
        retry = get_retry_request(request, spider=self.crawler.spider, reason=f"sipp: {reason}")
        if retry is not None:
            if reason.startswith(_SESSION_REASONS):
                retry.meta[META_FORCE_WARM] = True
            return retry
        # one line for it comes from the scheduler when it records the error
        logger.debug("giving up on %s: %s", request.url, reason)
        request.meta[META_PAGE_ERROR] = reason
        request.meta[META_PAGE_ERROR_KIND] = kind
        return response


def _is_cut(response: Response) -> bool:
    return isinstance(response, TextResponse) and detail_skeleton(response.text)


def raise_for_page_error(response: Response) -> None:
    """Raise the :class:`PageError` the validation middleware recorded on ``response``, if any."""
    reason = response.meta.get(META_PAGE_ERROR)
    if reason is None:
        return
    exc: type[PageError] = (
        WrongCase if response.meta.get(META_PAGE_ERROR_KIND) == "wrong-case" else ErrorPageServed
    )
    raise exc(reason, response.url)
