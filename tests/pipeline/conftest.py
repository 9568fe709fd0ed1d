"""Fixtures of the item store, dedupe pipeline and export tests (helpers: tests/support)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pipelines.store import ItemStore


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    workspace = tmp_path / "workspace"
    workspace.mkdir(mode=0o700)
    return workspace / "items.sqlite"


@pytest.fixture
def store(store_path: Path) -> Iterator[ItemStore]:
    with ItemStore.open(store_path) as opened:
        yield opened
