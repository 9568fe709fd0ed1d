"""``scrapy courts check``'s classification, the court directory, proxies and the courts table's
court-access step on both backends (docs/national.md)."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import psycopg
import pytest
from scrapy import Request
from scrapy.http import HtmlResponse

from extensions.pg_store import PostgresRequestStore
from extensions.sqlite_store import SqliteRequestStore
from extensions.store import COURT_ACCESS_COLUMNS, CourtCheck, CourtRecord
from harvest.base.meta import META_COURT
from harvest.court_check import Answer, Hop, classify, effective_base
from harvest.court_proxy import CourtProxyMiddleware
from harvest.courts import DIRECTORY, CourtListError, read_courts, read_directory, resolve_proxy
from harvest.sipp.error_pages import JS_CHALLENGE
from tests.support.postgres import pg_database, pg_server  # noqa: F401  (fixtures)

AT = "2026-12-02T01:00:00.000Z"
BASE = "http://127.0.0.5:8000/"


def _list_page() -> str:
    from reference.sipp_site.court import make_court
    from reference.sipp_site.model import CourtData
    from reference.sipp_site.site import Site
    from reference.sipp_site.testing import get_page
    from reference.sipp_site.tokens import TokenCodec

    site = Site(CourtData(make_court("pn"), seed=1, cases=3), codec=TokenCodec(1))
    return get_page(site, "/list_perkara")


def one(status: int, body: str = "", *, url: str = BASE) -> Answer:
    return Answer((Hop(url, status, None, body),))


def test_every_answer_gets_its_access_class() -> None:
    sipp = _list_page()
    assert classify(BASE, one(200, sipp), at=AT) == CourtCheck("ok", None, 200, "SIPP answers", AT)
    assert classify(BASE, one(403, "<h1>403 Forbidden</h1>"), at=AT).access == "refused"
    assert classify(BASE, one(401, ""), at=AT).access == "refused"
    assert classify(BASE, one(503, "<h1>503</h1>"), at=AT) == CourtCheck(
        "server_error", None, 503, "HTTP 503", AT
    )
    assert classify(BASE, one(404, "nope"), at=AT).access == "not_sipp"
    other = classify(BASE, one(200, "<html><h1>Selamat Datang</h1></html>"), at=AT)
    assert (other.access, other.reason) == ("not_sipp", "not a SIPP page: not a list page")
    down = Answer((Hop(BASE, error="unreachable: connection refused"),))
    assert classify(BASE, down, at=AT) == CourtCheck(
        "unreachable", None, None, "connection refused", AT
    )
    tls = Answer((Hop(BASE, error="tls_error: handshake failure"),))
    assert classify(BASE, tls, at=AT).access == "tls_error"


def test_a_challenge_page_is_a_challenge_whatever_its_status() -> None:
    from reference.sipp_site.render import challenge_page

    page = challenge_page("document.cookie = 'sipp_clearance=1'; location.reload();")
    from harvest.sipp import page_error

    assert page_error(page, expect="list") == JS_CHALLENGE
    for status in (200, 403, 503):
        assert classify(BASE, one(status, page), at=AT).access == "challenge"


def test_a_redirect_to_another_host_or_scheme_is_the_courts_effective_base_url() -> None:
    sipp = _list_page()
    moved = Answer(
        (
            Hop(BASE, 301, "https://sipp.pn-x.go.id/"),
            Hop("https://sipp.pn-x.go.id/", 200, None, sipp),
        )
    )
    assert classify(BASE, moved, at=AT) == CourtCheck(
        "redirected", "https://sipp.pn-x.go.id/", 200,
        "redirect (301) to https://sipp.pn-x.go.id/", AT,
    )  # fmt: skip
    # a redirect inside the court's own root (to its list page) is no move
    inside = Answer(
        (Hop(BASE, 302, BASE + "list_perkara"), Hop(BASE + "list_perkara", 200, None, sipp))
    )
    assert classify(BASE, inside, at=AT).access == "ok"
    # a redirect away to a page that is not SIPP
    away = Answer(
        (
            Hop(BASE, 301, "http://portal.go.id/"),
            Hop("http://portal.go.id/", 200, None, "<p>hi</p>"),
        )
    )
    check = classify(BASE, away, at=AT)
    assert check.access == "not_sipp"
    assert "after a redirect to http://portal.go.id/" in check.reason


@pytest.mark.parametrize(
    ("url", "base"),
    [
        ("http://h/", "http://h/"),
        ("http://h/list_perkara", "http://h/"),
        ("http://h/sipp/list_perkara?x=1", "http://h/sipp/"),
        ("https://www.h:8443/sipp/", "https://www.h:8443/sipp/"),
        ("http://h/index.php", "http://h/"),
    ],
)
def test_effective_base_of_a_landing_url(url: str, base: str) -> None:
    assert effective_base(url) == base


def test_the_shipped_directory_has_every_court_once_with_its_facts() -> None:
    courts = read_directory()
    kinds = Counter(c.kind for c in courts)
    assert kinds["pn"] == 349
    assert kinds["pa"] == 8
    assert kinds["ptun"] == 2
    assert len({c.court_id for c in courts}) == len(courts)
    assert all(c.name and c.province and c.city for c in courts)
    assert all(c.high_court for c in courts if c.kind == "pn")
    text = DIRECTORY.read_text(encoding="utf-8")
    assert "epireve/sipp-monitor" in text  # the source is named in the file
    assert "2026-07-03" in text
    west_java = read_directory(kind="pn", province="jawa barat")
    assert len(west_java) == 21
    assert {c.province for c in west_java} == {"Jawa Barat"}
    with pytest.raises(CourtListError, match="provinces: Aceh, Bali"):
        read_directory(province="Atlantis")
    with pytest.raises(CourtListError, match="--kind 'pt' is not one of pn, pa, ptun, militer"):
        read_directory(kind="pt")


def test_a_court_list_proxy_never_holds_credentials(tmp_path: Path) -> None:
    path = tmp_path / "courts.csv"
    path.write_text("base_url,proxy\nhttp://127.0.0.1:1/,http://u:secret@proxy:3128\n")
    with pytest.raises(CourtListError, match="with credentials is refused") as info:
        read_courts(path)
    assert "secret" not in str(info.value)
    path.write_text("base_url,court_id,proxy\nhttp://127.0.0.1:1/,pn-a,env:PROXY_A\n"
                    "http://127.0.0.1:2/,pn-b,http://proxy:3128\n")  # fmt: skip
    assert [c.proxy for c in read_courts(path)] == ["env:PROXY_A", "http://proxy:3128"]
    assert resolve_proxy("env:PROXY_A", {"PROXY_A": "http://u:pw@p:1"}) == "http://u:pw@p:1"
    with pytest.raises(CourtListError, match="PROXY_A is not set"):
        resolve_proxy("env:PROXY_A", {})


def test_the_proxy_middleware_takes_the_credentials_off_each_request_it_gives_back() -> None:
    mw = CourtProxyMiddleware({"pn-a": "http://u:pw@127.0.0.1:3128"})
    request = Request("http://127.0.0.5/", meta={META_COURT: "pn-a"})
    mw.process_request(request)
    assert request.meta["proxy"] == "http://u:pw@127.0.0.1:3128"
    request.headers[b"Proxy-Authorization"] = b"Basic dTpwdw=="  # what HttpProxyMiddleware adds
    response = HtmlResponse(request.url, body=b"<html></html>", request=request)
    assert mw.process_response(request, response) is response
    assert "proxy" not in request.meta
    assert b"Proxy-Authorization" not in request.headers
    other = Request("http://127.0.0.6/", meta={META_COURT: "pn-b"})
    mw.process_request(other)
    assert "proxy" not in other.meta


def _old_courts_table(conn: sqlite3.Connection | psycopg.Connection[object]) -> None:
    for name in COURT_ACCESS_COLUMNS:
        conn.execute(f"ALTER TABLE courts DROP COLUMN {name}")
    conn.execute(
        "INSERT INTO courts (court, base_url, listing, tabs, added_at) "
        "VALUES ('pn-old', 'http://127.0.0.1:1/', NULL, NULL, '2026-11-30T00:00:00.000Z')"
    )


def test_the_court_access_step_adds_its_columns_to_an_older_sqlite_state(tmp_path: Path) -> None:
    db = tmp_path / "state.sqlite"
    SqliteRequestStore.open(db).close()
    conn = sqlite3.connect(db, isolation_level=None)
    _old_courts_table(conn)
    conn.close()
    readonly = SqliteRequestStore.open(db, readonly=True)  # an older table, read as it is
    assert [(c.court, c.access) for c in readonly.courts()] == [("pn-old", None)]
    readonly.close()
    store = SqliteRequestStore.open(db)
    try:
        (old,) = store.courts()
        assert (old.court, old.base_url, old.added_at) == (
            "pn-old", "http://127.0.0.1:1/", "2026-11-30T00:00:00.000Z",
        )  # fmt: skip
        assert store.record_court_check("pn-old", CourtCheck("ok", None, 200, "SIPP answers", AT))
        assert store.courts()[0].access == "ok"
    finally:
        store.close()


def test_the_court_access_step_adds_its_columns_to_an_older_pg_state(pg_database: str) -> None:  # noqa: F811
    PostgresRequestStore.open(pg_database).close()
    with psycopg.connect(pg_database, autocommit=True) as conn:
        _old_courts_table(conn)
    store = PostgresRequestStore.open(pg_database)
    try:
        (old,) = store.courts()
        assert (old.court, old.access, old.added_at) == (
            "pn-old",
            None,
            "2026-11-30T00:00:00.000Z",
        )
        store.add_courts(
            [CourtRecord("pn-new", "http://127.0.0.1:2/", kind="pn", province="Bali")]
        )
        check = CourtCheck("refused", None, 403, "HTTP 403 for this client", AT)
        assert store.record_court_check("pn-new", check)
        assert [(c.court, c.province, c.check()) for c in store.courts()] == [
            ("pn-old", None, None), ("pn-new", "Bali", check),
        ]  # fmt: skip
    finally:
        store.close()


def test_the_probe_sends_the_crawls_user_agent_and_follows_a_redirect_politely() -> None:
    import http.server
    import threading

    from scrapy.settings import Settings

    from harvest.court_check import crawl_user_agent, probe

    seen: list[tuple[str, str]] = []
    page = _list_page().encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append((self.path, self.headers.get("User-Agent", "")))
            if self.path == "/":
                self.send_response(301)
                self.send_header("Location", "/sipp/")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        agent = crawl_user_agent(Settings({"HARVEST_CONTACT": "ops@example.id"}))
        assert agent == "harvest-sipp/0.1 (+court case research; contact: ops@example.id)"
        slept: list[float] = []
        base = f"http://127.0.0.1:{server.server_port}/"
        answer = probe(base, user_agent=agent, timeout=5, delay=1.5, sleep=slept.append)
        assert seen == [("/", agent), ("/sipp/", agent)]
        assert slept == [1.5]  # the court's delay between its two requests
        check = classify(base, answer, at=AT)
        assert (check.access, check.effective_base_url) == ("redirected", base + "sipp/")
    finally:
        server.shutdown()
        server.server_close()
