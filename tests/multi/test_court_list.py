"""``-a courts=FILE``: the court list, and the requests of a multi-court spider (court, slot)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harvest.base.meta import META_COURT, META_KEY, META_WARMUP_URL
from harvest.courts import CourtEntry, CourtListError, read_courts
from harvest.spider_args import SpiderArgumentError
from harvest.spiders.sipp import MULTI_COURT_ID, SippSpider


def write(tmp: Path, text: str) -> Path:
    path = tmp / "courts.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_court_list_gives_each_court_its_id_listing_and_tabs(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "# national list, part 1\n"
        "base_url,court_id,listing,tabs\n"
        "https://sipp.pn-jakartapusat.go.id,,,\n"
        'http://127.0.0.1:8001/sipp/,pa-dua,Perdata,"putusan,saksi"\n'
        "\n",
    )
    assert read_courts(path) == [
        CourtEntry("pn-jakartapusat", "https://sipp.pn-jakartapusat.go.id/", None, None),
        CourtEntry("pa-dua", "http://127.0.0.1:8001/sipp/", "Perdata", "putusan,saksi"),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "is empty: no header, no court"),
        ("url,court_id\nhttp://a/,x\n", "must name the columns, base_url required"),
        ("base_url,court\nhttp://a/,x\n", "has the header 'base_url,court'"),
        ("base_url\nftp://a/\n", r"court 1: -a base_url='ftp://a/' is not an http\(s\) URL"),
        (
            "base_url,court_id\nhttp://127.0.0.1:1/,c1\nhttp://127.0.0.1:2/,c1\n",
            "court 2: court id 'c1' is already court 1",
        ),
        ("base_url,tabs\nhttp://a.go.id/,putusn\n", "putusn \\(did you mean putusan\\?\\)"),
    ],
)
def test_a_bad_court_list_names_the_line_and_the_fix(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(CourtListError, match=message):
        read_courts(write(tmp_path, text))


def test_a_missing_court_list_says_what_to_give(tmp_path: Path) -> None:
    with pytest.raises(CourtListError, match=r"cannot read the court list .*nope\.csv"):
        SippSpider(courts=str(tmp_path / "nope.csv"))


def test_the_multi_court_spider_routes_every_request_to_its_court_and_slot(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        "base_url,court_id,listing\nhttp://127.0.0.1:8001/,pn-satu,\n"
        "http://127.0.0.1:8002/,pa-dua,Perdata\n",
    )
    spider = SippSpider(courts=str(path), max_cases="5", _job="j1")
    assert list(spider.courts) == ["pn-satu", "pa-dua"]
    assert spider.court_id == MULTI_COURT_ID
    assert spider.courts["pa-dua"].args.max_cases == 5  # shared arguments apply to each
    (first,) = spider.start_court("pn-satu")
    assert first.url == "http://127.0.0.1:8001/list_perkara"
    assert first.meta[META_KEY] == "list|pn-satu|all|1"
    assert first.meta[META_COURT] == first.meta["download_slot"] == "pn-satu"
    (menu,) = spider.start_court("pa-dua")  # a menu listing: the court's root first
    assert menu.url == "http://127.0.0.1:8002/"
    assert menu.meta[META_COURT] == menu.meta["download_slot"] == "pa-dua"
    tab = spider._tab_request(
        spider.courts["pa-dua"],
        "1/Pdt.G/2024/PA.Dua",
        "putusan",
        "http://x/",
        labels_missing=False,
    )
    assert tab.meta[META_WARMUP_URL] == "http://127.0.0.1:8002/"
    assert tab.meta["download_slot"] == "pa-dua"
    assert spider.base_url_of({META_COURT: "pa-dua"}) == "http://127.0.0.1:8002/"
    assert spider.base_url_of({META_COURT: "pn-else"}) is None


def test_single_court_requests_carry_no_court_slot() -> None:
    spider = SippSpider(base_url="http://127.0.0.1:8001/", court_id="pn-satu")
    assert spider.courts == {}
    (first,) = spider.start_court("pn-satu")
    assert META_COURT not in first.meta
    assert "download_slot" not in first.meta


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"courts": "x.csv", "base_url": "http://a/"}, "both name the courts: give one"),
        ({"base_url": "http://a/", "max_courts": "2"}, "-a max_courts needs -a courts="),
        ({"courts": "registered", "max_courts": "0"}, "-a max_courts='0' must be at least 1"),
    ],
)
def test_conflicting_court_arguments_are_refused(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(SpiderArgumentError, match=message):
        SippSpider(**kwargs)
