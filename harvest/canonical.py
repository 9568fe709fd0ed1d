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


#: The members of a case document covered by its ``content_hash`` (docs/contracts.md, Items).
HASHED_MEMBERS = ("complete", "case", "tabs")


def document_hash(document: Mapping[str, Any]) -> str:
    """The ``content_hash`` of a merged case document: over ``complete``, ``case`` and ``tabs``."""
    return content_hash({k: document[k] for k in HASHED_MEMBERS})
