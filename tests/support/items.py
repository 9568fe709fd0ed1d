"""Parts of made-up cases, for the item store, dedupe pipeline and export tests."""

from __future__ import annotations

from typing import Any


def case_data(number: str, tabs: dict[str, bool], **extra: Any) -> dict[str, Any]:
    """The data of a ``case`` part listing ``tabs`` (slug -> available)."""
    return {
        "nomor_perkara": number,
        "jenis_perkara": "Perceraian",
        "tabs": [
            {"slug": slug, "label": slug.replace("_", " ").title(), "available": available}
            for slug, available in tabs.items()
        ],
        **extra,
    }
