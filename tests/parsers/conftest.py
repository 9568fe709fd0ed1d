"""Fixtures for the parser tests (saved pages: tests/support/fixtures.py)."""

from __future__ import annotations

import pytest

from tests.support.pages import read_fixture


@pytest.fixture(scope="session")
def real_list_html() -> str:
    return read_fixture("real/pa-metro-list-page1.html")
