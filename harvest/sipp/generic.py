"""The fallback parser for any tab (or fragment) we have no dedicated parser for.

It keeps everything a reader sees, in document order, so a tab we do not understand is still
harvested, never dropped::

    {"generic": true,
     "blocks": [{"text": "PENETAPAN HAKIM"},
                {"rows": [["Tanggal Penetapan", "Nama Hakim"], ["29 Mei 2024", "X"]]},
                ...]}

A block is either a line of text outside any table (``{"text": ...}``) or one table
(``{"rows": [[cell, ...], ...]}``, its own rows only). A cell is its text, or, when it holds
tables of its own, ``{"text": <text outside them>, "tables": [<rows>, ...]}``.

:func:`parse_tab_page` is the tab dispatch (:func:`harvest.sipp.tabs.parse_tab` calls it): a
slug without a dedicated parser, a dedicated parser that meets a shape it does not know
(:class:`ParseError`), and a dedicated parser that finds nothing it knows on a page holding
data all end in the generic record above with a parse warning of kind ``"page"`` (label: the
slug), never in an error and never in an empty ``{}``/``[]``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from typing import Any

from harvest.sipp.exceptions import ParseError
from harvest.sipp.html import Element, cells, parse_html, rows
from harvest.sipp.normalise import clean_text
from harvest.sipp.warnings import warn

logger = logging.getLogger(__name__)

#: Messages SIPP's tab views print instead of data (lower case), whatever the tab: a fragment
#: holding only these (and header rows) holds no data. Added to the caller's own list.
NO_DATA_TEXTS = frozenset(
    {
        "data tidak ditemukan",
        "belum ditetapkan",
        "tidak ada data",
        "tidak ada pencatatan register barang bukti",
        "belum ada data",
        "belum ada laporan",
    }
)

_SKIP = frozenset({"script", "style", "head", "title", "meta", "link", "colgroup", "col"})
_BREAKING = frozenset(
    {"br", "p", "div", "li", "ol", "ul", "h1", "h2", "h3", "h4", "h5", "h6", "center", "hr"}
)


def parse_tab_page(
    slug: str,
    html: str,
    parser: Callable[[str], Any] | None,
    no_data_messages: Collection[str],
) -> Any:
    """The data of tab ``slug``: ``parser``'s, or the generic record with a ``"page"`` warning.

    The generic record (warning ``tab:<slug>`` / ``<slug>`` / ``page``) is returned when there
    is no dedicated ``parser``, when it raises :class:`ParseError` (a shape it does not know;
    the reason is logged), or when it returns an empty ``{}``/``[]`` although the page holds
    more than a no-data message (:data:`NO_DATA_TEXTS` and ``no_data_messages``, lower case)
    and header-only tables.
    Only a fragment the generic parser cannot read either (empty body, not HTML) raises.
    """
    page = f"tab:{slug}"
    if parser is None:
        data = parse_generic(html)
        warn(page, slug, "page")
        return data
    try:
        result = parser(html)
    except ParseError as exc:
        data = parse_generic(html)
        logger.warning("tab %s: %s; the fragment is kept by the generic parser", slug, exc)
        warn(page, slug, "page")
        return data
    if result in ({}, []):
        data = parse_generic(html)
        if holds_data(data, NO_DATA_TEXTS | frozenset(no_data_messages)):
            logger.warning(
                "tab %s: the parser found nothing it knows on a fragment holding data; the "
                "fragment is kept by the generic parser",
                slug,
            )
            warn(page, slug, "page")
            return data
    return result


def holds_data(generic: dict[str, Any], no_data_messages: Collection[str]) -> bool:
    """Whether a generic record holds more than no-data messages and header-only tables.

    A table holds data when a row after its first (the header) has a non-empty cell that is
    not a no-data message, or when any cell holds tables of its own.
    """
    for block in generic["blocks"]:
        if "text" in block:
            if block["text"].lower() not in no_data_messages:
                return True
            continue
        table: list[list[Any]] = block["rows"]
        for index, row in enumerate(table):
            for cell in row:
                if not isinstance(cell, str):
                    return True
                if index and cell and cell.lower() not in no_data_messages:
                    return True
    return False


def parse_generic(html: str) -> dict[str, Any]:
    """Every text line and table of ``html`` in document order (see the module docstring)."""
    doc = parse_html(html, "tab fragment")
    body = doc.find("body")
    blocks: list[dict[str, Any]] = []
    walker = _Walker(blocks)
    walker.walk_children(body if body is not None else doc)
    walker.flush()
    return {"generic": True, "blocks": blocks}


def generic_table(table: Element) -> list[list[Any]]:
    """A table's own rows as lists of cells (text, or text plus nested tables)."""
    out: list[list[Any]] = []
    for tr in rows(table):
        out.append([generic_cell(td) for td in cells(tr)])
    return out


def generic_cell(td: Element) -> Any:
    """A cell's text, or ``{"text", "tables"}`` when it holds tables of its own."""
    nested: list[Element] = []
    parts: list[str] = []
    _cell_text(td, parts, nested)
    txt = clean_text("".join(parts))
    if not nested:
        return txt
    return {"text": txt, "tables": [generic_table(t) for t in nested]}


def _cell_text(el: Element, parts: list[str], nested: list[Element]) -> None:
    if el.text:
        parts.append(el.text)
    for child in el:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag == "table":
            nested.append(child)
        elif tag and tag not in _SKIP:
            if tag in _BREAKING:
                parts.append(" ")
            _cell_text(child, parts, nested)
        if child.tail:
            parts.append(child.tail)


class _Walker:
    def __init__(self, blocks: list[dict[str, Any]]) -> None:
        self.blocks = blocks
        self.buf: list[str] = []

    def flush(self) -> None:
        for line in "".join(self.buf).split("\n"):
            cleaned = clean_text(line)
            if cleaned:
                self.blocks.append({"text": cleaned})
        self.buf.clear()

    def walk_children(self, el: Element) -> None:
        if el.text:
            self.buf.append(el.text)
        for child in el:
            self.walk(child)
            if child.tail:
                self.buf.append(child.tail)

    def walk(self, el: Element) -> None:
        tag = el.tag if isinstance(el.tag, str) else ""
        if not tag or tag in _SKIP:
            return
        if tag == "table":
            self.flush()
            self.blocks.append({"rows": generic_table(el)})
            return
        if tag in _BREAKING:
            self.buf.append("\n")
        self.walk_children(el)
        if tag in _BREAKING:
            self.buf.append("\n")
