"""Validation against the published JSON Schema of the case document (docs/schema.md).

The ingest API is an outside party: it imports nothing of the product and reads the schema
FILE the harvest publishes (``docs/schema/case-document.v<N>.schema.json``), as the
application team would. Enabled with ``--schema-dir DIR`` (the checkout's ``docs/schema`` with
``--schema-dir docs/schema``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

#: At most this many problems are listed in one answer.
MAX_PROBLEMS = 20


class SchemaFileError(ValueError):
    """A schema directory without a readable schema file."""


class DocumentSchemas:
    """The schemas of a directory, one per item format, loaded at start."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._validators: dict[int, Any] = {}
        files = sorted(directory.glob("case-document.v*.schema.json"))
        if not files:
            raise SchemaFileError(f"no case-document.v<N>.schema.json in {directory}")
        for path in files:
            version = int(path.name.split(".")[1].removeprefix("v"))
            try:
                schema = json.loads(path.read_text(encoding="utf-8"))
                jsonschema.Draft202012Validator.check_schema(schema)
            except (OSError, ValueError, jsonschema.SchemaError) as exc:
                raise SchemaFileError(f"cannot use the schema {path}: {exc}") from exc
            self._validators[version] = jsonschema.Draft202012Validator(schema)

    def file_of(self, version: int) -> str:
        return f"case-document.v{version}.schema.json"

    def problems(self, document: dict[str, Any]) -> list[dict[str, str]]:
        """RFC 9457 ``errors`` entries (``pointer``, ``detail``); ``[]`` when it matches."""
        version = document.get("schema_version")
        validator = self._validators.get(version) if type(version) is int else None
        if validator is None:
            known = ", ".join(map(str, sorted(self._validators)))
            return [
                {"pointer": "#/schema_version", "detail": f"no schema for it (known: {known})"}
            ]
        out: list[dict[str, str]] = []
        errors = sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.path)))
        for error in errors:
            best = jsonschema.exceptions.best_match([error])
            pointer = "#" + "".join(f"/{part}" for part in best.absolute_path)
            out.append({"pointer": pointer, "detail": best.message})
            if len(out) >= MAX_PROBLEMS:
                break
        return out
