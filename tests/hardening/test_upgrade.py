"""Upgrades that lose nothing and need no hand step (issue 24).

* Parts of an older item format are rebuilt from the page archive when the next crawl starts
  (no request), and only what the archive lacks is fetched again: the export equals the truth,
  every part is of today's format, and the crawl's ``url_log`` names exactly the pages the
  archive did not have.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from reference.sipp_site.testing import running_replica
from tests.support.harvest_run import (
    crawl,
    exported,
    mismatches,
    state_query,
    truth_by_key,
)

COURT = "pn-replika"
FORMAT = 2  # harvest.canonical.ITEM_SCHEMA_VERSION, spelled out: the test pins it


def _sql(path: Path, sql: str) -> list[tuple[object, ...]]:
    con = sqlite3.connect(path)
    try:
        rows = con.execute(sql).fetchall()
        con.commit()
        return rows
    finally:
        con.close()


def test_parts_of_an_older_format_are_rebuilt_from_the_archive_without_a_request(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    with running_replica(cases=16, seed=24, court_id=COURT) as replica:
        truth = truth_by_key(replica.truth_path(tmp_path))
        first = crawl(replica.url, COURT, ws)
        assert first.returncode == 0, first.stderr[-3000:]
        assert mismatches(exported(ws), truth) == {}

        # an older harvest's item store: every part of format 1, and data of another shape
        items = ws / "items.sqlite"
        n_parts = _sql(items, "SELECT count(*) FROM parts")[0][0]
        _sql(
            items,
            "UPDATE parts SET schema_version = 1, "
            "data_json = json_set(data_json, '$.old_shape', 1) WHERE part = 'case'",
        )
        _sql(items, "UPDATE parts SET schema_version = 1 WHERE part <> 'case'")
        assert mismatches(exported(ws), truth) != {}  # as stored, the export would be wrong
        # ... and an archive that lacks a few of their pages
        index = ws / "archive" / "index.sqlite"
        lacking = [
            str(r[0])
            for kind, n in (("case", 2), ("tab", 1))
            for r in _sql(
                index, f"SELECT key FROM records WHERE kind = '{kind}' ORDER BY key LIMIT {n}"
            )
        ]
        _sql(index, "DELETE FROM records WHERE key IN ('" + "', '".join(lacking) + "')")

        second = crawl(replica.url, COURT, ws)
        assert second.returncode == 0, second.stderr[-3000:]
        assert (
            f"court {COURT}: {n_parts} parts were of an older item format: "
            f"{n_parts - 3} rebuilt from the archive (no request), 3 to be fetched again"
        ) in second.stderr
        assert mismatches(exported(ws), truth) == {}
        assert _sql(items, "SELECT DISTINCT schema_version FROM parts") == [(FORMAT,)]
        # the court was asked for exactly the pages the archive lacked (a case page is two
        # exchanges: show_* redirects)
        ((run,),) = state_query(ws, "SELECT max(id) FROM runs")
        fetched = state_query(
            ws,
            "SELECT DISTINCT r.key FROM url_log AS u JOIN requests AS r "
            "ON r.id = u.request_id WHERE u.run_id = ? ORDER BY r.key",
            (run,),
        )
        assert [k for (k,) in fetched] == sorted(lacking)
        notes = state_query(
            ws,
            "SELECT detail FROM events WHERE event = 'released' AND run_id = ? ORDER BY id",
            (run,),
        )
        assert len(notes) == 3
        assert all(
            "is of an older item format and its page is not in the archive: fetched again"
            in str(n)
            for (n,) in notes
        )
