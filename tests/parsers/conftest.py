"""Fixtures for the parser tests: saved pages under tests/fixtures/."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def read_fixture(relpath: str) -> str:
    """The text of a saved page, ``relpath`` relative to ``tests/fixtures/``."""
    return (FIXTURES / relpath).read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def real_list_html() -> str:
    return read_fixture("real/pa-metro-list-page1.html")
