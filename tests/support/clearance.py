"""A stand-in browser for :class:`harvest.clearance.ClearanceMiddleware`'s logic.

The engine's ``download_async`` is replaced by :class:`FakeEngine`, which hands back a fake page
whose context gains the clearance cookie after a few looks, so every branch of the middleware
runs in milliseconds (tests/browser/test_middleware.py, tests/national/test_court_access.py).
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from scrapy import Request
from scrapy.http import HtmlResponse

from harvest.clearance import BrowserConfig, ClearanceMiddleware
from reference.sipp_site.challenge import COOKIE
from reference.sipp_site.render import challenge_page

SITE = "http://sipp.pn-gate.go.id/"
SECRET = "s3cr3t-clearance-value"
UA = "harvest-test/1.0"


class Stats:
    def __init__(self) -> None:
        self.values: dict[str, float] = {}

    def inc_value(self, key: str, count: int = 1) -> None:
        self.values[key] = self.values.get(key, 0) + count

    def max_value(self, key: str, value: float) -> None:
        self.values[key] = max(self.values.get(key, value), value)


class FakeContext:
    def __init__(self, cookie_after: int | None) -> None:
        self.cookie_after = cookie_after  # looks before the cookie appears; None = never
        self.looks = 0
        self.closed = False

    async def cookies(self, urls):
        self.looks += 1
        assert urls == [urls[0]]
        assert urls[0].startswith("http://sipp.pn-gate.go.id/")
        cookies = [{"name": "ci_session", "value": "browser-session", "path": "/"}]
        if self.cookie_after is not None and self.looks > self.cookie_after:
            cookies.append({"name": "sipp_clearance", "value": SECRET, "path": "/"})
        return cookies

    async def close(self) -> None:
        self.closed = True


class FakePage:
    def __init__(self, cookie_after: int | None) -> None:
        self.context = FakeContext(cookie_after)
        self.closed = False

    def is_closed(self) -> bool:
        return self.closed

    async def close(self) -> None:
        self.closed = True


class FakeEngine:
    """``download_async`` of the browser pass: records it, yields a page, answers the challenge."""

    def __init__(self, cookie_after: int | None = 2, delay: float = 0.05) -> None:
        self.cookie_after = cookie_after
        self.delay = delay  # seconds the navigation takes (a wedged browser: very long)
        self.passes: list[Request] = []
        self.pages: list[FakePage] = []

    async def download_async(self, request: Request):
        assert request.meta["playwright"] is True
        assert request.meta["playwright_include_page"] is True
        self.passes.append(request)
        page = FakePage(self.cookie_after)
        self.pages.append(page)
        request.meta["playwright_page"] = page
        await asyncio.sleep(self.delay)
        return HtmlResponse(request.url, body=challenge_body(), request=request)


def challenge_body() -> bytes:
    return challenge_page("document.cookie='x=1';").encode()


def challenge_response(request: Request, status: int = 503) -> HtmlResponse:
    return HtmlResponse(request.url, status=status, body=challenge_body(), request=request)


def page_response(request: Request) -> HtmlResponse:
    return HtmlResponse(request.url, body=b"<html><body>ok</body></html>", request=request)


def gate_request(path: str = "list_perkara", host: str = SITE) -> Request:
    request = Request(host + path, meta={"cookiejar": path})
    request.headers["User-Agent"] = UA
    return request


def stand_in_middleware(mode: str = "challenge", timeout: float = 2.0, **engine_kwargs):
    engine = FakeEngine(**engine_kwargs)
    crawler = SimpleNamespace(stats=Stats(), engine=engine, spider=None)
    config = BrowserConfig(mode=mode, timeout=timeout, cookie_names=("cf_clearance", COOKIE))
    middleware = ClearanceMiddleware(config, crawler=crawler)  # type: ignore[arg-type]
    return middleware, engine, crawler.stats.values


async def send_through(mw: ClearanceMiddleware, request: Request):
    """process_request, then the server's answer: a challenge unless the clearance is carried."""
    assert await mw.process_request(request) is None
    carried = {c["name"]: c["value"] for c in cookie_list(request.cookies)}
    answer = (
        page_response(request)
        if carried.get("sipp_clearance") == SECRET
        else challenge_response(request)
    )
    return carried, await mw.process_response(request, answer)


def cookie_list(cookies):
    if isinstance(cookies, dict):
        return [{"name": k, "value": v} for k, v in cookies.items()]
    return list(cookies)
