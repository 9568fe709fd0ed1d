from __future__ import annotations

import pytest

from harvest.base.identity import (
    IdentityError,
    case_key,
    court_id_from_url,
    dedupe_key,
    normalise_case_number,
    tab_key,
    validate_court_id,
)


@pytest.mark.parametrize(
    ("url", "court"),
    [
        ("https://sipp.pn-jakartapusat.go.id/", "pn-jakartapusat"),
        ("https://sipp.pn-jakartapusat.go.id", "pn-jakartapusat"),
        ("https://pn-sleman.go.id/sipp/", "pn-sleman"),
        ("http://sipp.pn-painan.info/", "pn-painan"),
        ("https://SIPP.PA-Metro.go.id/list_perkara", "pa-metro"),
        ("http://127.0.0.1:8800/", "127-0-0-1-8800"),
        ("http://localhost/", "localhost-80"),
    ],
)
def test_court_id_from_url(url: str, court: str) -> None:
    assert court_id_from_url(url) == court


@pytest.mark.parametrize("url", ["ftp://sipp.pn-x.go.id/", "sipp.pn-x.go.id", ""])
def test_court_id_rejects_non_http(url: str) -> None:
    with pytest.raises(IdentityError, match="http"):
        court_id_from_url(url)


@pytest.mark.parametrize("bad", ["", "a|b", "a:b", "a/b", "has space"])
def test_validate_court_id_rejects_key_separators(bad: str) -> None:
    with pytest.raises(IdentityError):
        validate_court_id(bad)


def test_case_number_whitespace_variants_share_one_key() -> None:
    variants = [
        "123/Pid.B/2024/PN Jkt.Pst",
        "  123/Pid.B/2024/PN   Jkt.Pst ",
        "123/Pid.B/2024/PN\tJkt.Pst\n",
    ]
    assert {normalise_case_number(v) for v in variants} == {"123/Pid.B/2024/PN Jkt.Pst"}
    assert {dedupe_key("pn-jakartapusat", v) for v in variants} == {
        "sipp.pn-jakartapusat:123/Pid.B/2024/PN Jkt.Pst"
    }


def test_case_number_keeps_dots_and_case() -> None:
    # nothing but whitespace changes: "PN.Tjk" and "PN Tjk" stay different numbers
    assert normalise_case_number("5/Pid.B/2024/PN.Tjk") == "5/Pid.B/2024/PN.Tjk"


def test_request_keys() -> None:
    assert case_key("pn-x", " 1/Pdt.G/2024/PN  X ") == "case|pn-x|1/Pdt.G/2024/PN X"
    assert tab_key("pn-x", "1/Pdt.G/2024/PN X", "riwayat_perkara") == (
        "tab|pn-x|1/Pdt.G/2024/PN X|riwayat_perkara"
    )


def test_dedupe_key_rejects_empty_number() -> None:
    with pytest.raises(IdentityError):
        dedupe_key("pn-x", "   ")
