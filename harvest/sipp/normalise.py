"""Value normalisers shared by every SIPP parser: dates, money, whitespace.

Pure functions over the text a cell shows. Each returns ``None`` for the site's "no value"
markers (empty, ``-``) and raises :class:`ValueError` (naming the offending text) for a value it
cannot read, so that a parser can decide to keep the raw text instead of guessing.
"""

from __future__ import annotations

import re
from datetime import date

#: Month names and abbreviations as SIPP prints them. Detail pages and tabs use Indonesian
#: abbreviations with a dot (``Jan.``, ``Mei``, ``Agu.``, ``Des.``); list pages use PHP's
#: English ``d M Y`` (``29 May 2024``). Full names of both languages are accepted too.
MONTHS: dict[str, int] = {
    # Indonesian
    "jan": 1,
    "januari": 1,
    "feb": 2,
    "februari": 2,
    "pebruari": 2,
    "mar": 3,
    "maret": 3,
    "apr": 4,
    "april": 4,
    "mei": 5,
    "jun": 6,
    "juni": 6,
    "jul": 7,
    "juli": 7,
    "agu": 8,
    "agt": 8,
    "ags": 8,
    "agus": 8,
    "agustus": 8,
    "sep": 9,
    "sept": 9,
    "september": 9,
    "okt": 10,
    "oktober": 10,
    "nov": 11,
    "nop": 11,
    "november": 11,
    "nopember": 11,
    "des": 12,
    "desember": 12,
    # English (where different)
    "january": 1,
    "february": 2,
    "march": 3,
    "may": 5,
    "june": 6,
    "july": 7,
    "aug": 8,
    "august": 8,
    "oct": 10,
    "october": 10,
    "dec": 12,
    "december": 12,
}

DAY_NAMES = frozenset(
    {
        "senin",
        "selasa",
        "rabu",
        "kamis",
        "jumat",
        "jum'at",
        "sabtu",
        "minggu",
        "ahad",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    }
)

#: Texts that mean "no value" wherever a date or amount belongs.
EMPTY_MARKERS = frozenset({"", "-", "--", "0000-00-00", "00/00/0000", "00-00-0000"})

_WS = re.compile(r"\s+")
_NAMED_DATE = re.compile(r"^(\d{1,2})\s+([A-Za-z']+)\.?\s+(\d{4})$")
_NUMERIC_DMY = re.compile(r"^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$")
_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$")
_MONEY_PREFIX = re.compile(r"^(?:rp\.?|idr)\s*", re.IGNORECASE)
_MONEY_DOT_THOUSANDS = re.compile(r"^\d{1,3}(?:\.\d{3})*(?:,\d+)?$")
_MONEY_PLAIN = re.compile(r"^\d+(?:,\d+)?$")


def clean_text(text: str | None) -> str:
    """Collapse runs of whitespace (including non-breaking spaces) to one space and strip."""
    if text is None:
        return ""
    return _WS.sub(" ", text.replace("\xa0", " ")).strip()


def none_if_empty(text: str | None) -> str | None:
    """The cleaned text, or ``None`` for an empty cell or ``-`` (docs/item-format.md)."""
    value = clean_text(text)
    return None if value in ("", "-", "--") else value


def parse_date(text: str | None) -> str | None:
    """An ISO ``YYYY-MM-DD`` date from any SIPP date form, ``None`` for ``-``/empty.

    Accepted: ``Rabu, 29 Mei 2024`` / ``29 Agu. 2024`` (detail and tabs, Indonesian, optional
    day name), ``29 May 2024`` (list pages, English), ``29/05/2024`` (barang bukti and forms),
    ``2024-05-29`` (possibly with a time). Raises :class:`ValueError` for anything else,
    including impossible dates such as 31 Feb.
    """
    value = clean_text(text)
    if value in EMPTY_MARKERS:
        return None
    if "," in value:
        head, _, rest = value.partition(",")
        if head.strip().lower() in DAY_NAMES:
            value = rest.strip()
    else:
        first, _, rest = value.partition(" ")
        if first.lower() in DAY_NAMES:
            value = rest.strip()
    try:
        if m := _NAMED_DATE.match(value):
            month = MONTHS.get(m.group(2).lower())
            if month is None:
                raise ValueError(f"unknown month name {m.group(2)!r}")
            return date(int(m.group(3)), month, int(m.group(1))).isoformat()
        if m := _NUMERIC_DMY.match(value):
            return date(int(m.group(3)), int(m.group(2)), int(m.group(1))).isoformat()
        if m := _ISO.match(value):
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3))).isoformat()
    except ValueError as e:
        raise ValueError(f"not a valid date: {text!r} ({e})") from e
    raise ValueError(f"not a date SIPP prints: {text!r}")


def parse_money(text: str | None) -> int | None:
    """An amount in whole rupiah from ``Rp. 1.234.000``, ``1.234.567,00``, ``Rp.5.000.000,00``.

    ``.`` separates thousands and ``,`` the cents. ``None`` for ``-``/empty. Raises
    :class:`ValueError` when the text is not an amount or carries non-zero cents (which an
    integer cannot hold; the caller keeps the raw text then).
    """
    value = clean_text(text)
    if value in EMPTY_MARKERS:
        return None
    negative = False
    if value.startswith("-"):
        negative, value = True, value[1:].strip()
    value = _MONEY_PREFIX.sub("", value).strip()
    if value.startswith("-"):
        negative, value = True, value[1:].strip()
    if not (_MONEY_DOT_THOUSANDS.match(value) or _MONEY_PLAIN.match(value)):
        raise ValueError(f"not a rupiah amount: {text!r}")
    whole, _, cents = value.partition(",")
    if cents and int(cents) != 0:
        raise ValueError(f"rupiah amount with cents cannot be an integer: {text!r}")
    amount = int(whole.replace(".", ""))
    return -amount if negative else amount


def parse_int(text: str | None) -> int | None:
    """A plain integer (row numbers, ``21 Hari``), ``None`` for ``-``/empty."""
    value = clean_text(text)
    if value in EMPTY_MARKERS:
        return None
    m = re.match(r"^(-?\d[\d.]*)", value)
    if not m:
        raise ValueError(f"not a number: {text!r}")
    return int(m.group(1).replace(".", ""))


def parse_yes_no(text: str | None) -> bool | None:
    """``Ya``/``Tidak`` (and ``YA``/``TIDAK``) as a boolean, ``None`` for ``-``/empty."""
    value = clean_text(text).lower()
    if value in EMPTY_MARKERS:
        return None
    if value in ("ya", "yes", "y"):
        return True
    if value in ("tidak", "no", "t", "n"):
        return False
    raise ValueError(f"not Ya/Tidak: {text!r}")
