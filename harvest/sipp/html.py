"""Small typed helpers over lxml for SIPP markup: parsing, scoped rows and cells, cell text.

SIPP repeats ids (every party table is ``id="tableinfo"``, every tab anchor ``id='tabInfo'``)
and nests tables inside cells, so rows are always taken from one table's own ``tr`` children
(``./tr`` or ``./tbody/tr``), never with a document-wide ``//tr``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

import lxml.etree
import lxml.html

from harvest.sipp.exceptions import ParseError
from harvest.sipp.normalise import clean_text
from harvest.sipp.warnings import warn

#: An lxml HTML element (lxml ships no type stubs).
Element = Any

_BLOCK_TAGS = frozenset(
    {"p", "div", "li", "ol", "ul", "tr", "table", "tbody", "h1", "h2", "h3", "h4", "h5", "h6"}
)


#: ``</br>``: SIPP's PKPU tabs write it for a line break. Browsers read it as ``<br>``; libxml2
#: drops it, gluing the lines together (``Agenda :RapatAlasan Ditunda :``).
_END_BR = re.compile(r"</br\s*>", re.IGNORECASE)


def parse_html(html: str, page: str) -> Element:
    """The document element of ``html`` (a full page or a fragment without ``<html>``).

    Rows that a stray end tag pushed out of their table are put back (:func:`_put_rows_back`),
    with a ``structure`` parse warning naming the row the text escaped from.
    """
    if not html or not html.strip():
        raise ParseError(f"{page}: empty body, nothing to parse")
    if "</br" in html or "</BR" in html:
        html = _END_BR.sub("<br>", html)
    try:
        doc = lxml.html.document_fromstring(html)
    except (lxml.etree.ParserError, ValueError) as e:
        raise ParseError(f"{page}: HTML could not be parsed ({e})") from e
    for label in _put_rows_back(doc):
        warn_page = _WARN_PAGES.get(page) or (
            "tab:" + page.removeprefix("tab ") if page.startswith("tab ") else None
        )
        if warn_page is not None:
            warn(warn_page, label, STRUCTURE)
    return doc


#: The parse-warning kind of a page whose structure free text broke (docs/parsers.md).
STRUCTURE = "structure"
#: ``parse_html``'s page names -> the page of their parse warnings (tabs: ``tab:<slug>``;
#: ``tab fragment`` is the generic reader, whose tab parser has warned already).
_WARN_PAGES = {"detail page": "detail", "list page": "list", "tab fragment": ""}
_ESCAPED_ROWS = "//tr[not(ancestor::table)]"
_TABLE_BEFORE = "preceding::table[not(ancestor::table)][1]"


def _put_rows_back(doc: Element) -> list[str]:
    """Put rows a stray ``</table>`` pushed out of their table back into it, in order.

    Clerks paste petitum, dakwaan and amar texts from word processors; a stray ``</table>``
    (or ``</td></tr></table>``, ``</div>``) in such a text ends the enclosing table early
    (browsers and libxml2 alike), and the rows after it land outside any table. Each such row
    goes back to the end of the (outermost) table before it, and what came between that
    table's end and the row (the rest of the text whose cell was cut) back into the last cell
    of the table's last row, in page order. Returns the labels (first-cell texts) of the rows
    whose text escaped, once each.
    """
    strays = xpath_elements(doc, _ESCAPED_ROWS)
    if not strays:
        return []
    labels: list[str] = []
    for tr in strays:
        table = first(tr, _TABLE_BEFORE)
        if table is None:
            continue  # no table before it: nothing to put it back into
        escaped = _between(table, tr)
        own = rows(table)
        tds = cells(own[-1]) if own else []
        if tds and any(not isinstance(x, str) or x.strip() for x in escaped):
            cell = tds[-1]
            for piece in escaped:
                if isinstance(piece, str):
                    _append_text(cell, piece)
                else:
                    cell.append(piece)
            label = clean_text(raw_text(tds[0])) if len(tds) > 1 else ""
            if label not in labels:
                labels.append(label)
        tr.tail = None
        body = table.find("tbody")
        (body if body is not None else table).append(tr)
    return labels


def _between(table: Element, tr: Element) -> list[Element | str]:
    """What follows ``table``'s end up to ``tr`` in page order (elements, and texts detached
    from the tails they were), taken out of the tree; ``tr`` is a later sibling of the table
    or of one of its ancestors."""
    out: list[Element | str] = []
    node = table
    while node is not None:
        if node.tail:
            out.append(node.tail)
            node.tail = None
        sib = node.getnext()
        while sib is not None and sib is not tr:
            nxt = sib.getnext()
            out.append(sib)  # moved with its tail
            sib = nxt
        if sib is tr:
            return out
        node = node.getparent()
    return out


def _append_text(el: Element, more: str | None) -> None:
    if not more:
        return
    children = list(el)
    if children:
        children[-1].tail = (children[-1].tail or "") + more
    else:
        el.text = (el.text or "") + more


def _append_text_after(el: Element, more: str | None) -> None:
    if more:
        el.tail = (el.tail or "") + more


_XPATHS: dict[str, Any] = {}


def _compiled(path: str) -> Any:
    xp = _XPATHS.get(path)
    if xp is None:
        xp = _XPATHS[path] = lxml.etree.XPath(path)
    return xp


def xpath_elements(node: Element, path: str) -> list[Element]:
    """Elements matched by ``path`` under ``node`` (attribute/text results are dropped)."""
    result = _compiled(path)(node)
    if not isinstance(result, list):
        return []
    return [el for el in result if isinstance(el, lxml.etree.ElementBase)]


def first(node: Element, path: str) -> Element | None:
    found = xpath_elements(node, path)
    return found[0] if found else None


def rows(table: Element) -> list[Element]:
    """The table's own rows (``./tr``, ``./tbody/tr``...; never those of nested tables)."""
    out: list[Element] = []
    for child in table.iterchildren("tr", "tbody", "thead", "tfoot"):
        if child.tag == "tr":
            out.append(child)
        else:
            out.extend(child.iterchildren("tr"))
    return out


