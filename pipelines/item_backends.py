"""Which item store a workspace uses: ``<workspace>/items.sqlite``
(:class:`pipelines.store.ItemStore`), or the PostgreSQL database
(:class:`pipelines.pg_items.PostgresItemStore`) that ``HARVEST_DATABASE_URL`` names. Every caller
opens its item store here, so neither store module imports the other.
"""

from __future__ import annotations

from pathlib import Path

from harvest.base.workspace import ITEMS_DB
from pipelines.store import ItemStore

__all__ = ["open_item_store"]


def open_item_store(
    workspace: Path, *, database_url: str | None, readonly: bool = False
) -> ItemStore:
    """The item store every caller opens: ``<workspace>/items.sqlite``, or the PostgreSQL
    database of ``database_url`` (``HARVEST_DATABASE_URL``, see
    :func:`harvest.base.dburl.database_url`) when it is set. Raises :class:`ItemStoreError` as
    :meth:`ItemStore.open` does."""
    if database_url:
        # imported here, not at the top: psycopg costs every SQLite command (scrapy status,
        # ship.py) its import time; no cycle (pg_items imports store, not this module)
        from pipelines.pg_items import PostgresItemStore

        return PostgresItemStore.connect(database_url, readonly=readonly)
    return ItemStore.open(Path(workspace) / ITEMS_DB, readonly=readonly)
