"""The text formats a SIPP site prints: dates, money, case numbers (docs/sipp.md §4.5).

Pure functions; the renderers use them to turn the generator's normalised values back into the
exact strings a real SIPP page shows.
"""

from __future__ import annotations

import datetime as dt

#: ``TanggalHelper``: Indonesian day names, Monday first (``date.weekday()`` order).
DAYS_ID = ("Senin", "Selasa", "Rabu", "Kamis", "Jumat", "Sabtu", "Minggu")
#: Indonesian month abbreviations with dots, as the detail pages print them.
MONTHS_ID = (
    "Jan.",
    "Feb.",
    "Mar.",
    "Apr.",
    "Mei",
    "Jun.",
    "Jul.",
    "Agu.",
    "Sep.",
    "Okt.",
    "Nov.",
    "Des.",
)
#: PHP ``date('M')``: English month abbreviations, as the list pages print them.
MONTHS_EN = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

#: What a detail page or tab prints for a missing date.
MISSING = " - "


def iso(day: dt.date | None) -> str | None:
    """``YYYY-MM-DD`` or ``None``: the ground-truth form of a date."""
    return None if day is None else day.isoformat()


def date_id(day: dt.date | None) -> str:
    """``Rabu, 29 Mei 2024`` (detail pages and tabs); a missing date prints ``" - "``."""
    if day is None:
        return MISSING
    return f"{DAYS_ID[day.weekday()]}, {day.day:02d} {MONTHS_ID[day.month - 1]} {day.year}"


def date_en(day: dt.date) -> str:
    """``29 May 2024`` (PHP ``d M Y``; the list pages)."""
    return f"{day.day:02d} {MONTHS_EN[day.month - 1]} {day.year}"


def date_dmy(day: dt.date | None) -> str:
    """``29/05/2024`` (Barang Bukti); a missing date prints ``" - "``."""
    if day is None:
        return MISSING
    return f"{day.day:02d}/{day.month:02d}/{day.year}"


def thousands(amount: int) -> str:
    """``1234000`` -> ``1.234.000`` (dot as thousands separator)."""
    return f"{amount:,}".replace(",", ".")


def rupiah(amount: int | None) -> str:
    """``Rp. 1.234.000`` (Biaya Perkara); ``None`` prints an empty cell."""
    return "" if amount is None else f"Rp. {thousands(amount)}"


def decimal_money(amount: int) -> str:
    """``1.234.567,00`` (Nilai Sengketa in Data Umum)."""
    return f"{thousands(amount)},00"


def count_id(amount: int) -> str:
    """``10.788`` (the list page total)."""
    return thousands(amount)
