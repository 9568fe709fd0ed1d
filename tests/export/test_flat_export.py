"""``scrapy export --format parquet|csv`` of a 300-case replica crawl, read with DuckDB, and
``--changed-since`` after a refresh (docs/export.md)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from harvest.flat.tables import TABLES
from pipelines.store import ItemStore
from reference.sipp_site.court import TODAY
from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import crawl, scrapy_command

COURT = "pn-replika"
CASES = 300
PINNED = {"HARVEST_REFRESH_TODAY": TODAY.isoformat()}


def documents(ws: Path) -> dict[str, dict[str, Any]]:
    with ItemStore.open(ws / "items.sqlite", readonly=True) as store:
        return {d["dedupe_key"]: dict(d) for d in store.iter_documents(complete_only=False)}


def names(document: dict[str, Any]) -> int:
    """The party and lawyer names of one document, counted straight from its JSON."""
    case = document["case"]
    header = case["header"]
    count = sum(len((header[side] or {}).get("nama", [])) for side in ("pihak_1", "pihak_2"))
    count += sum(len(p["nama"]) for p in case["data_umum"].get("pihak", []))
    count += sum(len(k["rows"]) for k in case["data_umum"].get("kuasa", []))
    count += sum(len(p["nama"]) for p in (case["list_row"] or {}).get("para_pihak", []))
    return count


def export(ws: Path, *args: str) -> str:
    result = scrapy_command("export", ws, *args)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stderr


def table(fmt: str, directory: Path, name: str) -> str:
    path = directory / f"{name}.{fmt}"
    return f"read_parquet('{path}')" if fmt == "parquet" else f"read_csv('{path}')"


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_parquet_and_csv_exports_load_in_duckdb_and_changed_since_exports_the_changes(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    with running_replica(cases=CASES, seed=31, court_id=COURT) as replica:
        first = crawl(replica.url, COURT, ws, settings=PINNED)
    assert first.returncode == 0, first.stderr[-3000:]
    before = documents(ws)
    assert len(before) == CASES

    con = duckdb.connect()
    for fmt in ("parquet", "csv"):
        out = tmp_path / fmt
        message = export(ws, "--format", fmt, "--out", str(out))
        assert f"exported {CASES} case documents" in message
        assert sorted(p.name for p in out.iterdir()) == sorted(f"{t}.{fmt}" for t in TABLES)
        cases, parties = table(fmt, out, "cases"), table(fmt, out, "parties")
        joined = con.execute(
            f"SELECT c.dedupe_key, count(p.nama) FROM {cases} c"
            f" LEFT JOIN {parties} p ON p.dedupe_key = c.dedupe_key GROUP BY 1"
        ).fetchall()
        assert dict(joined) == {key: names(doc) for key, doc in before.items()}
        hearings = con.execute(f"SELECT count(*) FROM {table(fmt, out, 'hearings')}").fetchone()
        assert hearings == (sum(len(d["tabs"].get("jadwal_sidang", [])) for d in before.values()),)
        amounts = con.execute(
            f"SELECT sum(nilai_sengketa) FROM {cases} WHERE nilai_sengketa IS NOT NULL"
        ).fetchone()
        want = sum(
            d["case"]["data_umum"]["nilai_sengketa"]
            for d in before.values()
            if isinstance(d["case"]["data_umum"].get("nilai_sengketa"), int)
        )
        assert amounts == (want,)
        verdict_of = {
            k: d["tabs"]["putusan"].get("status_putusan")
            for k, d in before.items()
            if d["tabs"].get("putusan")
        }
        verdicts = con.execute(
            f"SELECT dedupe_key, status_putusan FROM {table(fmt, out, 'verdicts')}"
            " WHERE tab = 'putusan'"
        ).fetchall()
        assert dict(verdicts) == verdict_of
        costs = con.execute(
            f"SELECT sum(pengeluaran) FROM {table(fmt, out, 'costs')} WHERE kind = 'transaksi'"
        ).fetchone()
        assert costs == (
            sum(
                t["pengeluaran"] or 0
                for d in before.values()
                for stage in d["tabs"].get("biaya_perkara", [])
                for t in stage["transaksi"]
            ),
        )

    # a month later: new hearings, verdicts, new cases; a refresh of the cases due
    later = (TODAY + dt.timedelta(days=30)).isoformat()
    with running_replica(
        cases=CASES, seed=31, court_id=COURT, extra_args=["--as-of", later]
    ) as replica:
        refresh = crawl(
            replica.url, COURT, ws, spider_args={"refresh": "due"},
            settings={"HARVEST_REFRESH_TODAY": later},
        )  # fmt: skip
    assert refresh.returncode == 0, refresh.stderr[-3000:]
    after = documents(ws)
    changed = {
        k
        for k, d in after.items()
        if k not in before or before[k]["content_hash"] != d["content_hash"]
    }
    assert 0 < len(changed) < len(after)
    out = tmp_path / "changed.jsonl"
    export(ws, "--changed-since", "1", "--out", str(out))
    exported = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {d["dedupe_key"] for d in exported} == changed
    assert all(d == after[d["dedupe_key"]] for d in exported)
    flat = tmp_path / "changed-parquet"
    export(ws, "--changed-since", "1", "--format", "parquet", "--out", str(flat))
    keys = con.execute(f"SELECT dedupe_key FROM {table('parquet', flat, 'cases')}").fetchall()
    assert {k for (k,) in keys} == changed
