"""Whole crawls through a proxy that breaks list page 1 of the replica (issue 11, findings 3, 6
and 9): a row without a case number, two numbers that normalise to one key, a link to
``file:///etc/passwd``, a link to another local server, and a redirect loop. Each stays that
row's problem; every other case of the court is harvested equal to the ground truth."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import (
    crawl,
    exported,
    mismatches,
    scrapy_command,
    state_query,
    truth_by_key,
)
from tests.support.servers import counting_server, rewriting_proxy

COURT = "pn-replika"

pytestmark = pytest.mark.slow


def _row(n: int) -> re.Pattern[str]:
    """Row ``n`` of a list page: its number cell and, lazily, its detil link."""
    return re.compile(
        rf'(<tr><td>{n}</td><td>)([^<]*)(</td>.*?<a href=")([^"]*)(">detil</a>)', re.DOTALL
    )


def test_row_problems_stay_row_level_and_requests_stay_on_the_court(tmp_path: Path) -> None:
    numbers: dict[int, str] = {}
    with (
        running_replica(cases=30, seed=31, court_id=COURT) as replica,
        counting_server() as elsewhere,
    ):
        truth = truth_by_key(replica.truth_path(tmp_path))

        def rewrite(
            path: str, status: int, body: bytes
        ) -> bytes | tuple[int, dict[str, str], bytes]:
            if path.startswith("/loop/"):
                nxt = "/loop/b" if path == "/loop/a" else "/loop/a"
                return 302, {"Location": nxt}, b""
            if path == "/away":  # a redirect off the court
                return 302, {"Location": elsewhere.url + "redirected"}, b""
            if path != "/list_perkara":
                return body
            html = body.decode("utf-8")
            for n in range(1, 8):
                numbers[n] = _row(n).search(html).group(2)  # type: ignore[union-attr]
            html = _row(1).sub(r"\1\3\4\5", html, count=1)  # row 1: no case number
            clash = numbers[2].replace(" ", "  ", 1)  # row 3 shows row 2's number, spaced out
            html = _row(3).sub(
                lambda m: m.group(1) + clash + m.group(3) + m.group(4) + m.group(5), html, count=1
            )
            html = _row(4).sub(r"\1\2\3file:///etc/passwd\5", html, count=1)
            html = _row(5).sub(rf"\1\2\3{elsewhere.url}show_detil/stolen\5", html, count=1)
            html = _row(6).sub(r"\1\2\3/loop/a\5", html, count=1)
            html = _row(7).sub(r"\1\2\3/away\5", html, count=1)
            return html.encode("utf-8")

        with rewriting_proxy(replica.port, rewrite) as proxy:
            result = crawl(proxy.url, COURT, tmp_path / "ws")
            status = scrapy_command("status", tmp_path / "ws", "--json")
            text = scrapy_command("status", tmp_path / "ws").stdout
            # requeue sends back the four failed case rows, never a row problem; they fail again
            requeue = scrapy_command("requeue", tmp_path / "ws")
            again = crawl(proxy.url, COURT, tmp_path / "ws")
    # exit 3: finished with the four refused / looping case rows failed (row problems are not
    # failed requests)
    assert result.returncode == 3, result.stderr[-3000:]
    ws = tmp_path / "ws"

    # the rest of page 1 and page 2 went on: every other case equals the truth
    lost = {f"sipp.{COURT}:{numbers[n]}" for n in (1, 3, 4, 5, 6, 7)}
    want = {k: v for k, v in truth.items() if k not in lost}
    assert len(want) == 24
    assert mismatches(exported(ws), want) == {}

    # nothing left the court: the other server was never asked, /etc/passwd never read
    assert elsewhere.hits == []
    assert "root:x:0:0" not in result.stderr

    errors = dict(
        state_query(ws, "SELECT key, last_error FROM requests WHERE status = 'error' ORDER BY id")
    )
    page1 = proxy.url + "list_perkara"
    assert errors == {
        f"case|{COURT}|{numbers[4]}": "refused: not an http(s) URL: file:///etc/passwd",
        f"case|{COURT}|{numbers[5]}": (
            f"refused: {elsewhere.url}show_detil/stolen is not on the court "
            f"(http://127.0.0.1:{proxy.port}); allow a host with -s HARVEST_ALLOWED_HOSTS="
            "host[:port]"
        ),
        f"case|{COURT}|{numbers[6]}": (
            f"redirect loop: {proxy.url}loop/a -> {proxy.url}loop/b -> {proxy.url}loop/a"
        ),
        f"case|{COURT}|{numbers[7]}": (
            f"refused: {elsewhere.url}redirected is not on the court "
            f"(http://127.0.0.1:{proxy.port}); allow a host with -s HARVEST_ALLOWED_HOSTS="
            "host[:port]"
        ),
    }
    assert "WARNING: redirect loop: " in result.stderr

    report = json.loads(status.stdout)
    assert report["notices"] == {
        "row_error": 1,
        "number_clash": 1,
        "refused": 3,
        "redirect_loop": 1,
    }
    details = {n["event"]: n["detail"] for n in report["latest_notices"]}
    assert details["row_error"] == (f"{page1} row 1: list page: a case row has no Nomor Perkara")
    assert details["number_clash"] == (
        f"{page1} row 3: case numbers {numbers[2]!r} (row 2) and {clash_of(numbers[2])!r} "
        f"(row 3) normalise to one key {numbers[2]!r}: only the first is crawled"
    )
    assert "list row error: " in result.stderr
    assert "'harvest/guard/refused': 3," in result.stderr
    assert "'harvest/list/row_error': 1," in result.stderr
    assert "notices: row_error 1, number_clash 1, refused 3, redirect_loop 1, tls_error 0" in text

    assert requeue.returncode == 0
    assert "requeued 4 failed requests to pending" in requeue.stdout
    assert again.returncode == 3, again.stderr[-3000:]  # they fail again
    assert len(state_query(ws, "SELECT key FROM requests WHERE status = 'error'")) == 4
    assert "'harvest/guard/refused': 3," in again.stderr
    assert mismatches(exported(ws), want) == {}


def clash_of(number: str) -> str:
    return number.replace(" ", "  ", 1)
