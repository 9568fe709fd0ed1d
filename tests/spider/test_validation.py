"""The validation middleware on a tab's 404 after its show_* redirect (a lost one-shot value)."""

from __future__ import annotations

from scrapy import Request, Spider
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from harvest.base.meta import META_EXPECT, META_FORCE_WARM
from harvest.validation import SESSION_VALUE_LOST, SippValidationMiddleware


def _middleware() -> SippValidationMiddleware:
    crawler = get_crawler(Spider, {"RETRY_TIMES": 2})
    crawler.spider = Spider.from_crawler(crawler, "sipp")
    crawler.stats.open_spider()
    return SippValidationMiddleware.from_crawler(crawler)


def _answer(request: Request, status: int) -> HtmlResponse:
    return HtmlResponse(request.url, status=status, body=b"<title>404 Page Not Found</title>",
                        request=request)  # fmt: skip


def test_a_tab_404_after_its_redirect_is_retried_in_a_fresh_session() -> None:
    mw = _middleware()
    request = Request(
        "http://x/putusan",
        meta={META_EXPECT: "tab", "redirect_urls": ["http://x/show_putusan/tok"]},
    )
    retry = mw.process_response(request, _answer(request, 404))
    assert isinstance(retry, Request)
    assert retry.meta[META_FORCE_WARM] is True
    assert retry.meta["retry_times"] == 1
    assert mw.crawler.stats.get_value("retry/reason_count/sipp: " + SESSION_VALUE_LOST) == 1


def test_a_404_without_a_redirect_is_left_to_the_http_error_handling() -> None:
    mw = _middleware()
    request = Request("http://x/show_we_kppu/tok", meta={META_EXPECT: "tab"})
    response = _answer(request, 404)
    assert mw.process_response(request, response) is response
