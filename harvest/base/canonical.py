"""Canonical JSON and content hashes: the one definition every part of the project uses.

Imports nothing of the project (a base module: see ``[tool.importlinter]`` in pyproject.toml);
``ship.py`` and the item store use it. ``reference/`` computes the same by its own code, as an
outside party would.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any


class NotCanonicalisable(ValueError):
    """Data that cannot be written as canonical JSON (NaN, bytes, sets, objects, ...)."""


def canonical_json(obj: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 text as is, no NaN/Infinity."""
    try:
        return json.dumps(
            obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
    except (TypeError, ValueError) as exc:
        raise NotCanonicalisable(f"not JSON-serialisable: {exc}") from exc


def content_hash(obj: Any) -> str:
    """``sha256:<hex>`` of the canonical JSON of ``obj``."""
    digest = hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()
    return f"sha256:{digest}"


#: The item format a document of this code is written in (docs/item-format.md, "Versions"):
#: the ``schema_version`` member of every document whose parts this code parsed.
ITEM_SCHEMA_VERSION = 2

#: The members of a case document covered by its ``content_hash`` (docs/contracts.md, Items).
HASHED_MEMBERS = ("schema_version", "complete", "case", "tabs")
#: The members covered in a ``schema_version`` 1 document (parts parsed before the member
#: existed): its hash stays the one it was shipped with.
HASHED_MEMBERS_V1 = ("complete", "case", "tabs")


def document_hash(document: Mapping[str, Any]) -> str:
    """The ``content_hash`` of a merged case document.

    Over ``schema_version``, ``complete``, ``case`` and ``tabs``; for a document of
    ``schema_version`` 1 (or without the member) over ``complete``, ``case`` and ``tabs`` only,
    as before the member existed, so an old workspace read by new code re-ships nothing until
    its cases are parsed again.
    """
    version = document.get("schema_version", 1)
    members = HASHED_MEMBERS_V1 if version == 1 else HASHED_MEMBERS
    return content_hash({k: document[k] for k in members})


def document_hash_from_json(
    *, schema_version: int, complete: bool, case_json: str | None, tabs_json: Mapping[str, str]
) -> str:
    """:func:`document_hash` of a document whose ``case`` and tab data are given as their
    canonical JSON texts (``case_json`` ``None``: no ``case`` part), without parsing them.

    The item store keeps each part as canonical JSON: the document's canonical text is those
    texts joined in sorted-key order (a test pins the equality with :func:`document_hash`).
    """
    tabs = ",".join(
        json.dumps(slug, ensure_ascii=False) + ":" + tabs_json[slug] for slug in sorted(tabs_json)
    )
    version = "" if schema_version == 1 else f',"schema_version":{int(schema_version)}'
    text = (
        '{"case":'
        + ("null" if case_json is None else case_json)
        + ',"complete":'
        + ("true" if complete else "false")
        + version
        + ',"tabs":{'
        + tabs
        + "}}"
    )
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
