"""Pure parsers for SIPP pages (docs/parsers.md): HTML in, plain data out.

The spider codes against this module only: list pages (:func:`parse_list_page`), detail pages
(:func:`parse_detail_page`), tab fragments (:func:`parse_tab`, generic fallback for unknown
tabs), the ``case`` part (:func:`case_part_data`) and error-page detection (:func:`page_error`).
"""

from __future__ import annotations

from harvest.sipp.case_part import case_part_data
from harvest.sipp.detail_page import UNAVAILABLE_TAB_SLUGS, DetailPage, TabRef, parse_detail_page
from harvest.sipp.error_pages import page_error
from harvest.sipp.exceptions import ParseError
from harvest.sipp.generic import parse_generic
from harvest.sipp.list_page import ListPage, ListRow, MenuEntry, parse_list_page
from harvest.sipp.tabs import TAB_PARSERS, parse_tab

__all__ = [
    "TAB_PARSERS",
    "UNAVAILABLE_TAB_SLUGS",
    "DetailPage",
    "ListPage",
    "ListRow",
    "MenuEntry",
    "ParseError",
    "TabRef",
    "case_part_data",
    "page_error",
    "parse_detail_page",
    "parse_generic",
    "parse_list_page",
    "parse_tab",
]
