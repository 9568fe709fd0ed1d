"""harvest.shipping.documents: checks before sending, the body, the idempotency key, and the
per-key version the item store gives every document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harvest.base.canonical import document_hash
from harvest.shipping.documents import (
    document_problems,
    encode,
    idempotency_key,
    open_documents,
)
from pipelines.store import ItemStore
from tests.support.ingest import COURT, build_workspace, case_number


def doc(**changes: Any) -> dict[str, Any]:
    d: dict[str, Any] = {
        "dedupe_key": "sipp.pn-x:1/Pdt.G/2024/PN X",
        "source_type": "sipp.pn-x",
        "source_id": "1/Pdt.G/2024/PN X",
        "schema_version": 2,
        "content_hash": "",
        "complete": True,
        "case": {"nomor_perkara": "1/Pdt.G/2024/PN X", "pihak": "Ã© ü"},
        "tabs": {},
        "version": 1764464523456,
    }
    d["content_hash"] = document_hash(d)
    d.update(changes)
    return d


def test_a_valid_document_has_no_problems_and_its_version_is_not_hashed() -> None:
    assert document_problems(doc()) == []
    assert doc()["content_hash"] == doc(version=5)["content_hash"]
    assert document_problems(doc(version=5)) == []


def test_problems_name_what_is_wrong() -> None:
    assert document_problems(doc(version=0)) == ["version must be an integer >= 1"]
    assert document_problems(doc(version="7")) == ["version must be an integer >= 1"]
    assert document_problems(doc(version=True)) == ["version must be an integer >= 1"]
    assert document_problems(doc(case=None)) == ["case must be a dict"]
    assert document_problems(doc(schema_version="2")) == ["schema_version must be a int"]
    assert document_problems(doc(dedupe_key="sipp.pn-x:2")) == [
        "dedupe_key is not source_type:source_id"
    ]
    (problem,) = document_problems(doc(content_hash="sha256:" + "0" * 64))
    assert problem.startswith("content_hash sha256:000")
    assert problem.endswith(f"does not match {doc()['content_hash']}")


def test_the_body_is_compact_utf8_json_and_the_idempotency_key_is_stable() -> None:
    body = encode(doc())
    assert json.loads(body) == doc()
    assert b", " not in body
    assert "Ã© ü".encode() in body
    key = idempotency_key("sipp.pn-x:1", "sha256:" + "a" * 64)
    assert key == idempotency_key("sipp.pn-x:1", "sha256:" + "a" * 64)
    assert key != idempotency_key("sipp.pn-x:1", "sha256:" + "b" * 64)
    assert len(key) == 34
    assert key[0] == key[-1] == '"'


def versions(ws: Path) -> dict[str, int]:
    documents, _, close = open_documents(ws, include_partial=True)
    try:
        return {d["dedupe_key"]: d["version"] for d in documents}
    finally:
        close()


def test_the_version_grows_with_every_change_of_the_merged_document_only(tmp_path: Path) -> None:
    ws = build_workspace(tmp_path / "ws", 3)
    first = versions(ws)
    assert len(first) == 3
    assert all(v > 1_700_000_000_000 for v in first.values())  # ms since the epoch
    build_workspace(ws, 3)  # the same data harvested again: nothing changed
    assert versions(ws) == first
    build_workspace(ws, 1, start=1, version=1)  # case 1 changed
    second = versions(ws)
    key = f"sipp.{COURT}:{case_number(1)}"
    assert second[key] > first[key]
    assert {k: v for k, v in second.items() if k != key} == {
        k: v for k, v in first.items() if k != key
    }


def test_changes_within_one_millisecond_still_raise_the_version(tmp_path: Path) -> None:
    ws = build_workspace(tmp_path / "ws", 1)
    key = f"sipp.{COURT}:{case_number(0)}"
    seen = [versions(ws)[key]]
    with ItemStore.open(ws / "items.sqlite") as store:
        for n in range(20):  # far faster than one change per millisecond
            store.upsert_part(
                court=COURT, case_number=case_number(0), part="tab:penetapan", data={"n": n}
            )
            (document,) = store.iter_documents(versions=True)
            seen.append(document["version"])
    assert seen == sorted(set(seen))  # strictly increasing
    assert len(seen) == 21
