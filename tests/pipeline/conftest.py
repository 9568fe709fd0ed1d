"""Helpers for the item store, dedupe pipeline and export tests: parts of made-up cases."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pipelines.store import ItemStore


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


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    workspace = tmp_path / "workspace"
    workspace.mkdir(mode=0o700)
    return workspace / "items.sqlite"


@pytest.fixture
def store(store_path: Path) -> Iterator[ItemStore]:
    with ItemStore.open(store_path) as opened:
        yield opened
