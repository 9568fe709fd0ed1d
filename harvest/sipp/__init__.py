"""Pure parsers for SIPP pages (docs/parsers.md): HTML in, plain data out."""

from __future__ import annotations

from harvest.sipp.error_pages import page_error
from harvest.sipp.exceptions import ParseError
from harvest.sipp.list_page import ListPage, ListRow, MenuEntry, parse_list_page

__all__ = ["ListPage", "ListRow", "MenuEntry", "ParseError", "page_error", "parse_list_page"]
