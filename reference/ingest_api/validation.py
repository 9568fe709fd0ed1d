"""What the ingest server accepts: the document shape of docs/item-format.md and its content hash.

The canonical form is implemented here on purpose instead of importing ``harvest.base.canonical``:
the ingest API is an outside party (a real application would not share our code), so it
recomputes the hash from its own reading of the contract, and a drift between the two
definitions shows up as 422s in the tests instead of passing silently.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

#: Top-level members of an ingest document and their JSON types.
MEMBERS: dict[str, type] = {
    "dedupe_key": str,
    "source_type": str,
    "source_id": str,
    "schema_version": int,
    "content_hash": str,
    "complete": bool,
    "case": dict,
    "tabs": dict,
}
#: Optional members: ``version``, the document's per-key version at its source (an integer that
#: grows with every change of the content; the server keeps the highest and refuses older ones).
OPTIONAL_MEMBERS: dict[str, type] = {"version": int}
#: The members covered by ``content_hash`` (docs/item-format.md) ...
HASHED_MEMBERS = ("schema_version", "complete", "case", "tabs")
#: ... except in a ``schema_version`` 1 document, hashed as before the member existed.
HASHED_MEMBERS_V1 = ("complete", "case", "tabs")
MAX_KEY_CHARS = 512
_HASH_RE = re.compile(r"sha256:[0-9a-f]{64}")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
_TYPE_NAMES = {str: "a string", bool: "a boolean", dict: "an object", int: "an integer"}


class BadJSON(ValueError):
    """The body is not UTF-8 JSON (or uses NaN/Infinity)."""


def _reject_constant(name: str) -> Any:
    raise BadJSON(f"{name} is not valid JSON")


def parse_body(body: bytes) -> Any:
    """The JSON value of a request body; raises :class:`BadJSON`."""
    try:
        return json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError as exc:
        raise BadJSON(f"body is not UTF-8: {exc.reason} at byte {exc.start}") from exc
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise BadJSON(f"body is not JSON: {exc.msg} at {where}") from exc


def hashed_members(document: dict[str, Any]) -> tuple[str, ...]:
    """The members ``content_hash`` covers in ``document`` (by its ``schema_version``)."""
    return HASHED_MEMBERS_V1 if document.get("schema_version") == 1 else HASHED_MEMBERS


def canonical_hash(document: dict[str, Any]) -> str:
    """``sha256:<hex>`` of the canonical JSON (sorted keys, compact, UTF-8) of the hashed
    members (:func:`hashed_members`)."""
    hashed = {k: document[k] for k in hashed_members(document)}
    text = json.dumps(
        hashed, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def validate_document(value: Any) -> list[dict[str, str]]:
    """Every problem of an ingest document, as RFC 9457 ``errors`` entries; empty when valid.

    Each entry is ``{"pointer": "#/<member>", "detail": "<what is wrong>"}``.
    """
    if not isinstance(value, dict):
        return [{"pointer": "#", "detail": "the body must be a JSON object (one case document)"}]
    errors: list[dict[str, str]] = []
    for name, kind in MEMBERS.items():
        if name not in value:
            errors.append({"pointer": f"#/{name}", "detail": "is required"})
        elif type(value[name]) is not kind:
            errors.append({"pointer": f"#/{name}", "detail": f"must be {_TYPE_NAMES[kind]}"})
    version = value.get("version")
    if "version" in value and (type(version) is not int or version < 1 or version >= 2**63):
        errors.append({"pointer": "#/version", "detail": "must be an integer >= 1"})
    for name in sorted(set(value) - set(MEMBERS) - set(OPTIONAL_MEMBERS)):
        errors.append({"pointer": f"#/{name}", "detail": "is not a member of an ingest document"})
    for name in ("dedupe_key", "source_type", "source_id"):
        text = value.get(name)
        if isinstance(text, str):
            if not text.strip():
                errors.append({"pointer": f"#/{name}", "detail": "must not be empty"})
            elif len(text) > MAX_KEY_CHARS:
                detail = f"is longer than {MAX_KEY_CHARS} characters"
                errors.append({"pointer": f"#/{name}", "detail": detail})
            elif _CONTROL_RE.search(text):
                errors.append({"pointer": f"#/{name}", "detail": "contains control characters"})
    version = value.get("schema_version")
    if type(version) is int and version < 1:
        errors.append({"pointer": "#/schema_version", "detail": "must be 1 or more"})
    st, sid, key = value.get("source_type"), value.get("source_id"), value.get("dedupe_key")
    if isinstance(st, str) and ":" in st:
        errors.append({"pointer": "#/source_type", "detail": "must not contain ':'"})
    if (
        isinstance(st, str)
        and isinstance(sid, str)
        and isinstance(key, str)
        and key != f"{st}:{sid}"
    ):
        errors.append(
            {"pointer": "#/dedupe_key", "detail": "must equal source_type + ':' + source_id"}
        )
    claimed = value.get("content_hash")
    if isinstance(claimed, str):
        if not _HASH_RE.fullmatch(claimed):
            errors.append(
                {"pointer": "#/content_hash", "detail": "must be 'sha256:' and 64 lowercase hex"}
            )
        elif all(type(value.get(n)) is MEMBERS[n] for n in hashed_members(value)):
            actual = canonical_hash(value)
            if actual != claimed:
                errors.append(
                    {
                        "pointer": "#/content_hash",
                        "detail": f"does not match the document (the server computed {actual})",
                    }
                )
    return errors
