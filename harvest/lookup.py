"""Finding cases across courts (``scrapy find``, docs/case-history.md): by party name,
normalised (accents, case and spacing ignored: ``Siti Aminah`` finds ``SITI ÂMINAH``), or by
case number (normalised as :func:`harvest.base.identity.normalise_case_number` does), over the item
store of either backend."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Match", "find_by_party", "normalise_name", "party_names"]

_SPACES = re.compile(r"\s+")
_DROPPED = re.compile(r"[.'’`]")  # S.H. -> sh, D'Souza -> dsouza
_PUNCT = re.compile(r"[^\w\s]")  # any other punctuation separates words


def normalise_name(name: str) -> str:
    """Lower case, without accents, dots and apostrophes; other punctuation and runs of spaces
    become one space."""
    decomposed = unicodedata.normalize("NFKD", name)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    text = _DROPPED.sub("", stripped.casefold())
    return _SPACES.sub(" ", _PUNCT.sub(" ", text)).strip()


def party_names(case: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """``(role label, name)`` of every party and lawyer of a ``case`` part."""
    header = case.get("header") or {}
    for side in ("pihak_1", "pihak_2"):
        entry = header.get(side) or {}
        for name in entry.get("nama") or []:
            yield str(entry.get("label")), name
    data_umum = case.get("data_umum") or {}
    for entry in data_umum.get("pihak") or []:
        for name in entry.get("nama") or []:
            yield str(entry.get("label")), name
    for entry in data_umum.get("kuasa") or []:
        for row in entry.get("rows") or []:
            yield str(entry.get("label")), str(row.get("nama"))
    for entry in (case.get("list_row") or {}).get("para_pihak") or []:
        for name in entry.get("nama") or []:
            yield str(entry.get("label")), name


@dataclass(frozen=True)
class Match:
    dedupe_key: str
    court: str
    nomor_perkara: str
    label: str
    name: str


def find_by_party(parts: Iterable[tuple[str, Any]], query: str) -> Iterator[Match]:
    """The cases (``(dedupe_key, case data)``) with a party whose normalised name contains the
    normalised ``query`` (each case once, with its first matching name)."""
    wanted = normalise_name(query)
    if not wanted:
        return
    for key, case in parts:
        if not isinstance(case, dict):
            continue
        for label, name in party_names(case):
            if wanted in normalise_name(name):
                yield Match(
                    key, str(case.get("court")), str(case.get("nomor_perkara")), label, name
                )
                break
