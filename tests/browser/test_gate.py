"""A real Chromium pass of the replica's JavaScript gate, with only Scrapy and the middleware.

The replica (``--challenge``) answers every request without a valid ``sipp_clearance`` cookie
with a 403 page whose script computes the cookie from the page's numbers, bound to the
User-Agent, and reloads. Only a browser running that script with the crawl's User-Agent can
clear it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from reference.sipp_site.testing import running_replica
from tests.support.browser import needs_chromium
from tests.support.gatecrawl import USER_AGENT
from tests.support.paths import PY, REPO

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGES = 6


def _tail(output: str | bytes | None) -> str:
    text = output.decode(errors="replace") if isinstance(output, bytes) else output or ""
    return text[-4000:]


@pytest.fixture(scope="module")
def gated_replica():
    with running_replica(cases=PAGES * 20, seed=5, challenge=True) as replica:
        yield replica


def _gate_crawl(url: str, mode: str, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / f"gate-{mode}.json"
    try:
        proc = subprocess.run(
            [PY, "-m", "tests.support.gatecrawl", url, mode, str(out), str(PAGES)],
            check=False,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the gate crawl hung; its log ends with:\n{_tail(exc.stderr)}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: dict[str, Any] = json.loads(out.read_text())
    result["log"] = proc.stderr
    return result


@needs_chromium
def test_browser_passes_the_gate_once_and_plain_http_does_the_rest(gated_replica, tmp_path):
    result = _gate_crawl(gated_replica.url, "challenge", tmp_path)
    items = sorted(result["items"], key=lambda i: i["page"])
    stats = result["stats"]
    # every list page arrived as a real list page (20 cases each), by plain HTTP with our UA
    assert [i["page"] for i in items] == list(range(1, PAGES + 1))
    assert {(i["status"], i["verdict"], i["rows"]) for i in items} == {(200, None, 20)}
    assert {i["sent_user_agent"] for i in items} == {USER_AGENT}
    # exactly one browser pass, shared by every request
    assert stats["harvest/browser/passes"] == 1
    assert stats["harvest/browser/passes/ok"] == 1
    assert stats["playwright/page_count"] == 1
    assert 1 <= stats["harvest/browser/challenges"] <= PAGES
    assert stats["harvest/browser/resent"] == stats["harvest/browser/challenges"]
    assert stats["harvest/browser/cleared_requests"] >= PAGES
    assert "harvest/browser/failed_requests" not in stats
    assert stats["downloader/response_status_count/200"] == PAGES
    # the replica gzips its pages, the challenge too: it was recognised after decoding
    assert stats["httpcompression/response_count"] >= PAGES + 1
    assert "clearance cookies: sipp_clearance" in result["log"]


def test_without_the_browser_the_crawl_stops_with_the_instruction(gated_replica, tmp_path):
    result = _gate_crawl(gated_replica.url, "off", tmp_path)
    stats = result["stats"]
    assert result["items"] == []
    assert stats["downloader/exception_type_count/harvest.clearance.ChallengeNotPassed"] == PAGES
    assert 1 <= stats["harvest/browser/challenges"] <= PAGES
    # no browser, no Playwright
    assert not any(key.startswith("playwright/") for key in stats)
    assert "harvest/browser/passes" not in stats
    assert "run with -s SIPP_BROWSER=challenge" in result["log"]
    assert "scrapy-playwright" not in result["log"]
