"""ClearanceMiddleware's logic with a stand-in browser: detection, sharing, waiting, failing.

The real browser is exercised end to end in ``test_end_to_end.py``; here the engine's
``download_async`` is replaced by a fake that hands back a fake page whose context gains the
clearance cookie after a few looks, so every branch runs in milliseconds (the stand-in:
tests/support/clearance.py).
"""

from __future__ import annotations

import asyncio
import logging

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse

from harvest.base.meta import META_FAIL, META_GENERATION
from harvest.clearance import (
    OFF_REASON,
    ChallengeNotPassed,
    is_challenge,
)
from tests.support.clearance import (
    SECRET,
    SITE,
    UA,
    challenge_response,
    cookie_list,
    gate_request,
    send_through,
    stand_in_middleware,
)
from tests.support.pages import read_fixture

pytestmark = pytest.mark.browser


def test_is_challenge_recognises_the_gate_whatever_the_status() -> None:
    request = gate_request()
    for status in (200, 403, 503):
        assert is_challenge(challenge_response(request, status))
    assert not is_challenge(
        HtmlResponse(SITE, body=read_fixture("real/pa-metro-list-page1.html").encode())
    )
    assert not is_challenge(HtmlResponse(SITE, body=b""))


def test_browser_off_fails_with_the_instruction_and_sends_nothing_more() -> None:
    mw, engine, stats = stand_in_middleware(mode="off")

    async def run():
        first = gate_request()
        _, result = await send_through(mw, first)
        # the challenged request comes back as a copy that fails before being sent
        assert isinstance(result, Request)
        assert result.meta[META_FAIL][1] == OFF_REASON
        with pytest.raises(ChallengeNotPassed) as info:
            await mw.process_request(result)
        assert info.value.reason == OFF_REASON
        assert info.value.reason == (
            "court behind a JavaScript challenge: run with -s SIPP_BROWSER=challenge"
        )
        # every later request to the host fails at once; other hosts are untouched
        with pytest.raises(ChallengeNotPassed, match="SIPP_BROWSER=challenge"):
            await mw.process_request(gate_request("show_detil/1"))
        assert await mw.process_request(gate_request(host="http://sipp.pn-other.go.id/")) is None

    asyncio.run(run())
    assert engine.passes == []
    assert stats["harvest/browser/challenges"] == 1
    assert stats["harvest/browser/failed_requests"] == 1


def test_challenge_passed_once_then_every_request_carries_the_clearance() -> None:
    mw, engine, stats = stand_in_middleware()

    async def run():
        first = gate_request()
        carried, resend = await send_through(mw, first)
        assert carried == {}
        assert isinstance(resend, Request)
        assert resend.url == first.url
        assert resend.dont_filter
        carried, response = await send_through(mw, resend)
        assert carried == {"sipp_clearance": SECRET}  # the browser session cookie stays behind
        assert isinstance(response, HtmlResponse)
        assert response.status == 200
        # taken off again after the exchange: a retry copy never persists the value
        assert resend.cookies == {}
        other = gate_request("show_detil/2")
        other.cookies = {"mine": "1"}
        carried, response = await send_through(mw, other)
        assert carried == {"mine": "1", "sipp_clearance": SECRET}
        assert other.cookies == {"mine": "1"}
        assert other.meta[META_GENERATION] == 1

    asyncio.run(run())
    assert len(engine.passes) == 1
    browser_request = engine.passes[0]
    assert browser_request.url == SITE + "list_perkara"
    assert browser_request.meta["playwright_context_kwargs"]["user_agent"] == UA
    assert engine.pages[0].closed
    assert engine.pages[0].context.closed
    assert stats["harvest/browser/passes"] == 1
    assert stats["harvest/browser/passes/ok"] == 1
    assert stats["harvest/browser/resent"] == 1
    assert stats["harvest/browser/cleared_requests"] == 2


def test_one_pass_per_host_and_others_wait_for_it() -> None:
    mw, engine, stats = stand_in_middleware(delay=0.2)

    async def run():
        sent = [gate_request(f"show_detil/{i}") for i in range(5)]
        for request in sent:
            assert await mw.process_request(request) is None
        # five challenged at once: one pass, five re-sends
        results = await asyncio.gather(
            *(mw.process_response(r, challenge_response(r)) for r in sent),
            mw.process_request(late := gate_request("late")),  # arrives while the pass runs
        )
        resends = results[:5]
        assert all(isinstance(r, Request) for r in resends)
        # the late request waited for the pass and left with its clearance
        assert {c["name"] for c in cookie_list(late.cookies)} == {"sipp_clearance"}
        for r in resends:
            carried, response = await send_through(mw, r)
            assert carried == {"sipp_clearance": SECRET}
            assert response.status == 200

    asyncio.run(run())
    assert len(engine.passes) == 1
    assert stats["harvest/browser/challenges"] == 5
    assert stats["harvest/browser/resent"] == 5


