"""``schema_version``: an old workspace (item format 1) re-crawled with the new code ships every
document as ``updated`` once (each rebuilt in today's format: the crawled cases from the court,
the others from the page archive), and nothing else.

The old workspace is made here the way the previous release left it: an item store of schema 1
(no ``parts.schema_version``), documents hashed over ``complete``, ``case`` and ``tabs`` only,
some tabs as the old parsers stored them, all shipped. Then, as a user upgrading would: the
request state is moved aside, the court is crawled again (the newest half of its cases), and
``ship.py`` runs against the same workspace, ship-log and ingest API.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from harvest.base.canonical import content_hash, document_hash
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import crawl, state_query, truth_by_key
from tests.support.ingest import IngestServer, documents, log_lines, run_ship

pytestmark = pytest.mark.slow

COURT = "pn-lama"
CASES = 30
RECRAWLED = 14


def _to_format_1(items: Path, stale: dict[str, tuple[str, Any]]) -> None:
    """Rewrite ``items`` as the previous release wrote it; ``stale``: key -> (part, old data)."""
    con = sqlite3.connect(items)
    with con:
        con.execute("ALTER TABLE parts DROP COLUMN schema_version")
        for key, (part, data) in stale.items():
            text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            con.execute(
                "UPDATE parts SET data_json = ?, part_hash = ? WHERE dedupe_key = ? AND part = ?",
                (text, content_hash(data), key, part),
            )
        for (key,) in con.execute("SELECT dedupe_key FROM cases").fetchall():
            parts = dict(
                con.execute("SELECT part, data_json FROM parts WHERE dedupe_key = ?", (key,))
            )
            case = json.loads(parts.pop("case"))
            tabs = {p.removeprefix("tab:"): json.loads(d) for p, d in parts.items()}
            old_hash = content_hash({"complete": True, "case": case, "tabs": tabs})
            con.execute("UPDATE cases SET content_hash = ? WHERE dedupe_key = ?", (old_hash, key))
        con.execute("PRAGMA user_version = 1")
    con.close()


def test_an_old_workspace_recrawled_ships_what_changed_as_updates_and_nothing_else(
    tmp_path: Path, server: IngestServer
) -> None:
    ws = tmp_path / "ws"
    with running_replica(cases=CASES, seed=9, court_id=COURT) as rep:
        first = crawl(rep.url, COURT, ws)
        assert first.returncode == 0, first.stderr[-3000:]
        truth = truth_by_key(rep.write_truth(tmp_path / "truth.jsonl"))
        # the newest cases, in list order: the ones a crawl with max_cases takes again
        recrawled = [
            f"sipp.{COURT}:{key.split('|', 2)[2]}"
            for (key,) in state_query(
                ws,
                "SELECT key FROM requests WHERE kind = 'case' ORDER BY id LIMIT ?",
                (RECRAWLED,),
            )
        ]
        # the previous release: a format-1 store, and two of those cases with a tab as its
        # parsers stored it (empty, as the old appeal parser stored every appeal)
        stale: dict[str, tuple[str, Any]] = {}
        for key in recrawled:
            doc = truth[key]
            slug = next(slug for slug in sorted(doc["tabs"]) if doc["tabs"][slug])
            stale[key] = (f"tab:{slug}", {} if isinstance(doc["tabs"][slug], dict) else [])
            if len(stale) == 2:
                break
        (ws / "state.sqlite").rename(tmp_path / "state.sqlite.old")
        for suffix in ("-wal", "-shm"):
            (ws / f"state.sqlite{suffix}").unlink(missing_ok=True)
        _to_format_1(ws / "items.sqlite", stale)

        old = documents(ws)
        assert len(old) == CASES
        for key, doc in old.items():
            assert doc["schema_version"] == 1
            # the hash a format-1 document was shipped with is unchanged
            members = {k: doc[k] for k in ("complete", "case", "tabs")}
            assert doc["content_hash"] == content_hash(members) == document_hash(doc)
            got = {
                k: v
                for k, v in doc.items()
                if k not in ("content_hash", "schema_version", "version")
            }
            want = {k: v for k, v in truth[key].items() if k != "schema_version"}
            assert (got == want) is (key not in stale), key
        shipped = run_ship(ws, "--endpoint", server.url)
        assert shipped.returncode == 0, shipped.stderr[-3000:]
        assert sorted(r for _, r in server.log_results()) == ["created"] * CASES

        # the upgrade: the newest cases crawled again with the new code (fresh request state)
        again = crawl(rep.url, COURT, ws, spider_args={"max_cases": str(RECRAWLED)})
        assert again.returncode == 0, again.stderr[-3000:]
    now = documents(ws)
    renewed = {k for k, d in now.items() if d["schema_version"] == 2}
    # the crawl's start rebuilt every part of the older format from the page archive (no
    # request): the cases not crawled again are of today's format too, none is left behind
    assert set(recrawled) < renewed
    assert renewed == set(now) == set(old)
    for key in renewed:
        assert {
            k: v for k, v in now[key].items() if k not in ("content_hash", "version")
        } == truth[key]

    before = len(log_lines(ws))
    shipped = run_ship(ws, "--endpoint", server.url)
    assert shipped.returncode == 0, shipped.stderr[-3000:]
    results = server.log_results()[CASES:]
    assert sorted(results) == sorted((key, "updated") for key in renewed)
    assert {line["key"] for line in log_lines(ws)[before:]} == renewed
    for key in renewed:
        assert server.get(key).json()["document"]["schema_version"] == 2
    for key in stale:
        assert server.get(key).json()["document"]["tabs"] == truth[key]["tabs"]
    # and a third run sends nothing
    before = len(log_lines(ws))
    shipped = run_ship(ws, "--endpoint", server.url)
    assert shipped.returncode == 0, shipped.stderr[-3000:]
    assert len(server.log_results()) == CASES + len(renewed)
    assert len(log_lines(ws)) == before


def test_the_ingest_api_checks_schema_version_and_the_hash_it_implies() -> None:
    from reference.ingest_api.validation import validate_document

    doc: dict[str, Any] = {
        "dedupe_key": "sipp.pn-x:1/Pdt.G/2024/PN X",
        "source_type": "sipp.pn-x",
        "source_id": "1/Pdt.G/2024/PN X",
        "schema_version": 2,
        "content_hash": "",
        "complete": True,
        "case": {"nomor_perkara": "1/Pdt.G/2024/PN X"},
        "tabs": {},
    }
    doc["content_hash"] = document_hash(doc)
    assert validate_document(doc) == []
    v1 = doc | {"schema_version": 1}
    assert validate_document(v1)[0]["pointer"] == "#/content_hash"  # v1 hashes without it
    v1["content_hash"] = content_hash({k: doc[k] for k in ("complete", "case", "tabs")})
    assert validate_document(v1) == []
    missing = {k: v for k, v in doc.items() if k != "schema_version"}
    assert {"pointer": "#/schema_version", "detail": "is required"} in validate_document(missing)
    assert validate_document(doc | {"schema_version": "2"})[0] == {
        "pointer": "#/schema_version",
        "detail": "must be an integer",
    }
    assert validate_document(doc | {"schema_version": 0})[0] == {
        "pointer": "#/schema_version",
        "detail": "must be 1 or more",
    }
