"""Pure parsers for SIPP pages (docs/parsers.md): HTML in, plain data out."""

from __future__ import annotations

from harvest.sipp.exceptions import ParseError
from harvest.sipp.list_page import ListPage, ListRow, MenuEntry, parse_list_page

__all__ = ["ListPage", "ListRow", "MenuEntry", "ParseError", "parse_list_page"]
