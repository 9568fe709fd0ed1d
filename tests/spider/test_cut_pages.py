"""The validation middleware on detail pages cut short: the app's deterministic cut (a PHP
fatal error in a view) is data; a truncation on the network stays a retry."""

from __future__ import annotations

from scrapy import Request, Spider
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from harvest.base.meta import META_CUT_DIGEST, META_EXPECT, META_PAGE_ERROR
from harvest.validation import SippValidationMiddleware
from tests.support.pages import FIXTURES

CUT = (FIXTURES / "golden" / "detail-militer-cut" / "page.html").read_text(encoding="utf-8")
WHOLE = (FIXTURES / "golden" / "detail-militer-pidana" / "page.html").read_text(encoding="utf-8")


def _middleware(retries: int = 2) -> SippValidationMiddleware:
    crawler = get_crawler(Spider, {"RETRY_TIMES": retries})
    crawler.spider = Spider.from_crawler(crawler, "sipp")
    crawler.stats.open_spider()
    return SippValidationMiddleware.from_crawler(crawler)


def _request() -> Request:
    return Request(
        "http://sipp.dilmil-contoh.go.id/detil_perkara",
        meta={META_EXPECT: "detail", "redirect_urls": ["http://x/show_detil/tok"]},
    )


def _answer(request: Request, body: str, status: int = 200) -> HtmlResponse:
    return HtmlResponse(
        request.url, status=status, body=body.encode("utf-8"), encoding="utf-8", request=request
    )


def _stat(mw: SippValidationMiddleware, name: str) -> object:
    return mw.crawler.stats.get_value(name)


def test_a_500_with_a_cut_detail_page_is_the_apps_cut_and_is_kept() -> None:
    mw = _middleware()
    request = _request()
    got = mw.process_response(request, _answer(request, CUT, status=500))
    assert isinstance(got, HtmlResponse)
    assert got.status == 200
    assert got.text == CUT
    assert _stat(mw, "harvest/validation/cut/status_500") == 1
    assert META_PAGE_ERROR not in request.meta


def test_a_200_cut_is_fetched_again_and_kept_when_the_bytes_repeat() -> None:
    mw = _middleware()
    request = _request()
    # each render carries other tokens (a random IV): masked, the bytes are the same
    link = "http://sipp.dilmil-contoh.go.id/list_perkara"
    first = CUT.replace(link, link + "/type/" + "A1b2" * 30 + "==", 1)
    again = CUT.replace(link, link + "/type/" + "Zq9x" * 32, 1)
    assert first != again
    retry = mw.process_response(request, _answer(request, first))
    assert isinstance(retry, Request)
    assert retry.meta["retry_times"] == 1
    assert retry.meta[META_CUT_DIGEST]
    got = mw.process_response(retry, _answer(retry, again))
    assert isinstance(got, HtmlResponse)
    assert got.text == again
    assert _stat(mw, "harvest/validation/cut/same_bytes_twice") == 1


def test_a_network_truncation_differs_on_the_second_fetch_and_stays_a_retry() -> None:
    mw = _middleware(retries=2)
    request = _request()
    first = WHOLE[: len(CUT) - 200]  # cut at another byte than the app's cut
    retry = mw.process_response(request, _answer(request, first))
    assert isinstance(retry, Request)
    second = mw.process_response(retry, _answer(retry, WHOLE[: len(CUT) - 50]))
    assert isinstance(second, Request)  # not the same bytes: still a truncation
    third = mw.process_response(second, _answer(second, WHOLE[: len(CUT) - 120]))
    assert isinstance(third, HtmlResponse)
    assert second.meta[META_PAGE_ERROR] == "truncated page"
    assert _stat(mw, "harvest/validation/cut") is None


def test_a_200_whole_page_is_left_alone_and_a_500_without_a_detail_page_too() -> None:
    mw = _middleware()
    request = _request()
    whole = _answer(request, WHOLE)
    assert mw.process_response(request, whole) is whole
    error = _answer(request, "<h1>500 Internal Server Error</h1>", status=500)
    assert mw.process_response(request, error) is error


def test_a_php_fatal_line_at_the_end_is_the_apps_cut_at_once() -> None:
    mw = _middleware()
    request = _request()
    body = CUT + (
        "<br />\n<b>Fatal error</b>:  Uncaught Error: Call to a member function "
        "convertDayDate() on null in /var/www/sipp/application/views/perkara_tab/"
        "data_umum.php:130"
    )
    got = mw.process_response(request, _answer(request, body))
    assert isinstance(got, HtmlResponse)
    assert _stat(mw, "harvest/validation/cut/php_fatal_error") == 1
