"""Exceptions naming why a SIPP request failed; the scheduler stores ``reason`` as last error."""

from __future__ import annotations

from scrapy.exceptions import IgnoreRequest


class PageError(IgnoreRequest):
    """A response that arrived but is not the page we asked for (retries exhausted).

    Raised from the downloader middleware chain, so the request's errback and the outcome
    middleware see it like a download failure. ``reason`` is a short, stable description.
    """

    def __init__(self, reason: str, url: str = "") -> None:
        super().__init__(f"{reason} ({url})" if url else reason)
        self.reason = reason
        self.url = url


class ErrorPageServed(PageError):
    """The server answered 200 with an error page (database error, PHP error, 404 text, ...)."""


class WrongCase(PageError):
    """The page belongs to another case (the one-shot session was clobbered) or is the list."""


class StoppedBeforeSending(IgnoreRequest):
    """The crawl is stopping (a signal, a scrapyd cancel, a ``CLOSESPIDER_*`` limit) and this
    request was still waiting to be sent (for a session of its court's pool, before a warm-up).

    It is not an outcome: the outcome middleware leaves the row in flight, and the scheduler's
    close puts it back to pending, so the next crawl sends it (docs/scheduler.md, "Stopping").
    """

    def __init__(self, url: str = "") -> None:
        super().__init__(f"not sent: the crawl is stopping ({url})" if url else "not sent")
        self.url = url


class AnswerNotKept(IgnoreRequest):
    """The court answered, but the answer could not be kept (the page archive is full or cannot
    be written): the crawl closes on that fatal error (``harvest_archive_error``).

    It is not an outcome: the row stays in flight and the scheduler's close puts it back to
    pending, so the next crawl, once the cause is fixed, fetches the page again.
    """

    def __init__(self, url: str = "") -> None:
        super().__init__(f"answer not kept: the page archive failed ({url})" if url else "")
        self.url = url
