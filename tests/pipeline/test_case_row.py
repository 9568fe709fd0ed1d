"""The ``cases`` row an upsert writes is the merged document's, built from the stored canonical
texts without merging (issue 29): same ``content_hash``, ``complete``, missing tabs."""

from __future__ import annotations

import json
import random

import pytest

from harvest.base.canonical import canonical_json, document_hash, document_hash_from_json
from pipelines.store import ItemStore, merge_document
from tests.support.items import case_data

COURT = "pn-jakartapusat"
NUMBERS = ["12/Pid.B/2024/PN Jkt.Pst", "7/Pdt.G/2025/PN Jkt.Pst"]
SLUGS = ["pihak", "jadwal_sidang", "riwayat_perkara", "saksi", "putusan-akhir"]


def _document(case: object, tabs: dict[str, object], version: int) -> dict[str, object]:
    parts = ([("case", case)] if case is not None else []) + [
        (f"tab:{slug}", data) for slug, data in tabs.items()
    ]
    return dict(
        merge_document(
            dedupe_key="k", source_type="t", source_id="s", parts=parts, schema_version=version
        )
    )


@pytest.mark.parametrize("version", [1, 2, 3])
@pytest.mark.parametrize(
    ("case", "tabs"),
    [
        (None, {}),
        (None, {"pihak": [{"nama": "Ä"}]}),
        (case_data("1/X", {"pihak": True, "saksi": False}), {}),
        (
            case_data("1/X", {"pihak": True}, amar="Menghukum “Terdakwa” — 5 tahun", n=1.5e-7),
            {"pihak": {"b": [1, 2.0, None, True], "a": "ü"}, "zz": [], "a-b": {}},
        ),
    ],
)
def test_the_hash_from_the_texts_is_the_documents(
    case: object, tabs: dict[str, object], version: int
) -> None:
    document = _document(case, tabs, version)
    assert document_hash_from_json(
        schema_version=version,
        complete=bool(document["complete"]),
        case_json=None if case is None else canonical_json(case),
        tabs_json={slug: canonical_json(data) for slug, data in tabs.items()},
    ) == document_hash(document)


def _case_rows(store: ItemStore) -> dict[str, tuple[object, ...]]:
    rows = store._execute(
        "SELECT dedupe_key, has_case, complete, missing_tabs, content_hash FROM cases"
    ).fetchall()
    return {row[0]: tuple(row[1:]) for row in rows}


def test_every_upsert_leaves_the_row_of_the_merged_document(sqlite_store: ItemStore) -> None:
    rng = random.Random(29)
    for _ in range(300):
        number = rng.choice(NUMBERS)
        if rng.random() < 0.3:
            listed = {slug: rng.random() < 0.7 for slug in rng.sample(SLUGS, rng.randint(0, 4))}
            part, data = "case", case_data(number, listed, ver=rng.randint(0, 3))
        else:
            part = f"tab:{rng.choice(SLUGS)}"
            data = [{"nama": rng.choice(["Siti", "Budi", "Ñoño"]), "n": rng.randint(0, 2)}]
        sqlite_store.upsert_part(court=COURT, case_number=number, part=part, data=data)
        rows = _case_rows(sqlite_store)
        for key, (has_case, complete, missing, content_hash) in rows.items():
            document = sqlite_store.get_document(key)
            assert document is not None
            assert content_hash == document["content_hash"]
            assert bool(complete) is document["complete"]
            assert bool(has_case) is (document["case"] is not None)
            case = document["case"]
            expected = [
                t["slug"]
                for t in (case or {}).get("tabs", [])
                if t["available"] and t["slug"] not in document["tabs"]
            ]
            assert json.loads(str(missing)) == expected
    assert len(rows) == 2
