"""The replica's own reading of the item contract's keys and canonical JSON (docs/contracts.md).

The replica is an outside party: like the reference ingest API it does not import the product.
Its ground truth (``--truth``) is compared with what the harvest exports, so a drift between
this reading and ``harvest.base.identity`` / ``harvest.base.canonical`` shows up as a failing
comparison instead of passing silently.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["canonical_json", "dedupe_key", "normalise_case_number", "source_type"]

#: ``source_type`` of a SIPP court: this prefix and the court id.
SOURCE_TYPE_PREFIX = "sipp."


def canonical_json(obj: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 text as is, no NaN/Infinity."""
    return json.dumps(
        obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def normalise_case_number(raw: str) -> str:
    """A case number stripped, its runs of whitespace collapsed to one space."""
    return " ".join(raw.split())


def source_type(court_id: str) -> str:
    """``sipp.<court id>``."""
    return SOURCE_TYPE_PREFIX + court_id


def dedupe_key(court_id: str, case_number: str) -> str:
    """``sipp.<court id>:<normalised case number>``."""
    number = normalise_case_number(case_number)
    if not number:
        raise ValueError(f"empty case number for court {court_id!r}")
    return f"{source_type(court_id)}:{number}"
