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
        ({"base_url": "https://sipp.pn-x.go.id/", "tabs": "putusan,../x"}, r"\./x is not a tab"),
        ({"base_url": "https://sipp.pn-x.go.id/", "court_id": "a/b"}, "not usable"),
    ],
)
def test_bad_arguments_fail_with_the_fix(kwargs: dict[str, str | None], message: str) -> None:
    with pytest.raises(SpiderArgumentError, match=message):
        SippArgs.parse(**kwargs)  # type: ignore[arg-type]


def test_unknown_argument_names_are_refused_with_the_closest_name() -> None:
    with pytest.raises(SpiderArgumentError, match=r"-a max_case: did you mean -a max_cases="):
        SippArgs.from_arguments({"base_url": "https://sipp.pn-x.go.id/", "max_case": "10"})
    with pytest.raises(SpiderArgumentError, match="-a colour: the sipp spider takes base_url,"):
        SippArgs.from_arguments({"base_url": "https://sipp.pn-x.go.id/", "colour": "red"})


def test_runner_arguments_are_not_spider_arguments() -> None:
    args = SippArgs.from_arguments({"base_url": "https://sipp.pn-x.go.id/", "_job": "abc"})
    assert args.court_id == "pn-x"


def test_unknown_tab_slugs_are_refused_with_the_valid_ones() -> None:
    with pytest.raises(SpiderArgumentError) as err:
        SippArgs.parse(base_url="https://sipp.pn-x.go.id/", tabs="putusan,jadwal_sidan,foo")
    message = str(err.value)
    assert message.startswith(
        "-a tabs: foo, jadwal_sidan (did you mean jadwal_sidang?) are not tab slugs; "
        "give comma-separated slugs among: banding, barang_bukti,"
    )
    assert "riwayat_perkara" in message


def test_tabs_none_fetches_no_tab() -> None:
    args = SippArgs.parse(base_url="https://sipp.pn-x.go.id/", tabs="None")
    assert args.tabs == frozenset()
    assert not args.wants_tab("putusan")
    assert SippArgs.parse(base_url="https://sipp.pn-x.go.id/").wants_tab("putusan")
