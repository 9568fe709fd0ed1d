from __future__ import annotations

import pytest

from harvest.spider_args import SippArgs, SpiderArgumentError


def test_defaults_derive_court_and_normalise_base() -> None:
    args = SippArgs.parse(base_url="https://sipp.pn-jakartapusat.go.id")
    assert args.base_url == "https://sipp.pn-jakartapusat.go.id/"
    assert args.court_id == "pn-jakartapusat"
    assert args.listing == "all"
    assert args.max_cases is None
    assert args.tabs is None
    assert args.wants_tab("putusan")


def test_all_arguments() -> None:
    args = SippArgs.parse(
        base_url="https://pn-sleman.go.id/sipp/",
        court_id="pn-sleman",
        listing="Pidana Biasa",
        max_cases="50",
        since="2024-01-01",
        until="2024-06-30",
        tabs="Penetapan, riwayat_perkara",
    )
    assert args.court_id == "pn-sleman"
    assert args.listing == "Pidana Biasa"
    assert args.max_cases == 50
    assert (args.since, args.until) == ("2024-01-01", "2024-06-30")
    assert args.tabs == frozenset({"penetapan", "riwayat_perkara"})
    assert args.wants_tab("penetapan")
    assert not args.wants_tab("putusan")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"base_url": None}, "missing -a base_url"),
        ({"base_url": "sipp.pn-x.go.id"}, "is not an http"),
        ({"base_url": "https://sipp.pn-x.go.id/?a=1"}, "query or fragment"),
        ({"base_url": "https://sipp.pn-x.go.id/", "max_cases": "ten"}, "not a whole number"),
        ({"base_url": "https://sipp.pn-x.go.id/", "max_cases": "0"}, "at least 1"),
        ({"base_url": "https://sipp.pn-x.go.id/", "since": "29/05/2024"}, "YYYY-MM-DD"),
        (
            {"base_url": "https://sipp.pn-x.go.id/", "since": "2024-06-01", "until": "2024-01-01"},
            "is after",
        ),
        ({"base_url": "https://sipp.pn-x.go.id/", "tabs": "putusan,../x"}, "not tab slugs"),
        ({"base_url": "https://sipp.pn-x.go.id/", "court_id": "a/b"}, "not usable"),
    ],
)
def test_bad_arguments_fail_with_the_fix(kwargs: dict[str, str | None], message: str) -> None:
    with pytest.raises(SpiderArgumentError, match=message):
        SippArgs.parse(**kwargs)  # type: ignore[arg-type]
