"""The documents: read from the workspace's item store, checked before sending, encoded.

A document is the merged case document of ``pipelines.store`` (docs/contracts.md, Items) plus
its ``version``: a per-key number from the item store that grows whenever the merged content
changes (the ingest API keeps the highest it has seen and answers an older one ``stale``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from harvest.base.canonical import NotCanonicalisable, document_hash
from harvest.base.dburl import database_url
from harvest.base.workspace import WORKSPACE_ENV
from harvest.shipping.errors import ConfigError
from pipelines.item_backends import open_item_store
from pipelines.store import ItemStoreError, ShippedDocument

__all__ = ["document_problems", "encode", "idempotency_key", "open_documents"]

_DOCUMENT_MEMBERS: dict[str, type] = {
    "dedupe_key": str,
    "source_type": str,
    "source_id": str,
    "schema_version": int,
    "content_hash": str,
    "complete": bool,
    "case": dict,
    "tabs": dict,
}


def document_problems(document: Mapping[str, Any]) -> list[str]:
    """Why a document cannot be sent as it is (empty: it can). Checked before every POST."""
    problems = [
        f"{name} must be a {kind.__name__}"
        for name, kind in _DOCUMENT_MEMBERS.items()
        if not isinstance(document.get(name), kind)
    ]
    version = document.get("version")
    if version is not None and (type(version) is not int or version < 1):
        problems.append("version must be an integer >= 1")
    if problems:
        return problems
    if document["dedupe_key"] != f"{document['source_type']}:{document['source_id']}":
        problems.append("dedupe_key is not source_type:source_id")
    try:
        actual = document_hash(dict(document))
    except NotCanonicalisable as exc:
        return [*problems, f"not canonical JSON: {exc}"]
    if actual != document["content_hash"]:
        problems.append(f"content_hash {document['content_hash']} does not match {actual}")
    return problems


def encode(document: Mapping[str, Any]) -> bytes:
    """The request body: compact UTF-8 JSON of the document."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def idempotency_key(key: str, content_hash: str) -> str:
    """A per-operation key (an RFC 8941 sf-string): the same for the same key and content."""
    token = hashlib.sha256(f"{key}@{content_hash}".encode()).hexdigest()[:32]
    return f'"{token}"'


def open_documents(
    workspace: Path, *, include_partial: bool
) -> tuple[Iterator[ShippedDocument], int, Callable[[], None]]:
    """The workspace's documents (streamed, with versions), how many, and the store's close.

    The item store is ``items.sqlite`` in ``workspace``, or the PostgreSQL database of
    ``HARVEST_DATABASE_URL`` when that variable is set (the ship-log stays in ``workspace``)."""
    if not workspace.is_dir():
        raise ConfigError(
            f"workspace {str(workspace)!r} does not exist; run a crawl first or point "
            f"--workspace / {WORKSPACE_ENV} at it"
        )
    try:
        store = open_item_store(workspace, database_url=database_url(), readonly=True)
        total = store.count_documents(complete_only=not include_partial)
    except ItemStoreError as exc:
        raise ConfigError(str(exc)) from exc

    def documents() -> Iterator[ShippedDocument]:
        try:
            yield from store.iter_documents(complete_only=not include_partial, versions=True)
        except ItemStoreError as exc:
            raise ConfigError(str(exc)) from exc

    return documents(), total, store.close
