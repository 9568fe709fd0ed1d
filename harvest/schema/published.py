"""The published JSON Schema of the case document (docs/schema.md), read from the files
``python -m harvest.schema`` writes (this package's ``case-document.v<N>.schema.json``, the same
bytes as ``docs/schema/``), and validation against it. Imports nothing of the parsers: the
shipper (``ship.py --dry-run``) uses it."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastjsonschema
import jsonschema

__all__ = ["SCHEMA_DIR", "SchemaError", "document_schema_problems", "load_schema", "schema_file"]

#: Where the package keeps its copy of the published schemas.
SCHEMA_DIR = Path(__file__).resolve().parent
#: At most this many problems are reported for one document.
MAX_PROBLEMS = 20


class SchemaError(RuntimeError):
    """No published schema for an item format, or an unreadable one."""


def schema_file(version: int, directory: Path = SCHEMA_DIR) -> Path:
    return directory / f"case-document.v{version}.schema.json"


@functools.cache
def load_schema(version: int) -> dict[str, Any]:
    path = schema_file(version)
    try:
        schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise SchemaError(f"no published schema for item format {version} ({path})") from exc
    except (OSError, ValueError) as exc:
        raise SchemaError(f"cannot read the schema {path}: {exc}") from exc
    return schema


#: After this many documents of one format, validation switches to a compiled validator
#: (fastjsonschema: ~15x faster per document, ~10 s to compile; only a document it rejects is
#: checked again with jsonschema, for the messages).
COMPILE_AFTER = 500


@functools.cache
def _validator(version: int) -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(load_schema(version))


@functools.cache
def _compiled(version: int) -> Callable[[Any], Any]:
    # the schemas use only keywords draft 7 has with the same meaning (type, properties,
    # required, additionalProperties, items as one schema, anyOf, const, pattern, minimum)
    schema = {**load_schema(version), "$schema": "http://json-schema.org/draft-07/schema#"}
    compiled: Callable[[Any], Any] = fastjsonschema.compile(schema)
    return compiled


_checked: dict[int, int] = {}


def document_schema_problems(document: Any) -> list[dict[str, str]]:
    """The problems of ``document`` against the schema of its ``schema_version``, as
    ``{"pointer": "#/case/data_umum/tanggal_pendaftaran", "detail": "..."}`` entries (the most
    specific error of each failing branch; at most :data:`MAX_PROBLEMS`); ``[]`` when valid."""
    if not isinstance(document, dict):
        return [{"pointer": "#", "detail": "a case document must be a JSON object"}]
    version = document.get("schema_version")
    if type(version) is not int:
        return [{"pointer": "#/schema_version", "detail": "must be an integer"}]
    try:
        validator = _validator(version)
        _checked[version] = _checked.get(version, 0) + 1
        if _checked[version] > COMPILE_AFTER:
            try:
                _compiled(version)(document)
            except fastjsonschema.JsonSchemaException:
                pass  # invalid: the messages come from jsonschema below
            else:
                return []
    except SchemaError as exc:
        return [{"pointer": "#/schema_version", "detail": str(exc)}]
    return schema_problems(validator, document)


def schema_problems(validator: Any, document: Any) -> list[dict[str, str]]:
    """RFC 6901 pointers and messages of ``validator``'s errors on ``document``."""
    out: list[dict[str, str]] = []
    for error in sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.path))):
        best = jsonschema.exceptions.best_match([error])
        pointer = "#" + "".join(f"/{part}" for part in best.absolute_path)
        out.append({"pointer": pointer, "detail": best.message})
        if len(out) >= MAX_PROBLEMS:
            break
    return out
