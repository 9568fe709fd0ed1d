"""The item store's two backends, for tests that run the same contract on both.

``ItemBackend``: a workspace and, for PostgreSQL, the URL of a fresh database
(tests/support/postgres.py); ``open`` opens the item store as the product does
(:func:`pipelines.item_backends.open_item_store`), ``rows`` reads its tables directly.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path
from typing import Any

import psycopg

from pipelines.item_backends import open_item_store
from pipelines.store import ItemStore

BACKENDS = ("sqlite", "postgresql")


@dataclasses.dataclass(frozen=True)
class ItemBackend:
    name: str
    workspace: Path
    database_url: str | None

    def open(self, *, readonly: bool = False) -> ItemStore:
        return open_item_store(self.workspace, database_url=self.database_url, readonly=readonly)

    @property
    def target(self) -> str:
        """What a subprocess is given: the database URL, or the workspace directory."""
        return self.database_url or str(self.workspace)

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """The rows of one statement on the store's tables (both dialects), committed."""
        if self.database_url:
            with psycopg.connect(self.database_url) as conn:
                return [tuple(r) for r in conn.execute(sql)]  # type: ignore[arg-type]
        conn2 = sqlite3.connect(self.workspace / "items.sqlite")
        try:
            result = conn2.execute(sql).fetchall()
            conn2.commit()
            return result
        finally:
            conn2.close()

    def env(self) -> dict[str, str]:
        """Environment entries that point the product at this backend."""
        return {"HARVEST_DATABASE_URL": self.database_url} if self.database_url else {}