def cells(row: Element) -> list[Element]:
    """The row's own ``td``/``th`` cells."""
    return list(row.iterchildren("td", "th"))


def raw_text(el: Element) -> str:
    """All text under ``el`` (scripts and styles excluded), unnormalised."""
    parts: list[str] = []
    _collect_inner(el, parts, breaks=False)
    return "".join(parts)


def text(el: Element | None) -> str:
    """The cell's text with whitespace collapsed (``<br>`` counts as a space)."""
    if el is None:
        return ""
    return clean_text(raw_text(el))


def lines(el: Element | None) -> list[str]:
    """The cell's text split at ``<br>`` and block elements, each line cleaned, empties dropped."""
    if el is None:
        return []
    parts: list[str] = []
    _collect_inner(el, parts, breaks=True)
    return [line for line in (clean_text(x) for x in "".join(parts).split("\n")) if line]


def _collect_inner(el: Element, out: list[str], *, breaks: bool) -> None:
    if el.text:
        out.append(el.text)
    for child in el:
        _collect(child, out, breaks=breaks)


def _collect(el: Element, out: list[str], *, breaks: bool) -> None:
    tag = el.tag if isinstance(el.tag, str) else ""
    if tag in ("script", "style"):
        if el.tail:
            out.append(el.tail)
        return
    if tag == "br":
        out.append("\n" if breaks else " ")
    elif breaks and tag in _BLOCK_TAGS:
        out.append("\n")
    if el.text and tag:
        out.append(el.text)
    for child in el:
        _collect(child, out, breaks=breaks)
    if breaks and tag in _BLOCK_TAGS:
        out.append("\n")
    elif tag in ("td", "th"):
        out.append(" ")
    if el.tail:
        out.append(el.tail)


