from __future__ import annotations

import pytest

from harvest.sipp.normalise import clean_text, parse_date, parse_int, parse_money, parse_yes_no


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("Rabu, 29 Mei 2024", "2024-05-29"),
        ("Senin, 05 Agu. 2024", "2024-08-05"),
        ("01 Jan. 2023", "2023-01-01"),
        ("14 Feb. 2023", "2023-02-14"),
        ("3 Mar. 2021", "2021-03-03"),
        ("30 Apr. 2022", "2022-04-30"),
        ("12 Jun. 2020", "2020-06-12"),
        ("31 Jul. 2020", "2020-07-31"),
        ("9 Sep. 2019", "2019-09-09"),
        ("Jumat, 11 Okt. 2024", "2024-10-11"),
        ("Kamis, 28 Nov. 2024", "2024-11-28"),
        ("Selasa, 31 Des. 2024", "2024-12-31"),
        ("29 May 2024", "2024-05-29"),
        ("17 Aug 2023", "2023-08-17"),
        ("1 Oct 2023", "2023-10-01"),
        ("25 Dec 2023", "2023-12-25"),
        ("29/05/2024", "2024-05-29"),
        ("2024-05-29", "2024-05-29"),
        ("2024-05-29 13:45:00", "2024-05-29"),
        ("  Rabu,\xa029 Mei  2024 ", "2024-05-29"),
        ("17 Agustus 2024", "2024-08-17"),
    ],
)
def test_parse_date_accepts_every_sipp_form(text, iso):
    assert parse_date(text) == iso


@pytest.mark.parametrize("text", ["-", "", " - ", None, "0000-00-00"])
def test_parse_date_missing_is_none(text):
    assert parse_date(text) is None


@pytest.mark.parametrize("text", ["31 Feb. 2024", "29 Foo 2024", "sometime", "2024/05/29"])
def test_parse_date_rejects_garbage(text):
    with pytest.raises(ValueError, match="date"):
        parse_date(text)


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("Rp. 1.234.000", 1234000),
        ("1.234.567,00", 1234567),
        ("Rp.5.000.000,00", 5000000),
        ("Rp. 0", 0),
        ("750000", 750000),
        ("Rp 30.000", 30000),
        ("-Rp. 20.000", -20000),
        ("Rp. -20.000", -20000),
    ],
)
def test_parse_money(text, amount):
    assert parse_money(text) == amount


@pytest.mark.parametrize("text", ["-", "", None])
def test_parse_money_missing_is_none(text):
    assert parse_money(text) is None


@pytest.mark.parametrize("text", ["Rp. 1.234,50", "satu juta", "1,234,000"])
def test_parse_money_rejects_what_an_integer_cannot_hold(text):
    with pytest.raises(ValueError, match="rupiah"):
        parse_money(text)


def test_parse_int_and_yes_no_and_clean_text():
    assert parse_int("21 Hari") == 21
    assert parse_int("-") is None
    assert parse_int("10.788") == 10788
    assert parse_yes_no("Ya") is True
    assert parse_yes_no("TIDAK") is False
    assert parse_yes_no("-") is None
    assert clean_text(" a\n\t b\xa0 c ") == "a b c"
