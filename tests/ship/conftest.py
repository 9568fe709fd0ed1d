"""Fixtures of the ship.py and reference ingest API tests (helpers: tests/support/ingest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.ingest import IngestServer, start_server


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[Any]:
    started: list[IngestServer] = []

    def factory(*extra: str, db: Path | None = None) -> IngestServer:
        server = start_server(db or tmp_path / f"ingest-{len(started)}.sqlite", *extra)
        started.append(server)
        return server

    yield factory
    for server in started:
        server.stop()


@pytest.fixture
def server(server_factory: Any) -> IngestServer:
    result: IngestServer = server_factory()
    return result
