"""Fixtures of the scheduler tests (helpers: tests/support/scheduler.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return tmp_path / "ws"


from tests.support.postgres import pg_database, pg_server  # noqa: E402, F401  (fixtures)
