"""The JavaScript gate: plain HTTP never gets past it; a real headless Chromium does."""

from __future__ import annotations

import os
import urllib.error
import urllib.request

import pytest
import requests

from reference.sipp_site.testing import running_replica

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def gated():
    with running_replica(cases=40, seed=5, challenge=True) as rep:
        yield rep


def test_plain_http_never_passes(gated):
    with requests.Session() as s:
        for _ in range(3):  # keep the cookies it is given and try again: still the gate
            r = s.get(gated.url)
            assert r.status_code == 403
            assert "<title>Just a moment...</title>" in r.text
            assert "document.cookie" in r.text
            assert "tablePerkaraAll" not in r.text
        assert s.get(gated.url + "show_detil/abc", allow_redirects=False).status_code == 403
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(gated.url, timeout=10)
    assert err.value.code == 403
    err.value.close()


def test_a_forged_or_other_agent_cookie_does_not_pass(gated):
    with requests.Session() as s:
        s.cookies.set("sipp_clearance", "00ff.abcdef0123456789.zz")
        assert s.get(gated.url).status_code == 403


@pytest.mark.browser
@pytest.mark.skipif(
    not os.path.exists(CHROMIUM), reason="Debian chromium (/usr/bin/chromium) is not installed"
)
def test_headless_chromium_passes_and_its_cookie_works_for_its_agent(gated):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page()
            page.goto(gated.url)
            page.wait_for_selector("div.total_perkara", timeout=20_000)
            assert "Total : 40 Perkara" in page.content()
            agent = page.evaluate("navigator.userAgent")
            cookies = {c["name"]: c["value"] for c in page.context.cookies()}
        finally:
            browser.close()
    assert "sipp_clearance" in cookies
    # the clearance cookie replays over plain HTTP with the browser's User-Agent only
    with requests.Session() as s:
        s.cookies.set("sipp_clearance", cookies["sipp_clearance"])
        s.headers["User-Agent"] = agent
        assert "Total : 40 Perkara" in s.get(gated.url).text
        s.headers["User-Agent"] = "python-requests"
        assert s.get(gated.url).status_code == 403
