"""The court guard and the list parser's row hook, without a crawl."""

from __future__ import annotations

import pytest
from scrapy import Request, Spider
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from extensions.guard import CourtGuardMiddleware, RequestRefused, allowed_hosts, tls_failure
from harvest.sipp.list_page import RowError, parse_list_page


class Court(Spider):
    name = "sipp"
    base_url = "https://sipp.pn-x.go.id/"


def guard(**settings: object) -> CourtGuardMiddleware:
    crawler = get_crawler(Court, settings_dict=dict(settings))
    crawler.spider = Court()
    return CourtGuardMiddleware.from_crawler(crawler)


def test_the_court_s_own_urls_pass_and_http_ones_are_upgraded() -> None:
    mw = guard()
    assert mw.process_request(Request("https://sipp.pn-x.go.id/list_perkara")) is None
    assert mw.process_request(Request("https://SIPP.pn-x.go.id:443/x")) is None
    up = mw.process_request(Request("http://sipp.pn-x.go.id/show_detil/abc?x=1"))
    assert isinstance(up, Request)
    assert up.url == "https://sipp.pn-x.go.id/show_detil/abc?x=1"
    # a redirect to http on the court itself is upgraded too (never fetched in clear)
    hop = Request(
        "http://sipp.pn-x.go.id/detil", meta={"redirect_urls": ["https://sipp.pn-x.go.id/a"]}
    )
    assert mw.process_request(hop).url == "https://sipp.pn-x.go.id/detil"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("file:///etc/passwd", "refused: not an http(s) URL: file:///etc/passwd"),
        ("data:text/html,hi", "refused: not an http(s) URL: data:text/html,hi"),
        ("ftp://sipp.pn-x.go.id/x", "refused: not an http(s) URL: ftp://sipp.pn-x.go.id/x"),
        (
            "https://evil.example/x",
            "refused: https://evil.example/x is not on the court (https://sipp.pn-x.go.id:443)",
        ),
        (
            "http://sipp.pn-x.go.id:8080/x",
            "refused: http://sipp.pn-x.go.id:8080/x is not on the court",
        ),
        ("https://u:secret@evil.example/x", "refused: https://evil.example/x is not on the court"),
    ],
)
def test_everything_else_is_refused(url: str, why: str) -> None:
    with pytest.raises(RequestRefused) as caught:
        guard().process_request(Request(url))
    assert caught.value.reason.startswith(why)
    assert "secret" not in caught.value.reason


def test_allowed_hosts_pass_but_never_by_a_downgrade() -> None:
    mw = guard(HARVEST_ALLOWED_HOSTS="cdn.pn-x.go.id,files.example:8443")
    assert mw.process_request(Request("https://cdn.pn-x.go.id/a.pdf")) is None
    assert mw.process_request(Request("http://cdn.pn-x.go.id/a.pdf")) is None
    assert mw.process_request(Request("https://files.example:8443/a")) is None
    with pytest.raises(RequestRefused, match="not on the court"):
        mw.process_request(Request("https://files.example/a"))
    down = Request(
        "http://cdn.pn-x.go.id/a.pdf", meta={"redirect_urls": ["https://sipp.pn-x.go.id/x"]}
    )
    with pytest.raises(RequestRefused, match="redirect from https to http"):
        mw.process_request(down)


def test_allowed_hosts_must_be_hosts() -> None:
    with pytest.raises(NotConfigured, match="write host or host:port"):
        allowed_hosts(get_crawler(Court, {"HARVEST_ALLOWED_HOSTS": "https://x/"}).settings)


def test_tls_failures_are_recognised_and_nothing_else() -> None:
    from OpenSSL import SSL
    from twisted.python.failure import Failure
    from twisted.web._newclient import ResponseNeverReceived

    failure = Failure(SSL.Error([("SSL routines", "", "certificate verify failed")]))
    assert tls_failure(ResponseNeverReceived([failure])) is not None
    assert tls_failure(ConnectionRefusedError("refused")) is None


LIST = """<html><body><div id="pageTitle">Perkara</div><table id="tablePerkaraAll"><tbody>
<tr><td>No</td><td>Nomor Perkara</td><td>Tanggal Register</td><td>Link</td></tr>
<tr><td>1</td><td></td><td>02 Jan 2024</td><td><a href="/show_detil/a">detil</a></td></tr>
<tr><td>2</td><td>2/Pid.B/2024/PN X</td><td>03 Jan 2024</td>
    <td><a href="/show_detil/b">d</a></td></tr>
<tr><td>3</td><td>3/Pid.B/2024/PN X</td><td>someday</td><td><a href="/show_detil/c">d</a></td></tr>
<tr><td>4</td><td>4/Pid.B/2024/PN X</td><td>05 Jan 2024</td><td>-</td></tr>
</tbody></table></body></html>"""


def test_a_bad_list_row_is_that_row_s_error_and_the_page_parses_on() -> None:
    page = parse_list_page(LIST, "https://sipp.pn-x.go.id/list_perkara")
    assert [r.nomor_perkara for r in page.rows] == ["2/Pid.B/2024/PN X", "3/Pid.B/2024/PN X"]
    assert page.rows[0].detail_url == "https://sipp.pn-x.go.id/show_detil/b"
    # a date that does not read is kept as shown (with a parse warning), not a row error
    assert page.rows[1].data["tanggal_register"] == "someday"
    assert page.rows[1].registered is None
    assert page.row_errors == [
        RowError(1, "list page: a case row has no Nomor Perkara"),
        RowError(4, "list page: row '4/Pid.B/2024/PN X' has no show_detil link"),
    ]
    assert page.no_data is False
