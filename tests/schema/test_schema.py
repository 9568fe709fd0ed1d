"""The published JSON Schema of the case document (docs/schema.md): generated, up to date,
valid for every document of every court kind, rejecting wrong types, used by ship.py's dry
run and by the reference ingest API."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import requests

from harvest.base.canonical import document_hash
from harvest.schema.__main__ import outputs
from harvest.schema.published import document_schema_problems
from harvest.shipping.run import plan
from harvest.shipping.shiplog import ShippedIndex
from pipelines.store import ItemStore
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import crawl
from tests.support.ingest import TOKEN, start_server
from tests.support.paths import PY, REPO

VARIANTS = ("pn", "pa", "ptun", "militer")


def truth(tmp_path: Path, variant: str, cases: int) -> list[dict[str, Any]]:
    path = tmp_path / f"truth-{variant}.jsonl"
    subprocess.run(
        [PY, "-m", "reference.sipp_site", "--variant", variant, "--cases", str(cases),
         "--seed", "3", "--truth", str(path)],
        cwd=REPO, check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    documents = []
    for line in path.read_text(encoding="utf-8").splitlines():
        document = json.loads(line)
        document["content_hash"] = document_hash(document)
        documents.append(document)
    return documents


def test_the_published_files_are_what_the_parsers_definitions_generate() -> None:
    stale = [
        str(path)
        for path, text in outputs().items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]
    assert stale == [], "run python -m harvest.schema"


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_ground_truth_document_of_every_court_kind_matches(
    tmp_path: Path, variant: str
) -> None:
    documents = truth(tmp_path, variant, 300)
    assert len(documents) == 300
    problems = {d["dedupe_key"]: document_schema_problems(d) for d in documents}
    assert {k: v for k, v in problems.items() if v} == {}


def _civil_document(tmp_path: Path) -> dict[str, Any]:
    documents = truth(tmp_path, "pn", 60)
    return next(
        d
        for d in documents
        if "nilai_sengketa" in d["case"]["data_umum"] and "putusan" in d["tabs"]
    )


def test_a_field_of_the_wrong_type_is_rejected_with_its_pointer(tmp_path: Path) -> None:
    document = _civil_document(tmp_path)
    assert document_schema_problems(document) == []
    wrong = copy.deepcopy(document)
    wrong["case"]["data_umum"]["nilai_sengketa"] = [241000000]
    problems = document_schema_problems(wrong)
    assert problems == [
        {
            "pointer": "#/case/data_umum/nilai_sengketa",
            "detail": "[241000000] is not of type 'integer', 'string', 'null'",
        }
    ]
    wrong = copy.deepcopy(document)
    wrong["tabs"]["riwayat_perkara"][0]["tanggal"] = 20240529
    pointers = [p["pointer"] for p in document_schema_problems(wrong)]
    assert pointers == ["#/tabs/riwayat_perkara/0/tanggal"]
    wrong = copy.deepcopy(document)
    wrong["case"]["header"]["pihak_1"] = "ANDI"
    assert document_schema_problems(wrong)[0]["pointer"] == "#/case/header/pihak_1"


def test_the_dry_run_rejects_a_document_that_does_not_match(tmp_path: Path) -> None:
    document = _civil_document(tmp_path)
    wrong = copy.deepcopy(document)
    wrong["case"]["data_umum"]["tanggal_pendaftaran"] = 20240529
    wrong["content_hash"] = document_hash(wrong)  # sendable, only the schema says no
    result = plan([document, wrong], shipped=ShippedIndex())
    assert (result.new, result.invalid) == (1, 1)


def test_the_ingest_api_with_the_published_schema_answers_a_clear_422(tmp_path: Path) -> None:
    document = _civil_document(tmp_path)
    server = start_server(tmp_path / "ingest.sqlite", "--schema-dir", str(REPO / "docs/schema"))
    try:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        ok = requests.post(f"{server.url}/items", json=document, headers=headers, timeout=10)
        assert ok.status_code == 201, ok.text
        wrong = copy.deepcopy(document)
        wrong["source_id"] = wrong["source_id"].replace("/", "-", 1)
        wrong["dedupe_key"] = f"{wrong['source_type']}:{wrong['source_id']}"
        wrong["case"]["data_umum"]["tanggal_pendaftaran"] = 20240529
        wrong["content_hash"] = document_hash(wrong)
        answer = requests.post(f"{server.url}/items", json=wrong, headers=headers, timeout=10)
    finally:
        server.stop()
    assert answer.status_code == 422
    assert answer.headers["content-type"] == "application/problem+json"
    body = answer.json()
    assert body["type"] == "/problems/schema-mismatch"
    assert body["detail"] == (
        "1 field(s) do not match case-document.v2.schema.json; first: "
        "#/case/data_umum/tanggal_pendaftaran: 20240529 is not of type 'string', 'null'"
    )
    assert body["errors"] == [
        {
            "pointer": "#/case/data_umum/tanggal_pendaftaran",
            "detail": "20240529 is not of type 'string', 'null'",
        }
    ]


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_document_of_a_replica_crawl_matches(tmp_path: Path, variant: str) -> None:
    court = f"{variant}-replika"
    with running_replica(cases=30, seed=5, variant=variant, court_id=court) as replica:
        result = crawl(replica.url, court, tmp_path / "ws")
    assert result.returncode == 0, result.stderr[-3000:]
    with ItemStore.open(tmp_path / "ws" / "items.sqlite", readonly=True) as store:
        documents = {d["dedupe_key"]: d for d in store.iter_documents(complete_only=False)}
    assert len(documents) == 30
    problems = {k: document_schema_problems(d) for k, d in documents.items()}
    assert {k: v for k, v in problems.items() if v} == {}


def test_the_compiled_validator_agrees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harvest.schema import published

    monkeypatch.setattr(published, "COMPILE_AFTER", 0)
    documents = truth(tmp_path, "ptun", 40)
    assert [d["dedupe_key"] for d in documents if document_schema_problems(d)] == []
    wrong = copy.deepcopy(documents[0])
    wrong["case"]["tabs"][0]["available"] = "true"
    assert document_schema_problems(wrong) == [
        {"pointer": "#/case/tabs/0/available", "detail": "'true' is not of type 'boolean'"}
    ]
