"""The items the spider yields: parts of a case (docs/contracts.md, Items)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

CASE_PART = "case"
TAB_PART_PREFIX = "tab:"


def tab_part(slug: str) -> str:
    return f"{TAB_PART_PREFIX}{slug}"


@dataclass
class CasePart:
    """One part of one case.

    ``part`` is ``"case"`` (header, Data Umum, the list row and the tabs the detail page lists)
    or ``"tab:<slug>"``. ``data`` is plain JSON-serialisable data from the parsers. ``url`` and
    ``fetched_at`` are volatile: they are stored but never part of the content hash.
    """

    court: str
    nomor_perkara: str
    part: str
    data: Any
    url: str = ""
    fetched_at: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    VOLATILE_FIELDS: ClassVar[tuple[str, ...]] = ("url", "fetched_at", "meta")


@dataclass(frozen=True)
class RowProblem:
    """A list row the spider reports instead of following: never an item, never stored.

    ``event`` is ``row_error`` (the row cannot be read) or ``number_clash`` (its case number
    normalises to the key of another row of the page: both raw numbers are in ``detail``).
    ``row`` is the row's 1-based position on the page at ``page_url``. The notices middleware
    (:mod:`extensions.notices`) logs it, counts it and records it in the request state, where
    ``scrapy status`` shows it; the rest of the page and the next pages go on.
    """

    event: str
    page_url: str
    row: int
    detail: str
