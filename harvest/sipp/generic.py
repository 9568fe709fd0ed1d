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
"""

from __future__ import annotations

from typing import Any

from harvest.sipp.html import Element, cells, parse_html, rows
from harvest.sipp.normalise import clean_text

_SKIP = frozenset({"script", "style", "head", "title", "meta", "link", "colgroup", "col"})
_BREAKING = frozenset(
    {"br", "p", "div", "li", "ol", "ul", "h1", "h2", "h3", "h4", "h5", "h6", "center", "hr"}
)


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
