"""Fixtures of the item store, dedupe pipeline and export tests (helpers: tests/support).

``backend`` runs a test on each item-store backend (SQLite, PostgreSQL); ``store`` is an open
store on it. ``store_path`` is the SQLite file, for what only SQLite has.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pipelines.store import ItemStore
from tests.support.item_backends import BACKENDS, ItemBackend
from tests.support.postgres import pg_database, pg_server  # noqa: F401  (fixtures)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    workspace = tmp_path / "workspace"
    workspace.mkdir(mode=0o700)
    return workspace / "items.sqlite"


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, store_path: Path) -> ItemBackend:
    url = request.getfixturevalue("pg_database") if request.param == "postgresql" else None
    return ItemBackend(request.param, store_path.parent, url)


@pytest.fixture
def store(backend: ItemBackend) -> Iterator[ItemStore]:
    with backend.open() as opened:
        yield opened


@pytest.fixture
def sqlite_store(store_path: Path) -> Iterator[ItemStore]:
    with ItemStore.open(store_path) as opened:
        yield opened