def long_text(el: Element | None) -> str | None:
    """A long text cell (Petitum, Dakwaan, Isi Tuntutan, Amar Putusan) as clean text.

    One line per paragraph or list item (``<p>``, ``<li>``) and per row of a table pasted into
    the text (its cells joined by ``" | "``, never glued: ``1 | HGU 12/Kerinci | 4,2 Ha``),
    whitespace collapsed, joined by ``"\\n"``; the ``<ol>`` numbering is not text. Text outside
    any ``<p>``/``<li>`` (plain text, ``<br>``-separated lines) counts as paragraphs of its own,
    in page order. ``None`` for an empty cell or ``-``.
    """
    if el is None:
        return None
    out: list[str] = []
    buf: list[str] = []

    def flush() -> None:
        for line in "".join(buf).split("\n"):
            cleaned = clean_text(line)
            if cleaned:
                out.append(cleaned)
        buf.clear()

    def walk(node: Element) -> None:
        if node.text:
            buf.append(node.text)
        for child in node:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag in ("p", "li"):
                flush()
                buf.append(raw_text(child).replace("\n", " "))
                flush()
            elif tag == "tr":
                # a table pasted into the text: one line per row, its cells kept apart
                flush()
                buf.append(" | ".join(clean_text(raw_text(td)) for td in cells(child)))
                flush()
            elif tag == "br":
                buf.append("\n")
            elif tag in ("script", "style") or not tag:
                pass
            else:
                if tag in _BLOCK_TAGS:
                    buf.append("\n")
                walk(child)
                if tag in _BLOCK_TAGS:
                    buf.append("\n")
            if child.tail:
                buf.append(child.tail)

    walk(el)
    flush()
    result = "\n".join(out)
    return None if result in ("", "-") else result


def absolute_url(page_url: str, href: str) -> str:
    """``href`` made absolute against the page it was found on.

    SIPP builds links from ``base_url()`` = ``http://HTTP_HOST/...``, so behind a TLS proxy an
    https site prints ``http://`` links to itself (docs/sipp.md §1.4). A link to the page's
    own host is given the page's scheme when the page came over https (never downgraded).
    """
    url = urljoin(page_url, href.strip())
    page, link = urlsplit(page_url), urlsplit(url)
    if page.scheme == "https" and link.scheme == "http" and link.netloc == page.netloc:
        return urlunsplit(link._replace(scheme="https"))
    return url


def tables_with_text_before(doc: Element) -> list[tuple[list[str], Element]]:
    """Data tables (tables without tables inside) in document order, each with the text lines
    seen since the previous data table (whitespace collapsed, empty lines dropped). A table that
    holds tables is layout (the real Penetapan view puts each heading and its table in rows of
    one outer table): its text counts as text before, and its inner tables are walked."""
    out: list[tuple[list[str], Element]] = []
    buf: list[str] = []

    def take() -> list[str]:
        found = [clean_text(x) for x in "".join(buf).split("\n")]
        buf.clear()
        return [x for x in found if x]

    def walk(el: Element) -> None:
        if el.text:
            buf.append(el.text)
        for child in el:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag == "table" and first(child, ".//table") is None:
                out.append((take(), child))
            elif tag and tag not in ("script", "style"):
                buf.append("\n")
                walk(child)
                buf.append("\n")
            if child.tail:
                buf.append(child.tail)

    body = doc.find("body")
    walk(body if body is not None else doc)
    return out


def headed_tables(doc: Element) -> list[tuple[str | None, Element]]:
    """Data tables in document order, each with the last text line seen before it (since the
    previous data table): the block headings of Penetapan and Biaya Perkara.

    A data table is one without tables inside; a table that holds tables is only a layout
    container (the real Penetapan view puts each heading and its table in rows of one outer
    table), so its text counts as heading text and its inner tables are walked.
    """
    return [(seen[-1] if seen else None, table) for seen, table in tables_with_text_before(doc)]
