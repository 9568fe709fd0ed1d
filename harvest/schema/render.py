"""The text of a published schema file: JSON with sorted keys, two-space indent, UTF-8."""

from __future__ import annotations

import json
from typing import Any


def schema_text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