def test_expired_clearance_is_renewed_by_a_new_pass() -> None:
    mw, engine, _ = stand_in_middleware()

    async def run():
        _, resend = await send_through(mw, gate_request())
        _, ok = await send_through(mw, resend)
        assert ok.status == 200
        # later the server challenges a request carrying the (now expired) clearance
        again = gate_request("show_detil/9")
        assert await mw.process_request(again) is None
        result = await mw.process_response(again, challenge_response(again))
        assert isinstance(result, Request)
        assert await mw.process_request(result) is None
        assert result.meta[META_GENERATION] == 2

    asyncio.run(run())
    assert len(engine.passes) == 2


def test_clearance_not_accepted_fails_the_host_with_the_reason() -> None:
    mw, engine, stats = stand_in_middleware()

    async def run():
        _, resend = await send_through(mw, gate_request())
        assert await mw.process_request(resend) is None
        # the server challenges the request that carries the fresh clearance (UA/IP mismatch)
        failed = await mw.process_response(resend, challenge_response(resend))
        with pytest.raises(ChallengeNotPassed, match="does not accept the browser's clearance"):
            await mw.process_request(failed)
        with pytest.raises(ChallengeNotPassed, match="same proxy"):
            await mw.process_request(gate_request("show_detil/3"))

    asyncio.run(run())
    assert len(engine.passes) == 1
    assert stats["harvest/browser/rejected"] == 1


def test_no_cookie_within_the_timeout(caplog) -> None:
    mw, engine, stats = stand_in_middleware(timeout=0.3, cookie_after=None)

    async def run():
        failed = await mw.process_response(r := gate_request(), challenge_response(r))
        with pytest.raises(ChallengeNotPassed) as info:
            await mw.process_request(failed)
        assert info.value.reason.startswith(
            "no clearance cookie (cf_clearance, sipp_clearance) after 0.3 s in the browser"
        )
        with pytest.raises(ChallengeNotPassed, match="no clearance cookie"):
            await mw.process_request(gate_request("show_detil/4"))

    with caplog.at_level(logging.INFO, logger="harvest.clearance"):
        asyncio.run(run())
    assert engine.pages[0].closed
    assert engine.pages[0].context.closed
    assert stats["harvest/browser/passes/failed"] == 1
    assert "not passed" in caplog.text


def test_cookie_values_are_never_logged(caplog) -> None:
    mw, _, _ = stand_in_middleware()

    async def run():
        _, resend = await send_through(mw, gate_request())
        await send_through(mw, resend)

    with caplog.at_level(logging.DEBUG):
        asyncio.run(run())
    assert "passed in" in caplog.text
    assert "sipp_clearance" in caplog.text  # the name, for the operator
    assert SECRET not in caplog.text


def test_failure_marker_of_another_run_is_ignored() -> None:
    # a failing copy persisted by a killed run is simply sent by the next run
    mw, _, _ = stand_in_middleware(mode="off")
    request = gate_request()
    request.meta[META_FAIL] = ("token-of-a-dead-process", OFF_REASON)

    async def run():
        assert await mw.process_request(request) is None

    asyncio.run(run())
    assert META_FAIL not in request.meta


def test_a_stuck_browser_fails_the_pass_instead_of_hanging_the_crawl(monkeypatch) -> None:
    monkeypatch.setattr("harvest.clearance.PASS_SLACK", 0.3)
    mw, engine, stats = stand_in_middleware(timeout=0.1, delay=3600)

    async def run():
        failed = await mw.process_response(r := gate_request(), challenge_response(r))
        with pytest.raises(ChallengeNotPassed) as info:
            await mw.process_request(failed)
        assert info.value.reason == (
            "the browser did not finish the JavaScript challenge of sipp.pn-gate.go.id in 0.5 s"
        )

    asyncio.run(asyncio.wait_for(run(), timeout=10))
    assert engine.pages[0].closed
    assert stats["harvest/browser/passes/failed"] == 1
