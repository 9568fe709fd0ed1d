"""Per-court browser access in a multi-court crawl: the browser pass for the courts whose check
says ``challenge`` only (docs/national.md); the clearance middleware with a stand-in browser."""

from __future__ import annotations

import asyncio

import pytest
from scrapy import Request

from harvest.base.meta import META_COURT, META_FAIL
from harvest.clearance import ChallengeNotPassed
from tests.support.clearance import SITE, gate_request, send_through, stand_in_middleware

OTHER = "http://sipp.pn-other.go.id/"


def _of(court: str, request: Request) -> Request:
    request.meta[META_COURT] = court
    return request


def test_only_the_challenge_courts_take_the_browser_pass() -> None:
    mw, engine, stats = stand_in_middleware()
    mw.only_courts = frozenset({"pn-gate"})

    async def run() -> None:
        # the challenge court: one pass, then plain HTTP with the clearance
        _, resend = await send_through(mw, _of("pn-gate", gate_request()))
        assert isinstance(resend, Request)
        carried, _ = await send_through(mw, resend)
        assert "sipp_clearance" in carried
        # another court whose check did not say challenge: no pass, its request fails with
        # what to do, and so do its later ones
        _, failed = await send_through(mw, _of("pn-other", gate_request(host=OTHER)))
        assert isinstance(failed, Request)
        reason = failed.meta[META_FAIL][1]
        assert reason.startswith(
            "court pn-other answered with a JavaScript challenge but its check"
        )
        assert "scrapy courts check" in reason
        with pytest.raises(ChallengeNotPassed, match="scrapy courts check"):
            await mw.process_request(_of("pn-other", gate_request("show_detil/1", host=OTHER)))

    asyncio.run(run())
    assert [r.url for r in engine.passes] == [SITE + "list_perkara"]
    assert stats["harvest/browser/passes"] == 1
