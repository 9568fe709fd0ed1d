"""Saved pages under ``tests/fixtures/``, and what the tests pick out of the replica's pages."""

from __future__ import annotations

import re

from tests.support.paths import REPO

FIXTURES = REPO / "tests" / "fixtures"


def read_fixture(relpath: str) -> str:
    """The text of a saved page, ``relpath`` relative to ``tests/fixtures/``."""
    return (FIXTURES / relpath).read_text(encoding="utf-8")


#: A detail link of a list page and its one-shot token.
TOKEN_LINK = re.compile(r"show_detil/([A-Za-z0-9]+={0,2})\"")
#: The list page's paging script: the URL before and after the page number.
PAGE_TEMPLATE = re.compile(r"window\.open\('([^']*list_perkara/page/)'\+pageNumber\+'(/[^']+)'")


def detail_tokens(html: str) -> list[str]:
    """The tokens of a list page's detail links, in page order."""
    return TOKEN_LINK.findall(html)
